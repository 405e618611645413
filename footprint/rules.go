package footprint

// WarpRules are the choices that the warp-level counts (Instructions,
// WarpVolumes and L1Cycles) make. The caller resolves an estimation method
// into these values once; the counting code follows them and knows no
// method names. ReferenceWarpRules and ExactWarpRules are the two sets of
// docs/metrics.md.
type WarpRules struct {
	// SampleBlockWarps counts every hardware warp (consecutive linear
	// thread ids) of the caller's sample blocks, averaged over them and
	// divided by their active threads. Without it the warps are the
	// reference's warp-shaped tiles of the truncated grid at the origin
	// (docs/metrics.md §3.1, §3.7, §3.8.1) and the sample is ignored.
	SampleBlockWarps bool
	// ClipLanes makes a lane inactive when none of its lattice points lies
	// inside the domain (§8 item 6).
	ClipLanes bool
	// FusedByteRange counts a fused vector access by its full byte range
	// instead of its start address (§8 item 10).
	FusedByteRange bool
	// Fusion is how accesses are fused into vector accesses on a device
	// whose fusion rule is adjacent (device.FuseAdjacent).
	Fusion FusionRule
	// ClampOneByte clamps the block and warp L1 load volumes to at least
	// one byte, as the reference does (§8 item 28).
	ClampOneByte bool
	// WavefrontLanes counts the data-pipe term of a device whose data-pipe
	// rule is lane_groups (device.DataPipeLaneGroups) per group of
	// L1BankWidth/w lanes (a half or quarter warp for 8- and 16-byte
	// accesses) instead of the worst bank over the sub-warp (§3.8.9).
	WavefrontLanes bool
	// StoresAllocate charges the L1 allocation term to store lists too;
	// otherwise only load misses fill lines (§8 item 7).
	StoresAllocate bool
	// SumInstructionMaxima costs each instruction max(issue, tag, data
	// pipe) and adds the costs up; otherwise a field costs the maximum of
	// its averaged terms (§3.8.7).
	SumInstructionMaxima bool
}

// FusionRule selects how the accesses of one field are fused into vector
// accesses on a device whose fusion rule is adjacent (docs/metrics.md §3.9).
type FusionRule int

// The fusion rules.
const (
	// FuseInAddressOrder fuses runs of consecutive addresses in address
	// order (§8 item 10).
	FuseInAddressOrder FusionRule = iota
	// FuseAsReference fuses the accesses as the reference implementation
	// does, in the order they are written.
	FuseAsReference
)

// The warp rules of the two estimation methods of docs/metrics.md.
var (
	// ReferenceWarpRules reproduce the reference implementation.
	ReferenceWarpRules = WarpRules{Fusion: FuseAsReference, ClampOneByte: true, StoresAllocate: true}
	// ExactWarpRules replace each of its approximations by the exact count.
	ExactWarpRules = WarpRules{
		SampleBlockWarps: true, ClipLanes: true, FusedByteRange: true, Fusion: FuseInAddressOrder,
		WavefrontLanes: true, SumInstructionMaxima: true,
	}
)
