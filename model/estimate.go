package model

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/polyvol/polyvol/compiled"
	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/footprint"
	"github.com/polyvol/polyvol/geometry"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/lattice"
	"github.com/polyvol/polyvol/waves"
)

// ErrNoAccessInWave is matched (with errors.Is) by the error of an estimate
// whose accesses all apply only near the domain's edges, so that none
// reaches the representative wave the volumes per lattice update come
// from: an imported reduction under a launch without the fold over its
// reduced loops, say. The launch is to change.
var ErrNoAccessInWave = errors.New("model: no access of the kernel reaches the representative wave")

// Options select how Estimate works.
type Options struct {
	Method Method    // MethodExact when its Name is empty
	Model  ModelName // overlap (default), roofline, latency or su2015
	// WorkBound bounds the counting work of the estimate, in the units of
	// footprint.Budget; 0 means footprint.DefaultWorkBound. An estimate that
	// needs more fails with an error wrapping footprint.ErrWorkBound.
	WorkBound int64
	// MemoryBound bounds, in bytes, the memory of one estimate while it
	// counts (footprint.Budget.MemoryLimit): the process may hold this much
	// for each estimate running at once, and an estimate that finds it
	// holding more fails with an error wrapping footprint.ErrMemoryBound.
	// 0 means none.
	MemoryBound int64
	// Instructions shares the kernel's per-thread instructions between the
	// estimates of a sweep (explore); Estimate makes one of its own when it
	// is nil, which its own steps share.
	Instructions *footprint.InstructionCache
	// StepRegions shares the counts of the step regions of a kernel with
	// time steps between the estimates of a sweep (explore over --steps);
	// Estimate makes one of its own when it is nil.
	StepRegions *StepRegionCache
	// Counts shares the granule counts of the estimates' footprints between
	// the estimates of a sweep, or the requests of a long-lived process
	// (footprint.CountMemo, exact); nil keeps each estimate's counts to
	// itself.
	Counts *footprint.CountMemo
	// Code compiles the kernel of the estimate and reads its instruction
	// mix and registers (package compiled's Provider); nil, or a compile
	// that is not to be had (an error wrapping compiled.ErrUnavailable),
	// counts the mix from the spec instead (CountInstructions).
	Code CodeProvider
	// Context stops the estimate when it ends: Estimate then returns an
	// error wrapping the context's error, at once when it has ended before,
	// else at the next step of counting. nil means none.
	Context context.Context
	// Budget, when not nil, is the budget the estimate charges its
	// counting work to, instead of a new one of WorkBound, MemoryBound and
	// Context (SharedBudget): estimates run one after another with it bound
	// their work together.
	Budget *footprint.Budget
}

// budget returns the budget an estimate under o charges: o.Budget, or a
// new one of o's bounds and context.
func (o Options) budget() *footprint.Budget {
	if o.Budget != nil {
		return o.Budget
	}
	return &footprint.Budget{Limit: o.WorkBound, MemoryLimit: o.MemoryBound, Context: o.Context}
}

// SharedBudget returns o with a Budget of o's WorkBound, MemoryBound and
// Context, which every estimate run with the result charges: their work
// together, one estimate after another (the statements of a region),
// stays within WorkBound.
func (o Options) SharedBudget() Options {
	o.Budget = o.budget()
	return o
}

// CodeProvider compiles the kernel of an estimate: k under launch l for
// dev's architecture.
type CodeProvider interface {
	Code(k *kernel.Kernel, l kernel.Launch, dev *device.Device) (*compiled.Code, error)
}

