package sets

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/polyvol/polyvol/isl"
	"github.com/polyvol/polyvol/kernel"
)

// maxImageRows bounds the number of per-row intervals the interval path
// emits for a field whose rows are not a whole number of granules; larger
// footprints go through ISL's own image computation.
const maxImageRows = 1 << 16

// GranuleDims returns the number of granule coordinates of field fi at
// granularity gran: 3 for the multi-dimensional space and for lifted linear
// granules, 1 for the remaining linear case ([g]).
func (m *Mapper) GranuleDims(fi int, store bool, gran int64, space AddressSpace) int {
	if _, lifted := m.lifted(fi, store, gran, space); lifted || space == MultiDimSpace {
		return 3
	}
	return 1
}

// lifted reports whether field fi's linear granules are represented
// one-to-one as [r, y', z'] with g = r + R·(y' + N1·z'), R = N0·s/G: when
// its rows hold a whole number R of granules and every access is separable
// with no stride that skips granules, so that footprints of boxes are unions
// of boxes. Other linear granules are the single coordinate [g].
func (m *Mapper) lifted(fi int, store bool, gran int64, space AddressSpace) (int64, bool) {
	if space != LinearSpace {
		return 0, false
	}
	f := m.Kernel.Fields[fi]
	if len(f.LoadMaps) > 0 && !store || len(f.StoreMaps) > 0 && store {
		return 0, false
	}
	R, ok := liftable(f, gran)
	if !ok {
		return 0, false
	}
	for _, a := range f.Accesses(store) {
		terms, sep := separable(a)
		if !sep || abs(terms[0].coef)*f.Element > gran || abs(terms[1].coef) > 1 || abs(terms[2].coef) > 1 {
			return 0, false
		}
	}
	return R, true
}

// abs returns |v|.
func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// PointBox returns the lattice points covered by the threads of box t: the
// box [f·lo, f·hi), clipped to the domain when the mapper guards points.
func (m *Mapper) PointBox(t Box) Box {
	var p Box
	for i := range 3 {
		p.Lo[i] = t.Lo[i] * m.Geom.Fold[i]
		p.Hi[i] = t.Hi[i] * m.Geom.Fold[i]
	}
	if m.PointGuard {
		p = p.Intersect(Box{Hi: m.Geom.Domain})
	}
	return p
}

// FootprintSet returns the granules that the threads in boxes touch through
// the loads (or stores) of field fi, as an ISL set. When every access is
// separable (each index expression affine in at most one coordinate, each
// coordinate used once, and no stride that skips granules) the image is
// computed as a union of boxes by interval arithmetic and built through the
// ISL API; otherwise ISL computes the image of the access map (Footprint).
// Both give the same set.
func (m *Mapper) FootprintSet(sc *isl.Scope, fi int, store bool, gran int64, space AddressSpace, boxes []Box) (*isl.Set, error) {
	img, ok, err := m.ImageBoxes(fi, store, gran, space, boxes)
	if err != nil {
		return nil, err
	}
	if !ok {
		return m.Footprint(sc, fi, store, gran, space, boxes)
	}
	return BoxUnionSet(sc, TupleName(m.Kernel, fi, store), m.GranuleDims(fi, store, gran, space), img)
}

