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
// in y.
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
		Kernel: k, Device: dev, Threads: 256, Folds: [][3]int64{{1, 1, 1}, {1, 2, 1}},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d configurations: %d ranked, %d skipped\n", res.Configurations, len(res.Reports), len(res.Skipped))
	best := res.Reports[0]
	fmt.Println("best has", best.Launch.ThreadsPerBlock, "threads per block:", best.Prediction.GLups > 0)
	// Output:
	// 84 configurations: 84 ranked, 0 skipped
	// best has 256 threads per block: true
}
