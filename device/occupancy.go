package device

import (
	"fmt"
	"math"

	"github.com/polyvol/polyvol/intmath"
)

// Limiter names the per-SM resource that bounds the number of resident blocks.
type Limiter int

// The resources that can limit occupancy. When several allow the same number
// of blocks, the first in this order is reported: the fixed slot limits
// (warps, threads, blocks) before the resources a kernel consumes.
const (
	LimitWarps     Limiter = iota // warp (wavefront) slots per SM
	LimitThreads                  // thread slots per SM
	LimitBlocks                   // block (workgroup) slots per SM
	LimitRegisters                // register file
	LimitShared                   // shared memory (LDS)
)

var limiterNames = [...]string{"warps", "threads", "blocks", "registers", "shared memory"}

// String returns the resource name, e.g. "registers" or "shared memory".
func (l Limiter) String() string {
	if l < 0 || int(l) >= len(limiterNames) {
		return fmt.Sprintf("Limiter(%d)", int(l))
	}
	return limiterNames[l]
}

// Occupancy is what one SM holds for a launch configuration.
type Occupancy struct {
	BlocksPerSM  int     // resident blocks per SM
	WarpsPerSM   int     // resident warps (wavefronts) per SM
	ThreadsPerSM int     // resident threads per SM (blocks × threads per block)
	Fraction     float64 // WarpsPerSM / Limits.MaxWarpsPerSM
	Limiter      Limiter // resource that bounds BlocksPerSM
}

// Occupancy computes the resident blocks and warps per SM for blocks of
// threadsPerBlock threads, each thread using registersPerThread registers and
// each block sharedPerBlock bytes of shared memory, following the CUDA
// occupancy calculator. Registers are allocated per warp in units of
// Limits.RegisterAllocUnit and warps in groups of Limits.WarpAllocGranularity;
// shared memory is counted with the per-block reserve, rounded up to
// Limits.SharedAllocUnit. The largest shared memory carve-out is assumed.
func (d *Device) Occupancy(threadsPerBlock, registersPerThread int, sharedPerBlock int64) (Occupancy, error) {
	l := d.Limits
	switch {
	case d.WarpSize < 1 || l.RegisterAllocUnit < 1 || l.WarpAllocGranularity < 1 || l.SharedAllocUnit < 1:
		return Occupancy{}, fmt.Errorf("occupancy on %q: warp_size and the limits' allocation units must be positive (see Validate)", d.Name)
	case threadsPerBlock < 1 || threadsPerBlock > l.MaxThreadsPerBlock:
		return Occupancy{}, fmt.Errorf("occupancy on %s: %d threads per block; expected 1 to %d", d.Name, threadsPerBlock, l.MaxThreadsPerBlock)
	case registersPerThread < 1 || registersPerThread > l.MaxRegistersPerThread:
		return Occupancy{}, fmt.Errorf("occupancy on %s: %d registers per thread; expected 1 to %d", d.Name, registersPerThread, l.MaxRegistersPerThread)
	case sharedPerBlock < 0:
		return Occupancy{}, fmt.Errorf("occupancy on %s: %d bytes of shared memory per block; expected 0 to %d", d.Name, sharedPerBlock, l.SharedPerBlock)
	case sharedPerBlock > l.SharedPerBlock:
		return Occupancy{}, &NoFitError{Device: d.Name, ThreadsPerBlock: threadsPerBlock, Limiter: LimitShared,
			Reason: fmt.Sprintf("shared memory: %d bytes per block exceed the %d a block may use", sharedPerBlock, l.SharedPerBlock)}
	}
	warpsPerBlock := intmath.CeilDiv(threadsPerBlock, d.WarpSize)
	regsPerWarp := intmath.CeilDiv(registersPerThread*d.WarpSize, l.RegisterAllocUnit) * l.RegisterAllocUnit
	regWarps := l.RegistersPerSM / regsPerWarp / l.WarpAllocGranularity * l.WarpAllocGranularity
	sharedAlloc := intmath.CeilDiv(sharedPerBlock+l.SharedReservedPerBlock, l.SharedAllocUnit) * l.SharedAllocUnit
	sharedBlocks := math.MaxInt
	if sharedAlloc > 0 {
		sharedBlocks = int(l.SharedPerSM / sharedAlloc)
	}
	bound := [...]int{
		LimitWarps:     l.MaxWarpsPerSM / warpsPerBlock,
		LimitThreads:   l.MaxThreadsPerSM / (warpsPerBlock * d.WarpSize),
		LimitBlocks:    l.MaxBlocksPerSM,
		LimitRegisters: regWarps / warpsPerBlock,
		LimitShared:    sharedBlocks,
	}
	lim := LimitWarps
	for i, b := range bound {
		if b < bound[lim] {
			lim = Limiter(i)
		}
	}
	blocks := bound[lim]
	if blocks == 0 {
		return Occupancy{}, &NoFitError{Device: d.Name, ThreadsPerBlock: threadsPerBlock, Limiter: lim, Reason: d.noFit(lim, warpsPerBlock, regsPerWarp, sharedAlloc)}
	}
	return Occupancy{
		BlocksPerSM:  blocks,
		WarpsPerSM:   blocks * warpsPerBlock,
		ThreadsPerSM: blocks * threadsPerBlock,
		Fraction:     float64(blocks*warpsPerBlock) / float64(l.MaxWarpsPerSM),
		Limiter:      lim,
	}, nil
}

// NoFitError reports that not even one block of a launch fits on an SM of a
// device; the launch, not the tool, is at fault.
type NoFitError struct {
	Device          string
	ThreadsPerBlock int
	Limiter         Limiter // the resource that admits no block
	Reason          string  // that resource, and why
}

func (e *NoFitError) Error() string {
	return fmt.Sprintf("occupancy on %s: no block of %d threads fits on an SM: %s", e.Device, e.ThreadsPerBlock, e.Reason)
}

// noFit explains why the resource lim admits no block at all.
func (d *Device) noFit(lim Limiter, warpsPerBlock, regsPerWarp int, sharedAlloc int64) string {
	l := d.Limits
	switch lim {
	case LimitRegisters:
		return fmt.Sprintf("registers: %d warps × %d registers allocated per warp exceed what the %d-register file gives in groups of %d warps",
			warpsPerBlock, regsPerWarp, l.RegistersPerSM, l.WarpAllocGranularity)
	case LimitShared:
		return fmt.Sprintf("shared memory: %d bytes allocated per block exceed %d per SM", sharedAlloc, l.SharedPerSM)
	default:
		return fmt.Sprintf("%s: %d warps per block exceed the SM's limits (%d warps, %d threads)",
			lim, warpsPerBlock, l.MaxWarpsPerSM, l.MaxThreadsPerSM)
	}
}

// ReferenceBlocksPerSM is the reference method's register-only occupancy
// rule, that of the paper's reference implementation (Warpspeed; Ernst et
// al. 2023, docs/references.md): β = min(32, ⌊65536 / (B·8·⌈max(r,32)/8⌉)⌋)
// for B threads per block and r registers per thread, on every device.
// It returns 0 ("does not fit") when even one block exceeds the register
// file, and for B < 1.
func ReferenceBlocksPerSM(threadsPerBlock, registers int) int {
	if threadsPerBlock < 1 {
		return 0
	}
	regs := 8 * intmath.CeilDiv(max(registers, 32), 8)
	return min(32, 65536/(threadsPerBlock*regs))
}
