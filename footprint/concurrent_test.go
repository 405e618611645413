package footprint

import (
	"fmt"
	"sync"
	"testing"

	"github.com/polyvol/polyvol/kernel"
)

// The tests of this file run the state that concurrent estimates share (the
// budgets that Track counts, an InstructionCache) from many goroutines at
// once; make test runs them under the race detector. The other tests of the
// package run no goroutines, so the race detector would find nothing in
// them.

// TestBudgetTrackConcurrent tracks memory-bounded budgets from many
// goroutines at once: while they all run, tracked counts every one of
// them; when they are done, none.
func TestBudgetTrackConcurrent(t *testing.T) {
	const n = 16
	var started, release sync.WaitGroup
	started.Add(n)
	release.Add(1)
	var finished sync.WaitGroup
	for range n {
		finished.Go(func() {
			done := (&Budget{MemoryLimit: 1 << 40}).Track()
			defer done()
			started.Done()
			release.Wait()
		})
	}
	started.Wait()
	if _, running := tracked(); running != n {
		t.Errorf("%d estimates tracked while %d run", running, n)
	}
	release.Done()
	finished.Wait()
	if base, running := tracked(); base != 0 || running != 1 {
		t.Errorf("after every estimate ended: base %d, %d running; want 0 and 1 (none tracked)", base, running)
	}
}

// TestInstructionCacheConcurrent asks one cache for the instructions of
// several launches from many goroutines at once: every answer is what
// Instructions computes for its launch.
func TestInstructionCacheConcurrent(t *testing.T) {
	k := exampleKernel(t, "star3d-r4")
	d := lookupDevice(t, "A100-40GB")
	var launches []kernel.Launch
	for _, block := range [][3]int64{{256, 1, 1}, {32, 8, 1}, {64, 4, 1}} {
		for _, tiling := range []kernel.Tiling{kernel.TileConsecutive, kernel.TileStrided} {
			l := k.NewLaunch(block, [3]int64{1, 1, 2})
			l.Tiling = tiling
			launches = append(launches, l)
		}
	}
	layout := func(lists []FieldInstructions) string {
		var out []string
		for _, fi := range lists {
			out = append(out, fmt.Sprint(fi.Field.Name, fi.Store, fusedLayout(fi.Instructions)))
		}
		return fmt.Sprint(out)
	}
	want := make([]string, len(launches))
	for i, l := range launches {
		lists, err := Instructions(k, l, d.Memory(), FuseInAddressOrder)
		if err != nil {
			t.Fatal(err)
		}
		want[i] = layout(lists)
	}
	cache := NewInstructionCache()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for j := range launches {
				i := (g + j) % len(launches)
				lists, err := cache.Instructions(k, launches[i], d.Memory(), FuseInAddressOrder)
				if err != nil {
					t.Error(err)
					return
				}
				if got := layout(lists); got != want[i] {
					t.Errorf("launch %d: cached %s, computed %s", i, got, want[i])
				}
			}
		})
	}
	wg.Wait()
}
