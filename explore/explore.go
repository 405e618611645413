// Package explore ranks the launch configurations of a kernel on a device
// by predicted performance, for Go callers such as stencil DSLs and code
// generators, and for `polyvol explore`. The space is every power-of-two
// block shape of a thread count times a list of thread foldings times a
// list of tilings (kernel.Tiling), for a kernel with staged fields times
// its staging choices and for a kernel with a state times its time steps
// per launch (kernel.Kernel.State); Run
// estimates the configurations in parallel on the project's worker pool
// (package pool), optionally one shard of them,
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
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/model"
	"github.com/polyvol/polyvol/pool"
)

// DefaultFolds are the foldings `polyvol explore` tries by default: none,
// two points in y and two in z per thread; a kernel tries those along the
// dimensions of its domain (DefaultFoldsOf).
var DefaultFolds = [][3]int64{{1, 1, 1}, {1, 2, 1}, {1, 1, 2}}

// DefaultFoldsOf returns the default folds for a kernel of domain:
// DefaultFolds without those that fold along a dimension in which the
// domain has one point, which every block shape would skip (a 2-D kernel
// is not folded in z).
func DefaultFoldsOf(domain [3]int64) [][3]int64 {
	// A fold along a dimension without points is what IdleShape finds in
	// a block shape: more than one along it.
	return slices.DeleteFunc(slices.Clone(DefaultFolds), func(f [3]int64) bool { return IdleShape(f, domain) })
}

// DefaultTilings are the tilings `polyvol explore` tries by default: thread
// folding and strided tiles.
var DefaultTilings = []kernel.Tiling{kernel.TileConsecutive, kernel.TileStrided}

// Configuration is one point of an exploration's space.
type Configuration struct {
	Block  [3]int64      `json:"block"`
	Fold   [3]int64      `json:"fold"`
	Tiling kernel.Tiling `json:"tiling,omitempty"` // left out for thread folding
	// Unstaged reads the fields the spec stages in shared memory from
	// global memory (kernel.Launch.Unstaged); left out when false.
	Unstaged bool `json:"unstaged,omitempty"`
	// Steps is the time steps per launch of a kernel with a state
	// (kernel.Launch.Steps); 0, left out, for a kernel without one.
	Steps int64 `json:"steps,omitempty"`
}

// Canonical returns c, with a strided tiling that places every thread's
// points where thread folding does (no dimension with both a fold and a
// block size above 1: kernel.Tiling) replaced by kernel.TileConsecutive:
// the two are the same launch, which an exploration holds once.
func (c Configuration) Canonical() Configuration {
	c.Tiling = kernel.Launch{Block: c.Block, Fold: c.Fold, Tiling: c.Tiling}.Canonical().Tiling
	return c
}

// String writes the configuration as "block X,Y,Z fold X,Y,Z", followed by
// " strided" for a strided tiling, " unstaged" without staging and
// " steps T" for a kernel with a state.
func (c Configuration) String() string {
	s := fmt.Sprintf("block %d,%d,%d fold %d,%d,%d", c.Block[0], c.Block[1], c.Block[2], c.Fold[0], c.Fold[1], c.Fold[2]) + c.Tiling.Suffix()
	if c.Unstaged {
		s += " unstaged"
	}
	if c.Steps != 0 {
		s += fmt.Sprintf(" steps %d", c.Steps)
	}
	return s
}

// ReportConfiguration returns the configuration that report r estimates.
func ReportConfiguration(r *model.Report) Configuration {
	return Configuration{Block: r.Launch.Block, Fold: r.Launch.Fold, Tiling: r.Launch.Tiling, Unstaged: r.Launch.Unstaged, Steps: r.Launch.Steps}
}

// ConfigurationOf returns the configuration of launch l, one that Launches
// enumerates (whose Steps are 0 for a kernel without a state).
func ConfigurationOf(l kernel.Launch) Configuration {
	return Configuration{Block: l.Block, Fold: l.Fold, Tiling: l.Tiling, Unstaged: l.Unstaged, Steps: l.Steps}
}

