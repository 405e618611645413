package sets

import (
	"fmt"
	"strings"

	"github.com/polyvol/polyvol/geometry"
	"github.com/polyvol/polyvol/lattice"
)

// boxConstraint renders box b as ISL constraints over the variables x, y, z.
func boxConstraint(b lattice.Box) string {
	if b.Empty() {
		return "1 = 0"
	}
	return fmt.Sprintf("%d <= x < %d and %d <= y < %d and %d <= z < %d",
		b.Lo[0], b.Hi[0], b.Lo[1], b.Hi[1], b.Lo[2], b.Hi[2])
}

// ThreadSetISL renders a union of thread boxes as an ISL set over [x, y, z].
func ThreadSetISL(boxes []lattice.Box) string {
	var parts []string
	for _, b := range boxes {
		if !b.Empty() {
			parts = append(parts, "[x, y, z] : "+boxConstraint(b))
		}
	}
	if len(parts) == 0 {
		return "{ [x, y, z] : 1 = 0 }"
	}
	return "{ " + strings.Join(parts, "; ") + " }"
}

// BlockRangeISL describes, with ISL floor divisions, the threads of all blocks
// of g
// whose linear block id lies in [a, b): the form in which a wave is a single
// quasi-affine set. Geometry.BlockRange gives the same set as boxes.
func BlockRangeISL(g geometry.Geometry, a, b int64) string {
	return fmt.Sprintf("{ [x, y, z] : 0 <= x < %d and 0 <= y < %d and 0 <= z < %d and "+
		"%d <= floor(x/%d) + %d*floor(y/%d) + %d*floor(z/%d) < %d }",
		g.Grid[0]*g.Block[0], g.Grid[1]*g.Block[1], g.Grid[2]*g.Block[2],
		a, g.Block[0], g.Grid[0], g.Block[1], g.Grid[0]*g.Grid[1], g.Block[2], b)
}

// WarpMapISL maps the threads of block blk of g to their warp number within the
// block: hardware forms warps from consecutive linear thread ids
// (x fastest), so warp w holds the threads with
// ⌊(tx + ty·b0 + tz·b0·b1)/warpSize⌋ = w, also when b0 is not a multiple of
// the warp size.
func WarpMapISL(g geometry.Geometry, blk [3]int64, warpSize int64) string {
	t := g.BlockThreads(blk)
	return fmt.Sprintf("{ [x, y, z] -> warp[w] : %s and w = floor(((x - %d) + %d*(y - %d) + %d*(z - %d))/%d) }",
		boxConstraint(t), t.Lo[0], g.Block[0], t.Lo[1], g.Block[0]*g.Block[1], t.Lo[2], warpSize)
}
