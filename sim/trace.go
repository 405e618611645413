package sim

import (
	"fmt"
	"math/bits"
	"slices"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/kernel"
)

// Address regions. Every instance of every field gets its own region of the
// simulated address space, so distinct fields and instances never share a
// sector: the global address of byte address a of region r is
// (r+1)·2^regionBits + 2^(regionBits−1) + a, which requires |a| < 2^(regionBits−1).
const (
	regionBits = 44
	maxRegions = 1<<(63-regionBits) - 1
)

func regionBase(r int) int64 { return int64(r+1)<<regionBits + 1<<(regionBits-1) }

// regionOf returns the region of a global byte address.
func regionOf(addr uint64) int { return int(addr>>regionBits) - 1 }

// instruction is one warp-wide memory instruction of the kernel's program.
type instruction struct {
	kind   instrKind // a global access, a copy step or a shared load (stage.go)
	field  int       // index into Kernel.Fields
	region int       // field instance
	store  bool      // store (else load)
	width  int64     // bytes per lane: the field's element size
	step   int64     // the copy loop's step of a copyStep
	point  [3]int64  // the fold offset j whose lattice point gives the address
	// span is the region of a time step whose points j indexes, nil for
	// the launch's own points (steps.go).
	span *kernel.StepRegion
	// uses are the fold offsets of all of a thread's lattice points that
	// need this instruction, each with its access's guards: a folded access
	// that coincides for several points is issued once (folding removes
	// duplicate tuples, kernel.FoldAccesses), and a lane executes it if
	// any of those points lies in the domain and satisfies its guards.
	uses []use
	// The byte address of the lane at lane index q of the block whose
	// first thread is at o is base + originCoef·o + laneCoef·q when linear,
	// else regionBase + ByteAddress(access, tracer.point(o, q, point)); a
	// shared load's is the tile's (tracer.sharedAddresses).
	linear     bool
	base       int64
	originCoef [3]int64
	laneCoef   [3]int64
	access     kernel.Access
}

// guarded reports whether a use of in has guards, which may leave out
// lanes anywhere in a warp.
func (in *instruction) guarded() bool {
	for _, u := range in.uses {
		if len(u.guards) > 0 {
			return true
		}
	}
	return false
}

// use is one lattice point offset j that needs an instruction, under the
// guards g ≥ 0 (on the lattice point) of the access it comes from.
type use struct {
	j      [3]int64
	guards []kernel.Expr
}

// tracer enumerates the lane addresses of a kernel's warp instructions under
// a launch. Warps are consecutive linear thread ids of a block, x fastest.
type tracer struct {
	k             *kernel.Kernel
	launch        kernel.Launch
	grid          [3]int64
	blocks        int64
	threads       int        // threads per block
	warpSize      int        // lanes per warp
	warpsPerBlock int        // ⌈threads/warpSize⌉
	lanes         [][3]int64 // thread index in the block per linear thread id
	// Lattice point j of the lane at lane index q of the block whose first
	// thread is at o: fold·o + laneStep·q + pointStep·j, per dimension.
	// Thread folding (each thread's points are neighbours) has laneStep =
	// fold, pointStep = 1; a strided tile (its points a block size apart)
	// laneStep = 1, pointStep = block.
	laneStep, pointStep [3]int64
	rowWarp             []bool // per warp: its lanes share y and z, so x runs consecutively
	program             []instruction
	regionField         []int    // field index of each region
	stages              []*stage // per field: its shared tile if staged, else nil
	lups                int64
}

// accesses returns the thread memory accesses of the trace, launched
// threads times memory instructions per thread, and false when the count
// does not fit in 64 bits.
func (tr *tracer) accesses() (uint64, bool) {
	hi, lo := bits.Mul64(uint64(tr.blocks)*uint64(tr.threads), uint64(len(tr.program)))
	return lo, hi == 0
}

// Accesses returns the thread memory accesses Run traces for kernel k under
// launch l on device d, the count that Config.MaxAccesses bounds: launched
// threads times the memory instructions of one thread. ok is false when the
// count does not fit in 64 bits; err is Run's error for a kernel or launch
// it cannot simulate.
func Accesses(k *kernel.Kernel, l kernel.Launch, d *device.Device) (n uint64, ok bool, err error) {
	if d == nil {
		return 0, false, fmt.Errorf("sim: no device")
	}
	tr, err := newTracer(k, l, d.WarpSize, true)
	if err != nil {
		return 0, false, err
	}
	n, ok = tr.accesses()
	return n, ok, nil
}

