package sets

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/polyvol/polyvol/geometry"
	"github.com/polyvol/polyvol/isl"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/lattice"
)

// TestBlockRangeEqualsEnumeration checks, for random grids and id ranges,
// that the boxes of BlockRange and the floor-division set of BlockRangeISL
// both hold exactly the threads of the enumerated blocks.
func TestBlockRangeEqualsEnumeration(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	ctx, err := isl.NewCtx()
	if err != nil {
		t.Fatal(err)
	}
	defer ctx.Close()
	for c := range 200 {
		block := [3]int64{1 + int64(r.IntN(3)), 1 + int64(r.IntN(3)), 1 + int64(r.IntN(2))}
		grid := [3]int64{1 + int64(r.IntN(6)), 1 + int64(r.IntN(5)), 1 + int64(r.IntN(4))}
		g := geometry.NewGeometry(kernel.Launch{Block: block, Fold: kernel.NoFold, Domain: [3]int64{grid[0] * block[0], grid[1] * block[1], grid[2] * block[2]}})
		if g.Grid != grid {
			t.Fatalf("case %d: grid %v, want %v", c, g.Grid, grid)
		}
		a := int64(r.IntN(int(g.Blocks())))
		b := a + int64(r.IntN(int(g.Blocks()-a)+1))
		var want []lattice.Box
		covered := map[[3]int64]bool{}
		for id := a; id < b; id++ {
			blk := g.BlockIndex(id)
			if g.LinearBlockID(blk) != id {
				t.Fatalf("BlockIndex/LinearBlockID disagree at %d", id)
			}
			want = append(want, g.BlockThreads(blk))
			covered[blk] = true
		}
		boxes := g.BlockRange(a, b)
		if len(boxes) > 5 {
			t.Fatalf("case %d: %d boxes, want at most 5", c, len(boxes))
		}
		var n int64
		for _, bb := range boxes {
			n += bb.Size()
			for x := bb.Lo[0]; x < bb.Hi[0]; x++ {
				for y := bb.Lo[1]; y < bb.Hi[1]; y++ {
					for z := bb.Lo[2]; z < bb.Hi[2]; z++ {
						if !covered[[3]int64{x, y, z}] {
							t.Fatalf("case %d: block %v in %v is outside ids [%d,%d)", c, [3]int64{x, y, z}, bb, a, b)
						}
					}
				}
			}
		}
		if n != b-a {
			t.Fatalf("case %d: boxes hold %d blocks, want %d", c, n, b-a)
		}
		sc := ctx.NewScope()
		viaISL, err := sc.ReadSet(BlockRangeISL(g, a, b))
		if err != nil {
			t.Fatal(err)
		}
		var thr []lattice.Box
		for _, bb := range boxes {
			thr = append(thr, g.ThreadBox(bb))
		}
		viaBoxes, err := sc.ReadSet(ThreadSetISL(thr))
		if err != nil {
			t.Fatal(err)
		}
		enumerated, err := sc.ReadSet(ThreadSetISL(want))
		if err != nil {
			t.Fatal(err)
		}
		for name, s := range map[string]*isl.Set{"BlockRangeISL": viaISL, "BlockRange": viaBoxes} {
			if eq, err := s.IsEqual(enumerated); err != nil || !eq {
				t.Fatalf("case %d grid %v block %v ids [%d,%d): %s = %s, want %s", c, g.Grid, g.Block, a, b, name, s, enumerated)
			}
		}
		sc.Free()
	}
}

// TestWarpMapEqualsEnumeration checks that the warp map groups consecutive
// linear thread ids, x fastest, also for block widths that are not multiples
// of the warp size.
func TestWarpMapEqualsEnumeration(t *testing.T) {
	ctx, err := isl.NewCtx()
	if err != nil {
		t.Fatal(err)
	}
	defer ctx.Close()
	for _, blk := range [][3]int64{{32, 1, 1}, {24, 3, 2}, {5, 7, 3}, {64, 2, 1}} {
		g := geometry.NewGeometry(kernel.Launch{Block: blk, Fold: kernel.NoFold, Domain: [3]int64{3 * blk[0], 2 * blk[1], 2 * blk[2]}}) // a grid of 3×2×2 blocks
		at := [3]int64{1, 1, 1}
		sc := ctx.NewScope()
		got, err := sc.ReadMap(WarpMapISL(g, at, 32))
		if err != nil {
			t.Fatal(err)
		}
		var pairs []string
		o := g.BlockThreads(at).Lo
		for tz := range blk[2] {
			for ty := range blk[1] {
				for tx := range blk[0] {
					lin := tx + ty*blk[0] + tz*blk[0]*blk[1]
					pairs = append(pairs, fmt.Sprintf("[%d, %d, %d] -> warp[%d]", o[0]+tx, o[1]+ty, o[2]+tz, lin/32))
				}
			}
		}
		want, err := sc.ReadMap("{ " + strings.Join(pairs, "; ") + " }")
		if err != nil {
			t.Fatal(err)
		}
		if eq, err := got.IsEqual(want); err != nil || !eq {
			t.Fatalf("block %v: warp map %s differs from enumeration", blk, got)
		}
		sc.Free()
	}
}
