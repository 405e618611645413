package footprint

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/intmath"
	"github.com/polyvol/polyvol/kernel"
)

// Shared-memory staging (kernel.Staging): a staged field's loads are reads
// of the block's shared tile, listed by Instructions as a Shared list whose
// addresses are shared-memory byte offsets (kernel.SharedView); global
// memory sees the tile's copy, which StagingOf enumerates block by block.

// SplitShared returns the lists that access global memory and the Shared
// lists of staged fields, each in the order of lists.
func SplitShared(lists []FieldInstructions) (global, shared []FieldInstructions) {
	for _, fi := range lists {
		if fi.Shared {
			shared = append(shared, fi)
		} else {
			global = append(global, fi)
		}
	}
	return global, shared
}

// StagedField is what staging one field costs, multiplicity included:
// volumes per block and cycles and instructions per thread, averaged over
// the sample blocks (threads: those with a lattice point in the domain
// under ClipLanes, as the L1 cycles of WarpRules.SampleBlockWarps).
type StagedField struct {
	Field int // the field's index in the kernel's Fields
	// L1Load is the bytes of the L1FetchBytes sectors each warp load of the
	// copy requests, summed over the block's copy (WarpResult.BlockL1Load).
	L1Load float64
	// L1 is the copy's loads in the L1 cycle model: each warp instruction
	// costs max(issue, tag, data pipe) cycles (L1Field's terms), and the
	// tile's allocation lines are charged to the data pipe (Alloc).
	L1 L1Field
	// CopyLoads is the copy's global load instructions per thread: the
	// warp instructions a block issues over its warps.
	CopyLoads float64
	// SharedStores and SharedLoads are the shared-memory store (the copy)
	// and load instructions per thread.
	SharedStores, SharedLoads float64
	// StoreCycles and LoadCycles are the shared-memory cycles of those per
	// thread: each warp instruction takes the larger of its wavefronts and
	// the issue cycles of the load/store units (SharedIssueCycles).
	StoreCycles, LoadCycles float64
	// StoreWavefronts and LoadWavefronts are the shared-memory wavefronts
	// (cycles of the banks) of those per thread: per warp instruction the
	// worst bank's distinct words of each group of lanes one wavefront
	// serves (SharedWavefronts).
	StoreWavefronts, LoadWavefronts float64
	// TileBytes is the shared memory of the tile per block.
	TileBytes int64
}

// StagingResult is the staging of every staged field.
type StagingResult struct {
	Fields []StagedField
	// Threads is the threads per block that the per-thread values divide by.
	Threads float64
}

// SharedWavefronts returns the wavefronts that one warp instruction takes
// in shared memory of banks banks of bankBytes bytes: the lanes are served
// in groups of as many lanes as one wavefront's banks·bankBytes bytes hold
// (a warp of 4-byte loads at once, 8-byte loads a half-warp at a time),
// and each group takes as many wavefronts as the most distinct words that
// its lanes address in one bank (lanes reading one word share it). lanes
// are the active lanes' byte addresses, width the bytes per lane.
func SharedWavefronts(lanes []int64, width, banks, bankBytes int64) int64 {
	unit := max(width, bankBytes)
	perWavefront := max(1, banks*bankBytes/unit)
	group := int(max(1, banks*bankBytes/width))
	var n int64
	var units []int64
	for g := 0; g < len(lanes); g += group {
		// worstBank counts the units of unit bytes from each address: give
		// it the first byte of each unit that a lane's 4-byte words fall
		// in, so that a lane narrower than a bank addresses its own unit
		// only.
		units = units[:0]
		for _, a := range lanes[g:min(g+group, len(lanes))] {
			for off := int64(0); off == 0 || off+4 <= width; off += 4 {
				units = append(units, intmath.FloorDiv(a+off, unit)*unit)
			}
		}
		n += worstBank(units, unit, perWavefront, nil, nil)
	}
	return n
}

