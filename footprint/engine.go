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
	if e.Budget == nil {
		e.Budget = &Budget{}
	}
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
// every address a_j is affine on each residue class of points modulo its
// period (kernel.Expr.Period), so two point boxes of the same extents
// whose first points agree modulo the common period L, and whose
// addresses lie the same distances from the first one's there, see every
// address shifted by one amount, the shift of the first (a_j(o′+q) −
// a_j(o+q) = a_j(o′) − a_j(o) for o′ ≡ o mod L).
type blockClassifier struct {
	mapper *geometry.AccessMapper
	addrs  []laneAddress // each access's byte address
	// guards are the distinct boxes of the accesses that apply on part of
	// the domain only (kernel.Access.Partial).
	guards []lattice.Box
	// period is the least common multiple of the addresses' periods per
	// coordinate, 1 where every address is affine in it.
	period [3]int64
	// rigid is true when every address drifts like the first over a
	// period, a_j(p + L_i·u_i) − a_j(p) = a_0(p + L_i·u_i) − a_0(p): the
	// distances between the addresses at a box's first point then depend
	// only on its phase modulo the period and are left out of the key.
	rigid bool
	// affine is true when every address is affine.
	affine bool
	// keyer tells the distances of affine addresses apart by a few
	// products (translationKeyer).
	keyer translationKeyer
	// shapes maps the affine shapes of classes (affineShape) to them.
	shapes map[string]*blockClass
}

// maxClassifierPeriod bounds the common period, per coordinate, of the
// addresses a blockClassifier takes.
const maxClassifierPeriod = 1 << 30

// newBlockClassifier returns the classifier of request q; ok is false when
// there is none (the multi-dimensional space, or periods
// above maxClassifierPeriod), and blocks must be counted one by one.
func newBlockClassifier(e *Engine, q Request) (c *blockClassifier, ok bool) {
	f := e.field(q)
	if q.Space != geometry.LinearSpace {
		return nil, false
	}
	c = &blockClassifier{mapper: e.Mapper, period: [3]int64{1, 1, 1}, rigid: true, affine: true, shapes: map[string]*blockClass{}}
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
		addr := newLaneAddress(idx)
		if c.period, ok = widenPeriod(c.period, idx); !ok {
			return nil, false
		}
		c.affine = c.affine && addr.affine
		c.addrs = append(c.addrs, addr)
	}
	if len(c.addrs) == 0 {
		return nil, false
	}
	// The drift of each address over one period in each coordinate; by
	// the period's property it is the same from every point, so from 0.
	var zero kernel.Point
	base := make([]int64, len(c.addrs))
	for j := range c.addrs {
		base[j] = c.addrs[j].at(zero)
	}
	for i := range 3 {
		var step kernel.Point
		step[i] = c.period[i]
		for j := range c.addrs {
			c.rigid = c.rigid && c.addrs[j].at(step)-base[j] == c.addrs[0].at(step)-base[0]
		}
	}
	c.keyer = newTranslationKeyer(c.addrs)
	return c, true
}

// classify returns the translation key of the block with thread box
// blockThreads and base, the first access's byte address at the block's
// first point; two blocks of a class differ by the shift between their
// bases. The key holds the extents of the block's lattice points (clipped
// to the domain where the mapper clips), the phase of its first point
// modulo the period, and, unless the classifier is rigid, the distances of
// the addresses from the first there.
func (c *blockClassifier) classify(blockThreads lattice.Box) (key string, base int64) {
	points := c.mapper.PointBox(blockThreads)
	var origin kernel.Point
	for i := range 3 {
		origin[i] = blockThreads.Lo[i] * c.mapper.Geom.Fold[i]
	}
	var k []byte
	if c.rigid {
		k, base = appendTranslationKey(nil, c.addrs[:1], origin, points)
	} else {
		k, base = c.keyer.appendKey(nil, origin, points)
	}
	k = appendGuardKey(k, c.guards, origin, points)
	if !c.affine {
		for i := range 3 {
			k = binary.AppendVarint(k, intmath.FloorMod(origin[i], c.period[i]))
		}
	}
	return string(k), base
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
	if c.affine || points.Empty() || len(c.guards) > 0 {
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
	classes := map[string]*blockClass{}
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
