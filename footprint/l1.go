package footprint

import (
	"fmt"
	"slices"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/intmath"
	"github.com/polyvol/polyvol/kernel"
)

// referenceCycleSampleThreads bounds the reference's sampled warps to this
// many threads per dimension; referenceCycleMinWidth is the fewest threads
// in x it samples (docs/metrics.md §3.8.1).
const (
	referenceCycleSampleThreads = 64
	referenceCycleMinWidth      = 16
)

// AllocLines returns the average number of distinct L1 allocation lines
// (device L1AllocBytes) that the instructions of one field list touch per
// block, over the given blocks, without multiplicity (Engine.AllocLines
// counts it).
type AllocLines func(fi FieldInstructions, blocks [][3]int64) (float64, error)

// L1Result is the L1 cycle model of docs/metrics.md §3.8 in L1 cycles per
// thread (for a thread's complete work; divide by λ for cycles per Lup,
// multiply by 32 for cycles per 32-thread warp).
type L1Result struct {
	Cycles   float64 // L1Cycles: Σ of the fields' Cycles
	DataPipe float64 // L1DataPipeCycles: Σ of the fields' DataPipe
	Tag      float64 // L1TagCycles: Σ of the fields' Tag
	// Fields are the per-field terms of each load and store list, in the
	// order of Instructions.
	Fields []L1Field
}

// L1Field is one field list's share of the L1 cycles per thread,
// multiplicity included.
type L1Field struct {
	Field int // the field's index in the kernel's Fields
	Store bool
	// Cycles is total_f: max(C_f, T_f, DataPipe), or with
	// WarpRules.SumInstructionMaxima the summed per-instruction maxima plus
	// Alloc.
	Cycles   float64
	DataPipe float64 // bank-conflict wavefronts D_f, including Alloc
	Tag      float64 // tag wavefronts T_f
	Alloc    float64 // allocation term L_f: allocated lines per thread
	// Lines is the distinct allocation lines per instruction, summed over
	// instructions, per thread (the reference's CLCount).
	Lines float64
}

// L1Cycles evaluates the L1 cycle model for kernel k under launch l on
// device d under rules r. alloc supplies the block footprints of the
// allocation term. With ReferenceWarpRules it follows docs/metrics.md §3.8
// exactly: the sampled warps of §3.8.1, per-field maxima of averages, the
// allocation term charged to load and store fields, and the nominal
// sub-warp size as divisor. ExactWarpRules take all sub-warps of the sample
// blocks with inactive lanes removed and the differences documented in
// l1Combine.
func L1Cycles(k *kernel.Kernel, l kernel.Launch, d device.Memory, r WarpRules, sample [][3]int64, alloc AllocLines) (L1Result, error) {
	lists, err := Instructions(k, l, d, r.Fusion)
	if err != nil {
		return L1Result{}, err
	}
	return l1Cycles(lists, l, d, r, sample, alloc, true, &Budget{})
}

// L1CyclesOf is L1Cycles for the kernel's instructions under l, computed
// already (Instructions, InstructionCache), with its work charged to
// budget as WarpVolumesOf charges it.
func L1CyclesOf(lists []FieldInstructions, l kernel.Launch, d device.Memory, r WarpRules, sample [][3]int64, alloc AllocLines, budget *Budget) (L1Result, error) {
	return l1Cycles(lists, l, d, r, sample, alloc, true, budget)
}

