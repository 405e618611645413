package footprint

import "testing"

// TestWarpThreadBoxes checks the hardware warps of block shapes against
// their thread ids enumerated one by one: every warp box holds exactly the
// threads of its 32 consecutive linear ids (x fastest), and a shape whose
// warps are not boxes is reported as such.
func TestWarpThreadBoxes(t *testing.T) {
	for _, c := range []struct {
		block [3]int64
		ok    bool
	}{
		{[3]int64{256, 1, 1}, true}, {[3]int64{32, 8, 1}, true}, {[3]int64{16, 4, 4}, true},
		{[3]int64{4, 4, 64}, true}, {[3]int64{1, 1, 64}, true}, {[3]int64{8, 2, 1}, true},
		{[3]int64{48, 2, 1}, false}, {[3]int64{24, 4, 1}, false},
	} {
		boxes, ok := WarpThreadBoxes(c.block, 32)
		if ok != c.ok {
			t.Errorf("block %v: ok %v, want %v", c.block, ok, c.ok)
			continue
		}
		if !ok {
			continue
		}
		threads := c.block[0] * c.block[1] * c.block[2]
		if want := (threads + 31) / 32; int64(len(boxes)) != want {
			t.Errorf("block %v: %d warps, want %d", c.block, len(boxes), want)
		}
		for tid := range threads {
			p := [3]int64{tid % c.block[0], tid / c.block[0] % c.block[1], tid / (c.block[0] * c.block[1])}
			for w, b := range boxes {
				if b.Contains(p) != (int64(w) == tid/32) {
					t.Fatalf("block %v: thread %d at %v and warp %d box %v disagree", c.block, tid, p, w, b)
				}
			}
		}
	}
}
