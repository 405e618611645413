package model

import (
	"fmt"
	"math"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/kernel"
)

// The overlap model.
//
// The roofline takes the minimum of the limiters, as if every resource could
// run at its own peak while the others run at theirs. Hardware does not
// overlap them perfectly: where two or three limiters are close, the kernel
// runs well below the lowest (the paper's predicted-best star3d-r4 block
// 16,2,32 with 2z folding has L1, L2 and DRAM bounds of 75.5, 77.8 and
// 78.2 GLup/s on the A100 and runs at 50.7), and where few warps are in
// flight the memory system is never saturated at all (gpu-stream's
// bandwidth against occupancy). The overlap model adds both effects, and a
// third where the device is measured to have it:
//
//   - Latency. By Little's law n warps in flight per SM, each updating
//     lanes·λ points per life of L_w cycles, give
//     G_lat = SMs·clock·n·lanes·λ / L_w lattice updates per second. A warp's
//     life is OverlapLoadRoundTrips memory latencies if it loads (it waits
//     for its data) plus OverlapStoreRoundTrips if it stores (its stores
//     drain before the slot is free for the next block's warp): the memory
//     latency of LatencyPath, DRAM and L2 latencies weighted by the DRAM
//     share, plus the dependent floating-point latency. Those round trips
//     presume that a warp issues the loads of all its λ points together,
//     as a thread whose points are unrolled does; a thread of more than
//     kernel.MaxUnrolledLupsPerThread points loops over them (a
//     reduction's thread over the reduced coordinate), whose round trips
//     per point the fit never saw, so such a launch has no latency bound
//     and the bounds combine without it.
//   - Imperfect overlap. The time per update is the p-norm of the times the
//     limiters (flops, instruction issue, L1, L2, DRAM and the latency
//     bound) need alone,
//     t = (Σ t_i^p)^(1/p), with p = OverlapExponent: p → ∞ is the roofline's
//     perfect overlap, p = 1 no overlap at all. It is also the shape of the
//     knee where the latency bound meets the bandwidth, which the loaded
//     latency of Volkov's model (memory latency rising as the attained
//     bandwidth approaches the peak) produces on hardware.
//   - Block launches. A device with block_launch_cycles starts at most one
//     block per that many cycles on each SM, so a block of b active
//     threads caps the rate at SMs·clock·b·λ / block_launch_cycles, a hard
//     ceiling after the p-norm (launches are serial; the V100's 32-thread
//     blocks sit exactly on it, docs/accuracy-hardware.md).
//
// Warps in flight and lanes come from CountIdleThreads: idle warps hide no
// latency, and a warp of a block with fewer threads than a warp has
// only those lanes (a 16-thread block is half a warp).
//
// The three constants were fitted together by accuracy.FitJoint on data
// where limiters compete, the three datasets weighing alike: the
// gpu-stream kernels (init, read, scale, triad, 3pt, 5pt: DRAM against
// warps in flight; every block size and blocks per SM of
// testdata/measured/gpu_stream_occupancy.csv) on V100, A100-80GB, L40 and
// MI100; the V100 box stencil's block scan (L1, L2 and DRAM against the
// block shape, ratios within each group); and the RTX A4000's Kernel Tuner
// convolution without bounds checks (flops, issue and L1 against block and
// tile), with the latencies that gpu-benches measured (device database).
// The other nine stream devices and the other three convolution GPUs are
// held out; docs/accuracy-hardware.md reports every device and kernel
// apart, and refits without each fit device and each kernel.

// ModelOverlap is the overlap model's name for --model.
const ModelOverlap ModelName = "overlap"

// DefaultModel is the performance model Estimate uses when Options.Model is
// empty: the overlap model, the most accurate on the held-out measurements
// of docs/accuracy-hardware.md (accuracy.TestOverlapFit checks that).
const DefaultModel = ModelOverlap

