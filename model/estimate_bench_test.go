package model

import (
	"testing"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/examples"
	"github.com/polyvol/polyvol/isl"
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
				ctx, err := isl.NewCtx(isl.WithMaxOperations(DefaultMaxOperations))
				if err != nil {
					b.Fatal(err)
				}
				defer ctx.Close()
				l := k.NewLaunch(block, kernel.NoFold)
				for b.Loop() {
					if _, err := Estimate(k, l, d, Options{Method: m, Ctx: ctx}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
