package model

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/examples"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/kernel/kerneltest"
	"github.com/polyvol/polyvol/sim"
)

// compareStepsWithSimulator compares the volumes of method exact's
// estimate of k under l that the simulator counts with infinite caches
// (L1Load, L2LoadV1, L2Store, MemLoadV1, MemStoreV1 per useful update,
// in total and per load field) with the simulator's, run with infinite caches
// and one block per SM, and returns the differences. They are compared
// where the grid fits in one wave and has a block per SM at most, so that
// the estimate's sample is the whole grid, its wave footprint the grid's,
// and no two blocks share an L1; compared is false where it does not, or
// where no block of l fits on one of d's SMs.
func compareStepsWithSimulator(t *testing.T, k *kernel.Kernel, l kernel.Launch, d *device.Device) (diffs []string, compared bool) {
	t.Helper()
	rep, err := Estimate(k, l, d, Options{Method: MethodExact})
	var noFit *device.NoFitError
	if errors.As(err, &noFit) {
		return nil, false
	}
	if err != nil {
		t.Fatal(err)
	}
	g := l.Grid()
	if blocks := g[0] * g[1] * g[2]; blocks > rep.Launch.BlocksPerWave || blocks > int64(d.SMs) {
		return nil, false
	}
	s, err := sim.Run(k, l, sim.Config{Device: d, Infinite: true, BlocksPerSM: 1})
	if err != nil {
		t.Fatal(err)
	}
	// Volumes per useful update, compared as whole bytes of the launch.
	lups := float64(s.Lups * l.StepCount())
	check := func(what string, got, want float64) {
		if g, w := got*lups, want*lups; math.Abs(g-w) > 1e-6*max(1, w) {
			diffs = append(diffs, fmt.Sprintf("%s: model %.1f B, simulator %.1f B (ratio %.4f)", what, g, w, g/w))
		}
	}
	dv := rep.Derived
	check("L1 load", dv.L1Load, s.Total.L1Load)
	check("L2 load", dv.L2LoadV1, s.Total.L2Load)
	check("L2 store", dv.L2Store, s.Total.L2Store)
	// The simulator's DRAM loads include the reads around partly written
	// chunks of the store, which the estimate's load footprint leaves to
	// its store evictions.
	check("DRAM load", dv.MemLoadV1, float64(s.Total.DRAMLoadBytes-s.Total.DRAMStoreReadBytes)/lups)
	check("DRAM store", dv.MemStoreV1, s.Total.MemStore)
	fields := map[string]sim.Volumes{}
	for _, v := range s.Fields {
		fields[v.Field] = v
	}
	for _, f := range dv.LoadFields {
		v := fields[f.Name]
		check(f.Name+" L1 load", f.L1Load, v.L1Load)
		check(f.Name+" L2 load", f.L2LoadV1, v.L2Load)
		check(f.Name+" DRAM load", f.MemLoadV1, v.MemLoad)
	}
	return diffs, true
}

// hotspotSteps returns the hotspot example over the given domain, with
// power staged (sh_power=1) or read from global memory at every step.
func hotspotSteps(t *testing.T, domain [3]int64, powerStaged bool) *kernel.Kernel {
	t.Helper()
	src, err := examples.Read("hotspot.yaml")
	if err != nil {
		t.Fatal(err)
	}
	text := string(src)
	if powerStaged {
		text = strings.Replace(text, "load: [[x, y]]\n", "stage: {copy: block}\n    load: [[x, y]]\n", 1)
	}
	k, err := kernel.Parse([]byte(text), "hotspot.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if (k.Fields[1].Stage != nil) != powerStaged {
		t.Fatal("power's stage is not as asked")
	}
	return k.WithDomain(domain)
}

// TestStepsEstimateEqualsSimulatorHotspot checks that the estimate's
// volumes of the hotspot example under launches of 1 to 4 time steps equal
// the simulator's exactly (compareStepsWithSimulator), power staged and
// not, on domains whose edge blocks the domain clips and on one it does
// not.
func TestStepsEstimateEqualsSimulatorHotspot(t *testing.T) {
	d, err := device.Lookup("A100-40GB")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		domain, block, fold [3]int64
		tiling              kernel.Tiling
	}{
		{[3]int64{256, 128, 1}, [3]int64{32, 8, 1}, [3]int64{2, 2, 1}, kernel.TileStrided},
		{[3]int64{100, 37, 1}, [3]int64{32, 8, 1}, [3]int64{2, 2, 1}, kernel.TileStrided},
		{[3]int64{70, 20, 1}, [3]int64{16, 4, 1}, [3]int64{1, 3, 1}, kernel.TileConsecutive},
	} {
		for _, staged := range []bool{false, true} {
			k := hotspotSteps(t, tc.domain, staged)
			for steps := int64(1); steps <= 4; steps++ {
				l := kernel.Launch{Block: tc.block, Fold: tc.fold, Domain: tc.domain, Tiling: tc.tiling, Steps: steps}
				diffs, compared := compareStepsWithSimulator(t, k, l, d)
				if !compared {
					t.Fatalf("domain %v block %v: not compared, the grid is more than a wave or the block does not fit", tc.domain, tc.block)
				}
				for _, diff := range diffs {
					t.Errorf("domain %v block %v fold %v %s sh_power %v steps %d: %s", tc.domain, tc.block, tc.fold, tc.tiling, staged, steps, diff)
				}
			}
		}
	}
}

// TestStepsEstimateEqualsSimulator checks that the estimate's volumes
// equal the simulator's exactly (compareStepsWithSimulator) on random
// kernels with a state advanced over 2 to 4 steps per launch
// (kerneltest.RandomStepsCase), on several devices; cases that
// compareStepsWithSimulator does not compare are drawn again.
func TestStepsEstimateEqualsSimulator(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 5))
	var devices []*device.Device
	for _, name := range []string{"A100-40GB", "V100", "H100-SXM", "MI250X"} {
		d, err := device.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		devices = append(devices, d)
	}
	cases := 120
	if testing.Short() {
		cases = 30
	}
	for n := 0; n < cases; {
		c := kerneltest.RandomStepsCase(rng)
		d := devices[rng.IntN(len(devices))]
		spec := c.Spec()
		k, err := kernel.Parse([]byte(spec), "inline.yaml")
		if err != nil {
			t.Fatalf("case %d: %v\n%s", n, err, spec)
		}
		diffs, compared := compareStepsWithSimulator(t, k, c.L, d)
		if !compared {
			continue
		}
		for _, diff := range diffs {
			t.Errorf("case %d (%s, block %v fold %v %s domain %v steps %d): %s\n%s", n, d.Name, c.L.Block, c.L.Fold, c.L.Tiling, c.L.Domain, c.L.Steps, diff, spec)
		}
		n++
	}
}