// LaunchInfo describes the launch as the engine saw it.
type LaunchInfo struct {
	Block  [3]int64      `json:"block"`
	Fold   [3]int64      `json:"fold"`
	Tiling kernel.Tiling `json:"tiling,omitempty"` // where a thread's fold points lie; left out for thread folding
	// Unstaged: the spec's staged fields are read from global memory
	// (kernel.Launch.Unstaged); left out when false or nothing is staged.
	Unstaged bool `json:"unstaged,omitempty"`
	// Steps is the time steps per launch (kernel.Launch.StepCount),
	// ComputedPerUseful the updates computed per useful one
	// (kernel.StepWork) and IssuedPerUseful the lanes that the warps issue
	// over the steps per lane of the block's own updates
	// (kernel.StepWork.IssuedPerUseful): left out for a kernel without a
	// state. Volumes, cycles, flops and GLup/s are per time step and useful
	// update.
	Steps             int64    `json:"steps,omitempty"`
	ComputedPerUseful float64  `json:"computedPerUseful,omitempty"`
	IssuedPerUseful   float64  `json:"issuedPerUseful,omitempty"`
	Domain            [3]int64 `json:"domain"`
	Grid              [3]int64 `json:"grid"`
	ThreadsPerBlock   int64    `json:"threadsPerBlock"`
	LupsPerThread     int64    `json:"lupsPerThread"`
	BlocksPerSM       int64    `json:"blocksPerSM"`
	BlocksPerWave     int64    `json:"blocksPerWave"`
	OccupancyLimiter  string   `json:"occupancyLimiter,omitempty"` // resource limiting blocks per SM (occupancy calculator only)
	WavesInGrid       float64  `json:"wavesInGrid"`
	WaveValidThreads  int64    `json:"waveValidThreads"` // n_cur: valid threads of the representative wave
	FlopsPerLup       float64  `json:"flopsPerLup"`
	LupCount          int64    `json:"lupCount"`
}

// Prediction is the performance a model predicts and what limits it.
type Prediction struct {
	Model   ModelName `json:"model"`
	GLups   float64   `json:"GLups"`   // predicted lattice updates per second, 10^9
	Limiter string    `json:"limiter"` // the resource that bounds it
	// Regime is "latency-bound" or "throughput-bound" (latency model only).
	Regime string `json:"regime,omitempty"`
	// NeededWarpsPerSM is the occupancy that saturates the limiter (latency
	// model only).
	NeededWarpsPerSM float64          `json:"neededWarpsPerSM,omitempty"`
	Latency          *LatencyEstimate `json:"latency,omitempty"`
	// Combination says how the model turns Bounds into GLups (overlap and
	// su2015 models); Note warns where the model is used outside its scope.
	Combination string  `json:"combination,omitempty"`
	Bounds      []Bound `json:"bounds,omitempty"`
	Note        string  `json:"note,omitempty"`
}

// Bound is one throughput bound that a performance model combines.
type Bound struct {
	Name        string  `json:"name"`
	BytesPerLup float64 `json:"bytesPerLup,omitempty"` // the volume a bandwidth bound moves
	// Volume names the version of that volume (docs/metrics.md §5.4): the
	// overlap model's DRAM bound moves DRAM load V3 and store V2 ("V3"),
	// its L2 bound L2 load V2 and the stores ("V2"); su2015's links move
	// the compulsory volumes ("V1").
	Volume string  `json:"volume,omitempty"`
	GBs    float64 `json:"GBs,omitempty"` // the bandwidth it moves it at
	GLups  float64 `json:"GLups"`
}

// Report is everything Estimate computes for one configuration. Its JSON
// keys are a contract: metric names follow docs/metrics.md.
type Report struct {
	Kernel  string     `json:"kernel"`
	Device  string     `json:"device"`
	Method  string     `json:"method"`
	Launch  LaunchInfo `json:"launch"`
	Basic   Basic      `json:"basic"`
	Derived Derived    `json:"derived"`
	// Instructions is one thread's instruction mix per lattice update,
	// compiled or counted, which sets Derived's issue bound.
	Instructions *InstructionMix `json:"instructions,omitempty"`
	Prediction   Prediction      `json:"prediction"`
	// Notes are what the caller found worth saying about the estimate
	// (kernel.Lint, LaunchNotes); Estimate leaves them empty.
	Notes []Note `json:"notes,omitempty"`
}

