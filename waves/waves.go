// Package waves places the blocks that run together (a wave) and the
// earlier blocks whose data they may reuse (the x, y and z layer sets), and
// counts the wave-level DRAM volumes of Ernst et al. 2023 (docs/references.md): the new footprint
// of a wave, the footprint of each layer set, and their overlaps, per field.
package waves

import (
	"fmt"
	"math"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/footprint"
	"github.com/polyvol/polyvol/geometry"
	"github.com/polyvol/polyvol/lattice"
)

// Shape is the thread geometry of one representative wave and its layer
// sets, as unions of thread boxes (already clipped to the valid domain where
// the method clips thread sets).
type Shape struct {
	BlocksPerWave int64         // W
	Current       []lattice.Box // the wave's threads
	X, Y, Z       []lattice.Box // earlier threads one reuse distance away in x, y and z
	// Blocks are the wave's blocks, one thread box each (unclipped): the
	// sample for block-level metrics of method Exact.
	Blocks []lattice.Box
	// ValidThreads is n_cur, the valid threads of Current (reference), or
	// ValidPoints the valid lattice points covered by the wave (exact).
	ValidThreads, ValidPoints int64
}

// ReferenceShape returns the reference implementation's wave (spec
// §4.3–4.5): a ceiling-rule box ŵ of blocks at the high-x, high-y corner of
// the middle z layer, with shiftY, and the layer sets T_x, T_y, T_z, all
// clipped to the valid domain V = [0, D) in thread coordinates.
func ReferenceShape(g geometry.Geometry, blocksPerWave int64) Shape {
	W := float64(blocksPerWave)
	b, D, gr := g.Block, g.Domain, g.Grid
	w0 := min(gr[0], blocksPerWave)
	w1 := min(gr[1], int64(math.Ceil(W/(float64(D[0])/float64(b[0])))))
	w2 := min(gr[2], int64(math.Ceil(W/(float64(D[0])*float64(D[1])/float64(b[0]*b[1])))))
	var sy int64
	if gr[1] > 1 && float64(D[1]-(gr[1]-w1)*b[1])/float64(b[1]) < 0.1 {
		sy = 1
	}
	zc := gr[2] / 2
	V := g.ReferenceValidBox()
	box := func(x0, x1, y0, y1, z0, z1 int64) []lattice.Box {
		t := g.ThreadBox(lattice.Box{Lo: [3]int64{x0, y0, z0}, Hi: [3]int64{x1, y1, z1}}).Intersect(V)
		if t.Empty() {
			return nil
		}
		return []lattice.Box{t}
	}
	s := Shape{BlocksPerWave: blocksPerWave}
	s.Current = box(gr[0]-w0, gr[0], gr[1]-w1-sy, gr[1]-sy, zc, zc+w2)
	s.X = box(gr[0]-2*w0, gr[0]-w0, gr[1]-w1-sy, gr[1]-sy, zc, zc+w2)
	s.Y = box(0, gr[0], max(0, gr[1]-w1-1-sy), gr[1]-w1-sy, zc, zc+w2)
	s.Z = box(0, gr[0], 0, gr[1], zc-1, zc)
	for _, t := range s.Current {
		s.ValidThreads += t.Size()
	}
	return s
}

// ExactShape returns the exact wave: W consecutive blocks in launch order
// [a, a+W) centred on the middle of the middle block layer. Its layer sets hold
// the blocks launched within one reuse distance before the wave: T_x the
// blocks of the wave's first row before it, at most W of them (the
// reference's ŵ0 blocks); T_y the g0 blocks before it (one block row); T_z
// the g0·g1 blocks before it (one block layer). Each set contains every
// earlier use of data the wave reuses at that distance, and its footprint is
// the volume that passes through the cache between the two uses, which is
// what competes for capacity (a stack distance). Thread sets are not
// clipped: the exact Mapper clips every lattice point (PointGuard).
func ExactShape(g geometry.Geometry, blocksPerWave int64) Shape {
	nb := g.Blocks()
	W := min(blocksPerWave, nb)
	// Centre the wave on the middle of the middle block layer, so that a
	// wave smaller than a layer lies inside one layer and away from the
	// domain's y and z boundaries.
	layer := g.Grid[0] * g.Grid[1]
	a := max(0, min(nb-W, (g.Grid[2]/2)*layer+layer/2-W/2))
	row := a - a%g.Grid[0]
	threads := func(lo, hi int64) []lattice.Box {
		blocks := g.BlockRange(max(lo, 0), hi)
		out := make([]lattice.Box, len(blocks))
		for i, bb := range blocks {
			out[i] = g.ThreadBox(bb)
		}
		return out
	}
	s := Shape{BlocksPerWave: W}
	s.Current = threads(a, a+W)
	s.X = threads(max(row, a-W), a)
	if g.Grid[1] > 1 { // a grid of one block row has no row reuse
		s.Y = threads(a-g.Grid[0], a)
	}
	if g.Grid[2] > 1 { // and a grid of one block layer no layer reuse
		s.Z = threads(a-layer, a)
	}
	s.Blocks = make([]lattice.Box, 0, W)
	for id := a; id < a+W; id++ {
		s.Blocks = append(s.Blocks, g.BlockThreads(g.BlockIndex(id)))
	}
	dom := g.ThreadDomain()
	for _, t := range s.Current {
		s.ValidThreads += t.Intersect(dom).Size()
	}
	return s
}

