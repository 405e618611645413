package sim

import (
	"errors"
	"fmt"
	"math/bits"

	"github.com/polyvol/polyvol/device"
)

// Limits on the work and memory of one simulation; Config raises them.
const (
	// DefaultMaxAccesses bounds the trace: launched threads × memory
	// instructions per thread (about 20 s at 50 M accesses/s).
	DefaultMaxAccesses = 1 << 30
	// DefaultMaxTrackedLines bounds the lines the infinite caches remember,
	// summed over all caches (about 60 B each, so 1 GiB).
	DefaultMaxTrackedLines = 1 << 24
)

// The L2 geometry, fixed for every device: 128 B lines of four 32 B sectors.
// Sectors are also the unit of L1→L2 store byte masks.
const (
	sectorBytes    = 32
	sectorShift    = 5
	l2LineShift    = 7
	sectorsPerLine = 1 << (l2LineShift - sectorShift)
)

// Config selects the machine and the simulation mode.
type Config struct {
	// Device supplies the SM count, warp size, cache capacities,
	// granularities and occupancy limits. Required.
	Device *device.Device
	// Infinite makes every cache unbounded, so only compulsory traffic
	// remains; capacities, associativities and policies are then ignored.
	Infinite bool
	// L1Bytes is the L1 capacity per SM; 0 means Device.L1Bytes.
	L1Bytes int64
	// L2Bytes is the capacity of the L2 (of each partition with SplitL2);
	// 0 means Device.L2Bytes, the effective capacity one SM sees.
	L2Bytes int64
	// L1Assoc and L2Assoc are the ways per set; 0 means fully associative.
	L1Assoc, L2Assoc int
	// L1Policy and L2Policy are the replacement policies (LRU by default).
	L1Policy, L2Policy Policy
	// SplitL2 splits the L2 into Device.L2Partitions partitions of L2Bytes
	// each that duplicate lines (A100, H100): SM s is served by partition
	// ⌊s·P/SMs⌋, and line n has its home in partition n mod P.
	SplitL2 bool
	// BlocksPerSM overrides the resident blocks per SM; 0 means
	// Device.Occupancy for the kernel's registers and shared memory.
	BlocksPerSM int
	// Schedule orders the warp instructions of a wave; nil means Lockstep.
	Schedule Scheduler
	// MaxAccesses bounds launched threads × instructions per thread;
	// 0 means DefaultMaxAccesses.
	MaxAccesses int64
	// MaxTrackedLines bounds the lines held by the infinite caches, summed
	// over all caches; 0 means DefaultMaxTrackedLines.
	MaxTrackedLines int64
}

// AccessLimitError is Run's error for a launch whose trace exceeds
// Config.MaxAccesses: Blocks × Threads × Instructions thread memory
// accesses, more than Limit.
type AccessLimitError struct {
	Blocks       int64 // thread blocks of the launch
	Threads      int   // threads per block
	Instructions int   // memory instructions per thread
	Limit        int64 // Config.MaxAccesses, or DefaultMaxAccesses for 0
}

// Error names the factors of the trace and the bound.
func (e *AccessLimitError) Error() string {
	return fmt.Sprintf("sim: %d blocks × %d threads × %d instructions exceed the limit of %d accesses (Config.MaxAccesses)",
		e.Blocks, e.Threads, e.Instructions, e.Limit)
}

// LineLimitError is Run's error when the infinite caches hold more lines
// than Config.MaxTrackedLines allows.
type LineLimitError struct {
	Lines int64 // lines held, summed over all caches
	Wave  int64 // the 1-based wave after which they were counted
	Limit int64 // Config.MaxTrackedLines, or DefaultMaxTrackedLines for 0
}

// Error names the lines held and the bound.
func (e *LineLimitError) Error() string {
	return fmt.Sprintf("sim: the infinite caches hold %d lines after wave %d, more than the limit %d (Config.MaxTrackedLines)", e.Lines, e.Wave, e.Limit)
}

// geometry holds the granularities of a device as shifts (log2 of bytes).
type geometry struct {
	l1Line, l1Fetch, l1Write uint // L1 allocation line, L2→L1 fill, L1→L2 store unit
	dramFetch, dramWrite     uint // DRAM→L2 load and L2→DRAM store chunks
}

// deviceGeometry checks the granularities the simulator relies on.
func deviceGeometry(d *device.Device) (geometry, error) {
	if d == nil {
		return geometry{}, errors.New("sim: no device")
	}
	var g geometry
	var errs []error
	shift := func(name string, v, lo, hi int64, dst *uint) {
		if v < lo || v > hi || v&(v-1) != 0 {
			errs = append(errs, fmt.Errorf("sim: device %s: %s = %d: expected a power of two from %d to %d", d.Name, name, v, lo, hi))
			return
		}
		*dst = uint(bits.TrailingZeros64(uint64(v)))
	}
	shift("l1_alloc_bytes", d.L1AllocBytes, sectorBytes, 1024, &g.l1Line)
	shift("l1_fetch_bytes", d.L1FetchBytes, sectorBytes, d.L1AllocBytes, &g.l1Fetch)
	shift("l1_write_bytes", d.L1WriteBytes, 1, 1024, &g.l1Write)
	shift("dram_fetch_bytes", d.DRAMFetchBytes, sectorBytes, 1<<l2LineShift, &g.dramFetch)
	shift("dram_write_bytes", d.DRAMWriteBytes, sectorBytes, 1<<l2LineShift, &g.dramWrite)
	if len(errs) == 0 && g.l1Line-g.l1Fetch > 3 {
		errs = append(errs, fmt.Errorf("sim: device %s: more than 8 L1 sectors (l1_fetch_bytes) per line (l1_alloc_bytes)", d.Name))
	}
	if d.WarpSize < 1 || d.SMs < 1 {
		errs = append(errs, fmt.Errorf("sim: device %s: warp_size and sms must be positive", d.Name))
	}
	return g, errors.Join(errs...)
}

// cacheLines returns the number of lines of a cache of the given capacity
// and line size, checking that the associativity divides it.
func cacheLines(name string, capacity int64, lineShift uint, assoc int) (int, error) {
	lines := capacity >> lineShift
	switch {
	case capacity <= 0 || capacity&(1<<lineShift-1) != 0:
		return 0, fmt.Errorf("sim: %s capacity %d B: expected a positive multiple of the %d B line", name, capacity, 1<<lineShift)
	case lines > 1<<30:
		return 0, fmt.Errorf("sim: %s capacity %d B: more than 2^30 lines", name, capacity)
	case assoc < 0 || (assoc > 0 && lines%int64(assoc) != 0):
		return 0, fmt.Errorf("sim: %s associativity %d: must divide the %d lines", name, assoc, lines)
	}
	return int(lines), nil
}
