package accuracy

import (
	"fmt"
	"io"
	"math"
	"testing"

	"github.com/polyvol/polyvol/model"
)

// perfBound is a recorded bound on one figure of the absolute-performance
// section of docs/accuracy-hardware.md: N points, and the GLup/s MAPE of
// Model may not rise above MaxMAPE. Device and Kernel are empty for the
// pooled fit and held-out groups.
type perfBound struct {
	Dataset, Device, Kernel, Model string
	Fit                            bool
	N                              int
	MaxMAPE                        float64
}

// perfBounds were recorded from the figures of the commit that last changed
// the performance models (measured latencies in the device database, load
// and store round trips): MAPE · 1.05 + 0.3 percentage points, not tuned.
var perfBounds = []perfBound{
	{"all", "", "", "roofline", true, 1608, 146.5},
	{"all", "", "", "latency", true, 1608, 29.9},
	{"all", "", "", "su2015", true, 1608, 147.0},
	{"all", "", "", "overlap", true, 1608, 8.4},
	{"all", "", "", "roofline", false, 2498, 199.1},
	{"all", "", "", "latency", false, 2498, 39.6},
	{"all", "", "", "su2015", false, 2498, 199.8},
	{"all", "", "", "overlap", false, 2498, 14.4},
	{"gpu-stream", "A100-80GB", "3pt", "roofline", true, 71, 246.0},
	{"gpu-stream", "A100-80GB", "3pt", "latency", true, 71, 48.1},
	{"gpu-stream", "A100-80GB", "3pt", "su2015", true, 71, 248.0},
	{"gpu-stream", "A100-80GB", "3pt", "overlap", true, 71, 2.4},
	{"gpu-stream", "A100-80GB", "5pt", "roofline", true, 71, 251.9},
	{"gpu-stream", "A100-80GB", "5pt", "latency", true, 71, 49.9},
	{"gpu-stream", "A100-80GB", "5pt", "su2015", true, 71, 253.9},
	{"gpu-stream", "A100-80GB", "5pt", "overlap", true, 71, 2.8},
	{"gpu-stream", "A100-80GB", "init", "roofline", true, 71, 162.9},
	{"gpu-stream", "A100-80GB", "init", "latency", true, 71, 17.2},
	{"gpu-stream", "A100-80GB", "init", "su2015", true, 71, 163.0},
	{"gpu-stream", "A100-80GB", "init", "overlap", true, 71, 9.5},
	{"gpu-stream", "A100-80GB", "read", "roofline", true, 71, 470.7},
	{"gpu-stream", "A100-80GB", "read", "latency", true, 71, 54.7},
	{"gpu-stream", "A100-80GB", "read", "su2015", true, 71, 470.6},
	{"gpu-stream", "A100-80GB", "read", "overlap", true, 71, 10.9},
	{"gpu-stream", "A100-80GB", "scale", "roofline", true, 71, 232.3},
	{"gpu-stream", "A100-80GB", "scale", "latency", true, 71, 40.3},
	{"gpu-stream", "A100-80GB", "scale", "su2015", true, 71, 232.2},
	{"gpu-stream", "A100-80GB", "scale", "overlap", true, 71, 6.7},
	{"gpu-stream", "A100-80GB", "triad", "roofline", true, 71, 121.6},
	{"gpu-stream", "A100-80GB", "triad", "latency", true, 71, 31.6},
	{"gpu-stream", "A100-80GB", "triad", "su2015", true, 71, 121.5},
	{"gpu-stream", "A100-80GB", "triad", "overlap", true, 71, 3.4},
	{"gpu-stream", "L40", "3pt", "roofline", true, 55, 51.6},
	{"gpu-stream", "L40", "3pt", "latency", true, 55, 22.6},
	{"gpu-stream", "L40", "3pt", "su2015", true, 55, 52.4},
	{"gpu-stream", "L40", "3pt", "overlap", true, 55, 3.5},
	{"gpu-stream", "L40", "5pt", "roofline", true, 55, 60.0},
	{"gpu-stream", "L40", "5pt", "latency", true, 55, 27.5},
	{"gpu-stream", "L40", "5pt", "su2015", true, 55, 60.9},
	{"gpu-stream", "L40", "5pt", "overlap", true, 55, 3.6},
	{"gpu-stream", "L40", "init", "roofline", true, 55, 44.4},
	{"gpu-stream", "L40", "init", "latency", true, 55, 7.1},
	{"gpu-stream", "L40", "init", "su2015", true, 55, 44.5},
	{"gpu-stream", "L40", "init", "overlap", true, 55, 9.6},
	{"gpu-stream", "L40", "read", "roofline", true, 55, 107.3},
	{"gpu-stream", "L40", "read", "latency", true, 55, 25.1},
	{"gpu-stream", "L40", "read", "su2015", true, 55, 107.4},
	{"gpu-stream", "L40", "read", "overlap", true, 55, 8.6},
	{"gpu-stream", "L40", "scale", "roofline", true, 55, 47.0},
	{"gpu-stream", "L40", "scale", "latency", true, 55, 18.2},
	{"gpu-stream", "L40", "scale", "su2015", true, 55, 46.9},
	{"gpu-stream", "L40", "scale", "overlap", true, 55, 5.3},
	{"gpu-stream", "L40", "triad", "roofline", true, 55, 20.1},
	{"gpu-stream", "L40", "triad", "latency", true, 55, 12.0},
	{"gpu-stream", "L40", "triad", "su2015", true, 55, 20.1},
	{"gpu-stream", "L40", "triad", "overlap", true, 55, 4.6},
	{"gpu-stream", "MI100", "3pt", "roofline", true, 71, 135.1},
	{"gpu-stream", "MI100", "3pt", "latency", true, 71, 36.0},
	{"gpu-stream", "MI100", "3pt", "su2015", true, 71, 136.7},
	{"gpu-stream", "MI100", "3pt", "overlap", true, 71, 12.3},
	{"gpu-stream", "MI100", "5pt", "roofline", true, 71, 144.5},
	{"gpu-stream", "MI100", "5pt", "latency", true, 71, 38.5},
	{"gpu-stream", "MI100", "5pt", "su2015", true, 71, 146.5},
	{"gpu-stream", "MI100", "5pt", "overlap", true, 71, 8.6},
	{"gpu-stream", "MI100", "init", "roofline", true, 71, 144.5},
	{"gpu-stream", "MI100", "init", "latency", true, 71, 9.9},
	{"gpu-stream", "MI100", "init", "su2015", true, 71, 144.5},
	{"gpu-stream", "MI100", "init", "overlap", true, 71, 20.4},
	{"gpu-stream", "MI100", "read", "roofline", true, 71, 204.4},
	{"gpu-stream", "MI100", "read", "latency", true, 71, 23.6},
	{"gpu-stream", "MI100", "read", "su2015", true, 71, 204.4},
	{"gpu-stream", "MI100", "read", "overlap", true, 71, 15.6},
	{"gpu-stream", "MI100", "scale", "roofline", true, 71, 129.9},
	{"gpu-stream", "MI100", "scale", "latency", true, 71, 31.0},
	{"gpu-stream", "MI100", "scale", "su2015", true, 71, 129.9},
	{"gpu-stream", "MI100", "scale", "overlap", true, 71, 15.6},
	{"gpu-stream", "MI100", "triad", "roofline", true, 71, 70.1},
	{"gpu-stream", "MI100", "triad", "latency", true, 71, 29.1},
	{"gpu-stream", "MI100", "triad", "su2015", true, 71, 70.1},
	{"gpu-stream", "MI100", "triad", "overlap", true, 71, 15.4},
	{"gpu-stream", "V100", "3pt", "roofline", true, 71, 120.9},
	{"gpu-stream", "V100", "3pt", "latency", true, 71, 35.3},
	{"gpu-stream", "V100", "3pt", "su2015", true, 71, 122.1},
	{"gpu-stream", "V100", "3pt", "overlap", true, 71, 3.3},
	{"gpu-stream", "V100", "5pt", "roofline", true, 71, 126.1},
	{"gpu-stream", "V100", "5pt", "latency", true, 71, 36.7},
	{"gpu-stream", "V100", "5pt", "su2015", true, 71, 127.3},
	{"gpu-stream", "V100", "5pt", "overlap", true, 71, 3.9},
	{"gpu-stream", "V100", "init", "roofline", true, 71, 94.3},
	{"gpu-stream", "V100", "init", "latency", true, 71, 11.6},
	{"gpu-stream", "V100", "init", "su2015", true, 71, 94.3},
	{"gpu-stream", "V100", "init", "overlap", true, 71, 12.8},
	{"gpu-stream", "V100", "read", "roofline", true, 71, 231.8},
	{"gpu-stream", "V100", "read", "latency", true, 71, 38.9},
	{"gpu-stream", "V100", "read", "su2015", true, 71, 231.8},
	{"gpu-stream", "V100", "read", "overlap", true, 71, 11.7},
	{"gpu-stream", "V100", "scale", "roofline", true, 71, 115.7},
	{"gpu-stream", "V100", "scale", "latency", true, 71, 31.4},
	{"gpu-stream", "V100", "scale", "su2015", true, 71, 115.7},
	{"gpu-stream", "V100", "scale", "overlap", true, 71, 3.1},
	{"gpu-stream", "V100", "triad", "roofline", true, 71, 59.0},
	{"gpu-stream", "V100", "triad", "latency", true, 71, 26.6},
	{"gpu-stream", "V100", "triad", "su2015", true, 71, 59.0},
	{"gpu-stream", "V100", "triad", "overlap", true, 71, 4.2},
	{"gpu-stream", "A100-40GB", "3pt", "roofline", false, 54, 233.8},
	{"gpu-stream", "A100-40GB", "3pt", "latency", false, 54, 81.7},
	{"gpu-stream", "A100-40GB", "3pt", "su2015", false, 54, 235.8},
	{"gpu-stream", "A100-40GB", "3pt", "overlap", false, 54, 24.1},
	{"gpu-stream", "A100-40GB", "5pt", "roofline", false, 54, 238.5},
	{"gpu-stream", "A100-40GB", "5pt", "latency", false, 54, 83.6},
	{"gpu-stream", "A100-40GB", "5pt", "su2015", false, 54, 240.5},
	{"gpu-stream", "A100-40GB", "5pt", "overlap", false, 54, 24.9},
	{"gpu-stream", "A100-40GB", "init", "roofline", false, 54, 149.1},
	{"gpu-stream", "A100-40GB", "init", "latency", false, 54, 17.6},
	{"gpu-stream", "A100-40GB", "init", "su2015", false, 54, 149.2},
	{"gpu-stream", "A100-40GB", "init", "overlap", false, 54, 24.6},
	{"gpu-stream", "A100-40GB", "read", "roofline", false, 54, 458.4},
	{"gpu-stream", "A100-40GB", "read", "latency", false, 54, 98.0},
	{"gpu-stream", "A100-40GB", "read", "su2015", false, 54, 458.3},
	{"gpu-stream", "A100-40GB", "read", "overlap", false, 54, 45.0},
	{"gpu-stream", "A100-40GB", "scale", "roofline", false, 54, 221.3},
	{"gpu-stream", "A100-40GB", "scale", "latency", false, 54, 72.1},
	{"gpu-stream", "A100-40GB", "scale", "su2015", false, 54, 221.2},
	{"gpu-stream", "A100-40GB", "scale", "overlap", false, 54, 21.6},
	{"gpu-stream", "A100-40GB", "triad", "roofline", false, 54, 144.7},
	{"gpu-stream", "A100-40GB", "triad", "latency", false, 54, 57.4},
	{"gpu-stream", "A100-40GB", "triad", "su2015", false, 54, 144.6},
	{"gpu-stream", "A100-40GB", "triad", "overlap", false, 54, 17.9},
	{"gpu-stream", "A40", "3pt", "roofline", false, 55, 100.0},
	{"gpu-stream", "A40", "3pt", "latency", false, 55, 28.7},
	{"gpu-stream", "A40", "3pt", "su2015", false, 55, 101.2},
	{"gpu-stream", "A40", "3pt", "overlap", false, 55, 4.3},
	{"gpu-stream", "A40", "5pt", "roofline", false, 55, 126.3},
	{"gpu-stream", "A40", "5pt", "latency", false, 55, 45.0},
	{"gpu-stream", "A40", "5pt", "su2015", false, 55, 127.6},
	{"gpu-stream", "A40", "5pt", "overlap", false, 55, 9.0},
	{"gpu-stream", "A40", "init", "roofline", false, 55, 60.7},
	{"gpu-stream", "A40", "init", "latency", false, 55, 11.7},
	{"gpu-stream", "A40", "init", "su2015", false, 55, 60.7},
	{"gpu-stream", "A40", "init", "overlap", false, 55, 5.6},
	{"gpu-stream", "A40", "read", "roofline", false, 55, 200.9},
	{"gpu-stream", "A40", "read", "latency", false, 55, 29.7},
	{"gpu-stream", "A40", "read", "su2015", false, 55, 200.9},
	{"gpu-stream", "A40", "read", "overlap", false, 55, 6.9},
	{"gpu-stream", "A40", "scale", "roofline", false, 55, 90.6},
	{"gpu-stream", "A40", "scale", "latency", false, 55, 22.4},
	{"gpu-stream", "A40", "scale", "su2015", false, 55, 90.6},
	{"gpu-stream", "A40", "scale", "overlap", false, 55, 7.7},
	{"gpu-stream", "A40", "triad", "roofline", false, 55, 41.1},
	{"gpu-stream", "A40", "triad", "latency", false, 55, 16.7},
	{"gpu-stream", "A40", "triad", "su2015", false, 55, 41.1},
	{"gpu-stream", "A40", "triad", "overlap", false, 55, 5.4},
	{"gpu-stream", "GH200", "3pt", "roofline", false, 39, 465.0},
	{"gpu-stream", "GH200", "3pt", "latency", false, 39, 62.8},
	{"gpu-stream", "GH200", "3pt", "su2015", false, 39, 468.4},
	{"gpu-stream", "GH200", "3pt", "overlap", false, 39, 8.9},
	{"gpu-stream", "GH200", "5pt", "roofline", false, 39, 474.7},
	{"gpu-stream", "GH200", "5pt", "latency", false, 39, 64.2},
	{"gpu-stream", "GH200", "5pt", "su2015", false, 39, 478.1},
	{"gpu-stream", "GH200", "5pt", "overlap", false, 39, 9.0},
	{"gpu-stream", "GH200", "init", "roofline", false, 39, 324.1},
	{"gpu-stream", "GH200", "init", "latency", false, 39, 27.2},
	{"gpu-stream", "GH200", "init", "su2015", false, 39, 324.2},
	{"gpu-stream", "GH200", "init", "overlap", false, 39, 14.8},
	{"gpu-stream", "GH200", "read", "roofline", false, 39, 882.1},
	{"gpu-stream", "GH200", "read", "latency", false, 39, 59.7},
	{"gpu-stream", "GH200", "read", "su2015", false, 39, 881.9},
	{"gpu-stream", "GH200", "read", "overlap", false, 39, 6.7},
	{"gpu-stream", "GH200", "scale", "roofline", false, 39, 441.2},
	{"gpu-stream", "GH200", "scale", "latency", false, 39, 53.7},
	{"gpu-stream", "GH200", "scale", "su2015", false, 39, 441.1},
	{"gpu-stream", "GH200", "scale", "overlap", false, 39, 10.3},
	{"gpu-stream", "GH200", "triad", "roofline", false, 39, 230.3},
	{"gpu-stream", "GH200", "triad", "latency", false, 39, 42.9},
	{"gpu-stream", "GH200", "triad", "su2015", false, 39, 230.3},
	{"gpu-stream", "GH200", "triad", "overlap", false, 39, 12.0},
	{"gpu-stream", "H100-PCIe", "3pt", "roofline", false, 32, 82.8},
	{"gpu-stream", "H100-PCIe", "3pt", "latency", false, 32, 36.9},
	{"gpu-stream", "H100-PCIe", "3pt", "su2015", false, 32, 83.7},
	{"gpu-stream", "H100-PCIe", "3pt", "overlap", false, 32, 2.6},
	{"gpu-stream", "H100-PCIe", "5pt", "roofline", false, 32, 85.3},
	{"gpu-stream", "H100-PCIe", "5pt", "latency", false, 32, 37.9},
	{"gpu-stream", "H100-PCIe", "5pt", "su2015", false, 32, 86.2},
	{"gpu-stream", "H100-PCIe", "5pt", "overlap", false, 32, 2.8},
	{"gpu-stream", "H100-PCIe", "init", "roofline", false, 32, 53.9},
	{"gpu-stream", "H100-PCIe", "init", "latency", false, 32, 20.7},
	{"gpu-stream", "H100-PCIe", "init", "su2015", false, 32, 54.0},
	{"gpu-stream", "H100-PCIe", "init", "overlap", false, 32, 15.3},
	{"gpu-stream", "H100-PCIe", "read", "roofline", false, 32, 162.2},
	{"gpu-stream", "H100-PCIe", "read", "latency", false, 32, 42.0},
	{"gpu-stream", "H100-PCIe", "read", "su2015", false, 32, 162.2},
	{"gpu-stream", "H100-PCIe", "read", "overlap", false, 32, 9.5},
	{"gpu-stream", "H100-PCIe", "scale", "roofline", false, 32, 76.3},
	{"gpu-stream", "H100-PCIe", "scale", "latency", false, 32, 32.3},
	{"gpu-stream", "H100-PCIe", "scale", "su2015", false, 32, 76.2},
	{"gpu-stream", "H100-PCIe", "scale", "overlap", false, 32, 3.8},
	{"gpu-stream", "H100-PCIe", "triad", "roofline", false, 32, 46.3},
	{"gpu-stream", "H100-PCIe", "triad", "latency", false, 32, 23.1},
	{"gpu-stream", "H100-PCIe", "triad", "su2015", false, 32, 46.3},
	{"gpu-stream", "H100-PCIe", "triad", "overlap", false, 32, 4.5},
	{"gpu-stream", "H200", "3pt", "roofline", false, 32, 139.6},
	{"gpu-stream", "H200", "3pt", "latency", false, 32, 56.7},
	{"gpu-stream", "H200", "3pt", "su2015", false, 32, 140.7},
	{"gpu-stream", "H200", "3pt", "overlap", false, 32, 7.1},
	{"gpu-stream", "H200", "5pt", "roofline", false, 32, 143.2},
	{"gpu-stream", "H200", "5pt", "latency", false, 32, 58.2},
	{"gpu-stream", "H200", "5pt", "su2015", false, 32, 144.4},
	{"gpu-stream", "H200", "5pt", "overlap", false, 32, 7.6},
	{"gpu-stream", "H200", "init", "roofline", false, 32, 83.9},
	{"gpu-stream", "H200", "init", "latency", false, 32, 24.3},
	{"gpu-stream", "H200", "init", "su2015", false, 32, 83.9},
	{"gpu-stream", "H200", "init", "overlap", false, 32, 15.8},
	{"gpu-stream", "H200", "read", "roofline", false, 32, 266.3},
	{"gpu-stream", "H200", "read", "latency", false, 32, 59.2},
	{"gpu-stream", "H200", "read", "su2015", false, 32, 266.1},
	{"gpu-stream", "H200", "read", "overlap", false, 32, 8.1},
	{"gpu-stream", "H200", "scale", "roofline", false, 32, 128.6},
	{"gpu-stream", "H200", "scale", "latency", false, 32, 49.5},
	{"gpu-stream", "H200", "scale", "su2015", false, 32, 128.5},
	{"gpu-stream", "H200", "scale", "overlap", false, 32, 6.9},
	{"gpu-stream", "H200", "triad", "roofline", false, 32, 78.7},
	{"gpu-stream", "H200", "triad", "latency", false, 32, 34.5},
	{"gpu-stream", "H200", "triad", "su2015", false, 32, 78.7},
	{"gpu-stream", "H200", "triad", "overlap", false, 32, 7.4},
	{"gpu-stream", "MI210", "3pt", "roofline", false, 71, 224.7},
	{"gpu-stream", "MI210", "3pt", "latency", false, 71, 55.3},
	{"gpu-stream", "MI210", "3pt", "su2015", false, 71, 227.6},
	{"gpu-stream", "MI210", "3pt", "overlap", false, 71, 8.2},
	{"gpu-stream", "MI210", "5pt", "roofline", false, 71, 243.3},
	{"gpu-stream", "MI210", "5pt", "latency", false, 71, 69.1},
	{"gpu-stream", "MI210", "5pt", "su2015", false, 71, 246.3},
	{"gpu-stream", "MI210", "5pt", "overlap", false, 71, 18.2},
	{"gpu-stream", "MI210", "init", "roofline", false, 71, 220.5},
	{"gpu-stream", "MI210", "init", "latency", false, 71, 8.1},
	{"gpu-stream", "MI210", "init", "su2015", false, 71, 220.5},
	{"gpu-stream", "MI210", "init", "overlap", false, 71, 22.1},
	{"gpu-stream", "MI210", "read", "roofline", false, 71, 324.7},
	{"gpu-stream", "MI210", "read", "latency", false, 71, 31.1},
	{"gpu-stream", "MI210", "read", "su2015", false, 71, 324.6},
	{"gpu-stream", "MI210", "read", "overlap", false, 71, 5.8},
	{"gpu-stream", "MI210", "scale", "roofline", false, 71, 213.2},
	{"gpu-stream", "MI210", "scale", "latency", false, 71, 43.2},
	{"gpu-stream", "MI210", "scale", "su2015", false, 71, 213.1},
	{"gpu-stream", "MI210", "scale", "overlap", false, 71, 4.1},
	{"gpu-stream", "MI210", "triad", "roofline", false, 71, 117.2},
	{"gpu-stream", "MI210", "triad", "latency", false, 71, 40.0},
	{"gpu-stream", "MI210", "triad", "su2015", false, 71, 117.1},
	{"gpu-stream", "MI210", "triad", "overlap", false, 71, 9.0},
	{"gpu-stream", "MI300A", "3pt", "roofline", false, 39, 260.7},
	{"gpu-stream", "MI300A", "3pt", "latency", false, 39, 51.7},
	{"gpu-stream", "MI300A", "3pt", "su2015", false, 39, 264.7},
	{"gpu-stream", "MI300A", "3pt", "overlap", false, 39, 8.9},
	{"gpu-stream", "MI300A", "5pt", "roofline", false, 39, 272.5},
	{"gpu-stream", "MI300A", "5pt", "latency", false, 39, 59.0},
	{"gpu-stream", "MI300A", "5pt", "su2015", false, 39, 276.5},
	{"gpu-stream", "MI300A", "5pt", "overlap", false, 39, 14.8},
	{"gpu-stream", "MI300A", "init", "roofline", false, 39, 210.7},
	{"gpu-stream", "MI300A", "init", "latency", false, 39, 12.3},
	{"gpu-stream", "MI300A", "init", "su2015", false, 39, 210.6},
	{"gpu-stream", "MI300A", "init", "overlap", false, 39, 7.3},
	{"gpu-stream", "MI300A", "read", "roofline", false, 39, 428.3},
	{"gpu-stream", "MI300A", "read", "latency", false, 39, 34.1},
	{"gpu-stream", "MI300A", "read", "su2015", false, 39, 428.0},
	{"gpu-stream", "MI300A", "read", "overlap", false, 39, 7.9},
	{"gpu-stream", "MI300A", "scale", "roofline", false, 39, 256.6},
	{"gpu-stream", "MI300A", "scale", "latency", false, 39, 41.8},
	{"gpu-stream", "MI300A", "scale", "su2015", false, 39, 256.4},
	{"gpu-stream", "MI300A", "scale", "overlap", false, 39, 10.6},
	{"gpu-stream", "MI300A", "triad", "roofline", false, 39, 125.0},
	{"gpu-stream", "MI300A", "triad", "latency", false, 39, 32.3},
	{"gpu-stream", "MI300A", "triad", "su2015", false, 39, 124.9},
	{"gpu-stream", "MI300A", "triad", "overlap", false, 39, 6.6},
	{"gpu-stream", "MI300X", "3pt", "roofline", false, 39, 280.3},
	{"gpu-stream", "MI300X", "3pt", "latency", false, 39, 50.6},
	{"gpu-stream", "MI300X", "3pt", "su2015", false, 39, 284.6},
	{"gpu-stream", "MI300X", "3pt", "overlap", false, 39, 7.3},
	{"gpu-stream", "MI300X", "5pt", "roofline", false, 39, 293.1},
	{"gpu-stream", "MI300X", "5pt", "latency", false, 39, 58.7},
	{"gpu-stream", "MI300X", "5pt", "su2015", false, 39, 297.5},
	{"gpu-stream", "MI300X", "5pt", "overlap", false, 39, 13.7},
	{"gpu-stream", "MI300X", "init", "roofline", false, 39, 228.4},
	{"gpu-stream", "MI300X", "init", "latency", false, 39, 16.3},
	{"gpu-stream", "MI300X", "init", "su2015", false, 39, 228.5},
	{"gpu-stream", "MI300X", "init", "overlap", false, 39, 8.7},
	{"gpu-stream", "MI300X", "read", "roofline", false, 39, 456.6},
	{"gpu-stream", "MI300X", "read", "latency", false, 39, 29.4},
	{"gpu-stream", "MI300X", "read", "su2015", false, 39, 456.3},
	{"gpu-stream", "MI300X", "read", "overlap", false, 39, 7.2},
	{"gpu-stream", "MI300X", "scale", "roofline", false, 39, 273.5},
	{"gpu-stream", "MI300X", "scale", "latency", false, 39, 39.7},
	{"gpu-stream", "MI300X", "scale", "su2015", false, 39, 273.3},
	{"gpu-stream", "MI300X", "scale", "overlap", false, 39, 10.1},
	{"gpu-stream", "MI300X", "triad", "roofline", false, 39, 129.3},
	{"gpu-stream", "MI300X", "triad", "latency", false, 39, 29.4},
	{"gpu-stream", "MI300X", "triad", "su2015", false, 39, 129.0},
	{"gpu-stream", "MI300X", "triad", "overlap", false, 39, 7.3},
	{"gpu-stream", "RX6900XT", "3pt", "roofline", false, 55, 31.6},
	{"gpu-stream", "RX6900XT", "3pt", "latency", false, 55, 8.4},
	{"gpu-stream", "RX6900XT", "3pt", "su2015", false, 55, 33.2},
	{"gpu-stream", "RX6900XT", "3pt", "overlap", false, 55, 30.3},
	{"gpu-stream", "RX6900XT", "5pt", "roofline", false, 55, 34.4},
	{"gpu-stream", "RX6900XT", "5pt", "latency", false, 55, 7.8},
	{"gpu-stream", "RX6900XT", "5pt", "su2015", false, 55, 36.0},
	{"gpu-stream", "RX6900XT", "5pt", "overlap", false, 55, 30.1},
	{"gpu-stream", "RX6900XT", "init", "roofline", false, 55, 29.0},
	{"gpu-stream", "RX6900XT", "init", "latency", false, 55, 31.0},
	{"gpu-stream", "RX6900XT", "init", "su2015", false, 55, 29.0},
	{"gpu-stream", "RX6900XT", "init", "overlap", false, 55, 28.3},
	{"gpu-stream", "RX6900XT", "read", "roofline", false, 55, 63.0},
	{"gpu-stream", "RX6900XT", "read", "latency", false, 55, 27.5},
	{"gpu-stream", "RX6900XT", "read", "su2015", false, 55, 63.0},
	{"gpu-stream", "RX6900XT", "read", "overlap", false, 55, 49.7},
	{"gpu-stream", "RX6900XT", "scale", "roofline", false, 55, 29.4},
	{"gpu-stream", "RX6900XT", "scale", "latency", false, 55, 13.7},
	{"gpu-stream", "RX6900XT", "scale", "su2015", false, 55, 29.3},
	{"gpu-stream", "RX6900XT", "scale", "overlap", false, 55, 34.6},
	{"gpu-stream", "RX6900XT", "triad", "roofline", false, 55, 18.0},
	{"gpu-stream", "RX6900XT", "triad", "latency", false, 55, 14.2},
	{"gpu-stream", "RX6900XT", "triad", "su2015", false, 55, 18.0},
	{"gpu-stream", "RX6900XT", "triad", "overlap", false, 55, 22.2},
	{"paper", "A100-40GB", "star3d-r4", "roofline", false, 2, 30.6},
	{"paper", "A100-40GB", "star3d-r4", "latency", false, 2, 30.6},
	{"paper", "A100-40GB", "star3d-r4", "su2015", false, 2, 12.7},
	{"paper", "A100-40GB", "star3d-r4", "overlap", false, 2, 6.1},
}