// Estimate predicts the data volumes, L1 cycles, limiters and performance of
// kernel k (lattice-point accesses, as loaded) under launch l on dev.
func Estimate(k *kernel.Kernel, l kernel.Launch, dev *device.Device, opt Options) (*Report, error) {
	perf, method, err := checkEstimate(k, l, opt)
	if err != nil {
		return nil, err
	}
	// Global memory sees a staged field's tile copies (kernel.GlobalView);
	// its tiles take shared memory.
	global, err := kernel.GlobalView(k, l)
	if err != nil {
		return nil, err
	}
	sharedBytes, err := kernel.StagedSharedBytes(k, l)
	if err != nil {
		return nil, err
	}
	code, unavailable, err := compileKernel(k, l, dev, opt.Code)
	if err != nil {
		return nil, err
	}
	g := geometry.NewGeometry(l)
	B := g.ThreadsPerBlock()
	beta, limiter, occupancyNote, err := blocksPerSM(method, dev, B, k, code, sharedBytes)
	if err != nil {
		return nil, err
	}
	if beta < 1 {
		return nil, &device.NoFitError{Device: dev.Name, ThreadsPerBlock: int(B),
			Reason: fmt.Sprintf("%d threads × %d registers exceed the 65536 registers of the reference's rule", B, k.Registers)}
	}
	W := beta * int64(dev.SMs)
	budget := opt.budget()
	defer budget.Track()()
	eng := &footprint.Engine{Mapper: &geometry.AccessMapper{Kernel: global, Geom: g, PointGuard: method.ClipToDomain}, Budget: budget, Counts: opt.Counts}
	instructions := opt.Instructions
	if instructions == nil {
		instructions = footprint.NewInstructionCache()
	}
	lists, err := instructions.Instructions(k, l, dev.Memory(), method.Warp.Fusion)
	if err != nil {
		return nil, err
	}
	steps, err := stepScalesOf(k, l, dev)
	if err != nil {
		return nil, err
	}
	shape := waveShape(method, g, W)
	regions := opt.StepRegions
	if regions == nil {
		regions = NewStepRegionCache()
	}
	basic, staging, err := countBasic(eng, lists, regions, k, l, dev, method, shape, W)
	if err != nil {
		return nil, err
	}
	rep := &Report{
		Kernel: k.Name, Device: dev.Name, Method: method.Name, Basic: basic,
		Launch: LaunchInfo{
			Block: l.Block, Fold: l.Fold, Tiling: l.Tiling, Domain: l.Domain, Grid: g.Grid,
			Unstaged:        l.Unstaged && slices.ContainsFunc(k.Fields, func(f *kernel.Field) bool { return f.Stage != nil }),
			ThreadsPerBlock: B, LupsPerThread: l.LupsPerThread(), BlocksPerSM: beta, BlocksPerWave: W,
			OccupancyLimiter: limiter, WavesInGrid: float64(g.Blocks()) / float64(W),
			WaveValidThreads: shape.ValidThreads, FlopsPerLup: k.Flops * steps.perPoint, LupCount: k.Lups(),
		},
	}
	if k.StateField() != nil {
		rep.Launch.Steps, rep.Launch.ComputedPerUseful, rep.Launch.IssuedPerUseful = l.StepCount(), steps.perPoint, steps.perLane
	}
	launch := derivedLaunch(k, l, method, W, shape, beta, steps)
	if code != nil {
		launch.Spill = spillTraffic(code, l.LupsPerThread(), beta, B, *dev)
		if l.StepCount() == 1 {
			// Over several steps the code's static counts include the
			// guarded halo updates that most lanes skip; the spec's
			// flops times the lanes issued per useful update count them
			// exactly.
			launch.FlinsPerLup, launch.FPBytes = compiledPipe(code, l, *dev)
		}
	}
	if rep.Derived, err = Derive(basic, launch, *dev, method); err != nil {
		return nil, err
	}
	if err := addIssueBound(rep, lists, staging, k, l, dev, code, unavailable); err != nil {
		return nil, err
	}
	rep.Instructions.OccupancyNote = occupancyNote
	if rep.Prediction, err = perf.Predict(rep, dev, k.FPType); err != nil {
		return nil, err
	}
	return rep, nil
}

