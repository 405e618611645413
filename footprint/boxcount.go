package footprint

import (
	"cmp"
	"fmt"
	"math/bits"
	"slices"

	"github.com/polyvol/polyvol/sets"
)

// maxSweepBoxes bounds the number of boxes CountBoxes sweeps; longer lists
// return ok = false and are counted as ISL sets.
const maxSweepBoxes = 1 << 14

// CountBoxes returns the number of points in the union of boxes. It sweeps
// the boxes' edges in x; in each slab between two consecutive edges it
// sweeps the covering boxes' edges in y and adds up the merged z intervals,
// so the cost depends on the number of boxes, never on their extent.
// Footprints of separable accesses are such unions, and this counts them in
// microseconds where building and counting the ISL set costs milliseconds.
// ok is false for lists longer than maxSweepBoxes. A property test checks
// it against isl_set_count_val.
func CountBoxes(boxes []sets.Box) (n int64, ok bool, err error) {
	var live []sets.Box
	for _, b := range boxes {
		if !b.Empty() {
			live = append(live, b)
		}
	}
	if n, ok := countIntervals(live); ok {
		return n, true, nil
	}
	if len(live) > maxSweepBoxes {
		return 0, false, nil
	}
	var total uint64
	for _, slab := range slabs(live, 0) {
		area, err := unionArea(slab.boxes)
		if err != nil {
			return 0, false, err
		}
		hi, lo := bits.Mul64(area, uint64(slab.width))
		sum, carry := bits.Add64(total, lo, 0)
		if hi != 0 || carry != 0 || sum > 1<<62 {
			return 0, false, fmt.Errorf("footprint: the union of %d boxes has too many points", len(live))
		}
		total = sum
	}
	return int64(total), true, nil
}

// countIntervals counts a union of boxes that agree in y and z, such as the
// per-row intervals of single-coordinate granules, by sorting and merging
// their x intervals; ok is false when the boxes differ in y or z.
func countIntervals(boxes []sets.Box) (int64, bool) {
	if len(boxes) == 0 {
		return 0, true
	}
	for _, b := range boxes[1:] {
		if b.Lo[1] != boxes[0].Lo[1] || b.Hi[1] != boxes[0].Hi[1] || b.Lo[2] != boxes[0].Lo[2] || b.Hi[2] != boxes[0].Hi[2] {
			return 0, false
		}
	}
	byLo := func(a, b sets.Box) int { return cmp.Compare(a.Lo[0], b.Lo[0]) }
	if !slices.IsSortedFunc(boxes, byLo) { // footprints and intersections come sorted
		boxes = slices.Clone(boxes)
		slices.SortFunc(boxes, byLo)
	}
	var length int64
	end := boxes[0].Lo[0]
	for _, b := range boxes {
		if lo := max(b.Lo[0], end); b.Hi[0] > lo {
			length += b.Hi[0] - lo
			end = b.Hi[0]
		}
	}
	return length * (boxes[0].Hi[1] - boxes[0].Lo[1]) * (boxes[0].Hi[2] - boxes[0].Lo[2]), true
}

// slab is a range of one coordinate of the given width over which the same
// boxes cover it.
type slab struct {
	width int64
	boxes []sets.Box
}

// slabs cuts dimension d at every box edge and lists, for each piece that
// some box covers, the covering boxes.
func slabs(boxes []sets.Box, d int) []slab {
	edges := make([]int64, 0, 2*len(boxes))
	for _, b := range boxes {
		edges = append(edges, b.Lo[d], b.Hi[d])
	}
	slices.Sort(edges)
	edges = slices.Compact(edges)
	var out []slab
	for i := 0; i+1 < len(edges); i++ {
		lo, hi := edges[i], edges[i+1]
		var cover []sets.Box
		for _, b := range boxes {
			if b.Lo[d] <= lo && b.Hi[d] >= hi {
				cover = append(cover, b)
			}
		}
		if len(cover) > 0 {
			out = append(out, slab{hi - lo, cover})
		}
	}
	return out
}

// unionArea returns the area of the union of the boxes' (y, z) rectangles.
func unionArea(boxes []sets.Box) (uint64, error) {
	var area uint64
	for _, s := range slabs(boxes, 1) {
		iv := make([][2]int64, len(s.boxes))
		for i, b := range s.boxes {
			iv[i] = [2]int64{b.Lo[2], b.Hi[2]}
		}
		slices.SortFunc(iv, func(a, b [2]int64) int { return cmp.Compare(a[0], b[0]) })
		var length uint64
		end := iv[0][0]
		for _, v := range iv {
			lo := max(v[0], end)
			if v[1] > lo {
				length += uint64(v[1] - lo)
				end = v[1]
			}
		}
		hi, lo := bits.Mul64(length, uint64(s.width))
		sum, carry := bits.Add64(area, lo, 0)
		if hi != 0 || carry != 0 {
			return 0, fmt.Errorf("footprint: a union of boxes has too many points")
		}
		area = sum
	}
	return area, nil
}