// MaxRegisters is the most registers per thread a configuration may be
// given (Config.Registers), the limit of a kernel spec's registers.
const MaxRegisters = 255

// Config is one exploration.
type Config struct {
	Kernel *kernel.Kernel
	Device *device.Device
	// Threads are the threads per block of the block shapes, each a power
	// of two up to kernel.MaxThreadsPerBlock; nil means
	// kernel.MaxThreadsPerBlock alone.
	Threads []int
	// Folds are the thread foldings tried with every block shape; nil means
	// DefaultFoldsOf the kernel's domain.
	Folds [][3]int64
	// Tilings are the tilings tried with every fold and block shape; nil
	// means DefaultTilings. A strided tiling that is the same launch as
	// thread folding (Configuration.Canonical) is not tried again; with
	// only strided tilings asked for, that launch is tried as consecutive.
	Tilings []kernel.Tiling
	// Unstaged are the staging choices tried with every configuration of a
	// kernel with staged fields (kernel.Staging): false stages them as the
	// spec says, true reads them from global memory; nil means {false}.
	// A kernel without staged fields is tried unstaged false only.
	Unstaged []bool
	// Steps are the time steps per launch tried with every configuration
	// of a kernel with a state (kernel.Kernel.State), each from 1 to
	// kernel.MaxSteps; nil means the kernel's steps. A kernel without a
	// state performs one step per launch: Steps may hold 1 only, and its
	// configurations have none (Configuration.Steps 0). A configuration
	// whose tiles do not fit the device's shared memory at its steps, or
	// that reads the state unstaged with more than one step, is skipped.
	Steps []int64
	// AllShapes keeps the block shapes with threads along a dimension the
	// domain lacks (IdleShape), which are left out by default.
	AllShapes bool
	// Registers, when set, returns the registers per thread of a
	// configuration, as a code generator knows them after compiling it;
	// 0 means the kernel's Registers. Other values must lie from 1 to
	// MaxRegisters. The registers set the configuration's occupancy.
	Registers func(Configuration) int
	// Estimate selects the method and performance model and bounds the
	// counting work of each configuration.
	Estimate model.Options
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

// Shard is slice Index of Count (1 <= Index <= Count) of an exploration:
// configuration i, in the order of Configurations, belongs to the shard
// with i mod Count = Index − 1 (Holds). The JSON of a shard's exploration
// carries it, with what proves that its shards are one sweep: Sweep
// fingerprints what the exploration depends on, so that the shards of one
// sweep carry the same value, and Digest hashes the shard's rows and
// skipped configurations, so that a merge notices rows edited, dropped or
// added after the run. Format and Top are the output format and the table
// rows of the run that wrote the shard, which a merge of its shards
// renders unless told otherwise.
type Shard struct {
	Index  int    `json:"index"` // 1-based
	Count  int    `json:"count"`
	Format string `json:"format"`
	Top    int    `json:"top"`
	Sweep  string `json:"sweep"`
	Digest string `json:"digest"`
}

// Holds reports whether configuration i (in the order of Configurations)
// belongs to shard s; every configuration belongs to the zero Shard, the
// whole exploration.
func (s Shard) Holds(i int) bool {
	return s.Count == 0 || i%s.Count == s.Index-1
}

// Size returns the number of the configurations of an exploration of
// configurations in all that belong to shard s.
func (s Shard) Size(configurations int) int {
	if s.Count == 0 {
		return configurations
	}
	if s.Index > configurations {
		return 0
	}
	return (configurations-s.Index)/s.Count + 1
}

// Skipped is a configuration left out because kernel.Launch.Validate or
// kernel.Kernel.CheckSteps rejects it (e.g. a fold larger than the domain,
// the state unstaged with more than one step), because its block (with its
// tiles at its steps) does not fit on an SM of the device, or because its
// estimate exceeds the counting work or memory bound.
type Skipped struct {
	Block    [3]int64      `json:"block"`
	Fold     [3]int64      `json:"fold"`
	Tiling   kernel.Tiling `json:"tiling,omitempty"`   // left out for thread folding
	Unstaged bool          `json:"unstaged,omitempty"` // as Configuration's
	Steps    int64         `json:"steps,omitempty"`    // as Configuration's
	Reason   string        `json:"reason"`
}

// Configuration returns the skipped configuration.
func (s Skipped) Configuration() Configuration {
	return Configuration{Block: s.Block, Fold: s.Fold, Tiling: s.Tiling, Unstaged: s.Unstaged, Steps: s.Steps}
}

// skippedOf returns configuration c skipped for reason.
func skippedOf(c Configuration, reason string) Skipped {
	return Skipped{Block: c.Block, Fold: c.Fold, Tiling: c.Tiling, Unstaged: c.Unstaged, Steps: c.Steps, Reason: reason}
}

// Result is a ranked exploration.
type Result struct {
	// Reports are the estimated configurations, best first (Rank).
	Reports []*model.Report
	// Skipped are the configurations left out, by block, fold and tiling.
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
	return fmt.Sprintf("%v: %v", ConfigurationOf(e.Launch), e.Err)
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

// IdleShape reports whether block shape b has more than one thread along
// a dimension in which the domain has one point: all but one of those
// threads would be idle, which no tuner wants (a 2-D kernel in blocks of
// 1,16,64 threads).
func IdleShape(b, domain [3]int64) bool {
	for i := range 3 {
		if domain[i] == 1 && b[i] > 1 {
			return true
		}
	}
	return false
}

// Configurations returns the space of an exploration in the order
// Config.Launches enumerates it: folds outermost, then tilings, then the
// block shapes of each count of threads in turn (BlockShapes). Nil folds and tilings mean
// DefaultFoldsOf(domain) and DefaultTilings. A strided tiling is left out where it is
// the same launch as thread folding (Configuration.Canonical) and thread
// folding is among the tilings; without it, that launch is given as
// consecutive. Unless allShapes is set, the block shapes with threads
// along a dimension in which domain has one point are left out (IdleShape).
func Configurations(threads []int, folds [][3]int64, tilings []kernel.Tiling, domain [3]int64, allShapes bool) ([]Configuration, error) {
	var blocks [][3]int64
	for i, n := range threads {
		if slices.Contains(threads[:i], n) {
			return nil, fmt.Errorf("threads %d appears twice", n)
		}
		shapes, err := BlockShapes(n)
		if err != nil {
			return nil, err
		}
		blocks = append(blocks, shapes...)
	}
	if !allShapes {
		blocks = slices.DeleteFunc(blocks, func(b [3]int64) bool { return IdleShape(b, domain) })
	}
	if folds == nil {
		folds = DefaultFoldsOf(domain)
	}
	if tilings == nil {
		tilings = DefaultTilings
	}
	for i, t := range tilings {
		if t != kernel.TileConsecutive && t != kernel.TileStrided {
			return nil, fmt.Errorf("explore: tiling %d: want consecutive or strided", int(t))
		}
		if slices.Contains(tilings[:i], t) {
			return nil, fmt.Errorf("explore: tiling %s appears twice", t)
		}
	}
	withConsecutive := slices.Contains(tilings, kernel.TileConsecutive)
	var out []Configuration
	for _, f := range folds {
		for _, t := range tilings {
			for _, b := range blocks {
				c := Configuration{Block: b, Fold: f, Tiling: t}
				if cc := c.Canonical(); cc != c {
					if withConsecutive {
						continue
					}
					c = cc
				}
				out = append(out, c)
			}
		}
	}
	return out, nil
}

// Launches enumerates the configurations of cfg (or of its shard) in the
// order of Configurations: those to estimate, those that
// kernel.Launch.Validate rejects, and the number of configurations of all
// shards.
func (cfg Config) Launches() (launches []kernel.Launch, skipped []Skipped, configurations int, err error) {
	threads := cfg.Threads
	if threads == nil {
		threads = []int{kernel.MaxThreadsPerBlock}
	}
	all, err := Configurations(threads, cfg.Folds, cfg.Tilings, cfg.Kernel.Domain, cfg.AllShapes)
	if err != nil {
		return nil, nil, 0, err
	}
	if Staged(cfg.Kernel) {
		if all, err = WithStaging(all, cfg.Unstaged); err != nil {
			return nil, nil, 0, err
		}
	}
	steps, err := cfg.SweptSteps()
	if err != nil {
		return nil, nil, 0, err
	}
	if steps != nil {
		all = WithSteps(all, steps)
	}
	if s := cfg.Shard; s.Count != 0 && (s.Count < 0 || s.Index < 1 || s.Index > s.Count) {
		return nil, nil, 0, fmt.Errorf("explore: shard %d/%d: expected 1 <= index <= count", s.Index, s.Count)
	}
	skipped = []Skipped{}
	for i, c := range all {
		if !cfg.Shard.Holds(i) {
			continue
		}
		l := cfg.Kernel.NewLaunch(c.Block, c.Fold)
		l.Tiling, l.Unstaged, l.Steps = c.Tiling, c.Unstaged, c.Steps
		err := l.Validate()
		if err == nil {
			err = cfg.Kernel.CheckSteps(l)
		}
		if err != nil {
			skipped = append(skipped, skippedOf(c, err.Error()))
		} else {
			launches = append(launches, l)
		}
	}
	return launches, skipped, len(all), nil
}

// Staged reports whether k has a field staged in shared memory, whose
// configurations Config.Unstaged multiplies.
func Staged(k *kernel.Kernel) bool {
	return slices.ContainsFunc(k.Fields, func(f *kernel.Field) bool { return f.Stage != nil })
}

// WithStaging returns the configurations with each staging choice of
// unstaged (Config.Unstaged; nil: staged only), choice-minor, as Launches
// enumerates those of a kernel with staged fields.
func WithStaging(all []Configuration, unstaged []bool) ([]Configuration, error) {
	if unstaged == nil {
		unstaged = []bool{false}
	}
	for i, u := range unstaged {
		if slices.Contains(unstaged[:i], u) {
			return nil, fmt.Errorf("explore: staging choice unstaged=%v appears twice", u)
		}
	}
	out := make([]Configuration, 0, len(all)*len(unstaged))
	for _, c := range all {
		for _, u := range unstaged {
			c.Unstaged = u
			out = append(out, c)
		}
	}
	return out, nil
}

// SweptSteps returns the time steps per launch of cfg's configurations: nil
// for a kernel without a state, whose configurations have none, else
// cfg.Steps, or the kernel's steps where that is nil.
func (cfg Config) SweptSteps() ([]int64, error) {
	for i, t := range cfg.Steps {
		if t < 1 || t > kernel.MaxSteps {
			return nil, fmt.Errorf("explore: steps %d: expected 1 to %d time steps per launch", t, kernel.MaxSteps)
		}
		if slices.Contains(cfg.Steps[:i], t) {
			return nil, fmt.Errorf("explore: steps %d appears twice", t)
		}
	}
	if cfg.Kernel.StateField() == nil {
		if i := slices.IndexFunc(cfg.Steps, func(t int64) bool { return t > 1 }); i >= 0 {
			return nil, fmt.Errorf("explore: %w", cfg.Kernel.CheckSteps(kernel.Launch{Steps: cfg.Steps[i]}))
		}
		return nil, nil
	}
	if cfg.Steps == nil {
		return []int64{max(1, cfg.Kernel.Steps)}, nil
	}
	return cfg.Steps, nil
}

// WithSteps returns the configurations with each of the time steps per
// launch, steps-minor, as Launches enumerates those of a kernel with a
// state.
func WithSteps(all []Configuration, steps []int64) []Configuration {
	out := make([]Configuration, 0, len(all)*len(steps))
	for _, c := range all {
		for _, t := range steps {
			c.Steps = t
			out = append(out, c)
		}
	}
	return out
}

// kernelFor returns the kernel that launch l runs: cfg.Kernel, or a copy
// with the registers cfg.Registers gives l.
func (cfg Config) kernelFor(l kernel.Launch) (*kernel.Kernel, error) {
	if cfg.Registers == nil {
		return cfg.Kernel, nil
	}
	r := cfg.Registers(ConfigurationOf(l))
	switch {
	case r == 0 || r == cfg.Kernel.Registers:
		return cfg.Kernel, nil
	case r < 0 || r > MaxRegisters:
		return nil, fmt.Errorf("registers %d: expected 1 to %d per thread", r, MaxRegisters)
	}
	k := *cfg.Kernel
	k.Registers = r
	return &k, nil
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
	estimate := cfg.Estimate
	if estimate.Instructions == nil { // the configurations share the kernel's instructions
		estimate.Instructions = footprint.NewInstructionCache()
	}
	if estimate.StepRegions == nil { // and the step regions that launches of other steps count too
		estimate.StepRegions = model.NewStepRegionCache()
	}
	if estimate.Counts == nil { // and the granule counts of their footprints
		estimate.Counts = footprint.NewCountMemo()
	}
	estimate.Context = c // an estimate in progress stops with the exploration
	reports := make([]*model.Report, len(launches))
	skips := make([]string, len(launches)) // why launch i was skipped
	err = pool.Run(c, len(launches), pool.Options{Workers: cfg.Workers, StopOnError: true, Progress: cfg.Progress},
		func(i int) error {
			k, err := cfg.kernelFor(launches[i])
			if err != nil {
				return &ConfigError{Launch: launches[i], Err: err}
			}
			r, err := model.Estimate(k, launches[i], cfg.Device, estimate)
			switch {
			case err != nil && c.Err() != nil:
				return c.Err()
			case errors.Is(err, footprint.ErrWorkBound):
				skips[i] = fmt.Sprintf("exceeds the counting work bound --max-work (%v)", err)
			case errors.Is(err, footprint.ErrMemoryBound):
				skips[i] = fmt.Sprintf("exceeds the memory bound --max-memory (%v)", err)
			case errors.As(err, new(*device.NoFitError)) || errors.Is(err, kernel.ErrTileTooLarge):
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
			res.Skipped = append(res.Skipped, skippedOf(ConfigurationOf(launches[i]), why))
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
//  2. predicted GLup/s, higher first: per useful update, so for the
//     configurations of one kernel (one domain), whatever their time steps
//     per launch, the predicted time per step, shorter first;
//  3. idle fraction, lower first, so of two equally fast configurations the
//     one without idle threads ranks first;
//  4. block and then fold, each compared x, y, z, then tiling,
//     consecutive first, then staged before unstaged, and then fewer
//     time steps per launch first.
func Rank(rs []*model.Report) {
	idle := make(map[*model.Report]float64, len(rs))
	for _, r := range rs {
		l := kernel.Launch{Block: r.Launch.Block, Fold: r.Launch.Fold, Domain: r.Launch.Domain, Tiling: r.Launch.Tiling}
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
		return CompareConfigurations(ReportConfiguration(a), ReportConfiguration(b))
	})
}

// CompareConfigurations orders configurations by block and then fold, each
// compared x, y, z, then by tiling, consecutive first, then staged before
// unstaged, and then by time steps per launch, fewer first.
func CompareConfigurations(a, b Configuration) int {
	if c := slices.Compare(a.Block[:], b.Block[:]); c != 0 {
		return c
	}
	if c := slices.Compare(a.Fold[:], b.Fold[:]); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Tiling, b.Tiling); c != 0 {
		return c
	}
	if a.Unstaged != b.Unstaged {
		if a.Unstaged {
			return 1
		}
		return -1
	}
	return cmp.Compare(a.Steps, b.Steps)
}

// SortSkipped orders skipped configurations by block, fold, tiling,
// staging and steps (CompareConfigurations).
func SortSkipped(s []Skipped) {
	slices.SortStableFunc(s, func(a, b Skipped) int {
		return CompareConfigurations(a.Configuration(), b.Configuration())
	})
}