// TestPerfBounds recomputes the absolute-performance figures of
// docs/accuracy-hardware.md and fails when one moves past its bound.
func TestPerfBounds(t *testing.T) {
	pf, _, err := PerfReport(hardwareDir, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	key := func(ds, dev, k, m string, fit bool) string { return fmt.Sprint(ds, "/", dev, "/", k, "/", m, "/", fit) }
	stats := map[string]PerfStat{}
	for _, s := range pf.Stats {
		stats[key(s.Dataset, s.Device, s.Kernel, string(s.Model), s.Fit)] = s
	}
	for _, b := range perfBounds {
		k := key(b.Dataset, b.Device, b.Kernel, b.Model, b.Fit)
		s, ok := stats[k]
		if !ok {
			t.Errorf("%s: no figure", k)
			continue
		}
		if s.N != b.N || !(s.MAPE <= b.MaxMAPE) {
			t.Errorf("%s: %d points (recorded %d), MAPE %.2f %% above the bound %.1f %%", k, s.N, b.N, s.MAPE, b.MaxMAPE)
		}
	}
	if len(stats) != len(perfBounds) {
		t.Errorf("%d performance figures, %d bounds", len(stats), len(perfBounds))
	}
}

// TestOverlapFit repeats the fit of the overlap model's constants on the
// fit devices and checks that model.DefaultOverlap is its result, and that
// the overlap model is the most accurate of PerfModels on the held-out
// points.
func TestOverlapFit(t *testing.T) {
	pf, _, err := PerfReport(hardwareDir, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	par, fitErr, err := FitOverlap(pf)
	if err != nil {
		t.Fatal(err)
	}
	if par != model.DefaultOverlap {
		t.Errorf("the fit gives %+v (MAPE %.2f %%); the model has %+v", par, fitErr, model.DefaultOverlap)
	}
	best, bestMAPE := model.ModelName(""), math.Inf(1)
	for _, s := range pf.Stats {
		if s.Dataset == "all" && !s.Fit && s.MAPE < bestMAPE {
			best, bestMAPE = s.Model, s.MAPE
		}
	}
	if best != model.ModelOverlap {
		t.Errorf("the most accurate model on the held-out points is %s (%.1f %%), not %s", best, bestMAPE, model.ModelOverlap)
	}
}
