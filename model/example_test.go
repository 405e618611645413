package model_test

import (
	"fmt"
	"log"
	"math"
	"testing"

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

// A device with block_launch_cycles starts at most one block per that many
// cycles on each SM. The V100 (173 cycles): a 2-D box stencil of range 1
// in blocks of 32 threads runs at 80 SMs · 1.38 GHz / 173 · 32 = 20.42
// GLup/s, whatever its volumes allow (the measured 20.44 of
// testdata/measured/v100_box2d_blockscan_gflops.csv); blocks of 256
// threads (ceiling 163 GLup/s) are limited by DRAM.
func TestBlockLaunchCeiling(t *testing.T) {
	k, err := kernel.Parse([]byte(`
name: box2d-r1
domain: [14976, 14998]
fields:
  - {name: B, element: 8, extent: [15000, 15000], offset: 15016, load: [[x-1, y-1], [x, y-1], [x+1, y-1], [x-1, y], [x, y], [x+1, y], [x-1, y+1], [x, y+1], [x+1, y+1]]}
  - {name: A, element: 8, extent: [15000, 15000], offset: 15016, store: [[x, y]]}
flops: 9
`), "box.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dev, err := device.Lookup("V100")
	if err != nil {
		t.Fatal(err)
	}
	want := 80 * 1.38 / 173 * 32
	for _, c := range []struct {
		block   [3]int64
		limited bool
	}{{[3]int64{32, 1, 1}, true}, {[3]int64{8, 4, 1}, true}, {[3]int64{256, 1, 1}, false}} {
		r, err := model.Estimate(k, kernel.Launch{Block: c.block, Fold: kernel.NoFold, Domain: k.Domain}, dev, model.Options{Model: model.ModelOverlap})
		if err != nil {
			t.Fatal(err)
		}
		p := r.Prediction
		if got := p.Limiter == "block launch"; got != c.limited {
			t.Errorf("block %v: limiter %q at %v GLup/s, want block launch: %v", c.block, p.Limiter, p.GLups, c.limited)
		}
		// Within 0.1 %: the 8×4 blocks of the last block row (14998 rows)
		// have idle threads, which update nothing.
		if c.limited && math.Abs(p.GLups-want) > 1e-3*want {
			t.Errorf("block %v: %v GLup/s, want %v", c.block, p.GLups, want)
		}
	}
}
