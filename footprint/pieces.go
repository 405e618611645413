package footprint

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/polyvol/polyvol/geometry"
	"github.com/polyvol/polyvol/intmath"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/lattice"
)

// indexProgression is one access over one piece of a box of lattice points
// on which it is affine: the element index tuple
// e(q) = base + Σ_j axes[j].step·q_j for 0 ≤ q_j < axes[j].count. Each
// coordinate i has two axes: axes[2i] across residue classes, intervals or
// tiles, and axes[2i+1] inside a tile (count 1 otherwise).
type indexProgression struct {
	base [3]int64
	axes [6]indexAxis
}

// indexAxis is one axis of an indexProgression: step is the change of each
// index per step.
type indexAxis struct {
	step  [3]int64
	count int64
}

// indexProgressions lists the index progressions of request q's accesses
// over the lattice points of the thread boxes (clipped by the mapper's point
// guard, and each access by its own guards' box, kernel.Access.Partial),
// cut into pieces on which each access is affine (appendPieces).
// Their number depends on the accesses, and for floor and modulo terms with
// long periods on how often those terms wrap inside the boxes, never on the
// boxes' size otherwise. They come box by box, n in all.
func (e *Engine) indexProgressions(q Request, threads []lattice.Box) (boxes [][]indexProgression, n int, err error) {
	boxes = make([][]indexProgression, 0, len(threads))
	for _, t := range threads {
		pb := e.Mapper.PointBox(t)
		if pb.Empty() {
			continue
		}
		ips, err := e.boxPieces(q, pb)
		if err != nil {
			return nil, 0, err
		}
		boxes = append(boxes, ips)
		n += len(ips)
	}
	return boxes, n, nil
}

// boxPieces returns the index progressions of request q's accesses over
// the point box pb, cut into pieces on which each access is affine, from
// the engine's cache where it holds them.
func (e *Engine) boxPieces(q Request, pb lattice.Box) ([]indexProgression, error) {
	key := pieceKey{q.Field, q.Store, pb}
	if ips, ok := e.pieces[key]; ok {
		return ips, nil
	}
	f := e.field(q)
	accesses := f.Accesses(q.Store)
	ips := make([]indexProgression, 0, len(accesses)) // one piece each where they are affine
	var err error
	for _, a := range accesses {
		box := pb
		if g, partial, _ := a.Partial(e.Mapper.Geom.Domain); partial {
			if box = box.Intersect(g); box.Empty() {
				continue
			}
		}
		if ips, err = e.appendPieces(ips, a, box); err != nil {
			return nil, fmt.Errorf("field %q access %s: %w", f.Name, a.Text, err)
		}
	}
	if e.pieces == nil || len(e.pieces) >= maxCachedBoxes {
		e.pieces = map[pieceKey][]indexProgression{}
	}
	e.pieces[key] = ips
	return ips, nil
}

// reserveGrowth reserves the memory of the slice that appending more index
// progressions to out allocates, when it does: up to twice the new length.
func (e *Engine) reserveGrowth(out []indexProgression, more int64) error {
	n := int64(len(out)) + more
	if n <= int64(cap(out)) {
		return nil
	}
	return e.budget().reserve(2 * n * int64(unsafe.Sizeof(indexProgression{})))
}

// pieceKey names the pieces of one field's loads or stores over one box of
// lattice points; they do not depend on the granularity or address space.
type pieceKey struct {
	field int
	store bool
	box   lattice.Box
}

// maxCachedBoxes bounds the boxes whose pieces an engine keeps: a sample's
// blocks and a wave's boxes are reused across granularities and unions.
const maxCachedBoxes = 1 << 12

// maxPiecesPerBox is the number of pieces above which appendPieces halves
// a box instead of cutting it.
const maxPiecesPerBox = 1 << 10

// pieceCost is the work charged for one piece: it is built, laid out and
// normalised, several allocations each.
const pieceCost = 8

