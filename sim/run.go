package sim

import (
	"context"
	"fmt"
	"math/bits"

	"github.com/polyvol/polyvol/kernel"
)

// Volumes are the measured counts of one field, or of all fields. Byte
// counts are totals over the run; the per-Lup values divide them by the
// useful lattice updates, the launch domain's points times its time steps. Hits and misses count sectors.
type Volumes struct {
	Field string `json:"field,omitempty"`

	// L1LoadBytes is what load warp instructions request from L1: distinct
	// L1FetchBytes sectors per instruction, times L1FetchBytes.
	L1LoadBytes int64 `json:"l1LoadBytes"`
	// L2LoadBytes is the L2→L1 fill traffic: L1 sector misses × L1FetchBytes.
	L2LoadBytes int64 `json:"l2LoadBytes"`
	// L2StoreBytes is the L1→L2 write-through traffic: distinct
	// L1WriteBytes units per store instruction, times L1WriteBytes.
	L2StoreBytes int64 `json:"l2StoreBytes"`
	// DRAMLoadBytes is the DRAM→L2 traffic: DRAMFetchBytes per L2 sector
	// miss, plus DRAMStoreReadBytes.
	DRAMLoadBytes int64 `json:"dramLoadBytes"`
	// DRAMStoreBytes is the L2→DRAM traffic: DRAMWriteBytes per dirty chunk
	// written back on eviction or by the final flush.
	DRAMStoreBytes int64 `json:"dramStoreBytes"`
	// DRAMStoreReadBytes is the part of DRAMLoadBytes that reads the
	// DRAMFetchBytes chunks around partially written dirty chunks before
	// they are written back (the model's memStoreEvicts, docs/json.md).
	DRAMStoreReadBytes int64 `json:"dramStoreReadBytes"`
	// L2PartitionBytes is the traffic between L2 partitions (SplitL2): 32 B
	// per sector a partition copies from the line's home partition, and per
	// sector stored through to a home partition other than the SM's.
	L2PartitionBytes int64 `json:"l2PartitionBytes"`

	L1Hits   int64 `json:"l1Hits"`   // L1FetchBytes sectors requested and present in L1
	L1Misses int64 `json:"l1Misses"` // L1FetchBytes sectors requested and fetched from L2
	L2Hits   int64 `json:"l2Hits"`   // 32 B sectors L1 fetched that were present in the SM's L2 partition
	L2Misses int64 `json:"l2Misses"` // 32 B sectors L1 fetched that were not

	// The shared memory of staged fields (kernel.Staging), left out for
	// the others. CopyLoadInstructions is the warp loads of global memory
	// that copy the tiles (their bytes count in the volumes above);
	// SharedStoreInstructions the copy's warp stores to shared memory
	// (with several time steps also those of the state's next values), and
	// SharedLoadInstructions the warp loads that read the tiles.
	// SharedStoreWavefronts and SharedLoadWavefronts are their bank
	// wavefronts: per warp instruction, for each group of lanes that one
	// wavefront's bank width serves, the most distinct bank units that the
	// group addresses in one bank.
	SharedLoadWavefronts    int64 `json:"sharedLoadWavefronts,omitempty"`
	SharedStoreWavefronts   int64 `json:"sharedStoreWavefronts,omitempty"`
	SharedLoadInstructions  int64 `json:"sharedLoadInstructions,omitempty"`
	SharedStoreInstructions int64 `json:"sharedStoreInstructions,omitempty"`
	CopyLoadInstructions    int64 `json:"copyLoadInstructions,omitempty"`

	L1Load   float64 `json:"L1Load"`   // L1LoadBytes per Lup
	L2Load   float64 `json:"L2Load"`   // L2LoadBytes per Lup
	L2Store  float64 `json:"L2Store"`  // L2StoreBytes per Lup
	MemLoad  float64 `json:"memLoad"`  // DRAMLoadBytes per Lup
	MemStore float64 `json:"memStore"` // DRAMStoreBytes per Lup
}

