package lattice

import (
	"math/rand/v2"
	"testing"
)

// TestBoxAgainstEnumeration checks Size, Empty, Contains, Intersect and
// Shift on random small boxes against the points enumerated in a cube that
// holds them.
func TestBoxAgainstEnumeration(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	random := func() Box {
		var b Box
		for i := range 3 {
			b.Lo[i] = r.Int64N(7) - 3
			b.Hi[i] = b.Lo[i] + r.Int64N(6) - 1 // empty sometimes
		}
		return b
	}
	for range 500 {
		a, b := random(), random()
		d := [3]int64{r.Int64N(5) - 2, r.Int64N(5) - 2, r.Int64N(5) - 2}
		var inA, inBoth, inShifted int64
		for x := int64(-6); x < 10; x++ {
			for y := int64(-6); y < 10; y++ {
				for z := int64(-6); z < 10; z++ {
					p := [3]int64{x, y, z}
					if a.Contains(p) {
						inA++
						if !a.Shift(d).Contains([3]int64{x + d[0], y + d[1], z + d[2]}) {
							t.Fatalf("%v shifted by %v lacks %v+d", a, d, p)
						}
						if b.Contains(p) {
							inBoth++
						}
					}
					if a.Shift(d).Contains(p) {
						inShifted++
					}
					if a.Intersect(b).Contains(p) != (a.Contains(p) && b.Contains(p)) {
						t.Fatalf("%v ∩ %v wrong at %v", a, b, p)
					}
				}
			}
		}
		if a.Size() != inA || a.Empty() != (inA == 0) || a.Intersect(b).Size() != inBoth || a.Shift(d).Size() != inShifted {
			t.Fatalf("%v (∩ %v, shift %v): Size %d Empty %v, enumerated %d, ∩ %d vs %d", a, b, d, a.Size(), a.Empty(), inA, a.Intersect(b).Size(), inBoth)
		}
	}
	if s := (Box{Lo: [3]int64{0, 1, 2}, Hi: [3]int64{3, 4, 5}}).String(); s != "[0,3)x[1,4)x[2,5)" {
		t.Errorf("String = %q", s)
	}
}

// TestPointsOrder checks Points on a box away from the origin: every point
// once, x fastest.
func TestPointsOrder(t *testing.T) {
	b := Box{Lo: [3]int64{1, -1, 2}, Hi: [3]int64{3, 1, 4}}
	got := b.Points()
	want := [][3]int64{{1, -1, 2}, {2, -1, 2}, {1, 0, 2}, {2, 0, 2}, {1, -1, 3}, {2, -1, 3}, {1, 0, 3}, {2, 0, 3}}
	if len(got) != len(want) {
		t.Fatalf("%d points, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("point %d: %v, want %v", i, got[i], want[i])
		}
	}
	if n := len(Box{Hi: [3]int64{2, 0, 5}}.Points()); n != 0 {
		t.Errorf("empty box: %d points", n)
	}
}
