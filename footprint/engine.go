package footprint

import (
	"github.com/polyvol/polyvol/intmath"
	"github.com/polyvol/polyvol/isl"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/lattice"
	"github.com/polyvol/polyvol/sets"
)

// Engine counts footprints of one kernel under one launch. It owns no ISL
// context: Ctx belongs to the caller and, like every ISL context, to one
// goroutine at a time, and so does the Engine.
type Engine struct {
	Ctx    *isl.Ctx
	Mapper *sets.AccessMapper
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
	Space sets.AddressSpace
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

// Footprint returns the set of granules that the threads in boxes touch for
// request q, made in scope sc.
func (e *Engine) Footprint(sc *isl.Scope, q Request, threads []lattice.Box) (*isl.Set, error) {
	return e.Mapper.Footprint(sc, q.Field, q.Store, q.Gran, q.Space, threads)
}

// Raw reports whether request q's accesses include raw ISL maps, which only
// ISL can count.
func (e *Engine) Raw(q Request) bool {
	f := e.field(q)
	return q.Store && len(f.StoreMaps) > 0 || !q.Store && len(f.LoadMaps) > 0
}

// CountGranules returns the number of granules that the threads in boxes touch for
// request q. The footprint is a union of progressions (one per access and
// residue class of its floor and modulo terms, see progressions), counted
// exactly at a cost independent of the boxes' size (counter.count).
// Raw ISL maps are counted as ISL sets.
func (e *Engine) CountGranules(q Request, threads []lattice.Box) (int64, error) {
	if e.Raw(q) {
		sc := e.Ctx.NewScope()
		defer sc.Free()
		s, err := e.Footprint(sc, q, threads)
		if err != nil {
			return 0, err
		}
		return CountPoints(s)
	}
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
type blockClassifier struct {
	mapper *sets.AccessMapper
	addrs  []laneAddress // each access's byte address, affine
}

// newBlockClassifier returns the classifier of request q; ok is false when
// there is none (non-affine or raw accesses, or the multi-dimensional
// space), and blocks must be counted one by one.
func newBlockClassifier(e *Engine, q Request) (c *blockClassifier, ok bool) {
	f := e.field(q)
	if q.Space != sets.LinearSpace || len(f.LoadMaps) > 0 && !q.Store || len(f.StoreMaps) > 0 && q.Store {
		return nil, false
	}
	c = &blockClassifier{mapper: e.Mapper}
	for _, a := range f.Accesses(q.Store) {
		idx, err := f.ElementIndexExpr(a)
		if err == nil {
			idx, err = idx.Scale(f.Element)
		}
		if err != nil {
			return nil, false
		}
		addr := newLaneAddress(idx)
		if !addr.affine {
			return nil, false
		}
		c.addrs = append(c.addrs, addr)
	}
	return c, len(c.addrs) > 0
}

// classify returns the translation key of the block with thread box
// blockThreads (translationKey) and base, the first access's byte address
// at the block's first point; two blocks of a class differ by the shift
// between their bases.
func (c *blockClassifier) classify(blockThreads lattice.Box) (key string, base int64) {
	points := c.mapper.PointBox(blockThreads)
	var origin kernel.Point
	for i := range 3 {
		origin[i] = blockThreads.Lo[i] * c.mapper.Geom.Fold[i]
	}
	k, base := appendTranslationKey(nil, c.addrs, origin, points)
	return string(k), base
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
// progressions shifted to each member. Other blocks (floor
// or modulo terms, raw maps) are counted one by one.
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
			ps, gran, err := e.progressions(q, []lattice.Box{b})
			if err != nil {
				return 0, err
			}
			c = &blockClass{base: base, ps: ps, gran: gran, sizes: map[int64]int64{}}
			c.ranges, c.listed = e.counter(gran).listRanges(ps)
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
