package request

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
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
	p, err := Predict{Kernel: k, Device: dev, Launch: Launch{Block: [3]int64{128, 2, 2}, Fold: [3]int64{1, 1, 2}, Tiling: kernel.TileStrided}, Registers: &regs, Options: opt}.Run()
	if err != nil {
		t.Fatal(err)
	}
	got := p.Report
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
		{"tile", `--tile "diagonal": expected one of consecutive, strided`, func() error { _, err := ParseLaunch(map[string]string{"tile": "diagonal"}); return err }()},
		{"fold", `--fold "1,x": entry 2 (y): "x" is not an integer`, func() error { _, err := ParseLaunch(map[string]string{"fold": "1,x"}); return err }()},
		{"block", `--block "3,x": entry 2 (y): "x" is not an integer`, func() error { _, err := ParseLaunch(map[string]string{"block": "3,x"}); return err }()},
		{"steps", `--steps "0": expected a whole number of time steps from 1 to 1024`, func() error { _, err := ParseLaunch(map[string]string{"steps": "0"}); return err }()},
		{"steps", "--steps: steps 2: the spec names no state (the staged field that each step advances), so it performs one step per launch", func() error { _, err := Launch{Fold: kernel.NoFold, Steps: 2}.Of(k); return err }()},
		{"registers", "--registers 0: expected 1 to 255 registers per thread", func() error { _, err := WithRegisters(k, 0); return err }()},
	} {
		if c.err == nil || FieldOf(c.err) != c.field || KindOf(c.err) != KindInput || (c.msg != "" && c.err.Error() != c.msg) {
			t.Errorf("%s: error %v (field %q, kind %v), want an input error of field %s: %q", c.field, c.err, FieldOf(c.err), KindOf(c.err), c.field, c.msg)
		}
	}
}

// cancelAfter is a context that ends once the budget it watches has spent
// more than work units: Budget.spend reads Done on the estimate's own
// goroutine before each charge, so the cancellation lands at a known
// point of the estimate's work, whatever the speed of the machine.
type cancelAfter struct {
	context.Context
	budget *footprint.Budget
	work   int64
	done   chan struct{}
}

// Done ends the context once the budget has spent more than work.
func (c *cancelAfter) Done() <-chan struct{} {
	if c.budget.Used() > c.work && c.Err() == nil {
		close(c.done)
	}
	return c.done
}

// Err is context.Canceled once Done has ended the context.
func (c *cancelAfter) Err() error {
	select {
	case <-c.done:
		return context.Canceled
	default:
		return nil
	}
}

// TestPredictStopsWithContext checks that a single predict stops when its
// context ends mid-estimate: a spec of 40 fields of 100 loads, whose warps
// cost more than 1 000 000 units of counting work, stops with
// context.Canceled inside the warp measures once its context ends at
// 200 000 units, having charged no more than one warp's lanes after it.
func TestPredictStopsWithContext(t *testing.T) {
	var spec strings.Builder
	spec.WriteString("name: wide\ndomain: [600, 600, 600]\nfields:\n")
	for f := range 40 {
		// 100 loads x + 0 … x + 99 of 2-byte elements: distinct distances
		// modulo the L1 model's period, so that none is measured with
		// another.
		fmt.Fprintf(&spec, "  - name: F%d\n    element: 2\n    extent: [720, 640, 640]\n    offset: 10\n    load:\n", f)
		for j := range 100 {
			fmt.Fprintf(&spec, "      - [x + %d, y, z]\n", j)
		}
	}
	spec.WriteString("  - name: OUT\n    element: 8\n    extent: [600, 600, 600]\n    store:\n      - [x, y, z]\n")
	k, err := kernel.Parse([]byte(spec.String()), "wide.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dev, err := device.Lookup(DefaultDevice)
	if err != nil {
		t.Fatal(err)
	}
	predict := func(opt model.Options) error {
		_, err := Predict{Kernel: k, Device: dev, Launch: Launch{Block: [3]int64{256, 1, 2}, Fold: kernel.NoFold}, Options: opt}.Run()
		return err
	}
	const stopAt, whole = 200_000, 1_000_000
	if err := predict(model.Options{Budget: &footprint.Budget{Limit: whole}}); !errors.Is(err, footprint.ErrWorkBound) {
		t.Fatalf("the predict under %d units: %v, want ErrWorkBound", whole, err)
	}
	b := &footprint.Budget{Limit: 10 * whole}
	ctx := &cancelAfter{Context: context.Background(), budget: b, work: stopAt, done: make(chan struct{})}
	b.Context = ctx
	err = predict(model.Options{Context: ctx, Budget: b})
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "warps of field") {
		t.Errorf("the predict cancelled at %d units: %v, want context.Canceled in the warp measures", stopAt, err)
	}
	if b.Used() > stopAt+1000 {
		t.Errorf("the predict cancelled at %d units went on to %d", stopAt, b.Used())
	}
}
