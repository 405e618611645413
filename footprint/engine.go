package footprint

import (
	"encoding/binary"
	"slices"

	"github.com/polyvol/polyvol/geometry"
	"github.com/polyvol/polyvol/intmath"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/lattice"
)

// Engine counts footprints of one kernel under one launch, in plain Go.
// Like its counters' memories, it belongs to one goroutine at a time.
type Engine struct {
	Mapper *geometry.AccessMapper
	// Budget bounds the engine's counting work; a nil Budget is replaced by
	// one with the default bound on first use.
	Budget *Budget

	counters map[int64]*counter // by granularity, with their memories
	pieces   map[pieceKey][]indexProgression
}

// Request names one footprint: the loads or stores of one field at one
// granularity in one address space.
type Request struct {
	Field int // index into the kernel's fields
	Store bool
	Gran  int64 // bytes per granule
	Space geometry.AddressSpace
}

// budget returns the engine's work budget.
func (e *Engine) budget() *Budget {
	e.Budget = budgetOrDefault(e.Budget)
	return e.Budget
}

// counter returns the engine's counter of granules of gran bytes.
func (e *Engine) counter(gran int64) *counter {
	if e.counters == nil {
		e.counters = map[int64]*counter{}
	}
	c := e.counters[gran]
	if c == nil {
		c = newCounter(gran, e.budget())
		e.counters[gran] = c
	}
	return c
}

// CountGranules returns the number of granules that the threads in boxes touch for
// request q. The footprint is a union of progressions (one per access and
// residue class of its floor and modulo terms, see progressions), counted
// exactly at a cost independent of the boxes' size (counter.count).
func (e *Engine) CountGranules(q Request, threads []lattice.Box) (int64, error) {
	ps, gran, err := e.progressions(q, threads)
	if err != nil {
		return 0, err
	}
	return e.counter(gran).count(ps)
}

// CountCommonGranules returns the number of granules of request q that every
// one of the thread sets touches, by inclusion–exclusion over the counts of
// their unions: |∩ F(S_i)| = Σ_{∅≠J} (−1)^{|J|+1} |F(∪_{j∈J} S_j)|.
func (e *Engine) CountCommonGranules(q Request, threadSets ...[]lattice.Box) (int64, error) {
	var total int64
	for mask := 1; mask < 1<<len(threadSets); mask++ {
		var union []lattice.Box
		sign := int64(-1)
		for i, s := range threadSets {
			if mask&(1<<i) != 0 {
				union = append(union, s...)
				sign = -sign
			}
		}
		n, err := e.CountGranules(q, union)
		if err != nil {
			return 0, err
		}
		total += sign * n
	}
	return total, nil
}

// field returns the kernel field of request q.
func (e *Engine) field(q Request) *kernel.Field { return e.Mapper.Kernel.Fields[q.Field] }

// blockClassifier sorts the blocks of one request into classes whose
// footprints are translates of each other in the linear address space.
// Affine accesses and quasi-affine ones (floor and modulo terms) alike:
// two blocks whose first points fall in one class of the accesses'
// addresses (translationClassifier, for any shift) see every address
// shifted by one amount, the shift of the first; with lattice points of
// the same extents, and the same parts of them kept by each guard, their
// footprints are translates. Merging the classes of different phases
// whose addresses are affine on the whole block (affineShape) is a
// concern of its own, which the translation classes cannot see.
type blockClassifier struct {
	mapper *geometry.AccessMapper
	addrs  []laneAddress // each access's byte address
	// guards are the distinct boxes of the accesses that apply on part of
	// the domain only (kernel.Access.Partial).
	guards []lattice.Box
	// translations classifies the blocks' first points.
	translations *translationClassifier
	// shapes maps the affine shapes of classes (affineShape) to them.
	shapes map[string]*blockClass
}

// blockKey is the class of a block up to translation: the class of its
// origin and the description of its points (appendPointsKey).
type blockKey struct {
	class  translationClass
	points string
}

// maxClassifierPeriod bounds the common period, per coordinate, of the
// addresses a translationClassifier of blocks takes.
const maxClassifierPeriod = 1 << 30

// newBlockClassifier returns the classifier of request q; ok is false when
// there is none (the multi-dimensional space, or periods
// above maxClassifierPeriod), and blocks must be counted one by one.
func newBlockClassifier(e *Engine, q Request) (c *blockClassifier, ok bool) {
	f := e.field(q)
	if q.Space != geometry.LinearSpace {
		return nil, false
	}
	c = &blockClassifier{mapper: e.Mapper, shapes: map[string]*blockClass{}}
	period := [3]int64{1, 1, 1}
	for _, a := range f.Accesses(q.Store) {
		if g, partial, _ := a.Partial(e.Mapper.Geom.Domain); partial && !slices.Contains(c.guards, g) {
			c.guards = append(c.guards, g)
		}
		idx, err := f.ElementIndexExpr(a)
		if err == nil {
			idx, err = idx.Scale(f.Element)
		}
		if err != nil {
			return nil, false
		}
		if period, ok = widenPeriod(period, idx); !ok {
			return nil, false
		}
		c.addrs = append(c.addrs, newLaneAddress(idx))
	}
	if len(c.addrs) == 0 {
		return nil, false
	}
	c.translations = newTranslationClassifier(c.addrs, 1, period)
	return c, true
}

