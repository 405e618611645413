package kerneltest

import (
	"math/rand/v2"
	"testing"
)

// TestStagedFieldLoadsInsideArray checks the staged fields that
// Options.Stage draws: the spec loads, the first field is staged, read
// only, with 1 … Options.Loads loads; its offset is the halo of each
// dimension that a coordinate indexes, at its stride; and every load,
// evaluated at the corners of the domain and shifted by that halo,
// indexes inside the extent of each dimension.
func TestStagedFieldLoadsInsideArray(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for n := range 300 {
		domain := [3]int64{1 + r.Int64N(40), 1 + r.Int64N(9), 1 + r.Int64N(5)}
		halo := r.Int64N(4)
		k := Kernel(t, r, Options{
			Domain: domain,
			Loads:  4,
			Margin: [3]int64{3, 3, 3},
			Stage:  &Stage{Dims: 1 + r.IntN(3), Halo: halo},
		})
		f := k.Fields[0]
		if f.Stage == nil || len(f.Stores) > 0 || len(f.Loads) == 0 || len(f.Loads) > 4 {
			t.Fatalf("case %d: first field staged %v with %d loads and %d stores", n, f.Stage != nil, len(f.Loads), len(f.Stores))
		}
		var offset int64
		stride := int64(1)
		for j, e := range f.Loads[0].Index {
			if coef, _, _ := e.Linear(); coef != [3]int64{} {
				offset += halo * stride
			}
			stride *= f.Extent[j]
		}
		if f.Offset != offset {
			t.Errorf("case %d: offset %d, want the halo's %d", n, f.Offset, offset)
		}
		for _, a := range f.Loads {
			for j, e := range a.Index {
				coef, c, ok := e.Linear()
				if !ok {
					t.Fatalf("case %d: load %s index %d is not affine", n, a.Text, j)
				}
				lo, hi := c, c
				if coef != [3]int64{} {
					lo, hi = lo+halo, hi+halo
				}
				for i, v := range coef {
					lo += min(0, v*(domain[i]-1))
					hi += max(0, v*(domain[i]-1))
				}
				if lo < 0 || hi >= f.Extent[j] {
					t.Errorf("case %d: load %s index %d shifted by the halo spans %d … %d over domain %v, outside extent %d", n, a.Text, j, lo, hi, domain, f.Extent[j])
				}
			}
		}
	}
}