// SharedIssueCycles returns the cycles in which an SM's load/store units
// take one shared-memory warp instruction of width bytes per lane on d:
// where shared-memory instructions pass the L1's load/store units (the
// rule shared_issue: lsu_lanes, NVIDIA), the L1's issue term lsuIssueCycles
// (docs/metrics.md §3.8.5: 2 cycles for a 4-byte load on a GA10x SM of 16
// LSUs, 1 on an A100's 32); where shared memory has a pipe of its own (AMD's
// LDS), 0: the banks alone.
func SharedIssueCycles(d device.Memory, width int64) float64 {
	if d.Rules.SharedIssue != device.SharedLSULanes || d.LSUs < 1 {
		return 0
	}
	return lsuIssueCycles(d, width)
}

// lsuIssueCycles is the issue term of the rule lsu_lanes for an access of
// width bytes per lane: the load/store units take 4 bytes of one lane each
// per cycle, sub-warp size × width / (LSUs × 4) cycles.
func lsuIssueCycles(d device.Memory, width int64) float64 {
	return float64(int64(d.SubWarpSize)*width) / float64(int64(d.LSUs)*4)
}

// StagingOf counts the staging of k's staged fields under l on d: the
// Shared lists' bank wavefronts over every warp of the sample blocks, and
// each sample block's copy of its tile, warp instruction by warp
// instruction in the field's copy mapping. Rules: ClipLanes clips lanes and
// tiles to the domain (an edge block copies what its points inside the
// domain read), and the copy's L1 cycles follow the device's L1 model as the
// kernel's other loads do (docs/metrics.md §3.8). The warps are always the
// sample blocks' own, whatever SampleBlockWarps says: the copy is a
// block's.
func StagingOf(shared []FieldInstructions, k *kernel.Kernel, l kernel.Launch, d device.Memory, r WarpRules, sample [][3]int64) (StagingResult, error) {
	return stagingOf(shared, k, l, d, r, sample, true)
}

// stagingOf is StagingOf with the copy's memoisation switchable, so that
// tests can compare it with the copy of every sample block: without it
// each block is its own class (copyClasses).
func stagingOf(shared []FieldInstructions, k *kernel.Kernel, l kernel.Launch, d device.Memory, r WarpRules, sample [][3]int64, memoise bool) (StagingResult, error) {
	var res StagingResult
	if len(shared) == 0 {
		return res, nil
	}
	if err := checkWarpInputs(l, d, r, sample); err != nil {
		return res, err
	}
	banks, bankBytes := d.SharedBanks, d.SharedBankBytes
	guard := newPointGuard(l, r.ClipLanes, shared)
	active := int64(len(sample)) * l.ThreadsPerBlock()
	if r.ClipLanes {
		active = (&pointGuard{launch: l, clip: true}).activeThreadsIn(sample)
	}
	if active == 0 {
		return res, fmt.Errorf("footprint: the sample blocks hold no thread inside the domain %v", l.Domain)
	}
	threads := float64(active)
	res.Threads = threads / float64(len(sample))
	warpCount := float64(len(sample)) * float64(intmath.CeilDiv(l.ThreadsPerBlock(), int64(d.WarpSize)))
	model := cycleModel{d: d, wavefrontLanes: r.WavefrontLanes, scratch: &l1Scratch{}}
	for _, fi := range shared {
		f := fi.Field
		if fi.Index >= len(k.Fields) {
			return res, fmt.Errorf("footprint: staged field %q is not field %d of kernel %q", f.Name, fi.Index, k.Name)
		}
		src := k.Fields[fi.Index]
		mult := float64(f.Multiplicity)
		sf := StagedField{Field: fi.Index}

		// The reads of the tile, warp by warp.
		modulus := intmath.LCM(banks*bankBytes, f.Element)
		reps, weights := blockClasses([]FieldInstructions{fi}, l, modulus, sample)
		warps := hardwareWarps(l.Block, d.WarpSize, reps, weights)
		loads := sharedReads(fi.Instructions, warps, guard, modulus, banks, bankBytes, SharedIssueCycles(d, f.Element))
		sf.LoadWavefronts = mult * float64(loads.wavefronts) / threads
		sf.LoadCycles = mult * loads.cycles / threads
		sf.SharedLoads = mult * float64(loads.issued) / warpCount

		// The copy, block by block.
		tile, err := kernel.TileOf(src, l)
		if err != nil {
			return res, err
		}
		sf.TileBytes = tile.Bytes
		var c copyCounts
		copyModulus := intmath.LCM(intmath.LCM(d.L1FetchBytes, d.L1AllocBytes), model.modulus(src.Element))
		blocks, blockWeights := sample, []int64(nil)
		if memoise {
			blocks, blockWeights = copyClasses(src, tile, l, r.ClipLanes, sample, copyModulus)
		}
		for i, b := range blocks {
			weight := int64(1)
			if blockWeights != nil {
				weight = blockWeights[i]
			}
			c.block(src, tile, l, d, r.ClipLanes, b, weight, model, banks, bankBytes)
		}
		sf.L1Load = mult * float64(c.sectors*d.L1FetchBytes) / float64(len(sample))
		sf.CopyLoads = mult * float64(c.loads) / warpCount
		sf.SharedStores = mult * float64(c.stores) / warpCount
		sf.StoreWavefronts = mult * float64(c.storeWavefronts) / threads
		sf.StoreCycles = mult * c.storeCycles / threads
		sf.L1 = l1Combine(r.SumInstructionMaxima, c.l1, mult, threads, float64(c.lines)/threads)
		sf.L1.Field = fi.Index
		res.Fields = append(res.Fields, sf)
	}
	return res, nil
}

