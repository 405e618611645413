package model

import (
	"errors"
	"fmt"
	"math"

	"github.com/polyvol/polyvol/device"
)

// Regime says whether occupancy or a resource bounds the throughput.
type Regime string

// The two regimes of the latency-aware model.
const (
	LatencyBound    Regime = "latency-bound"
	ThroughputBound Regime = "throughput-bound"
)

// ResourceCost is the number of cycles one warp keeps one per-SM resource
// busy (Volkov's C_r = Σ_i N_i·cost_{i,r}).
type ResourceCost struct {
	Name          string  `json:"name"`
	CyclesPerWarp float64 `json:"cyclesPerWarp"`
}

// LatencyEstimate is the result of the latency-aware model for one SM.
// Throughputs are in warps per cycle per SM, latencies in cycles, occupancy
// in resident warps per SM.
type LatencyEstimate struct {
	WarpsPerSM      float64 `json:"warpsPerSM"`      // n
	LatencyCycles   float64 `json:"latencyCycles"`   // L, the warp latency used
	ThroughputBound float64 `json:"throughputBound"` // T = 1/max_r C_r
	Throughput      float64 `json:"throughput"`      // min(n/L, T)
	Regime          Regime  `json:"regime"`
	// Limiter is the resource with the largest busy time; it bounds the
	// throughput in the throughput-bound regime.
	Limiter string `json:"limiter"`
	// NeededWarps is the occupancy that saturates the limiter, L·T.
	NeededWarps float64 `json:"neededWarps"`
}

// EstimateLatency evaluates warp throughput ≈ min(n/L, T) for n resident
// warps per SM, warp latency L in cycles and the per-warp resource costs.
func EstimateLatency(warpsPerSM, latencyCycles float64, costs []ResourceCost) (LatencyEstimate, error) {
	if !(warpsPerSM > 0) || !(latencyCycles > 0) || math.IsInf(latencyCycles, 0) {
		return LatencyEstimate{}, fmt.Errorf("model: latency model needs positive occupancy and latency, got %v warps and %v cycles", warpsPerSM, latencyCycles)
	}
	limiter, busiest, err := busiestResource(costs)
	if err != nil {
		return LatencyEstimate{}, err
	}
	t := 1 / busiest
	e := LatencyEstimate{
		WarpsPerSM:      warpsPerSM,
		LatencyCycles:   latencyCycles,
		ThroughputBound: t,
		Throughput:      math.Min(warpsPerSM/latencyCycles, t),
		Regime:          ThroughputBound,
		Limiter:         limiter,
		NeededWarps:     latencyCycles * t,
	}
	if warpsPerSM/latencyCycles < t {
		e.Regime = LatencyBound
	}
	return e, nil
}

func busiestResource(costs []ResourceCost) (string, float64, error) {
	name, busiest := "", 0.0
	for _, c := range costs {
		if c.CyclesPerWarp < 0 || math.IsNaN(c.CyclesPerWarp) || math.IsInf(c.CyclesPerWarp, 0) {
			return "", 0, fmt.Errorf("model: resource %q: cycles per warp must be finite and not negative, got %v", c.Name, c.CyclesPerWarp)
		}
		if c.CyclesPerWarp > busiest {
			name, busiest = c.Name, c.CyclesPerWarp
		}
	}
	if busiest == 0 {
		return "", 0, errors.New("model: latency model needs at least one resource with a positive cost per warp")
	}
	return name, busiest, nil
}

// LoadedLatency is Volkov's fit of memory latency under load,
// mem_lat(λ) = Base + Slope·λ/(CapacityGBs − λ) cycles at λ GB/s of
// attained DRAM throughput (docs/models.md §1.3).
type LoadedLatency struct {
	BaseCycles  float64 `json:"a"`
	SlopeCycles float64 `json:"b"`
	CapacityGBs float64 `json:"c"`
}

// Cycles returns the memory latency at an attained throughput of gbs GB/s;
// it grows without bound as gbs approaches the capacity.
func (f LoadedLatency) Cycles(gbs float64) float64 {
	if gbs >= f.CapacityGBs {
		return math.Inf(1)
	}
	return f.BaseCycles + f.SlopeCycles*gbs/(f.CapacityGBs-gbs)
}

// LoadedRun describes the warps of a latency-aware estimate whose memory
// latency rises with the memory load.
type LoadedRun struct {
	WarpsPerSM         float64        // n
	OtherLatencyCycles float64        // latency outside the memory access, e.g. α·alu_lat
	Memory             LoadedLatency  // memory latency as a function of load
	DRAMBytesPerWarp   float64        // bytes one warp moves from DRAM
	SMs                int            // SMs sharing the memory system
	ClockGHz           float64        // core clock
	Costs              []ResourceCost // per-warp resource costs for T
}

// bisectionSteps halves the bracket down to below 1e-15 of its width.
const bisectionSteps = 60

