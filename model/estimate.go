package model

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

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
	// Context stops the estimate when it ends: Estimate then returns an
	// error wrapping the context's error, at once when it has ended before,
	// else at the next step of counting. nil means none.
	Context context.Context
}

// LaunchInfo describes the launch as the engine saw it.
type LaunchInfo struct {
	Block  [3]int64      `json:"block"`
	Fold   [3]int64      `json:"fold"`
	Tiling kernel.Tiling `json:"tiling,omitempty"` // where a thread's fold points lie; left out for thread folding
	// Unstaged: the spec's staged fields are read from global memory
	// (kernel.Launch.Unstaged); left out when false or nothing is staged.
	Unstaged         bool     `json:"unstaged,omitempty"`
	Domain           [3]int64 `json:"domain"`
	Grid             [3]int64 `json:"grid"`
	ThreadsPerBlock  int64    `json:"threadsPerBlock"`
	LupsPerThread    int64    `json:"lupsPerThread"`
	BlocksPerSM      int64    `json:"blocksPerSM"`
	BlocksPerWave    int64    `json:"blocksPerWave"`
	OccupancyLimiter string   `json:"occupancyLimiter,omitempty"` // resource limiting blocks per SM (occupancy calculator only)
	WavesInGrid      float64  `json:"wavesInGrid"`
	WaveValidThreads int64    `json:"waveValidThreads"` // n_cur: valid threads of the representative wave
	FlopsPerLup      float64  `json:"flopsPerLup"`
	LupCount         int64    `json:"lupCount"`
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
	GBs         float64 `json:"GBs,omitempty"`         // the bandwidth it moves it at
	GLups       float64 `json:"GLups"`
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
	// which sets Derived's issue bound.
	Instructions *InstructionMix `json:"instructions,omitempty"`
	Prediction   Prediction      `json:"prediction"`
	// Notes are what the caller found worth saying about the estimate
	// (kernel.Lint, LaunchNotes); Estimate leaves them empty.
	Notes []Note `json:"notes,omitempty"`
}

