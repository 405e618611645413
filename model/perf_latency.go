package model

import (
	"fmt"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/kernel"
)

// ModelLatency is the latency model's name for --model.
const ModelLatency ModelName = "latency"

// Constants of the latency model's warp (docs/models.md §1).
const (
	// latencyRoundTrips is the number of memory round trips a warp waits
	// for per update: one, its loads issued together.
	latencyRoundTrips = 1
	// overheadInstructionsPerLup are the instructions of an update besides
	// its floating-point ones where the report has no counted instruction
	// mix: an address computation and a branch.
	overheadInstructionsPerLup = 2
)

// latencyModel is Volkov's latency-hiding model fed with polyvol's volumes:
// a warp keeps each per-SM resource busy for its cost, and n warps in
// flight with latency L reach min(n/L, 1/max cost) warps per cycle. Idle
// threads (idle.go) hide no latency and update nothing: only the active
// warps are in flight, each with its active lanes.
type latencyModel struct{}

func (latencyModel) Name() ModelName { return ModelLatency }

func (latencyModel) Predict(r *Report, dev *device.Device, fpBytes int) (Prediction, error) {
	warpsPerSM, lanes := ActiveWarps(r, dev)
	return LatencyPrediction(r, dev, warpsPerSM, lanes, fpBytes)
}

// LatencyPrediction is the latency model's prediction for the volumes of r
// with warpsPerSM warps in flight per SM, each updating lanesPerWarp·λ
// lattice points, for a kernel of fpBytes-wide floating point. With
// warpsPerSM = β·⌈B/32⌉ and 32 lanes it is Estimate's latency model for a
// launch without idle threads; with idle ones Estimate passes the active
// warps and lanes.
func LatencyPrediction(r *Report, dev *device.Device, warpsPerSM, lanesPerWarp float64, fpBytes int) (Prediction, error) {
	d := r.Derived
	lambda := float64(r.Launch.LupsPerThread)
	p := Prediction{Model: ModelLatency}
	perWarpLups := lanesPerWarp * lambda
	// A warp issues each instruction once for all its lanes: the counted
	// mix (CountInstructions) per thread, else flops/2 plus the overhead.
	instructions := (r.Launch.FlopsPerLup/2 + overheadInstructionsPerLup) * lambda
	if r.Instructions != nil {
		instructions = r.Instructions.Total * lambda
	}
	costs, err := ResourceCosts(WarpCosts{
		L1DataPipeCycles: d.L1DataPipeCyclesPerLup * perWarpLups,
		L2Bytes:          d.L2Traffic() * perWarpLups,
		DRAMBytes:        d.DRAMTraffic() * perWarpLups,
		FPInstructions:   r.Launch.FlopsPerLup / 2 * lambda,
		Instructions:     instructions,
	}, *dev, fpBytes)
	if err != nil {
		return p, err
	}
	lat := LatencyPath{MemoryRoundTrips: latencyRoundTrips, DRAMFraction: d.dramShare(), DependentFP: r.Launch.FlopsPerLup / 2 * lambda}.Cycles(*dev)
	est, err := EstimateLatency(warpsPerSM, lat, costs)
	if err != nil {
		return p, err
	}
	p.GLups = est.Throughput * perWarpLups * float64(dev.SMs) * dev.ClockGHz
	p.Limiter = est.Limiter
	p.Regime = string(est.Regime)
	if r.Launch.LupsPerThread > kernel.MaxUnrolledLupsPerThread {
		// The one round trip per warp presumes loads issued together; a
		// thread that loops over its points waits for more, how many the
		// model does not know, so it keeps the resources' bound only.
		p.GLups = est.ThroughputBound * perWarpLups * float64(dev.SMs) * dev.ClockGHz
		p.Regime = string(ThroughputBound)
		p.Note = fmt.Sprintf("each thread loops over its %d lattice points, more than the %d it runs unrolled, and the latency model counts the round trip of loads issued together, one per warp: the prediction is the slowest resource's bound alone, with no latency estimate", r.Launch.LupsPerThread, kernel.MaxUnrolledLupsPerThread)
		return p, nil
	}
	p.NeededWarpsPerSM = est.NeededWarps
	p.Latency = &est
	return p, nil
}
