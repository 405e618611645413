package geometry

import (
	"testing"

	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/lattice"
)

// mapperGeometry folds y by 2 over 19 points: thread y = 9 covers the
// point 18 (j = 0) but not 19 (j = 1).
func mapperGeometry() Geometry {
	return NewGeometry(kernel.Launch{Block: [3]int64{32, 4, 2}, Fold: [3]int64{1, 2, 1}, Domain: [3]int64{100, 19, 7}})
}

func TestGuardBox(t *testing.T) {
	threads := box([3]int64{0, 0, 0}, [3]int64{128, 12, 8})
	guarded := &AccessMapper{Geom: mapperGeometry(), PointGuard: true}
	for _, c := range []struct {
		j    [3]int64
		want lattice.Box
	}{
		{[3]int64{0, 0, 0}, box([3]int64{}, [3]int64{100, 10, 7})},
		{[3]int64{0, 1, 0}, box([3]int64{}, [3]int64{100, 9, 7})},
	} {
		if got := guarded.GuardBox(threads, c.j); got != c.want {
			t.Errorf("GuardBox(j = %v) = %v, want %v", c.j, got, c.want)
		}
		unguarded := &AccessMapper{Geom: mapperGeometry()}
		if got := unguarded.GuardBox(threads, c.j); got != threads {
			t.Errorf("without the point guard, GuardBox(j = %v) = %v, want the box itself", c.j, got)
		}
	}
	// Every thread of a box with a lower corner, against f·t + j < D.
	g := mapperGeometry()
	from := box([3]int64{90, 5, 2}, [3]int64{110, 12, 9})
	for _, j := range [][3]int64{{0, 0, 0}, {0, 1, 0}} {
		got := guarded.GuardBox(from, j)
		for _, p := range from.Points() {
			in := true
			for i := range 3 {
				in = in && g.Fold[i]*p[i]+j[i] < g.Domain[i]
			}
			if got.Contains(p) != in {
				t.Errorf("GuardBox(%v, j = %v) = %v: thread %v inside %v, want %v", from, j, got, p, got.Contains(p), in)
			}
		}
	}
}

func TestPointBox(t *testing.T) {
	threads := box([3]int64{1, 2, 3}, [3]int64{4, 12, 8})
	for _, c := range []struct {
		guard bool
		want  lattice.Box
	}{
		{false, box([3]int64{1, 4, 3}, [3]int64{4, 24, 8})},
		{true, box([3]int64{1, 4, 3}, [3]int64{4, 19, 7})},
	} {
		m := &AccessMapper{Geom: mapperGeometry(), PointGuard: c.guard}
		if got := m.PointBox(threads); got != c.want {
			t.Errorf("PointBox(%v), guard %v = %v, want %v", threads, c.guard, got, c.want)
		}
	}
}
