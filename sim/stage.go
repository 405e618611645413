package sim

import (
	"fmt"
	"slices"

	"github.com/polyvol/polyvol/kernel"
)

// Shared-memory staging (kernel.Staging). Every block first copies the tile
// of each staged field: the program's first instructions are the steps of
// the copy loop, each one warp load of global memory of the lanes whose
// element lies in the block's tile clipped to the domain and one shared
// store of the lanes whose element lies in the full tile. The field's loads
// then read shared memory: they touch no cache, and only their bank
// wavefronts are counted.

// instrKind is what a warp instruction does.
type instrKind uint8

// The kinds of instructions.
const (
	// globalAccess loads or stores global memory at the access's address.
	globalAccess instrKind = iota
	// copyStep is one step of the copy of a staged field's tile: a load
	// from global memory and a store to shared memory.
	copyStep
	// sharedLoad is a load of a staged field, served by the block's
	// shared tile.
	sharedLoad
	// sharedStore writes the state's next value at a point of a time step
	// into the second shared buffer (steps.go).
	sharedStore
)

// stage is the shared tile of a staged field under the launch.
type stage struct {
	tile    kernel.Tile
	mapping kernel.CopyMapping
	// elements is the full tile's element count.
	elements int64
	// steps is the iterations of a block's copy loop; under CopyBlock
	// perDim holds the iterations along each tile dimension (x fastest).
	steps  int64
	perDim [3]int64
}

// newStages returns the stage of every field of k staged under l, nil for
// the others.
func newStages(k *kernel.Kernel, l kernel.Launch) ([]*stage, error) {
	stages := make([]*stage, len(k.Fields))
	threads := l.ThreadsPerBlock()
	for fi, f := range k.Fields {
		if !l.Staged(f) {
			continue
		}
		t, err := kernel.TileOf(f, l)
		if err != nil {
			return nil, fmt.Errorf("sim: %w", err)
		}
		s := &stage{tile: t, mapping: f.Stage.Copy, elements: t.Size[0] * t.Size[1] * t.Size[2]}
		switch s.mapping {
		case kernel.CopyRows:
			s.steps = (s.elements + threads - 1) / threads
		case kernel.CopyBlock:
			s.steps = 1
			for i := range 3 {
				s.perDim[i] = (t.Size[i] + l.Block[i] - 1) / l.Block[i]
				s.steps *= s.perDim[i]
			}
		default:
			return nil, fmt.Errorf("sim: field %q: unknown copy mapping %v", f.Name, s.mapping)
		}
		stages[fi] = s
	}
	return stages, nil
}

// element returns the tile element, relative to the tile's first, that
// the thread with linear id tid (thread index thread in its block of
// threads threads of shape block) copies at step s; false where it copies
// none.
func (s *stage) element(step, tid int64, thread, block [3]int64, threads int64) ([3]int64, bool) {
	var e [3]int64
	size := s.tile.Size
	if s.mapping == kernel.CopyRows {
		n := step*threads + tid
		e = [3]int64{n % size[0], n / size[0] % size[1], n / (size[0] * size[1])}
		return e, n < s.elements
	}
	at := [3]int64{step % s.perDim[0], step / s.perDim[0] % s.perDim[1], step / (s.perDim[0] * s.perDim[1])}
	for i := range 3 {
		e[i] = thread[i] + at[i]*block[i]
		if e[i] >= size[i] {
			return e, false
		}
	}
	return e, true
}

// latticeOrigin returns the first lattice point of the block whose first
// thread is at o.
func (tr *tracer) latticeOrigin(o [3]int64) kernel.Point {
	var p kernel.Point
	for i := range 3 {
		p[i] = tr.launch.Fold[i] * o[i]
	}
	return p
}