func (v *Volumes) add(o *Volumes) {
	v.L1LoadBytes += o.L1LoadBytes
	v.L2LoadBytes += o.L2LoadBytes
	v.L2StoreBytes += o.L2StoreBytes
	v.DRAMLoadBytes += o.DRAMLoadBytes
	v.DRAMStoreBytes += o.DRAMStoreBytes
	v.DRAMStoreReadBytes += o.DRAMStoreReadBytes
	v.L2PartitionBytes += o.L2PartitionBytes
	v.L1Hits += o.L1Hits
	v.L1Misses += o.L1Misses
	v.L2Hits += o.L2Hits
	v.L2Misses += o.L2Misses
	v.SharedLoadWavefronts += o.SharedLoadWavefronts
	v.SharedStoreWavefronts += o.SharedStoreWavefronts
	v.SharedLoadInstructions += o.SharedLoadInstructions
	v.SharedStoreInstructions += o.SharedStoreInstructions
	v.CopyLoadInstructions += o.CopyLoadInstructions
}

func (v *Volumes) normalise(lups int64) {
	n := float64(lups)
	v.L1Load = float64(v.L1LoadBytes) / n
	v.L2Load = float64(v.L2LoadBytes) / n
	v.L2Store = float64(v.L2StoreBytes) / n
	v.MemLoad = float64(v.DRAMLoadBytes) / n
	v.MemStore = float64(v.DRAMStoreBytes) / n
}

// Result is the outcome of one simulation.
type Result struct {
	Kernel        string   `json:"kernel"`
	Device        string   `json:"device"`
	Block         [3]int64 `json:"block"`
	Fold          [3]int64 `json:"fold"`
	Domain        [3]int64 `json:"domain"`
	Grid          [3]int64 `json:"grid"`
	BlocksPerSM   int      `json:"blocksPerSM"`
	BlocksPerWave int64    `json:"blocksPerWave"` // W = BlocksPerSM · SMs
	Waves         int64    `json:"waves"`
	Lups          int64    `json:"lups"`            // lattice points of the domain
	Steps         int64    `json:"steps,omitempty"` // time steps of a launch of more than one
	Accesses      int64    `json:"accesses"`        // active lanes summed over all warp instructions, shared ones included
	Infinite      bool     `json:"infinite"`
	// Fields holds one entry per kernel field, in Kernel.Fields order (all
	// instances of a field with multiplicity together); Total is their sum.
	Fields []Volumes `json:"fields"`
	Total  Volumes   `json:"total"`
}

// l2Cache is the sectored L2 (or one partition): 128 B lines with a valid
// and a dirty bit per 32 B sector (in the tag store's slots) and a mask of
// the bytes written since the line was allocated. A sector is valid once
// fetched from DRAM or fully written; a dirty sector that is not valid
// holds a partial write.
type l2Cache struct {
	tags    *tagStore
	written [][2]uint64 // per slot, bit i = byte i of the line
}

// machine is the simulated memory hierarchy while a kernel runs.
type machine struct {
	tr        *tracer
	geo       geometry
	l1        []*tagStore // per SM: L1AllocBytes lines, valid bit per L1FetchBytes sector
	l2        []l2Cache
	partition []int // L2 partition per SM
	counts    []Volumes
	accesses  int64

	waveOrigin [][3]int64 // thread origin per block of the current wave
	waveSM     []int      // SM per block of the current wave

	addrs  []uint64
	shared []int64 // shared byte offsets of a warp instruction's lanes
	gran   []uint64
	writes []sectorWrite
	banks  bankCounter
}

