package footprint

import (
	"slices"
)

// maxBucketModulus bounds the moduli for which warps are grouped by address
// residue (see warpSet).
const maxBucketModulus = 1 << 12

// warpSet is a list of warps together with its partitions into groups of
// equivalent warps, made on demand and kept for each address coefficient
// vector and modulus.
type warpSet struct {
	tiles  []warpTile
	guard  *pointGuard
	budget *Budget // charged for the lanes measured on the set (warpMeasure.each)
	groups map[groupKey]*warpGroups
}

// groupKey names a partition of a warpSet: the coefficients of the
// addresses and the modulus.
type groupKey struct {
	coef    [3]int64
	modulus int64
}

// warpGroups partitions the warps of a warpSet for affine addresses with one
// coefficient vector c: warps whose lanes all execute, that share a lane
// pattern and the class of their base for the address c·t
// (translationClassifier: c·base modulo the modulus) form a group. Every
// instruction with address c·t + c0 sees the lane addresses of a group's
// warps up to a shift by a multiple of the modulus. The warps with inactive
// lanes are loose.
type warpGroups struct {
	reps    []int   // index of each group's first warp
	weights []int64 // total weight of each group's warps
	loose   []int
}

// newWarpSet returns the set of tiles, whose lanes guard guards; measuring
// them is charged to budget.
func newWarpSet(tiles []warpTile, guard *pointGuard, budget *Budget) *warpSet {
	return &warpSet{tiles: tiles, guard: guard, budget: budget, groups: map[groupKey]*warpGroups{}}
}

// grouped returns the partition for coefficients coef and the modulus,
// computing it with a few integer operations per warp on first use, which
// it charges to the set's budget as one lane address each.
func (s *warpSet) grouped(coef [3]int64, modulus int64) (*warpGroups, error) {
	key := groupKey{coef, modulus}
	if g, ok := s.groups[key]; ok {
		return g, nil
	}
	if err := s.budget.spend(laneUnits(int64(len(s.tiles)))); err != nil {
		return nil, err
	}
	type bucket struct {
		weight int64
		rep    int
	}
	g := &warpGroups{}
	var patterns []*lanePattern
	var buckets [][]bucket
	// One affine address has no distances and no phase: its classes are
	// the residues, which index the buckets.
	classes := newTranslationClassifier([]laneAddress{{coef: coef, affine: true}}, modulus, [3]int64{1, 1, 1})
	for i, t := range s.tiles {
		if s.guard != nil && !s.guard.allExecute(t) {
			g.loose = append(g.loose, i)
			continue
		}
		k := slices.Index(patterns, t.lanes)
		if k < 0 {
			k = len(patterns)
			patterns = append(patterns, t.lanes)
			buckets = append(buckets, make([]bucket, modulus))
		}
		class, _ := classes.classify(t.base)
		b := &buckets[k][class.residue]
		if b.weight == 0 {
			b.rep = i
		}
		b.weight += t.weight
	}
	for k := range patterns {
		for _, b := range buckets[k] {
			if b.weight > 0 {
				g.reps = append(g.reps, b.rep)
				g.weights = append(g.weights, b.weight)
			}
		}
	}
	s.groups[key] = g
	return g, nil
}