// newTracer validates the kernel and launch for simulation and builds the
// program. With allInstances every instance of a field with multiplicity m
// gets its own region and instructions; otherwise only the first instance is
// traced and callers scale by m.
func newTracer(k *kernel.Kernel, l kernel.Launch, warpSize int, allInstances bool) (*tracer, error) {
	if err := l.Validate(); err != nil {
		return nil, fmt.Errorf("sim: launch: %w", err)
	}
	if warpSize < 1 {
		return nil, fmt.Errorf("sim: warp size %d: must be positive", warpSize)
	}
	g := l.Grid()
	tr := &tracer{
		k: k, launch: l, grid: g, blocks: g[0] * g[1] * g[2],
		threads: int(l.ThreadsPerBlock()), warpSize: warpSize,
		lups: l.Domain[0] * l.Domain[1] * l.Domain[2],
	}
	tr.warpsPerBlock = (tr.threads + warpSize - 1) / warpSize
	for i := range 3 {
		tr.laneStep[i], tr.pointStep[i] = l.Fold[i], 1
		if l.Tiling == kernel.TileStrided {
			tr.laneStep[i], tr.pointStep[i] = 1, l.Block[i]
		}
	}
	tr.lanes = make([][3]int64, tr.threads)
	for id := range tr.lanes {
		t := int64(id)
		tr.lanes[id] = [3]int64{t % l.Block[0], t / l.Block[0] % l.Block[1], t / (l.Block[0] * l.Block[1])}
	}
	tr.rowWarp = make([]bool, tr.warpsPerBlock)
	for w := range tr.rowWarp {
		first, last := tr.lanes[w*warpSize], tr.lanes[min((w+1)*warpSize, tr.threads)-1]
		tr.rowWarp[w] = first[1] == last[1] && first[2] == last[2]
	}
	if err := tr.buildProgram(allInstances); err != nil {
		return nil, err
	}
	return tr, nil
}

// foldPoints lists the offsets j of the points a thread computes, x
// fastest.
func foldPoints(fold [3]int64) [][3]int64 {
	var js [][3]int64
	for jz := range fold[2] {
		for jy := range fold[1] {
			for jx := range fold[0] {
				js = append(js, [3]int64{jx, jy, jz})
			}
		}
	}
	return js
}

// buildProgram lays out the program of every thread: the steps of the copy
// of each staged field's tile (field by field, instance by instance), then
// for each folded point (x fastest) the loads of all fields, then for each
// point the stores of all fields; within a field, instance by instance,
// accesses in spec order. An access whose thread-coordinate tuple equals
// one issued for an earlier point is not issued again; the earlier
// instruction covers both points. The loads of a staged field read its
// shared tile.
func (tr *tracer) buildProgram(allInstances bool) error {
	lo := kernel.Point{}
	hi := kernel.Point{tr.launch.Domain[0] - 1, tr.launch.Domain[1] - 1, tr.launch.Domain[2] - 1}
	if err := tr.k.ExpressionsError(); err != nil {
		return err
	}
	for fi, f := range tr.k.Fields {
		for _, a := range append(slices.Clip(f.Loads), f.Stores...) {
			minB, maxB, ok := f.AddressBounds(a, lo, hi)
			if !ok || minB <= -1<<(regionBits-1) || maxB >= 1<<(regionBits-1)-16 {
				return fmt.Errorf("sim: field %q: access %s: byte addresses over the domain may leave ±2^%d", f.Name, a, regionBits-1)
			}
		}
		instances := max(f.Multiplicity, 1)
		if !allInstances {
			instances = 1
		}
		for range instances {
			tr.regionField = append(tr.regionField, fi)
		}
	}
	if len(tr.regionField) > maxRegions {
		return fmt.Errorf("sim: %d field instances; at most %d can be simulated", len(tr.regionField), maxRegions)
	}
	var err error
	if tr.stages, err = newStages(tr.k, tr.launch); err != nil {
		return err
	}
	for r, fi := range tr.regionField {
		if s := tr.stages[fi]; s != nil {
			for step := range s.steps {
				tr.program = append(tr.program, instruction{kind: copyStep, field: fi, region: r, width: tr.k.Fields[fi].Element, step: step})
			}
		}
	}
	points := foldPoints(tr.launch.Fold)
	for _, store := range []bool{false, true} {
		if !store && tr.launch.StepCount() > 1 {
			if err := tr.appendSteps(); err != nil {
				return err
			}
			continue
		}
		issued := map[string]int{} // folded tuple per region → program index
		for _, j := range points {
			for r, fi := range tr.regionField {
				f := tr.k.Fields[fi]
				for _, a := range f.Accesses(store) {
					key, err := tr.foldedKey(a, j)
					if err != nil {
						return fmt.Errorf("sim: field %q: access %s: %w", f.Name, a, err)
					}
					key = fmt.Sprintf("%d|%s", r, key)
					if at, ok := issued[key]; ok {
						tr.program[at].uses = append(tr.program[at].uses, use{j, a.Guards})
						continue
					}
					in := instruction{kind: sharedLoad, width: f.Element, point: j, access: a}
					if tr.stages[fi] == nil {
						if in, err = tr.instruction(f, a, j); err != nil {
							return err
						}
					}
					in.field, in.region, in.store = fi, r, store
					in.base += regionBase(r)
					in.uses = []use{{j, a.Guards}}
					issued[key] = len(tr.program)
					tr.program = append(tr.program, in)
				}
			}
		}
	}
	return nil
}

