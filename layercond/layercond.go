// Package layercond analyses layer conditions on GPUs: how the DRAM volume of
// a kernel changes as its domain grows and the data that neighbouring rows
// or layers could reuse stops fitting in the L2 cache.
//
// A sweep runs model.Estimate over a series of domains (Series): for a 3-D
// kernel by default the paper's §5.7 series of square XY planes s×s with
// z = 512·1024·1024/s² layers, or planes of a fixed row length X and a
// swept height s; for a 2-D kernel rows of s points, y = 512·1024·1024/s of
// them, where the y layer is the row condition of a 2-D stencil. It records
// per swept extent the DRAM load volumes, the x+y and z overlap volumes and
// the footprints of the y and z layer sets against the L2 capacity (Point).
// The transition of a layer is the largest s at which its reuse still fits,
// found by integer bisection on s (Transition). Sequential gives, for
// comparison, the classic layer condition of a sequential sweep in the form
// Kerncraft reports it, an inequality on X and Y.
//
// # When a layer's reuse fits
//
// The y and z layer sets of the paper's wave-level counting (Ernst et al.
// 2023, docs/references.md; docs/method.md) are the threads one row and
// one layer of blocks before the current wave; their footprint Old_k competes
// with the wave's new data for the L2. Layer k's reuse fits at plane size s
// when its layer set is not empty and the method's own oversubscription of
// that reuse is at most one, O_ov,k ≤ 1 (the paper's DRAM chain, model.Derived.OOv): for
// method reference O_ov,k = (Old_k + New − Ov_k)/L2, i.e. the layer set and
// the wave's data not already in it just fill the effective L2. O_ov,k is the
// argument of the fitted overlap hit curve, which grants almost all of the
// overlap below 1 and almost none above 2 (the paper's capacity curves). Index 0 of every pair
// is the y layer (its overlap includes the x part), index 1 the z layer, as
// in the model.
//
// # When the blocks fit in L1
//
// Beside the L2 layer conditions every point carries the block level's L1
// condition: the L1 lines that the blocks sharing an SM allocate
// (model.Derived.SmL1Alloc, from Basic.BlockL1LoadAlloc) against the L1, as
// the method's L1 oversubscription O_L1 (model.Derived.OL1). They fit when
// O_L1 ≤ 1; above it the fitted L1 curve turns a growing share of the
// block's redundant L1 loads into L2→L1 traffic (L1LoadEvicts, part of
// L2LoadV2). A block's allocation depends on the block and the kernel's
// accesses, hardly on the plane size, so for most kernels the L1 condition
// holds throughout a sweep or nowhere; where it changes, its transition is
// found like the layers' (L1Transition).
package layercond

import (
	"context"
	"errors"
	"fmt"
	"runtime"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/model"
	"github.com/polyvol/polyvol/pool"
)

// Layers names the two layers of every pair in this package, y then z. A
// 2-D kernel has the y layer only: its rows.
var Layers = [2]string{"y", "z"}

// L1 is the Layer of the L1 transition (Result.L1Transition).
const L1 = "L1"

// Config is one sweep: a kernel, a launch shape and a device, the extents
// to visit and how domains are formed from them (Series).
type Config struct {
	Kernel *kernel.Kernel
	Device *device.Device
	Block  [3]int64
	Fold   [3]int64     // thread folding; the zero value means no folding
	Method model.Method // MethodExact when its Name is empty
	// Sizes are the swept extents s (see ParseSweep and Series).
	Sizes []int64
	// Total is X·Y·Z of the domain series; 0 means PaperTotal.
	Total int64
	// Inner, for a 3-D kernel, fixes the row length X and sweeps the plane
	// height Y = s (Series); 0 sweeps square planes. A 2-D kernel takes none.
	Inner int64
	// Workers is the number of sweep points estimated in parallel, each
	// on its own goroutine; 0 means GOMAXPROCS. The y and z
	// bisections that follow run side by side. The result does not depend
	// on it.
	Workers int
	// Progress, when not nil, is called after each extent of Sizes has
	// been estimated (bisection steps are not reported). Calls may come from
	// several goroutines at once.
	Progress func()
	// Work, when not nil, bounds the counting work of the sweep's
	// estimates together, with those of the other sweeps that share it;
	// nil bounds each estimate alone (footprint.DefaultWorkBound).
	Work *Work
}

