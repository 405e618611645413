package model

import (
	"testing"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/waves"
)

// TestThirdMethodIsOneValue defines a method that is not one of the two
// named ones — method exact with the reference's register-only occupancy
// rule — by changing one choice of MethodExact, and checks that Estimate
// follows it: the blocks per SM are the register rule's (hand-computable:
// 65536 registers / (256 threads · 32 registers) = 8, although 100 KB of
// shared memory per block lets only one block fit on an A100), and the
// block-level volumes and L1 cycles, which do not depend on the blocks per
// SM, equal method exact's.
func TestThirdMethodIsOneValue(t *testing.T) {
	k := loadExample(t, "star3d-r1")
	k.SharedBytes = 100 << 10
	dev, err := device.Lookup("A100-40GB")
	if err != nil {
		t.Fatal(err)
	}
	variant := MethodExact
	variant.Name = "exact-register-occupancy"
	variant.Occupancy = waves.RegisterOnly

	l := kernel.Launch{Block: [3]int64{256, 1, 1}, Fold: kernel.NoFold, Domain: [3]int64{256, 64, 32}}
	exact, err := Estimate(k, l, dev, Options{Method: MethodExact})
	if err != nil {
		t.Fatal(err)
	}
	third, err := Estimate(k, l, dev, Options{Method: variant})
	if err != nil {
		t.Fatal(err)
	}
	if exact.Launch.BlocksPerSM != 1 || third.Launch.BlocksPerSM != 8 {
		t.Errorf("blocks per SM: exact %d, variant %d; want 1 (shared memory) and 8 (registers only)", exact.Launch.BlocksPerSM, third.Launch.BlocksPerSM)
	}
	if third.Method != variant.Name {
		t.Errorf("report names method %q, want %q", third.Method, variant.Name)
	}
	e, v := exact.Derived, third.Derived
	for _, c := range []struct {
		what       string
		got, exact float64
	}{
		{"L1Load", v.L1Load, e.L1Load}, {"L2LoadV1", v.L2LoadV1, e.L2LoadV1}, {"L2Store", v.L2Store, e.L2Store},
		{"L1Cycles", v.L1CyclesPerLup, e.L1CyclesPerLup}, {"L1DataPipeCycles", v.L1DataPipeCyclesPerLup, e.L1DataPipeCyclesPerLup},
	} {
		if c.got != c.exact {
			t.Errorf("%s: variant %v, exact %v; the occupancy rule must not change it", c.what, c.got, c.exact)
		}
	}
	if v.SmL1Alloc != 8*e.SmL1Alloc {
		t.Errorf("L1 allocation of one SM: variant %v, want 8 blocks' worth = 8 × %v", v.SmL1Alloc, e.SmL1Alloc)
	}
}
