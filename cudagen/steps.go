package cudagen

import (
	"fmt"
	"strings"

	"github.com/polyvol/polyvol/kernel"
)

// Time steps per launch (kernel.StepWork). For a launch of T > 1 steps the
// kernel copies the staged tiles, grown for T steps (kernel.TileOf), the
// state's into the first of its two shared buffers, and synchronises; step
// t = 1 … T then computes the block's points grown by T − t halos of the
// state (kernel.StepRegion: the threads take them as the launch's tiling
// takes the block's points), each point in the domain loading every
// field's values (the staged fields' from their tiles, the state's from
// the buffer of the current step, the others' from global memory at every
// step) into the FMA chain and writing the state's next value into the
// other buffer; a point of the region outside the domain keeps its value
// where the tile holds it (the domain's edge stays as the arrays hold it,
// as between launches of one step). A barrier follows every step, and the
// buffers swap. After the last step each thread stores its own points'
// values, once. Every point issues its own loads: the step's loops do not
// merge loads that coincide for several points of a thread.

// stepsRefusal reports why the generator cannot write k's launch l of
// several time steps.
func stepsRefusal(k *kernel.Kernel, l kernel.Launch) error {
	if err := k.CheckSteps(l); err != nil {
		return err
	}
	for _, f := range k.Fields {
		if f.Multiplicity > 1 && (f == k.StateField() || len(f.Stores) > 0) {
			return fmt.Errorf("%d time steps per launch: field %q has %d instances; the generator advances a state of one instance into a store of one", l.StepCount(), f.Name, f.Multiplicity)
		}
	}
	return nil
}

// local names the coordinates of a step's point relative to the block's
// first point, and point those of the lattice point.
var (
	local = [3]string{"lx", "ly", "lz"}
	point = [3]string{"px", "py", "pz"}
)

// sharedAt renders the element offset in tile t of the array index whose
// tile dimension j is the coordinate local[Coord] plus konst[j] (konst[j]
// alone where the dimension has no coordinate), local coordinates being
// relative to the block's first point; lanes names each coordinate's
// local value.
func sharedAt(t *kernel.Tile, konst [3]int64, lanes [3]string) string {
	strides := t.Strides()
	var terms []string
	var c int64
	for j, d := range t.Dims {
		c += strides[j] * (konst[j] - d.Lo)
		if d.Coord >= 0 && t.Size[j] > 1 {
			terms = append(terms, scaled(lanes[d.Coord], strides[j], false))
		}
	}
	if len(terms) == 0 {
		return cLiteral(c)
	}
	for i := len(terms)/2 - 1; i >= 0; i-- { // the innermost dimension first
		terms[i], terms[len(terms)-1-i] = terms[len(terms)-1-i], terms[i]
	}
	return strings.Join(terms, " + ") + plusConst(c)
}

// loadConstants returns the constants of staged load a per tile
// dimension: its index minus the coordinate it follows.
func loadConstants(a kernel.Access) [3]int64 {
	var k [3]int64
	for j, e := range a.Index {
		_, k[j], _ = e.Linear()
	}
	return k
}

// stepValue is one value a step's point loads.
type stepValue struct {
	fp   *fieldPlan
	name string
	stmt string // its declaration and load
}

// stepValues returns the values a step's point loads, field by field,
// instance by instance, in the spec's order of the loads; the state's
// from the buffer cur.
func (g *gen) stepValues(state *fieldPlan) ([]stepValue, error) {
	var out []stepValue
	for _, fp := range g.fields {
		for _, in := range fp.inst {
			array := "f_" + in.ident
			switch {
			case fp == state:
				array = "cur"
			case fp.tile != nil:
				array = "s_" + in.ident
			}
			for _, a := range fp.f.Loads {
				name := fmt.Sprintf("v%d", len(out))
				var idx string
				if fp.tile != nil {
					idx = sharedAt(fp.tile, loadConstants(a), local)
				} else {
					e, err := fp.f.ElementIndexExpr(a)
					if err == nil {
						e, err = e.Sub(kernel.Const(fp.f.Offset))
					}
					if err != nil {
						return nil, fmt.Errorf("field %q access %s: %w", fp.f.Name, a, err)
					}
					fl, md := usesDiv(e)
					g.floor, g.mod = g.floor || fl, g.mod || md
					idx = cExprOver(e, point)
				}
				stmt := fmt.Sprintf("const %s %s = %s[%s];", fp.typ.name, name, array, idx)
				if len(a.Guards) > 0 {
					var conds []string
					for _, e := range a.Guards {
						fl, md := usesDiv(e)
						g.floor, g.mod = g.floor || fl, g.mod || md
						conds = append(conds, cExprOver(e, point)+" >= 0")
					}
					stmt = fmt.Sprintf("const %s %s = (%s) ? %s[%s] : %s;", fp.typ.name, name, strings.Join(conds, " && "), array, idx, fp.typ.zero())
				}
				out = append(out, stepValue{fp, name, stmt})
			}
		}
	}
	return out, nil
}

