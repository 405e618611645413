package geometry

import (
	"github.com/polyvol/polyvol/intmath"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/lattice"
)

// AddressSpace selects how a field's element indices become granules.
type AddressSpace int

// The address spaces.
const (
	// LinearSpace uses the linear byte address s·(α + e0 + e1·N0 + e2·N0·N1)
	// divided by the granularity: exact.
	LinearSpace AddressSpace = iota
	// MultiDimSpace is the paper's wave-level space (Ernst et al. 2023): the tuple
	// (⌊e0/κ⌋, e1, e2) with κ = ⌊G/s⌋, ignoring α and the array extents.
	MultiDimSpace
)

// AccessMapper places the accesses of one kernel under one launch: which
// lattice points the threads of a box cover. Kernel holds the accesses in
// lattice-point coordinates (not folded); thread t covers the points
// f·t + j. Package footprint counts the granules they touch; package sets
// builds the same footprints as ISL sets for the oracle tests.
type AccessMapper struct {
	Kernel *kernel.Kernel
	Geom   Geometry
	// PointGuard clips every folded point to the lattice domain
	// (f·t + j < D), the exact valid-domain rule. Without it no clipping is
	// applied in the maps; callers clip thread sets instead (the paper's valid domain).
	PointGuard bool
}

// GuardBox returns the threads of box whose point f·t + j lies in the domain
// (all of box when the mapper applies no point guard).
func (m *AccessMapper) GuardBox(box lattice.Box, j [3]int64) lattice.Box {
	if !m.PointGuard {
		return box
	}
	var lim lattice.Box
	for i := range 3 {
		lim.Lo[i] = box.Lo[i]
		lim.Hi[i] = intmath.FloorDiv(m.Geom.Domain[i]-1-j[i], m.Geom.Fold[i]) + 1
	}
	return box.Intersect(lim)
}

// PointBox returns the lattice points covered by the threads of box t: the
// box [f·lo, f·hi), clipped to the domain when the mapper guards points.
func (m *AccessMapper) PointBox(t lattice.Box) lattice.Box {
	var p lattice.Box
	for i := range 3 {
		p.Lo[i] = t.Lo[i] * m.Geom.Fold[i]
		p.Hi[i] = t.Hi[i] * m.Geom.Fold[i]
	}
	if m.PointGuard {
		p = p.Intersect(lattice.Box{Hi: m.Geom.Domain})
	}
	return p
}