// Point is the analysis of one domain of the sweep. Volumes per lattice
// update (Lup) are in bytes per Lup, footprints in bytes.
type Point struct {
	S      int64    `json:"s"` // the swept extent
	Domain [3]int64 `json:"domain"`

	// MemLoadV1 is the compulsory DRAM load volume of a wave, without any
	// reuse from earlier waves; MemLoadV2 and MemLoadV3 apply the capacity
	// curves to the layer overlaps and add store-eviction reads (the paper's DRAM chain).
	MemLoadV1 float64 `json:"memLoadV1"`
	MemLoadV2 float64 `json:"memLoadV2"`
	MemLoadV3 float64 `json:"memLoadV3"`
	// MemLoadOverlap is the part of MemLoadV1 the x+y and the z layer sets
	// touched before the wave: what each layer saves if its reuse hits.
	MemLoadOverlap [2]float64 `json:"memLoadOverlap"`
	// NoZReuse is MemLoadV1 − MemLoadOverlap[0], the volume when x and y
	// reuse hit and z reuse is lost: the upper plateau of the paper's §5.7.
	NoZReuse float64 `json:"noZReuse"`
	// FullReuse is MemLoadV1 minus both overlaps, the volume when every
	// layer's reuse hits: the lower plateau, near the minimum of one load
	// per Lup.
	FullReuse float64 `json:"fullReuse"`

	// WaveMemLoadNew is the wave's DRAM load footprint and WaveMemOld the
	// footprints of the y and z layer sets (the paper's wave-level outputs).
	WaveMemLoadNew float64    `json:"waveMemLoadNew"`
	WaveMemOld     [2]float64 `json:"waveMemOld"`
	// OldOverL2 is WaveMemOld over the device's effective L2 capacity.
	OldOverL2 [2]float64 `json:"oldOverL2"`
	// Oversubscription is the method's O_ov of each layer's reuse.
	Oversubscription [2]float64 `json:"waveOverlapOversubscription"`
	// Fits says whether each layer's reuse fits (see the package doc).
	Fits [2]bool `json:"fits"`

	// Grid is the launch grid in blocks and BlocksPerWave the blocks that
	// run together (W), which tell why a layer set may be empty: a grid of
	// a single block layer, for one, has no z layer set.
	Grid          [3]int64 `json:"grid"`
	BlocksPerWave int64    `json:"blocksPerWave"`

	// BlocksPerSM is the number of blocks that share an SM's L1 (β),
	// BlockL1LoadAlloc the L1 lines, in bytes, that one block allocates and
	// SmL1Alloc what the method counts against one SM's L1 (β blocks for
	// method exact, one block for method reference).
	BlocksPerSM      int64   `json:"blocksPerSM"`
	BlockL1LoadAlloc float64 `json:"blockL1LoadAlloc"`
	SmL1Alloc        float64 `json:"smL1Alloc"`
	// L1Oversubscription is the method's O_L1: SmL1Alloc over the L1 (over
	// √(L1·128 KiB) for method reference).
	L1Oversubscription float64 `json:"L1Oversubscription"`
	// L1Load is the volume the warps request from L1, L2LoadV1 the blocks'
	// compulsory L2→L1 load, L1LoadEvicts the L1 capacity misses and
	// L2LoadV2 the L2→L1 load with them (B/Lup, predict's derived keys).
	L1Load       float64 `json:"L1Load"`
	L2LoadV1     float64 `json:"L2LoadV1"`
	L1LoadEvicts float64 `json:"L1LoadEvicts"`
	L2LoadV2     float64 `json:"L2LoadV2"`
	// L1Fits says whether the blocks' allocation fits in L1: O_L1 ≤ 1.
	L1Fits bool `json:"L1Fits"`
}

