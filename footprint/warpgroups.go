package footprint

import (
	"slices"
)

// maxBucketModulus bounds the moduli for which warps are grouped by address
// residue (see warpSet).
const maxBucketModulus = 1 << 12

// warpSet is a list of warps together with its partitions into groups of
// equivalent warps, made on demand and kept for each address coefficient
// vector, modulus and list of executing threads.
type warpSet struct {
	tiles  []warpTile
	groups map[groupKey]*warpGroups
}

// groupKey names a partition of a warpSet: the coefficients of the
// addresses, the modulus and the executing threads (appendThreadsKey).
type groupKey struct {
	coef    [3]int64
	modulus int64
	threads string
}

// warpGroups partitions the warps of a warpSet for affine addresses with one
// coefficient vector c, executed by a list of threadSets: warps whose
// lanes all execute every instruction, that share a lane pattern and the
// class of their base for the address c·t (translationClassifier: c·base
// modulo the modulus) form a group. Every instruction with address
// c·t + c0 sees the lane addresses of a group's warps up to a shift by a
// multiple of the modulus. Warps where no lane executes weigh idle in
// total; the other warps, some of whose lanes execute, are loose.
type warpGroups struct {
	reps    []int   // index of each group's first warp
	weights []int64 // total weight of each group's warps
	idle    int64
	loose   []int
}

// newWarpSet returns the set of tiles.
func newWarpSet(tiles []warpTile) *warpSet {
	return &warpSet{tiles: tiles, groups: map[groupKey]*warpGroups{}}
}

// grouped returns the partition for coefficients coef, the modulus and the
// threads that execute the instructions (threadsKey tells them apart),
// computing it on first use with a few integer operations per warp and
// threads' box.
func (s *warpSet) grouped(coef [3]int64, modulus int64, threads []threadSet, threadsKey string) *warpGroups {
	key := groupKey{coef, modulus, threadsKey}
	if g, ok := s.groups[key]; ok {
		return g
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
		switch executing(threads, t) {
		case noLane:
			g.idle += t.weight
			continue
		case someLanes:
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
	return g
}

// executing tells from the bounds of warp t's lanes whether every lane
// executes every instruction of threads, no lane any, or possibly some.
func executing(threads []threadSet, t warpTile) laneState {
	lo, hi := t.bounds()
	every, none := true, true
	for _, s := range threads {
		st := s.cover(lo, hi)
		every = every && st == everyLane
		none = none && st == noLane
	}
	switch {
	case every:
		return everyLane
	case none:
		return noLane
	}
	return someLanes
}
