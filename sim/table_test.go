package sim

import (
	"math/rand/v2"
	"testing"
)

// TestTableMatchesMap drives the hash table and a Go map with the same
// random puts, removes and lookups (keys from a small range, so runs collide
// and backward-shift deletion is exercised).
func TestTableMatchesMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	tab := newTable(4)
	ref := map[uint64]int32{}
	for i := range 200000 {
		key := 1 + rng.Uint64N(300)
		want, present := ref[key]
		got := tab.get(key)
		if present != (got >= 0) || (present && got != want) {
			t.Fatalf("step %d: get(%d) = %d, map has %d (present %v)", i, key, got, want, present)
		}
		switch {
		case present && rng.IntN(2) == 0:
			tab.remove(key)
			delete(ref, key)
		case !present:
			v := int32(rng.IntN(1000))
			tab.put(key, v)
			ref[key] = v
		}
		if tab.n != len(ref) {
			t.Fatalf("step %d: %d entries, map has %d", i, tab.n, len(ref))
		}
	}
	tab.clear()
	for key := range ref {
		if tab.get(key) >= 0 {
			t.Fatalf("key %d present after clear", key)
		}
	}
	if !tab.add(7) || tab.add(7) {
		t.Fatal("add must report a new key once")
	}
}
