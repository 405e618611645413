package footprint

import (
	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/geometry"
	"github.com/polyvol/polyvol/lattice"
)

// FieldBlockVolumes are one field's block-level footprints (spec §3.2, §3.3,
// §3.6), averaged over the sample blocks, in granules per block (not bytes)
// and without multiplicity.
type FieldBlockVolumes struct {
	Field      int     // index into the kernel's fields
	Store      bool    // the field's stores (true) or loads (false)
	Sectors    float64 // |U_CLFetch(f, block)| for loads, |U_CLWrite| for stores
	AllocLines float64 // |U_CLAllocation(f, block)|
	Pages      float64 // |U_512KiB(f, block)|
}

// BlockVolumes averages the block-level footprints of every field over the
// sample blocks (one thread box per block; for method Exact clip them with a
// point-guarding Mapper). Load fields come first, then store fields, in
// kernel order.
func (e *Engine) BlockVolumes(dev device.Memory, sample []lattice.Box) ([]FieldBlockVolumes, error) {
	var out []FieldBlockVolumes
	n := float64(len(sample))
	for _, store := range []bool{false, true} {
		for fi, f := range e.Mapper.Kernel.Fields {
			if len(f.Accesses(store)) == 0 {
				continue
			}
			sectorGran := dev.L1FetchBytes
			if store {
				sectorGran = dev.L1WriteBytes
			}
			v := FieldBlockVolumes{Field: fi, Store: store}
			for _, c := range []struct {
				gran int64
				dst  *float64
			}{{sectorGran, &v.Sectors}, {dev.L1AllocBytes, &v.AllocLines}, {dev.L1TLBPageBytes, &v.Pages}} {
				sum, err := e.SumOverBlocks(Request{Field: fi, Store: store, Gran: c.gran, Space: geometry.LinearSpace}, sample)
				if err != nil {
					return nil, err
				}
				*c.dst = float64(sum) / n
			}
			out = append(out, v)
		}
	}
	return out, nil
}

// WarpThreadBoxes returns the hardware warps of a block of the given shape
// (warps of warpSize consecutive linear thread ids, x fastest) as thread
// boxes relative to the block's first thread; ok is false when a warp is
// not a box, as when the block's x side neither divides nor is divided by
// the warp size.
func WarpThreadBoxes(block [3]int64, warpSize int64) (boxes []lattice.Box, ok bool) {
	threads := block[0] * block[1] * block[2]
	for first := int64(0); first < threads; first += warpSize {
		last := min(threads, first+warpSize) - 1
		at := func(tid int64) [3]int64 {
			return [3]int64{tid % block[0], tid / block[0] % block[1], tid / (block[0] * block[1])}
		}
		lo, hi := at(first), at(last)
		b := lattice.Box{Lo: lo, Hi: [3]int64{hi[0] + 1, hi[1] + 1, hi[2] + 1}}
		if b.Size() != last-first+1 {
			return nil, false
		}
		boxes = append(boxes, b)
	}
	return boxes, true
}

// WarpSectors averages over the sample blocks (thread boxes of whole
// blocks) the sum of every hardware warp's own L2→L1 footprint, in sectors
// of dev.L1FetchBytes per block and without multiplicity, for each load
// field: sectors is indexed by the kernel's field index, 0 for a field
// without loads. ok is false, and nothing is counted, when a warp of the
// block shape is not a box of threads (WarpThreadBoxes).
//
// The sample blocks of one class of translated footprints whose bases
// agree modulo the sector size (blockClass.residueGroups) have warps
// whose footprints are translates by whole sectors, warp by warp, so the
// warps of one block per group, weighted by the group's blocks, give the
// sum over every block's warps.
func (e *Engine) WarpSectors(dev device.Memory, sample []lattice.Box) (sectors []float64, ok bool, err error) {
	warps, ok := WarpThreadBoxes(e.Mapper.Geom.Block, int64(dev.WarpSize))
	if !ok || len(sample) == 0 {
		return nil, false, nil
	}
	sectors = make([]float64, len(e.Mapper.Kernel.Fields))
	for fi, f := range e.Mapper.Kernel.Fields {
		if len(f.Accesses(false)) == 0 {
			continue
		}
		q := Request{Field: fi, Gran: dev.L1FetchBytes, Space: geometry.LinearSpace}
		sum, err := e.sumOverWarps(q, sample, warps)
		if err != nil {
			return nil, false, err
		}
		sectors[fi] = float64(sum) / float64(len(sample))
	}
	return sectors, true, nil
}

// sumOverWarps returns Σ_b Σ_w |F_q(w + b)| over the blocks and the warps
// (thread boxes relative to a block's first thread): for one block of
// each residue group of the blocks' classes, weighted by the group's
// blocks (WarpSectors), or warp by warp where the blocks have no classes.
func (e *Engine) sumOverWarps(q Request, blocks, warps []lattice.Box) (int64, error) {
	var boxes []lattice.Box
	p, ok := e.partition(q, blocks)
	if !ok {
		for _, b := range blocks {
			for _, w := range warps {
				boxes = append(boxes, w.Shift(b.Lo))
			}
		}
		return e.sumOneByOne(q, boxes)
	}
	var weights []int64
	for _, c := range p.classes {
		for _, g := range c.residueGroups(q.Gran) {
			for _, w := range warps {
				boxes = append(boxes, w.Shift(blocks[g.block].Lo))
				weights = append(weights, g.weight)
			}
		}
	}
	// The warps' request is the blocks', so it has classes too.
	wp, _ := e.partitionBlocks(q, boxes, weights)
	return e.sum(q, wp)
}
