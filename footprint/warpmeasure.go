package footprint

import (
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
// phase for quasi-affine addresses. Results are memoised on the pattern and
// the class, and lanes are enumerated only on a miss. Warps with inactive
// lanes are always enumerated.
type warpMeasure[T any] struct {
	insts   []Instruction
	addrs   []laneAddress
	guard   *pointGuard
	modulus int64
	measure func(lanes [][]int64) T
	memo    map[memoKey]T // nil: no memoisation
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
	// evaluated counts the lane addresses enumerate evaluated that each
	// has not charged yet.
	evaluated int64
}

// shapeKey is the memo key of a warp of quasi-affine instructions on which
// every address is affine (warpMeasure.affineShape).
type shapeKey struct {
	lanes   *lanePattern
	residue int64
	addrs   string // each address's coefficients and distance from the first
}

// memoKey is the memo key of a warp whose lanes all execute: its lane
// pattern and the class of its base (translationClassifier).
type memoKey struct {
	lanes *lanePattern
	class translationClass
}

// maxMemoPeriod bounds the product of the periods for which the lane
// addresses of quasi-affine instructions are memoised; the memo holds at
// most one entry per warp measured, whatever the periods.
const maxMemoPeriod = 1 << 20

// newWarpMeasure returns measure on the lane addresses of insts, memoised
// when memoise is true and the addresses allow it.
func newWarpMeasure[T any](insts []Instruction, guard *pointGuard, modulus int64, memoise bool, measure func([][]int64) T) *warpMeasure[T] {
	w := &warpMeasure[T]{insts: insts, guard: guard, modulus: modulus, measure: measure, lanes: make([][]int64, len(insts))}
	period := [3]int64{1, 1, 1}
	affine, periodic := true, true
	for _, in := range insts {
		a := newLaneAddress(in.Address)
		affine = affine && a.affine
		w.addrs = append(w.addrs, a)
		p, ok := in.Address.Period()
		periodic = periodic && ok
		for i := range 3 {
			period[i] = min(intmath.LCM(period[i], p[i]), maxMemoPeriod+1) // capped: only ≤ maxMemoPeriod matters
		}
	}
	w.rigid = affine
	for _, a := range w.addrs {
		w.rigid = w.rigid && a.coef == w.addrs[0].coef
	}
	// Warps whose bases agree modulo the period see every instruction's
	// addresses shifted by one amount each (the period's defining
	// property), so quasi-affine addresses are memoised like affine ones,
	// with the base's phase in the key.
	if memoise && (affine || periodic && period[0]*period[1]*period[2] <= maxMemoPeriod) {
		w.memo = make(map[memoKey]T)
		w.classes = newTranslationClassifier(w.addrs, modulus, period)
		if !affine {
			w.shapes = make(map[shapeKey]T)
		}
	}
	return w
}

// on returns the measure on warp t.
func (w *warpMeasure[T]) on(t warpTile) T {
	if w.guard != nil && w.guard.noneExecutes(t) {
		for i := range w.lanes {
			w.lanes[i] = w.lanes[i][:0]
		}
		return w.measure(w.lanes)
	}
	full := w.guard == nil || w.guard.allExecute(t)
	if w.memo == nil || !full {
		return w.enumerate(t, full)
	}
	class, _ := w.classes.classify(t.base)
	key := memoKey{t.lanes, class}
	if v, ok := w.memo[key]; ok {
		return v
	}
	shape, affine := w.affineShape(t)
	if v, ok := w.shapes[shape]; ok && affine {
		w.memo[key] = v
		return v
	}
	v := w.enumerate(t, true)
	w.memo[key] = v
	if affine {
		w.shapes[shape] = v
	}
	return v
}

// affineShape describes warp t's lane addresses up to a shift by a
// multiple of the modulus when no floor or modulo term of the
// instructions wraps on the box of its lanes, so that every address is
// affine there (kernel.Expr.OnBox): the lane pattern, each address's
// coefficients, and the distances of the addresses from the first and the
// first modulo the modulus, all of the affine forms at the warp's base.
// Warps of different phases with one shape see the same lane addresses up
// to such a shift. ok is false when a term wraps, or without shape memo.
func (w *warpMeasure[T]) affineShape(t warpTile) (shape shapeKey, ok bool) {
	if w.shapes == nil {
		return shapeKey{}, false
	}
	var lo, hi kernel.Point
	for i := range 3 {
		lo[i], hi[i] = t.base[i]+t.lanes.lo[i], t.base[i]+t.lanes.hi[i]
	}
	k, first, ok := appendAffineShape(nil, w.addrs, lo, hi, t.base)
	if !ok {
		return shapeKey{}, false
	}
	return shapeKey{t.lanes, intmath.FloorMod(first, w.modulus), string(k)}, true
}

// each calls visit with the measure and weight of every warp of ws. For
// rigid memoised instructions it measures each group of equivalent warps
// (warpSet.grouped) once and visits it with the group's total weight; all
// other warps are visited one by one. It charges ws's budget a unit for
// each warp it visits and laneUnits for the lane addresses it evaluates,
// and stops with the budget's error.
func (w *warpMeasure[T]) each(ws *warpSet, visit func(v T, weight int64)) error {
	if w.memo == nil || !w.rigid || w.modulus > maxBucketModulus {
		for _, t := range ws.tiles {
			visit(w.on(t), t.weight)
			if err := w.charge(ws.budget); err != nil {
				return err
			}
		}
		return nil
	}
	g, err := ws.grouped(w.addrs[0].coef, w.modulus)
	if err != nil {
		return err
	}
	for _, i := range g.loose {
		visit(w.on(ws.tiles[i]), ws.tiles[i].weight)
		if err := w.charge(ws.budget); err != nil {
			return err
		}
	}
	for k, i := range g.reps {
		visit(w.enumerate(ws.tiles[i], true), g.weights[k])
		if err := w.charge(ws.budget); err != nil {
			return err
		}
	}
	return nil
}

// lanesPerUnit is the number of lane addresses evaluated and measured
// (warpMeasure.enumerate) for one unit of a Budget's work.
const lanesPerUnit = 8

// laneUnits returns the work, in Budget units, of evaluating n lane
// addresses.
func laneUnits(n int64) int64 { return n / lanesPerUnit }

// charge spends on b a unit for the warp just visited and the work of the
// lane addresses evaluated since the last charge.
func (w *warpMeasure[T]) charge(b *Budget) error {
	n := 1 + laneUnits(w.evaluated)
	w.evaluated %= lanesPerUnit
	return b.spend(n)
}

// enumerate evaluates the measure lane by lane; with full false it skips
// the lanes that do not execute an instruction.
func (w *warpMeasure[T]) enumerate(t warpTile, full bool) T {
	var lo, hi kernel.Point
	for i := range 3 {
		lo[i], hi[i] = t.base[i]+t.lanes.lo[i], t.base[i]+t.lanes.hi[i]
	}
	w.evaluated += int64(len(w.insts) * len(t.lanes.offsets))
	for i := range w.insts {
		lanes := w.lanes[i][:0]
		addr := w.addrs[i].onBox(lo, hi)
		for _, o := range t.lanes.offsets {
			p := kernel.Point{t.base[0] + o[0], t.base[1] + o[1], t.base[2] + o[2]}
			if full || w.guard.executes(p, &w.insts[i]) {
				lanes = append(lanes, addr.at(p))
			}
		}
		w.lanes[i] = lanes
	}
	return w.measure(w.lanes)
}

// sectorCounter counts the distinct granules of granule bytes that a group
// of instructions touches per warp: at each lane's start address only
// (method Reference, docs/metrics.md §3.1), or over each lane's full byte
// range (method Exact, §8 item 10).
func sectorCounter(insts []Instruction, guard *pointGuard, granule int64, fullRange, memoise bool) *warpMeasure[int64] {
	var ids []int64
	return newWarpMeasure(insts, guard, granule, memoise, func(lanes [][]int64) int64 {
		ids = ids[:0]
		for i, addrs := range lanes {
			last := int64(0)
			if fullRange {
				last = insts[i].Width - 1
			}
			for _, a := range addrs {
				for g := intmath.FloorDiv(a, granule); g <= intmath.FloorDiv(a+last, granule); g++ {
					ids = append(ids, g)
				}
			}
		}
		return int64(len(distinct(ids)))
	})
}
