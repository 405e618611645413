package model

import (
	"fmt"
	"math"

	"github.com/polyvol/polyvol/device"
)

// Waves, tails and the launch.
//
// The limiters describe the steady state of a GPU with every SM holding β
// blocks. A grid of N blocks runs in N/W waves of W = β·SMs blocks. The
// ⌊N/W⌋ full waves run at the steady rate G. The last, partial wave of
// n < W blocks (all of a grid smaller than one wave) runs with fewer of
// them: its blocks spread over a = min(SMs, n) SMs, so the bounds of the
// SMs' own resources (flops, issue, L1) shrink by a/SMs, the latency bound
// (warps in flight) by n/W, and the shared L2 and DRAM keep their
// bandwidths; the same p-norm combines them into the tail's rate G_t.
// Every block does the same work, so with L lattice updates
//
//	t = L·(⌊N/W⌋·W/N)/G + L·(n/N)/G_t + t_launch
//
// and the prediction is L/t. t_launch is KernelLaunchMicroseconds: a grid
// so small that it takes a few microseconds is bound by its launch.

// KernelLaunchMicroseconds is the time the launch of one kernel adds to its
// run, in microseconds: back-to-back launches of an empty kernel reach
// about 334,000 per second (M. Boyer, "CUDA kernel overhead", University of
// Virginia), 3 µs each. Not fitted: no shared measurement is short enough
// to show it.
const KernelLaunchMicroseconds = 3.0

// TailNoteShare is the emptiness of the last wave above which predict notes
// it: more than half of its block slots idle.
const TailNoteShare = 0.5

// tailResult is the prediction after the grid's tail and launch.
type tailResult struct {
	glups float64
	// launchBound: the launch takes more than half of the kernel's time.
	launchBound bool
	// steady is the rate of full waves; blocks, slots and last are the
	// grid's blocks, the block slots of one wave and the blocks of the
	// partial last wave, all zero where the grid has no blocks to wave.
	steady, blocks, slots, last float64
}

// gridTail applies the partial last wave and the launch cost to the steady
// rate of report r on dev (see above).
func gridTail(r *Report, dev *device.Device, bounds []overlapBound, steady, exponent float64) tailResult {
	blocks := float64(r.Launch.Grid[0] * r.Launch.Grid[1] * r.Launch.Grid[2])
	W := float64(r.Launch.BlocksPerSM) * float64(dev.SMs)
	lups := float64(r.Launch.LupCount)
	if !(blocks > 0) || !(W > 0) || !(lups > 0) || !(steady > 0) {
		return tailResult{glups: steady}
	}
	full := math.Floor(blocks / W)
	n := blocks - full*W
	seconds := lups * (full * W / blocks) / (steady * 1e9)
	if n > 0 {
		active := math.Min(float64(dev.SMs), n)
		scaled := make([]overlapBound, len(bounds))
		for i, b := range bounds {
			scaled[i] = b
			switch b.name {
			case "flops", "issue", "L1":
				scaled[i].glups = b.glups * active / float64(dev.SMs)
			case "latency":
				scaled[i].glups = b.glups * n / W
			}
		}
		seconds += lups * (n / blocks) / (pNorm(scaled, exponent) * 1e9)
	}
	launch := KernelLaunchMicroseconds * 1e-6
	seconds += launch
	return tailResult{glups: lups / seconds / 1e9, launchBound: launch > seconds/2, steady: steady, blocks: blocks, slots: W, last: n}
}

// note describes the tail t on dev for the prediction's combination: a
// grid that leaves SMs idle, a last wave mostly empty, and the rate where
// the tail and launch lower it; "" where none applies.
func (t tailResult) note(dev *device.Device) string {
	if t.slots == 0 {
		return ""
	}
	note := ""
	switch {
	case t.blocks < float64(dev.SMs):
		note = fmt.Sprintf("; the grid's %.0f blocks occupy %.0f of %d SMs", t.blocks, t.blocks, dev.SMs)
	case t.last > 0 && 1-t.last/t.slots > TailNoteShare:
		note = fmt.Sprintf("; the last of %.2f waves fills %.0f %% of its block slots", t.blocks/t.slots, 100*t.last/t.slots)
	}
	if note != "" || t.glups < 0.99*t.steady {
		note += fmt.Sprintf("; with the partial last wave and a %g µs launch the grid runs at %.4g of the steady %.4g GLup/s", KernelLaunchMicroseconds, t.glups, t.steady)
	}
	return note
}
