package sets

import (
	"math/rand/v2"
	"testing"
)

// randomBoxes returns up to n random boxes in [0,12)×[0,6)×[0,4): thin rows,
// thin columns or small blocks, so that unions overlap in every way.
func randomBoxes(r *rand.Rand, n int) []Box {
	var out []Box
	for range r.IntN(n + 1) {
		var b Box
		ext := [3]int{12, 6, 4}
		for d := range 3 {
			b.Lo[d] = int64(r.IntN(ext[d]))
			w := 1 + r.IntN(ext[d]-int(b.Lo[d]))
			if r.IntN(3) == 0 { // thin in this dimension
				w = 1
			}
			b.Hi[d] = b.Lo[d] + int64(w)
		}
		out = append(out, b)
	}
	return out
}

// covered reports whether some box of the list contains p.
func covered(boxes []Box, p [3]int64) bool {
	for _, b := range boxes {
		if b.Contains(p) {
			return true
		}
	}
	return false
}

// TestBoxUnionsEqualEnumeration checks MergeBoxes and IntersectBoxes on
// random unions of overlapping boxes point by point: MergeBoxes keeps the
// union and IntersectBoxes returns exactly the points in both unions.
func TestBoxUnionsEqualEnumeration(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 4))
	for c := range 2000 {
		a, b := randomBoxes(r, 8), randomBoxes(r, 8)
		if c%3 == 0 { // intervals of one row, merged: IntersectBoxes's merge pass
			for _, list := range [][]Box{a, b} {
				for i := range list {
					list[i].Lo[1], list[i].Hi[1], list[i].Lo[2], list[i].Hi[2] = 0, 1, 0, 1
				}
			}
			b = MergeBoxes(b)
			if c%2 == 0 {
				a = MergeBoxes(a)
			}
		}
		merged := MergeBoxes(append([]Box(nil), a...))
		both := IntersectBoxes(a, b)
		for x := range int64(12) {
			for y := range int64(6) {
				for z := range int64(4) {
					p := [3]int64{x, y, z}
					if got, want := covered(merged, p), covered(a, p); got != want {
						t.Fatalf("case %d: MergeBoxes(%v) = %v covers %v: %v, want %v", c, a, merged, p, got, want)
					}
					if got, want := covered(both, p), covered(a, p) && covered(b, p); got != want {
						t.Fatalf("case %d: IntersectBoxes(%v, %v) = %v covers %v: %v, want %v", c, a, b, both, p, got, want)
					}
				}
			}
		}
	}
}
