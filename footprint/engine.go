package footprint

import (
	"encoding/binary"

	"github.com/polyvol/polyvol/isl"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/sets"
)

// Engine counts footprints of one kernel under one launch. It owns no ISL
// context: Ctx belongs to the caller and, like every ISL context, to one
// goroutine at a time.
type Engine struct {
	Ctx    *isl.Ctx
	Mapper *sets.Mapper
}

// Request names one footprint: the loads or stores of one field at one
// granularity in one address space.
type Request struct {
	Field int // index into the kernel's fields
	Store bool
	Gran  int64 // bytes per granule
	Space sets.AddressSpace
}

// Footprint returns the set of granules that the threads in boxes touch for
// request q, made in scope sc.
func (e *Engine) Footprint(sc *isl.Scope, q Request, threads []sets.Box) (*isl.Set, error) {
	return e.Mapper.FootprintSet(sc, q.Field, q.Store, q.Gran, q.Space, threads)
}

// Count returns the number of granules that the threads in boxes touch for
// request q. Footprints of separable accesses are counted from their boxes
// by inclusion–exclusion (CountBoxes); all others as ISL sets.
func (e *Engine) Count(q Request, threads []sets.Box) (int64, error) {
	img, ok, err := e.Mapper.ImageBoxes(q.Field, q.Store, q.Gran, q.Space, threads)
	if err != nil {
		return 0, err
	}
	if ok {
		if n, ok, err := CountBoxes(img); ok || err != nil {
			return n, err
		}
	}
	sc := e.Ctx.NewScope()
	defer sc.Free()
	s, err := e.Footprint(sc, q, threads)
	if err != nil {
		return 0, err
	}
	return Count(s)
}

// OverlapCount returns |F(a) ∩ F(b)|: the granules of request q that both
// thread sets touch. For separable accesses the intersection is the union of
// the pairwise intersections of the two footprints' boxes
// (sets.IntersectBoxes), counted by CountBoxes; otherwise ISL intersects the sets.
func (e *Engine) OverlapCount(q Request, a, b []sets.Box) (int64, error) {
	fa, okA, err := e.Mapper.ImageBoxes(q.Field, q.Store, q.Gran, q.Space, a)
	if err != nil {
		return 0, err
	}
	fb, okB, err := e.Mapper.ImageBoxes(q.Field, q.Store, q.Gran, q.Space, b)
	if err != nil {
		return 0, err
	}
	if okA && okB {
		if n, ok, err := CountBoxes(sets.IntersectBoxes(fa, fb)); ok || err != nil {
			return n, err
		}
	}
	sc := e.Ctx.NewScope()
	defer sc.Free()
	sa, err := e.Footprint(sc, q, a)
	if err != nil {
		return 0, err
	}
	sb, err := e.Footprint(sc, q, b)
	if err != nil {
		return 0, err
	}
	both, err := sa.Intersect(sb)
	if err != nil {
		return 0, err
	}
	return Count(both)
}

// field returns the kernel field of request q.
func (e *Engine) field(q Request) *kernel.Field { return e.Mapper.Kernel.Fields[q.Field] }

// blockClassifier sorts the blocks of one request into classes whose
// footprints are translates of each other in the linear address space.
type blockClassifier struct {
	mapper *sets.Mapper
	addrs  []laneAddress // each access's byte address, affine
	// rigid is true when all accesses have the same coefficients, so that
	// the distances between their addresses are the same in every block.
	rigid bool
}

// classKey identifies a class of blockClassifier: blocks with the same
// clipped point box relative to the block's first point and the same
// distances between the accesses' addresses there.
type classKey struct {
	clip      sets.Box
	distances string // encoded distances from the first access; empty when rigid
}

// newBlockClassifier returns the classifier of request q; ok is false when
// there is none (non-affine or raw accesses, or the multi-dimensional
// space), and blocks must be counted one by one.
func newBlockClassifier(e *Engine, q Request) (c *blockClassifier, ok bool) {
	f := e.field(q)
	if q.Space != sets.LinearSpace || len(f.LoadMaps) > 0 && !q.Store || len(f.StoreMaps) > 0 && q.Store {
		return nil, false
	}
	c = &blockClassifier{mapper: e.Mapper, rigid: true}
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
		c.rigid = c.rigid && (len(c.addrs) == 0 || addr.coef == c.addrs[0].coef)
		c.addrs = append(c.addrs, addr)
	}
	return c, len(c.addrs) > 0
}

// classify returns the class of the block with thread box blockThreads and
// base, the first access's byte address at the block's first point; two
// blocks of a class differ by the shift between their bases.
func (c *blockClassifier) classify(blockThreads sets.Box) (key classKey, base int64) {
	var origin kernel.Point
	for i := range 3 {
		origin[i] = blockThreads.Lo[i] * c.mapper.Geom.Fold[i]
	}
	key.clip = c.mapper.PointBox(blockThreads).Shift([3]int64{-origin[0], -origin[1], -origin[2]})
	base = c.addrs[0].at(origin)
	if !c.rigid {
		var buf []byte
		for _, a := range c.addrs[1:] {
			buf = binary.AppendVarint(buf, a.at(origin)-base)
		}
		key.distances = string(buf)
	}
	return key, base
}