// distinctReads returns a staged field's Shared list with the instructions
// that read the same shared element at every thread merged into one, its
// points those of both. Every point of a thread lies in the thread's
// block, so two of its reads differ by the same number of bytes (their
// loads' constants and point offsets apart) at every thread, yet their
// Address expressions may differ in form: under a fold of 2 in x and 16
// threads in x per block, thread x's points 2x and 2x + 1 lie in the tile
// ⌊2x/32⌋ = ⌊(2x+1)/32⌋, but the canonical forms ⌊x/16⌋ and ⌊(2x+1)/32⌋
// differ and keep A[x + 1] at point 0 and A[x] at point 1 apart. Reads
// that agree at thread (0, 0, 0) therefore agree at every thread. The list
// is not changed.
func distinctReads(list []Instruction) []Instruction {
	at := map[int64]int{}
	var out []Instruction
	for _, in := range list {
		a := in.Address.Eval(kernel.Point{})
		n, seen := at[a]
		if !seen {
			at[a] = len(out)
			out = append(out, in)
			continue
		}
		m := &out[n]
		m.Points = append(slices.Clip(m.Points), in.Points...)
		m.Guarded = append(slices.Clip(m.Guarded), in.Guarded...)
		slices.SortFunc(m.Points, func(p, q [3]int64) int {
			return cmp.Or(cmp.Compare(p[2], q[2]), cmp.Compare(p[1], q[1]), cmp.Compare(p[0], q[0]))
		})
	}
	return out
}

// readCounts sums the shared-memory reads of a staged field.
type readCounts struct {
	wavefronts, issued int64
	cycles             float64 // Σ max(issue, wavefronts)
}