// SolveLoadedLatency solves x = min(n/(mem_lat(λ(x)) + other), T) with
// λ(x) = x·bytesPerWarp·SMs·clock by bisection; the right-hand side falls
// as x rises, so the root is unique and λ stays below the capacity.
func SolveLoadedLatency(r LoadedRun) (LatencyEstimate, error) {
	if !(r.DRAMBytesPerWarp > 0) || r.SMs <= 0 || !(r.ClockGHz > 0) || !(r.Memory.CapacityGBs > 0) {
		return LatencyEstimate{}, fmt.Errorf("model: loaded latency needs positive bytes per warp, SMs, clock and capacity, got %v, %d, %v, %v",
			r.DRAMBytesPerWarp, r.SMs, r.ClockGHz, r.Memory.CapacityGBs)
	}
	if !(r.WarpsPerSM > 0) || r.OtherLatencyCycles < 0 {
		return LatencyEstimate{}, fmt.Errorf("model: loaded latency needs positive occupancy and non-negative other latency, got %v and %v", r.WarpsPerSM, r.OtherLatencyCycles)
	}
	_, busiest, err := busiestResource(r.Costs)
	if err != nil {
		return LatencyEstimate{}, err
	}
	gbsPerWarpRate := r.DRAMBytesPerWarp * float64(r.SMs) * r.ClockGHz
	latency := func(x float64) float64 { return r.Memory.Cycles(x*gbsPerWarpRate) + r.OtherLatencyCycles }
	rhs := func(x float64) float64 { return math.Min(r.WarpsPerSM/latency(x), 1/busiest) }
	lo, hi := 0.0, math.Min(1/busiest, r.Memory.CapacityGBs/gbsPerWarpRate)
	for range bisectionSteps {
		mid := (lo + hi) / 2
		if rhs(mid) > mid {
			lo = mid
		} else {
			hi = mid
		}
	}
	return EstimateLatency(r.WarpsPerSM, latency(lo), r.Costs)
}

// WarpCosts are the per-warp demands of a kernel on each SM resource.
type WarpCosts struct {
	L1DataPipeCycles float64 `json:"L1DataPipeCycles"` // L1 wavefronts per warp
	L2Bytes          float64 `json:"L2Bytes"`          // bytes moved between L1 and L2 per warp
	DRAMBytes        float64 `json:"DRAMBytes"`        // bytes moved between L2 and DRAM per warp
	FPInstructions   float64 `json:"FPInstructions"`   // warp-level floating-point instructions (FMA = 1)
	Instructions     float64 `json:"instructions"`     // all warp-level instructions issued
}

// ResourceCosts converts per-warp demands into busy cycles per warp on one
// SM of dev, with L2 and DRAM bandwidth shared evenly by the SMs, the FP
// pipe of the given precision (4 or 8 bytes) and the device's issue rate
// (device.IssuePerCycleSM).
func ResourceCosts(w WarpCosts, dev device.Device, fpBytes int) ([]ResourceCost, error) {
	if dev.SMs <= 0 || !(dev.ClockGHz > 0) || !(dev.L2BandwidthGBs > 0) || !(dev.DRAMBandwidthGBs > 0) || dev.WarpSize <= 0 || !(dev.IssuePerCycleSM > 0) {
		return nil, fmt.Errorf("model: device %q needs positive sms, clock_ghz, warp_size, issue_per_cycle_sm and bandwidths for the latency model", dev.Name)
	}
	lanes := dev.FP64PerCycleSM
	if fpBytes == 4 {
		lanes = dev.FP32PerCycleSM
	}
	if !(lanes > 0) {
		return nil, fmt.Errorf("model: device %q has no FP lanes for %d-byte floating point", dev.Name, fpBytes)
	}
	bytesPerCycleSM := func(gbs float64) float64 { return gbs / (float64(dev.SMs) * dev.ClockGHz) }
	return []ResourceCost{
		{"L1", w.L1DataPipeCycles},
		{"L2", w.L2Bytes / bytesPerCycleSM(dev.L2BandwidthGBs)},
		{"DRAM", w.DRAMBytes / bytesPerCycleSM(dev.DRAMBandwidthGBs)},
		{"flops", w.FPInstructions * float64(dev.WarpSize) / lanes},
		{"issue", w.Instructions / dev.IssuePerCycleSM},
	}, nil
}

// LatencyPath is the dependency chain of one warp: dependent memory round
// trips, the fraction of them served by DRAM (the rest by L2), and
// dependent floating-point instructions.
type LatencyPath struct {
	MemoryRoundTrips float64 `json:"memoryRoundTrips"`
	DRAMFraction     float64 `json:"DRAMFraction"`
	DependentFP      float64 `json:"dependentFP"`
}

// Cycles returns the chain's unloaded latency on dev.
func (p LatencyPath) Cycles(dev device.Device) float64 {
	mem := p.DRAMFraction*dev.Latencies.DRAMCycles + (1-p.DRAMFraction)*dev.Latencies.L2Cycles
	return p.MemoryRoundTrips*mem + p.DependentFP*dev.Latencies.FPCycles
}