// copyLanes appends to global the global start addresses of the lanes of
// warp w of the block at origin o that load an element of the tile clipped
// to the domain at copy step in, and to shared the shared byte offsets of
// the lanes that store an element of the full tile.
func (tr *tracer) copyLanes(global []uint64, shared []int64, o [3]int64, w int, in *instruction) ([]uint64, []int64) {
	s := tr.stages[in.field]
	f := tr.k.Fields[in.field]
	lo, hi := s.tile.Box(tr.latticeOrigin(o), tr.launch.Domain, true)
	first := w * tr.warpSize
	last := min(first+tr.warpSize, tr.threads)
	for tid := first; tid < last; tid++ {
		e, ok := s.element(in.step, int64(tid), tr.lanes[tid], tr.launch.Block, int64(tr.threads))
		if !ok {
			continue
		}
		shared = append(shared, f.Element*s.tile.Shared(e, [3]int64{}))
		inside := true
		for j := range 3 {
			e[j] += lo[j]
			inside = inside && e[j] < hi[j]
		}
		if inside {
			global = append(global, uint64(regionBase(in.region)+f.Element*f.ElementAt(e)))
		}
	}
	return global, shared
}

// sharedAddresses appends to buf the shared byte offsets that the active
// lanes of warp w of the block at origin o read with the shared load in:
// the element the access reads at the lane's point, relative to the
// block's tile.
func (tr *tracer) sharedAddresses(buf []int64, o [3]int64, w int, in *instruction) []int64 {
	s := tr.stages[in.field]
	f := tr.k.Fields[in.field]
	lo, _ := s.tile.Box(tr.latticeOrigin(o), tr.launch.Domain, false)
	first := w * tr.warpSize
	last := min(first+tr.warpSize, tr.threads)
	for _, lane := range tr.lanes[first:last] {
		if !tr.covers(o, lane, in) {
			continue
		}
		p, _ := tr.point(o, lane, in.point, in.span)
		var e [3]int64
		if in.kind == sharedStore {
			e = s.tile.PointIndex(p)
		} else {
			for j, x := range in.access.Index {
				e[j] = x.Eval(p)
			}
		}
		buf = append(buf, f.Element*s.tile.Shared(e, lo))
	}
	return buf
}

// bankCounter counts the shared-memory wavefronts of warp instructions on
// banks banks of bankBytes bytes each.
type bankCounter struct {
	banks, bankBytes int64
	units            []int64 // scratch: distinct units of a group of lanes
	perBank          []int64 // scratch: distinct units per bank
}

// wavefronts returns the wavefronts of one warp instruction whose active
// lanes access width bytes at the shared byte offsets lanes (non-negative),
// in lane order. A unit is max(width, bankBytes) bytes, and one wavefront serves
// banks·bankBytes/unit banks of one unit each: the lanes are served in
// consecutive groups of banks·bankBytes/width lanes (at least one), and a
// group takes as many wavefronts as the most distinct units that its lanes
// address in one bank (unit u lies in bank u mod banks·bankBytes/unit). A
// lane addresses the units of its bytes' 4-byte words.
func (c *bankCounter) wavefronts(lanes []int64, width int64) int64 {
	unit := max(width, c.bankBytes)
	nb := max(1, c.banks*c.bankBytes/unit)
	group := int(max(1, c.banks*c.bankBytes/width))
	if int64(len(c.perBank)) < nb {
		c.perBank = make([]int64, nb)
	}
	var total int64
	for g := 0; g < len(lanes); g += group {
		c.units = c.units[:0]
		for _, a := range lanes[g:min(g+group, len(lanes))] {
			for off := int64(0); off == 0 || off+4 <= width; off += 4 {
				c.units = append(c.units, (a+off)/unit)
			}
		}
		slices.Sort(c.units)
		c.units = slices.Compact(c.units)
		clear(c.perBank[:nb])
		var worst int64
		for _, u := range c.units {
			c.perBank[u%nb]++
			worst = max(worst, c.perBank[u%nb])
		}
		total += worst
	}
	return total
}