// sharedReads counts the wavefronts and the issued warp instructions of a
// staged field's reads over the given warps. Two reads of one thread lie a
// fixed distance apart in the tile, whatever the thread (distinctReads), so
// on each warp the reads whose lanes execute alike (the same points) are
// one lane pattern of addresses shifted by each read's distance: the
// pattern is evaluated once per warp, for all groups whose addresses are
// translates of one another (translates), and the reads are counted once
// per distinct shift modulo the banks' period. The wavefronts of a warp's
// addresses depend only on their distances from the first lane and the
// first lane's address modulo that period, so they are computed once per
// such pattern and residue, over all warps.
func sharedReads(reads []Instruction, warps []warpTile, guard *pointGuard, modulus, banks, bankBytes int64, issue float64) readCounts {
	type shift struct {
		residue int64 // a read's distance from the first modulo the modulus
		reads   int64 // the reads at that residue
	}
	type group struct {
		first  int     // the read whose lanes execute like the group's
		shifts []shift // the distinct residues of the reads' distances
		// class is the translate class of the first read's address
		// (translates), distance its distance from the class's first.
		class    int
		distance int64
	}
	var groups []group
	var classes translates
	index := map[string]int{}
	for i, in := range reads {
		key := fmt.Sprint(in.Points, in.Guarded)
		g, ok := index[key]
		if !ok {
			g = len(groups)
			index[key] = g
			class, distance := classes.of(in.Address)
			groups = append(groups, group{first: i, class: class, distance: distance})
		}
		d := in.Address.Eval(kernel.Point{}) - reads[groups[g].first].Address.Eval(kernel.Point{})
		r := intmath.FloorMod(d, modulus)
		if k := slices.IndexFunc(groups[g].shifts, func(s shift) bool { return s.residue == r }); k >= 0 {
			groups[g].shifts[k].reads++
		} else {
			groups[g].shifts = append(groups[g].shifts, shift{r, 1})
		}
	}
	type wavefrontKey struct {
		pattern int   // the lanes' distances from the first lane (patterns)
		residue int64 // the first lane's address modulo the modulus
	}
	patterns := map[string]int{}
	wavefronts := map[wavefrontKey]int64{}
	addrs := make([]laneAddress, len(classes.firsts))
	for i, e := range classes.firsts {
		addrs[i] = newLaneAddress(e)
	}
	// values are, per translate class, its first address at every lane
	// of the warp.
	values := make([][]int64, len(addrs))
	var c readCounts
	var lanes, shifted []int64
	var pattern []byte
	for _, w := range warps {
		lo, hi := w.bounds()
		for i := range addrs {
			a := addrs[i].onBox(lo, hi)
			values[i] = values[i][:0]
			for _, o := range w.lanes.offsets {
				values[i] = append(values[i], a.at(kernel.Point{w.base[0] + o[0], w.base[1] + o[1], w.base[2] + o[2]}))
			}
		}
		for _, g := range groups {
			first := &reads[g.first]
			lanes = lanes[:0]
			for k, o := range w.lanes.offsets {
				if guard == nil || guard.executes(kernel.Point{w.base[0] + o[0], w.base[1] + o[1], w.base[2] + o[2]}, first) {
					lanes = append(lanes, values[g.class][k]+g.distance)
				}
			}
			if len(lanes) == 0 {
				continue
			}
			pattern = pattern[:0]
			for _, a := range lanes {
				pattern = binary.AppendVarint(pattern, a-lanes[0])
			}
			id, ok := patterns[string(pattern)]
			if !ok {
				id = len(patterns)
				patterns[string(pattern)] = id
			}
			for _, s := range g.shifts {
				k := wavefrontKey{id, intmath.FloorMod(lanes[0]+s.residue, modulus)}
				n, ok := wavefronts[k]
				if !ok {
					shifted = shifted[:0]
					for _, a := range lanes {
						shifted = append(shifted, a+s.residue)
					}
					n = SharedWavefronts(shifted, first.Width, banks, bankBytes)
					wavefronts[k] = n
				}
				weight := w.weight * s.reads
				c.wavefronts += n * weight
				c.issued += weight
				c.cycles += max(issue, float64(n)) * float64(weight)
			}
		}
	}
	return c
}

// copyCounts sums the copy's warp instructions over blocks.
type copyCounts struct {
	loads, stores   int64 // warp instructions issued
	sectors         int64 // L1FetchBytes sectors requested by the loads
	storeWavefronts int64
	storeCycles     float64 // Σ max(issue, wavefronts)
	lines           int64   // distinct L1 allocation lines of each block's copy
	l1              l1Sums
}

