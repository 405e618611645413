// Package explore ranks the launch configurations of a kernel on a device
// by predicted performance, for Go callers such as stencil DSLs and code
// generators, and for `polyvol explore`. The space is every power-of-two
// block shape of a thread count times a list of thread foldings; Run
// estimates the configurations in parallel on the project's worker pool
// (package pool, one ISL context per worker), optionally one shard of them,
// and returns the reports ranked by a deterministic rule (Rank) with the
// configurations it skipped and why.
package explore

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/footprint"
	"github.com/polyvol/polyvol/isl"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/model"
	"github.com/polyvol/polyvol/pool"
)

// DefaultFolds are the foldings `polyvol explore` tries by default: none,
// two points in y and two in z per thread.
var DefaultFolds = [][3]int64{{1, 1, 1}, {1, 2, 1}, {1, 1, 2}}

// Config is one exploration.
type Config struct {
	Kernel *kernel.Kernel
	Device *device.Device
	// Threads is the threads per block, a power of two up to
	// kernel.MaxThreadsPerBlock; 0 means kernel.MaxThreadsPerBlock.
	Threads int
	// Folds are the thread foldings tried with every block shape; nil means
	// DefaultFolds.
	Folds [][3]int64
	// Estimate selects the method and performance model and bounds the
	// counting work of each configuration; its Ctx is ignored.
	Estimate model.Options
	// NewCtx makes each worker's ISL context; nil means contexts bounded
	// by model.DefaultMaxOperations.
	NewCtx func() (*isl.Ctx, error)
	// Workers is the number of configurations estimated in parallel; 0
	// means GOMAXPROCS.
	Workers int
	// Shard, when Count > 0, evaluates only configuration i (in the order
	// of Configurations) with i mod Count = Index − 1.
	Shard Shard
	// Progress, when set, is called after every estimated configuration
	// with the number done and the number to do.
	Progress func(done, total int)
}

// Shard is slice Index of Count (1 <= Index <= Count) of an exploration.
type Shard struct{ Index, Count int }

// Skipped is a configuration left out because kernel.Launch.Validate
// rejects it (e.g. a fold larger than the domain), because its block does
// not fit on an SM of the device, or because its estimate exceeds the ISL
// operation bound or the counting work bound.
type Skipped struct {
	Block  [3]int64 `json:"block"`
	Fold   [3]int64 `json:"fold"`
	Reason string   `json:"reason"`
}

// Result is a ranked exploration.
type Result struct {
	// Reports are the estimated configurations, best first (Rank).
	Reports []*model.Report
	// Skipped are the configurations left out, by block and then fold.
	Skipped []Skipped
	// Configurations counts the enumerated configurations of all shards.
	Configurations int
}

// ConfigError is the failure of one configuration's estimate for a reason
// other than those that skip it.
type ConfigError struct {
	Launch kernel.Launch
	Err    error
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("block %v fold %v: %v", e.Launch.Block, e.Launch.Fold, e.Err)
}

func (e *ConfigError) Unwrap() error { return e.Err }

// BlockShapes returns the blocks of exactly threads threads whose sides are
// powers of two within kernel.MaxBlockDim, ordered by x, then y.
func BlockShapes(threads int) ([][3]int64, error) {
	if threads < 1 || threads > kernel.MaxThreadsPerBlock || threads&(threads-1) != 0 {
		return nil, fmt.Errorf("threads %d: expected a power of two from 1 to %d", threads, kernel.MaxThreadsPerBlock)
	}
	var out [][3]int64
	for x := int64(1); x <= int64(threads); x *= 2 {
		for y := int64(1); x*y <= int64(threads); y *= 2 {
			b := [3]int64{x, y, int64(threads) / (x * y)}
			if b[0] <= kernel.MaxBlockDim[0] && b[1] <= kernel.MaxBlockDim[1] && b[2] <= kernel.MaxBlockDim[2] {
				out = append(out, b)
			}
		}
	}
	return out, nil
}

// Launches enumerates the configurations of cfg (or of its shard), folds
// outer and block shapes inner: those to estimate, those that
// kernel.Launch.Validate rejects, and the number of configurations of all
// shards.
func (cfg Config) Launches() (launches []kernel.Launch, skipped []Skipped, configurations int, err error) {
	threads := cfg.Threads
	if threads == 0 {
		threads = kernel.MaxThreadsPerBlock
	}
	blocks, err := BlockShapes(threads)
	if err != nil {
		return nil, nil, 0, err
	}
	folds := cfg.Folds
	if folds == nil {
		folds = DefaultFolds
	}
	if s := cfg.Shard; s.Count != 0 && (s.Count < 0 || s.Index < 1 || s.Index > s.Count) {
		return nil, nil, 0, fmt.Errorf("explore: shard %d/%d: expected 1 <= index <= count", s.Index, s.Count)
	}
	skipped = []Skipped{}
	i := 0
	for _, f := range folds {
		for _, b := range blocks {
			if cfg.Shard.Count == 0 || i%cfg.Shard.Count == cfg.Shard.Index-1 {
				l := cfg.Kernel.NewLaunch(b, f)
				if err := l.Validate(); err != nil {
					skipped = append(skipped, Skipped{Block: b, Fold: f, Reason: err.Error()})
				} else {
					launches = append(launches, l)
				}
			}
			i++
		}
	}
	return launches, skipped, len(blocks) * len(folds), nil
}

