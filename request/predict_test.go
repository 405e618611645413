package request

import (
	"context"
	"reflect"
	"testing"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/footprint"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/model"
)

// TestPredictRunMatchesEstimate checks that a predict request estimates the
// launch its keys name: the report equals model.Estimate's for the same
// kernel, launch and options, with the spec's registers replaced.
func TestPredictRunMatchesEstimate(t *testing.T) {
	k, err := kernel.ParseExample("star3d-r4")
	if err != nil {
		t.Fatal(err)
	}
	dev, err := device.Lookup(DefaultDevice)
	if err != nil {
		t.Fatal(err)
	}
	opt, err := Estimate{Method: "exact", Model: "roofline", MaxWork: footprint.DefaultWorkBound, MaxMemoryMB: DefaultMaxMemoryMB}.Options(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	regs := 96
	got, err := Predict{Kernel: k, Device: dev, Launch: Launch{Block: "128,2,2", Fold: "1,1,2", Tile: "strided"}, Registers: &regs, Options: opt}.Run()
	if err != nil {
		t.Fatal(err)
	}
	k96 := *k
	k96.Registers = regs
	l := k.NewLaunch([3]int64{128, 2, 2}, [3]int64{1, 1, 2})
	l.Tiling = kernel.TileStrided
	want, err := model.Estimate(&k96, l, dev, opt)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Derived, want.Derived) || got.Prediction.GLups != want.Prediction.GLups || got.Launch != want.Launch {
		t.Errorf("Run = %+v, model.Estimate = %+v", got.Prediction, want.Prediction)
	}
}

// TestRequestErrorsNameTheirKey checks that each invalid key gives an
// input error naming that key, with the CLI's message.
func TestRequestErrorsNameTheirKey(t *testing.T) {
	k, err := kernel.ParseExample("star3d-r4")
	if err != nil {
		t.Fatal(err)
	}
	ok := Estimate{Method: "exact", Model: "overlap", MaxWork: 1, MaxMemoryMB: 1}
	for _, c := range []struct {
		field, msg string
		err        error
	}{
		{"method", `--method: model: unknown method "fast" (expected "reference" or "exact")`, func() error { e := ok; e.Method = "fast"; _, err := e.Options(context.Background()); return err }()},
		{"max-work", "--max-work 0: expected a positive number", func() error { e := ok; e.MaxWork = 0; _, err := e.Options(context.Background()); return err }()},
		{"max-memory", "--max-memory 0: expected 1 to 1073741824 (MB)", func() error { e := ok; e.MaxMemoryMB = 0; _, err := e.Options(context.Background()); return err }()},
		{"tile", `--tile "diagonal": expected one of consecutive, strided`, func() error { _, err := (Launch{Fold: DefaultFold, Tile: "diagonal"}).Of(k); return err }()},
		{"fold", "", func() error { _, err := (Launch{Fold: "1,x", Tile: "consecutive"}).Of(k); return err }()},
		{"registers", "--registers 0: expected 1 to 255 registers per thread", func() error { _, err := WithRegisters(k, 0); return err }()},
	} {
		if c.err == nil || FieldOf(c.err) != c.field || KindOf(c.err) != KindInput || (c.msg != "" && c.err.Error() != c.msg) {
			t.Errorf("%s: error %v (field %q, kind %v), want an input error of field %s: %q", c.field, c.err, FieldOf(c.err), KindOf(c.err), c.field, c.msg)
		}
	}
}
