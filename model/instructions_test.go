package model

import (
	"fmt"
	"math"
	"reflect"
	"testing"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/footprint"
	"github.com/polyvol/polyvol/kernel"
)

// TestInstructionMixByHand checks CountInstructions on kernels counted by
// hand.
func TestInstructionMixByHand(t *testing.T) {
	dev, err := device.Lookup("A100-40GB")
	if err != nil {
		t.Fatal(err)
	}
	star := loadExample(t, "star2d-r1")
	conv, err := kernel.Parse([]byte(convolutionSpec("access")), "conv.yaml")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		k    *kernel.Kernel
		fold [3]int64
		want InstructionMix
	}{
		// 5 loads of A and one store of B, each field one address base
		// (2 instructions each), ⌈5/2⌉ FMAs, 3 index instructions in each
		// of 2 dimensions, and a point check of 2 compares and a branch.
		{"star2d-r1", star, kernel.NoFold, InstructionMix{Source: SourceCounted, Loads: 5, Stores: 1, FP: 3, Address: 4, Index: 6, Guard: 3, Total: 22}},
		// Folded by 2 in y: 8 distinct loads, 2 stores, 5 FMAs, the same
		// bases and index, two point checks; per lattice update half.
		{"star2d-r1 fold y 2", star, [3]int64{1, 2, 1}, InstructionMix{Source: SourceCounted, Loads: 4, Stores: 1, FP: 2.5, Address: 2, Index: 3, Guard: 3, Total: 15.5}},
		// A 15×15 convolution checking every access: 225 loads, 1 store,
		// 225 FMAs, one base per field, 6 index instructions; 15 + 15
		// distinct input coordinates and 1 + 1 output coordinates
		// compared, and one predicate combination per memory instruction.
		{"convolution, checks on every access", conv, kernel.NoFold, InstructionMix{Source: SourceCounted, Loads: 225, Stores: 1, FP: 225, Address: 4, Index: 6, Guard: 32 + 226, Total: 225 + 1 + 225 + 4 + 6 + 258}},
	}
	for _, tc := range tests {
		l := tc.k.NewLaunch([3]int64{32, 8, 1}, tc.fold)
		got, err := CountInstructions(tc.k, l, dev, footprint.FuseInAddressOrder)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %+v, want %+v", tc.name, got, tc.want)
		}
	}
	// The issue bound of star2d-r1 on the A100: 108 SMs × 1.41 GHz × 4
	// warp instructions per cycle × 32 lanes / 22 instructions per update.
	b, ok := IssueBound(InstructionMix{Total: 22}, 32, *dev)
	if want := 108 * 1.41 * 4 * 32 / 22.0; !ok || math.Abs(b-want) > 1e-9*want {
		t.Errorf("issue bound %v, want %v", b, want)
	}
}

// convolutionSpec is a 15×15 float convolution on a 64×64 output with the
// given bounds check.
func convolutionSpec(check string) string {
	s := "name: conv\ndomain: [64, 64]\nflops: 450\nbounds_check: " + check + "\nfields:\n  - name: input\n    element: 4\n    extent: [78, 78]\n    load:\n"
	for i := range 15 {
		for j := range 15 {
			s += fmt.Sprintf("      - [x + %d, y + %d]\n", j, i)
		}
	}
	return s + "  - name: output\n    element: 4\n    store: [[x, y]]\n"
}

// TestIssueLimitsEveryThroughputModel checks that the latency, su2015 and
// overlap models all see the issue bound: with a hundred times the counted
// instructions, instruction issue limits each of them, and none predicts
// more than the issue bound allows.
func TestIssueLimitsEveryThroughputModel(t *testing.T) {
	dev, err := device.Lookup("A100-40GB")
	if err != nil {
		t.Fatal(err)
	}
	k, err := kernel.Parse([]byte(convolutionSpec("access")), "conv.yaml")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Estimate(k, k.NewLaunch([3]int64{32, 8, 1}, kernel.NoFold), dev, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Instructions == nil || rep.Derived.PerfIssue == nil {
		t.Fatal("no instruction mix or issue bound")
	}
	slow := *rep
	mix := *rep.Instructions
	mix.Total *= 100
	slow.Instructions = &mix
	_, lanes := ActiveWarps(rep, dev)
	issue, ok := IssueBound(mix, lanes, *dev)
	if !ok {
		t.Fatal("no issue bound")
	}
	slow.Derived.PerfIssue = &issue
	for _, mn := range []ModelName{ModelLatency, ModelSu2015, ModelOverlap} {
		before, err := Predict(mn, rep, dev, k.FPType)
		if err != nil {
			t.Fatal(err)
		}
		after, err := Predict(mn, &slow, dev, k.FPType)
		if err != nil {
			t.Fatal(err)
		}
		if after.Limiter != "issue" || !(after.GLups <= issue*(1+1e-9)) || !(after.GLups < before.GLups) {
			t.Errorf("%s: %.4g GLup/s limited by %s with an issue bound of %.4g (%.4g GLup/s before)", mn, after.GLups, after.Limiter, issue, before.GLups)
		}
	}
}
