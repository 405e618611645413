package pool

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
)

// TestRunsEveryJobOnce checks that every index runs exactly once and that
// the progress counts reach n in order.
func TestRunsEveryJobOnce(t *testing.T) {
	const n = 200
	var runs [n]atomic.Int32
	var last int
	err := Run(context.Background(), n, Options{
		Workers:  4,
		Progress: func(done, total int) { last = done },
	}, func(i int) error {
		runs[i].Add(1)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := range runs {
		if runs[i].Load() != 1 {
			t.Errorf("job %d ran %d times", i, runs[i].Load())
		}
	}
	if last != n {
		t.Errorf("progress ended at %d, want %d", last, n)
	}
}

// TestErrors checks both error rules: without StopOnError every job runs
// and the errors come back joined in job order; with it, the failure of
// the lowest-numbered failed job comes back.
func TestErrors(t *testing.T) {
	fail := func(i int) error {
		if i%10 == 3 {
			return fmt.Errorf("job %d", i)
		}
		return nil
	}
	err := Run(context.Background(), 30, Options{Workers: 3}, fail)
	if err == nil || err.Error() != "job 3\njob 13\njob 23" {
		t.Errorf("joined errors = %v", err)
	}
	err = Run(context.Background(), 30, Options{Workers: 1, StopOnError: true}, fail)
	if err == nil || err.Error() != "job 3" {
		t.Errorf("first error = %v, want job 3", err)
	}
}

// TestCancel checks that a cancelled context stops the pool: jobs after the
// cancellation do not start, and Run reports the cancellation.
func TestCancel(t *testing.T) {
	c, cancel := context.WithCancel(context.Background())
	var ran atomic.Int32
	err := Run(c, 1000, Options{Workers: 1}, func(i int) error {
		ran.Add(1)
		if i == 9 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) || ran.Load() != 10 {
		t.Errorf("after cancelling in job 9: %d jobs ran, error %v", ran.Load(), err)
	}
}
