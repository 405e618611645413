package sim

// A Scheduler orders the warp instructions of one wave. The simulator forms
// the waves (see Run) and asks the scheduler in which order the resident
// warps issue their instructions; since the L2 is shared, the order across
// SMs matters as well as the order within one.
type Scheduler interface {
	// Schedule calls issue exactly once for every instruction instr of every
	// warp of every block of a wave, where 0 ≤ block < blocks (index in the
	// wave, launch order), 0 ≤ warp < warpsPerBlock and 0 ≤ instr <
	// instructions. Each warp's instructions must come in increasing order
	// (program order).
	Schedule(blocks, warpsPerBlock, instructions int, issue func(block, warp, instr int))
}

// Lockstep is the default schedule: round-robin over all resident warps of
// the wave, one instruction each, in launch order (block by block, warp by
// warp within a block) — as if every warp on every SM advanced at the same
// rate.
type Lockstep struct{}

// Schedule implements Scheduler.
func (Lockstep) Schedule(blocks, warpsPerBlock, instructions int, issue func(block, warp, instr int)) {
	for i := range instructions {
		for b := range blocks {
			for w := range warpsPerBlock {
				issue(b, w, i)
			}
		}
	}
}

// BlockByBlock runs the blocks of a wave one after the other in launch order,
// each block's warps in lockstep. Blocks then never interleave, which shows
// how much the simulated volumes depend on concurrent blocks.
type BlockByBlock struct{}

// Schedule implements Scheduler.
func (BlockByBlock) Schedule(blocks, warpsPerBlock, instructions int, issue func(block, warp, instr int)) {
	for b := range blocks {
		for i := range instructions {
			for w := range warpsPerBlock {
				issue(b, w, i)
			}
		}
	}
}

// WarpByWarp runs every warp of a wave to completion before the next, in
// launch order: the most sequential schedule.
type WarpByWarp struct{}

// Schedule implements Scheduler.
func (WarpByWarp) Schedule(blocks, warpsPerBlock, instructions int, issue func(block, warp, instr int)) {
	for b := range blocks {
		for w := range warpsPerBlock {
			for i := range instructions {
				issue(b, w, i)
			}
		}
	}
}

// WaveBlocks returns the linear block ids (x-y-z launch order) of wave k of a
// grid of the given number of blocks, blocksPerWave blocks per wave: the
// blocks [k·W, min((k+1)·W, blocks)).
func WaveBlocks(blocks, blocksPerWave, k int64) []int64 {
	lo := k * blocksPerWave
	hi := min(lo+blocksPerWave, blocks)
	var ids []int64
	for b := lo; b < hi; b++ {
		ids = append(ids, b)
	}
	return ids
}
