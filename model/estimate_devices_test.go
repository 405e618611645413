package model

import (
	"math"
	"testing"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/examples"
	"github.com/polyvol/polyvol/kernel"
)

// TestEstimateEveryExampleOnEveryDevice runs every example kernel on every
// device of the database, the two methods on alternate devices, and checks that the prediction is
// a positive, finite throughput and that the compulsory volumes are at least
// the bytes each lattice update must load and store once.
func TestEstimateEveryExampleOnEveryDevice(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every example on every device")
	}
	for _, name := range examples.Names() {
		k := loadExample(t, name)
		block := [3]int64{128, 2, 2}
		if k.Dims == 1 {
			block = [3]int64{256, 1, 1}
		} else if k.Dims == 2 {
			block = [3]int64{128, 2, 1}
		}
		// A domain of a few waves keeps the test quick without changing
		// what it checks.
		dom := k.Domain
		for i := range dom {
			dom[i] = min(dom[i], 48)
		}
		if k.Dims == 1 {
			dom[0] = min(k.Domain[0], 1<<18)
		}
		for i, d := range device.All() {
			for _, m := range []Method{[]Method{MethodExact, MethodReference}[i%2]} {
				l := kernel.Launch{Block: block, Fold: kernel.NoFold, Domain: dom}
				r, err := Estimate(k, l, d, Options{Method: m})
				if err != nil {
					t.Errorf("%s on %s (%s): %v", name, d.Name, m, err)
					continue
				}
				p := r.Prediction.GLups
				if !(p > 0) || math.IsInf(p, 0) {
					t.Errorf("%s on %s (%s): prediction %v GLup/s", name, d.Name, m, p)
				}
				if r.Derived.L1Load <= 0 || r.Derived.L2LoadV1 <= 0 {
					t.Errorf("%s on %s (%s): L1Load %v, L2LoadV1 %v", name, d.Name, m, r.Derived.L1Load, r.Derived.L2LoadV1)
				}
			}
		}
	}
}
