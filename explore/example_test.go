package explore_test

import (
	"context"
	"fmt"
	"log"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/explore"
	"github.com/polyvol/polyvol/kernel"
)

// A code generator ranks the block shapes of 256 threads for a 2-D
// five-point stencil on an A100, without and with two points per thread
// in y, the latter as thread folding and as a strided tile (where the
// block has more than one thread in y; elsewhere the two are one launch).
func ExampleRun() {
	k, err := kernel.Parse([]byte(`
name: star2d
domain: [4096, 4096]
flops: 5
fields:
  - {name: u, element: 8, load: [[x, y], [x+1, y], [x-1, y], [x, y+1], [x, y-1]]}
  - {name: v, element: 8, store: [[x, y]]}
`), "star2d.yaml")
	if err != nil {
		log.Fatal(err)
	}
	dev, err := device.Lookup("A100-40GB")
	if err != nil {
		log.Fatal(err)
	}
	res, err := explore.Run(context.Background(), explore.Config{
		Kernel: k, Device: dev, Threads: []int{256}, Folds: [][3]int64{{1, 1, 1}, {1, 2, 1}},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d configurations: %d ranked, %d skipped\n", res.Configurations, len(res.Reports), len(res.Skipped))
	best := res.Reports[0]
	fmt.Println("best has", best.Launch.ThreadsPerBlock, "threads per block:", best.Prediction.GLups > 0)
	// Output:
	// 26 configurations: 26 ranked, 0 skipped
	// best has 256 threads per block: true
}

// A code generator that has compiled some configurations gives their
// registers per thread; the others keep the spec's 32. At 128 registers a
// block of 256 threads leaves room for 2 blocks on an A100's SM, at 32 for
// 8.
func ExampleConfig_registers() {
	k, err := kernel.Parse([]byte(`
name: star2d
domain: [4096, 4096]
flops: 5
fields:
  - {name: u, element: 8, load: [[x, y], [x+1, y], [x-1, y], [x, y+1], [x, y-1]]}
  - {name: v, element: 8, store: [[x, y]]}
`), "star2d.yaml")
	if err != nil {
		log.Fatal(err)
	}
	dev, err := device.Lookup("A100-40GB")
	if err != nil {
		log.Fatal(err)
	}
	compiled := map[explore.Configuration]int{
		{Block: [3]int64{64, 4, 1}, Fold: [3]int64{1, 2, 1}, Tiling: kernel.TileStrided}: 128,
	}
	res, err := explore.Run(context.Background(), explore.Config{
		Kernel: k, Device: dev, Threads: []int{256}, Folds: [][3]int64{{1, 2, 1}},
		Registers: func(c explore.Configuration) int { return compiled[c] },
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range res.Reports {
		if c := explore.ReportConfiguration(r); c.Block == [3]int64{64, 4, 1} {
			fmt.Printf("%v: %d blocks per SM\n", c, r.Launch.BlocksPerSM)
		}
	}
	// Unordered output:
	// block 64,4,1 fold 1,2,1: 8 blocks per SM
	// block 64,4,1 fold 1,2,1 strided: 2 blocks per SM
}
