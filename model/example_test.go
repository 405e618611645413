package model_test

import (
	"fmt"
	"log"
	"math"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/model"
)

// Estimate predicts one configuration: a copy of doubles, b[x] = a[x],
// with blocks of 256 threads. Every thread loads 8 bytes and stores 8, all
// coalesced, so each level moves 8 B per lattice update each way.
func ExampleEstimate() {
	k, err := kernel.Parse([]byte(`
name: copy
domain: [16777216]
fields:
  - {name: a, element: 8, load: [[x]]}
  - {name: b, element: 8, store: [[x]]}
`), "copy.yaml")
	if err != nil {
		log.Fatal(err)
	}
	dev, err := device.Lookup("A100-40GB")
	if err != nil {
		log.Fatal(err)
	}
	launch := kernel.Launch{Block: [3]int64{256, 1, 1}, Fold: kernel.NoFold, Domain: k.Domain}
	r, err := model.Estimate(k, launch, dev, model.Options{Method: model.MethodExact, Model: model.ModelRoofline})
	if err != nil {
		log.Fatal(err)
	}
	d := r.Derived
	fmt.Printf("L1 load %g, L2 load %g, L2 store %g, DRAM load %g, DRAM store %g B/Lup\n",
		d.L1Load, d.L2LoadV1, d.L2Store, d.MemLoadV1, d.MemStoreV1)
	fmt.Printf("limited by %s, at the DRAM bandwidth over 16 B: %v\n", r.Prediction.Limiter, math.Abs(r.Prediction.GLups-dev.DRAMBandwidthGBs/16) < 1e-9)
	// Output:
	// L1 load 8, L2 load 8, L2 store 8, DRAM load 8, DRAM store 8 B/Lup
	// limited by DRAM, at the DRAM bandwidth over 16 B: true
}
