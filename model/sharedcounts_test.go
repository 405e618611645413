package model

import (
	"reflect"
	"testing"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/footprint"
	"github.com/polyvol/polyvol/kernel"
)

// TestSharedCountsLeaveEstimatesUnchanged estimates kernels of different
// shapes under several launches, on two devices and with both methods,
// once with one footprint.CountMemo shared by all, as a sweep does, and
// once with none, and checks that every report, or error (a launch
// larger than a 2D kernel's domain), is the same.
func TestSharedCountsLeaveEstimatesUnchanged(t *testing.T) {
	shared := footprint.NewCountMemo()
	launches := []struct {
		block, fold [3]int64
	}{
		{[3]int64{32, 4, 1}, [3]int64{1, 1, 1}},
		{[3]int64{64, 2, 2}, [3]int64{1, 1, 2}},
		{[3]int64{128, 1, 1}, [3]int64{1, 2, 1}},
		{[3]int64{16, 8, 2}, [3]int64{2, 1, 1}},
	}
	examples := []string{"star3d-r4", "transpose2d", "lbm-d3q19-aos"}
	if testing.Short() {
		examples = examples[:1]
	}
	for _, name := range examples {
		k, err := kernel.ParseExample(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, devName := range []string{"A100-40GB", "MI100"} {
			dev, err := device.Lookup(devName)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range []Method{MethodExact, MethodReference} {
				for _, la := range launches {
					l := k.NewLaunch(la.block, la.fold)
					want, wantErr := Estimate(k, l, dev, Options{Method: m})
					got, err := Estimate(k, l, dev, Options{Method: m, Counts: shared})
					if wantErr != nil || err != nil {
						if wantErr == nil || err == nil || err.Error() != wantErr.Error() {
							t.Errorf("%s %v fold %v on %s (%s): with shared counts the error %v, want %v", name, la.block, la.fold, devName, m.Name, err, wantErr)
						}
						continue
					}
					if !reflect.DeepEqual(got, want) {
						t.Errorf("%s %v fold %v on %s (%s): with shared counts\n%+v\nwant\n%+v", name, la.block, la.fold, devName, m.Name, got.Basic, want.Basic)
					}
				}
			}
		}
	}
}