// OverlapExponent is the p of the p-norm that combines the limiters' times
// (dimensionless; ∞ would be the roofline, 1 no overlap). Fitted value
// 3.42 together with the round trips below (see above): the fit's objective,
// the mean of the three datasets' errors, is 6.65 % (stream GLup/s MAPE
// 5.4–13.8 % per fit device, box block scan 7.1 % after one scale per
// group, A4000 convolution time 5.1 %). Left out of the fit, each fit
// device's error grows by at most 1.41× (docs/accuracy-hardware.md). Fitted
// on the stream kernels alone, where one limiter dominates, it was 3.33.
const OverlapExponent = 3.42

// OverlapLoadRoundTrips is the part of a warp's life, in memory latencies
// (device.Latencies), that it waits for loaded data: the cycles from its
// start to its last load's data. Fitted value 1.60 (see above): more than
// the one round trip of a single load; the rest (the block's launch, the
// queueing of its requests) is not split further.
// The low-occupancy read rows (loads only) imply 1.6–2.1 on the NVIDIA
// GPUs and 2.0–2.1 on the AMD ones (docs/accuracy-hardware.md).
const OverlapLoadRoundTrips = 1.60

// OverlapStoreRoundTrips is the part of a warp's life, in memory
// latencies, that its stores take to drain before its slot takes a new
// warp. Fitted value 0.69 (see above); the stores-only init kernel's
// low-occupancy rows imply 0.66–1.05 on the NVIDIA GPUs and 1.09–1.51 on
// the AMD ones.
const OverlapStoreRoundTrips = 0.69

// OverlapParams are the constants of the overlap model; DefaultOverlap holds
// the fitted ones. Fitting code varies them; Estimate uses DefaultOverlap.
type OverlapParams struct {
	Exponent        float64 // p, OverlapExponent
	LoadRoundTrips  float64 // OverlapLoadRoundTrips
	StoreRoundTrips float64 // OverlapStoreRoundTrips
}

// DefaultOverlap are the fitted constants of the overlap model.
var DefaultOverlap = OverlapParams{Exponent: OverlapExponent, LoadRoundTrips: OverlapLoadRoundTrips, StoreRoundTrips: OverlapStoreRoundTrips}

// overlapModel is the overlap model with its parameters.
type overlapModel struct{ params OverlapParams }

func (overlapModel) Name() ModelName { return ModelOverlap }

func (m overlapModel) Predict(r *Report, dev *device.Device, _ int) (Prediction, error) {
	warpsPerSM, lanes := ActiveWarps(r, dev)
	return OverlapPrediction(r, dev, warpsPerSM, lanes, m.params)
}

// ActiveWarps returns the warps in flight per SM and the mean active lanes
// per warp of report r on dev: β times the warps per block that have an
// active thread, and the active threads per such warp (CountIdleThreads).
func ActiveWarps(r *Report, dev *device.Device) (warpsPerSM, lanes float64) {
	l := kernel.Launch{Block: r.Launch.Block, Fold: r.Launch.Fold, Domain: r.Launch.Domain, Tiling: r.Launch.Tiling}
	t := CountIdleThreads(l, int64(dev.WarpSize))
	if t.ActiveWarps == 0 {
		return float64(r.Launch.BlocksPerSM) * math.Ceil(float64(r.Launch.ThreadsPerBlock)/float64(dev.WarpSize)), float64(dev.WarpSize)
	}
	return float64(r.Launch.BlocksPerSM) * t.ActiveWarpsPerBlock(), t.ActiveLanesPerWarp()
}

// OverlapPrediction is the overlap model's prediction for the volumes and
// limiters of r on dev with warps warps in flight per SM of lanes active
// threads each (Estimate passes ActiveWarps) and the constants par.
func OverlapPrediction(r *Report, dev *device.Device, warps, lanes float64, par OverlapParams) (Prediction, error) {
	o, err := overlapRate(r, dev, warps, lanes, par)
	if err != nil {
		return Prediction{Model: ModelOverlap, Limiter: o.limiter}, err
	}
	return o.prediction(r, dev, par), nil
}

