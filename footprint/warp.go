package footprint

import (
	"errors"
	"fmt"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/intmath"
	"github.com/polyvol/polyvol/kernel"
)

// referenceSampleBlocks is the reference's truncated sample grid per
// dimension (docs/metrics.md §2.5).
const referenceSampleBlocks = 8

// referenceDiagWarp is the warp size and sector size of the reference's
// warpL1Load, whatever the device (docs/metrics.md §3.7).
const referenceDiagWarp = 32

// WarpResult holds the per-instruction volumes of docs/metrics.md §3.1, §3.4
// and §3.7 in bytes per block, totals and per field.
type WarpResult struct {
	// BlockL1Load is the bytes of the CLFetchSize sectors every warp load
	// instruction requests, summed over a block's instructions (§3.1).
	BlockL1Load float64
	// BlockL2Store is the bytes of the CLWriteSize sectors every warp store
	// instruction writes through to L2, summed over a block's (§3.4).
	BlockL2Store float64
	// WarpL1Load is the diagnostic sector volume of all of a field's loads
	// together per warp, summed over the warps of a block (§3.7).
	WarpL1Load float64
	// Threads is the average number of threads per block that have a lattice
	// point in the domain, the per-thread divisor of these volumes: B
	// without SampleBlockWarps, fewer for sample blocks at the domain's
	// edge (§8 item 6).
	Threads float64
	// Fields are the shares of each field's load list and store list, in the
	// order of Instructions.
	Fields []WarpField
}

// WarpField is one field's share of a WarpResult: a load list has L1Load and
// WarpL1Load, a store list L2Store. Multiplicity is included.
type WarpField struct {
	Field      int // the field's index in the kernel's Fields
	Store      bool
	L1Load     float64
	L2Store    float64
	WarpL1Load float64
}

// WarpVolumes counts the per-instruction volumes of kernel k under launch l
// on device d under rules r. ReferenceWarpRules follow docs/metrics.md
// §2.5–2.7 exactly: warp-shaped boxes tile the truncated grid at the origin,
// no lane is clipped to the domain, a fused access counts its start address
// only, and the total load volume is clamped to at least one byte.
// ExactWarpRules average over the sample blocks (block indices, e.g. those
// of a representative interior wave): warps are consecutive linear thread
// ids, lanes whose lattice points lie outside the domain are inactive, a
// fused access counts its full byte range, nothing is clamped, and
// warpL1Load counts CLFetchSize sectors of the device's warps (§8 items 3,
// 5, 6, 10, 13 and 28).
// The work is bounded by the default Budget.
func WarpVolumes(k *kernel.Kernel, l kernel.Launch, d device.Memory, r WarpRules, sample [][3]int64) (WarpResult, error) {
	lists, err := Instructions(k, l, d, r.Fusion)
	if err != nil {
		return WarpResult{}, err
	}
	return warpVolumes(lists, l, d, r, sample, true, &Budget{})
}

// WarpVolumesOf is WarpVolumes for the kernel's instructions under l,
// computed already (Instructions, InstructionCache), with its work charged
// to budget: the warps measured lane by lane, and the lanes tested against
// guards (a nil budget is not bounded).
func WarpVolumesOf(lists []FieldInstructions, l kernel.Launch, d device.Memory, r WarpRules, sample [][3]int64, budget *Budget) (WarpResult, error) {
	return warpVolumes(lists, l, d, r, sample, true, budget)
}

