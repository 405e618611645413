// Package kerneltest draws random kernel specs for the property tests of
// the packages above kernel: one generator, whose Options choose the
// fields, the accesses and the kinds of index terms each test needs.
package kerneltest

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/polyvol/polyvol/kernel"
)

// Term is a kind of index term.
type Term int

// The kinds of index term; v is the term's coordinate, w another drawn
// one, o a small offset and d a divisor drawn up to Options.MaxDivisor.
const (
	Absent     Term = iota // nothing: an index without its own coordinate
	Offset                 // v + o, a stencil neighbour
	Constant               // o alone
	Stride                 // s·v + o, s from Options.Strides
	Floor                  // floor(v / d) + o
	Mod                    // v mod d + o
	Affine                 // o + Σ c·u over x, y, z with c in −3 … 3
	Coupled                // s·v + s′·w, s and s′ from Options.Strides
	CoupledMod             // (a·v + b·w) mod d
	Nested                 // floor((floor(v / d) + w) / d′), ((v mod d) + w) mod d′, −a·floor((v + w) / d)
	Linearised             // c·floor(v / 4) + v mod 4, and c·floor((a·v + b) / d) + v mod d′ with d, d′ up to 48
	Wrapped                // v mod P, (v + k) mod P, 2·(v mod P), (v + z) mod P, floor(v / P), plus o: P is the kernel's period of v
)

// Options choose what Kernel draws. The zero value of a field takes the
// default its comment names.
type Options struct {
	Name   string   // the kernel's name; "random"
	Domain [3]int64 // the lattice domain (required)
	Flops  int      // flops per lattice update; none
	Fields int      // 1 … Fields fields; 1
	Loads  int      // 1 … Loads loads per field; 1
	// Stores: 0 … Stores stores per field, none in about half the fields;
	// with StoreAtPoint every field stores at [x, y, z] instead.
	Stores       int
	StoreAtPoint bool
	Elements     []int64 // element sizes; 1, 2, 4, 8, 16
	// Lead are the kinds of each index's leading term, of the index's own
	// coordinate, drawn uniformly: repeat a kind to weight it; Offset.
	Lead []Term
	// Extra are the kinds of up to MaxExtra further terms per index, each
	// of a coordinate drawn at random.
	Extra      []Term
	MaxExtra   int
	MaxShift   int     // offsets o in −MaxShift … MaxShift; 2
	Strides    []int64 // factors of Stride and Coupled terms; 2
	MaxDivisor int     // divisors from 2 to MaxDivisor; 4
	Periods    []int64 // periods of Wrapped terms, one drawn per coordinate; 4, 8
	// Transpose swaps the x and y coordinates of about one access in five.
	Transpose bool
	// Partial bounds one coordinate of about one access in four (an
	// access that applies on part of the domain).
	Partial      bool
	Multiplicity bool     // multiplicities of 1 or 2
	MaxOffset    int      // field offsets 0 … MaxOffset
	BaseOffset   int      // added to every field offset
	Margin       [3]int64 // extents: the domain plus 0 … Margin (at least 1 each)
	Rows         []int64  // x extents that one field in three takes instead
	// Stage, when set, draws the first field staged (Stage) in place of
	// one drawn by Lead and Extra.
	Stage *Stage
}

// Stage shapes the staged field (kernel.Staging) that Options.Stage draws:
// read only, with a copy mapping of rows or block and a row padding of 0
// … 40 elements or, in about one field in five, the bank rule. Its array
// dimensions are indexed by the lattice coordinates x … up to Dims, in
// permuted order in about one field in four, and, below 3 coordinates in
// about one field in four, one more dimension by a constant. Its 1 …
// Options.Loads loads are stencil neighbours, each coordinate plus an
// offset within a radius drawn from 0 … Halo. Each extent holds the
// domain grown by Halo on both sides plus 0 … Options.Margin, and the
// field's offset adds to the one drawn as for every field the halo of
// each coordinate's dimension, so that each index, shifted by the halo,
// falls inside its extent.
type Stage struct {
	Dims int   // the coordinates that index the array; 3
	Halo int64 // the greatest load offset in each coordinate; 0
}

// generator draws one kernel.
type generator struct {
	r       *rand.Rand
	o       Options
	periods [3]int64
}

// Spec returns the text of a random kernel spec drawn by r under o.
func Spec(r *rand.Rand, o Options) string {
	g := &generator{r: r, o: o}
	g.defaults()
	for i := range g.periods {
		g.periods[i] = g.o.Periods[r.IntN(len(g.o.Periods))]
	}
	var b strings.Builder
	fmt.Fprintf(&b, "name: %s\ndomain: [%d, %d, %d]\n", g.o.Name, o.Domain[0], o.Domain[1], o.Domain[2])
	if o.Flops > 0 {
		fmt.Fprintf(&b, "flops: %d\n", o.Flops)
	}
	b.WriteString("fields:\n")
	for f := range 1 + r.IntN(g.o.Fields) {
		g.field(&b, f)
	}
	return b.String()
}

