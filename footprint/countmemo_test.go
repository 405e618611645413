package footprint

import (
	"errors"
	"math/rand/v2"
	"testing"
)

// TestSharedCountsEqualEnumeration counts random unions of progressions
// with counters that share one CountMemo, each union twice by counters of
// their own (so that the second finds the first's count in the memory),
// against byte-by-byte enumeration; the second count charges its budget
// what the first did.
func TestSharedCountsEqualEnumeration(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 41))
	grans := []int64{1, 3, 8, 32, 64, 128, 4096}
	memo := NewCountMemo()
	var found int
	for c := range 1500 {
		ps := randomProgressions(r)
		gran := grans[r.IntN(len(grans))]
		want := int64(len(granulesOf(ps, gran)))
		var work [2]int64
		for i := range work {
			b := &Budget{}
			cnt := newCounter(gran, b)
			cnt.shared = memo
			got, err := cnt.count(advClone(ps))
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Fatalf("case %d gran %d, count %d: shared counter %d, enumeration %d for %+v", c, gran, i+1, got, want, ps)
			}
			work[i] = b.Used()
		}
		if !flat(ps) {
			found++
			if work[1] != work[0] {
				t.Fatalf("case %d: the second count charged %d units, the first %d", c, work[1], work[0])
			}
		}
	}
	if found == 0 {
		t.Fatal("no union with an axis: the memory was never consulted")
	}
}

// TestSharedCountStopsAtTheBound checks that a count found in the memory
// still charges the work it took: a budget too small for that work fails
// with ErrWorkBound, as it would counting alone.
func TestSharedCountStopsAtTheBound(t *testing.T) {
	ps := []progression{
		{base: 8, width: 8 * 640, axes: []axis{{step: 8 * 648, count: 512}, {step: 8 * 648 * 520, count: 1000}}},
		{base: 8 - 8*648, width: 8 * 640, axes: []axis{{step: 8 * 648, count: 512}, {step: 8 * 648 * 520, count: 1000}}},
	}
	memo := NewCountMemo()
	first := newCounter(32, &Budget{})
	first.shared = memo
	if _, err := first.count(advClone(ps)); err != nil {
		t.Fatal(err)
	}
	alone := &Budget{}
	if _, err := newCounter(32, alone).count(advClone(ps)); err != nil {
		t.Fatal(err)
	}
	second := newCounter(32, &Budget{Limit: alone.Used() - 1})
	second.shared = memo
	if _, err := second.count(advClone(ps)); !errors.Is(err, ErrWorkBound) {
		t.Fatalf("a budget of %d units, one less than the count takes alone: got %v, want ErrWorkBound", alone.Used()-1, err)
	}
}

// TestCountMemoForgetsWhenFull fills the memory with counts of long keys
// to its bound and checks that the next count makes it forget them all,
// at every granularity, and keep the new one.
func TestCountMemoForgetsWhenFull(t *testing.T) {
	m := NewCountMemo()
	m.record(64, []byte("other"), sharedCount{granules: 7})
	key := func(i int) []byte {
		k := make([]byte, 1000)
		k[0], k[1], k[2] = byte(i), byte(i>>8), byte(i>>16)
		return k
	}
	fit := int((maxSharedCountBytes - (5 + sharedCountOverhead)) / (1000 + sharedCountOverhead))
	for i := range fit {
		m.record(32, key(i), sharedCount{granules: int64(i)})
	}
	if c, ok := m.lookup(32, key(fit-1)); !ok || c.granules != int64(fit-1) {
		t.Fatalf("within the bound: got %+v, %v for the last count, want %d granules", c, ok, fit-1)
	}
	if c, ok := m.lookup(64, []byte("other")); !ok || c.granules != 7 {
		t.Fatalf("within the bound: got %+v, %v for another granularity's count, want 7 granules", c, ok)
	}
	m.record(32, key(fit), sharedCount{granules: 1})
	if _, ok := m.lookup(32, key(5)); ok {
		t.Error("past the bound an earlier count is still held")
	}
	if _, ok := m.lookup(64, []byte("other")); ok {
		t.Error("past the bound another granularity's count is still held")
	}
	if c, ok := m.lookup(32, key(fit)); !ok || c.granules != 1 || m.bytes != 1000+sharedCountOverhead {
		t.Errorf("past the bound: got %+v, %v for the new count and %d bytes held, want 1 granule and %d bytes", c, ok, m.bytes, 1000+sharedCountOverhead)
	}
}
