package model

import (
	"fmt"
	"strings"

	"github.com/polyvol/polyvol/device"
)

// Registers per thread.
//
// The registers a thread holds bound the blocks an SM keeps resident: the
// register file of device.Limits.RegistersPerSM registers is shared by the
// resident warps, each allocated its registers in units of
// Limits.RegisterAllocUnit (device.Device.Occupancy). Where the register
// file allows fewer blocks than the warp, thread, block and shared-memory
// limits, the report's Launch.OccupancyLimiter is "registers", and fewer
// registers per thread would keep more warps in flight.
//
// A compiler gives a thread at most Limits.MaxRegistersPerThread registers;
// a kernel that needs more keeps the rest in local memory (it spills), whose
// loads and stores go through L1 and L2 like any other. The engine counts
// the accesses of the spec only, so a kernel at the limit probably moves
// more than its report says.

// RegisterNote describes, for a note on standard error, how registers
// registers per thread (and sharedBytes of shared memory per block) bear on
// the launch of report r on dev, or returns "" when they do not: when the
// registers limit the blocks per SM, it gives the blocks and the most
// registers per thread that would allow more blocks (or the resource that
// would limit them then); when the registers reach the device's
// Limits.MaxRegistersPerThread, it says that spilling is likely.
func RegisterNote(r *Report, dev *device.Device, registers int, sharedBytes int64) string {
	var parts []string
	if r.Launch.OccupancyLimiter == device.LimitRegisters.String() {
		parts = append(parts, registerLimit(r, dev, registers, sharedBytes))
	}
	if most := dev.Limits.MaxRegistersPerThread; most > 0 && registers >= most {
		parts = append(parts, fmt.Sprintf("spilling likely: %d registers per thread reach the %d a thread may have on %s, where the compiler keeps the rest in local memory, whose traffic the estimate does not count",
			registers, most, dev.Name))
	}
	return strings.Join(parts, "; ")
}

// registerLimit describes an occupancy that the registers limit: the blocks
// per SM, and the most registers per thread below registers at which more
// blocks fit, or the resource that limits the blocks with one register per
// thread when none does.
func registerLimit(r *Report, dev *device.Device, registers int, sharedBytes int64) string {
	threads := int(r.Launch.ThreadsPerBlock)
	s := fmt.Sprintf("occupancy is limited by registers: %s of %d threads per SM at %d registers per thread",
		countBlocks(r.Launch.BlocksPerSM), threads, registers)
	for fewer := registers - 1; fewer >= 1; fewer-- {
		occ, err := dev.Occupancy(threads, fewer, sharedBytes)
		if err != nil {
			return s
		}
		if int64(occ.BlocksPerSM) > r.Launch.BlocksPerSM {
			return s + fmt.Sprintf("; at most %d registers per thread would allow %d", fewer, occ.BlocksPerSM)
		}
	}
	occ, err := dev.Occupancy(threads, 1, sharedBytes)
	if err != nil {
		return s
	}
	return s + fmt.Sprintf("; fewer registers would not allow more: the limit of %s is %s too", occ.Limiter, countBlocks(int64(occ.BlocksPerSM)))
}

// countBlocks writes n blocks, "1 block" for one.
func countBlocks(n int64) string {
	if n == 1 {
		return "1 block"
	}
	return fmt.Sprintf("%d blocks", n)
}