// warpVolumes is WarpVolumesOf with memoisation switchable, so that tests
// can compare it with plain enumeration: without it every warp of every
// sample block is measured lane by lane (no blockClasses, no memo).
func warpVolumes(lists []FieldInstructions, l kernel.Launch, d device.Memory, r WarpRules, sample [][3]int64, memoise bool, budget *Budget) (WarpResult, error) {
	lists, _ = SplitShared(lists) // shared-memory reads move no global bytes (StagingOf)
	if err := checkWarpInputs(l, d, r, sample); err != nil {
		return WarpResult{}, err
	}
	guard := newPointGuard(l, r.ClipLanes, lists)
	var warps, diagWarps *warpSet
	var blocks, diagBlocks float64
	diagGranule := d.L1FetchBytes
	if !r.SampleBlockWarps {
		t := truncatedGrid(l)
		warps = newWarpSet(warpBoxesOver(l.Block, d.WarpSize, t))
		blocks = float64(t[0] * t[1] * t[2])
		diagWarps = newWarpSet(warpBoxesOver(l.Block, referenceDiagWarp, [3]int64{1, 1, 1}))
		diagBlocks = 1
		diagGranule = referenceDiagWarp
	} else {
		reps, weights := sample, []int64(nil)
		if memoise {
			reps, weights = blockClasses(lists, l, intmath.LCM(d.L1FetchBytes, d.L1WriteBytes), sample)
		}
		warps = newWarpSet(hardwareWarps(l.Block, d.WarpSize, reps, weights))
		diagWarps = warps
		blocks = float64(len(sample))
		diagBlocks = blocks
	}
	fullRange := r.FusedByteRange
	res := WarpResult{Threads: float64(l.ThreadsPerBlock())}
	if r.SampleBlockWarps {
		res.Threads = float64(guard.activeThreadsIn(sample)) / blocks
	}
	for _, fi := range lists {
		mult := float64(fi.Field.Multiplicity)
		granule := d.L1FetchBytes
		if fi.Store {
			granule = d.L1WriteBytes
		}
		var sectors int64
		modulus := func(int64) int64 { return granule }
		classes, err := instructionClasses(fi.Instructions, guard, modulus, memoise, budget)
		if err == nil {
			var seen distinctCounter
			var ids []int64
			err = eachClass(fi.Instructions, classes, guard, modulus, memoise, budget, warps,
				func(lanes []int64, width int64) int64 {
					ids = appendGranules(ids[:0], lanes, width, granule, fullRange)
					return seen.count(ids)
				},
				func(k int, n, weight int64) { sectors += n * weight * classes[k].count })
		}
		if err != nil {
			return WarpResult{}, fmt.Errorf("footprint: warps of field %q: %w", fi.Field.Name, err)
		}
		f := WarpField{Field: fi.Index, Store: fi.Store}
		if fi.Store {
			f.L2Store = mult * float64(sectors*granule) / blocks
			res.BlockL2Store += f.L2Store
		} else {
			c, err := sectorCounter(fi.Instructions, guard, diagGranule, fullRange, memoise, budget)
			var diag int64
			if err == nil {
				err = c.each(diagWarps, func(n, weight int64) { diag += n * weight })
			}
			if err != nil {
				return WarpResult{}, fmt.Errorf("footprint: warps of field %q: %w", fi.Field.Name, err)
			}
			f.L1Load = mult * float64(sectors*granule) / blocks
			f.WarpL1Load = mult * float64(diag*d.L1FetchBytes) / diagBlocks
			res.BlockL1Load += f.L1Load
			res.WarpL1Load += f.WarpL1Load
		}
		res.Fields = append(res.Fields, f)
	}
	if r.ClampOneByte {
		res.BlockL1Load = max(1, res.BlockL1Load)
		res.WarpL1Load = max(1, res.WarpL1Load)
	}
	return res, nil
}

// warpBoxesOver tiles the box of blocks at the origin with the reference's
// warp shape ω(size) (docs/metrics.md §3.1, §3.7).
func warpBoxesOver(block [3]int64, size int, blocks [3]int64) []warpTile {
	shape := warpShape(size, block)
	var n [3]int64
	for i := range n {
		n[i] = blocks[i] * block[i] / shape[i]
	}
	return boxTiles(shape, n)
}

// checkWarpInputs validates what the warp metrics need beyond a kernel.
func checkWarpInputs(l kernel.Launch, d device.Memory, r WarpRules, sample [][3]int64) error {
	if err := l.Validate(); err != nil {
		return fmt.Errorf("footprint: launch: %w", err)
	}
	if d.WarpSize < 1 || d.SubWarpSize < 1 || d.L1FetchBytes < 1 || d.L1WriteBytes < 1 || d.L1AllocBytes < 1 || d.L1BankWidth < 1 {
		return fmt.Errorf("footprint: device %q lacks a warp size or an L1 granularity", d.Name)
	}
	if r.SampleBlockWarps && len(sample) == 0 {
		return errors.New("footprint: counting the warps of sample blocks needs at least one sample block")
	}
	g := l.Grid()
	for _, b := range sample {
		for i := range b {
			if b[i] < 0 || b[i] >= g[i] {
				return fmt.Errorf("footprint: sample block %v outside the grid %v", b, g)
			}
		}
	}
	return nil
}