// classify returns the class of the block with thread box blockThreads
// and base, the first access's byte address at the block's first point;
// two blocks of a class differ by the shift between their bases. The
// block's points are its lattice points, clipped to the domain where the
// mapper clips.
func (c *blockClassifier) classify(blockThreads lattice.Box) (key blockKey, base int64) {
	points := c.mapper.PointBox(blockThreads)
	var origin kernel.Point
	for i := range 3 {
		origin[i] = blockThreads.Lo[i] * c.mapper.Geom.Fold[i]
	}
	key.class, base = c.translations.classify(origin)
	key.points = string(appendPointsKey(nil, c.guards, origin, points))
	return key, base
}

// appendPointsKey appends to key the extents of a block's lattice points
// and, for each guard box, the part of them it keeps (appendGuardKey).
func appendPointsKey(key []byte, guards []lattice.Box, origin kernel.Point, points lattice.Box) []byte {
	for i := range 3 {
		key = binary.AppendVarint(key, max(0, points.Hi[i]-points.Lo[i]))
	}
	return appendGuardKey(key, guards, origin, points)
}

// appendGuardKey appends to key, for each guard box, the part of the
// points it keeps relative to origin: blocks whose guarded accesses apply on
// translated points have translated footprints.
func appendGuardKey(key []byte, guards []lattice.Box, origin kernel.Point, points lattice.Box) []byte {
	for _, g := range guards {
		in := points.Intersect(g)
		if in.Empty() {
			key = append(key, 0)
			continue
		}
		key = append(key, 1)
		for i := range 3 {
			key = binary.AppendVarint(key, in.Lo[i]-origin[i])
			key = binary.AppendVarint(key, in.Hi[i]-origin[i])
		}
	}
	return key
}

// affineShape describes, for quasi-affine addresses, the block with thread
// box blockThreads up to translation when no floor or modulo term wraps
// inside its lattice points, so that every address is affine there
// (kernel.Expr.OnBox): the extents of the points, each address's
// coefficients, and the distances of the addresses from the first at the
// first point. Blocks of different phases with one shape have translated
// footprints too, as affine addresses do. ok is false when a term wraps,
// when the points are empty, or when the addresses are affine anyway
// (classify's key is then the shape).
func (c *blockClassifier) affineShape(blockThreads lattice.Box) (shape string, ok bool) {
	points := c.mapper.PointBox(blockThreads)
	if !c.translations.phased || points.Empty() || len(c.guards) > 0 {
		return "", false
	}
	lo, hi := kernel.Point(points.Lo), kernel.Point{points.Hi[0] - 1, points.Hi[1] - 1, points.Hi[2] - 1}
	var k []byte
	for i := range 3 {
		k = binary.AppendVarint(k, points.Hi[i]-points.Lo[i])
	}
	k, _, ok = appendAffineShape(k, c.addrs, lo, hi, lo)
	if !ok {
		return "", false
	}
	return string(k), true
}

// blockClass is one class of translated block footprints in SumOverBlocks.
type blockClass struct {
	base int64         // the representative's first access address
	ps   []progression // the representative's footprint
	gran int64
	// ranges list the representative's footprint when listed is true.
	ranges []byteRange
	listed bool
	// sizes holds the footprint sizes counted so far by base address modulo
	// the granularity, on which the size of a translate depends.
	sizes map[int64]int64
}

// SumOverBlocks returns Σ_b |F_q(b)| over the given blocks (thread boxes,
// one per block). Blocks whose footprints are translates of each other form
// a class (blockClassifier); each class lists its representative's
// footprint once as byte ranges (listRanges) and counts a member's granules
// from them in one pass (countShifted), once per base address modulo the
// granularity; a representative with too many ranges is counted as
// progressions shifted to each member. With floor or modulo terms the
// classes are by phase modulo the addresses' period, and the classes of
// blocks on which no term wraps share one representative per affine shape
// (blockClassifier.affineShape), so the work depends on the periods and
// the block shape, not on the number of blocks. Blocks with periods above
// maxClassifierPeriod are counted one by one.
func (e *Engine) SumOverBlocks(q Request, blocks []lattice.Box) (int64, error) {
	classifier, ok := newBlockClassifier(e, q)
	classes := map[blockKey]*blockClass{}
	var sum int64
	for _, b := range blocks {
		if !ok {
			n, err := e.CountGranules(q, []lattice.Box{b})
			if err != nil {
				return 0, err
			}
			sum += n
			continue
		}
		key, base := classifier.classify(b)
		c := classes[key]
		if c == nil {
			shape, affine := classifier.affineShape(b)
			if affine {
				c = classifier.shapes[shape]
			}
			if c == nil {
				ps, gran, err := e.progressions(q, []lattice.Box{b})
				if err != nil {
					return 0, err
				}
				c = &blockClass{base: base, ps: ps, gran: gran, sizes: map[int64]int64{}}
				c.ranges, c.listed = e.counter(gran).listRanges(ps)
				if affine {
					classifier.shapes[shape] = c
				}
			}
			classes[key] = c
		}
		residue := intmath.FloorMod(base, c.gran)
		n, hit := c.sizes[residue]
		if !hit && c.listed {
			n = e.counter(c.gran).countShifted(c.ranges, base-c.base)
			c.sizes[residue] = n
		} else if !hit {
			shifted := make([]progression, len(c.ps))
			for i, p := range c.ps {
				p.base += base - c.base
				shifted[i] = p
			}
			var err error
			if n, err = e.counter(c.gran).count(shifted); err != nil {
				return 0, err
			}
			c.sizes[residue] = n
		}
		sum += n
	}
	return sum, nil
}