// checkEstimate validates Estimate's inputs and returns the performance
// model and the method that opt names, or their defaults.
func checkEstimate(k *kernel.Kernel, l kernel.Launch, opt Options) (PerformanceModel, Method, error) {
	method := opt.Method
	if method.Name == "" {
		method = MethodExact
	}
	if opt.Context != nil && opt.Context.Err() != nil {
		return nil, method, fmt.Errorf("estimate not started: %w", opt.Context.Err())
	}
	if err := l.Validate(); err != nil {
		return nil, method, err
	}
	if err := k.CheckSteps(l); err != nil {
		return nil, method, err
	}
	if err := k.ExpressionsError(); err != nil {
		return nil, method, err
	}
	modelName := opt.Model
	if modelName == "" {
		modelName = DefaultModel
	}
	perf, err := PerformanceModelByName(modelName)
	return perf, method, err
}

// waveShape returns the representative wave of W blocks that the method
// counts: the exact wave that it samples, or the reference's box.
func waveShape(m Method, g geometry.Geometry, W int64) waves.Shape {
	if m.SampleWave {
		return waves.ExactShape(g, W)
	}
	return waves.ReferenceShape(g, W)
}

// sampleBlocks returns the sample blocks of the block-level metrics as
// thread boxes and as block indices: the sampled wave's blocks, or the
// reference's sample (spec §2.5).
func sampleBlocks(m Method, g geometry.Geometry, l kernel.Launch, shape waves.Shape) ([]lattice.Box, [][3]int64) {
	if !m.SampleWave {
		idx := footprint.ReferenceSampleBlocks(l)
		boxes := make([]lattice.Box, len(idx))
		for i, b := range idx {
			boxes[i] = g.BlockThreads(b)
		}
		return boxes, idx
	}
	idx := make([][3]int64, len(shape.Blocks))
	for i, b := range shape.Blocks {
		idx[i] = [3]int64{b.Lo[0] / g.Block[0], b.Lo[1] / g.Block[1], b.Lo[2] / g.Block[2]}
	}
	return shape.Blocks, idx
}

// countBasic counts the block- and wave-level metrics of k's instruction
// lists under l, field by field, and sums the fields' totals; the step
// regions of a launch of several time steps are counted once in regions.
func countBasic(eng *footprint.Engine, lists []footprint.FieldInstructions, regions *StepRegionCache, k *kernel.Kernel, l kernel.Launch, dev *device.Device, m Method, shape waves.Shape, W int64) (Basic, footprint.StagingResult, error) {
	g := eng.Mapper.Geom
	sample, sampleIdx := sampleBlocks(m, g, l, shape)
	fs, staging, basic, err := blockBasic(eng, lists, k, l, dev, m, sample, sampleIdx)
	if err != nil {
		return basic, staging, err
	}
	if fs.sum(func(f *FieldBasic) float64 { return f.L1Cycles }) == 0 && partialAccesses(k) {
		return basic, staging, fmt.Errorf("%w of %d blocks in the middle of the grid: its accesses are partial and apply only near the domain's edges (kernel.Access.Partial); volumes per lattice update come from that wave, so such a kernel has none to scale", ErrNoAccessInWave, W)
	}
	if err := waveBasic(eng, fs, &basic, dev, m, shape, W, g.ThreadsPerBlock(), l.LupsPerThread(), g); err != nil {
		return basic, staging, err
	}
	if m.GridResidentL1 {
		if err := fs.residentGrid(eng, k, dev, g, m.Warp.SumInstructionMaxima, basic.waveScale()); err != nil {
			return basic, staging, err
		}
	}
	steps := stepCounting{eng: eng, k: k, l: l, dev: dev, m: m, shape: shape, sample: sample, sampleIdx: sampleIdx, q: basic.QWaveFactor, regions: regions}
	if err := fs.applySteps(steps, staging); err != nil {
		return basic, staging, err
	}
	fs.setTotals(&basic)
	return basic, staging, nil
}

// derivedLaunch returns the launch numbers that Derive needs.
func derivedLaunch(k *kernel.Kernel, l kernel.Launch, m Method, W int64, shape waves.Shape, beta int64, steps stepScales) Launch {
	lambda := l.LupsPerThread()
	return Launch{
		ThreadsPerBlock: int(l.ThreadsPerBlock()),
		LupsPerThread:   int(lambda),
		BlocksPerSM:     int(beta),
		BlocksPerWave:   int(waveBlocks(m, W, shape)),
		FlopsPerLup:     k.Flops * steps.perPoint,
		FlinsPerLup:     math.Ceil(k.FlopsPerThread(l.Fold)/2) / float64(lambda) * steps.perLane,
		FPBytes:         k.FPType,
	}
}

