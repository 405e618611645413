package sim_test

import (
	"testing"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/sim"
)

// BenchmarkSimulate runs the 3D range-4 star stencil (25 loads, 1 store per
// thread) on a 256×128×64 domain through the A100's real caches with the L2
// split, and reports simulated lane accesses per second.
func BenchmarkSimulate(b *testing.B) {
	k, err := kernel.ParseExample("star3d-r4")
	if err != nil {
		b.Fatal(err)
	}
	d, err := device.Lookup("A100-40GB")
	if err != nil {
		b.Fatal(err)
	}
	l := kernel.Launch{Block: [3]int64{256, 2, 1}, Fold: kernel.NoFold, Domain: [3]int64{256, 128, 64}}
	var accesses int64
	for b.Loop() {
		r, err := sim.Run(k, l, sim.Config{Device: d, SplitL2: true})
		if err != nil {
			b.Fatal(err)
		}
		accesses += r.Accesses
	}
	b.ReportMetric(float64(accesses)/b.Elapsed().Seconds(), "accesses/s")
}
