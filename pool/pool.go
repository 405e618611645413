// Package pool is the project's one worker pool: it runs n indexed jobs on
// a fixed number of goroutines, each goroutine with its own ISL context
// (an ISL context belongs to one goroutine at a time), with cancellation
// through a context.Context and a progress callback. explore, accuracy and
// layercond run their estimates on it.
package pool

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/polyvol/polyvol/isl"
)

// Options configure Run.
type Options struct {
	// Workers is the number of goroutines; 0 means GOMAXPROCS. Run never
	// starts more than there are jobs.
	Workers int
	// NewCtx makes each worker's ISL context, closed when the worker ends;
	// nil gives the jobs a nil context.
	NewCtx func() (*isl.Ctx, error)
	// StopOnError stops handing out jobs after the first failure; Run then
	// returns the error of the lowest-numbered job that failed. Without it
	// every job runs and Run returns all errors, joined in job order.
	StopOnError bool
	// Progress, when set, is called after every finished job with the
	// number finished and n; calls come from one goroutine at a time.
	Progress func(done, total int)
}

// Run calls job(ctx, i) for every i in [0, n), on the workers of opt, ctx
// being the worker's ISL context. It returns when every started job has
// finished. A cancelled c stops handing out jobs, and Run returns c's error
// unless a job failed.
func Run(c context.Context, n int, opt Options, job func(ctx *isl.Ctx, i int) error) error {
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
		ctxErrs = make([]error, min(workers, n))
	)
	for w := range min(workers, n) {
		wg.Go(func() {
			var ctx *isl.Ctx
			if opt.NewCtx != nil {
				var err error
				if ctx, err = opt.NewCtx(); err != nil {
					ctxErrs[w] = err
					stopped.Store(true)
					return
				}
				defer func() { ctxErrs[w] = ctx.Close() }()
			}
			for !stopped.Load() && c.Err() == nil {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				if errs[i] = job(ctx, i); errs[i] != nil && opt.StopOnError {
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
	if err := errors.Join(ctxErrs...); err != nil {
		return err
	}
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
