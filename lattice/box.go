// Package lattice is the integer box algebra of polyvol: half-open boxes
// of lattice points, threads or blocks in three dimensions. It is a leaf:
// it imports nothing of polyvol.
package lattice

import "fmt"

// Box is the half-open integer box [Lo, Hi) in three dimensions, x first.
// It describes thread boxes (in thread coordinates), block boxes (in block
// indices) and boxes of lattice points. A box with Hi[i] <= Lo[i] in any
// dimension is empty.
type Box struct {
	Lo, Hi [3]int64
}

// Empty reports whether the box holds no point.
func (b Box) Empty() bool {
	return b.Hi[0] <= b.Lo[0] || b.Hi[1] <= b.Lo[1] || b.Hi[2] <= b.Lo[2]
}

// Size returns the number of points in the box.
func (b Box) Size() int64 {
	if b.Empty() {
		return 0
	}
	return (b.Hi[0] - b.Lo[0]) * (b.Hi[1] - b.Lo[1]) * (b.Hi[2] - b.Lo[2])
}

// Intersect returns the common part of b and o.
func (b Box) Intersect(o Box) Box {
	var r Box
	for i := range 3 {
		r.Lo[i] = max(b.Lo[i], o.Lo[i])
		r.Hi[i] = min(b.Hi[i], o.Hi[i])
	}
	return r
}

// Contains reports whether point p lies in the box.
func (b Box) Contains(p [3]int64) bool {
	for i := range 3 {
		if p[i] < b.Lo[i] || p[i] >= b.Hi[i] {
			return false
		}
	}
	return true
}

// Points lists the points of the box, x fastest, then y, then z.
func (b Box) Points() [][3]int64 {
	var out [][3]int64
	for z := b.Lo[2]; z < b.Hi[2]; z++ {
		for y := b.Lo[1]; y < b.Hi[1]; y++ {
			for x := b.Lo[0]; x < b.Hi[0]; x++ {
				out = append(out, [3]int64{x, y, z})
			}
		}
	}
	return out
}

// Shift returns the box translated by d.
func (b Box) Shift(d [3]int64) Box {
	for i := range 3 {
		b.Lo[i] += d[i]
		b.Hi[i] += d[i]
	}
	return b
}

// String renders the box as "[lo0,hi0)x[lo1,hi1)x[lo2,hi2)".
func (b Box) String() string {
	return fmt.Sprintf("[%d,%d)x[%d,%d)x[%d,%d)", b.Lo[0], b.Hi[0], b.Lo[1], b.Hi[1], b.Lo[2], b.Hi[2])
}
