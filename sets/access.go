package sets

import (
	"fmt"
	"strings"

	"github.com/polyvol/polyvol/geometry"
	"github.com/polyvol/polyvol/isl"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/lattice"
)

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

// Footprint returns the set of granules of gran bytes that the threads in
// boxes touch through the loads (or stores) of field number fi, in the given
// address space, computed by ISL as the range of AccessMap.
func Footprint(sc *isl.Scope, m *geometry.AccessMapper, fi int, store bool, gran int64, space geometry.AddressSpace, boxes []lattice.Box) (*isl.Set, error) {
	mp, err := AccessMap(sc, m, fi, store, gran, space, boxes)
	if err != nil {
		return nil, err
	}
	return mp.Range()
}

// AccessMap returns the ISL map from the threads in boxes to the granules
// they touch through the loads (or stores) of field number fi; see Footprint.
func AccessMap(sc *isl.Scope, m *geometry.AccessMapper, fi int, store bool, gran int64, space geometry.AddressSpace, boxes []lattice.Box) (*isl.Map, error) {
	f := m.Kernel.Fields[fi]
	tuple := TupleName(m.Kernel, fi, store)
	var pieces []string
	for _, a := range f.Accesses(store) {
		for _, j := range kernel.FoldOffsets(m.Geom.Fold) {
			folded, err := kernel.FoldAccess(a, m.Geom.Fold, j)
			if err != nil {
				return nil, fmt.Errorf("field %q access %s: %w", f.Name, a.Text, err)
			}
			for _, box := range boxes {
				b := m.GuardBox(box, j)
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
	if len(pieces) == 0 {
		return emptyAccessMap(sc, tuple, granuleDims(space))
	}
	mp, err := sc.ReadMap("{ " + strings.Join(pieces, "; ") + " }")
	if err != nil {
		return nil, fmt.Errorf("field %q: building its access map: %w", f.Name, err)
	}
	return mp, nil
}

// granuleDims returns the number of granule coordinates of an address
// space: 1 for the linear space ([g]), 3 for the multi-dimensional one.
func granuleDims(space geometry.AddressSpace) int {
	if space == geometry.MultiDimSpace {
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
func granulePieces(f *kernel.Field, a kernel.Access, gran int64, space geometry.AddressSpace, b lattice.Box, tuple string) ([]string, error) {
	dom := "[x, y, z] -> "
	idx := a.Index
	cons := boxConstraint(b)
	for _, g := range a.Guards { // a partial access applies where its guards hold
		cons += " and " + g.ISL() + " >= 0"
	}
	s, alpha := f.Element, f.Offset
	switch space {
	case geometry.MultiDimSpace:
		kappa := gran / s
		if kappa < 1 {
			return nil, fmt.Errorf("element size %d B exceeds the granularity %d B of the multi-dimensional address space", s, gran)
		}
		return []string{fmt.Sprintf("%s%s[floor((%s)/%d), %s, %s] : %s", dom, tuple,
			idx[0].ISL(), kappa, idx[1].ISL(), idx[2].ISL(), cons)}, nil
	case geometry.LinearSpace:
		lin := fmt.Sprintf("%d*(%d + (%s) + %d*(%s) + %d*(%s))", s, alpha, idx[0].ISL(),
			f.Extent[0], idx[1].ISL(), f.Extent[0]*f.Extent[1], idx[2].ISL())
		return []string{fmt.Sprintf("%s%s[g] : %s and %s", dom, tuple, cons, linearGranules(lin, s, gran))}, nil
	}
	return nil, fmt.Errorf("unknown address space %d", space)
}

// emptyAccessMap returns the empty map from threads to a granule space of
// dims coordinates.
func emptyAccessMap(sc *isl.Scope, tuple string, dims int) (*isl.Map, error) {
	coords := []string{"g0", "g1", "g2"}[:dims]
	return sc.ReadMap(fmt.Sprintf("{ [x, y, z] -> %s[%s] : 1 = 0 }", tuple, strings.Join(coords, ", ")))
}
