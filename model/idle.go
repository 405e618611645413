package model

import (
	"fmt"

	"github.com/polyvol/polyvol/kernel"
)

// Idle threads.
//
// A thread is idle when every lattice point it would update lies outside the
// domain. A thread's first point grows with its thread coordinate under
// either tiling (kernel.Launch.PointCoord), so along each dimension the
// active threads are a prefix of every block: all of them in every block
// but the last, and kernel.Launch.ActiveThreadsInBlock of the last. The
// launch starts g_i·b_i threads along i, so with a_i the active threads
// along i (kernel.Launch.ActiveThreads)
//
//	active threads   = a_0·a_1·a_2
//	launched threads = g_0·b_0 · g_1·b_1 · g_2·b_2
//
// and the idle fraction is 1 − active/launched, which is also the mean share
// of idle threads per block (every block has b_0·b_1·b_2 threads). Idle
// threads come from two sources: blocks shaped for more dimensions than the
// domain has (a 4,4,64 block on a 1-D domain: 1020 of 1024 idle) and partial
// blocks at the domain's edge.
//
// What idle threads do physically: the guard of the generated kernel sends
// them home at once, so they issue no loads and no floating-point
// instructions and the volumes per lattice update are those of the active
// threads (method exact already normalises them by the updated points). But
// they are resident: a block holds its warp slots, registers and its place
// among the β blocks of an SM until its last warp finishes, so the SM's
// occupancy is spent on threads that do no work. Two things follow, and
// Estimate's latency model takes both into account:
//
//   - Warps whose threads are all idle exit at once and hide no latency: the
//     warps in flight per SM are β times the active warps per block, not β
//     times all warps.
//   - A warp with some idle lanes issues the same instructions as a full
//     warp but updates fewer points: its per-warp cost is the same, its
//     lattice updates are (active lanes)·λ instead of 32·λ.
//
// The roofline model (the paper's) has no notion of threads in flight, so
// idle threads leave its bounds unchanged; explore's ranking and predict's
// note handle them there (see IdleNoteThreshold).

// IdleThreads counts the threads and warps of a launch that have work.
type IdleThreads struct {
	Launched    int64 // threads started: grid · block, per dimension multiplied
	Active      int64 // threads with at least one lattice point in the domain
	Warps       int64 // warps started: blocks · ⌈threads per block / warp size⌉
	ActiveWarps int64 // warps with at least one active thread
	Blocks      int64 // blocks of the grid
}

// Idle returns the idle threads, Launched − Active.
func (t IdleThreads) Idle() int64 { return t.Launched - t.Active }

// Fraction returns the idle share of the launched threads, which equals the
// mean idle share of a block's threads; 0 for an empty launch.
func (t IdleThreads) Fraction() float64 {
	if t.Launched == 0 {
		return 0
	}
	return float64(t.Idle()) / float64(t.Launched)
}

// ActiveWarpsPerBlock returns the mean number of warps per block that hold
// at least one active thread.
func (t IdleThreads) ActiveWarpsPerBlock() float64 {
	if t.Blocks == 0 {
		return 0
	}
	return float64(t.ActiveWarps) / float64(t.Blocks)
}

// ActiveLanesPerWarp returns the mean number of active threads in a warp
// that has any.
func (t IdleThreads) ActiveLanesPerWarp() float64 {
	if t.ActiveWarps == 0 {
		return 0
	}
	return float64(t.Active) / float64(t.ActiveWarps)
}

// IdleNoteThreshold is the idle fraction above which predict notes the idle
// threads and explore ranks a configuration after every configuration at or
// below it: more than a quarter of a block's threads without work.
const IdleNoteThreshold = 0.25

// CountIdleThreads counts the active threads and warps of launch l exactly,
// with warps of warpSize consecutive linear thread indices
// (threadIdx.x + b_0·threadIdx.y + b_0·b_1·threadIdx.z) of a block. Along
// each dimension every block but the last has all b_i threads active when
// the domain reaches past it, and the last has a_i − (g_i−1)·b_i; so there
// are at most eight kinds of block, and the warps of each kind are checked
// thread by thread (at most 1024 threads per kind, independent of the
// domain).
func CountIdleThreads(l kernel.Launch, warpSize int64) IdleThreads {
	a := l.ActiveThreads()
	g := l.Grid()
	b := l.Block
	var t IdleThreads
	t.Blocks = g[0] * g[1] * g[2]
	t.Launched = t.Blocks * b[0] * b[1] * b[2]
	t.Active = a[0] * a[1] * a[2]
	warpsPerBlock := (b[0]*b[1]*b[2] + warpSize - 1) / warpSize
	t.Warps = t.Blocks * warpsPerBlock
	// kinds[i] lists (active extent, number of blocks) along dimension i.
	var kinds [3][][2]int64
	for i := range 3 {
		last := l.ActiveThreadsInBlock(i, g[i]-1)
		if g[i] > 1 {
			kinds[i] = append(kinds[i], [2]int64{b[i], g[i] - 1})
		}
		kinds[i] = append(kinds[i], [2]int64{last, 1})
	}
	for _, kx := range kinds[0] {
		for _, ky := range kinds[1] {
			for _, kz := range kinds[2] {
				n := kx[1] * ky[1] * kz[1]
				t.ActiveWarps += n * kernel.ActiveWarpsIn(b, [3]int64{kx[0], ky[0], kz[0]}, warpSize)
			}
		}
	}
	return t
}

// IdleNote describes the idle threads of a launch for a note on standard
// error, or returns "" when at most IdleNoteThreshold of the threads are
// idle.
func IdleNote(l kernel.Launch, warpSize int64) string {
	t := CountIdleThreads(l, warpSize)
	if t.Fraction() <= IdleNoteThreshold {
		return ""
	}
	return fmt.Sprintf("%.1f %% of the launched threads are idle (%d of %d: no lattice point of domain %dx%dx%d for block %dx%dx%d, fold %dx%dx%d%s); "+
		"they hold warp slots and registers but do no work, so a block with fewer threads in the unused dimensions runs faster",
		100*t.Fraction(), t.Idle(), t.Launched, l.Domain[0], l.Domain[1], l.Domain[2],
		l.Block[0], l.Block[1], l.Block[2], l.Fold[0], l.Fold[1], l.Fold[2], l.Tiling.Suffix())
}
