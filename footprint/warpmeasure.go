package footprint

import (
	"encoding/binary"
	"slices"

	"github.com/polyvol/polyvol/intmath"
	"github.com/polyvol/polyvol/kernel"
)

// warpMeasure evaluates a measure of the lane addresses of a group of
// instructions on many warps. The measure must not change when every address
// is shifted by a multiple of modulus. For affine addresses the lane
// addresses of a warp are base + δ(lane), with δ fixed by the lane pattern,
// so the measure depends only on the pattern, the first instruction's base
// address mod modulus and the other instructions' distances from it: the
// class of the warp's base (translationClassifier), which also holds its
// phase for quasi-affine addresses. Which lanes execute each instruction
// (the instruction's threadSet) completes the key: all, none, or the
// lanes themselves where the threads' boxes cut the warp. Results are
// memoised on the pattern, the class and the lanes, and lanes are
// enumerated only on a miss; the enumeration is charged to the budget.
type warpMeasure[T any] struct {
	insts []Instruction
	addrs []laneAddress
	// origin is, for each address, the first address of which it is a
	// translate (translates), and offset its constant distance from it:
	// addrs[i] = addrs[origin[i]] + offset[i] at every thread. origins
	// lists the distinct origins in order, addrs[0] first.
	origin      []int
	offset      []int64
	origins     []int
	originAddrs []laneAddress // the origins' addresses
	modulus     int64
	measure     func(lanes [][]int64) T
	budget      *Budget
	memo        map[memoKey]T // nil: no memoisation
	// threads are the distinct sets of threads that execute the
	// instructions, and threadsOf the index of each instruction's set in
	// threads; threadsKey tells the lists of sets apart
	// (appendThreadsKey).
	threads    []threadSet
	threadsOf  []int
	threadsKey string
	// idle is the measure on a warp where no lane executes.
	idle T
	// rigid is true when all addresses are affine with the same
	// coefficients, so that their distances are the same on every warp.
	rigid bool
	// classes sorts the warps' bases into classes of translated lane
	// addresses, the memo's key; nil without memo.
	classes *translationClassifier
	// shapes memoises quasi-affine instructions by the affine shape of
	// their addresses on a warp where no floor or modulo term wraps
	// (affineShape); nil when every address is affine or without memo.
	shapes map[shapeKey]T
	lanes  [][]int64 // scratch: the active lane addresses per instruction
	// states and marks are scratch of the warp last asked about (activity):
	// which lanes execute each set of threads, and for someLanes each
	// lane's mark.
	states []laneState
	marks  [][]bool
	// forms is scratch of enumerate: the address of each origin on the
	// warp's lanes.
	forms []laneAddress
	key   []byte // scratch of affineShape
}

// shapeKey is the memo key of a warp of quasi-affine instructions on which
// every address is affine (warpMeasure.affineShape).
type shapeKey struct {
	lanes   *lanePattern
	residue int64
	addrs   string // each address's coefficients and distance from the first
	active  string // the lanes that execute (warpMeasure.activity)
}

// memoKey is the memo key of a warp: its lane pattern, the class of its
// base (translationClassifier) and the lanes that execute each
// instruction (warpMeasure.activity).
type memoKey struct {
	lanes  *lanePattern
	class  translationClass
	active string
}

// maxMemoPeriod bounds the product of the periods for which the lane
// addresses of quasi-affine instructions are memoised; the memo holds at
// most one entry per warp measured, whatever the periods.
const maxMemoPeriod = 1 << 20

// laneWork is the lane addresses evaluated, or lanes tested against a
// box of threads, per unit of counting work (Budget).
const laneWork = 32

