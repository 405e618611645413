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
// bandwidth against occupancy). The overlap model adds the two effects:
//
//   - Latency. By Little's law n warps in flight per SM, each updating
//     lanes·λ points per round trip of L_w cycles, give
//     G_lat = SMs·clock·n·lanes·λ / L_w lattice updates per second. L_w is
//     OverlapRoundTrips times the memory latency of the path
//     (LatencyPath: DRAM and L2 latencies weighted by the DRAM share, plus
//     dependent floating-point latency).
//   - Imperfect overlap. The time per update is the p-norm of the times the
//     limiters (flops, L1, L2, DRAM and the latency bound) need alone,
//     t = (Σ t_i^p)^(1/p), with p = OverlapExponent: p → ∞ is the roofline's
//     perfect overlap, p = 1 no overlap at all. It is also the shape of the
//     knee where the latency bound meets the bandwidth, which the loaded
//     latency of Volkov's model (memory latency rising as the attained
//     bandwidth approaches the peak) produces on hardware.
//
// Warps in flight and lanes come from CountIdleThreads: idle warps hide no
// latency, and a warp of a block with fewer threads than a warp has
// only those lanes (a 16-thread block is half a warp).
//
// Both constants were fitted by accuracy.FitOverlap, a grid search that
// minimises the GLup/s MAPE of the gpu-stream kernels (init, read, scale,
// triad, 3pt, 5pt) on the fit devices accuracy.OverlapFitDevices only
// (V100, A100-80GB, L40, MI100: both vendors, three NVIDIA generations),
// every block size and blocks-per-SM of testdata/measured/gpu_stream_occupancy.csv
// for those devices. The other nine devices of that file and the paper's
// A100 points (papers_ernst2023_text_points.csv) are held out;
// docs/accuracy-hardware.md reports the error on each apart.

// ModelOverlap is the overlap model's name for --model.
const ModelOverlap ModelName = "overlap"

// DefaultModel is the performance model Estimate uses when Options.Model is
// empty: the overlap model, the most accurate on the held-out measurements
// of docs/accuracy-hardware.md (accuracy.TestOverlapFit checks that).
const DefaultModel = ModelOverlap

// OverlapExponent is the p of the p-norm that combines the limiters' times
// (dimensionless; ∞ would be the roofline, 1 no overlap). Fitted value 3.25
// together with OverlapRoundTrips on the fit devices (see above): GLup/s
// MAPE 13.6 % over their 1608 gpu-stream rows, against 139 % for the
// roofline and 32 % for the latency model. Held out: 19.6 % over the 2498
// gpu-stream rows of the other devices, and the paper's two A100 star3d-r4
// points (docs/accuracy-hardware.md has each device and kernel).
const OverlapExponent = 3.25

// OverlapRoundTrips is the length of a warp's life in memory round trips:
// the cycles between one warp's start and the next warp's start on the same
// slot, divided by the device's memory latency (device.Latencies). A
// streaming thread loads, waits for the data, stores and exits, and a new
// block is scheduled in its place, so this is more than one. Fitted value
// 2.4 on the fit devices, with OverlapExponent (figures there). The
// low-occupancy scale rows imply 831 cycles per warp turnaround on the
// V100 (2.1 of its 400-cycle DRAM latency), 975–1030 on the A100s (2.4–2.6)
// and 913 on the MI100 (1.5 of 600).
const OverlapRoundTrips = 2.4

// OverlapParams are the constants of the overlap model; DefaultOverlap holds
// the fitted ones. Fitting code varies them; Estimate uses DefaultOverlap.
type OverlapParams struct {
	Exponent   float64 // p, OverlapExponent
	RoundTrips float64 // OverlapRoundTrips
}

// DefaultOverlap are the fitted constants of the overlap model.
var DefaultOverlap = OverlapParams{Exponent: OverlapExponent, RoundTrips: OverlapRoundTrips}

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
	l := kernel.Launch{Block: r.Launch.Block, Fold: r.Launch.Fold, Domain: r.Launch.Domain}
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
	p := Prediction{Model: ModelOverlap}
	if !(par.Exponent >= 1) || !(par.RoundTrips > 0) {
		return p, fmt.Errorf("model: overlap model needs an exponent ≥ 1 and positive round trips, got %v and %v", par.Exponent, par.RoundTrips)
	}
	d := r.Derived
	lambda := float64(r.Launch.LupsPerThread)
	path := LatencyPath{MemoryRoundTrips: par.RoundTrips, DRAMFraction: d.dramShare(), DependentFP: r.Launch.FlopsPerLup / 2 * lambda}
	cycles := path.Cycles(*dev)
	if !(cycles > 0) || !(warps > 0) || !(lanes > 0) {
		return p, fmt.Errorf("model: overlap model needs warps in flight and a positive latency, got %v warps of %v lanes and %v cycles", warps, lanes, cycles)
	}
	latGLups := float64(dev.SMs) * dev.ClockGHz * warps * lanes * lambda / cycles
	flops := math.Inf(1)
	if d.PerfFlops != nil {
		flops = *d.PerfFlops
	}
	bounds := []struct {
		name  string
		glups float64
	}{{"flops", flops}, {"L1", d.PerfL1}, {"L2", d.PerfL2V2}, {"DRAM", d.PerfMemV3}, {"latency", latGLups}}
	// Sum (t_i/t_max)^p with t_i = 1/glups_i, scaled by the slowest, so
	// that large exponents do not overflow.
	slow := math.Inf(1)
	for _, b := range bounds {
		if b.glups < slow {
			slow, p.Limiter = b.glups, b.name
		}
	}
	if !(slow > 0) || math.IsInf(slow, 0) {
		return p, fmt.Errorf("model: overlap model: no finite positive bound (slowest %v GLup/s)", slow)
	}
	sum := 0.0
	for _, b := range bounds {
		if b.glups > 0 && !math.IsInf(b.glups, 1) && !math.IsNaN(b.glups) {
			sum += math.Pow(slow/b.glups, par.Exponent)
		}
	}
	p.GLups = slow / math.Pow(sum, 1/par.Exponent)
	for _, b := range bounds {
		if b.glups > 0 && !math.IsInf(b.glups, 1) {
			p.Bounds = append(p.Bounds, Bound{Name: b.name, GLups: b.glups})
		}
	}
	for i := range p.Bounds {
		switch p.Bounds[i].Name {
		case "L2":
			p.Bounds[i].BytesPerLup, p.Bounds[i].GBs = d.L2TotalV2, dev.L2BandwidthGBs
		case "DRAM":
			p.Bounds[i].BytesPerLup, p.Bounds[i].GBs = d.DRAMVolume(), dev.DRAMBandwidthGBs
		}
	}
	p.Combination = fmt.Sprintf("(1/GLups)^p = Σ (1/bound)^p with p = %g; the latency bound has %.4g warps of %.4g active lanes per SM in flight, %.0f cycles per update", par.Exponent, warps, lanes, cycles)
	p.Regime = string(ThroughputBound)
	if p.Limiter == "latency" {
		p.Regime = string(LatencyBound)
	}
	// Warps per SM at which the latency bound equals the slowest
	// throughput bound.
	if thr := slowestThroughput(bounds[:4]); thr > 0 && !math.IsInf(thr, 1) {
		p.NeededWarpsPerSM = warps * thr / latGLups
	}
	return p, nil
}

// slowestThroughput returns the lowest of the bounds in GLup/s.
func slowestThroughput(bounds []struct {
	name  string
	glups float64
}) float64 {
	s := math.Inf(1)
	for _, b := range bounds {
		s = math.Min(s, b.glups)
	}
	return s
}
