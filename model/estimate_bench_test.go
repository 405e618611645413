package model

import (
	"fmt"
	"testing"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/examples"
	"github.com/polyvol/polyvol/kernel"
)

// BenchmarkEstimate evaluates all metrics of every example kernel on
// A100-40GB with block (256,1,2) (star3d-r4 is the paper's reference point;
// 1D and 2D kernels use (256,1,1) and (256,2,1)), for both methods, reusing
// one ISL context as a sweep would.
func BenchmarkEstimate(b *testing.B) {
	d, err := device.Lookup("A100-40GB")
	if err != nil {
		b.Fatal(err)
	}
	for _, name := range examples.Names() {
		k, err := kernel.ParseExample(name)
		if err != nil {
			b.Fatal(err)
		}
		block := [3]int64{256, 1, 2}
		switch k.Dims {
		case 1:
			block = [3]int64{256, 1, 1}
		case 2:
			block = [3]int64{256, 2, 1}
		}
		for _, m := range []Method{MethodReference, MethodExact} {
			b.Run(name+"/"+m.String(), func(b *testing.B) {
				l := k.NewLaunch(block, kernel.NoFold)
				for b.Loop() {
					if _, err := Estimate(k, l, d, Options{Method: m}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkStagedGrids estimates the staged 7-point stencil on A100-40GB
// with block (32,4,4) on grids of 64³ to 6400³ points: the tile copies and
// the bank conflicts are counted on the sample blocks, so the cost should
// not grow with the grid.
func BenchmarkStagedGrids(b *testing.B) {
	d, err := device.Lookup("A100-40GB")
	if err != nil {
		b.Fatal(err)
	}
	k, err := kernel.ParseExample("star3d-r1-staged")
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int64{64, 640, 6400} {
		kn := k.WithDomain([3]int64{n, n, n})
		b.Run(fmt.Sprintf("%d^3", n), func(b *testing.B) {
			l := kn.NewLaunch([3]int64{32, 4, 4}, kernel.NoFold)
			for b.Loop() {
				if _, err := Estimate(kn, l, d, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkConfigurations estimates, one configuration per iteration on
// A100-40GB, the folded and staged kernels that an exploration spends its
// time on: the 15×15 convolution with block (32,8,1) and fold (4,4,1) in
// both tilings, and with its input staged; hotspot in the configuration
// its spec documents (block (32,8,1), fold (2,2,1), strided), staged with
// one time step.
func BenchmarkConfigurations(b *testing.B) {
	d, err := device.Lookup("A100-40GB")
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		example     string
		block, fold [3]int64
		tiling      kernel.Tiling
	}{
		{"convolution-15x15", [3]int64{32, 8, 1}, [3]int64{4, 4, 1}, kernel.TileConsecutive},
		{"convolution-15x15", [3]int64{32, 8, 1}, [3]int64{4, 4, 1}, kernel.TileStrided},
		{"convolution-15x15-staged", [3]int64{32, 8, 1}, [3]int64{4, 4, 1}, kernel.TileStrided},
		{"hotspot", [3]int64{32, 8, 1}, [3]int64{2, 2, 1}, kernel.TileStrided},
	} {
		k, err := kernel.ParseExample(c.example)
		if err != nil {
			b.Fatal(err)
		}
		l := k.NewLaunch(c.block, c.fold)
		l.Tiling = c.tiling
		b.Run(fmt.Sprintf("%s/%s", c.example, c.tiling), func(b *testing.B) {
			for b.Loop() {
				if _, err := Estimate(k, l, d, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