// newWarpMeasure returns measure on the lane addresses of insts, whose lanes
// guard guards, memoised when memoise is true and the addresses allow it.
func newWarpMeasure[T any](insts []Instruction, guard *pointGuard, modulus int64, memoise bool, budget *Budget, measure func([][]int64) T) (*warpMeasure[T], error) {
	w := &warpMeasure[T]{insts: insts, modulus: modulus, measure: measure, budget: budget,
		lanes: make([][]int64, len(insts)), origin: make([]int, len(insts)), offset: make([]int64, len(insts)),
		threadsOf: make([]int, len(insts))}
	period := [3]int64{1, 1, 1}
	affine, periodic := true, true
	var families translates
	var key []byte
	sets := map[string]int{}
	for i := range insts {
		in := &insts[i]
		a := newLaneAddress(in.Address)
		affine = affine && a.affine
		w.addrs = append(w.addrs, a)
		family, d := families.of(in.Address)
		if family == len(w.origins) {
			w.origins = append(w.origins, i)
			w.originAddrs = append(w.originAddrs, a)
			// A translate has its origin's floor and modulo terms, so its
			// period.
			p, ok := in.Address.Period()
			periodic = periodic && ok
			for i := range 3 {
				period[i] = min(intmath.LCM(period[i], p[i]), maxMemoPeriod+1) // capped: only ≤ maxMemoPeriod matters
			}
		}
		w.origin[i], w.offset[i] = w.origins[family], d
		s, err := guard.threads(in, budget)
		if err != nil {
			return nil, err
		}
		one := string(appendThreadsKey(nil, s))
		k, seen := sets[one]
		if !seen {
			k = len(w.threads)
			sets[one] = k
			w.threads = append(w.threads, s)
			key = append(key, one...)
		}
		w.threadsOf[i] = k
	}
	w.threadsKey = string(key)
	w.states, w.marks = make([]laneState, len(w.threads)), make([][]bool, len(w.threads))
	w.forms = make([]laneAddress, len(insts))
	w.idle = measure(w.lanes)
	w.rigid = affine
	for _, a := range w.addrs {
		w.rigid = w.rigid && a.coef == w.addrs[0].coef
	}
	// Warps whose bases agree modulo the period see every instruction's
	// addresses shifted by one amount each (the period's defining
	// property), so quasi-affine addresses are memoised like affine ones,
	// with the base's phase in the key. The origins' classes fix every
	// address's: the others lie constant offsets from them.
	if memoise && (affine || periodic && period[0]*period[1]*period[2] <= maxMemoPeriod) {
		w.memo = make(map[memoKey]T)
		w.classes = newTranslationClassifier(w.originAddrs, modulus, period)
		if !affine {
			w.shapes = make(map[shapeKey]T)
		}
	}
	return w, nil
}

// appendThreadsKey appends to key what tells threadSet s apart.
func appendThreadsKey(key []byte, s threadSet) []byte {
	if s.every {
		return append(key, 1)
	}
	key = binary.AppendUvarint(append(key, 0), uint64(len(s.boxes)))
	for _, b := range s.boxes {
		for i := range 3 {
			key = binary.AppendVarint(binary.AppendVarint(key, b.Lo[i]), b.Hi[i])
		}
	}
	return key
}

// on returns the measure on warp t.
func (w *warpMeasure[T]) on(t warpTile) (T, error) {
	active, state, err := w.activity(t)
	switch {
	case err != nil:
		var zero T
		return zero, err
	case state == noLane:
		return w.idle, nil
	case w.memo == nil:
		return w.enumerate(t, state == everyLane)
	}
	class, _ := w.classes.classify(t.base)
	key := memoKey{t.lanes, class, active}
	if v, ok := w.memo[key]; ok {
		return v, nil
	}
	shape, affine := w.affineShape(t, active)
	if v, ok := w.shapes[shape]; ok && affine {
		w.memo[key] = v
		return v, nil
	}
	v, err := w.enumerate(t, state == everyLane)
	if err != nil {
		return v, err
	}
	w.memo[key] = v
	if affine {
		w.shapes[shape] = v
	}
	return v, nil
}

// bounds returns the bounding box of warp t's lanes, inclusive.
func (t warpTile) bounds() (lo, hi kernel.Point) {
	for i := range 3 {
		lo[i], hi[i] = t.base[i]+t.lanes.lo[i], t.base[i]+t.lanes.hi[i]
	}
	return lo, hi
}