// addIssueBound sets the report's instruction mix, compiled where code is
// not nil, else counted from k's instruction lists under l (with the
// reason the compiled one is unavailable), and its issue bound with the
// active lanes of its warps.
func addIssueBound(rep *Report, lists []footprint.FieldInstructions, staging footprint.StagingResult, k *kernel.Kernel, l kernel.Launch, dev *device.Device, code *compiled.Code, unavailable string) error {
	var mix InstructionMix
	if code != nil {
		mix = compiledMix(code, l)
	} else {
		var err error
		if mix, err = countInstructions(lists, staging, k, l, dev); err != nil {
			return err
		}
		mix.Note = unavailable
	}
	rep.Instructions = &mix
	_, lanes := ActiveWarps(rep, dev)
	if b, ok := IssueBound(mix, lanes, *dev); ok {
		rep.Derived.PerfIssue = &b
	}
	return nil
}

// partialAccesses reports whether an access of k applies on part of the
// domain only.
func partialAccesses(k *kernel.Kernel) bool {
	for _, f := range k.Fields {
		for _, a := range append(slices.Clip(f.Loads), f.Stores...) {
			if _, partial, _ := a.Partial(k.Domain); partial {
				return true
			}
		}
	}
	return false
}

// waveBlocks returns the W that wave volumes are normalised with: β·SMs for
// the reference's sample (spec §5.4), and for a sampled wave the blocks it
// counted, which are fewer when the whole grid holds less than one wave.
func waveBlocks(m Method, W int64, shape waves.Shape) int64 {
	if m.SampleWave {
		return shape.BlocksPerWave
	}
	return W
}

// blockBasic computes the block- and warp-level metrics of spec §3, field
// by field, with the staging of the staged fields: the totals that are not
// sums of fields it sets in b, the fields' shares in fs.
func blockBasic(eng *footprint.Engine, lists []footprint.FieldInstructions, k *kernel.Kernel, l kernel.Launch, dev *device.Device, m Method, sample []lattice.Box, sampleIdx [][3]int64) (*fieldBasics, footprint.StagingResult, Basic, error) {
	var b Basic
	var staging footprint.StagingResult
	fs := newFieldBasics(k, m)
	mem := dev.Memory()
	vols, err := eng.BlockVolumes(mem, sample)
	if err != nil {
		return fs, staging, b, err
	}
	b.BlockL1LoadAlloc, b.BlockL1TLBPages = fs.addBlockVolumes(vols, k, dev)
	warp, err := footprint.WarpVolumesOf(lists, l, mem, m.Warp, sampleIdx, eng.Budget)
	if err != nil {
		return fs, staging, b, err
	}
	_, shared := footprint.SplitShared(lists)
	if staging, err = footprint.StagingOf(shared, k, l, mem, m.Warp, sampleIdx); err != nil {
		return fs, staging, b, err
	}
	fs.addWarp(warp, staging)
	if m.WarpReuseStays {
		if err := fs.addWarpSectors(eng, k, dev, sample); err != nil {
			return fs, staging, b, err
		}
	}
	if m.SampleWave {
		if fs.blockScale, err = fullBlockScale(eng, l, sample); err != nil {
			return fs, staging, b, err
		}
		b.BlockL1LoadAlloc *= fs.blockScale
	}
	if m.ClampOneByte { // the reference's clamps (spec §3.2, §3.3, §3.6; §8 item 28)
		b.BlockL1LoadAlloc = max(1, b.BlockL1LoadAlloc)
		b.BlockL1TLBPages = max(1, b.BlockL1TLBPages)
	}
	if m.PreviousBlockOverlap { // spec §3.5, §8 item 12
		if err := fs.addPreviousBlockOverlap(eng, vols, k, dev); err != nil {
			return fs, staging, b, err
		}
	}
	l1, err := footprint.L1CyclesOf(lists, l, mem, m.Warp, sampleIdx, eng.AllocLines(l, mem, m.Warp), eng.Budget)
	if err != nil {
		return fs, staging, b, err
	}
	fs.addL1Cycles(l1, staging)
	return fs, staging, b, nil
}