// writeStepsKernel writes the __global__ function of a launch of several
// time steps (the comment above).
func (g *gen) writeStepsKernel(b *strings.Builder, fn, real, fma, weight string) error {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	l := g.l
	var state *fieldPlan
	for _, fp := range g.fields {
		if fp.f == g.k.StateField() {
			state = fp
		}
	}
	halo, err := kernel.StepHalo(state.f)
	if err != nil {
		return err
	}
	values, err := g.stepValues(state)
	if err != nil {
		return err
	}
	g.tid = [3]bool{} // the steps declare tx, ty and tz themselves
	g.writeKernelStart(b, fn, false)
	t, typ, cur := state.tile, state.typ.name, "s_"+state.inst[0].ident
	p("    __shared__ %s %s_next[%d]; // the state's values of the next step\n", typ, cur, t.Elements())
	p("    %s* cur = %s;\n    %s* nxt = %s_next;\n", typ, cur, typ, cur)
	p("    const int tx = threadIdx.x, ty = threadIdx.y, tz = threadIdx.z;\n")
	var origin []string
	for c := range 3 {
		origin = append(origin, fmt.Sprintf("%s = (long long)blockIdx.%s * %d", tileOrigin[c], coordinates[c], t.Extent[c]))
	}
	p("    const long long %s; // the block's first point\n", strings.Join(origin, ", "))
	p("    for (int g = %d; g >= 0; --g) { // step %d - g: the block's points grown by g halos\n", l.StepCount()-1, l.StepCount())
	var sizes []string
	for c := range 3 {
		sizes = append(sizes, fmt.Sprintf("n%d = %d%s", c, t.Extent[c], scaledConst("g", halo[c][0]+halo[c][1])))
	}
	p("        const int %s; // the region's points\n", strings.Join(sizes, ", "))
	indent := "        "
	tid, blk := [3]string{"tx", "ty", "tz"}, [3]string{"BX", "BY", "BZ"}
	for c := 2; c >= 0; c-- {
		if l.Tiling == kernel.TileStrided {
			p("%sfor (int i%d = %s; i%d < n%d; i%d += %s) {\n", indent, c, tid[c], c, c, c, blk[c])
		} else {
			p("%sconst int f%d = (n%d + %s - 1) / %s, e%d = (%s + 1) * f%d < n%d ? (%s + 1) * f%d : n%d;\n", indent, c, c, blk[c], blk[c], c, tid[c], c, c, tid[c], c, c)
			p("%sfor (int i%d = %s * f%d; i%d < e%d; ++i%d) {\n", indent, c, tid[c], c, c, c, c)
		}
		indent += "    "
	}
	var locals, points, inside, kept []string
	for c := range 3 {
		locals = append(locals, fmt.Sprintf("%s = i%d%s", local[c], c, scaledConst("g", -halo[c][0])))
		points = append(points, fmt.Sprintf("%s = %s + %s", point[c], tileOrigin[c], local[c]))
		inside = append(inside, fmt.Sprintf("%s >= 0 && %s < D%d", point[c], point[c], c))
	}
	for _, d := range t.Dims {
		if c := d.Coord; c >= 0 {
			kept = append(kept, fmt.Sprintf("%s < (%s + %d < D%d ? %s + %d : D%d)%s", point[c], tileOrigin[c], t.Extent[c], c, tileOrigin[c], t.Extent[c], c, plusConst(d.Hi)))
		}
	}
	self := sharedAt(t, [3]int64{}, local)
	p("%sconst long long %s; // the point, from the block's first\n", indent, strings.Join(locals, ", "))
	p("%sconst long long %s;\n", indent, strings.Join(points, ", "))
	p("%sif (%s) {\n", indent, strings.Join(inside, " && "))
	for _, v := range values {
		p("%s    %s\n", indent, v.stmt)
	}
	p("%s    real_t acc = 0;\n", indent)
	var operands []string
	for _, v := range values {
		operands = append(operands, realOperands(v.name, v.fp.typ, real)...)
	}
	for _, line := range g.chainLines(operands, fma, weight) {
		p("%s    %s\n", indent, line)
	}
	p("%s    nxt[%s] = %s;\n", indent, self, storeValue(state.typ, real))
	if len(kept) == 0 {
		kept = []string{"true"}
	}
	p("%s} else if (%s) { // outside the domain, in the tile: kept\n", indent, strings.Join(kept, " && "))
	p("%s    nxt[%s] = cur[%s];\n", indent, self, self)
	p("%s}\n", indent)
	for range 3 {
		indent = indent[4:]
		p("%s}\n", indent)
	}
	p("        __syncthreads(); // the step's values are complete\n")
	p("        %s* const done = cur;\n        cur = nxt;\n        nxt = done;\n", typ)
	p("    }\n")
	g.writeStepsStores(b, t)
	p("}\n\n")
	return nil
}

// writeStepsStores writes the stores of the thread's own points, each
// under its guard, of the last step's values in the state's tile t.
func (g *gen) writeStepsStores(b *strings.Builder, t *kernel.Tile) {
	tid := [3]string{"tx", "ty", "tz"}
	for k, j := range g.points {
		var own [3]string // the point's local coordinates
		for c := range 3 {
			own[c] = fmt.Sprintf("(%s * %d + %d)", tid[c], g.l.Fold[c], j[c])
			if g.l.Tiling == kernel.TileStrided {
				own[c] = fmt.Sprintf("(%s + %d)", tid[c], j[c]*g.l.Block[c])
			}
		}
		fmt.Fprintf(b, "    if (in%d) {\n", k)
		for _, fp := range g.fields {
			for _, idx := range fp.storeIdx[k] {
				fmt.Fprintf(b, "        f_%s[%s] = cur[%s];\n", fp.inst[0].ident, idx, sharedAt(t, [3]int64{}, own))
			}
		}
		fmt.Fprintf(b, "    }\n")
	}
}

// scaledConst renders " + v * c", " - v * c" or nothing for c = 0.
func scaledConst(v string, c int64) string {
	switch {
	case c > 0:
		return fmt.Sprintf(" + %s * %d", v, c)
	case c < 0:
		return fmt.Sprintf(" - %s * %d", v, -c)
	}
	return ""
}