// appendPieces appends access a over the point box pb, cut into pieces on
// which it is affine. First the terms that do not wrap inside the box are
// replaced by their affine forms (kernel.Access.OnBox); then each
// coordinate is cut into the residue classes of the remaining period or
// into the intervals between breakpoints, whichever are fewer, and into
// single points where neither applies (splitCoordinate). When that
// gives more than maxPiecesPerBox pieces (a long period whose terms wrap a
// few times only, such as a periodic neighbour (x + 1) mod N), the box is
// halved along its most-cut coordinate and each half handled alike, so
// that only the boxes where a term wraps are cut finely.
func (e *Engine) appendPieces(out []indexProgression, a kernel.Access, pb lattice.Box) ([]indexProgression, error) {
	if err := e.budget().spend(1); err != nil {
		return nil, err
	}
	if affine(a) { // the common case: one piece, nothing to simplify or cut
		if err := e.budget().spend(pieceCost); err != nil {
			return nil, err
		}
		var whole [3]subrange
		for i := range 3 {
			whole[i] = subrange{pb.Lo[i], 1, pb.Hi[i] - pb.Lo[i], 1}
		}
		return append(out, affinePiece(a, whole)), nil
	}
	s, err := a.OnBox(kernel.Point(pb.Lo), kernel.Point{pb.Hi[0] - 1, pb.Hi[1] - 1, pb.Hi[2] - 1})
	if err != nil {
		return nil, err
	}
	period, periodic := s.Period()
	var cuts [3][]subrange
	var pieces [3]int64 // per coordinate; the extent when it is cut into too many single points
	classes, widest := int64(1), -1
	for i := range 3 {
		var ok bool
		cuts[i], ok = splitCoordinate(s, i, pb.Lo[i], pb.Hi[i], period[i], periodic)
		pieces[i] = int64(len(cuts[i]))
		if !ok {
			pieces[i] = pb.Hi[i] - pb.Lo[i]
		}
		classes = min(classes*pieces[i], 1<<40)
		if pb.Hi[i]-pb.Lo[i] >= 2 && pieces[i] > 1 && (widest < 0 || pieces[i] > pieces[widest]) {
			widest = i
		}
	}
	if classes > maxPiecesPerBox && widest >= 0 {
		mid := pb.Lo[widest] + (pb.Hi[widest]-pb.Lo[widest])/2
		lower, upper := pb, pb
		lower.Hi[widest], upper.Lo[widest] = mid, mid
		if out, err = e.appendPieces(out, a, lower); err != nil {
			return nil, err
		}
		return e.appendPieces(out, a, upper)
	}
	if err := e.budget().spend(pieceCost * classes); err != nil {
		return nil, fmt.Errorf("%d pieces on which it is affine: %w", classes, err)
	}
	if err := e.reserveGrowth(out, classes); err != nil {
		return nil, fmt.Errorf("%d pieces on which it is affine: %w", classes, err)
	}
	for _, cz := range cuts[2] {
		for _, cy := range cuts[1] {
			for _, cx := range cuts[0] {
				out = append(out, affinePiece(s, [3]subrange{cx, cy, cz}))
			}
		}
	}
	return out, nil
}

// affine reports whether every index of a is affine.
func affine(a kernel.Access) bool {
	for _, e := range a.Index {
		if _, _, ok := e.Linear(); !ok {
			return false
		}
	}
	return true
}

// maxBreakpoints bounds the intervals one coordinate of an access is cut
// into.
const maxBreakpoints = 1 << 16

// subrange is the points first + step·k (k < count) of one coordinate, or
// with inner > 1 the tiles first + step·k + r (r < inner).
type subrange struct {
	first, step, count, inner int64
}

// splitCoordinate cuts the points [lo, hi) of coordinate i into subranges on
// each of which access a is affine in that coordinate, in the fewest of
// three ways that apply: the residue classes modulo the period; the
// intervals between breakpoints (kernel.Access.Breakpoints); or tiles, the
// stretches between the breakpoints of the first period repeated over the
// whole periods, with the rest cut at its breakpoints (a wrapped coordinate
// such as x mod 128 is one tile). When none applies (no period, and a
// coupled or nested term in coordinate i) it cuts the points one by one,
// unless there are more than maxPiecesPerBox of them: then ok is false.
//
// The cuts of the three coordinates together make a affine on every
// product of subranges: with a period every coordinate is cut into residue
// classes or tiles of it; without one a term in coordinate i is either of i
// alone and without nested terms, cut at its breakpoints, or it stops
// every coordinate it depends on from being cut at breakpoints, and those
// are cut into single points.
func splitCoordinate(a kernel.Access, i int, lo, hi, period int64, periodic bool) ([]subrange, bool) {
	n := hi - lo
	var best []subrange
	take := func(c []subrange) {
		if best == nil || len(c) < len(best) {
			best = c
		}
	}
	intervals := func(from, to int64, limit int) ([]subrange, bool) {
		points, ok := a.Breakpoints(i, from, to, limit)
		if !ok {
			return nil, false
		}
		var out []subrange
		start := from
		for _, p := range append(points, to) {
			out = append(out, subrange{start, 1, p - start, 1})
			start = p
		}
		return out, true
	}
	limit := maxBreakpoints
	if periodic {
		limit = int(min(int64(limit), min(period, n)))
		res := make([]subrange, min(period, n))
		for r := range res {
			res[r] = subrange{lo + int64(r), period, intmath.CeilDiv(n-int64(r), period), 1}
		}
		take(res)
		if k := n / period; k >= 2 {
			if tiles, ok := intervals(lo, lo+period, limit); ok {
				for t := range tiles {
					tiles[t].step, tiles[t].inner, tiles[t].count = period, tiles[t].count, k
				}
				if rest, ok := intervals(lo+k*period, hi, limit); ok && lo+k*period < hi {
					tiles = append(tiles, rest...)
				}
				take(tiles)
			}
		}
	}
	if best != nil {
		limit = min(limit, len(best))
	}
	if c, ok := intervals(lo, hi, limit); ok {
		take(c)
	}
	if best == nil && n <= maxPiecesPerBox {
		best = make([]subrange, n)
		for r := range best {
			best[r] = subrange{lo + int64(r), 1, 1, 1}
		}
	}
	return best, best != nil
}