// addBlockVolumes marks the fields with global loads and stores and sets
// the load fields' L2→L1 volumes; it returns the block's L1 allocation in
// bytes and its TLB pages, which no field's share holds.
func (fs *fieldBasics) addBlockVolumes(vols []footprint.FieldBlockVolumes, k *kernel.Kernel, dev *device.Device) (allocBytes, pages float64) {
	var allocSum float64
	for _, v := range vols {
		mult := float64(k.Fields[v.Field].Multiplicity)
		pages += mult * v.Pages
		if v.Store {
			fs.hasStore[v.Field] = true
			continue
		}
		fs.hasLoad[v.Field] = true
		allocSum += v.AllocLines
		fs.load[v.Field].BlockL2Load = float64(dev.L1FetchBytes) * mult * v.Sectors
	}
	return float64(dev.L1AllocBytes) * allocSum, pages
}

// addWarp adds the warps' L1 loads and L2 stores, and the staged fields'
// copies, which are L1 loads too.
func (fs *fieldBasics) addWarp(warp footprint.WarpResult, staging footprint.StagingResult) {
	for _, wf := range warp.Fields {
		f := fs.of(wf.Field, wf.Store)
		f.BlockL1Load += wf.L1Load
		f.BlockL2Store += wf.L2Store
	}
	for _, sf := range staging.Fields {
		fs.load[sf.Field].BlockL1Load += sf.L1Load
	}
}

// addWarpSectors sets the load fields' sums of each warp's own L2→L1
// footprint (Method.WarpReuseStays), where warps are boxes of threads.
func (fs *fieldBasics) addWarpSectors(eng *footprint.Engine, k *kernel.Kernel, dev *device.Device, sample []lattice.Box) error {
	sectors, ok, err := eng.WarpSectors(dev.Memory(), sample)
	if err != nil || !ok {
		return err
	}
	for fi, n := range sectors {
		fs.load[fi].BlockWarpL2Load = float64(dev.L1FetchBytes) * float64(k.Fields[fi].Multiplicity) * n
	}
	return nil
}

// fullBlockScale returns the factor that scales the sample blocks' averages
// to a full block of B·λ points: sample blocks at the domain's edge hold
// fewer lattice points, and the per-Lup normalisation of §5.1 divides by the
// points actually updated.
func fullBlockScale(eng *footprint.Engine, l kernel.Launch, sample []lattice.Box) (float64, error) {
	var pts int64
	for _, t := range sample {
		pts += eng.Mapper.PointBox(t).Size()
	}
	if pts == 0 {
		return 0, fmt.Errorf("the sample blocks hold no lattice point of the domain")
	}
	return float64(len(sample)) * float64(l.ThreadsPerBlock()*l.LupsPerThread()) / float64(pts), nil
}

// addPreviousBlockOverlap sets the load fields' overlaps with the previous
// blocks on the same SM (spec §3.5, §8 item 12).
func (fs *fieldBasics) addPreviousBlockOverlap(eng *footprint.Engine, vols []footprint.FieldBlockVolumes, k *kernel.Kernel, dev *device.Device) error {
	cur, preds := footprint.PreviousBlocks(eng.Mapper.Geom, 108, 40)
	for _, v := range vols {
		if v.Store {
			continue
		}
		ov, err := eng.PreviousBlockOverlap(footprint.Request{Field: v.Field, Gran: dev.L1FetchBytes, Space: geometry.LinearSpace}, cur, preds)
		if err != nil {
			return err
		}
		fs.load[v.Field].BlockL2LoadOverlap = float64(dev.L1FetchBytes) * float64(k.Fields[v.Field].Multiplicity) * ov
	}
	return nil
}

