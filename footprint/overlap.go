package footprint

import (
	"github.com/polyvol/polyvol/geometry"
	"github.com/polyvol/polyvol/lattice"
)

// PreviousBlocks returns the reference's predecessors of the current block
// (spec §3.5): the centre block c_i = ⌊g_i/2⌋ with linear id ℓ, and
// p_k = max(0, ℓ − stride·k) for k = 1, 2, …, stopping after limit
// predecessors or right after the first p_k = 0. The reference uses stride
// 108 (the A100's SM count, hard-wired) and limit 40.
func PreviousBlocks(g geometry.Geometry, stride, limit int64) (current [3]int64, preds [][3]int64) {
	current = [3]int64{g.Grid[0] / 2, g.Grid[1] / 2, g.Grid[2] / 2}
	id := g.LinearBlockID(current)
	if id == 0 {
		return current, nil
	}
	for k := int64(1); k <= limit; k++ {
		p := max(0, id-stride*k)
		preds = append(preds, g.BlockIndex(p))
		if p == 0 {
			break
		}
	}
	return current, preds
}

// PreviousBlockOverlap returns, for request q, the average over the
// predecessors of |C ∩ F(p_k)|, the granules the current block shares with
// each predecessor (spec §3.5; the average per predecessor, not the overlap
// with their union, §8 item 12). Predecessors whose address range cannot
// meet the current block's are skipped without building their sets.
func (e *Engine) PreviousBlockOverlap(q Request, current [3]int64, preds [][3]int64) (float64, error) {
	if len(preds) == 0 {
		return 0, nil
	}
	g := e.Mapper.Geom
	cur := []lattice.Box{g.BlockThreads(current)}
	curLo, curHi, bounded := e.addressRange(q, cur[0])
	var sum int64
	curCount := int64(-1) // |F(current)|, counted once
	for _, p := range preds {
		pb := g.BlockThreads(p)
		if bounded {
			lo, hi, ok := e.addressRange(q, pb)
			if ok && (hi < curLo || lo > curHi) {
				continue
			}
		}
		if curCount < 0 {
			var err error
			if curCount, err = e.CountGranules(q, cur); err != nil {
				return 0, err
			}
		}
		// |C ∩ F(p)| = |C| + |F(p)| − |C ∪ F(p)|
		predCount, err := e.CountGranules(q, []lattice.Box{pb})
		if err != nil {
			return 0, err
		}
		both, err := e.CountGranules(q, []lattice.Box{cur[0], pb})
		if err != nil {
			return 0, err
		}
		sum += curCount + predCount - both
	}
	return float64(sum) / float64(len(preds)), nil
}

// addressRange bounds the linear byte addresses that the threads of box t
// touch for request q; ok is false when no bound is available.
func (e *Engine) addressRange(q Request, t lattice.Box) (lo, hi int64, ok bool) {
	f := e.field(q)
	p := e.Mapper.PointBox(t)
	if p.Empty() {
		return 0, -1, true
	}
	first := true
	for _, a := range f.Accesses(q.Store) {
		l, h, bounded := f.AddressBounds(a, p.Lo, [3]int64{p.Hi[0] - 1, p.Hi[1] - 1, p.Hi[2] - 1})
		if !bounded {
			return 0, 0, false
		}
		if first || l < lo {
			lo = l
		}
		if first || h > hi {
			hi = h
		}
		first = false
	}
	return lo, hi + f.Element, !first
}
