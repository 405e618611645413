package geometry

import (
	"fmt"
	"testing"

	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/lattice"
)

// testGeometry is block 32,4,2, fold 1,2,1 on the domain 100,20,7: a grid
// of ⌈100/32⌉ = 4, ⌈20/8⌉ = 3 and ⌈7/2⌉ = 4 blocks.
func testGeometry() Geometry {
	return NewGeometry(kernel.Launch{Block: [3]int64{32, 4, 2}, Fold: [3]int64{1, 2, 1}, Domain: [3]int64{100, 20, 7}})
}

func box(lo, hi [3]int64) lattice.Box { return lattice.Box{Lo: lo, Hi: hi} }

func TestSizes(t *testing.T) {
	g := testGeometry()
	if g.Grid != [3]int64{4, 3, 4} {
		t.Errorf("grid %v, want [4 3 4]", g.Grid)
	}
	if g.Blocks() != 48 || g.ThreadsPerBlock() != 256 {
		t.Errorf("%d blocks of %d threads, want 48 of 256", g.Blocks(), g.ThreadsPerBlock())
	}
	for _, c := range []struct {
		name      string
		got, want lattice.Box
	}{
		{"ThreadBox", g.ThreadBox(box([3]int64{1, 0, 2}, [3]int64{3, 2, 4})), box([3]int64{32, 0, 4}, [3]int64{96, 8, 8})},
		{"BlockThreads", g.BlockThreads([3]int64{1, 2, 3}), box([3]int64{32, 8, 6}, [3]int64{64, 12, 8})},
		{"GridThreads", g.GridThreads(), box([3]int64{}, [3]int64{128, 12, 8})},
		{"ThreadDomain", g.ThreadDomain(), box([3]int64{}, [3]int64{100, 10, 7})}, // ⌈20/2⌉ = 10 threads in y
		{"ReferenceValidBox", g.ReferenceValidBox(), box([3]int64{}, [3]int64{100, 20, 7})},
	} {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}

func TestBlockIDs(t *testing.T) {
	g := testGeometry()
	for _, c := range []struct {
		idx [3]int64
		id  int64
	}{{[3]int64{0, 0, 0}, 0}, {[3]int64{3, 0, 0}, 3}, {[3]int64{0, 1, 0}, 4}, {[3]int64{0, 0, 1}, 12}, {[3]int64{1, 2, 3}, 45}, {[3]int64{3, 2, 3}, 47}} {
		if got := g.LinearBlockID(c.idx); got != c.id {
			t.Errorf("LinearBlockID(%v) = %d, want %d", c.idx, got, c.id)
		}
		if got := g.BlockIndex(c.id); got != c.idx {
			t.Errorf("BlockIndex(%d) = %v, want %v", c.id, got, c.idx)
		}
	}
	for id := range g.Blocks() {
		if got := g.LinearBlockID(g.BlockIndex(id)); got != id {
			t.Errorf("LinearBlockID(BlockIndex(%d)) = %d", id, got)
		}
	}
}

func TestBlockRange(t *testing.T) {
	g := testGeometry()
	// [2, 39): the tail of row 0, rows 1 and 2 of layer 0, layers 1 and 2,
	// and the head of layer 3's first row.
	want := []lattice.Box{
		box([3]int64{2, 0, 0}, [3]int64{4, 1, 1}),
		box([3]int64{0, 1, 0}, [3]int64{4, 3, 1}),
		box([3]int64{0, 0, 1}, [3]int64{4, 3, 3}),
		box([3]int64{0, 0, 3}, [3]int64{3, 1, 4}),
	}
	if got := g.BlockRange(2, 39); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("BlockRange(2, 39) = %v, want %v", got, want)
	}
	// Every range, against the ids it must hold in launch order: the
	// boxes' blocks, row by row, are the ids of [a, b) clipped to the grid.
	for a := int64(-2); a <= g.Blocks()+2; a++ {
		for b := a; b <= g.Blocks()+2; b++ {
			boxes := g.BlockRange(a, b)
			if len(boxes) > 5 {
				t.Errorf("BlockRange(%d, %d) has %d boxes, more than five", a, b, len(boxes))
			}
			var ids []int64
			for _, bx := range boxes {
				for z := bx.Lo[2]; z < bx.Hi[2]; z++ {
					for y := bx.Lo[1]; y < bx.Hi[1]; y++ {
						for x := bx.Lo[0]; x < bx.Hi[0]; x++ {
							ids = append(ids, g.LinearBlockID([3]int64{x, y, z}))
						}
					}
				}
			}
			var wantIDs []int64
			for id := max(a, 0); id < min(b, g.Blocks()); id++ {
				wantIDs = append(wantIDs, id)
			}
			if fmt.Sprint(ids) != fmt.Sprint(wantIDs) {
				t.Fatalf("BlockRange(%d, %d) = %v holds the blocks %v, want %v", a, b, boxes, ids, wantIDs)
			}
		}
	}
}

// TestValidate checks that the geometry refuses what its launch refuses
// (kernel.Launch.Validate): a non-positive block, fold or domain entry.
func TestValidate(t *testing.T) {
	if err := testGeometry().Validate(); err != nil {
		t.Errorf("a valid geometry: %v", err)
	}
	g := testGeometry()
	g.Fold[1] = 0
	want := "fold y = 0: must be at least 1"
	if err := g.Validate(); err == nil || err.Error() != want {
		t.Errorf("fold 1,0,1: %v, want %q", err, want)
	}
	for i := range 3 {
		for _, v := range []int64{0, -1} {
			for name, set := range map[string]func(*Geometry){
				"block":  func(g *Geometry) { g.Block[i] = v },
				"fold":   func(g *Geometry) { g.Fold[i] = v },
				"domain": func(g *Geometry) { g.Domain[i] = v },
			} {
				g := testGeometry()
				set(&g)
				if g.Validate() == nil {
					t.Errorf("%s[%d] = %d is accepted", name, i, v)
				}
			}
		}
	}
}