// block adds the copy of the tile of block b, weight times: the block's
// warps, in linear thread order, step through the copy loop of the field's
// mapping; each step is one warp load from global memory of the lanes
// whose element lies in the (clipped) tile, and one shared store of the
// lanes whose element lies in the full tile.
func (c *copyCounts) block(f *kernel.Field, t kernel.Tile, l kernel.Launch, d device.Memory, clip bool, b [3]int64, weight int64, model cycleModel, banks, bankBytes int64) {
	var origin kernel.Point
	for i := range 3 {
		origin[i] = b[i] * t.Extent[i]
	}
	lo, hi := t.Box(origin, l.Domain, clip)
	B := l.ThreadsPerBlock()
	warp := int64(d.WarpSize)
	steps, element := copySteps(f.Stage.Copy, t.Size, l.Block)
	var global, shared, sectors []int64
	var seen distinctCounter
	// The allocation lines the copy touches, in the order first met;
	// consecutive lanes mostly share a line, which is kept once.
	var lines []int64
	for s := range steps {
		for first := int64(0); first < B; first += warp {
			global, shared = global[:0], shared[:0]
			for tid := first; tid < min(first+warp, B); tid++ {
				e, ok := element(s, tid)
				if !ok {
					continue
				}
				shared = append(shared, f.Element*t.Shared(e, [3]int64{}))
				inside := true
				for j := range 3 {
					e[j] += lo[j]
					inside = inside && e[j] < hi[j]
				}
				if inside {
					a := f.Element * f.ElementAt(e)
					global = append(global, a)
					for off := int64(0); off < f.Element; off += 4 {
						if line := intmath.FloorDiv(a+off, d.L1AllocBytes); len(lines) == 0 || lines[len(lines)-1] != line {
							lines = append(lines, line)
						}
					}
				}
			}
			if len(shared) > 0 {
				c.stores += weight
				n := SharedWavefronts(shared, f.Element, banks, bankBytes)
				c.storeWavefronts += n * weight
				c.storeCycles += max(SharedIssueCycles(d, f.Element), float64(n)) * float64(weight)
			}
			if len(global) > 0 {
				c.loads += weight
				sectors = appendGranules(sectors[:0], global, f.Element, d.L1FetchBytes, true)
				c.sectors += seen.count(sectors) * weight
				c.l1.add(model.terms(global, f.Element), weight)
			}
		}
	}
	c.lines += seen.count(lines) * weight
}

// copyClasses groups the sample blocks whose copies (copyCounts.block)
// count alike: the same extents of the tile box, clipped to the domain,
// which fix the elements each lane copies and whether it loads them, and
// the same global address of the box's first element modulo modulus, a
// period of every count of the copy's global loads (sectors, allocation
// lines, L1 cycle terms). The global addresses of one lane are that
// address plus the same offset in every block, as a field's layout is
// affine (kernel.Field.ElementAt); the shared addresses are the same in
// every block. reps are the first block of each class, weights their
// sizes.
func copyClasses(f *kernel.Field, t kernel.Tile, l kernel.Launch, clip bool, sample [][3]int64, modulus int64) (reps [][3]int64, weights []int64) {
	type classKey struct {
		extent  [3]int64
		residue int64
	}
	index := map[classKey]int{}
	for _, b := range sample {
		var origin kernel.Point
		for i := range 3 {
			origin[i] = b[i] * t.Extent[i]
		}
		lo, hi := t.Box(origin, l.Domain, clip)
		k := classKey{[3]int64{hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]}, intmath.FloorMod(f.Element*f.ElementAt(lo), modulus)}
		if i, ok := index[k]; ok {
			weights[i]++
			continue
		}
		index[k] = len(reps)
		reps = append(reps, b)
		weights = append(weights, 1)
	}
	return reps, weights
}

// copySteps returns the steps of a block's copy loop in the given mapping
// for a tile of the given size, and the tile element (relative to the
// tile's first) that thread tid copies at step s, false where it copies
// none.
func copySteps(m kernel.CopyMapping, size, block [3]int64) (steps int64, element func(s, tid int64) ([3]int64, bool)) {
	n := size[0] * size[1] * size[2]
	B := block[0] * block[1] * block[2]
	if m == kernel.CopyRows {
		return intmath.CeilDiv(n, B), func(s, tid int64) ([3]int64, bool) {
			i := s*B + tid
			return [3]int64{i % size[0], i / size[0] % size[1], i / (size[0] * size[1])}, i < n
		}
	}
	var per [3]int64
	for i := range 3 {
		per[i] = intmath.CeilDiv(size[i], block[i])
	}
	return per[0] * per[1] * per[2], func(s, tid int64) ([3]int64, bool) {
		step := [3]int64{s % per[0], s / per[0] % per[1], s / (per[0] * per[1])}
		thread := [3]int64{tid % block[0], tid / block[0] % block[1], tid / (block[0] * block[1])}
		var e [3]int64
		for i := range 3 {
			e[i] = thread[i] + step[i]*block[i]
			if e[i] >= size[i] {
				return e, false
			}
		}
		return e, true
	}
}
