package importer

// The loop plan of an import: which loop goes to x, y and z, which loops
// are reductions, and the launch that runs the kernel as a CUDA programmer
// would write it. Two things shape it, besides --map:
//
//   - reductions: a store that does not depend on a loop (C[i][j] in
//     C[i][j] += A[i][k]*B[k][j] does not depend on k) writes the same
//     element at many lattice points. CUDA code gives each output element
//     one thread that loops over the reduced loop with the sum in a
//     register and stores it once; polyvol models that loop as a fold along
//     the coordinate that holds the reduced loop, the output loops on the
//     inner coordinates, and the store (and the load of the accumulator's
//     first value) as partial accesses at the loop's last (first) point;
//   - the statement's schedule: its innermost scheduled loop goes to x,
//     then y and z outward, and the tile sizes of a tiled schedule suggest
//     the block that covers one tile.

import (
	"fmt"
	"slices"
	"strings"

	"github.com/polyvol/polyvol/isl"
)

// plan is the loop plan of one import.
type plan struct {
	names   []string // loop names, outermost first
	order   []int    // the loops in the order they take free coordinates, innermost first
	reduced []bool   // per loop: a reduction loop, which every store leaves out
	tiles   [][]int64
	// tiled is true when the schedule tiles or strip-mines a loop.
	tiled bool
	// scheduled is true when the schedule changed the order of the loops.
	scheduled bool
	notes     []string
}

// anyReduced reports whether the plan has a reduction loop.
func (p *plan) anyReduced() bool { return slices.Contains(p.reduced, true) }

// loopNames returns the statement's loop names, outermost first: those of
// its domain's tuple, or i0, i1, ... when the tuple does not name them.
func (b *builder) loopNames(n int) []string {
	_, body, _ := paramList(b.stmt.Domain)
	names := tupleNames(body)
	if len(names) != n {
		names = nil
		for k := range n {
			names = append(names, fmt.Sprintf("i%d", k))
		}
	}
	return names
}

// identityLattice returns the lattice of lat's loops with loop k on
// coordinate k, in which the plan is analysed before the loops are mapped.
func (b *builder) identityLattice(lat *lattice) (*lattice, error) {
	n := len(lat.lo)
	id := &lattice{tuple: lat.tuple, lo: lat.lo, hi: lat.hi, coord: make([]int, n), dims: n}
	lo, hi := make([]int64, n), make([]int64, n)
	for k := range n {
		id.coord[k] = k
		id.extent[k] = lat.hi[k] - lat.lo[k] + 1
		hi[k] = id.extent[k] - 1
	}
	for c := n; c < 3; c++ {
		id.extent[c] = 1
	}
	var err error
	if id.box, err = b.sc.BoxSet("", lo, hi); err != nil {
		return nil, b.errf(b.stmt.DomainPos, b.stmt.Where, "%s", islMessage(err))
	}
	return id, nil
}

// independent reports whether the map m from lat's lattice does not depend
// on coordinate c: every point of the lattice box whose neighbour along c
// is in the box too has that neighbour's image.
func (b *builder) independent(m *isl.Map, lat *lattice, c int) (bool, error) {
	if lat.extent[c] < 2 {
		return true, nil
	}
	in := coordNames[:lat.dims]
	out := slices.Clone(in)
	out[c] += " + 1"
	step, err := b.sc.ReadMap(fmt.Sprintf("{ [%s] -> [%s] }", strings.Join(in, ", "), strings.Join(out, ", ")))
	if err != nil {
		return false, err
	}
	lo, hi := make([]int64, lat.dims), make([]int64, lat.dims)
	for j := range lat.dims {
		hi[j] = lat.extent[j] - 1
	}
	hi[c]--
	dom, err := b.sc.BoxSet("", lo, hi)
	if err != nil {
		return false, err
	}
	next, err := step.ApplyRange(m)
	if err == nil {
		next, err = next.IntersectDomain(dom)
	}
	if err != nil {
		return false, err
	}
	here, err := m.IntersectDomain(dom)
	if err != nil {
		return false, err
	}
	return here.IsEqual(next)
}

// countImage returns the number of points of m's image of the lattice box,
// with coordinate c limited to [0, upto] when upto >= 0.
func (b *builder) countImage(m *isl.Map, lat *lattice, c int, upto int64) (int64, error) {
	box := lat.box
	if upto >= 0 {
		lo, hi := make([]int64, lat.dims), make([]int64, lat.dims)
		for j := range lat.dims {
			hi[j] = lat.extent[j] - 1
		}
		hi[c] = upto
		var err error
		if box, err = b.sc.BoxSet("", lo, hi); err != nil {
			return 0, err
		}
	}
	on, err := m.IntersectDomain(box)
	if err != nil {
		return 0, err
	}
	rng, err := on.Range()
	if err != nil {
		return 0, err
	}
	return rng.CountVal()
}

