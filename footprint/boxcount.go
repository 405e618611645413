package footprint

import (
	"fmt"
	"math/bits"

	"github.com/polyvol/polyvol/sets"
)

// maxInclusionExclusion bounds the number of boxes CountBoxes handles by
// inclusion–exclusion; longer lists return ok = false.
const maxInclusionExclusion = 16

// CountBoxes returns the number of points in the union of boxes by
// inclusion–exclusion over their intersections, pruning every branch whose
// intersection is empty: |∪B_i| = Σ_{S≠∅} (−1)^{|S|+1} |∩_{i∈S} B_i|.
// Footprints of separable accesses are short lists of boxes, so this costs
// microseconds where building and counting the ISL set costs milliseconds.
// ok is false for lists longer than maxInclusionExclusion; callers then
// count the ISL set. A property test checks it against isl_set_count_val.
func CountBoxes(boxes []sets.Box) (n int64, ok bool, err error) {
	var live []sets.Box
	for _, b := range boxes {
		if !b.Empty() {
			live = append(live, b)
		}
	}
	if len(live) > maxInclusionExclusion {
		return 0, false, nil
	}
	var total int64
	var walk func(from int, cur sets.Box, depth int) error
	walk = func(from int, cur sets.Box, depth int) error {
		for j := from; j < len(live); j++ {
			c := live[j]
			if depth > 0 {
				c = cur.Intersect(live[j])
				if c.Empty() {
					continue
				}
			}
			size, err := boxSize(c)
			if err != nil {
				return err
			}
			if depth%2 == 0 {
				total += size
			} else {
				total -= size
			}
			if err := walk(j+1, c, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(0, sets.Box{}, 0); err != nil {
		return 0, false, err
	}
	return total, true, nil
}

// boxSize returns the number of points of a non-empty box, or an error when
// it does not fit in int64.
func boxSize(b sets.Box) (int64, error) {
	n := uint64(1)
	for d := range 3 {
		hi, lo := bits.Mul64(n, uint64(b.Hi[d]-b.Lo[d]))
		if hi != 0 || lo > 1<<62 {
			return 0, fmt.Errorf("footprint: box %v has too many points", b)
		}
		n = lo
	}
	return int64(n), nil
}
