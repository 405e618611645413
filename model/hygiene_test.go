package model

import (
	"errors"
	"fmt"
	"testing"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/examples"
	"github.com/polyvol/polyvol/footprint"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/procmem"
)

// hygieneEstimate is one configuration of the hygiene runs: a kernel, a
// launch and the options, of which some fail on purpose.
type hygieneEstimate struct {
	name string
	k    *kernel.Kernel
	l    kernel.Launch
	opt  Options
	fail bool // the estimate must fail with footprint.ErrWorkBound
}

// hygieneEstimates lists the configurations the hygiene runs cycle
// through: every example with both methods, blocks of two shapes and two
// folds, and every example once with a work bound it exceeds, so that the
// error paths are exercised too.
func hygieneEstimates(t testing.TB) []hygieneEstimate {
	t.Helper()
	var out []hygieneEstimate
	for _, name := range examples.Names() {
		k, err := kernel.ParseExample(name)
		if err != nil {
			t.Fatal(err)
		}
		blocks := [][3]int64{{256, 1, 2}, {32, 4, 2}}
		switch k.Dims {
		case 1:
			blocks = [][3]int64{{256, 1, 1}, {64, 1, 1}}
		case 2:
			blocks = [][3]int64{{256, 2, 1}, {32, 8, 1}}
		}
		for _, block := range blocks {
			for _, fold := range [][3]int64{kernel.NoFold, {1, 2, 1}} {
				if k.Dims == 1 && fold[1] > 1 {
					fold = [3]int64{2, 1, 1}
				}
				l := k.NewLaunch(block, fold)
				for _, m := range []Method{MethodExact, MethodReference} {
					out = append(out, hygieneEstimate{fmt.Sprintf("%s block %v fold %v %s", name, block, fold, m), k, l, Options{Method: m}, false})
				}
			}
		}
		l := k.NewLaunch(blocks[0], kernel.NoFold)
		out = append(out, hygieneEstimate{name + " past its work bound", k, l, Options{Method: MethodExact, WorkBound: 1}, true})
	}
	return out
}

// hygieneFigures are the measurements of a hygiene run.
type hygieneFigures = procmem.Run

// runHygiene runs n estimates, cycling through the configurations; it
// measures the resident set at the start, after the first half and after
// the second.
func runHygiene(t testing.TB, n int) hygieneFigures {
	t.Helper()
	dev, err := device.Lookup("A100-40GB")
	if err != nil {
		t.Fatal(err)
	}
	confs := hygieneEstimates(t)
	var fig hygieneFigures
	fig.Start = procmem.Settled()
	for i := range n {
		c := confs[i%len(confs)]
		rep, err := Estimate(c.k, c.l, dev, c.opt)
		switch {
		case c.fail && !errors.Is(err, footprint.ErrWorkBound):
			t.Fatalf("estimate %d, %s: error %v, want one past the work bound", i, c.name, err)
		case !c.fail && (err != nil || rep == nil):
			t.Fatalf("estimate %d, %s: %v", i, c.name, err)
		}
		if i == max(n/2, 1)-1 {
			fig.Middle = procmem.Settled()
		}
	}
	fig.End = procmem.Settled()
	return fig
}

// TestEstimateHygiene runs 500 estimates of every example, with both
// methods, some failing at the work bound: the resident set may not grow by more than 10 % from the first half to the second.
func TestEstimateHygiene(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 500 estimates")
	}
	fig := runHygiene(t, 500)
	t.Logf("VmRSS %d KiB at the start, %d KiB after 250 estimates, %d KiB after 500", fig.Start>>10, fig.Middle>>10, fig.End>>10)
	if err := fig.CheckFlat(0.1); err != nil {
		t.Error(err)
	}
}

// BenchmarkEstimateHygiene is the long form of TestEstimateHygiene: b.N
// estimates (10^4 with -benchtime 10000x), with the same checks, reporting
// the resident set at the start, middle and end in KiB.
func BenchmarkEstimateHygiene(b *testing.B) {
	fig := runHygiene(b, b.N)
	b.ReportMetric(float64(fig.Start>>10), "rss-start-KiB")
	b.ReportMetric(float64(fig.Middle>>10), "rss-middle-KiB")
	b.ReportMetric(float64(fig.End>>10), "rss-end-KiB")
	b.Logf("%d estimates: VmRSS %d KiB at the start, %d KiB after the first half, %d KiB at the end", b.N, fig.Start>>10, fig.Middle>>10, fig.End>>10)
	if b.N >= 1000 {
		if err := fig.CheckFlat(0.1); err != nil {
			b.Error(err)
		}
	}
}
