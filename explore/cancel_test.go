package explore

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/kernel"
)

// checkCounter is a context that counts how often the work checked it
// (Done) and cancels itself at the check numbered cancelAt (0: never).
type checkCounter struct {
	context.Context
	cancel   context.CancelFunc
	checks   atomic.Int64
	cancelAt int64
}

func newCheckCounter(cancelAt int64) *checkCounter {
	ctx, cancel := context.WithCancel(context.Background())
	return &checkCounter{Context: ctx, cancel: cancel, cancelAt: cancelAt}
}

func (c *checkCounter) Done() <-chan struct{} {
	if c.checks.Add(1) == c.cancelAt {
		c.cancel()
	}
	return c.Context.Done()
}

// oneConfiguration is the sweep of star3d-r4 on A100-40GB at block
// 256,1,2 alone.
func oneConfiguration(t *testing.T) Config {
	t.Helper()
	k, err := kernel.ParseExample("star3d-r4")
	if err != nil {
		t.Fatal(err)
	}
	dev, err := device.Lookup("A100-40GB")
	if err != nil {
		t.Fatal(err)
	}
	return Config{Kernel: k.WithDomain([3]int64{256, 128, 128}), Device: dev, Threads: []int{1}, Folds: [][3]int64{{1, 1, 1}}, Workers: 1}
}

// TestCancelStopsEstimate checks that an estimate in progress stops when
// the exploration's context ends: the estimate checks the context as it
// counts, and after the check that cancels it, it checks no more and Run
// returns the context's error.
func TestCancelStopsEstimate(t *testing.T) {
	cfg := oneConfiguration(t)
	full := newCheckCounter(0)
	if _, err := Run(full, cfg); err != nil {
		t.Fatal(err)
	}
	checks := full.checks.Load()
	if checks < 10 {
		t.Fatalf("the estimate checked its context %d times; want it checked as it counts", checks)
	}
	half := newCheckCounter(checks / 2)
	res, err := Run(half, cfg)
	if !errors.Is(err, context.Canceled) || res != nil {
		t.Fatalf("cancelled at check %d of %d: result %v, error %v; want context.Canceled", checks/2, checks, res, err)
	}
	if got := half.checks.Load(); got != checks/2 {
		t.Errorf("cancelled at check %d: the estimate went on to check %d times; want it to stop at once", checks/2, got)
	}
}

// TestCancelStopsSweep checks that a sweep cancelled after its first
// configuration finishes no other and returns the context's error.
func TestCancelStopsSweep(t *testing.T) {
	cfg := oneConfiguration(t)
	cfg.Threads, cfg.Folds = []int{256}, [][3]int64{{1, 1, 1}, {1, 1, 2}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	finished, total := 0, 0
	cfg.Progress = func(done, n int) {
		finished, total = done, n
		cancel()
	}
	res, err := Run(ctx, cfg)
	if !errors.Is(err, context.Canceled) || res != nil {
		t.Fatalf("result %v, error %v; want context.Canceled", res, err)
	}
	if finished != 1 || total < 2 {
		t.Errorf("%d of %d configurations finished after the cancel at the first; want 1", finished, total)
	}
}
