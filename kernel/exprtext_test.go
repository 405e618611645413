package kernel_test

import (
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/kernel/kerneltest"
)

// TestAccessesTravelAsJSON encodes every access of random kernels, with
// floors, moduli and guards, as JSON and decodes it: each index and guard
// comes back equal.
func TestAccessesTravelAsJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	checked := 0
	for range 200 {
		k := kerneltest.Kernel(t, r, kerneltest.Options{
			Domain: [3]int64{40, 12, 6}, Fields: 3, Loads: 4, Stores: 2, Partial: true, Transpose: true, MaxExtra: 2,
			Lead:  []kerneltest.Term{kerneltest.Offset, kerneltest.Floor, kerneltest.Mod, kerneltest.Stride, kerneltest.Linearised},
			Extra: []kerneltest.Term{kerneltest.Affine, kerneltest.Coupled, kerneltest.CoupledMod, kerneltest.Nested, kerneltest.Wrapped},
		})
		for _, f := range k.Fields {
			for _, a := range append(f.Loads, f.Stores...) {
				data, err := json.Marshal(a)
				if err != nil {
					t.Fatal(err)
				}
				var back kernel.Access
				if err := json.Unmarshal(data, &back); err != nil {
					t.Fatalf("%s: %v", data, err)
				}
				for i := range a.Index {
					if !back.Index[i].Equal(a.Index[i]) {
						t.Fatalf("index %d of %s: %s came back as %s", i, a.Text, a.Index[i], back.Index[i])
					}
				}
				if len(back.Guards) != len(a.Guards) {
					t.Fatalf("%s: %d guards came back as %d", a.Text, len(a.Guards), len(back.Guards))
				}
				for i := range a.Guards {
					if !back.Guards[i].Equal(a.Guards[i]) {
						t.Fatalf("guard %d of %s: %s came back as %s", i, a.Text, a.Guards[i], back.Guards[i])
					}
				}
				checked++
			}
		}
	}
	if checked < 500 {
		t.Fatalf("only %d accesses checked", checked)
	}
}