// addL1Cycles sets the fields' L1 cycles, with the staged fields' copies
// and shared-memory cycles.
func (fs *fieldBasics) addL1Cycles(l1 footprint.L1Result, staging footprint.StagingResult) {
	for _, lf := range l1.Fields {
		f := fs.of(lf.Field, lf.Store)
		f.L1Cycles, f.L1DataPipeCycles = lf.Cycles, lf.DataPipe
		f.L1TagCycles, f.L1AllocCycles = lf.Tag, lf.Alloc
	}
	for _, sf := range staging.Fields {
		f := &fs.load[sf.Field]
		f.L1Cycles += sf.L1.Cycles
		f.L1DataPipeCycles += sf.L1.DataPipe
		f.L1TagCycles += sf.L1.Tag
		f.L1AllocCycles += sf.L1.Alloc
		f.SharedCycles, f.SharedTileBytes = sf.StoreCycles+sf.LoadCycles, sf.TileBytes
	}
}

// residentGrid applies Method.GridResidentL1: where the lines that the
// whole grid loads fit in one SM's L1, it sets each load field's
// ResidentL2Load and, where the L1 cycles add the allocation term
// (addedAlloc: footprint.WarpRules.SumInstructionMaxima), lowers each load
// field's allocation term and the cycles that include it to SMs × the
// field's grid lines per thread. waveScale is Basic.waveScale.
func (fs *fieldBasics) residentGrid(eng *footprint.Engine, k *kernel.Kernel, dev *device.Device, g geometry.Geometry, addedAlloc bool, waveScale float64) error {
	domain := g.ThreadDomain()
	threads := float64(domain.Size())
	if threads == 0 {
		return nil
	}
	// The wave's load footprint (WaveMemNew, before waveBasic scaled it by
	// 1/q) is part of the grid's; in DRAM granules that divide an L1 line
	// it is at most the grid's in lines. Most kernels' waves already exceed
	// L1, and need no count of the whole grid.
	if dev.L1AllocBytes%dev.DRAMFetchBytes == 0 {
		if wave := fs.sum(func(f *FieldBasic) float64 { return f.WaveMemNew * waveScale }, fs.load); wave > float64(dev.L1Bytes) {
			return nil
		}
	}
	lines, sectors, fits, err := fs.gridGranules(eng, k, dev, domain)
	if err != nil || !fits {
		return err
	}
	sms := float64(dev.SMs)
	points := float64(g.Domain[0] * g.Domain[1] * g.Domain[2])
	blockLups := float64(g.ThreadsPerBlock() * g.Fold[0] * g.Fold[1] * g.Fold[2])
	for i := range fs.load {
		if !fs.hasLoad[i] {
			continue
		}
		f := &fs.load[i]
		f.ResidentL2Load = sms * sectors[i] * float64(dev.L1FetchBytes) * blockLups / points
		if alloc := sms * lines[i] / threads; addedAlloc && alloc < f.L1AllocCycles {
			cut := f.L1AllocCycles - alloc
			f.L1AllocCycles, f.L1Cycles, f.L1DataPipeCycles = alloc, f.L1Cycles-cut, f.L1DataPipeCycles-cut
		}
	}
	return nil
}

// gridGranules counts the L1 lines and L1FetchBytes sectors of the whole
// grid's loads of each load field, indexed by field, multiplicity
// included. It counts the lines field by field and stops with fits false
// as soon as they exceed L1: only a grid that fits needs its sectors.
func (fs *fieldBasics) gridGranules(eng *footprint.Engine, k *kernel.Kernel, dev *device.Device, domain lattice.Box) (lines, sectors []float64, fits bool, err error) {
	count := func(field int, gran int64) (float64, error) {
		n, err := eng.CountGranules(footprint.Request{Field: field, Gran: gran, Space: geometry.LinearSpace}, []lattice.Box{domain})
		return float64(k.Fields[field].Multiplicity) * float64(n), err
	}
	lines, sectors = make([]float64, len(fs.load)), make([]float64, len(fs.load))
	var lineBytes float64
	for i := range fs.load {
		if !fs.hasLoad[i] {
			continue
		}
		if lines[i], err = count(i, dev.L1AllocBytes); err != nil {
			return nil, nil, false, err
		}
		if lineBytes += lines[i] * float64(dev.L1AllocBytes); lineBytes > float64(dev.L1Bytes) {
			return nil, nil, false, nil
		}
	}
	for i := range fs.load {
		if !fs.hasLoad[i] {
			continue
		}
		if sectors[i], err = count(i, dev.L1FetchBytes); err != nil {
			return nil, nil, false, err
		}
	}
	return lines, sectors, true, nil
}