// Transition is where one layer's reuse stops fitting as the swept extent
// grows.
type Transition struct {
	Layer string `json:"layer"` // "y", "z" or "L1"
	// Kind is TransitionFound, FitsThroughout or NeverFits.
	Kind string `json:"kind"`
	// S is the largest extent at which the layer's reuse (for L1: the
	// blocks' allocation) fits: the exact
	// transition for TransitionFound, the largest size of the sweep for
	// FitsThroughout, 0 for NeverFits.
	S int64 `json:"s,omitempty"`
	// Last and First are the points at S, where the reuse fits, and at S+1,
	// where it does not (TransitionFound only).
	Last  *Point `json:"last,omitempty"`
	First *Point `json:"first,omitempty"`
	// Estimates counts the model.Estimate calls the bisection made.
	Estimates int `json:"estimates"`
}

// The kinds of Transition.
const (
	// TransitionFound: the reuse fits at S and not at S+1, where S lies
	// between the last sweep size at which it fits and the next size.
	TransitionFound = "transition"
	// FitsThroughout: the reuse fits at the largest size of the sweep.
	FitsThroughout = "fits throughout"
	// NeverFits: the reuse fits at no size of the sweep.
	NeverFits = "never fits"
)

// Result is a finished sweep.
type Result struct {
	Kernel  string   `json:"kernel"`
	Device  string   `json:"device"`
	Method  string   `json:"method"`
	Block   [3]int64 `json:"block"`
	Fold    [3]int64 `json:"fold"`
	Total   int64    `json:"total"`           // X·Y·Z of the domain series
	Dims    int      `json:"dims"`            // the kernel's dimensions (Series)
	Inner   int64    `json:"inner,omitempty"` // the fixed row length of a 3-D series, 0 for square planes
	L2Bytes int64    `json:"L2Bytes"`         // effective L2 capacity
	Points  []Point  `json:"points"`
	// Transitions are the y and z transitions, in that order; a 2-D
	// kernel's is the y transition only, its row condition.
	Transitions []Transition `json:"transitions"`
	// L1Bytes is the L1 capacity of one SM and L1Transition where the
	// blocks' allocation stops fitting in it (Point.L1Fits).
	L1Bytes      int64      `json:"L1Bytes"`
	L1Transition Transition `json:"L1Transition"`
}

// Series returns the domain series of r.
func (r *Result) Series() Series { return Series{Dims: r.Dims, Total: r.Total, Inner: r.Inner} }

// Sweep estimates every extent of c and locates the y, z (3-D kernels) and
// L1 transitions.
func Sweep(c Config) (*Result, error) { return SweepContext(context.Background(), c) }