// OverlapGLups is the rate of OverlapPrediction alone, without the bounds
// and the description that the prediction assembles: for fitting code that
// evaluates the model many times under trial constants.
func OverlapGLups(r *Report, dev *device.Device, warps, lanes float64, par OverlapParams) (float64, error) {
	o, err := overlapRate(r, dev, warps, lanes, par)
	return o.tail.glups, err
}

// overlapRun is the overlap model's arithmetic for one report, before
// OverlapPrediction puts it into words.
type overlapRun struct {
	warps, lanes, cycles, latGLups float64
	bounds                         []overlapBound // overlapBounds
	limiter                        string
	// steady is the p-norm of the bounds, capped at blockLaunch, the block
	// launches' bound (0 where the device has no launch rate).
	steady, blockLaunch float64
	tail                tailResult
	lupsPerThread       int64
}

// loops reports whether the run's threads loop over their points rather
// than run them unrolled, which leaves it without a latency bound.
func (o overlapRun) loops() bool { return o.lupsPerThread > kernel.MaxUnrolledLupsPerThread }

// overlapRate computes the overlap model's rate of r on dev (see
// OverlapPrediction).
func overlapRate(r *Report, dev *device.Device, warps, lanes float64, par OverlapParams) (overlapRun, error) {
	o := overlapRun{warps: warps, lanes: lanes, lupsPerThread: r.Launch.LupsPerThread}
	if !(par.Exponent >= 1) || !(par.LoadRoundTrips >= 0) || !(par.StoreRoundTrips >= 0) {
		return o, fmt.Errorf("model: overlap model needs an exponent ≥ 1 and non-negative round trips, got %v, %v and %v", par.Exponent, par.LoadRoundTrips, par.StoreRoundTrips)
	}
	d := r.Derived
	lambda := float64(r.Launch.LupsPerThread)
	trips := 0.0
	if d.L1Load > 0 {
		trips += par.LoadRoundTrips
	}
	if d.L2Store > 0 {
		trips += par.StoreRoundTrips
	}
	path := LatencyPath{MemoryRoundTrips: trips, DRAMFraction: d.dramShare(), DependentFP: r.Launch.FlopsPerLup / 2 * lambda}
	o.cycles = path.Cycles(*dev)
	if !(o.cycles > 0) || !(warps > 0) || !(lanes > 0) {
		return o, fmt.Errorf("model: overlap model needs warps in flight and a positive latency, got %v warps of %v lanes and %v cycles", warps, lanes, o.cycles)
	}
	o.latGLups = math.Inf(1)
	if !o.loops() {
		o.latGLups = float64(dev.SMs) * dev.ClockGHz * warps * lanes * lambda / o.cycles
	}
	o.bounds = overlapBounds(d, o.latGLups)
	slow := math.Inf(1)
	for _, b := range o.bounds {
		if b.glups < slow {
			slow, o.limiter = b.glups, b.name
		}
	}
	if !(slow > 0) || math.IsInf(slow, 0) {
		return o, fmt.Errorf("model: overlap model: no finite positive bound (slowest %v GLup/s)", slow)
	}
	o.steady = pNorm(o.bounds, par.Exponent)
	// An SM starts at most one block per BlockLaunchCycles, whatever else
	// it waits for; the blocks' launch is serial, so this bound is a hard
	// ceiling, not one more p-norm term. A block's lattice updates are its
	// active warps × lanes × λ.
	if dev.BlockLaunchCycles > 0 {
		o.blockLaunch = float64(dev.SMs) * dev.ClockGHz / dev.BlockLaunchCycles * (warps / float64(r.Launch.BlocksPerSM) * lanes * lambda)
		if o.blockLaunch < o.steady {
			o.steady, o.limiter = o.blockLaunch, "block launch"
		}
	}
	o.tail = gridTail(r, dev, o.bounds, o.steady, par.Exponent)
	if o.tail.launchBound {
		o.limiter = "launch"
	}
	return o, nil
}

