package explore

import (
	"context"
	"testing"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/kernel"
)

// sweepDevices are the eight devices of the tuning benchmark.
var sweepDevices = []string{"V100", "A100-40GB", "H100-SXM", "B200", "L40", "RTX-A4000", "MI100", "MI250X"}

// sweepFolds are the benchmark's 54 thread foldings: x 1–2, y 1–4, z 1–32.
func sweepFolds() [][3]int64 {
	var folds [][3]int64
	for _, x := range []int64{1, 2} {
		for _, y := range []int64{1, 2, 4} {
			for _, z := range []int64{1, 2, 3, 4, 6, 8, 12, 16, 32} {
				folds = append(folds, [3]int64{x, y, z})
			}
		}
	}
	return folds
}

// BenchmarkSweep is the tuning benchmark of one device: star3d-r4 over
// every block shape of 32 to 1024 threads (231 shapes) and 54 folds, 12,474
// configurations, with thread folding and two workers; the eight devices
// of sweepDevices make the 100,000-configuration sweep. It reports
// configurations per second of wall time. One iteration takes minutes:
// run it with -benchtime 1x, one device at a time (-bench Sweep/A100).
func BenchmarkSweep(b *testing.B) {
	k, err := kernel.ParseExample("star3d-r4")
	if err != nil {
		b.Fatal(err)
	}
	for _, name := range sweepDevices {
		dev, err := device.Lookup(name)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			configurations := 0
			for b.Loop() {
				for threads := 32; threads <= 1024; threads *= 2 {
					res, err := Run(context.Background(), Config{Kernel: k, Device: dev, Threads: []int{threads}, Folds: sweepFolds(),
						Tilings: []kernel.Tiling{kernel.TileConsecutive}, Workers: 2})
					if err != nil {
						b.Fatal(err)
					}
					configurations += res.Configurations
				}
			}
			b.ReportMetric(float64(configurations)/b.Elapsed().Seconds(), "configs/s")
		})
	}
}
