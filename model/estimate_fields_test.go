package model

import (
	"testing"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/sets"
)

// TestPerFieldVolumesSumToTotals checks that the per-field block, warp and
// wave volumes and the per-field per-Lup volumes add up to the totals, for
// multi-field kernels and both methods.
func TestPerFieldVolumesSumToTotals(t *testing.T) {
	d, err := device.Lookup("A100-40GB")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		block [3]int64
	}{{"vec3-scale", [3]int64{256, 1, 1}}, {"allen-cahn-d3q15", [3]int64{64, 2, 2}}, {"star3d-r4", [3]int64{64, 4, 4}}} {
		k := loadExample(t, c.name)
		dom := k.Domain
		for i := range dom {
			dom[i] = min(dom[i], 128)
		}
		if k.Dims == 1 {
			dom[0] = min(k.Domain[0], 1<<20)
		}
		for _, m := range []sets.Method{sets.Reference, sets.Exact} {
			r, err := Estimate(k, kernel.Launch{Block: c.block, Fold: kernel.NoFold, Domain: dom}, d, Options{Method: m})
			if err != nil {
				t.Fatal(err)
			}
			b, dv := r.Basic, r.Derived
			var l2, l1, newL, ovY, ovZ, l2st, newS float64
			for _, f := range b.LoadFields {
				l2 += f.BlockL2Load
				l1 += f.BlockL1Load
				newL += f.WaveMemNew
				ovY += f.WaveMemOverlapY
				ovZ += f.WaveMemOverlapZ
			}
			for _, f := range b.StoreFields {
				l2st += f.BlockL2Store
				newS += f.WaveMemNew
			}
			var dl1, dl2, dmem float64
			for _, f := range dv.LoadFields {
				dl1 += f.L1Load
				dl2 += f.L2LoadV1
				dmem += f.MemLoadV1
			}
			for _, p := range []struct {
				what       string
				sum, total float64
			}{
				{"block L2 load", l2, b.BlockL2Load}, {"block L1 load", l1, b.BlockL1Load},
				{"block L2 store", l2st, b.BlockL2Store},
				{"wave load New", newL, b.WaveMemLoadNew}, {"wave store New", newS, b.WaveMemStoreNew},
				{"wave z overlap", ovZ, b.WaveMemLoadOverlap[1]},
				{"L1Load", dl1, dv.L1Load}, {"L2LoadV1", dl2, dv.L2LoadV1}, {"memLoadV1", dmem, dv.MemLoadV1},
			} {
				if !closeTo(p.sum, p.total) {
					t.Errorf("%s %s: per-field %s sums to %v, total %v", c.name, m, p.what, p.sum, p.total)
				}
			}
			// The reference's per-field y overlap excludes the x part that its
			// total includes (spec §4.7, §8 item 20): the sum is at most it.
			if ovY > b.WaveMemLoadOverlap[0]*(1+1e-12) {
				t.Errorf("%s %s: per-field y overlaps %v exceed the x+y total %v", c.name, m, ovY, b.WaveMemLoadOverlap[0])
			}
		}
	}
}