// BoxUnionSet builds the ISL set tuple[...] holding the union of boxes, using
// the first dims coordinates of each box.
func BoxUnionSet(sc *isl.Scope, tuple string, dims int, boxes []Box) (*isl.Set, error) {
	if len(boxes) == 0 { // lo > hi: the empty set of the right space
		hi := make([]int64, dims)
		for i := range hi {
			hi[i] = -1
		}
		return sc.BoxSet(tuple, make([]int64, dims), hi)
	}
	var res *isl.Set
	for _, b := range boxes {
		lo, hi := make([]int64, dims), make([]int64, dims)
		for i := range dims {
			lo[i], hi[i] = b.Lo[i], b.Hi[i]-1
		}
		s, err := sc.BoxSet(tuple, lo, hi)
		if err != nil {
			return nil, err
		}
		if res == nil {
			res = s
			continue
		}
		if res, err = res.Union(s); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// separableTerm describes index expression e = coef·p_v + off over the point
// coordinate v (v < 0 for a constant).
type separableTerm struct {
	v         int
	coef, off int64
}

// separable splits an access into one term per index; ok is false when an
// index has floor or modulo terms, depends on two coordinates, or shares a
// coordinate with another index.
func separable(a kernel.Access) (terms [3]separableTerm, ok bool) {
	used := [3]bool{}
	for i := range 3 {
		coef, c, lin := a.Index[i].Linear()
		if !lin {
			return terms, false
		}
		terms[i] = separableTerm{v: -1, off: c}
		for v := range 3 {
			if coef[v] == 0 {
				continue
			}
			if terms[i].v >= 0 || used[v] {
				return terms, false
			}
			used[v] = true
			terms[i].v, terms[i].coef = v, coef[v]
		}
	}
	return terms, true
}

// interval returns the range [lo, hi] of the term over the point box p, and
// its step (|coef|, or 1 for a constant).
func (t separableTerm) interval(p Box) (lo, hi, step int64) {
	if t.v < 0 {
		return t.off, t.off, 1
	}
	a := t.coef*p.Lo[t.v] + t.off
	b := t.coef*(p.Hi[t.v]-1) + t.off
	if a > b {
		a, b = b, a
	}
	step = t.coef
	if step < 0 {
		step = -step
	}
	return a, b, step
}

// ImageBoxes computes the image of the threads in boxes under field fi's
// accesses as a union of boxes in granule coordinates (see GranuleDims); ok
// is false when an access is not separable or the image would need more than
// maxImageRows intervals, and the caller must let ISL compute the image.
func (m *Mapper) ImageBoxes(fi int, store bool, gran int64, space AddressSpace, boxes []Box) (img []Box, ok bool, err error) {
	f := m.Kernel.Fields[fi]
	R, lifted := m.lifted(fi, store, gran, space)
	if space == LinearSpace && !lifted { // single-coordinate granules [g]
		ranges, ok := m.AddressRanges(fi, store, gran, boxes)
		if !ok {
			return nil, false, nil
		}
		return rangeGranules(ranges, gran), true, nil
	}
	if len(f.LoadMaps) > 0 && !store || len(f.StoreMaps) > 0 && store {
		return nil, false, nil
	}
	s, alpha := f.Element, f.Offset
	ivs, sep := m.indexIntervals(fi, store, boxes)
	if !sep {
		return nil, false, nil
	}
	for _, iv := range ivs {
		e0lo, e1lo, e2lo := iv.lo[0], iv.lo[1], iv.lo[2]
		e0hi, e1hi, e2hi := iv.hi[0], iv.hi[1], iv.hi[2]
		step0, step1, step2 := iv.step[0], iv.step[1], iv.step[2]
		if space == MultiDimSpace {
			kappa := gran / s
			if kappa < 1 {
				return nil, false, fmt.Errorf("field %q: element size %d B exceeds the granularity %d B of the multi-dimensional address space", f.Name, s, gran)
			}
			if step0 > kappa || step1 > 1 || step2 > 1 {
				return nil, false, nil
			}
			img = append(img, Box{
				Lo: [3]int64{floorDiv(e0lo, kappa), e1lo, e2lo},
				Hi: [3]int64{floorDiv(e0hi, kappa) + 1, e1hi + 1, e2hi + 1}})
			continue
		}
		// lifted linear granules [r, y', z']
		if step0*s > gran || step1 > 1 || step2 > 1 {
			return nil, false, nil
		}
		umin, umax := floorDiv(s*(alpha+e0lo), gran), floorDiv(s*(alpha+e0hi), gran)
		N1 := f.Extent[1]
		for k := floorDiv(umin, R); k <= floorDiv(umax, R); k++ {
			rlo, rhi := max(umin, k*R)-k*R, min(umax, k*R+R-1)-k*R
			for mm := floorDiv(e1lo+k, N1); mm <= floorDiv(e1hi+k, N1); mm++ {
				ylo, yhi := max(e1lo+k, mm*N1)-mm*N1, min(e1hi+k, mm*N1+N1-1)-mm*N1
				img = append(img, Box{
					Lo: [3]int64{rlo, ylo, e2lo + mm},
					Hi: [3]int64{rhi + 1, yhi + 1, e2hi + mm + 1}})
			}
		}
	}
	return MergeBoxes(img), true, nil
}

// indexInterval is the range [lo, hi] of each index of one access over one
// box of lattice points, and the index's step there.
type indexInterval struct {
	lo, hi, step [3]int64
}

// indexIntervals returns the index intervals of every access of field fi's
// loads (or stores) over the lattice points of every non-empty thread box;
// ok is false when an access is not separable.
func (m *Mapper) indexIntervals(fi int, store bool, boxes []Box) (ivs []indexInterval, ok bool) {
	for _, a := range m.Kernel.Fields[fi].Accesses(store) {
		terms, sep := separable(a)
		if !sep {
			return nil, false
		}
		for _, tb := range boxes {
			p := m.PointBox(tb)
			if p.Empty() {
				continue
			}
			var iv indexInterval
			for d := range 3 {
				iv.lo[d], iv.hi[d], iv.step[d] = terms[d].interval(p)
			}
			ivs = append(ivs, iv)
		}
	}
	return ivs, true
}

// AddressRange is the closed range [First, Last] of byte addresses that
// holds a list of element start addresses.
type AddressRange struct {
	First, Last int64
}

// AddressRanges returns the start addresses at which the threads in boxes
// access field fi's elements through its loads (or stores), in the linear
// address space, as sorted ranges that stand for the addresses at
// granularity gran: consecutive addresses inside a range are at most gran
// bytes apart, and so are two ranges only if they are joined into one. A
// range then holds no gap that could contain a whole granule, so the
// granules of the ranges are those of the addresses, also after every
// address is shifted by the same amount. ok is false when an access is not
// separable (see FootprintSet), an element stride exceeds gran, the field
// has raw maps, or more than maxImageRows rows would be listed.
func (m *Mapper) AddressRanges(fi int, store bool, gran int64, boxes []Box) (ranges []AddressRange, ok bool) {
	f := m.Kernel.Fields[fi]
	if len(f.LoadMaps) > 0 && !store || len(f.StoreMaps) > 0 && store {
		return nil, false
	}
	// The element indices of unit-stride accesses form boxes; merging them
	// first (a stencil's accesses overlap in all but one index) leaves far
	// fewer rows to list.
	ivs, sep := m.indexIntervals(fi, store, boxes)
	if !sep {
		return nil, false
	}
	var unit []Box
	for _, iv := range ivs {
		if iv.step[0]*f.Element > gran {
			return nil, false
		}
		if iv.step == [3]int64{1, 1, 1} {
			unit = append(unit, Box{Lo: iv.lo, Hi: [3]int64{iv.hi[0] + 1, iv.hi[1] + 1, iv.hi[2] + 1}})
			continue
		}
		ranges = appendRowRanges(ranges, f, gran, iv.lo, iv.hi, iv.step[1], iv.step[2])
		if len(ranges) > maxImageRows {
			return nil, false
		}
	}
	for _, b := range MergeBoxes(unit) {
		ranges = appendRowRanges(ranges, f, gran, b.Lo, [3]int64{b.Hi[0] - 1, b.Hi[1] - 1, b.Hi[2] - 1}, 1, 1)
		if len(ranges) > maxImageRows {
			return nil, false
		}
	}
	slices.SortFunc(ranges, func(a, b AddressRange) int { return cmp.Compare(a.First, b.First) })
	out := ranges[:0]
	for _, r := range ranges {
		if k := len(out) - 1; k >= 0 && r.First-out[k].Last <= gran {
			out[k].Last = max(out[k].Last, r.Last)
			continue
		}
		out = append(out, r)
	}
	return out, true
}

// appendRowRanges appends the address ranges of the rows e1 ∈ [lo1, hi1]
// (step step1), e2 ∈ [lo2, hi2] (step step2) of a field, each row holding
// the elements [lo0, hi0]. Rows whose start addresses are at most gran apart
// are listed as one range, and so are such layers of rows, so that a large
// footprint needs few ranges.
func appendRowRanges(out []AddressRange, f *kernel.Field, gran int64, lo, hi [3]int64, step1, step2 int64) []AddressRange {
	s, n0, n01 := f.Element, f.Extent[0], f.Extent[0]*f.Extent[1]
	span := func(first, last int64) AddressRange { // element offsets of the first and last element
		return AddressRange{s * (f.Offset + first), s * (f.Offset + last)}
	}
	rowSpan := hi[0] - lo[0]
	joinY := s*(step1*n0-rowSpan) <= gran
	layerSpan := rowSpan + (hi[1]-lo[1])*n0
	joinZ := joinY && s*(step2*n01-layerSpan) <= gran
	switch {
	case joinZ:
		return append(out, span(lo[0]+lo[1]*n0+lo[2]*n01, hi[0]+hi[1]*n0+hi[2]*n01))
	case joinY:
		for e2 := lo[2]; e2 <= hi[2] && len(out) <= maxImageRows; e2 += step2 {
			out = append(out, span(lo[0]+lo[1]*n0+e2*n01, hi[0]+hi[1]*n0+e2*n01))
		}
		return out
	}
	for e2 := lo[2]; e2 <= hi[2] && len(out) <= maxImageRows; e2 += step2 {
		for e1 := lo[1]; e1 <= hi[1]; e1 += step1 {
			out = append(out, span(lo[0]+e1*n0+e2*n01, hi[0]+e1*n0+e2*n01))
		}
	}
	return out
}

// rangeGranules returns the granules of sorted address ranges (see
// AddressRanges) as merged intervals [g, g') of single-coordinate boxes.
func rangeGranules(ranges []AddressRange, gran int64) []Box {
	var img []Box
	for _, r := range ranges {
		lo, hi := floorDiv(r.First, gran), floorDiv(r.Last, gran)+1
		if k := len(img) - 1; k >= 0 && lo <= img[k].Hi[0] {
			img[k].Hi[0] = max(img[k].Hi[0], hi)
			continue
		}
		img = append(img, Box{Lo: [3]int64{lo, 0, 0}, Hi: [3]int64{hi, 1, 1}})
	}
	return img
}

// CountGranules returns the number of granules of gran bytes that sorted
// address ranges (see AddressRanges) touch after every address is shifted
// by shift bytes.
func CountGranules(ranges []AddressRange, gran, shift int64) int64 {
	var n int64
	next := int64(math.MinInt64) // the first granule not yet counted
	for _, r := range ranges {
		lo, hi := max(floorDiv(r.First+shift, gran), next), floorDiv(r.Last+shift, gran)
		if hi >= lo {
			n += hi - lo + 1
			next = hi + 1
		}
	}
	return n
}

// MergeBoxes returns a union-equivalent list of boxes in which no two boxes
// that differ in one dimension only overlap or touch there. It sorts and
// sweeps each dimension in turn until nothing merges, in O(n log n) per
// sweep, so that per-row intervals of large footprints collapse cheaply.
func MergeBoxes(boxes []Box) []Box {
	out := make([]Box, 0, len(boxes))
	for _, b := range boxes {
		if !b.Empty() {
			out = append(out, b)
		}
	}
	if sameYZ(out) { // intervals of one row: a single sweep in x merges them
		return sweep(out, 0)
	}
	for changed := true; changed; {
		changed = false
		for d := range 3 {
			n := len(out)
			out = sweep(out, d)
			changed = changed || len(out) < n
		}
	}
	slices.SortFunc(out, func(a, b Box) int { return compareBoxes(a, b, 0) })
	return out
}

// IntersectBoxes returns the union of boxes common to two unions of boxes. It
// sweeps both lists in the order of their lower edges in the dimension
// where the boxes overlap least, and intersects each box only with the
// boxes of the other list whose extent there it meets, so that lists of
// thousands of row intervals cost about their length, not its square.
func IntersectBoxes(a, b []Box) []Box {
	if len(a) == 0 || len(b) == 0 {
		return nil
	}
	if rows, ok := intersectRows(a, b); ok {
		return rows
	}
	d := sweepDimension(a, b)
	byLo := func(x, y Box) int { return cmp.Compare(x.Lo[d], y.Lo[d]) }
	if !slices.IsSortedFunc(a, byLo) {
		a = slices.Clone(a)
		slices.SortFunc(a, byLo)
	}
	if !slices.IsSortedFunc(b, byLo) {
		b = slices.Clone(b)
		slices.SortFunc(b, byLo)
	}
	var out, openA, openB []Box
	for len(a) > 0 || len(b) > 0 {
		var x Box
		own, other := &openA, &openB
		if len(b) == 0 || len(a) > 0 && a[0].Lo[d] <= b[0].Lo[d] {
			x, a = a[0], a[1:]
		} else {
			x, b = b[0], b[1:]
			own, other = &openB, &openA
		}
		kept := (*other)[:0]
		for _, y := range *other {
			if y.Hi[d] <= x.Lo[d] { // y ends before x and every later box starts
				continue
			}
			kept = append(kept, y)
			if c := x.Intersect(y); !c.Empty() {
				out = append(out, c)
			}
		}
		*other = kept
		*own = append(*own, x)
	}
	return MergeBoxes(out)
}

// intersectRows intersects two lists of sorted, disjoint x intervals of one
// row (boxes with the same y and z extents), such as single-coordinate
// granules, in one merge pass; the result is sorted and disjoint too. ok is
// false for any other lists.
func intersectRows(a, b []Box) (out []Box, ok bool) {
	if !sameYZ(a) || !sameYZ(b) || !sameOutside(a[0], b[0], 0) || !sortedDisjoint(a) || !sortedDisjoint(b) {
		return nil, false
	}
	for i, j := 0, 0; i < len(a) && j < len(b); {
		if c := a[i].Intersect(b[j]); !c.Empty() {
			out = append(out, c)
		}
		if a[i].Hi[0] < b[j].Hi[0] {
			i++
		} else {
			j++
		}
	}
	return out, true
}

// sortedDisjoint reports whether the boxes' x intervals are sorted and
// disjoint.
func sortedDisjoint(boxes []Box) bool {
	for i := 1; i < len(boxes); i++ {
		if boxes[i].Lo[0] < boxes[i-1].Hi[0] {
			return false
		}
	}
	return true
}

// sweepDimension returns the dimension in which the boxes of a and b
// overlap least: the smallest ratio of their summed extents to the extent
// of their hull.
func sweepDimension(a, b []Box) int {
	best, bestDepth := 0, math.Inf(1)
	for d := range 3 {
		lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
		var sum float64
		for _, list := range [][]Box{a, b} {
			for _, x := range list {
				lo, hi = min(lo, x.Lo[d]), max(hi, x.Hi[d])
				sum += float64(x.Hi[d] - x.Lo[d])
			}
		}
		if hi > lo {
			if depth := sum / float64(hi-lo); depth < bestDepth {
				best, bestDepth = d, depth
			}
		}
	}
	return best
}

// sameYZ reports whether all boxes have the same y and z extents.
func sameYZ(boxes []Box) bool {
	for _, b := range boxes {
		if !sameOutside(b, boxes[0], 0) {
			return false
		}
	}
	return true
}

// sweep merges, among boxes that agree outside dimension d, those that
// overlap or touch in d.
func sweep(boxes []Box, d int) []Box {
	slices.SortFunc(boxes, func(a, b Box) int { return compareBoxes(a, b, d) })
	out := boxes[:0]
	for _, b := range boxes {
		if k := len(out) - 1; k >= 0 && sameOutside(out[k], b, d) && b.Lo[d] <= out[k].Hi[d] {
			out[k].Hi[d] = max(out[k].Hi[d], b.Hi[d])
			continue
		}
		out = append(out, b)
	}
	return out
}

// compareBoxes orders boxes by their extents outside dimension d, then by
// their extent in d.
func compareBoxes(a, b Box, d int) int {
	for k := range 3 {
		if k == d {
			continue
		}
		if c := cmp.Compare(a.Lo[k], b.Lo[k]); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Hi[k], b.Hi[k]); c != 0 {
			return c
		}
	}
	if c := cmp.Compare(a.Lo[d], b.Lo[d]); c != 0 {
		return c
	}
	return cmp.Compare(a.Hi[d], b.Hi[d])
}

// sameOutside reports whether a and b have the same extent in every
// dimension but d.
func sameOutside(a, b Box, d int) bool {
	for k := range 3 {
		if k != d && (a.Lo[k] != b.Lo[k] || a.Hi[k] != b.Hi[k]) {
			return false
		}
	}
	return true
}