// blockClass is one class of translated block footprints in SumOverBlocks.
type blockClass struct {
	base int64 // the representative's first access address
	// ranges are the representative's address ranges at the request's
	// granularity, when listed is true.
	ranges []sets.AddressRange
	listed bool
	// sizes holds the footprint sizes counted so far by base address modulo
	// the granularity, on which the size of a translate depends.
	sizes map[int64]int64
}

// SumOverBlocks returns Σ_b |F_q(b)| over the given blocks (thread boxes,
// one per block). Blocks whose footprints are translates of each other form
// a class (blockClassifier); for each class it lists the representative's
// address ranges once and counts every member's granules from them in one
// pass over the ranges (sets.CountGranules), and members at the same base
// address modulo the granularity share one count. Blocks without ranges
// (accesses with floor or modulo terms) are counted by evaluating their
// accesses (enumeratedCount) when they are small enough, else with ISL.
func (e *Engine) SumOverBlocks(q Request, blocks []sets.Box) (int64, error) {
	classifier, ok := newBlockClassifier(e, q)
	classes := map[classKey]*blockClass{}
	var sum int64
	for _, b := range blocks {
		if !ok {
			n, err := e.countBlock(q, b)
			if err != nil {
				return 0, err
			}
			sum += n
			continue
		}
		key, base := classifier.classify(b)
		c := classes[key]
		if c == nil {
			c = &blockClass{base: base, sizes: map[int64]int64{}}
			c.ranges, c.listed = e.Mapper.AddressRanges(q.Field, q.Store, q.Gran, []sets.Box{b})
			classes[key] = c
		}
		residue := floorMod(base, q.Gran)
		n, hit := c.sizes[residue]
		if !hit {
			if c.listed {
				n = sets.CountGranules(c.ranges, q.Gran, base-c.base)
			} else {
				var err error
				if n, err = e.countBlock(q, b); err != nil {
					return 0, err
				}
			}
			c.sizes[residue] = n
		}
		sum += n
	}
	return sum, nil
}

// countBlock returns |F_q| of one block's threads: by enumeratedCount when it
// applies, else by Count.
func (e *Engine) countBlock(q Request, threads sets.Box) (int64, error) {
	if n, ok := e.enumeratedCount(q, threads); ok {
		return n, nil
	}
	return e.Count(q, []sets.Box{threads})
}

// maxEnumeratedAccesses bounds the accesses enumeratedCount evaluates.
const maxEnumeratedAccesses = 1 << 18

// enumeratedCount counts the linear granules of request q that the threads
// in one box touch by evaluating every access at every lattice point of the
// threads (inside the domain when the mapper guards points) and counting the
// distinct granules. For a block of threads with floor or modulo index terms
// this takes microseconds where ISL's image of the access map takes
// milliseconds; a test checks that both agree. ok is false for raw ISL maps,
// the multi-dimensional space and boxes of more than maxEnumeratedAccesses
// accesses.
func (e *Engine) enumeratedCount(q Request, threads sets.Box) (n int64, ok bool) {
	f, m := e.field(q), e.Mapper
	accesses := f.Accesses(q.Store)
	if q.Space != sets.LinearSpace || len(f.LoadMaps) > 0 && !q.Store || len(f.StoreMaps) > 0 && q.Store {
		return 0, false
	}
	fold, dom := m.Geom.Fold, m.Geom.Domain
	size := threads.Size()
	if size > maxEnumeratedAccesses || size*fold[0]*fold[1]*fold[2]*int64(len(accesses)) > maxEnumeratedAccesses {
		return 0, false
	}
	granules := make([]int64, 0, size*fold[0]*fold[1]*fold[2]*int64(len(accesses)))
	for t0 := threads.Lo[0]; t0 < threads.Hi[0]; t0++ {
		for t1 := threads.Lo[1]; t1 < threads.Hi[1]; t1++ {
			for t2 := threads.Lo[2]; t2 < threads.Hi[2]; t2++ {
				for j0 := range fold[0] {
					for j1 := range fold[1] {
						for j2 := range fold[2] {
							p := kernel.Point{fold[0]*t0 + j0, fold[1]*t1 + j1, fold[2]*t2 + j2}
							if m.PointGuard && (p[0] >= dom[0] || p[1] >= dom[1] || p[2] >= dom[2]) {
								continue
							}
							for _, a := range accesses {
								granules = append(granules, floorDiv(f.ByteAddress(a, p), q.Gran))
							}
						}
					}
				}
			}
		}
	}
	return int64(len(distinct(granules))), true
}