// affinePiece returns access a over the product of one subrange per
// coordinate. The steps are differences of evaluations, exact because a is
// affine on the piece.
func affinePiece(a kernel.Access, cut [3]subrange) indexProgression {
	var p0 kernel.Point
	var ip indexProgression
	for i := range 3 {
		p0[i] = cut[i].first
	}
	for d := range 3 {
		ip.base[d] = a.Index[d].Eval(p0)
	}
	axis := func(i int, step, count int64) indexAxis {
		ax := indexAxis{count: count}
		if count > 1 {
			p1 := p0
			p1[i] += step
			for d := range 3 {
				ax.step[d] = a.Index[d].Eval(p1) - ip.base[d]
			}
		}
		return ax
	}
	for i := range 3 {
		ip.axes[2*i] = axis(i, cut[i].step, cut[i].count)
		ip.axes[2*i+1] = axis(i, 1, cut[i].inner)
	}
	return ip
}

// progressions returns request q's footprint over the thread boxes as byte
// progressions and the granularity to count them at. In the linear space
// these are the elements' bytes, s·(α + e0 + N0·e1 + N0·N1·e2) onwards, at
// q.Gran. In the multi-dimensional space (⌊e0/κ⌋, e1, e2), κ = ⌊G/s⌋, each
// index tuple is laid out on a line, (e0 − E0) + κ·M1·(e1 − E1) +
// κ·M1·M2·(e2 − E2) with E0 a multiple of κ and M1, M2 large enough that
// distinct granule tuples never share a granule of κ bytes; counting
// one-byte elements there at κ counts the tuples.
func (e *Engine) progressions(q Request, threads []lattice.Box) ([]progression, int64, error) {
	boxes, n, err := e.indexProgressions(q, threads)
	if err != nil || n == 0 {
		return nil, q.Gran, err
	}
	f := e.field(q)
	var weights [3]int64
	var origin [3]int64
	width, gran := f.Element, q.Gran
	switch q.Space {
	case geometry.LinearSpace:
		weights = [3]int64{f.Element, f.Element * f.Extent[0], f.Element * f.Extent[0] * f.Extent[1]}
		origin = [3]int64{-f.Offset, 0, 0}
	case geometry.MultiDimSpace:
		kappa := q.Gran / f.Element
		if kappa < 1 {
			return nil, 0, fmt.Errorf("field %q: element size %d B exceeds the granularity %d B of the multi-dimensional address space", f.Name, f.Element, q.Gran)
		}
		lo, hi := indexBounds(boxes)
		origin = [3]int64{intmath.FloorDiv(lo[0], kappa) * kappa, lo[1], lo[2]}
		cols := intmath.FloorDiv(hi[0]-origin[0], kappa) + 1
		rows := hi[1] - lo[1] + 1
		if float64(kappa)*float64(cols)*float64(rows)*float64(hi[2]-lo[2]+1) > math.MaxInt64/4 {
			return nil, 0, fmt.Errorf("field %q: the multi-dimensional footprint's index range is too large to count", f.Name)
		}
		weights = [3]int64{1, kappa * cols, kappa * cols * rows}
		width, gran = 1, kappa
	default:
		return nil, 0, fmt.Errorf("unknown address space %d", q.Space)
	}
	if err := e.budget().reserve(int64(n) * int64(unsafe.Sizeof(progression{})+6*unsafe.Sizeof(axis{}))); err != nil {
		return nil, 0, fmt.Errorf("field %q: %w", f.Name, err)
	}
	const axesPer = len(indexProgression{}.axes)
	out := make([]progression, 0, n)
	axes := make([]axis, n*axesPer) // one backing array for every progression's axes
	for _, ips := range boxes {
		for _, ip := range ips {
			k := len(out)
			p := progression{width: width, axes: axes[k*axesPer : k*axesPer : (k+1)*axesPer]}
			for d := range 3 {
				p.base += weights[d] * (ip.base[d] - origin[d])
			}
			for _, ax := range ip.axes {
				if ax.count < 2 {
					continue
				}
				var step int64
				for d := range 3 {
					step += weights[d] * ax.step[d]
				}
				p.axes = append(p.axes, axis{step: step, count: ax.count})
			}
			out = append(out, p)
		}
	}
	return out, gran, nil
}

// indexBounds returns the smallest and largest value of each index over the
// progressions of the boxes.
func indexBounds(boxes [][]indexProgression) (lo, hi [3]int64) {
	for d := range 3 {
		lo[d], hi[d] = math.MaxInt64, math.MinInt64
	}
	for _, ips := range boxes {
		for _, ip := range ips {
			for d := range 3 {
				a, b := ip.base[d], ip.base[d]
				for _, ax := range ip.axes {
					if s := ax.step[d] * (ax.count - 1); s < 0 {
						a += s
					} else {
						b += s
					}
				}
				lo[d], hi[d] = min(lo[d], a), max(hi[d], b)
			}
		}
	}
	return lo, hi
}
