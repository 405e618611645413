package kernel

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/polyvol/polyvol/intmath"
)

// MaxThreadsPerBlock is the hardware limit on threads per block.
const MaxThreadsPerBlock = 1024

// MaxLupsPerThread bounds the lattice points one thread computes, the
// product of the folding factors: each point adds its accesses to the
// thread's unrolled instruction list, and the engine's cost grows with it.
const MaxLupsPerThread = 1024

// MaxUnrolledLupsPerThread is the most lattice points whose code a thread
// runs unrolled: polyvol cuda writes each point's accesses out, up to this
// many, so that a thread issues the loads of all its points together. A
// thread with more points loops over them, as a reduction's thread loops
// over the reduced coordinate.
const MaxUnrolledLupsPerThread = 64

// MaxGridDim is the largest grid CUDA launches per dimension, in blocks.
// Estimates do not need it; GridNote reports a launch beyond it.
var MaxGridDim = [3]int64{1<<31 - 1, 65535, 65535}

// MaxBlockDim is the largest block size allowed per dimension (x, y, z).
var MaxBlockDim = [3]int64{1024, 1024, 64}

// maxLups bounds products of domain sizes so that derived counts stay far
// from int64 overflow.
const maxLups = int64(1) << 50

// NoFold is the folding factor of a thread that computes one lattice point.
var NoFold = [3]int64{1, 1, 1}

// Launch is a launch configuration: block size b, thread folding f (each
// thread computes f[i] points in dimension i, placed by Tiling) and the
// domain D in lattice points, all x first.
type Launch struct {
	Block  [3]int64
	Fold   [3]int64
	Domain [3]int64
	Tiling Tiling // where a thread's f points lie; the zero value is TileConsecutive
	// Unstaged reads the fields that the spec stages in shared memory
	// from global memory instead (Launch.Staged).
	Unstaged bool
	// Steps is the time steps one launch performs (temporal blocking:
	// StepCount, Kernel.CheckSteps); 0 means one.
	Steps int64
}

// NewLaunch returns the launch of k's domain with the given block and fold,
// and the spec's time steps.
func (k *Kernel) NewLaunch(block, fold [3]int64) Launch {
	return Launch{Block: block, Fold: fold, Domain: k.Domain, Steps: k.Steps}
}

var axisNames = [3]string{"x", "y", "z"}

// Validate checks the configuration against the hardware limits (at most
// 1024 threads per block and 1024, 1024, 64 per dimension) and requires every
// entry to be at least 1. Errors name the offending entry.
func (l Launch) Validate() error {
	for i := range 3 {
		if l.Block[i] < 1 {
			return fmt.Errorf("block %s = %d: must be at least 1", axisNames[i], l.Block[i])
		}
		if l.Block[i] > MaxBlockDim[i] {
			return fmt.Errorf("block %s = %d: exceeds the hardware limit %d", axisNames[i], l.Block[i], MaxBlockDim[i])
		}
		if l.Fold[i] < 1 {
			return fmt.Errorf("fold %s = %d: must be at least 1", axisNames[i], l.Fold[i])
		}
		if l.Domain[i] < 1 {
			return fmt.Errorf("domain %s = %d: must be at least 1", axisNames[i], l.Domain[i])
		}
		if l.Fold[i] > l.Domain[i] {
			return fmt.Errorf("fold %s = %d: larger than the domain (%d points)", axisNames[i], l.Fold[i], l.Domain[i])
		}
	}
	if int(l.Tiling) >= len(tilingNames) {
		return fmt.Errorf("tiling %d: want consecutive or strided", l.Tiling)
	}
	if n := l.ThreadsPerBlock(); n > MaxThreadsPerBlock {
		return fmt.Errorf("block %d×%d×%d has %d threads, more than the limit %d", l.Block[0], l.Block[1], l.Block[2], n, MaxThreadsPerBlock)
	}
	if l.Fold[0] > MaxLupsPerThread/l.Fold[1] || l.Fold[0]*l.Fold[1] > MaxLupsPerThread/l.Fold[2] {
		return fmt.Errorf("fold %d×%d×%d gives more than %d lattice points per thread", l.Fold[0], l.Fold[1], l.Fold[2], MaxLupsPerThread)
	}
	if l.Domain[0] > maxLups/l.Domain[1] || l.Domain[0]*l.Domain[1] > maxLups/l.Domain[2] {
		return fmt.Errorf("domain %d×%d×%d has more than 2^50 points", l.Domain[0], l.Domain[1], l.Domain[2])
	}
	return nil
}

// Grid returns the grid size in blocks, g_i = ⌈D_i/(b_i·f_i)⌉.
func (l Launch) Grid() [3]int64 {
	var g [3]int64
	for i := range g {
		g[i] = intmath.CeilDiv(l.Domain[i], l.Block[i]*l.Fold[i])
	}
	return g
}

// GridNote describes how the grid exceeds MaxGridDim, or returns "" when a
// single CUDA launch can run it. The model still applies to such a grid: a
// real kernel covers it with several launches or a grid-stride loop.
func (l Launch) GridNote() string {
	g := l.Grid()
	for i := range g {
		if g[i] > MaxGridDim[i] {
			return fmt.Sprintf("grid %s = %d blocks exceeds the %d blocks one CUDA launch allows; a real kernel needs several launches or a grid-stride loop", axisNames[i], g[i], MaxGridDim[i])
		}
	}
	return ""
}

// Blocks returns the number of blocks of the grid, g0·g1·g2.
func (l Launch) Blocks() int64 {
	g := l.Grid()
	return g[0] * g[1] * g[2]
}

// ThreadsPerBlock returns B = b0·b1·b2.
func (l Launch) ThreadsPerBlock() int64 { return l.Block[0] * l.Block[1] * l.Block[2] }

// LupsPerThread returns λ = f0·f1·f2, the lattice points one thread computes.
func (l Launch) LupsPerThread() int64 { return l.Fold[0] * l.Fold[1] * l.Fold[2] }

// ParseTriple parses a flag value "X,Y,Z" (or "X,Y" or "X", padded with 1)
// of positive integers. The entries may also be separated by "x", as in
// "16x2x32", the form the CSV output writes; one value uses one separator.
func ParseTriple(s string) ([3]int64, error) {
	t := [3]int64{1, 1, 1}
	sep := ","
	if !strings.Contains(s, ",") && strings.Contains(s, "x") {
		sep = "x"
	}
	parts := strings.Split(s, sep)
	if len(parts) > 3 {
		return t, fmt.Errorf("%q: expected 1 to 3 integers separated by , or x, got %d entries", s, len(parts))
	}
	for i, p := range parts {
		p = strings.TrimSpace(p)
		v, err := strconv.ParseInt(p, 10, 64)
		if err != nil {
			return t, fmt.Errorf("%q: entry %d (%s): %q is not an integer", s, i+1, axisNames[i], p)
		}
		if v < 1 {
			return t, fmt.Errorf("%q: entry %d (%s) = %d: must be at least 1", s, i+1, axisNames[i], v)
		}
		t[i] = v
	}
	return t, nil
}
