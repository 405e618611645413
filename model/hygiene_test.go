package model

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"testing"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/examples"
	"github.com/polyvol/polyvol/footprint"
	"github.com/polyvol/polyvol/isl"
	"github.com/polyvol/polyvol/kernel"
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
// folds, on a context of its own (Ctx nil) or on the shared ctx, and every
// example once with a work bound it exceeds, so that the error paths are
// exercised too.
func hygieneEstimates(t testing.TB, ctx *isl.Ctx) []hygieneEstimate {
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
					out = append(out, hygieneEstimate{fmt.Sprintf("%s block %v fold %v %s, shared context", name, block, fold, m), k, l, Options{Method: m, Ctx: ctx}, false})
				}
			}
		}
		l := k.NewLaunch(blocks[0], kernel.NoFold)
		out = append(out, hygieneEstimate{name + " past its work bound", k, l, Options{Method: MethodExact, Ctx: ctx, WorkBound: 1}, true})
	}
	return out
}

// vmRSS is the resident set of the process in bytes (VmRSS of
// /proc/self/status) after a garbage collection that returns the freed
// memory to the system; ok is false where there is no /proc.
func vmRSS() (rss int64, ok bool) {
	runtime.GC()
	debug.FreeOSMemory()
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, false
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := bytes.Fields(sc.Bytes())
		if len(f) == 3 && string(f[0]) == "VmRSS:" && string(f[2]) == "kB" {
			kb, err := strconv.ParseInt(string(f[1]), 10, 64)
			return kb << 10, err == nil
		}
	}
	return 0, false
}

// hygieneFigures are the measurements of a hygiene run.
type hygieneFigures struct {
	start, middle, end int64 // VmRSS in bytes; 0 without /proc
}

// runHygiene runs n estimates, cycling through the configurations, and
// checks after each that no ISL object is left live; it measures the
// resident set at the start, after the first half and after the second.
func runHygiene(t testing.TB, n int) hygieneFigures {
	t.Helper()
	// One OS thread makes every C allocation of the run come from one
	// malloc arena: otherwise the arenas of the threads cgo calls happen
	// to run on grow the resident set for thousands of runs before it
	// levels off, which would hide a leak or feign one.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	ctx, err := isl.NewCtx(isl.WithMaxOperations(DefaultMaxOperations))
	if err != nil {
		t.Fatal(err)
	}
	defer ctx.Close()
	dev, err := device.Lookup("A100-40GB")
	if err != nil {
		t.Fatal(err)
	}
	confs := hygieneEstimates(t, ctx)
	if live := isl.LiveObjects(); live != 0 {
		t.Fatalf("%d ISL objects live before the first estimate", live)
	}
	var fig hygieneFigures
	fig.start, _ = vmRSS()
	for i := range n {
		c := confs[i%len(confs)]
		rep, err := Estimate(c.k, c.l, dev, c.opt)
		switch {
		case c.fail && !errors.Is(err, footprint.ErrWorkBound):
			t.Fatalf("estimate %d, %s: error %v, want one past the work bound", i, c.name, err)
		case !c.fail && (err != nil || rep == nil):
			t.Fatalf("estimate %d, %s: %v", i, c.name, err)
		}
		if live := isl.LiveObjects(); live != 0 {
			t.Fatalf("estimate %d, %s: %d ISL objects live after it, want 0", i, c.name, live)
		}
		if i == max(n/2, 1)-1 {
			fig.middle, _ = vmRSS()
		}
	}
	fig.end, _ = vmRSS()
	return fig
}

// checkRSS fails when the resident set grew by more than 10 % over the
// second half of a run.
func checkRSS(t testing.TB, fig hygieneFigures) {
	t.Helper()
	if fig.middle == 0 {
		t.Log("no /proc/self/status: the resident set is not checked")
		return
	}
	if float64(fig.end) > 1.1*float64(fig.middle) {
		t.Errorf("resident set %d MiB after the second half, more than 10 %% above the %d MiB after the first", fig.end>>20, fig.middle>>20)
	}
}

// TestEstimateHygiene runs 500 estimates of every example, with both
// methods, on fresh and on shared ISL contexts, some failing at the work
// bound: no ISL object may outlive its estimate, and the resident set may
// not grow by more than 10 % from the first half to the second.
func TestEstimateHygiene(t *testing.T) {
	fig := runHygiene(t, 500)
	t.Logf("VmRSS %d KiB at the start, %d KiB after 250 estimates, %d KiB after 500", fig.start>>10, fig.middle>>10, fig.end>>10)
	checkRSS(t, fig)
}

// BenchmarkEstimateHygiene is the long form of TestEstimateHygiene: b.N
// estimates (10^4 with -benchtime 10000x), with the same checks, reporting
// the resident set at the start, middle and end in KiB.
func BenchmarkEstimateHygiene(b *testing.B) {
	fig := runHygiene(b, b.N)
	b.ReportMetric(float64(fig.start>>10), "rss-start-KiB")
	b.ReportMetric(float64(fig.middle>>10), "rss-middle-KiB")
	b.ReportMetric(float64(fig.end>>10), "rss-end-KiB")
	b.ReportMetric(float64(isl.LiveObjects()), "isl-live-end")
	b.Logf("%d estimates: VmRSS %d KiB at the start, %d KiB after the first half, %d KiB at the end; %d ISL objects live", b.N, fig.start>>10, fig.middle>>10, fig.end>>10, isl.LiveObjects())
	if b.N >= 1000 {
		checkRSS(b, fig)
	}
}
