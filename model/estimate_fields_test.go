package model

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/polyvol/polyvol/examples"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/kernel"
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
		for _, m := range []Method{MethodReference, MethodExact} {
			r, err := Estimate(k, kernel.Launch{Block: c.block, Fold: kernel.NoFold, Domain: dom}, d, Options{Method: m})
			if err != nil {
				t.Fatal(err)
			}
			b, dv := r.Basic, r.Derived
			var l2, l1, newL, ovXY, ovZ, l2st, newS float64
			for _, f := range b.LoadFields {
				l2 += f.BlockL2Load
				l1 += f.BlockL1Load
				newL += f.WaveMemNew
				ovXY += f.WaveMemOverlapX + f.WaveMemOverlapY
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
				{"wave x+y overlap", ovXY, b.WaveMemLoadOverlap[0]},
				{"wave z overlap", ovZ, b.WaveMemLoadOverlap[1]},
				{"L1Load", dl1, dv.L1Load}, {"L2LoadV1", dl2, dv.L2LoadV1}, {"memLoadV1", dmem, dv.MemLoadV1},
			} {
				if !closeTo(p.sum, p.total) {
					t.Errorf("%s %s: per-field %s sums to %v, total %v", c.name, m, p.what, p.sum, p.total)
				}
			}
		}
	}
}

// TestPerFieldSharesSumToTotals checks, on every example and every device of
// the database with both methods, that every per-field derived volume
// summed over the load and store fields under its JSON key equals the total
// of the same key: the table's per-field columns add up to its total column.
func TestPerFieldSharesSumToTotals(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every example on every device with both methods")
	}
	for _, name := range examples.Names() {
		k := loadExample(t, name)
		block := [3]int64{256, 1, 1}
		switch k.Dims {
		case 2:
			block = [3]int64{64, 4, 1}
		case 3:
			block = [3]int64{64, 4, 2}
		}
		for _, dev := range device.All() {
			for _, m := range []Method{MethodReference, MethodExact} {
				r, err := Estimate(k, kernel.Launch{Block: block, Fold: kernel.NoFold, Domain: k.Domain}, dev, Options{Method: m})
				if err != nil {
					t.Fatalf("%s on %s, method %s: %v", name, dev.Name, m, err)
				}
				total := flatJSON(t, r.Derived)
				sums := map[string]float64{}
				for _, f := range r.Derived.LoadFields {
					for key, v := range flatJSON(t, f) {
						sums[key] += v
					}
				}
				for _, f := range r.Derived.StoreFields {
					for key, v := range flatJSON(t, f) {
						sums[key] += v
					}
				}
				for key, sum := range sums {
					want, ok := total[key]
					if !ok {
						t.Errorf("%s on %s, method %s: per-field key %s has no total", name, dev.Name, m, key)
					} else if math.Abs(sum-want) > 1e-9*math.Max(1, math.Abs(want)) {
						t.Errorf("%s on %s, method %s: per-field %s sums to %v, total %v", name, dev.Name, m, key, sum, want)
					}
				}
			}
		}
	}
}

// flatJSON returns the numbers of v's JSON encoding under flattened keys
// (key, or key[i] for arrays).
func flatJSON(t *testing.T, v any) map[string]float64 {
	t.Helper()
	js, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var top map[string]any
	if err := json.Unmarshal(js, &top); err != nil {
		t.Fatal(err)
	}
	delete(top, "loadFields")
	delete(top, "storeFields")
	out := map[string]float64{}
	flatten("", top, out)
	return out
}