// FieldVolumes are one field's wave-level counts in granules (not bytes),
// without multiplicity.
type FieldVolumes struct {
	Field      int
	Store      bool
	Gran       int64 // bytes per granule
	New        int64 // |A0|, the wave's footprint
	OldX, OldY int64 // |X|, |Y|: layer-set footprints
	OldZ       int64 // |Z|
	// OldXY is |X ∪ Y|, the footprint of the x and y layer sets together:
	// the y layer's reuse distance when it includes the x layer. It is
	// below OldX + OldY by what the two sets share; the exact shape's
	// T_y holds every block of its T_x, so there OldXY = OldY.
	OldXY         int64
	OvX, OvY, OvZ int64 // overlaps credited in the order x, y, z (the paper's counting sequence)
	Multiplicity  int64
}

// CountVolumes runs the paper's counting sequence for every field's loads and
// stores over the shape: New, then the x, y and z overlaps, each layer
// crediting only what the previous ones did not. gran gives the granularity
// of a field's loads or stores.
func CountVolumes(e *footprint.Engine, shape Shape, space geometry.AddressSpace, gran func(store bool) int64) ([]FieldVolumes, error) {
	var out []FieldVolumes
	for _, store := range []bool{false, true} {
		for fi, f := range e.Mapper.Kernel.Fields {
			if len(f.Accesses(store)) == 0 {
				continue
			}
			v, err := countFieldUnions(e, footprint.Request{Field: fi, Store: store, Gran: gran(store), Space: space}, shape)
			if err != nil {
				return nil, fmt.Errorf("wave volumes of field %q: %w", f.Name, err)
			}
			v.Multiplicity = f.Multiplicity
			out = append(out, v)
		}
	}
	return out, nil
}

// countFieldUnions runs the counting sequence from counts of unions of
// footprints, crediting the overlaps in the order x, y, z. With W a union
// of layers, |(A ∖ W) ∩ L| = |A ∪ W| + |W ∪ L| − |W| − |A ∪ W ∪ L|, so
// Ov_x = |A| + |X| − |A ∪ X| (W empty), Ov_y takes W = X and Ov_z
// W = X ∪ Y: nine counts of unions in all, which equal the sequence's
// |A ∩ X|, |(A ∖ X) ∩ Y| and |(A ∖ X ∖ Y) ∩ Z|; OldXY is the count of
// X ∪ Y among them.
func countFieldUnions(e *footprint.Engine, q footprint.Request, shape Shape) (FieldVolumes, error) {
	v := FieldVolumes{Field: q.Field, Store: q.Store, Gran: q.Gran}
	threads := [4][]lattice.Box{shape.Current, shape.X, shape.Y, shape.Z}
	const a, x, y, z = 1, 2, 4, 8 // the sets A, X, Y, Z as bits
	unions := map[int]int64{0: 0}
	var err error
	for _, mask := range []int{a, x, y, z, a | x, x | y, a | x | y, x | y | z, a | x | y | z} {
		var boxes []lattice.Box
		for i, t := range threads {
			if mask&(1<<i) != 0 {
				boxes = append(boxes, t...)
			}
		}
		if unions[mask], err = e.CountGranules(q, boxes); err != nil {
			return v, err
		}
	}
	// credited returns |(A ∖ W) ∩ L| for the layers W and L (bit masks).
	credited := func(w, l int) int64 {
		return unions[a|w] + unions[w|l] - unions[w] - unions[a|w|l]
	}
	v.New = unions[a]
	v.OldX, v.OldY, v.OldZ, v.OldXY = unions[x], unions[y], unions[z], unions[x|y]
	v.OvX, v.OvY, v.OvZ = credited(0, x), credited(x, y), credited(x|y, z)
	return v, nil
}

// ConcurrentGrid returns the reference's floor-rule concurrent grid w^c of
// the reference implementation's concurrent grid, in blocks.
func ConcurrentGrid(grid [3]int64, blocksPerWave int64) [3]int64 {
	W := max(1, blocksPerWave)
	return [3]int64{
		min(grid[0], W),
		min(grid[1], max(1, W/grid[0])),
		min(grid[2], max(1, W/(grid[0]*grid[1]))),
	}
}

// TLBPages returns Σ over loads and stores of m_f·|U_page(f, threads)|, the
// distinct pages of the given threads (the paper's TLB pages).
func TLBPages(e *footprint.Engine, threads []lattice.Box, page int64) (int64, error) {
	var total int64
	for _, store := range []bool{false, true} {
		for fi, f := range e.Mapper.Kernel.Fields {
			if len(f.Accesses(store)) == 0 {
				continue
			}
			n, err := e.CountGranules(footprint.Request{Field: fi, Store: store, Gran: page, Space: geometry.LinearSpace}, threads)
			if err != nil {
				return 0, err
			}
			total += n * f.Multiplicity
		}
	}
	return total, nil
}

// OccupancyRule selects how the blocks per SM of a launch are found.
type OccupancyRule int

// The occupancy rules.
const (
	// OccupancyCalculator is the device's occupancy calculator: registers,
	// shared memory, warps and blocks per SM (device.Device.Occupancy).
	OccupancyCalculator OccupancyRule = iota
	// RegisterOnly is the reference's rule, registers alone (device.ReferenceBlocksPerSM).
	RegisterOnly
)

// BlocksPerSM returns the blocks per SM of a launch by the given rule, with
// the limiting resource ("" for RegisterOnly).
func BlocksPerSM(rule OccupancyRule, dev *device.Device, threadsPerBlock int64, registers int, shared int64) (int64, string, error) {
	if rule == RegisterOnly {
		return int64(device.ReferenceBlocksPerSM(int(threadsPerBlock), registers)), "", nil
	}
	occ, err := dev.Occupancy(int(threadsPerBlock), registers, shared)
	if err != nil {
		return 0, "", err
	}
	return int64(occ.BlocksPerSM), occ.Limiter.String(), nil
}
