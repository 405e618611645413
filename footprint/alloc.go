package footprint

import (
	"fmt"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/geometry"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/lattice"
)

// AllocLines returns the L1 cycle model's allocation term counted from e's
// block footprints at the L1 allocation granularity of dev, for e's kernel
// under launch l. Without r.FusedByteRange a fused vector access counts the
// lines of its start addresses only, as the reference does
// (docs/metrics.md §3.9, §8 item 10).
func (e *Engine) AllocLines(l kernel.Launch, dev device.Memory, r WarpRules) AllocLines {
	k := e.Mapper.Kernel
	return func(fi FieldInstructions, blocks [][3]int64) (float64, error) {
		if len(blocks) == 0 {
			return 0, nil
		}
		if fi.Index >= len(k.Fields) {
			return 0, fmt.Errorf("allocation lines: field %q is not field %d of kernel %q", fi.Field.Name, fi.Index, k.Name)
		}
		eng, q := e, Request{Field: fi.Index, Store: fi.Store, Gran: dev.L1AllocBytes, Space: geometry.LinearSpace}
		if !r.FusedByteRange && fused(fi) {
			// The reference counts a fused vector access by its start address
			// only (spec §3.9, §8 item 10): count the footprint of exactly the
			// start addresses, in thread coordinates.
			var err error
			if eng, q, err = startAddressEngine(e, k, l, fi, q); err != nil {
				return 0, err
			}
		}
		g := eng.Mapper.Geom
		boxes := make([]lattice.Box, len(blocks))
		for i, b := range blocks {
			boxes[i] = g.BlockThreads(b)
		}
		sum, err := eng.SumOverBlocks(q, boxes)
		if err != nil {
			return 0, err
		}
		return float64(sum) / float64(len(blocks)), nil
	}
}

// fused reports whether any instruction of the list is a fused vector access.
func fused(fi FieldInstructions) bool {
	for _, in := range fi.Instructions {
		if in.Width != fi.Field.Element {
			return true
		}
	}
	return false
}

// startAddressEngine returns an engine over a one-field kernel whose accesses
// are those folded accesses of fi's field whose byte address is the start
// address of one of fi's instructions, in thread coordinates (fold 1).
func startAddressEngine(eng *Engine, k *kernel.Kernel, l kernel.Launch, fi FieldInstructions, q Request) (*Engine, Request, error) {
	folded, err := k.Fold(l)
	if err != nil {
		return nil, q, err
	}
	src := folded.Fields[q.Field]
	f := *src
	var keep []kernel.Access
	for _, a := range src.Accesses(q.Store) {
		idx, err := src.ElementIndexExpr(a)
		if err != nil {
			return nil, q, err
		}
		addr, err := idx.Scale(src.Element)
		if err != nil {
			return nil, q, err
		}
		for _, in := range fi.Instructions {
			if in.Address.Equal(addr) {
				keep = append(keep, a)
				break
			}
		}
	}
	if q.Store {
		f.Stores = keep
	} else {
		f.Loads = keep
	}
	one := *folded
	one.Fields = []*kernel.Field{&f}
	g := eng.Mapper.Geom
	g.Fold = kernel.NoFold
	q.Field = 0
	return &Engine{Mapper: &geometry.AccessMapper{Kernel: &one, Geom: g}}, q, nil
}
