package model

import (
	"math"
	"testing"

	"github.com/polyvol/polyvol/device"
)

// TestGridTailByHand checks the partial last wave and the launch cost on
// cases computed by hand.
func TestGridTailByHand(t *testing.T) {
	dev := &device.Device{SMs: 100}
	launch := KernelLaunchMicroseconds * 1e-6
	report := func(blocks, perSM, lups int64) *Report {
		return &Report{Launch: LaunchInfo{Grid: [3]int64{blocks, 1, 1}, BlocksPerSM: perSM, LupCount: lups}}
	}
	near := func(name string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-12*want {
			t.Errorf("%s: %v GLup/s, want %v", name, got, want)
		}
	}
	// 10 full waves of 2 blocks on each of 100 SMs: only the launch adds
	// to L/G.
	bounds := []overlapBound{{"flops", 300}, {"L1", 200}, {"DRAM", 100}, {"latency", 400}}
	steady := pNorm(bounds, 3)
	r := report(2000, 2, 1e9)
	near("full waves", gridTail(r, dev, bounds, steady, 3).glups, 1e9/(1e9/(steady*1e9)+launch)/1e9)

	// Half a wave bound by DRAM alone: the tail runs at the DRAM rate, so
	// the half wave takes as long per update as a full one.
	dram := []overlapBound{{"DRAM", 100}}
	r = report(100, 2, 5e8)
	near("half wave, DRAM", gridTail(r, dev, dram, 100, 3).glups, 5e8/(5e8/100e9+launch)/1e9)

	// 25 blocks of 1 per SM bound by L1 alone: a quarter of the SMs run,
	// at a quarter of the rate.
	l1 := []overlapBound{{"L1", 200}}
	r = report(25, 1, 1e8)
	res := gridTail(r, dev, l1, 200, 3)
	near("quarter of the SMs, L1", res.glups, 1e8/(1e8/50e9+launch)/1e9)
	if res.note(dev) == "" {
		t.Error("no note for a grid on 25 of 100 SMs")
	}

	// A tail of 50 of 200 slots (1.25 waves), latency bound alone: the
	// tail's warps in flight are a quarter, and it does a fifth of the
	// work at a quarter of the rate.
	lat := []overlapBound{{"latency", 80}}
	r = report(250, 2, 1e9)
	want := 1e9 / (0.8e9/80e9 + 0.2e9/20e9 + launch) / 1e9
	res = gridTail(r, dev, lat, 80, 3)
	near("latency tail", res.glups, want)
	if res.note(dev) == "" {
		t.Error("no note for a last wave a quarter full")
	}

	// A tiny grid is bound by its launch.
	r = report(1, 1, 256)
	if res := gridTail(r, dev, dram, 100, 3); !res.launchBound {
		t.Errorf("256 updates at %v GLup/s are not launch-bound", res.glups)
	}
}