// Kernel returns a random kernel drawn by r under o, failing tb when the
// spec does not load.
func Kernel(tb testing.TB, r *rand.Rand, o Options) *kernel.Kernel {
	tb.Helper()
	spec := Spec(r, o)
	k, err := kernel.Parse([]byte(spec), "random.yaml")
	if err != nil {
		tb.Fatalf("random kernel: %v\n%s", err, spec)
	}
	return k
}

// defaults fills the unset options.
func (g *generator) defaults() {
	o := &g.o
	if o.Name == "" {
		o.Name = "random"
	}
	o.Fields, o.Loads = max(1, o.Fields), max(1, o.Loads)
	if o.Elements == nil {
		o.Elements = []int64{1, 2, 4, 8, 16}
	}
	if o.Lead == nil {
		o.Lead = []Term{Offset}
	}
	if o.MaxShift == 0 {
		o.MaxShift = 2
	}
	if o.Strides == nil {
		o.Strides = []int64{2}
	}
	if o.MaxDivisor < 2 {
		o.MaxDivisor = 4
	}
	if o.Periods == nil {
		o.Periods = []int64{4, 8}
	}
	if o.Stage != nil && o.Stage.Dims == 0 {
		o.Stage = &Stage{Dims: 3, Halo: o.Stage.Halo}
	}
}

// field writes field f.
func (g *generator) field(b *strings.Builder, f int) {
	if f == 0 && g.o.Stage != nil {
		g.stagedField(b)
		return
	}
	r, o := g.r, g.o
	var ext [3]int64
	for i := range ext {
		ext[i] = o.Domain[i] + r.Int64N(max(1, o.Margin[i]+1))
	}
	if len(o.Rows) > 0 && r.IntN(3) == 0 {
		ext[0] = o.Rows[r.IntN(len(o.Rows))]
	}
	fmt.Fprintf(b, "  - name: F%d\n    element: %d\n    offset: %d\n    extent: [%d, %d, %d]\n",
		f, o.Elements[r.IntN(len(o.Elements))], o.BaseOffset+r.IntN(o.MaxOffset+1), ext[0], ext[1], ext[2])
	if o.Multiplicity {
		fmt.Fprintf(b, "    multiplicity: %d\n", 1+r.IntN(2))
	}
	g.accesses(b, "load", 1+r.IntN(o.Loads))
	switch {
	case o.StoreAtPoint:
		b.WriteString("    store:\n      - [x, y, z]\n")
	case o.Stores > 0 && r.IntN(2) == 0:
		g.accesses(b, "store", 1+r.IntN(o.Stores))
	}
}

// stagedField writes field F0 staged (Options.Stage).
func (g *generator) stagedField(b *strings.Builder) {
	r, o, halo := g.r, g.o, g.o.Stage.Halo
	coord := g.stageLayout()
	extent := make([]int64, len(coord))
	offset, stride := int64(o.BaseOffset+r.IntN(o.MaxOffset+1)), int64(1)
	for j, c := range coord {
		if c < 0 {
			extent[j] = 3 + r.Int64N(2)
		} else {
			extent[j] = o.Domain[c] + 2*halo + r.Int64N(max(1, o.Margin[c]+1))
			offset += halo * stride
		}
		stride *= extent[j]
	}
	fmt.Fprintf(b, "  - name: F0\n    element: %d\n    offset: %d\n    extent: %s\n",
		o.Elements[r.IntN(len(o.Elements))], offset, strings.ReplaceAll(fmt.Sprint(extent), " ", ", "))
	if o.Multiplicity {
		fmt.Fprintf(b, "    multiplicity: %d\n", 1+r.IntN(2))
	}
	pad := fmt.Sprint(r.IntN(41))
	if r.IntN(5) == 0 {
		pad = "banks"
	}
	fmt.Fprintf(b, "    stage: {copy: %s, pad: %s}\n    load:\n", []string{"rows", "block"}[r.IntN(2)], pad)
	radius := r.Int64N(halo + 1)
	for range 1 + r.IntN(o.Loads) {
		idx := make([]string, len(coord))
		for j, c := range coord {
			if c < 0 {
				idx[j] = fmt.Sprint(r.Int64N(extent[j]))
			} else {
				idx[j] = fmt.Sprintf("%s + %d", coords[c], r.Int64N(2*radius+1)-radius)
			}
		}
		fmt.Fprintf(b, "      - [%s]\n", strings.Join(idx, ", "))
	}
}

// stageLayout returns the lattice coordinate that indexes each array
// dimension of the staged field, −1 for the one indexed by a constant.
func (g *generator) stageLayout() []int {
	r, dims := g.r, g.o.Stage.Dims
	coord := []int{0, 1, 2}[:dims]
	if dims >= 2 && r.IntN(4) == 0 {
		r.Shuffle(dims, func(a, b int) { coord[a], coord[b] = coord[b], coord[a] })
	}
	if dims < 3 && r.IntN(4) == 0 {
		coord = append(coord, -1)
		if r.IntN(2) == 0 {
			coord[0], coord[dims] = coord[dims], coord[0]
		}
	}
	return coord
}