// Run simulates the kernel under the launch on cfg.Device and returns the
// measured volumes per field.
//
// Schedule: blocks run in waves of W = BlocksPerSM·SMs consecutive blocks in
// x-y-z launch order (slots free up together when blocks cost the same);
// block i of a wave runs on SM i mod SMs, and all blocks of a wave finish
// before the next wave starts. cfg.Schedule orders the warp instructions
// within a wave.
//
// Program: every thread runs, for each of its folded points fold·t + j
// (j with x fastest), the loads of every field, then for each point the
// stores of every field; a field's instances (multiplicity) follow each
// other with their accesses in spec order. A lane takes part in an
// instruction only if its point lies inside the domain. Accesses of
// different points are not merged, so under folding an address two points
// share is requested twice (L1LoadBytes), unlike the deduplicated folded
// access list of kernel.FoldAccesses.
//
// Staging: each block first copies the tile of every field staged under l
// (kernel.TileOf; clipped to the domain, whose lanes outside are inactive)
// step by step in the field's copy mapping, each step one warp load of
// global memory of the lanes whose element lies in the clipped tile and one
// warp store to shared memory of the lanes whose element lies in the full
// tile; the field's loads then read the tile. Shared memory holds no state:
// its instructions count only their bank wavefronts (SharedBankLayout).
// The tiles add to the shared memory that limits the blocks per SM
// (kernel.StagedSharedBytes).
//
// Time steps: a launch of T > 1 time steps (kernel.Launch.Steps) copies
// the tiles grown for T steps, replays the loads of every step over the
// step's region and the shared stores of the state's next values (which
// count as shared store instructions), and stores once after the last
// (steps.go); the per-Lup values are then per useful update, over T times
// the domain's points.
//
// Memory path: a warp instruction touches the distinct sectors covered by
// the byte ranges [A, A+element) of its active lanes. Loads look each
// L1FetchBytes sector up in the SM's L1; a miss fetches the sector from L2
// and allocates its line if absent (a missing sector of a present line does
// not evict). Stores write through to L2 in L1WriteBytes units and leave L1
// untouched (no allocation, no recency update). The L2 allocates on loads
// and stores: a load of a sector that is not valid fetches its aligned
// DRAMFetchBytes chunk; stores mark bytes written and sectors dirty
// (write-back). Evicting a line writes every dirty DRAMWriteBytes chunk
// back, and reads the DRAMFetchBytes chunk around a dirty chunk that is not
// entirely valid first. At the end every dirty line is flushed by the same
// rule, so DRAM store traffic counts all stored data.
//
// With cfg.SplitL2 a line is cached in its home partition, which talks to
// DRAM and holds its dirty data, and duplicated in the partition of every
// SM that loads it; a copy partition that misses fetches the sector from the
// home partition. Stores go to the home partition; copies stay valid.
func Run(k *kernel.Kernel, l kernel.Launch, cfg Config) (Result, error) {
	return RunContext(context.Background(), k, l, cfg)
}

// cancelCheckInterval is the number of warp instructions RunContext issues
// between two checks of its context.
const cancelCheckInterval = 4096

// RunContext is Run stopping when ctx ends: it checks ctx every few
// thousand warp instructions, issues no more after it ended and returns
// ctx's error.
func RunContext(ctx context.Context, k *kernel.Kernel, l kernel.Launch, cfg Config) (Result, error) {
	if err := k.CheckSteps(l); err != nil {
		return Result{}, fmt.Errorf("sim: %w", err)
	}
	geo, err := deviceGeometry(cfg.Device)
	if err != nil {
		return Result{}, err
	}
	d := cfg.Device
	tr, err := newTracer(k, l, d.WarpSize, true)
	if err != nil {
		return Result{}, err
	}
	blocksPerSM, err := residentBlocks(k, l, cfg, tr.threads)
	if err != nil {
		return Result{}, err
	}
	maxAccesses := cfg.MaxAccesses
	if maxAccesses <= 0 {
		maxAccesses = DefaultMaxAccesses
	}
	if n, ok := tr.accesses(); !ok || n > uint64(maxAccesses) {
		return Result{}, &AccessLimitError{Blocks: tr.blocks, Threads: tr.threads, Instructions: len(tr.program), Limit: maxAccesses}
	}
	m, err := newMachine(tr, geo, cfg)
	if err != nil {
		return Result{}, err
	}
	perWave := int64(blocksPerSM) * int64(d.SMs)
	waves, err := m.runWaves(ctx, perWave, cfg)
	if err != nil {
		return Result{}, err
	}
	m.flush()

	r := Result{
		Kernel: k.Name, Device: d.Name, Block: l.Block, Fold: l.Fold, Domain: l.Domain, Grid: tr.grid,
		BlocksPerSM: blocksPerSM, BlocksPerWave: perWave, Waves: waves,
		Lups: tr.lups, Accesses: m.accesses, Infinite: cfg.Infinite,
		Fields: m.counts,
	}
	useful := r.Lups * l.StepCount()
	if l.StepCount() > 1 {
		r.Steps = l.StepCount()
	}
	for i := range r.Fields {
		r.Fields[i].Field = k.Fields[i].Name
		r.Fields[i].normalise(useful)
		r.Total.add(&r.Fields[i])
	}
	r.Total.normalise(useful)
	return r, nil
}

// residentBlocks returns the blocks of threads threads per SM: cfg's, or
// else the device's occupancy of k under l.
func residentBlocks(k *kernel.Kernel, l kernel.Launch, cfg Config, threads int) (int, error) {
	if cfg.BlocksPerSM > 0 {
		return cfg.BlocksPerSM, nil
	}
	d := cfg.Device
	sharedBytes, err := kernel.StagedSharedBytes(k, l)
	if err != nil {
		return 0, fmt.Errorf("sim: %w", err)
	}
	occ, err := d.Occupancy(threads, k.Registers, sharedBytes)
	if err != nil {
		return 0, fmt.Errorf("sim: %w", err)
	}
	if occ.BlocksPerSM < 1 {
		return 0, fmt.Errorf("sim: no block of %d threads fits on an SM of %s (limited by %s)", threads, d.Name, occ.Limiter)
	}
	return occ.BlocksPerSM, nil
}