// foldedKey returns the canonical text of access a for the point j of a
// thread in thread coordinates, which identifies accesses that coincide.
func (tr *tracer) foldedKey(a kernel.Access, j [3]int64) (string, error) {
	b, err := tr.launch.ThreadAccess(a, j)
	if err != nil {
		return "", err
	}
	return b.String(), nil
}

// instruction prepares access a of field f at fold offset j. Affine
// addresses become base + coef·t in thread coordinates t; others are
// evaluated per lane with Field.ByteAddress.
func (tr *tracer) instruction(f *kernel.Field, a kernel.Access, j [3]int64) (instruction, error) {
	in := instruction{width: f.Element, point: j, access: a}
	idx, err := f.ElementIndexExpr(a)
	if err == nil {
		idx, err = idx.Scale(f.Element)
	}
	if err != nil {
		return in, fmt.Errorf("sim: field %q: access %s: %w", f.Name, a, err)
	}
	coef, c, ok := idx.Linear()
	if !ok {
		return in, nil
	}
	in.linear = true
	in.base = c
	for i := range 3 {
		in.originCoef[i] = coef[i] * tr.launch.Fold[i]
		in.laneCoef[i] = coef[i] * tr.laneStep[i]
		in.base += coef[i] * tr.pointStep[i] * j[i]
	}
	return in, nil
}

// point returns lattice point j of the lane at lane index q of the block
// whose first thread is at origin o: among the launch's own points, or
// among those of step region s where s is not nil, and then false where
// the lane has no point j in it.
func (tr *tracer) point(o, q, j [3]int64, s *kernel.StepRegion) (kernel.Point, bool) {
	var p kernel.Point
	if s != nil {
		off, ok := s.Offset(q, j, tr.launch.Block, tr.launch.Tiling)
		for i := range 3 {
			p[i] = tr.launch.Fold[i]*o[i] + off[i]
		}
		return p, ok
	}
	for i := range 3 {
		p[i] = tr.launch.Fold[i]*o[i] + tr.laneStep[i]*q[i] + tr.pointStep[i]*j[i]
	}
	return p, true
}

// covers reports whether one of the uses of instruction in by the lane at
// lane index q of the block at origin o has its point inside the domain
// and satisfies its guards.
func (tr *tracer) covers(o, q [3]int64, in *instruction) bool {
	d := tr.launch.Domain
next:
	for _, u := range in.uses {
		p, ok := tr.point(o, q, u.j, in.span)
		if !ok || p[0] < 0 || p[1] < 0 || p[2] < 0 || p[0] >= d[0] || p[1] >= d[1] || p[2] >= d[2] {
			continue
		}
		for _, g := range u.guards {
			if g.Eval(p) < 0 {
				continue next
			}
		}
		return true
	}
	return false
}

// blockOrigin returns the thread coordinates of thread (0,0,0) of the block
// with linear id b (x-y-z launch order).
func (tr *tracer) blockOrigin(b int64) [3]int64 {
	g, bl := tr.grid, tr.launch.Block
	return [3]int64{b % g[0] * bl[0], b / g[0] % g[1] * bl[1], b / (g[0] * g[1]) * bl[2]}
}