// l1Cycles is L1CyclesOf with memoisation switchable, for tests: without
// it every warp of every sample block is measured lane by lane (no
// blockClasses, no memo).
func l1Cycles(lists []FieldInstructions, l kernel.Launch, d device.Memory, r WarpRules, sample [][3]int64, alloc AllocLines, memoise bool, budget *Budget) (L1Result, error) {
	lists, _ = SplitShared(lists) // shared-memory reads are StagingOf's
	if err := checkWarpInputs(l, d, r, sample); err != nil {
		return L1Result{}, err
	}
	if d.Rules.Issue == device.IssueLSULanes && d.LSUs < 1 {
		return L1Result{}, fmt.Errorf("footprint: device %q has the L1 issue rule %s but no LSU count", d.Name, device.IssueLSULanes)
	}
	guard := newPointGuard(l, r.ClipLanes, lists)
	var warps *warpSet
	var allocBlocks [][3]int64
	var threads, threadsPerBlock float64
	if !r.SampleBlockWarps {
		// §3.8.1: a box of at most 64 threads per dimension at the origin,
		// at least 16 threads wide in x; §3.8.7: divided by n_w·S.
		t := truncatedGrid(l)
		shape := warpShape(d.SubWarpSize, l.Block)
		var n [3]int64
		for i := range n {
			n[i] = min(referenceCycleSampleThreads, l.Block[i]*t[i]) / shape[i]
		}
		n[0] = max(referenceCycleMinWidth/l.Block[0], n[0])
		warps = newWarpSet(boxTiles(shape, n))
		threads = float64(len(warps.tiles) * d.SubWarpSize)
		allocBlocks = ReferenceSampleBlocks(l)
		threadsPerBlock = float64(l.ThreadsPerBlock())
	} else {
		// §8 items 4, 5, 8: every sub-warp of the sample blocks, divided by
		// the threads that have a lattice point in the domain.
		modulus := int64(1)
		for _, fi := range lists {
			for _, in := range fi.Instructions {
				modulus = intmath.LCM(modulus, cycleModel{d: d}.modulus(in.Width))
			}
		}
		reps, weights := sample, []int64(nil)
		if memoise {
			reps, weights = blockClasses(lists, l, modulus, sample)
		}
		warps = newWarpSet(hardwareWarps(l.Block, d.SubWarpSize, reps, weights))
		active := guard.activeThreadsIn(sample)
		if active == 0 {
			return L1Result{}, fmt.Errorf("footprint: the sample blocks hold no thread inside the domain %v", l.Domain)
		}
		threads = float64(active)
		allocBlocks = sample
		threadsPerBlock = threads / float64(len(sample))
	}
	model := cycleModel{d: d, wavefrontLanes: r.WavefrontLanes, scratch: &l1Scratch{}}
	var res L1Result
	for _, fi := range lists {
		var sum l1Sums
		// §3.8.7, §8 item 9: scalar fields served by a scalar cache have
		// no per-access terms.
		if !(fi.Field.Scalar && d.Rules.ScalarLoads == device.ScalarCache) {
			classes, err := instructionClasses(fi.Instructions, guard, model.modulus, memoise, budget)
			if err == nil {
				err = eachClass(fi.Instructions, classes, guard, model.modulus, memoise, budget, warps, model.terms,
					func(k int, t l1Terms, weight int64) { sum.add(t, weight*classes[k].count) })
			}
			if err != nil {
				return L1Result{}, fmt.Errorf("footprint: L1 cycles of field %q: %w", fi.Field.Name, err)
			}
		}
		var lines float64
		// §8 item 7: without StoresAllocate only load misses fill lines.
		if r.StoresAllocate || !fi.Store {
			var err error
			if lines, err = alloc(fi, allocBlocks); err != nil {
				return L1Result{}, fmt.Errorf("footprint: allocation lines of field %q: %w", fi.Field.Name, err)
			}
		}
		f := l1Combine(r.SumInstructionMaxima, sum, float64(fi.Field.Multiplicity), threads, lines/threadsPerBlock)
		f.Field, f.Store = fi.Index, fi.Store
		res.Cycles += f.Cycles
		res.DataPipe += f.DataPipe
		res.Tag += f.Tag
		res.Fields = append(res.Fields, f)
	}
	return res, nil
}

// l1Sums accumulates the per-(instruction, warp) terms of one field list.
type l1Sums struct {
	cycles      float64
	tag         float64
	bank, lines int64
}

// add adds the terms of weight equivalent warps.
func (s *l1Sums) add(t l1Terms, weight int64) {
	s.cycles += float64(weight) * max(t.issue, t.tag, float64(t.bank))
	s.tag += float64(weight) * t.tag
	s.bank += weight * t.bank
	s.lines += weight * t.lines
}

