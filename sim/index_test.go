package sim

import (
	"math/rand/v2"
	"testing"
)

// TestLineIndexMatchesMap drives the line index and a Go map with the same
// random inserts, removals and lookups. Lines come from a small range and
// the index starts tiny, so probe runs collide, wrap and grow, and
// backward-shift deletion is exercised.
func TestLineIndexMatchesMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	x := newLineIndex(1)
	var slots []slot // slot i holds line slots[i].line; freed slots are reused
	var free []int32
	ref := map[uint64]int32{}
	for i := range 200000 {
		line := 1 + rng.Uint64N(300)
		want, present := ref[line]
		got := x.get(line, slots)
		if present != (got >= 0) || (present && got != want) {
			t.Fatalf("step %d: get(%d) = %d, map has %d (present %v)", i, line, got, want, present)
		}
		switch {
		case present && rng.IntN(2) == 0:
			x.remove(line, want)
			delete(ref, line)
			slots[want].line = 0
			free = append(free, want)
		case !present:
			var s int32
			if n := len(free); n > 0 {
				s, free = free[n-1], free[:n-1]
			} else {
				s = int32(len(slots))
				slots = append(slots, slot{})
			}
			slots[s].line = line
			x.put(line, s)
			ref[line] = s
		}
		if x.n != len(ref) {
			t.Fatalf("step %d: %d entries, map has %d", i, x.n, len(ref))
		}
	}
}

// TestGranuleSet checks the set against a Go map on random granules.
func TestGranuleSet(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	s := newGranuleSet()
	ref := map[uint64]bool{}
	for range 50000 {
		g := 1 + rng.Uint64N(20000)
		if s.add(g) == ref[g] {
			t.Fatalf("add(%d) disagrees with the map (present %v)", g, ref[g])
		}
		ref[g] = true
	}
	if s.n != len(ref) {
		t.Fatalf("%d granules, map has %d", s.n, len(ref))
	}
	s.clear()
	if !s.add(5) || s.add(5) {
		t.Fatal("after clear, add(5) must report a new granule once")
	}
}
