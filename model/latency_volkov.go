package model

import "math"

// SyntheticGPU holds the per-SM parameters of Volkov's synthetic workload
// (docs/models.md §1.2): each warp runs one coalesced 128 B load that misses
// the caches followed by α dependent adds. Throughputs are in instructions
// per cycle per SM (IPC/SM), latencies in cycles.
type SyntheticGPU struct {
	Name       string
	MemLatency float64
	MemThru    float64
	ALULatency float64
	ALUThru    float64
	IssueThru  float64
	SMs        int
	ClockGHz   float64
	Loaded     LoadedLatency // memory latency under load (§1.3)
}

// syntheticLoadBytes is the bytes one warp's load instruction moves.
const syntheticLoadBytes = 128

// VolkovGPUs are the five GPUs of Volkov 2016: Table 4.1 (latencies and
// throughputs), Tables 2.6/2.7 (SMs, clock) and Table 6.5 (loaded latency).
var VolkovGPUs = map[string]SyntheticGPU{
	"G80":     {"G80", 444, 0.0268, 20, 0.25, 0.5, 16, 1.35, LoadedLatency{453, 61, 81}},
	"GT200":   {"GT200", 434, 0.0277, 24, 0.25, 0.5, 30, 1.296, LoadedLatency{438, 17, 140}},
	"Fermi":   {"Fermi", 513, 0.0599, 18, 1, 1, 15, 1.4, LoadedLatency{501, 41, 170}},
	"Kepler":  {"Kepler", 301, 0.1338, 9, 4, 4, 8, 1.124, LoadedLatency{300, 32, 170}},
	"Maxwell": {"Maxwell", 368, 0.0814, 6, 4, 4, 16, 1.266, LoadedLatency{372, 22, 221}},
}

// costs are the busy cycles per loop iteration (one load, α adds).
func (g SyntheticGPU) costs(alpha float64) []ResourceCost {
	return []ResourceCost{
		{"memory", 1 / g.MemThru},
		{"alu", alpha / g.ALUThru},
		{"issue", (alpha + 1) / g.IssueThru},
	}
}

// MemIPC evaluates the basic model at n warps per SM and α adds per load;
// Throughput is the memory IPC/SM.
func (g SyntheticGPU) MemIPC(warpsPerSM, alpha float64) (LatencyEstimate, error) {
	return EstimateLatency(warpsPerSM, g.MemLatency+alpha*g.ALULatency, g.costs(alpha))
}

// LoadedMemIPC evaluates the refined model whose memory latency rises with
// the attained bandwidth.
func (g SyntheticGPU) LoadedMemIPC(warpsPerSM, alpha float64) (LatencyEstimate, error) {
	return SolveLoadedLatency(LoadedRun{
		WarpsPerSM: warpsPerSM, OtherLatencyCycles: alpha * g.ALULatency, Memory: g.Loaded,
		DRAMBytesPerWarp: syntheticLoadBytes, SMs: g.SMs, ClockGHz: g.ClockGHz, Costs: g.costs(alpha),
	})
}

// GBs converts a memory IPC/SM into GB/s over the whole GPU.
func (g SyntheticGPU) GBs(memIPC float64) float64 {
	return memIPC * syntheticLoadBytes * float64(g.SMs) * g.ClockGHz
}

// Cusp returns the arithmetic intensity α (adds per load) that needs the
// most warps, and that occupancy. The need (mem_lat + α·alu_lat)·T(α) rises
// while memory bounds T and falls once the ALU or issue bound takes over, so
// its maximum lies where the memory bound meets the first of those.
func (g SyntheticGPU) Cusp() (alpha, warps float64) {
	alpha = math.Min(g.ALUThru/g.MemThru, g.IssueThru/g.MemThru-1)
	return alpha, (g.MemLatency + alpha*g.ALULatency) * g.MemThru
}
