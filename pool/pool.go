// Package pool is the project's one worker pool: it runs n indexed jobs on
// a fixed number of goroutines, with cancellation through a context.Context
// and a progress callback. explore, accuracy and
// layercond run their estimates on it.
package pool

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
)

// Options configure Run.
type Options struct {
	// Workers is the number of goroutines; 0 means GOMAXPROCS. Run never
	// starts more than there are jobs.
	Workers int
	// StopOnError stops handing out jobs after the first failure; Run then
	// returns the error of the lowest-numbered job that failed. Without it
	// every job runs and Run returns all errors, joined in job order.
	StopOnError bool
	// Progress, when set, is called after every finished job with the
	// number finished and n; calls come from one goroutine at a time.
	Progress func(done, total int)
}

// Run calls job(i) for every i in [0, n), on the workers of opt. It returns when every started job has
// finished. A cancelled c stops handing out jobs, and Run returns c's error
// unless a job failed.
func Run(c context.Context, n int, opt Options, job func(i int) error) error {
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	errs := make([]error, n)
	var (
		next    atomic.Int64
		stopped atomic.Bool
		mu      sync.Mutex
		done    int
		wg      sync.WaitGroup
	)
	for range min(workers, n) {
		wg.Go(func() {
			for !stopped.Load() && c.Err() == nil {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				if errs[i] = job(i); errs[i] != nil && opt.StopOnError {
					stopped.Store(true)
				}
				if opt.Progress != nil {
					mu.Lock()
					done++
					opt.Progress(done, n)
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	if opt.StopOnError {
		for _, err := range errs {
			if err != nil {
				return err
			}
		}
	} else if err := errors.Join(errs...); err != nil {
		return err
	}
	return c.Err()
}