// l1Combine turns a field list's sums into cycles per thread; threads is the
// divisor, allocPerThread the unmultiplied allocated lines per thread.
//
// Reference (docs/metrics.md §3.8.7): C = m·Σc/(n_w·S), T = m·Σt/(n_w·S),
// D = m·Σd/(n_w·S) + L with L = m·lines per thread; total = max(C, T, D), a
// maximum of averages. Exact (§8 item 7): each instruction costs
// c = max(q, t, d) wavefronts and the costs add up, so total = m·Σc/threads
// + L; the allocation lines are only charged to loads (the caller passes 0
// for stores) and the divisor is the threads inside the domain (§8 item 8).
func l1Combine(sumMaxima bool, s l1Sums, mult, threads, allocPerThread float64) L1Field {
	f := L1Field{
		Tag:   mult * s.tag / threads,
		Alloc: mult * allocPerThread,
		Lines: mult * float64(s.lines) / threads,
	}
	f.DataPipe = mult*float64(s.bank)/threads + f.Alloc
	if sumMaxima {
		f.Cycles = mult*s.cycles/threads + f.Alloc
	} else {
		f.Cycles = max(mult*s.cycles/threads, f.Tag, f.DataPipe)
	}
	return f
}

// l1Terms are the cycle terms of one instruction on one warp (docs/metrics.md
// §3.8.3–3.8.5) and its distinct allocation lines.
type l1Terms struct {
	issue float64 // q
	tag   float64 // t
	bank  int64   // d
	lines int64   // |Λ|
}

// cycleModel computes the terms of the device's L1 model.
type cycleModel struct {
	d device.Memory
	// wavefrontLanes, on a device whose data-pipe rule is lane_groups,
	// counts the data-pipe term per group of L1BankWidth/w consecutive
	// lanes and adds the groups up: a
	// wavefront delivers at most L1BankWidth bytes, so an access wider than
	// 4 bytes is served a half-warp (8 B) or a quarter-warp (16 B) at a
	// time, as the paper counts it (docs/metrics.md §3.8.9, §8 item 7).
	// Without it (§3.8.3) the worst bank is taken over the whole
	// sub-warp.
	wavefrontLanes bool
	// scratch, when set, holds the buffers of terms between calls, so that
	// measuring warp after warp does not allocate; nil allocates.
	scratch *l1Scratch
}

// l1Scratch is the reusable storage of cycleModel.terms.
type l1Scratch struct {
	words, units, lines, perBank []int64
}

// buffer returns an empty slice of capacity n: buf's storage when it is
// large enough (and kept in it), else a new one.
func buffer(buf *[]int64, n int) []int64 {
	if buf == nil {
		return make([]int64, 0, n)
	}
	if cap(*buf) < n {
		*buf = make([]int64, 0, n)
	}
	return (*buf)[:0]
}

// buffers returns the scratch buffers of c, or nil pointers without one.
func (c cycleModel) buffers() (words, units, lines, perBank *[]int64) {
	if c.scratch == nil {
		return nil, nil, nil, nil
	}
	return &c.scratch.words, &c.scratch.units, &c.scratch.lines, &c.scratch.perBank
}

// banks returns n_b = ⌊L1BankWidth/w⌋ (at least 1) for access width w.
func (c cycleModel) banks(width int64) int64 {
	return max(1, c.d.L1BankWidth/width)
}

// modulus returns a period of the terms in the lane addresses: shifting all
// addresses by w·n_b keeps the units' banks, by 2·L1AllocBytes the lines'
// count and parity.
func (c cycleModel) modulus(width int64) int64 {
	return intmath.LCM(width*c.banks(width), 2*c.d.L1AllocBytes)
}