// runWaves runs the grid's blocks in waves of perWave blocks, the blocks of
// a wave spread over the SMs in turn and their warps issued in cfg's
// schedule, and returns the number of waves. It stops when ctx ends, and,
// for an infinite cache, when it tracks more lines than cfg allows.
func (m *machine) runWaves(ctx context.Context, perWave int64, cfg Config) (int64, error) {
	tr, sms := m.tr, cfg.Device.SMs
	maxLines := cfg.MaxTrackedLines
	if maxLines <= 0 {
		maxLines = DefaultMaxTrackedLines
	}
	sched := cfg.Schedule
	if sched == nil {
		sched = Lockstep{}
	}
	issue, stopped := m.cancellableIssue(ctx)
	waves := int64(0)
	for first := int64(0); first < tr.blocks; first += perWave {
		n := int(min(perWave, tr.blocks-first))
		m.waveOrigin, m.waveSM = m.waveOrigin[:0], m.waveSM[:0]
		for i := range n {
			m.waveOrigin = append(m.waveOrigin, tr.blockOrigin(first+int64(i)))
			m.waveSM = append(m.waveSM, i%sms)
		}
		sched.Schedule(n, tr.warpsPerBlock, len(tr.program), issue)
		if err := stopped(); err != nil {
			return 0, err
		}
		waves++
		if cfg.Infinite {
			if n := m.trackedLines(); n > maxLines {
				return 0, &LineLimitError{Lines: n, Wave: waves, Limit: maxLines}
			}
		}
	}
	return waves, nil
}

// cancellableIssue returns m.issue checking ctx every cancelCheckInterval
// warp instructions and issuing none after ctx ended, and a function that
// returns ctx's error once the issue saw it.
func (m *machine) cancellableIssue(ctx context.Context) (issue func(b, w, instr int), stopped func() error) {
	var err error
	stopped = func() error { return err }
	if ctx.Done() == nil {
		return m.issue, stopped
	}
	n := 0
	issue = func(b, w, instr int) {
		if err != nil {
			return
		}
		if n++; n%cancelCheckInterval == 0 {
			if err = ctx.Err(); err != nil {
				return
			}
		}
		m.issue(b, w, instr)
	}
	return issue, stopped
}

func newMachine(tr *tracer, geo geometry, cfg Config) (*machine, error) {
	d := cfg.Device
	for _, p := range []Policy{cfg.L1Policy, cfg.L2Policy} {
		if p != LRU && p != PLRU {
			return nil, fmt.Errorf("sim: unknown replacement policy %d", int(p))
		}
	}
	var l1Lines, l2Lines int // 0: unbounded
	if !cfg.Infinite {
		var err error
		l1Bytes, l2Bytes := cfg.L1Bytes, cfg.L2Bytes
		if l1Bytes == 0 {
			l1Bytes = d.L1Bytes
		}
		if l2Bytes == 0 {
			l2Bytes = d.L2Bytes
		}
		if l1Lines, err = cacheLines("L1", l1Bytes, geo.l1Line, cfg.L1Assoc); err != nil {
			return nil, err
		}
		if l2Lines, err = cacheLines("L2", l2Bytes, l2LineShift, cfg.L2Assoc); err != nil {
			return nil, err
		}
	}
	parts := 1
	if cfg.SplitL2 && d.L2Partitions > 1 {
		parts = d.L2Partitions
	}
	m := &machine{tr: tr, geo: geo, counts: make([]Volumes, len(tr.k.Fields))}
	m.banks.banks, m.banks.bankBytes = d.SharedBankLayout()
	m.l1 = make([]*tagStore, d.SMs)
	for i := range m.l1 {
		m.l1[i] = newTagStore(l1Lines, cfg.L1Assoc, cfg.L1Policy)
	}
	m.l2 = make([]l2Cache, parts)
	for i := range m.l2 {
		m.l2[i] = l2Cache{tags: newTagStore(l2Lines, cfg.L2Assoc, cfg.L2Policy), written: make([][2]uint64, l2Lines)}
	}
	m.partition = make([]int, d.SMs)
	for s := range m.partition {
		m.partition[s] = s * parts / d.SMs
	}
	return m, nil
}

