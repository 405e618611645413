package explore

import (
	"context"
	"strings"
	"testing"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/model"
)

// TestRunSteps sweeps the hotspot's time steps per launch, staged and
// unstaged: every configuration is ranked or skipped once with its steps;
// the state read unstaged with more than one step and tiles of 200 steps,
// which do not fit the shared memory, are skips with their reasons; the
// rows are ranked by time per step, and the best one predicts what
// model.Estimate predicts for its launch.
func TestRunSteps(t *testing.T) {
	k, err := kernel.ParseExample("hotspot")
	if err != nil {
		t.Fatal(err)
	}
	dev, err := device.Lookup("RTX-A4000")
	if err != nil {
		t.Fatal(err)
	}
	steps := []int64{1, 2, 200}
	cfg := Config{Kernel: k, Device: dev, Threads: []int{256}, Folds: [][3]int64{kernel.NoFold}, Tilings: []kernel.Tiling{kernel.TileConsecutive},
		Unstaged: []bool{false, true}, Steps: steps, Workers: 2}
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	shapes, err := Configurations([]int{256}, cfg.Folds, cfg.Tilings, k.Domain, false)
	if err != nil {
		t.Fatal(err)
	}
	if want := len(shapes) * 2 * len(steps); res.Configurations != want || len(res.Reports)+len(res.Skipped) != want {
		t.Fatalf("%d configurations, %d ranked, %d skipped; want %d block shapes × 2 staging choices × %d steps", res.Configurations, len(res.Reports), len(res.Skipped), want, len(steps))
	}
	seen := map[Configuration]int{}
	for _, r := range res.Reports {
		c := ReportConfiguration(r)
		seen[c]++
		if c.Steps == 200 || c.Unstaged && c.Steps > 1 {
			t.Errorf("%v ranked, want it skipped", c)
		}
	}
	for _, s := range res.Skipped {
		c := s.Configuration()
		seen[c]++
		switch {
		case c.Unstaged && c.Steps > 1:
			if !strings.Contains(s.Reason, "unstaged") {
				t.Errorf("%v skipped for %q, want the state read unstaged", c, s.Reason)
			}
		case c.Steps == 200:
			if !strings.Contains(s.Reason, "shared memory") {
				t.Errorf("%v skipped for %q, want the shared memory", c, s.Reason)
			}
		default:
			t.Errorf("%v skipped for %q, want it ranked", c, s.Reason)
		}
	}
	for _, sh := range shapes {
		for _, u := range []bool{false, true} {
			for _, T := range steps {
				c := sh
				c.Unstaged, c.Steps = u, T
				if seen[c] != 1 {
					t.Errorf("%v ranked or skipped %d times, want once", c, seen[c])
				}
			}
		}
	}
	points := float64(k.Lups())
	for i := 1; i < len(res.Reports); i++ {
		if prev, cur := points/res.Reports[i-1].Prediction.GLups, points/res.Reports[i].Prediction.GLups; cur < prev {
			t.Errorf("rank %d: %g ns per step after %g at rank %d", i+1, cur, prev, i)
		}
	}
	best := res.Reports[0]
	l := k.NewLaunch(best.Launch.Block, best.Launch.Fold)
	l.Unstaged, l.Steps = best.Launch.Unstaged, best.Launch.Steps
	want, err := model.Estimate(k, l, dev, model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if best.Prediction.GLups != want.Prediction.GLups || want.Launch.Steps != l.Steps {
		t.Errorf("best %v: %g GLup/s, predict gives %g at %d steps", ReportConfiguration(best), best.Prediction.GLups, want.Prediction.GLups, want.Launch.Steps)
	}
}

// TestStepsWithoutState checks that a kernel without a state takes one
// step per launch only: steps above 1 are an error, and steps 1 leave its
// configurations without steps.
func TestStepsWithoutState(t *testing.T) {
	k, err := kernel.ParseExample("vec-copy")
	if err != nil {
		t.Fatal(err)
	}
	k = k.WithDomain([3]int64{1 << 16, 1, 1})
	dev, err := device.Lookup("A100-40GB")
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Kernel: k, Device: dev, Threads: []int{256}, Folds: [][3]int64{kernel.NoFold}, Steps: []int64{1, 2}}
	if _, _, _, err := cfg.Launches(); err == nil || !strings.Contains(err.Error(), "steps 2: the spec names no state") {
		t.Errorf("steps 1,2 without a state: error %v, want steps 2 refused", err)
	}
	cfg.Steps = []int64{1}
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Reports {
		if c := ReportConfiguration(r); c.Steps != 0 || r.Launch.Steps != 0 {
			t.Errorf("%v: steps %d without a state, want none", c, r.Launch.Steps)
		}
	}
	for _, bad := range [][]int64{{0}, {kernel.MaxSteps + 1}, {1, 1}} {
		cfg.Steps = bad
		if _, _, _, err := cfg.Launches(); err == nil {
			t.Errorf("steps %v: no error", bad)
		}
	}
}