// Estimate predicts the data volumes, L1 cycles, limiters and performance of
// kernel k (lattice-point accesses, as loaded) under launch l on dev.
func Estimate(k *kernel.Kernel, l kernel.Launch, dev *device.Device, opt Options) (*Report, error) {
	if opt.Context != nil && opt.Context.Err() != nil {
		return nil, fmt.Errorf("estimate not started: %w", opt.Context.Err())
	}
	if err := l.Validate(); err != nil {
		return nil, err
	}
	if err := k.ExpressionsError(); err != nil {
		return nil, err
	}
	modelName := opt.Model
	if modelName == "" {
		modelName = DefaultModel
	}
	perf, err := PerformanceModelByName(modelName)
	if err != nil {
		return nil, err
	}
	method := opt.Method
	if method.Name == "" {
		method = MethodExact
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
	g := geometry.NewGeometry(l)
	B := g.ThreadsPerBlock()
	lambda := l.LupsPerThread()
	beta, limiter, err := waves.BlocksPerSM(method.Occupancy, dev, B, k.Registers, sharedBytes)
	if err != nil {
		return nil, err
	}
	if beta < 1 {
		return nil, &device.NoFitError{Device: dev.Name, ThreadsPerBlock: int(B),
			Reason: fmt.Sprintf("%d threads × %d registers exceed the 65536 registers of the reference's rule", B, k.Registers)}
	}
	W := beta * int64(dev.SMs)
	budget := &footprint.Budget{Limit: opt.WorkBound, MemoryLimit: opt.MemoryBound, Context: opt.Context}
	defer budget.Track()()
	eng := &footprint.Engine{Mapper: &geometry.AccessMapper{Kernel: global, Geom: g, PointGuard: method.ClipToDomain}, Budget: budget}

	var shape waves.Shape
	var sampleBoxes []lattice.Box
	var sampleIdx [][3]int64
	if method.SampleWave {
		shape = waves.ExactShape(g, W)
		sampleBoxes = shape.Blocks
		for _, b := range shape.Blocks {
			sampleIdx = append(sampleIdx, [3]int64{b.Lo[0] / g.Block[0], b.Lo[1] / g.Block[1], b.Lo[2] / g.Block[2]})
		}
	} else {
		shape = waves.ReferenceShape(g, W)
		sampleIdx = footprint.ReferenceSampleBlocks(l)
		for _, b := range sampleIdx {
			sampleBoxes = append(sampleBoxes, g.BlockThreads(b))
		}
	}

	instructions := opt.Instructions
	if instructions == nil {
		instructions = footprint.NewInstructionCache()
	}
	basic, staging, err := blockBasic(eng, instructions, k, l, dev, method, sampleBoxes, sampleIdx)
	if err != nil {
		return nil, err
	}
	if basic.L1Cycles == 0 && partialAccesses(k) {
		return nil, fmt.Errorf("%w of %d blocks in the middle of the grid: its accesses are partial and apply only near the domain's edges (kernel.Access.Partial); volumes per lattice update come from that wave, so such a kernel has none to scale", ErrNoAccessInWave, W)
	}
	if err := waveBasic(eng, &basic, dev, method, shape, W, B, lambda, g); err != nil {
		return nil, err
	}
	if method.GridResidentL1 {
		if err := residentGrid(eng, k, dev, g, method.Warp.SumInstructionMaxima, &basic); err != nil {
			return nil, err
		}
	}

	flopsPerLup := k.Flops
	ml := Launch{
		ThreadsPerBlock: int(B),
		LupsPerThread:   int(lambda),
		BlocksPerSM:     int(beta),
		BlocksPerWave:   int(waveBlocks(method, W, shape)),
		FlopsPerLup:     flopsPerLup,
		FlinsPerLup:     math.Ceil(k.FlopsPerThread(l.Fold)/2) / float64(lambda),
		FPBytes:         k.FPType,
	}
	derived, err := Derive(basic, ml, *dev, method)
	if err != nil {
		return nil, err
	}
	rep := &Report{
		Kernel: k.Name,
		Device: dev.Name,
		Method: method.Name,
		Launch: LaunchInfo{
			Block: l.Block, Fold: l.Fold, Tiling: l.Tiling, Domain: l.Domain, Grid: g.Grid,
			Unstaged:        l.Unstaged && slices.ContainsFunc(k.Fields, func(f *kernel.Field) bool { return f.Stage != nil }),
			ThreadsPerBlock: B, LupsPerThread: lambda, BlocksPerSM: beta, BlocksPerWave: W,
			OccupancyLimiter: limiter, WavesInGrid: float64(g.Blocks()) / float64(W),
			WaveValidThreads: shape.ValidThreads, FlopsPerLup: flopsPerLup, LupCount: k.Lups(),
		},
		Basic:   basic,
		Derived: derived,
	}
	if err := addIssueBound(rep, instructions, staging, k, l, dev, method); err != nil {
		return nil, err
	}
	rep.Prediction, err = perf.Predict(rep, dev, k.FPType)
	if err != nil {
		return nil, err
	}
	return rep, nil
}

// addIssueBound counts the instruction mix of k under l and sets the
// report's issue bound with the active lanes of its warps.
func addIssueBound(rep *Report, instructions *footprint.InstructionCache, staging footprint.StagingResult, k *kernel.Kernel, l kernel.Launch, dev *device.Device, method Method) error {
	lists, err := instructions.Instructions(k, l, dev, method.Warp.Fusion)
	if err != nil {
		return err
	}
	mix, err := countInstructions(lists, staging, k, l)
	if err != nil {
		return err
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

// blockBasic computes the block- and warp-level metrics of spec §3, with
// the staging of the staged fields.
func blockBasic(eng *footprint.Engine, instructions *footprint.InstructionCache, k *kernel.Kernel, l kernel.Launch, dev *device.Device, m Method, sample []lattice.Box, sampleIdx [][3]int64) (Basic, footprint.StagingResult, error) {
	var b Basic
	var staging footprint.StagingResult
	vols, err := eng.BlockVolumes(dev, sample)
	if err != nil {
		return b, staging, err
	}
	lists, err := instructions.Instructions(k, l, dev, m.Warp.Fusion)
	if err != nil {
		return b, staging, err
	}
	warp, err := footprint.WarpVolumesOf(lists, l, dev, m.Warp, sampleIdx)
	if err != nil {
		return b, staging, err
	}
	_, shared := footprint.SplitShared(lists)
	if staging, err = footprint.StagingOf(shared, k, l, dev, m.Warp, sampleIdx); err != nil {
		return b, staging, err
	}
	if len(staging.Fields) > 0 {
		// The copies' loads join the global loads; the total is summed
		// afresh, where the reference clamps it, after them.
		for _, sf := range staging.Fields {
			warp.Fields = append(warp.Fields, footprint.WarpField{Name: sf.Name, L1Load: sf.L1Load})
		}
		warp.BlockL1Load = 0
		for _, f := range warp.Fields {
			warp.BlockL1Load += f.L1Load
		}
		if m.ClampOneByte {
			warp.BlockL1Load = max(1, warp.BlockL1Load)
		}
	}
	var pagesSum, allocSum float64
	var loadFields, storeFields []FieldBasic
	for _, v := range vols {
		f := k.Fields[v.Field]
		mult := float64(f.Multiplicity)
		pagesSum += mult * v.Pages
		fb := FieldBasic{Name: f.Name}
		if v.Store {
			storeFields = append(storeFields, fb)
			continue
		}
		allocSum += v.AllocLines
		fb.BlockL2Load = float64(dev.L1FetchBytes) * mult * v.Sectors
		b.BlockL2Load += fb.BlockL2Load
		loadFields = append(loadFields, fb)
	}
	for _, wf := range warp.Fields {
		list := loadFields
		if wf.Store {
			list = storeFields
		}
		for i := range list {
			if list[i].Name == wf.Name {
				list[i].BlockL1Load += wf.L1Load
				list[i].BlockL2Store += wf.L2Store
			}
		}
	}
	if m.WarpReuseStays {
		sectors, ok, err := eng.WarpSectors(dev, sample)
		if err != nil {
			return b, staging, err
		}
		for fi, n := range sectors {
			if !ok {
				break
			}
			f := k.Fields[fi]
			bytes := float64(dev.L1FetchBytes) * float64(f.Multiplicity) * n
			b.BlockWarpL2Load += bytes
			for i := range loadFields {
				if loadFields[i].Name == f.Name {
					loadFields[i].BlockWarpL2Load = bytes
				}
			}
		}
	}
	b.BlockL1LoadAlloc = float64(dev.L1AllocBytes) * allocSum
	b.BlockL1TLBPages = pagesSum
	b.BlockL1Load = warp.BlockL1Load
	b.BlockL2Store = warp.BlockL2Store
	if m.SampleWave {
		// Sample blocks at the domain's edge hold fewer lattice points; scale
		// the averages to a full block of B·λ points so that the per-Lup
		// normalisation of §5.1 divides by the points actually updated.
		var pts int64
		for _, t := range sample {
			pts += eng.Mapper.PointBox(t).Size()
		}
		if pts == 0 {
			return b, staging, fmt.Errorf("the sample blocks hold no lattice point of the domain")
		}
		full := float64(len(sample)) * float64(l.ThreadsPerBlock()*l.LupsPerThread()) / float64(pts)
		for _, v := range []*float64{&b.BlockL1LoadAlloc, &b.BlockL1Load, &b.BlockL2Store, &b.BlockL2Load, &b.BlockWarpL2Load} {
			*v *= full
		}
		for i := range loadFields {
			loadFields[i].BlockL1Load *= full
			loadFields[i].BlockL2Load *= full
			loadFields[i].BlockWarpL2Load *= full
		}
		for i := range storeFields {
			storeFields[i].BlockL2Store *= full
		}
	}
	if m.ClampOneByte { // the reference's clamps (spec §3.2, §3.3, §3.6; §8 item 28)
		b.BlockL2Load = max(1, b.BlockL2Load)
		b.BlockL1LoadAlloc = max(1, b.BlockL1LoadAlloc)
		b.BlockL1TLBPages = max(1, b.BlockL1TLBPages)
	}

	if m.PreviousBlockOverlap { // spec §3.5, §8 item 12
		cur, preds := footprint.PreviousBlocks(eng.Mapper.Geom, 108, 40)
		for _, v := range vols {
			if v.Store {
				continue
			}
			f := k.Fields[v.Field]
			ov, err := eng.PreviousBlockOverlap(footprint.Request{Field: v.Field, Gran: dev.L1FetchBytes, Space: geometry.LinearSpace}, cur, preds)
			if err != nil {
				return b, staging, err
			}
			vov := float64(dev.L1FetchBytes) * float64(f.Multiplicity) * ov
			b.BlockL2LoadOverlap += vov
			for j := range loadFields {
				if loadFields[j].Name == f.Name {
					loadFields[j].BlockL2LoadOverlap = vov
				}
			}
		}
	}

	l1, err := footprint.L1CyclesOf(lists, l, dev, m.Warp, sampleIdx, eng.AllocLines(l, dev, m.Warp))
	if err != nil {
		return b, staging, err
	}
	b.L1Cycles, b.L1DataPipeCycles, b.L1TagCycles = l1.Cycles, l1.DataPipe, l1.Tag
	for _, lf := range l1.Fields {
		b.L1AllocCycles += lf.Alloc
		list := loadFields
		if lf.Store {
			list = storeFields
		}
		for i := range list {
			if list[i].Name == lf.Name {
				list[i].L1Cycles, list[i].L1DataPipeCycles = lf.Cycles, lf.DataPipe
				list[i].L1TagCycles, list[i].L1AllocCycles = lf.Tag, lf.Alloc
			}
		}
	}
	for _, sf := range staging.Fields {
		b.L1Cycles += sf.L1.Cycles
		b.L1DataPipeCycles += sf.L1.DataPipe
		b.L1TagCycles += sf.L1.Tag
		b.L1AllocCycles += sf.L1.Alloc
		cycles := sf.StoreCycles + sf.LoadCycles
		b.SharedCycles += cycles
		for i := range loadFields {
			if f := &loadFields[i]; f.Name == sf.Name {
				f.L1Cycles, f.L1DataPipeCycles = f.L1Cycles+sf.L1.Cycles, f.L1DataPipeCycles+sf.L1.DataPipe
				f.L1TagCycles, f.L1AllocCycles = f.L1TagCycles+sf.L1.Tag, f.L1AllocCycles+sf.L1.Alloc
				f.SharedCycles, f.SharedTileBytes = cycles, sf.TileBytes
			}
		}
	}
	b.LoadFields, b.StoreFields = loadFields, storeFields
	return b, staging, nil
}

// residentGrid applies Method.GridResidentL1 to b: where the lines that the
// whole grid loads fit in one SM's L1, it sets each load field's
// ResidentL2Load (and their sum) and, where the L1 cycles add the allocation
// term (addedAlloc: footprint.WarpRules.SumInstructionMaxima), lowers each
// load field's allocation term and the cycles that include it to SMs × the
// field's grid lines per thread.
func residentGrid(eng *footprint.Engine, k *kernel.Kernel, dev *device.Device, g geometry.Geometry, addedAlloc bool, b *Basic) error {
	domain := g.ThreadDomain()
	threads := float64(domain.Size())
	if threads == 0 {
		return nil
	}
	// The wave's load footprint (b's WaveMemNew, before waveBasic scaled it
	// by 1/q) is part of the grid's; in DRAM granules that divide an L1
	// line it is at most the grid's in lines. Most kernels' waves already
	// exceed L1, and need no count of the whole grid.
	if dev.L1AllocBytes%dev.DRAMFetchBytes == 0 {
		var wave float64
		for _, f := range b.LoadFields {
			wave += f.WaveMemNew * b.waveScale()
		}
		if wave > float64(dev.L1Bytes) {
			return nil
		}
	}
	// Count the lines, field by field, and stop as soon as they exceed L1;
	// only a grid that fits needs its sectors.
	fields := make([]int, len(b.LoadFields))
	lines, sectors := make([]float64, len(b.LoadFields)), make([]float64, len(b.LoadFields))
	count := func(field int, gran int64) (float64, error) {
		n, err := eng.CountGranules(footprint.Request{Field: field, Gran: gran, Space: geometry.LinearSpace}, []lattice.Box{domain})
		return float64(k.Fields[field].Multiplicity) * float64(n), err
	}
	var lineBytes float64
	for i, fb := range b.LoadFields {
		fields[i] = slices.IndexFunc(k.Fields, func(f *kernel.Field) bool { return f.Name == fb.Name })
		if fields[i] < 0 {
			return fmt.Errorf("model: load field %q is not a field of kernel %q", fb.Name, k.Name)
		}
		var err error
		if lines[i], err = count(fields[i], dev.L1AllocBytes); err != nil {
			return err
		}
		if lineBytes += lines[i] * float64(dev.L1AllocBytes); lineBytes > float64(dev.L1Bytes) {
			return nil
		}
	}
	for i := range b.LoadFields {
		var err error
		if sectors[i], err = count(fields[i], dev.L1FetchBytes); err != nil {
			return err
		}
	}
	sms := float64(dev.SMs)
	points := float64(g.Domain[0] * g.Domain[1] * g.Domain[2])
	blockLups := float64(g.ThreadsPerBlock() * g.Fold[0] * g.Fold[1] * g.Fold[2])
	b.ResidentL2Load = 0
	for i := range b.LoadFields {
		f := &b.LoadFields[i]
		f.ResidentL2Load = sms * sectors[i] * float64(dev.L1FetchBytes) * blockLups / points
		b.ResidentL2Load += f.ResidentL2Load
		if alloc := sms * lines[i] / threads; addedAlloc && alloc < f.L1AllocCycles {
			cut := f.L1AllocCycles - alloc
			f.L1AllocCycles, f.L1Cycles, f.L1DataPipeCycles = alloc, f.L1Cycles-cut, f.L1DataPipeCycles-cut
			b.L1AllocCycles, b.L1Cycles, b.L1DataPipeCycles = b.L1AllocCycles-cut, b.L1Cycles-cut, b.L1DataPipeCycles-cut
		}
	}
	return nil
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

// waveBasic fills in the wave-level metrics of spec §4 and the TLB pages.
func waveBasic(eng *footprint.Engine, b *Basic, dev *device.Device, m Method, shape waves.Shape, W, B, lambda int64, g geometry.Geometry) error {
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
		name := eng.Mapper.Kernel.Fields[v.Field].Name
		oldY := float64(v.OldY)
		if m.OldIncludesX { // §8 item 20: the footprint of T_x ∪ T_y
			oldY = float64(v.OldXY)
		}
		b.WaveMemOld[0] += oldY * bytes
		b.WaveMemOld[1] += float64(v.OldZ) * bytes
		if v.Store {
			b.WaveMemStoreNew += float64(v.New) * bytes / q
			for i := range b.StoreFields {
				if b.StoreFields[i].Name == name {
					b.StoreFields[i].WaveMemNew = float64(v.New) * bytes / q
				}
			}
			continue
		}
		b.WaveMemLoadNew += float64(v.New) * bytes / q
		b.WaveMemLoadOverlap[0] += float64(v.OvX+v.OvY) * bytes / q
		b.WaveMemLoadOverlap[1] += float64(v.OvZ) * bytes / q
		for i := range b.LoadFields {
			if b.LoadFields[i].Name == name {
				b.LoadFields[i].WaveMemNew = float64(v.New) * bytes / q
				b.LoadFields[i].WaveMemOverlapX = float64(v.OvX) * bytes / q
				b.LoadFields[i].WaveMemOverlapY = float64(v.OvY) * bytes / q
				b.LoadFields[i].WaveMemOverlapZ = float64(v.OvZ) * bytes / q
			}
		}
	}
	b.WaveValidCells = float64(W * B)
	b.QWaveFactor = q

	// Wave TLB pages (§3.6): the reference's unclipped floor-rule pseudo-block
	// at the origin, or the sampled wave itself.
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