func (m *machine) trackedLines() int64 {
	n := 0
	for _, l1 := range m.l1 {
		n += l1.lines()
	}
	for i := range m.l2 {
		n += m.l2[i].tags.lines()
	}
	return int64(n)
}

// issue executes instruction instr of warp w of block b of the current wave.
func (m *machine) issue(b, w, instr int) {
	in := &m.tr.program[instr]
	switch in.kind {
	case copyStep:
		m.issueCopy(b, w, in)
		return
	case sharedLoad, sharedStore:
		m.shared = m.tr.sharedAddresses(m.shared[:0], m.waveOrigin[b], w, in)
		if len(m.shared) > 0 {
			m.accesses += int64(len(m.shared))
			c := &m.counts[in.field]
			if in.kind == sharedStore {
				c.SharedStoreInstructions++
				c.SharedStoreWavefronts += m.banks.wavefronts(m.shared, in.width)
			} else {
				c.SharedLoadInstructions++
				c.SharedLoadWavefronts += m.banks.wavefronts(m.shared, in.width)
			}
		}
		return
	case globalAccess: // below
	}
	var width int64
	var lanes int
	m.addrs, width, lanes = m.tr.byteRanges(m.addrs[:0], m.waveOrigin[b], w, in)
	if lanes == 0 {
		return
	}
	m.accesses += int64(lanes)
	c := &m.counts[in.field]
	sm := m.waveSM[b]
	if in.store {
		m.gran = granules(m.gran[:0], m.addrs, width, m.geo.l1Write)
		c.L2StoreBytes += int64(len(m.gran)) << m.geo.l1Write
		m.writes = sectorWrites(m.writes[:0], m.addrs, width)
		p := m.partition[sm]
		for _, sw := range m.writes {
			home := m.home(sw.sector)
			if home != p {
				c.L2PartitionBytes += sectorBytes
			}
			m.l2Store(home, sw)
		}
		return
	}
	m.load(sm, width, c)
}

// issueCopy executes the copy step in of warp w of block b: the shared
// store of the lanes that copy an element, and the global load of those
// whose element lies in the clipped tile.
func (m *machine) issueCopy(b, w int, in *instruction) {
	m.addrs, m.shared = m.tr.copyLanes(m.addrs[:0], m.shared[:0], m.waveOrigin[b], w, in)
	c := &m.counts[in.field]
	if len(m.shared) > 0 {
		m.accesses += int64(len(m.shared))
		c.SharedStoreInstructions++
		c.SharedStoreWavefronts += m.banks.wavefronts(m.shared, in.width)
	}
	if len(m.addrs) > 0 {
		m.accesses += int64(len(m.addrs))
		c.CopyLoadInstructions++
		m.load(m.waveSM[b], in.width, c)
	}
}

// load requests from SM sm's L1 the sectors that the byte ranges
// [a, a+width) of m.addrs cover, counting them in c.
func (m *machine) load(sm int, width int64, c *Volumes) {
	m.gran = granules(m.gran[:0], m.addrs, width, m.geo.l1Fetch)
	c.L1LoadBytes += int64(len(m.gran)) << m.geo.l1Fetch
	for _, s := range m.gran {
		m.l1Load(sm, s, c)
	}
}

// l1Load requests L1 sector s (an address >> l1Fetch) on SM sm.
func (m *machine) l1Load(sm int, s uint64, c *Volumes) {
	l1 := m.l1[sm]
	perLine := m.geo.l1Line - m.geo.l1Fetch
	line := s >> perLine
	bit := uint8(1) << (s & (1<<perLine - 1))
	slot := l1.find(line)
	if slot >= 0 {
		l1.touch(slot)
		if l1.slots[slot].valid&bit != 0 {
			c.L1Hits++
			return
		}
	} else {
		slot, _, _ = l1.insert(line)
	}
	l1.slots[slot].valid |= bit
	c.L1Misses++
	c.L2LoadBytes += 1 << m.geo.l1Fetch
	first := s << (m.geo.l1Fetch - sectorShift)
	p := m.partition[sm]
	for i := range uint64(1) << (m.geo.l1Fetch - sectorShift) {
		if m.l2Load(p, first+i) {
			c.L2Hits++
		} else {
			c.L2Misses++
		}
	}
}

// home returns the L2 partition that owns 32 B sector s.
func (m *machine) home(s uint64) int {
	if len(m.l2) == 1 {
		return 0
	}
	return int((s >> (l2LineShift - sectorShift)) % uint64(len(m.l2)))
}

