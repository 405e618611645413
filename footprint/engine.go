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
// the pairwise intersections of the two footprints' boxes, counted by
// CountBoxes; otherwise ISL intersects the sets.
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
		var both []sets.Box
		for _, x := range fa {
			for _, y := range fb {
				if c := x.Intersect(y); !c.Empty() {
					both = append(both, c)
				}
			}
		}
		if n, ok, err := CountBoxes(sets.MergeBoxes(both)); ok || err != nil {
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

// classKey identifies blocks whose footprints for a request are translates
// of each other in the linear address space, so that they have the same
// size: the same clipped point box relative to the block's first point, the
// same first access address modulo the granularity, and the same distances
// between the accesses. ok is false when no such key exists (non-affine or
// raw accesses, or the multi-dimensional space); such blocks are counted one
// by one.
func (e *Engine) classKey(q Request, blockThreads sets.Box) (string, bool) {
	if q.Space != sets.LinearSpace {
		return "", false
	}
	f := e.field(q)
	if len(f.LoadMaps) > 0 && !q.Store || len(f.StoreMaps) > 0 && q.Store {
		return "", false
	}
	m := e.Mapper
	var origin kernel.Point
	for i := range 3 {
		origin[i] = blockThreads.Lo[i] * m.Geom.Fold[i]
	}
	p := m.PointBox(blockThreads)
	key := make([]byte, 0, 64)
	for i := range 3 {
		key = binary.AppendVarint(key, p.Lo[i]-origin[i])
		key = binary.AppendVarint(key, p.Hi[i]-origin[i])
	}
	var first int64
	for i, a := range f.Accesses(q.Store) {
		for d := range 3 {
			if _, _, lin := a.Index[d].Linear(); !lin {
				return "", false
			}
		}
		addr := f.ByteAddress(a, origin)
		if i == 0 {
			first = addr
			key = binary.AppendVarint(key, addr-floorDiv(addr, q.Gran)*q.Gran)
			continue
		}
		key = binary.AppendVarint(key, addr-first)
	}
	return string(key), true
}

// SumOverBlocks returns Σ_b |F_q(b)| over the given blocks (thread boxes,
// one per block), counting one representative per class of translated
// footprints.
func (e *Engine) SumOverBlocks(q Request, blocks []sets.Box) (int64, error) {
	cache := map[string]int64{}
	var sum int64
	for _, b := range blocks {
		key, ok := e.classKey(q, b)
		if ok {
			if n, hit := cache[key]; hit {
				sum += n
				continue
			}
		}
		n, err := e.Count(q, []sets.Box{b})
		if err != nil {
			return 0, err
		}
		if ok {
			cache[key] = n
		}
		sum += n
	}
	return sum, nil
}
