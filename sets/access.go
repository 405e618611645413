package sets

import (
	"fmt"
	"strings"

	"github.com/polyvol/polyvol/intmath"
	"github.com/polyvol/polyvol/isl"
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

// AccessMapper builds access maps and footprints of one kernel under one launch.
// Kernel holds the accesses in lattice-point coordinates (not folded); the
// AccessMapper folds them itself: thread t covers the points f·t + j.
type AccessMapper struct {
	Kernel *kernel.Kernel
	Geom   Geometry
	// PointGuard clips every folded point to the lattice domain
	// (f·t + j < D), the exact valid-domain rule. Without it no clipping is
	// applied in the maps; callers clip thread sets instead (the paper's valid domain).
	PointGuard bool
}

// TupleName returns the ISL tuple name of field number i of the kernel; it
// tags the field's granule space so that different fields never intersect.
func TupleName(k *kernel.Kernel, i int, store bool) string {
	var b strings.Builder
	kind := "ld"
	if store {
		kind = "st"
	}
	fmt.Fprintf(&b, "%s%d_", kind, i)
	for _, r := range k.Fields[i].Name {
		if r < 128 && (r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// foldOffsets lists the point offsets j of a thread, x fastest.
func (m *AccessMapper) foldOffsets() [][3]int64 { return kernel.FoldOffsets(m.Geom.Fold) }

// guardBox returns the threads of box whose point f·t + j lies in the domain
// (all of box when the mapper applies no point guard).
func (m *AccessMapper) guardBox(box lattice.Box, j [3]int64) lattice.Box {
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

// Footprint returns the set of granules of gran bytes that the threads in
// boxes touch through the loads (or stores) of field number fi, in the given
// address space, computed by ISL as the range of AccessMap.
func (m *AccessMapper) Footprint(sc *isl.Scope, fi int, store bool, gran int64, space AddressSpace, boxes []lattice.Box) (*isl.Set, error) {
	mp, err := m.AccessMap(sc, fi, store, gran, space, boxes)
	if err != nil {
		return nil, err
	}
	return mp.Range()
}

// AccessMap returns the ISL map from the threads in boxes to the granules
// they touch through the loads (or stores) of field number fi; see Footprint.
func (m *AccessMapper) AccessMap(sc *isl.Scope, fi int, store bool, gran int64, space AddressSpace, boxes []lattice.Box) (*isl.Map, error) {
	f := m.Kernel.Fields[fi]
	tuple := TupleName(m.Kernel, fi, store)
	raw := f.LoadMaps
	if store {
		raw = f.StoreMaps
	}
	var pieces []string
	for _, a := range f.Accesses(store) {
		for _, j := range m.foldOffsets() {
			folded, err := kernel.FoldAccess(a, m.Geom.Fold, j)
			if err != nil {
				return nil, fmt.Errorf("field %q access %s: %w", f.Name, a.Text, err)
			}
			for _, box := range boxes {
				b := m.guardBox(box, j)
				if b.Empty() {
					continue
				}
				ps, err := granulePieces(f, folded, gran, space, b, tuple)
				if err != nil {
					return nil, fmt.Errorf("field %q access %s: %w", f.Name, a.Text, err)
				}
				pieces = append(pieces, ps...)
			}
		}
	}
	maps := []*isl.Map{}
	if len(pieces) > 0 {
		mp, err := sc.ReadMap("{ " + strings.Join(pieces, "; ") + " }")
		if err != nil {
			return nil, fmt.Errorf("field %q: building its access map: %w", f.Name, err)
		}
		maps = append(maps, mp)
	}
	for _, src := range raw {
		mp, err := m.rawAccessMap(sc, f, src, gran, space, boxes, tuple)
		if err != nil {
			return nil, fmt.Errorf("field %q raw map %q: %w", f.Name, src, err)
		}
		maps = append(maps, mp)
	}
	if len(maps) == 0 {
		return emptyAccessMap(sc, tuple, granuleDims(space))
	}
	res := maps[0]
	for _, mp := range maps[1:] {
		u, err := res.Union(mp)
		if err != nil {
			return nil, err
		}
		res = u
	}
	return res, nil
}

// granuleDims returns the number of granule coordinates of an address
// space: 1 for the linear space ([g]), 3 for the multi-dimensional one.
func granuleDims(space AddressSpace) int {
	if space == MultiDimSpace {
		return 3
	}
	return 1
}

// linearGranules renders the ISL constraints that tie granule g of gran
// bytes to an element of size bytes at byte address addr: g is one of the
// granules of the bytes addr … addr+size−1.
func linearGranules(addr string, size, gran int64) string {
	return fmt.Sprintf("%d*g <= %s + %d and %d*g >= %s - %d", gran, addr, size-1, gran, addr, gran-1)
}

// granulePieces renders the basic maps from the threads of box b to the
// granules of access a (in thread coordinates), where its guards hold.
func granulePieces(f *kernel.Field, a kernel.Access, gran int64, space AddressSpace, b lattice.Box, tuple string) ([]string, error) {
	dom := "[x, y, z] -> "
	idx := a.Index
	cons := boxConstraint(b)
	for _, g := range a.Guards { // a partial access applies where its guards hold
		cons += " and " + g.ISL() + " >= 0"
	}
	s, alpha := f.Element, f.Offset
	switch space {
	case MultiDimSpace:
		kappa := gran / s
		if kappa < 1 {
			return nil, fmt.Errorf("element size %d B exceeds the granularity %d B of the multi-dimensional address space", s, gran)
		}
		return []string{fmt.Sprintf("%s%s[floor((%s)/%d), %s, %s] : %s", dom, tuple,
			idx[0].ISL(), kappa, idx[1].ISL(), idx[2].ISL(), cons)}, nil
	case LinearSpace:
		lin := fmt.Sprintf("%d*(%d + (%s) + %d*(%s) + %d*(%s))", s, alpha, idx[0].ISL(),
			f.Extent[0], idx[1].ISL(), f.Extent[0]*f.Extent[1], idx[2].ISL())
		return []string{fmt.Sprintf("%s%s[g] : %s and %s", dom, tuple, cons, linearGranules(lin, s, gran))}, nil
	}
	return nil, fmt.Errorf("unknown address space %d", space)
}

// rawAccessMap composes a raw ISL access relation (lattice point → array
// index) with the fold relation of the threads in boxes and the granule map.
// Raw maps always use the single-coordinate linear granule (or, in the
// multi-dimensional space, ⌊i0/κ⌋ and the remaining indices).
func (m *AccessMapper) rawAccessMap(sc *isl.Scope, f *kernel.Field, src string, gran int64, space AddressSpace, boxes []lattice.Box, tuple string) (*isl.Map, error) {
	raw, err := sc.ReadMap(src)
	if err != nil {
		return nil, err
	}
	nin, err := raw.Dim(isl.DimIn)
	if err != nil {
		return nil, err
	}
	nout, err := raw.Dim(isl.DimOut)
	if err != nil {
		return nil, err
	}
	if nin < 1 || nin > 3 || nout < 1 || nout > 3 {
		return nil, fmt.Errorf("want a map from 1-3 lattice coordinates to 1-3 array indices, got %d -> %d", nin, nout)
	}
	sp, err := raw.Space()
	if err != nil {
		return nil, err
	}
	inName, outName := "", ""
	if id, err := sp.TupleId(isl.DimIn); err == nil && id != nil {
		inName = id.Name()
	}
	if id, err := sp.TupleId(isl.DimOut); err == nil && id != nil {
		outName = id.Name()
	}
	vars := []string{"x", "y", "z"}[:nin]
	idx := []string{"i0", "i1", "i2"}[:nout]
	var foldParts []string
	for _, j := range m.foldOffsets() {
		for _, box := range boxes {
			b := m.guardBox(box, j)
			if b.Empty() {
				continue
			}
			var pt []string
			for d := range nin {
				pt = append(pt, fmt.Sprintf("%d*%s + %d", m.Geom.Fold[d], vars[d], j[d]))
			}
			foldParts = append(foldParts, fmt.Sprintf("[x, y, z] -> %s[%s] : %s", inName, strings.Join(pt, ", "), boxConstraint(b)))
		}
	}
	if len(foldParts) == 0 {
		return emptyAccessMap(sc, tuple, granuleDims(space))
	}
	fold, err := sc.ReadMap("{ " + strings.Join(foldParts, "; ") + " }")
	if err != nil {
		return nil, err
	}
	full := [3]string{"0", "0", "0"}
	copy(full[:], idx)
	var target string
	switch space {
	case MultiDimSpace:
		kappa := gran / f.Element
		if kappa < 1 {
			return nil, fmt.Errorf("element size %d B exceeds the granularity %d B", f.Element, gran)
		}
		target = fmt.Sprintf("%s[floor(%s/%d), %s, %s]", tuple, full[0], kappa, full[1], full[2])
	default:
		addr := fmt.Sprintf("%d*(%d + %s + %d*%s + %d*%s)", f.Element, f.Offset,
			full[0], f.Extent[0], full[1], f.Extent[0]*f.Extent[1], full[2])
		target = fmt.Sprintf("%s[g] : %s", tuple, linearGranules(addr, f.Element, gran))
	}
	gmap, err := sc.ReadMap(fmt.Sprintf("{ %s[%s] -> %s }", outName, strings.Join(idx, ", "), target))
	if err != nil {
		return nil, err
	}
	pts, err := fold.ApplyRange(raw)
	if err != nil {
		return nil, err
	}
	return pts.ApplyRange(gmap)
}

// emptyAccessMap returns the empty map from threads to a granule space of
// dims coordinates.
func emptyAccessMap(sc *isl.Scope, tuple string, dims int) (*isl.Map, error) {
	coords := []string{"g0", "g1", "g2"}[:dims]
	return sc.ReadMap(fmt.Sprintf("{ [x, y, z] -> %s[%s] : 1 = 0 }", tuple, strings.Join(coords, ", ")))
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