// firstReaching returns the smallest t in [0, extent) for which the image
// of the box with coordinate c limited to [0, t] has at least want points,
// or -1 when none has.
func (b *builder) firstReaching(m *isl.Map, lat *lattice, c int, want int64) (int64, error) {
	lo, hi := int64(0), lat.extent[c]-1
	if n, err := b.countImage(m, lat, c, hi); err != nil || n < want {
		return -1, err
	}
	for lo < hi {
		mid := lo + (hi-lo)/2
		n, err := b.countImage(m, lat, c, mid)
		if err != nil {
			return 0, err
		}
		if n >= want {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo, nil
}

// makePlan analyses the statement's stores and schedule on the identity
// lattice of lat's loops.
func (b *builder) makePlan(lat *lattice) (*plan, error) {
	n := len(lat.lo)
	p := &plan{names: b.loopNames(n), reduced: make([]bool, n), tiles: make([][]int64, n)}
	for k := n - 1; k >= 0; k-- {
		p.order = append(p.order, k)
	}
	id, err := b.identityLattice(lat)
	if err != nil {
		return nil, err
	}
	if err := b.scheduleOrder(p, id); err != nil {
		// The schedule only orders the loops: one that cannot be read
		// leaves the nest's order, with a note.
		p.order, p.tiles, p.tiled, p.scheduled = p.order[:0], make([][]int64, n), false, false
		for k := n - 1; k >= 0; k-- {
			p.order = append(p.order, k)
		}
		p.notes = append(p.notes, err.Error()+"; the schedule is ignored")
	}
	if err := b.reductions(p, id); err != nil {
		return nil, err
	}
	return p, nil
}

// scheduleOrder reads the statement's schedule, when it has one, and
// orders the loops by it: the loop of its innermost point dimension first.
// A dimension that takes the values of one loop's floor division (a tile
// or a strip-mined vector loop) records a tile size of that loop.
func (b *builder) scheduleOrder(p *plan, id *lattice) error {
	st := b.stmt
	if strings.TrimSpace(st.Schedule) == "" {
		return nil
	}
	where := st.Where + " schedule"
	m, nout, err := b.scheduleMap(id, where)
	if err != nil {
		return err
	}
	var order []int
	var skewed []int
	for r := nout - 1; r >= 0; r-- {
		mr, deps, err := b.scheduleDim(m, nout, r, id)
		if err != nil {
			return b.errf(st.SchedulePos, where, "%s", islMessage(err))
		}
		switch len(deps) {
		case 0:
			continue // a constant dimension: the statement's place among others
		case 1:
		default:
			skewed = append(skewed, r)
			continue
		}
		if order, err = b.followLoop(p, order, mr, id, deps[0]); err != nil {
			return b.errf(st.SchedulePos, where, "%s", islMessage(err))
		}
	}
	for _, k := range p.order {
		if !slices.Contains(order, k) {
			order = append(order, k)
		}
	}
	if len(skewed) > 0 {
		p.notes = append(p.notes, fmt.Sprintf("%s: schedule dimensions %s combine several loops (a skewed or wavefront schedule), which a lattice of threads cannot follow; they are ignored", where, intList(skewed)))
	}
	if !slices.Equal(order, p.order) {
		p.scheduled = true
		p.order = order
	}
	return nil
}

// scheduleMap reads the statement's schedule, checks that it maps the
// statement's domain, and maps it onto the identity lattice id; it also
// returns the number of the schedule's dimensions.
func (b *builder) scheduleMap(id *lattice, where string) (*isl.Map, int, error) {
	st := b.stmt
	params, body, err := paramList(st.Schedule)
	if err != nil {
		return nil, 0, b.errf(st.SchedulePos, where, "%v", err)
	}
	sched, err := b.sc.ReadMap(st.Schedule)
	if err != nil {
		return nil, 0, b.errf(st.SchedulePos, where, "ISL cannot read the schedule %q: %s", excerpt(st.Schedule), islMessage(err))
	}
	in, _ := mapTuples(sched)
	nin, err1 := sched.Dim(isl.DimIn)
	nout, err2 := sched.Dim(isl.DimOut)
	np, err3 := sched.Dim(isl.DimParam)
	if err := firstError(err1, err2, err3); err != nil {
		return nil, 0, b.errf(st.SchedulePos, where, "%s", islMessage(err))
	}
	if in != id.tuple || nin != len(id.lo) || np != len(params) {
		return nil, 0, b.errf(st.SchedulePos, where, "the schedule %q does not map the statement's domain %s[%d loops]", excerpt(st.Schedule), id.tuple, len(id.lo))
	}
	m, err := b.latticeMap(sched, params, body, id, st.SchedulePos, where)
	if err != nil {
		return nil, 0, err
	}
	return m, nout, nil
}

// scheduleDim returns dimension r of the nout-dimensional schedule m alone,
// and the coordinates of the identity lattice id whose values it depends on.
func (b *builder) scheduleDim(m *isl.Map, nout, r int, id *lattice) (*isl.Map, []int, error) {
	mr, err := m.ProjectOut(isl.DimOut, r+1, nout-r-1)
	if err == nil {
		mr, err = mr.ProjectOut(isl.DimOut, 0, r)
	}
	if err != nil {
		return nil, nil, err
	}
	var deps []int
	for c := range id.dims {
		if id.extent[c] == 1 {
			continue
		}
		ind, err := b.independent(mr, id, c)
		if err != nil {
			return nil, nil, err
		}
		if !ind {
			deps = append(deps, c)
		}
	}
	return mr, deps, nil
}

// followLoop records what the schedule dimension mr, which depends on loop
// k alone, says of k: when it takes all of k's values, k comes next in
// order, which it returns; when it takes fewer, it tiles k.
func (b *builder) followLoop(p *plan, order []int, mr *isl.Map, id *lattice, k int) ([]int, error) {
	values, err := b.countImage(mr, id, k, -1)
	if err != nil {
		return order, err
	}
	switch {
	case values == id.extent[k]:
		if !slices.Contains(order, k) {
			order = append(order, k)
		}
	case values > 1 && values < id.extent[k]:
		size, err := b.tileSize(mr, id, k, values)
		if err != nil {
			return order, err
		}
		p.tiles[k] = append(p.tiles[k], size)
		p.tiled = true
	}
	return order, nil
}

// tileSize returns the tile size of a schedule dimension that takes values
// values of loop k (on coordinate k of the identity lattice): the length of
// its second tile, which is whole when there are three or more, else of
// its first.
func (b *builder) tileSize(m *isl.Map, id *lattice, k int, values int64) (int64, error) {
	start2, err := b.firstReaching(m, id, k, 2)
	if err != nil || values < 3 {
		return start2, err
	}
	start3, err := b.firstReaching(m, id, k, 3)
	if err != nil {
		return 0, err
	}
	return start3 - start2, nil
}

// latticeMap composes a map from the statement's domain (with parameters
// params, its text body) with the lattice lat: the result maps [x, y, z]
// to the map's range, the parameters fixed to their values.
func (b *builder) latticeMap(r *isl.Map, params []string, body string, lat *lattice, pos Pos, where string) (*isl.Map, error) {
	var cons []string
	for _, p := range params {
		v, ok := b.opt.Params[p]
		if !ok {
			if mentions(body, p) {
				return nil, b.unbound(pos, where, p)
			}
			continue
		}
		cons = append(cons, fmt.Sprintf("%s = %d", p, v))
	}
	outs := make([]string, len(lat.lo))
	for k := range outs {
		outs[k] = Affine{Coef: map[string]int64{coordNames[lat.coord[k]]: 1}, Const: lat.lo[k]}.ISL([]string{coordNames[lat.coord[k]]})
	}
	text := fmt.Sprintf("{ [%s] -> %s[%s]", strings.Join(coordNames[:lat.dims], ", "), lat.tuple, strings.Join(outs, ", "))
	if len(params) > 0 {
		text = "[" + strings.Join(params, ", ") + "] -> " + text
	}
	if len(cons) > 0 {
		text += " : " + strings.Join(cons, " and ")
	}
	text += " }"
	t, err := b.sc.ReadMap(text)
	var m *isl.Map
	if err == nil {
		m, err = t.ApplyRange(r)
	}
	if err == nil && len(params) > 0 {
		m, err = m.ProjectOut(isl.DimParam, 0, len(params))
	}
	if err != nil {
		return nil, b.errf(pos, where, "%s", islMessage(err))
	}
	return m, nil
}

// reductions finds the loops that every store of an array leaves out and
// puts them after the output loops in p.order.
func (b *builder) reductions(p *plan, id *lattice) error {
	stores := 0
	reduced := make([]bool, len(id.lo))
	for k := range reduced {
		reduced[k] = id.extent[k] > 1
	}
	var nonInjective []string
	for _, acc := range b.stmt.Accesses {
		if !acc.Write {
			continue
		}
		m, _, outDims, err := b.accessMap(acc, id)
		if err != nil {
			return err
		}
		if outDims == 0 {
			continue // a scalar in a register
		}
		stores++
		free := false
		for k := range reduced {
			if id.extent[k] == 1 {
				continue
			}
			ind, err := b.independent(m, id, k)
			if err != nil {
				return b.errf(acc.Pos, acc.Where, "%s", islMessage(err))
			}
			reduced[k] = reduced[k] && ind
			free = free || ind
		}
		if !free && manyToOne(m, id) {
			nonInjective = append(nonInjective, acc.Where)
		}
	}
	if stores == 0 || !slices.Contains(reduced, true) {
		for _, w := range nonInjective {
			p.notes = append(p.notes, fmt.Sprintf("%s: the store writes some elements at several lattice points, but depends on every loop, so it is not modelled as a reduction: it counts once per lattice point", w))
		}
		return nil
	}
	p.reduced = reduced
	var outputs, red []int
	for _, k := range p.order {
		if reduced[k] {
			red = append(red, k)
		} else {
			outputs = append(outputs, k)
		}
	}
	p.order = append(outputs, red...)
	return nil
}

// launchHint is the launch a plan suggests, on the final lattice.
type launchHint struct {
	block, fold [3]int64
	strided     bool
	why         string
}

// flags returns the hint as predict's flags for a lattice of dims
// dimensions.
func (h *launchHint) flags(dims int) string {
	list := func(v [3]int64) string {
		s := make([]string, dims)
		for i := range dims {
			s[i] = fmt.Sprint(v[i])
		}
		return strings.Join(s, ",")
	}
	out := "--block " + list(h.block)
	if h.fold != [3]int64{1, 1, 1} {
		out += " --fold " + list(h.fold)
	}
	if h.strided {
		out += " --tile strided"
	}
	return out
}

// hint returns the launch that p suggests on lat, or nil: for a reduction,
// a fold over the reduction loops and a block over the outputs; for a tiled
// schedule, a block (and fold) that covers one tile.
func (p *plan) hint(lat *lattice) *launchHint {
	h := &launchHint{block: [3]int64{1, 1, 1}, fold: [3]int64{1, 1, 1}}
	var outCoords []int
	tiles := [3]int64{}
	for k, c := range lat.coord {
		switch {
		case p.reduced[k]:
			h.fold[c] = lat.extent[c]
		case lat.extent[c] > 1:
			outCoords = append(outCoords, c)
			if len(p.tiles[k]) > 0 {
				tiles[c] = slices.Max(p.tiles[k])
			}
		}
	}
	slices.Sort(outCoords)
	tiled := false
	for _, c := range outCoords {
		tiled = tiled || tiles[c] > 0
	}
	if tiled && slices.Contains(outCoords, 0) && min(tiles[0], lat.extent[0]) < 32 && lat.extent[0] >= 32 {
		// A tile narrower than a warp along x (a strip-mined vector loop)
		// makes no thread block.
		tiled = false
	}
	switch {
	case tiled:
		for _, c := range outCoords {
			h.block[c] = max(1, min(tiles[c], lat.extent[c]))
		}
		// A tile of more points than a block has threads: each thread
		// computes several, one block size apart, as a CPU tile's point
		// loop runs them.
		for c := 2; c >= 0 && h.block[0]*h.block[1]*h.block[2] > 1024; c-- {
			for h.block[c]%2 == 0 && h.block[0]*h.block[1]*h.block[2] > 1024 {
				h.block[c] /= 2
				h.fold[c] *= 2
				h.strided = true
			}
		}
		if h.block[0]*h.block[1]*h.block[2] > 1024 {
			return nil
		}
		h.why = "one block per tile of the schedule"
	case p.anyReduced():
		switch len(outCoords) {
		case 0:
		case 1:
			h.block[outCoords[0]] = min(256, lat.extent[outCoords[0]])
		default:
			h.block[outCoords[0]] = min(32, lat.extent[outCoords[0]])
			h.block[outCoords[1]] = min(8, lat.extent[outCoords[1]])
		}
	default:
		return nil
	}
	if p.anyReduced() {
		// A thread computes at most 1024 lattice points: a longer reduction
		// is split among several threads per output.
		for c := 2; c >= 0; c-- {
			other := h.fold[0] * h.fold[1] * h.fold[2] / h.fold[c]
			h.fold[c] = min(h.fold[c], max(1, 1024/other))
		}
		what := "one thread per output with a loop over the reduction"
		if h.why != "" {
			what = h.why + ", " + what
		}
		h.why = what
	}
	return h
}

// maxInjectivityOperations bounds the ISL operations of manyToOne: counting
// the image of a map with strides can be costly, and the answer only adds
// a note.
const maxInjectivityOperations = 20_000

// manyToOne reports whether the map m from lat's lattice maps the lattice
// box to fewer points than it has, so that it writes some elements at
// several points. It counts in a context of its own under a small bound on
// ISL operations and reports false when the bound is reached.
func manyToOne(m *isl.Map, lat *lattice) bool {
	ctx, err := isl.NewCtx(isl.WithMaxOperations(maxInjectivityOperations))
	if err != nil {
		return false
	}
	defer ctx.Close()
	sc := ctx.NewScope()
	defer sc.Free()
	lo, hi := make([]int64, lat.dims), make([]int64, lat.dims)
	for j := range lat.dims {
		hi[j] = lat.extent[j] - 1
	}
	box, err := sc.BoxSet("", lo, hi)
	if err != nil {
		return false
	}
	mm, err := sc.ReadMap(m.String())
	if err != nil {
		return false
	}
	if mm, err = mm.IntersectDomain(box); err != nil {
		return false
	}
	rng, err := mm.Range()
	if err != nil {
		return false
	}
	images, err1 := rng.CountVal()
	points, err2 := box.CountVal()
	return err1 == nil && err2 == nil && images < points
}

// intList joins integers with commas.
func intList(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ", ")
}

// firstError returns the first non-nil error.
func firstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// planNotes returns the notes that say what the plan did on lat: the
// reduction loops and how they are run, the schedule's order and tiles,
// and the launch hint h (nil for none) as predict's flags.
func (b *builder) planNotes(lat *lattice, h *launchHint) []string {
	p := b.plan
	notes := slices.Clip(p.notes)
	mapped := make([]string, 3)
	for k, c := range lat.coord {
		mapped[c] = fmt.Sprintf("%s on %s", p.names[k], coordNames[c])
	}
	mapped = slices.DeleteFunc(mapped, func(s string) bool { return s == "" })
	byMap := ""
	if len(b.opt.Map) > 0 {
		byMap = " (as --map says)"
	}
	var parts []string
	if p.scheduled || p.tiled {
		s := fmt.Sprintf("%s: the schedule", b.stmt.Where)
		if p.scheduled {
			s += fmt.Sprintf(" runs loop %s innermost", p.names[p.order[0]])
		}
		var tiles []string
		for k, t := range p.tiles {
			for _, size := range t {
				tiles = append(tiles, fmt.Sprintf("%s by %d", p.names[k], size))
			}
		}
		if len(tiles) > 0 {
			if p.scheduled {
				s += " and"
			}
			s += " tiles " + strings.Join(tiles, ", ")
		}
		parts = append(parts, s)
	}
	if p.anyReduced() {
		var red, on, outs []string
		for k := range p.names {
			if p.reduced[k] {
				red = append(red, p.names[k])
				on = append(on, coordNames[lat.coord[k]])
			} else if lat.extent[lat.coord[k]] > 1 {
				outs = append(outs, p.names[k])
			}
		}
		what := "the one output"
		if len(outs) > 0 {
			what = "each output (" + strings.Join(outs, ", ") + ")"
		}
		loop, its := "loop", "the loop's"
		if len(red) > 1 {
			loop, its = "loops", "the loops'"
		}
		s := fmt.Sprintf("the stores do not depend on %s %s: a reduction, modelled as CUDA code runs it, one thread for %s looping over %s (a fold along %s) with the sum in a register, so the store happens once per output, at %s last iteration (and a load of the stored element once, at the first)", loop, andList(red), what, andList(red), andList(on), its)
		if len(parts) == 0 {
			s = b.stmt.Where + ": " + s
		}
		parts = append(parts, s)
	}
	if len(parts) == 0 {
		return notes
	}
	s := strings.Join(parts, "; ") + "; loops " + strings.Join(mapped, ", ") + byMap
	if h != nil {
		s += "; predict with " + h.flags(lat.dims)
	}
	if len(b.opt.Map) == 0 {
		s += "; --map LOOP=x,... maps the loops otherwise"
	}
	return append(notes, s)
}