// l2Load reads 32 B sector s through partition p and reports whether p
// held it.
func (m *machine) l2Load(p int, s uint64) bool {
	home := m.home(s)
	if home == p {
		return m.l2Fetch(p, s)
	}
	tags := m.l2[p].tags
	bit := uint8(1) << (s % sectorsPerLine)
	slot := tags.find(s / sectorsPerLine)
	if slot >= 0 {
		tags.touch(slot)
		if tags.slots[slot].valid&bit != 0 {
			return true
		}
	}
	m.l2Fetch(home, s)
	m.counts[m.fieldOf(s)].L2PartitionBytes += sectorBytes
	if slot < 0 {
		slot = m.l2Allocate(p, s/sectorsPerLine)
	}
	tags.slots[slot].valid |= bit
	return false
}

// l2Fetch reads 32 B sector s in its home partition p, fetching its DRAM
// chunk on a miss, and reports whether it was valid.
func (m *machine) l2Fetch(p int, s uint64) bool {
	tags := m.l2[p].tags
	line := s / sectorsPerLine
	slot := tags.find(line)
	if slot >= 0 {
		tags.touch(slot)
		if tags.slots[slot].valid&(1<<(s%sectorsPerLine)) != 0 {
			return true
		}
	} else {
		slot = m.l2Allocate(p, line)
	}
	chunk := uint(1) << (m.geo.dramFetch - sectorShift) // sectors per fetch chunk
	first := uint(s%sectorsPerLine) &^ (chunk - 1)
	tags.slots[slot].valid |= uint8((1<<chunk - 1) << first)
	m.counts[m.fieldOf(s)].DRAMLoadBytes += 1 << m.geo.dramFetch
	return false
}

// l2Store writes the bytes of sw into its home partition p.
func (m *machine) l2Store(p int, sw sectorWrite) {
	c := &m.l2[p]
	line := sw.sector / sectorsPerLine
	slot := c.tags.find(line)
	if slot >= 0 {
		c.tags.touch(slot)
	} else {
		slot = m.l2Allocate(p, line)
	}
	i := sw.sector % sectorsPerLine
	word, shift := &c.written[slot][i/2], 32*(i%2)
	*word |= uint64(sw.bytes) << shift
	st := &c.tags.slots[slot]
	st.dirty |= 1 << i
	if uint32(*word>>shift) == 1<<32-1 {
		st.valid |= 1 << i
	}
}

// l2Allocate places line in partition p, writing back the victim, and
// returns its slot with cleared state.
func (m *machine) l2Allocate(p int, line uint64) int32 {
	c := &m.l2[p]
	slot, victim, evicted := c.tags.insert(line)
	if evicted {
		m.writeBack(victim)
	}
	if int(slot) == len(c.written) {
		c.written = append(c.written, [2]uint64{})
	}
	c.written[slot] = [2]uint64{}
	return slot
}

// writeBack writes the dirty chunks of an L2 line to DRAM, reading first
// the fetch chunks under dirty chunks that are not entirely valid.
func (m *machine) writeBack(st slot) {
	if st.dirty == 0 {
		return
	}
	v := &m.counts[m.fieldOf(st.line*sectorsPerLine)]
	writeSectors := uint(1) << (m.geo.dramWrite - sectorShift)
	fetchShift := m.geo.dramFetch - sectorShift
	var reads uint8 // one bit per fetch chunk of the line
	for first := uint(0); first < sectorsPerLine; first += writeSectors {
		mask := uint8((1<<writeSectors - 1) << first)
		if st.dirty&mask == 0 {
			continue
		}
		v.DRAMStoreBytes += 1 << m.geo.dramWrite
		if st.valid&mask != mask {
			for s := first; s < first+writeSectors; s++ {
				reads |= 1 << (s >> fetchShift)
			}
		}
	}
	n := int64(bits.OnesCount8(reads)) << m.geo.dramFetch
	v.DRAMLoadBytes += n
	v.DRAMStoreReadBytes += n
}

// flush writes back every dirty line at the end of the run.
func (m *machine) flush() {
	for p := range m.l2 {
		slots := m.l2[p].tags.slots
		for i := range slots {
			m.writeBack(slots[i])
			slots[i].dirty = 0
		}
	}
}

// fieldOf returns the field index of 32 B sector s.
func (m *machine) fieldOf(s uint64) int { return m.tr.regionField[regionOf(s<<sectorShift)] }