// accesses writes a list of n accesses of the given kind.
func (g *generator) accesses(b *strings.Builder, kind string, n int) {
	fmt.Fprintf(b, "    %s:\n", kind)
	for range n {
		v := [3]int{0, 1, 2}
		if g.o.Transpose && g.r.IntN(5) == 0 {
			v[0], v[1] = v[1], v[0]
		}
		at := fmt.Sprintf("[%s, %s, %s]", g.index(v[0]), g.index(v[1]), g.index(v[2]))
		if g.o.Partial && g.r.IntN(4) == 0 {
			c := g.r.IntN(3)
			bound := g.r.Int64N(g.o.Domain[c]+2) - 1
			op := []string{"<", "<=", ">", ">="}[g.r.IntN(4)]
			fmt.Fprintf(b, "      - {at: %s, if: \"%s %s %d\"}\n", at, coords[c], op, bound)
			continue
		}
		fmt.Fprintf(b, "      - %s\n", at)
	}
}

// coords are the names of the coordinates.
var coords = [3]string{"x", "y", "z"}

// index returns an index whose own coordinate is v.
func (g *generator) index(v int) string {
	var parts []string
	if t := g.term(g.o.Lead[g.r.IntN(len(g.o.Lead))], v); t != "" {
		parts = append(parts, t)
	}
	if len(g.o.Extra) > 0 {
		for range g.r.IntN(g.o.MaxExtra + 1) {
			if t := g.term(g.o.Extra[g.r.IntN(len(g.o.Extra))], g.r.IntN(3)); t != "" {
				parts = append(parts, t)
			}
		}
	}
	if len(parts) == 0 {
		return "0"
	}
	return strings.Join(parts, " + ")
}

// term returns a term of kind t of coordinate v, "" for Absent.
func (g *generator) term(t Term, v int) string {
	r := g.r
	x, w := coords[v], coords[r.IntN(3)]
	o := r.IntN(2*g.o.MaxShift+1) - g.o.MaxShift
	d := func() int { return 2 + r.IntN(g.o.MaxDivisor-1) }
	s := func() int64 { return g.o.Strides[r.IntN(len(g.o.Strides))] }
	switch t {
	case Offset:
		return fmt.Sprintf("%s + %d", x, o)
	case Constant:
		return fmt.Sprint(r.IntN(g.o.MaxShift + 1))
	case Stride:
		return fmt.Sprintf("%d*%s + %d", s(), x, o)
	case Floor:
		return fmt.Sprintf("floor(%s / %d) + %d", x, d(), o)
	case Mod:
		return fmt.Sprintf("%s %% %d + %d", x, d(), o)
	case Affine:
		e := fmt.Sprint(o)
		for _, u := range coords {
			if c := r.IntN(7) - 3; c != 0 {
				e += fmt.Sprintf(" + %d*%s", c, u)
			}
		}
		return e
	case Coupled:
		return fmt.Sprintf("%d*%s + %d*%s", s(), x, s(), w)
	case CoupledMod:
		return fmt.Sprintf("(%d*%s + %d*%s) %% %d", 1+r.IntN(3), x, 1+r.IntN(3), w, d())
	case Nested:
		return g.nested(x, w, d)
	case Linearised:
		if r.IntN(2) == 0 {
			return fmt.Sprintf("%d*floor(%s / 4) + %s %% 4", 3+r.IntN(10), x, x)
		}
		// Divisors larger than many boxes: cut at breakpoints.
		return fmt.Sprintf("%d*floor((%d*%s + %d) / %d) + %s %% %d", 1+r.IntN(5), 1+r.IntN(3), x, r.IntN(50), 7+r.IntN(40), x, 9+r.IntN(30))
	case Wrapped:
		return g.wrapped(x, g.periods[v], o)
	}
	return ""
}

// nested returns a nested floor or modulo term of x and w.
func (g *generator) nested(x, w string, d func() int) string {
	switch g.r.IntN(3) {
	case 0:
		return fmt.Sprintf("floor((floor(%s / %d) + %s) / %d)", x, d(), w, d())
	case 1:
		return fmt.Sprintf("((%s %% %d) + %s) %% %d", x, d(), w, d())
	}
	return fmt.Sprintf("-%d*floor((%s + %s) / %d)", 1+g.r.IntN(3), x, w, d())
}

// wrapped returns a term of x that wraps with period p, plus o.
func (g *generator) wrapped(x string, p int64, o int) string {
	switch g.r.IntN(8) {
	case 0:
		return fmt.Sprintf("(%s + %d) mod %d + %d", x, 1+g.r.IntN(3), p, o)
	case 1:
		return fmt.Sprintf("floor(%s / %d) + %d", x, p, o)
	case 2:
		return fmt.Sprintf("2*(%s mod %d) + %d", x, p, o)
	case 3:
		return fmt.Sprintf("(%s + z) mod %d + %d", x, p, o)
	}
	return fmt.Sprintf("(%s mod %d) + %d", x, p, o)
}