// prediction assembles the prediction of the run o of r on dev: its
// bounds, limiter, regime and description.
func (o overlapRun) prediction(r *Report, dev *device.Device, par OverlapParams) Prediction {
	p := Prediction{Model: ModelOverlap, GLups: o.tail.glups, Limiter: o.limiter}
	for _, b := range o.bounds {
		if b.glups > 0 && !math.IsInf(b.glups, 1) {
			p.Bounds = append(p.Bounds, Bound{Name: b.name, GLups: b.glups})
		}
	}
	launchNote := ""
	if dev.BlockLaunchCycles > 0 {
		p.Bounds = append(p.Bounds, Bound{Name: "block launch", GLups: o.blockLaunch})
		launchNote = fmt.Sprintf("; capped at one block start per SM every %g cycles", dev.BlockLaunchCycles)
	}
	d := r.Derived
	for i := range p.Bounds {
		switch p.Bounds[i].Name {
		case "L2":
			p.Bounds[i].BytesPerLup, p.Bounds[i].GBs, p.Bounds[i].Volume = d.L2Traffic(), dev.L2BandwidthGBs, "V2"
		case "DRAM":
			p.Bounds[i].BytesPerLup, p.Bounds[i].GBs, p.Bounds[i].Volume = d.DRAMTraffic(), dev.DRAMBandwidthGBs, "V3"
		}
	}
	latency := fmt.Sprintf("the latency bound has %.4g warps of %.4g active lanes per SM in flight, %.0f cycles per update", o.warps, o.lanes, o.cycles)
	if o.loops() {
		latency = fmt.Sprintf("no latency bound: each thread loops over its %d lattice points, more than the %d it runs unrolled, and the latency bound counts the round trips of loads issued together, one set per thread", o.lupsPerThread, kernel.MaxUnrolledLupsPerThread)
	}
	p.Combination = fmt.Sprintf("(1/GLups)^p = Σ (1/bound)^p with p = %g; %s%s%s", par.Exponent, latency, launchNote, o.tail.note(dev))
	p.Regime = string(ThroughputBound)
	if p.Limiter == "latency" {
		p.Regime = string(LatencyBound)
	}
	// Warps per SM at which the latency bound equals the slowest
	// throughput bound; none without a latency bound.
	if thr := slowestThroughput(o.bounds[:6]); thr > 0 && !math.IsInf(thr, 1) {
		p.NeededWarpsPerSM = o.warps * thr / o.latGLups
	}
	return p
}

// overlapBounds returns the bounds that the overlap model combines: d's
// throughput bounds (+Inf where d has none), then the latency bound.
func overlapBounds(d Derived, latGLups float64) []overlapBound {
	flops, issue, shared := math.Inf(1), math.Inf(1), math.Inf(1)
	if d.PerfFlops != nil {
		flops = *d.PerfFlops
	}
	if d.PerfShared != nil {
		shared = *d.PerfShared
	}
	if d.PerfIssue != nil {
		issue = *d.PerfIssue
	}
	return []overlapBound{{"flops", flops}, {"issue", issue}, {"L1", d.PerfL1}, {"L2", d.PerfL2V2}, {"DRAM", d.PerfMemV3}, {"shared", shared}, {"latency", latGLups}}
}

// overlapBound is one bound the overlap model combines.
type overlapBound struct {
	name  string
	glups float64
}

// pNorm combines the bounds' times by the p-norm: 1/G = (Σ (1/G_i)^p)^(1/p),
// over the finite positive bounds, scaled by the slowest so that large
// exponents do not overflow.
func pNorm(bounds []overlapBound, p float64) float64 {
	slow := math.Inf(1)
	for _, b := range bounds {
		slow = math.Min(slow, b.glups)
	}
	sum := 0.0
	for _, b := range bounds {
		if b.glups > 0 && !math.IsInf(b.glups, 1) && !math.IsNaN(b.glups) {
			sum += math.Pow(slow/b.glups, p)
		}
	}
	return slow / math.Pow(sum, 1/p)
}

// slowestThroughput returns the lowest of the bounds in GLup/s.
func slowestThroughput(bounds []overlapBound) float64 {
	s := math.Inf(1)
	for _, b := range bounds {
		s = math.Min(s, b.glups)
	}
	return s
}