// Run estimates the configurations of cfg (or of its shard) and ranks them.
// A configuration that fails for a reason other than those of Skipped
// stops the exploration with a *ConfigError, the one of the lowest-numbered
// failed configuration. A cancelled c stops it with c's error.
func Run(c context.Context, cfg Config) (*Result, error) {
	launches, skipped, configurations, err := cfg.Launches()
	if err != nil {
		return nil, err
	}
	res := &Result{Configurations: configurations, Skipped: skipped}
	newCtx := cfg.NewCtx
	if newCtx == nil {
		newCtx = func() (*isl.Ctx, error) { return isl.NewCtx(isl.WithMaxOperations(model.DefaultMaxOperations)) }
	}
	reports := make([]*model.Report, len(launches))
	skips := make([]string, len(launches)) // why launch i was skipped
	err = pool.Run(c, len(launches), pool.Options{Workers: cfg.Workers, NewCtx: newCtx, StopOnError: true, Progress: cfg.Progress},
		func(ctx *isl.Ctx, i int) error {
			opt := cfg.Estimate
			opt.Ctx = ctx
			r, err := model.Estimate(cfg.Kernel, launches[i], cfg.Device, opt)
			switch {
			case errors.Is(err, isl.ErrQuota):
				skips[i] = fmt.Sprintf("exceeds the ISL operation bound (%v)", err)
			case errors.Is(err, footprint.ErrWorkBound):
				skips[i] = fmt.Sprintf("exceeds the counting work bound --max-work (%v)", err)
			case errors.Is(err, footprint.ErrMemoryBound):
				skips[i] = fmt.Sprintf("exceeds the memory bound --max-memory (%v)", err)
			case errors.As(err, new(*device.NoFitError)):
				skips[i] = err.Error()
			case err != nil:
				return &ConfigError{Launch: launches[i], Err: err}
			}
			reports[i] = r
			return nil
		})
	if err != nil {
		return nil, err
	}
	for i, why := range skips {
		if why != "" {
			l := launches[i]
			res.Skipped = append(res.Skipped, Skipped{Block: l.Block, Fold: l.Fold, Reason: why})
		}
	}
	SortSkipped(res.Skipped)
	res.Reports = slices.DeleteFunc(reports, func(r *model.Report) bool { return r == nil })
	Rank(res.Reports)
	return res, nil
}

// Rank sorts reports best first by a deterministic rule, so the order never
// depends on evaluation order:
//
//  1. configurations with at most a quarter of their launched threads idle
//     (model.IdleNoteThreshold; idle: no lattice point in the domain, see
//     model.CountIdleThreads) before those with more, so a block shaped for
//     more dimensions than the domain has never ranks above the
//     configurations without such idle threads;
//  2. predicted GLup/s, higher first;
//  3. idle fraction, lower first, so of two equally fast configurations the
//     one without idle threads ranks first;
//  4. block and then fold, each compared x, y, z.
func Rank(rs []*model.Report) {
	idle := make(map[*model.Report]float64, len(rs))
	for _, r := range rs {
		l := kernel.Launch{Block: r.Launch.Block, Fold: r.Launch.Fold, Domain: r.Launch.Domain}
		idle[r] = model.CountIdleThreads(l, 32).Fraction()
	}
	slices.SortFunc(rs, func(a, b *model.Report) int {
		if ia, ib := idle[a] > model.IdleNoteThreshold, idle[b] > model.IdleNoteThreshold; ia != ib {
			if ia {
				return 1
			}
			return -1
		}
		if c := cmp.Compare(b.Prediction.GLups, a.Prediction.GLups); c != 0 {
			return c
		}
		if c := cmp.Compare(idle[a], idle[b]); c != 0 {
			return c
		}
		if c := slices.Compare(a.Launch.Block[:], b.Launch.Block[:]); c != 0 {
			return c
		}
		return slices.Compare(a.Launch.Fold[:], b.Launch.Fold[:])
	})
}

// SortSkipped orders skipped configurations by block and then fold.
func SortSkipped(s []Skipped) {
	slices.SortStableFunc(s, func(a, b Skipped) int {
		if c := slices.Compare(a.Block[:], b.Block[:]); c != 0 {
			return c
		}
		return slices.Compare(a.Fold[:], b.Fold[:])
	})
}