// activity finds which lanes of warp t execute each instruction, into
// states and marks, and returns them as a key ("" when every lane
// executes every instruction) and their summary: everyLane or noLane when
// all instructions agree, else someLanes. Lanes are tested one by one,
// against the boxes that cut the warp, only where the boxes' bounds cannot
// tell; that work is charged.
func (w *warpMeasure[T]) activity(t warpTile) (active string, state laneState, err error) {
	lo, hi := t.bounds()
	every, none := true, true
	for i, s := range w.threads {
		st := s.cover(lo, hi)
		if st == someLanes {
			var err error
			if w.marks[i], st, err = markLanes(s, t, w.marks[i], w.budget); err != nil {
				return "", 0, err
			}
		}
		w.states[i] = st
		every = every && st == everyLane
		none = none && st == noLane
	}
	switch {
	case every:
		return "", everyLane, nil
	case none:
		return "", noLane, nil
	}
	var key []byte
	for i, st := range w.states {
		key = append(key, byte(st))
		if st == someLanes {
			key = appendMarks(key, w.marks[i])
		}
	}
	return string(key), someLanes, nil
}

// markLanes marks, in marks (reused), the lanes of warp t that lie in the
// threads s, charging budget for the tests, and returns the marks and
// their state.
func markLanes(s threadSet, t warpTile, marks []bool, budget *Budget) ([]bool, laneState, error) {
	if err := budget.spend(int64(len(t.lanes.offsets)*len(s.boxes))/laneWork + 1); err != nil {
		return marks, 0, err
	}
	marks = marks[:0]
	n := 0
	for _, o := range t.lanes.offsets {
		m := s.contains(kernel.Point{t.base[0] + o[0], t.base[1] + o[1], t.base[2] + o[2]})
		marks = append(marks, m)
		if m {
			n++
		}
	}
	switch n {
	case 0:
		return marks, noLane, nil
	case len(marks):
		return marks, everyLane, nil
	}
	return marks, someLanes, nil
}

// appendMarks appends to key the lane marks, eight to a byte.
func appendMarks(key []byte, marks []bool) []byte {
	var bits byte
	for k, m := range marks {
		if m {
			bits |= 1 << (k % 8)
		}
		if k%8 == 7 || k == len(marks)-1 {
			key, bits = append(key, bits), 0
		}
	}
	return key
}

// affineShape describes warp t's lane addresses up to a shift by a
// multiple of the modulus when no floor or modulo term of the origins'
// addresses wraps on the box of its lanes, so that every address is
// affine there (kernel.Expr.OnBox): the lane pattern, each origin's
// coefficients, and the distances of the origins from the first and the
// first modulo the modulus, all of the affine forms at the warp's base,
// and the lanes that execute (active). Every other address is its
// origin's plus a constant offset, the same on every warp, so warps of
// different phases with one shape see the same lane addresses up to such
// a shift. ok is false when a term wraps, or without shape memo.
func (w *warpMeasure[T]) affineShape(t warpTile, active string) (shape shapeKey, ok bool) {
	if w.shapes == nil {
		return shapeKey{}, false
	}
	lo, hi := t.bounds()
	k, first, ok := appendAffineShape(w.key[:0], w.originAddrs, lo, hi, t.base)
	w.key = k
	if !ok {
		return shapeKey{}, false
	}
	return shapeKey{t.lanes, intmath.FloorMod(first, w.modulus), string(k), active}, true
}

// each calls visit with the measure and weight of every warp of ws. For
// rigid memoised instructions it measures each group of equivalent warps
// (warpSet.grouped) once and visits it with the group's total weight, and
// the warps where no lane executes once with theirs; all other warps are
// visited one by one.
func (w *warpMeasure[T]) each(ws *warpSet, visit func(v T, weight int64)) error {
	if w.memo == nil || !w.rigid || w.modulus > maxBucketModulus {
		for _, t := range ws.tiles {
			v, err := w.on(t)
			if err != nil {
				return err
			}
			visit(v, t.weight)
		}
		return nil
	}
	g := ws.grouped(w.addrs[0].coef, w.modulus, w.threads, w.threadsKey)
	for _, i := range g.loose {
		v, err := w.on(ws.tiles[i])
		if err != nil {
			return err
		}
		visit(v, ws.tiles[i].weight)
	}
	for k, i := range g.reps {
		v, err := w.enumerate(ws.tiles[i], true)
		if err != nil {
			return err
		}
		visit(v, g.weights[k])
	}
	if g.idle > 0 {
		visit(w.idle, g.idle)
	}
	return nil
}

