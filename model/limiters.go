package model

import (
	"fmt"
	"math"

	"github.com/polyvol/polyvol/device"
)

// Limiter identifies the resource that bounds a performance estimate. Its
// value is the reference's limiter index (docs/metrics.md §5.5).
type Limiter int

// The four limiters of the roofline extended by two cache levels.
const (
	LimiterFlops Limiter = iota // floating-point pipes
	LimiterL1                   // L1 data-pipe cycles
	LimiterL2                   // L2 bandwidth
	LimiterDRAM                 // DRAM bandwidth
)

var limiterNames = [...]string{"flops", "L1", "L2", "DRAM"}

// String returns the limiter's name: "flops", "L1", "L2" or "DRAM".
func (l Limiter) String() string {
	if l < 0 || int(l) >= len(limiterNames) {
		return fmt.Sprintf("Limiter(%d)", int(l))
	}
	return limiterNames[l]
}

// Limiters are the per-resource throughput bounds and their combinations,
// in GLup/s. PerfFlops is nil for a kernel without floating-point
// instructions: such a kernel has no flop limiter (docs/metrics.md §8
// item 25), and the minimum is taken over the remaining limiters.
type Limiters struct {
	PerfFlops *float64 `json:"perfFlops,omitempty"`
	// PerfIssue is the instruction-issue bound (InstructionMix,
	// IssueBound); nil where the device gives no issue rate. The
	// roofline's V1–V4 are the paper's and leave it out; the overlap and
	// latency models combine it with the others.
	PerfIssue *float64 `json:"perfIssue,omitempty"`
	// PerfShared is the shared-memory bound of staged fields: their
	// shared-memory cycles (each instruction the larger of its wavefronts
	// of banks × bank bytes and its issue cycles) one at a time per SM;
	// nil without staged fields.
	PerfShared *float64 `json:"perfShared,omitempty"`
	PerfL1     float64  `json:"perfL1"`
	PerfL2V1   float64  `json:"perfL2V1"`
	PerfL2V2   float64  `json:"perfL2V2"`
	PerfMemV1  float64  `json:"perfMemV1"`
	PerfMemV2  float64  `json:"perfMemV2"`
	PerfMemV3  float64  `json:"perfMemV3"`
	PerfMemV4  float64  `json:"perfMemV4"`

	PerfV1 float64 `json:"perfV1"`
	LimV1  Limiter `json:"limV1"`
	PerfV2 float64 `json:"perfV2"`
	LimV2  Limiter `json:"limV2"`
	PerfV3 float64 `json:"perfV3"`
	LimV3  Limiter `json:"limV3"`
	PerfV4 float64 `json:"perfV4"`
	LimV4  Limiter `json:"limV4"`

	// TFlops repeats every bound in TFlop/s; nil when the kernel has no flops.
	TFlops *TFlopsBounds `json:"perfTFlops,omitempty"`
}

// TFlopsBounds are the bounds of [Limiters] converted to TFlop/s
// (GLup/s · flopsPerLup / 1000).
type TFlopsBounds struct {
	Flops float64 `json:"Flops"`
	L1    float64 `json:"L1"`
	L2V1  float64 `json:"L2V1"`
	L2V2  float64 `json:"L2V2"`
	MemV1 float64 `json:"MemV1"`
	MemV2 float64 `json:"MemV2"`
	MemV3 float64 `json:"MemV3"`
	MemV4 float64 `json:"MemV4"`
	V1    float64 `json:"V1"`
	V2    float64 `json:"V2"`
	V3    float64 `json:"V3"`
	V4    float64 `json:"V4"`
}

// FlopsBound returns the floating-point throughput bound in GLup/s for
// flinsPerLup instructions per Lup, and false when there are none.
func FlopsBound(flinsPerLup float64, fpBytes int, dev device.Device) (float64, bool) {
	if flinsPerLup <= 0 {
		return 0, false
	}
	lanes := dev.FP64PerCycleSM
	if fpBytes == 4 {
		lanes = dev.FP32PerCycleSM
	}
	return dev.ClockGHz * float64(dev.SMs) * lanes / flinsPerLup, true
}

// Lowest returns the smallest bound and its limiter, indexed by [Limiter];
// an absent limiter is +Inf. Ties go to the lower index.
func Lowest(bounds [4]float64) (float64, Limiter) {
	best := LimiterFlops
	for i := range bounds {
		if bounds[i] < bounds[best] {
			best = Limiter(i)
		}
	}
	return bounds[best], best
}

// computeLimiters returns the bounds of d's volumes and cycles under l on
// dev, with the spill traffic (Derived.Spill) added to the L1 cycles and to
// the volumes of the levels it reaches.
func computeLimiters(d Derived, l Launch, dev device.Device) Limiters {
	clockSMs := dev.ClockGHz * float64(dev.SMs)
	l2, mem := d.Spill.at(LimiterL2), d.Spill.at(LimiterDRAM)
	lim := Limiters{
		PerfL1:    clockSMs / (d.L1CyclesPerLup + d.Spill.l1Cycles(dev)),
		PerfL2V1:  dev.L2BandwidthGBs / (d.L2TotalV1 + l2),
		PerfL2V2:  dev.L2BandwidthGBs / d.L2Traffic(),
		PerfMemV1: dev.DRAMBandwidthGBs / (d.MemLoadV1 + d.MemStoreV1 + mem),
		PerfMemV2: dev.DRAMBandwidthGBs / (d.MemLoadV2 + d.MemStoreV1 + mem),
		PerfMemV3: dev.DRAMBandwidthGBs / d.DRAMTraffic(),
		PerfMemV4: dev.DRAMBandwidthGBs / (d.MemLoadV4 + d.MemStoreV2 + mem),
	}
	if d.SharedCyclesPerLup > 0 {
		shared := clockSMs / d.SharedCyclesPerLup
		lim.PerfShared = &shared
	}
	flops := math.Inf(1)
	if f, ok := FlopsBound(l.FlinsPerLup, l.FPBytes, dev); ok {
		flops = f
		lim.PerfFlops = &f
	}
	lim.PerfV1, lim.LimV1 = Lowest([4]float64{flops, lim.PerfL1, lim.PerfL2V1, lim.PerfMemV1})
	lim.PerfV2, lim.LimV2 = Lowest([4]float64{flops, lim.PerfL1, lim.PerfL2V1, lim.PerfMemV2})
	lim.PerfV3, lim.LimV3 = Lowest([4]float64{flops, lim.PerfL1, lim.PerfL2V2, lim.PerfMemV3})
	lim.PerfV4, lim.LimV4 = Lowest([4]float64{flops, lim.PerfL1, lim.PerfL2V2, lim.PerfMemV4})

	if lim.PerfFlops != nil && l.FlopsPerLup > 0 {
		t := func(glups float64) float64 { return glups * l.FlopsPerLup / 1000 }
		lim.TFlops = &TFlopsBounds{
			Flops: t(*lim.PerfFlops), L1: t(lim.PerfL1), L2V1: t(lim.PerfL2V1), L2V2: t(lim.PerfL2V2),
			MemV1: t(lim.PerfMemV1), MemV2: t(lim.PerfMemV2), MemV3: t(lim.PerfMemV3), MemV4: t(lim.PerfMemV4),
			V1: t(lim.PerfV1), V2: t(lim.PerfV2), V3: t(lim.PerfV3), V4: t(lim.PerfV4),
		}
	}
	return lim
}