// ResidentNote describes, for a note on standard error, that report r kept
// the grid's loaded lines in L1 from block to block (Method.GridResidentL1)
// and that this lowered its L2→L1 load, or returns "" otherwise.
func ResidentNote(r *Report) string {
	// Without the cap the L2→L1 load is at least L2LoadV1 − L2LoadOverlap
	// (all of the previous blocks' overlap kept, no evictions).
	d := r.Derived
	if r.Basic.ResidentL2Load == 0 || d.L2LoadV2 >= d.L2LoadV1-d.L2LoadOverlap {
		return ""
	}
	return fmt.Sprintf("every line the whole grid loads fits in one SM's L1, so each SM fetches and allocates it once, whichever block touches it "+
		"(method %s): the L2→L1 load (%.3g B/Lup) and the L1 allocation term are counted per SM, not per block", r.Method, r.Derived.L2LoadV2)
}

// waveBasic fills in the wave-level metrics of spec §4, the fields' shares
// in fs, and the TLB pages.
func waveBasic(eng *footprint.Engine, fs *fieldBasics, b *Basic, dev *device.Device, m Method, shape waves.Shape, W, B, lambda int64, g geometry.Geometry) error {
	gran := func(store bool) int64 {
		if store && m.StoresAtWriteGranularity {
			return dev.DRAMWriteBytes
		}
		return dev.DRAMFetchBytes
	}
	vols, err := waves.CountVolumes(eng, shape, m.WaveSpace, gran)
	if err != nil {
		return err
	}
	// q rescales New and the overlaps of the representative wave to a full
	// wave: valid threads of the box against W·B (§4.7), or, sampling the
	// exact wave, its valid lattice points against W·B·λ.
	q := float64(shape.ValidThreads) / float64(W*B)
	if m.SampleWave {
		var pts int64
		for _, t := range shape.Current {
			pts += eng.Mapper.PointBox(t).Size()
		}
		q = float64(pts) / float64(shape.BlocksPerWave*B*lambda)
		W = shape.BlocksPerWave
	}
	if q <= 0 {
		return fmt.Errorf("the representative wave of grid %v holds no valid thread", g.Grid)
	}
	for _, v := range vols {
		bytes := float64(v.Gran * v.Multiplicity)
		oldY := float64(v.OldY)
		if m.OldIncludesX { // §8 item 20: the footprint of T_x ∪ T_y
			oldY = float64(v.OldXY)
		}
		b.WaveMemOld[0] += oldY * bytes
		b.WaveMemOld[1] += float64(v.OldZ) * bytes
		f := fs.of(v.Field, v.Store)
		f.WaveMemNew = float64(v.New) * bytes / q
		if !v.Store {
			f.WaveMemOverlapX = float64(v.OvX) * bytes / q
			f.WaveMemOverlapY = float64(v.OvY) * bytes / q
			f.WaveMemOverlapZ = float64(v.OvZ) * bytes / q
			fs.waveOverlapXY[v.Field] = float64(v.OvX+v.OvY) * bytes / q
		}
	}
	b.WaveValidCells = float64(W * B)
	b.QWaveFactor = q
	return waveTLBPages(eng, b, dev, m, shape, W, g)
}

// waveTLBPages sets the wave's TLB pages (§3.6): of the reference's
// unclipped floor-rule pseudo-block at the origin, or of the sampled wave
// itself.
func waveTLBPages(eng *footprint.Engine, b *Basic, dev *device.Device, m Method, shape waves.Shape, W int64, g geometry.Geometry) error {
	tlbThreads := shape.Current
	if m.TLBPseudoBlock {
		wc := waves.ConcurrentGrid(g.Grid, W)
		tlbThreads = []lattice.Box{g.ThreadBox(lattice.Box{Hi: wc})}
		ref := *eng
		mp := *eng.Mapper
		mp.PointGuard = false
		ref.Mapper = &mp
		eng = &ref
	}
	pages, err := waves.TLBPages(eng, tlbThreads, dev.TLBPageBytes)
	if err != nil {
		return err
	}
	b.TLBPages = float64(pages)
	return nil
}