// addresses appends to buf the global start addresses of the active lanes of
// warp w of the block at origin executing in. A lane is active if its thread
// exists and one of its points j (j in in.points) lies inside the domain.
// A copy step's lanes are those that load an element of the clipped tile;
// a shared load has none.
func (tr *tracer) addresses(buf []uint64, origin [3]int64, w int, in *instruction) []uint64 {
	switch in.kind {
	case copyStep:
		buf, _ = tr.copyLanes(buf, nil, origin, w, in)
		return buf
	case sharedLoad, sharedStore:
		return buf
	}
	first := w * tr.warpSize
	last := min(first+tr.warpSize, tr.threads)
	for _, lane := range tr.lanes[first:last] {
		if !tr.covers(origin, lane, in) {
			continue
		}
		var a int64
		if in.linear {
			a = in.base
			for i := range 3 {
				a += in.originCoef[i]*origin[i] + in.laneCoef[i]*lane[i]
			}
		} else {
			p, _ := tr.point(origin, lane, in.point, in.span)
			a = regionBase(in.region) + tr.k.Fields[in.field].ByteAddress(in.access, p)
		}
		buf = append(buf, uint64(a))
	}
	return buf
}

// byteRanges appends to buf the start addresses of byte ranges of a common
// width that together cover exactly the bytes the active lanes of warp w of
// the block at origin access when executing in, and returns them with that width
// and the number of active lanes. granules and sectorWrites give the same
// result for these ranges as for the lanes' own. When every lane of a warp
// in one row is active and a linear address advances along x by at least 0
// and at most the element width per lane, the lanes' ranges overlap or abut
// and the result is one range; otherwise it is the lanes' addresses with the
// element width.
func (tr *tracer) byteRanges(buf []uint64, origin [3]int64, w int, in *instruction) (ranges []uint64, width int64, lanes int) {
	if in.linear && tr.rowWarp[w] && !in.guarded() && 0 <= in.laneCoef[0] && in.laneCoef[0] <= in.width {
		first := w * tr.warpSize
		last := min(first+tr.warpSize, tr.threads) - 1
		if tr.covers(origin, tr.lanes[last], in) {
			lane := tr.lanes[first]
			lo := in.base
			for i := range 3 {
				lo += in.originCoef[i]*origin[i] + in.laneCoef[i]*lane[i]
			}
			n := last - first + 1
			return append(buf, uint64(lo)), int64(n-1)*in.laneCoef[0] + in.width, n
		}
	}
	buf = tr.addresses(buf, origin, w, in)
	return buf, in.width, len(buf)
}

// granules appends to buf the distinct granules (address >> shift) that the
// byte ranges [a, a+width) of addrs touch, in increasing order.
func granules(buf []uint64, addrs []uint64, width int64, shift uint) []uint64 {
	start := len(buf)
	sorted := true
	for _, a := range addrs {
		g0, g1 := a>>shift, (a+uint64(width)-1)>>shift
		for g := g0; g <= g1; g++ {
			if n := len(buf); n > start {
				if buf[n-1] == g {
					continue
				}
				if buf[n-1] > g {
					sorted = false
				}
			}
			buf = append(buf, g)
		}
	}
	if !sorted {
		part := buf[start:]
		slices.Sort(part)
		buf = append(buf[:start], slices.Compact(part)...)
	}
	return buf
}

// sectorWrite is the part of a store that falls into one 32 B sector: the
// sector number and a mask of the bytes written (bit i = byte i).
type sectorWrite struct {
	sector uint64
	bytes  uint32
}

// sectorWrites appends to buf the 32 B sectors the byte ranges [a, a+width)
// of addrs write, in increasing sector order with the byte masks merged.
func sectorWrites(buf []sectorWrite, addrs []uint64, width int64) []sectorWrite {
	start := len(buf)
	sorted := true
	for _, a := range addrs {
		end := a + uint64(width)
		for a < end {
			s := a >> sectorShift
			stop := min(end, (s+1)<<sectorShift)
			lo, hi := a&(sectorBytes-1), (stop-1)&(sectorBytes-1)
			mask := uint32(uint64(1)<<(hi+1) - uint64(1)<<lo)
			if n := len(buf); n > start && buf[n-1].sector >= s {
				if buf[n-1].sector == s {
					buf[n-1].bytes |= mask
					a = stop
					continue
				}
				sorted = false
			}
			buf = append(buf, sectorWrite{s, mask})
			a = stop
		}
	}
	if !sorted {
		part := buf[start:]
		slices.SortFunc(part, func(x, y sectorWrite) int {
			switch {
			case x.sector < y.sector:
				return -1
			case x.sector > y.sector:
				return 1
			}
			return 0
		})
		out := buf[:start]
		for _, w := range part {
			if n := len(out); n > start && out[n-1].sector == w.sector {
				out[n-1].bytes |= w.bytes
			} else {
				out = append(out, w)
			}
		}
		buf = out
	}
	return buf
}