// SweepContext is Sweep stopping when ctx ends: it starts no estimate after
// that and returns ctx's error.
func SweepContext(ctx context.Context, c Config) (*Result, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	c = c.withDefaults()
	points, err := c.points(ctx)
	if err != nil {
		return nil, err
	}
	layers := c.Kernel.Dims - 1
	res := &Result{
		Kernel: c.Kernel.Name, Device: c.Device.Name, Method: c.Method.Name,
		Block: c.Block, Fold: c.Fold, Total: c.Total, Dims: c.Kernel.Dims, Inner: c.Inner,
		L2Bytes: c.Device.L2Bytes, Points: points, L1Bytes: c.Device.L1Bytes,
		Transitions: make([]Transition, layers),
	}
	// The bisections are independent; each runs on its own worker.
	targets := []*Transition{&res.L1Transition}
	conditions := []func(Point) bool{func(p Point) bool { return p.L1Fits }}
	names := []string{L1}
	for k := range layers {
		targets = append(targets, &res.Transitions[k])
		conditions = append(conditions, func(p Point) bool { return p.Fits[k] })
		names = append(names, Layers[k])
	}
	err = pool.Run(ctx, len(targets), pool.Options{Workers: len(targets)}, func(i int) (err error) {
		*targets[i], err = c.transition(ctx, names[i], conditions[i], points)
		return err
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// Evaluate estimates the single extent s of c's series (c.Sizes is not
// used); the estimate stops when ctx ends and returns its error.
func Evaluate(ctx context.Context, c Config, s int64) (Point, error) {
	c = c.withDefaults()
	if err := c.check(); err != nil {
		return Point{}, err
	}
	if err := c.checkSize(s); err != nil {
		return Point{}, err
	}
	return c.evaluate(ctx, s)
}

// Validate reports whether c can be swept: a kernel with a 2-D or 3-D
// domain (an Inner extent for 3-D only) and a device, extents that are
// positive and ascending, and at every extent a valid launch
// (kernel.Launch.Validate) of accesses that hold there
// (kernel.Kernel.AtDomain).
// Its errors are the caller's: a bad configuration, not an engine failure.
func (c Config) Validate() error {
	c = c.withDefaults()
	if err := c.check(); err != nil {
		return err
	}
	if len(c.Sizes) == 0 {
		return errors.New("layercond: no extents to sweep")
	}
	for i, s := range c.Sizes {
		if s < 1 || (i > 0 && s <= c.Sizes[i-1]) {
			return fmt.Errorf("layercond: swept extents must be positive and ascending, got %v", c.Sizes)
		}
		if err := c.checkSize(s); err != nil {
			return err
		}
	}
	return nil
}

// withDefaults returns c with the zero values of Method, Fold, Total and
// Workers replaced by their defaults.
func (c Config) withDefaults() Config {
	if c.Method.Name == "" {
		c.Method = model.MethodExact
	}
	if c.Fold == ([3]int64{}) {
		c.Fold = kernel.NoFold
	}
	if c.Total == 0 {
		c.Total = PaperTotal
	}
	if c.Workers <= 0 {
		c.Workers = runtime.GOMAXPROCS(0)
	}
	return c
}

// check validates what does not depend on the plane size.
func (c Config) check() error {
	if c.Kernel == nil || c.Device == nil {
		return errors.New("layercond: a kernel and a device are required")
	}
	if c.Kernel.Dims < 2 {
		return &kernel.SpecError{File: c.Kernel.Source, Msg: fmt.Sprintf("domain: kernel %s is 1-D, without rows or layers to reuse; layercond sweeps the rows of a 2-D kernel or the planes of a 3-D one", c.Kernel.Name)}
	}
	if c.Inner < 0 || (c.Inner > 0 && c.Kernel.Dims != 3) {
		return fmt.Errorf("layercond: inner extent %d: expected a positive row length for a 3-D kernel (kernel %s is %d-D), or 0 for square planes", c.Inner, c.Kernel.Name, c.Kernel.Dims)
	}
	if c.Total < 1 {
		return fmt.Errorf("layercond: series total %d: expected a positive number of lattice points", c.Total)
	}
	return nil
}

// series returns the domain series of c.
func (c Config) series() Series { return Series{Dims: c.Kernel.Dims, Total: c.Total, Inner: c.Inner} }

// checkSize validates the accesses (kernel.AtDomain) and the launch at
// extent s.
func (c Config) checkSize(s int64) error {
	d := c.series().Domain(s)
	k, err := c.Kernel.AtDomain(d)
	if err == nil {
		err = k.NewLaunch(c.Block, c.Fold).Validate()
	}
	if err != nil {
		return fmt.Errorf("layercond: %s = %d (domain %d,%d,%d): %w", c.series().Swept(), s, d[0], d[1], d[2], err)
	}
	return nil
}

// points estimates every extent of the sweep on c.Workers workers of the
// project's pool until stop ends, which also stops the estimates running.
func (c Config) points(stop context.Context) ([]Point, error) {
	points := make([]Point, len(c.Sizes))
	var progress func(done, total int)
	if c.Progress != nil {
		progress = func(int, int) { c.Progress() }
	}
	err := pool.Run(stop, len(c.Sizes), pool.Options{Workers: c.Workers, Progress: progress},
		func(i int) (err error) {
			points[i], err = c.evaluate(stop, c.Sizes[i])
			return err
		})
	return points, err
}

// transition locates the transition of the condition fits, named layer:
// the last sweep point at which it holds and the next one bracket it, and
// integer bisection on s between them finds the largest s at which it
// holds; it stops when stop ends.
func (c Config) transition(stop context.Context, layer string, fits func(Point) bool, points []Point) (Transition, error) {
	t := Transition{Layer: layer, Kind: NeverFits}
	last := -1
	for i, p := range points {
		if fits(p) {
			last = i
		}
	}
	switch {
	case last < 0:
		return t, nil
	case last == len(points)-1:
		t.Kind, t.S = FitsThroughout, points[last].S
		return t, nil
	}
	lo, hi := points[last], points[last+1]
	for hi.S-lo.S > 1 {
		if err := stop.Err(); err != nil {
			return t, err
		}
		p, err := c.evaluate(stop, lo.S+(hi.S-lo.S)/2)
		if err != nil {
			return t, err
		}
		t.Estimates++
		if fits(p) {
			lo = p
		} else {
			hi = p
		}
	}
	t.Kind, t.S, t.Last, t.First = TransitionFound, lo.S, &lo, &hi
	return t, nil
}

// evaluate estimates extent s; the estimate stops when stop ends.
func (c Config) evaluate(stop context.Context, s int64) (Point, error) {
	d := c.series().Domain(s)
	k := c.Kernel.WithDomain(d)
	l := k.NewLaunch(c.Block, c.Fold)
	r, err := c.Work.estimate(k, l, c.Device, model.Options{Method: c.Method, Context: stop})
	if err != nil {
		return Point{}, fmt.Errorf("layercond: %s = %d (domain %d,%d,%d): %w", c.series().Swept(), s, d[0], d[1], d[2], err)
	}
	dv, b := r.Derived, r.Basic
	p := Point{
		S: s, Domain: d,
		MemLoadV1: dv.MemLoadV1, MemLoadV2: dv.MemLoadV2, MemLoadV3: dv.MemLoadV3,
		MemLoadOverlap:   dv.MemLoadOverlap,
		NoZReuse:         dv.MemLoadV1 - dv.MemLoadOverlap[0],
		FullReuse:        dv.MemLoadV1 - dv.MemLoadOverlap[0] - dv.MemLoadOverlap[1],
		WaveMemLoadNew:   b.WaveMemLoadNew,
		WaveMemOld:       b.WaveMemOld,
		Oversubscription: dv.OOv,

		Grid: r.Launch.Grid, BlocksPerWave: r.Launch.BlocksPerWave,
		BlocksPerSM: r.Launch.BlocksPerSM, BlockL1LoadAlloc: b.BlockL1LoadAlloc, SmL1Alloc: dv.SmL1Alloc,
		L1Oversubscription: dv.OL1,
		L1Load:             dv.L1Load, L2LoadV1: dv.L2LoadV1, L1LoadEvicts: dv.L1LoadEvicts, L2LoadV2: dv.L2LoadV2,
		L1Fits: dv.OL1 <= 1,
	}
	for i := range 2 {
		p.OldOverL2[i] = b.WaveMemOld[i] / float64(c.Device.L2Bytes)
		p.Fits[i] = b.WaveMemOld[i] > 0 && dv.OOv[i] <= 1
	}
	return p, nil
}