// enumerate evaluates the measure lane by lane, on every lane with full
// true, else on the lanes that activity found executing each instruction.
// An address is its origin's plus its offset at every thread, so each
// origin's form on the warp's box (laneAddress.onBox) serves all its
// translates.
func (w *warpMeasure[T]) enumerate(t warpTile, full bool) (T, error) {
	if err := w.budget.spend(int64(len(t.lanes.offsets)*len(w.insts))/laneWork + 1); err != nil {
		var zero T
		return zero, err
	}
	lo, hi := t.bounds()
	for _, r := range w.origins {
		w.forms[r] = w.addrs[r].onBox(lo, hi)
	}
	for i := range w.insts {
		lanes := w.lanes[i][:0]
		set := w.threadsOf[i]
		if full || w.states[set] != noLane {
			addr, offset := &w.forms[w.origin[i]], w.offset[i]
			for k, o := range t.lanes.offsets {
				if full || w.states[set] == everyLane || w.marks[set][k] {
					lanes = append(lanes, addr.at(kernel.Point{t.base[0] + o[0], t.base[1] + o[1], t.base[2] + o[2]})+offset)
				}
			}
		}
		w.lanes[i] = lanes
	}
	return w.measure(w.lanes), nil
}

// instructionClass is a class of instructions whose measures agree on
// every warp (instructionClasses), known by its first instruction.
type instructionClass struct {
	first int   // the index of its first instruction
	count int64 // its instructions
}

// instructionClasses sorts insts into classes of instructions whose
// measures, periodic in modulus(width) (warpMeasure), agree on every warp:
// the same width, the same threads executing them (pointGuard.threads),
// and addresses that are translates of one another (translates) by a
// multiple of the modulus, which moves no measure. A stencil's loads are
// translates of one another, so its hundreds of instructions fall into a
// few classes, each measured once and weighted by its size. Without
// memoise each instruction is its own class, so that tests can compare
// the classes with plain enumeration.
func instructionClasses(insts []Instruction, guard *pointGuard, modulus func(width int64) int64, memoise bool, budget *Budget) ([]instructionClass, error) {
	if !memoise {
		classes := make([]instructionClass, len(insts))
		for i := range classes {
			classes[i] = instructionClass{first: i, count: 1}
		}
		return classes, nil
	}
	type classKey struct {
		translate      int
		residue, width int64
		threads        string
	}
	var addrs translates
	index := map[classKey]int{}
	var classes []instructionClass
	var key []byte
	for i := range insts {
		in := &insts[i]
		s, err := guard.threads(in, budget)
		if err != nil {
			return nil, err
		}
		key = appendThreadsKey(key[:0], s)
		t, d := addrs.of(in.Address)
		k := classKey{t, intmath.FloorMod(d, modulus(in.Width)), in.Width, string(key)}
		if c, ok := index[k]; ok {
			classes[c].count++
			continue
		}
		index[k] = len(classes)
		classes = append(classes, instructionClass{first: i, count: 1})
	}
	return classes, nil
}

// sectorCounter counts the distinct granules of granule bytes that a group
// of instructions touches per warp: at each lane's start address only
// (method Reference, docs/metrics.md §3.1), or over each lane's full byte
// range (method Exact, §8 item 10).
func sectorCounter(insts []Instruction, guard *pointGuard, granule int64, fullRange, memoise bool, budget *Budget) (*warpMeasure[int64], error) {
	var ids []int64
	var seen distinctCounter
	return newWarpMeasure(insts, guard, granule, memoise, budget, func(lanes [][]int64) int64 {
		n := 0
		for _, addrs := range lanes {
			n += len(addrs)
		}
		ids = slices.Grow(ids[:0], n)
		for i, addrs := range lanes {
			ids = appendGranules(ids, addrs, insts[i].Width, granule, fullRange)
		}
		return seen.count(ids)
	})
}

// appendGranules appends to ids the granules of granule bytes that the
// lanes at the given addresses touch: at each lane's start address only,
// or with fullRange over its width bytes.
func appendGranules(ids, addrs []int64, width, granule int64, fullRange bool) []int64 {
	last := int64(0)
	if fullRange {
		last = width - 1
	}
	for _, a := range addrs {
		for g := intmath.FloorDiv(a, granule); g <= intmath.FloorDiv(a+last, granule); g++ {
			ids = append(ids, g)
		}
	}
	return ids
}
