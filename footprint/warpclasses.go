package footprint

import (
	"github.com/polyvol/polyvol/intmath"
	"github.com/polyvol/polyvol/kernel"
)

// eachClass calls visit with the measure of every class of insts
// (instructionClasses) on every warp of ws and the warp's weight, class by
// class in order and, within a class, in the order of warpMeasure.each on
// the class's first instruction, so that sums come out the same to the
// last bit. measure evaluates one instruction's active lane addresses,
// given its width; it must not change when every address is shifted by a
// multiple of modulus(width).
//
// Classes of affine instructions, and all classes without memoise, are
// measured by warpMeasure.each, one class after the other. The other
// classes are swept warp by warp together (classSweep): most of them are
// translates of a few addresses, such as the hundreds of loads of a
// convolution under a strided tiling, which a warp measure per class would
// classify warp after warp for each.
func eachClass[T any](insts []Instruction, classes []instructionClass, guard *pointGuard, modulus func(width int64) int64, memoise bool, budget *Budget, ws *warpSet, measure func(lanes []int64, width int64) T, visit func(class int, v T, weight int64)) error {
	var sweep *classSweep[T]
	if memoise {
		var err error
		if sweep, err = newClassSweep(insts, classes, guard, modulus, budget, measure); err != nil {
			return err
		}
		if err := sweep.run(ws); err != nil {
			return err
		}
	}
	for k, class := range classes {
		if sweep != nil && sweep.swept[k] {
			for i, t := range ws.tiles {
				visit(k, sweep.value(k, i), t.weight)
			}
			continue
		}
		in := insts[class.first]
		c, err := newWarpMeasure([]Instruction{in}, guard, modulus(in.Width), memoise, budget, func(lanes [][]int64) T {
			return measure(lanes[0], in.Width)
		})
		if err == nil {
			err = c.each(ws, func(v T, weight int64) { visit(k, v, weight) })
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// classSweep measures the classes of quasi-affine instructions warp by
// warp. Classes whose first instructions are translates of one address,
// the family's origin a (translates), have the same width and are executed
// by the same threads form a family: instruction k's address is a + d_k
// at every thread. Where no floor or modulo term of a wraps on a warp's
// lanes, a is affine there with coefficients c (kernel.Expr.OnBox), and
// instruction k's lane addresses are a(base) + d_k + c·o over the lane
// offsets o that execute: up to a shift by a multiple of the modulus they
// are fixed by the lane pattern, c, the lanes that execute and a(base) +
// d_k modulo the modulus. The measure is memoised on these per family,
// shared by all its classes and warps. Elsewhere the lanes are evaluated
// one by one, a + d_k at each.
type classSweep[T any] struct {
	families []*classFamily[T]
	// swept tells the classes measured here; of and slot give each one's
	// family and its index in the family's classes.
	swept   []bool
	of      []int
	slot    []int
	measure func(lanes []int64, width int64) T
	budget  *Budget
}

// classFamily is the classes of one origin, width and set of threads.
type classFamily[T any] struct {
	origin  laneAddress
	width   int64
	modulus int64
	threads threadSet
	offsets []int64 // d_k of each class's first instruction
	// values holds each measure taken; results gives, per class and warp,
	// the index of the warp's measure in values.
	values  []T
	results [][]int32
	memo    map[sweepKey]int32
	lanes   []int64 // scratch: the active lane addresses
	marks   []bool  // scratch: which lanes execute
}

// sweepKey is the memo key of one class of a family on a warp where the
// origin is affine (classSweep).
type sweepKey struct {
	lanes   *lanePattern
	coef    [3]int64
	residue int64
	active  string
}

// newClassSweep sorts the classes of quasi-affine instructions into
// families.
func newClassSweep[T any](insts []Instruction, classes []instructionClass, guard *pointGuard, modulus func(int64) int64, budget *Budget, measure func([]int64, int64) T) (*classSweep[T], error) {
	s := &classSweep[T]{swept: make([]bool, len(classes)), of: make([]int, len(classes)), slot: make([]int, len(classes)),
		measure: measure, budget: budget}
	type familyKey struct {
		translate int
		width     int64
		threads   string
	}
	var addrs translates
	index := map[familyKey]int{}
	for k, class := range classes {
		in := &insts[class.first]
		if _, _, affine := in.Address.Linear(); affine {
			continue
		}
		threads, err := guard.threads(in, budget)
		if err != nil {
			return nil, err
		}
		t, d := addrs.of(in.Address)
		key := familyKey{t, in.Width, string(appendThreadsKey(nil, threads))}
		f, ok := index[key]
		if !ok {
			f = len(s.families)
			index[key] = f
			s.families = append(s.families, &classFamily[T]{origin: newLaneAddress(addrs.firsts[t]), width: in.Width,
				modulus: modulus(in.Width), threads: threads, memo: map[sweepKey]int32{}, values: []T{measure(nil, in.Width)}})
		}
		fam := s.families[f]
		s.swept[k], s.of[k], s.slot[k] = true, f, len(fam.offsets)
		fam.offsets = append(fam.offsets, d)
	}
	return s, nil
}

// run measures every class of every family on every warp of ws.
func (s *classSweep[T]) run(ws *warpSet) error {
	for _, f := range s.families {
		f.results = make([][]int32, len(f.offsets))
		for k := range f.results {
			f.results[k] = make([]int32, len(ws.tiles))
		}
		for i, t := range ws.tiles {
			if err := s.measureOn(f, i, t); err != nil {
				return err
			}
		}
	}
	return nil
}

// value returns the measure of class k on warp i of the warps run swept.
func (s *classSweep[T]) value(k, i int) T {
	f := s.families[s.of[k]]
	return f.values[f.results[s.slot[k]][i]]
}

// measureOn measures every class of family f on warp t, the warpSet's
// i-th. The lanes are tested against the family's threads where the
// boxes' bounds cannot tell, and evaluated on a memo miss only, both
// charged as warpMeasure charges them.
func (s *classSweep[T]) measureOn(f *classFamily[T], i int, t warpTile) error {
	lo, hi := t.bounds()
	state := f.threads.cover(lo, hi)
	active := ""
	if state == someLanes {
		var err error
		if f.marks, state, err = markLanes(f.threads, t, f.marks, s.budget); err != nil {
			return err
		}
		if state == someLanes {
			active = string(appendMarks(nil, f.marks))
		}
	}
	if state == noLane {
		for k := range f.offsets {
			f.results[k][i] = 0 // the measure on no lane
		}
		return nil
	}
	var coef [3]int64
	var base int64
	on, err := f.origin.expr.OnBox(lo, hi)
	affine := err == nil
	if affine {
		var c0 int64
		coef, c0, affine = on.Linear()
		base = c0 + coef[0]*t.base[0] + coef[1]*t.base[1] + coef[2]*t.base[2]
	}
	for k, d := range f.offsets {
		var key sweepKey
		if affine {
			key = sweepKey{t.lanes, coef, intmath.FloorMod(base+d, f.modulus), active}
			if v, ok := f.memo[key]; ok {
				f.results[k][i] = v
				continue
			}
		}
		if err := s.budget.spend(int64(len(t.lanes.offsets))/laneWork + 1); err != nil {
			return err
		}
		lanes := f.lanes[:0]
		for l, o := range t.lanes.offsets {
			if state == someLanes && !f.marks[l] {
				continue
			}
			if affine {
				lanes = append(lanes, base+d+coef[0]*o[0]+coef[1]*o[1]+coef[2]*o[2])
			} else {
				lanes = append(lanes, f.origin.at(kernel.Point{t.base[0] + o[0], t.base[1] + o[1], t.base[2] + o[2]})+d)
			}
		}
		f.lanes = lanes
		v := int32(len(f.values))
		f.values = append(f.values, s.measure(lanes, f.width))
		if affine {
			f.memo[key] = v
		}
		f.results[k][i] = v
	}
	return nil
}