// terms evaluates the terms for the active lane addresses of one warp, in
// lane order, of an access of the given width. A warp without active lanes
// does not issue the instruction.
func (c cycleModel) terms(lanes []int64, width int64) l1Terms {
	if len(lanes) == 0 {
		return l1Terms{}
	}
	wordBuf, unitBuf, lineBuf, bankBuf := c.buffers()
	// §3.8.2: each lane contributes all its 4-byte words, listed as [all
	// lanes +0, all lanes +4, …].
	words := buffer(wordBuf, len(lanes)*int(max(1, width/4)))
	for off := int64(0); off == 0 || off <= width-4; off += 4 {
		for _, a := range lanes {
			words = append(words, a+off)
		}
	}
	var t l1Terms
	// §3.8.5: the issue term.
	switch c.d.Rules.Issue {
	case device.IssueLSULanes:
		t.issue = lsuIssueCycles(c.d, width)
	case device.IssueCoalescedDwords:
		t.issue = 4
		if width == 4 && coalesced(words) {
			t.issue = 1
		}
	}
	// §3.8.3: distinct w-byte units per bank, the worst bank; with
	// wavefrontLanes summed over the lane groups one wavefront serves.
	nb := c.banks(width)
	group := len(lanes)
	if c.wavefrontLanes && c.d.Rules.DataPipe == device.DataPipeLaneGroups && width > 4 {
		group = int(nb)
	}
	for g := 0; g < len(lanes); g += group {
		t.bank += worstBank(lanes[g:min(g+group, len(lanes))], width, nb, unitBuf, bankBuf)
	}
	// §3.8.4: distinct allocation lines, listed lane by lane (sorted where
	// the lane addresses rise).
	lines := buffer(lineBuf, len(words))
	for _, a := range lanes {
		for off := int64(0); off == 0 || off <= width-4; off += 4 {
			lines = append(lines, intmath.FloorDiv(a+off, c.d.L1AllocBytes))
		}
	}
	lines = distinct(lines)
	t.lines = int64(len(lines))
	switch {
	case c.d.L1TagCyclesPerLine > 0:
		t.tag = c.d.L1TagCyclesPerLine * float64(max(1, t.lines))
	case c.d.Rules.Tag == device.TagFourPerCycle:
		t.tag = float64(intmath.CeilDiv(max(1, t.lines)+2, 4))
	default: // device.TagParityBanks
		var odd int64
		for _, l := range lines {
			odd += intmath.FloorMod(l, 2)
		}
		t.tag = float64(max(odd, t.lines-odd))
	}
	return t
}

// worstBank returns the most distinct w-byte units that the 4-byte words of
// the given lane addresses (§3.8.2) map to one of nb banks (§3.8.3). The
// units are listed lane by lane, sorted where the lane addresses rise; the
// buffers (nil: allocate) hold the units and the per-bank counts.
func worstBank(lanes []int64, width, nb int64, unitBuf, bankBuf *[]int64) int64 {
	units := buffer(unitBuf, len(lanes)*int(max(1, width/4)))
	for _, a := range lanes {
		for off := int64(0); off == 0 || off <= width-4; off += 4 {
			units = append(units, intmath.FloorDiv(a+off, width))
		}
	}
	units = distinct(units)
	perBank := buffer(bankBuf, int(nb))[:nb]
	clear(perBank)
	var worst int64
	for _, u := range units {
		b := intmath.FloorMod(u, nb)
		perBank[b]++
		worst = max(worst, perBank[b])
	}
	return worst
}

// coalesced reports whether the addresses are consecutive 4-byte words in
// list order (docs/metrics.md §3.8.5).
func coalesced(words []int64) bool {
	for i, a := range words {
		if a-words[0] != 4*int64(i) {
			return false
		}
	}
	return true
}

// distinct returns the distinct values of v, sorted, reusing v's storage.
func distinct(v []int64) []int64 {
	if !slices.IsSorted(v) { // lane addresses mostly rise with the lane
		slices.Sort(v)
	}
	return slices.Compact(v)
}

// distinctCounter counts distinct values, keeping its bitmap between
// calls so that counting warp after warp does not allocate.
type distinctCounter struct {
	bits []uint64
}

// denseSpan bounds the span of the values, per value, up to which count
// marks them in a bitmap instead of sorting them: clearing and scanning
// the bitmap then costs at most a few operations per value.
const denseSpan = 256

// count returns the number of distinct values of v, which it may reorder.
// Where the values span at most denseSpan·len(v), each sets its bit,
// offset by the least value, in a bitmap, and the set bits are the
// distinct values; elsewhere v is sorted and compacted (distinct).
func (c *distinctCounter) count(v []int64) int64 {
	if len(v) == 0 {
		return 0
	}
	lo, hi := slices.Min(v), slices.Max(v)
	if span := uint64(hi - lo); hi-lo < 0 || span/denseSpan >= uint64(len(v)) {
		return int64(len(distinct(v)))
	}
	words := int((hi-lo)/64 + 1)
	if cap(c.bits) < words {
		c.bits = make([]uint64, words)
	}
	bits := c.bits[:words]
	clear(bits)
	var n int64
	for _, a := range v {
		o := a - lo
		w, b := o/64, uint64(1)<<(o%64)
		if bits[w]&b == 0 {
			bits[w] |= b
			n++
		}
	}
	return n
}
