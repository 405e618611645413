package request

// The explore request: a sweep of block shapes, folds, tilings, staging
// choices and time steps per launch (package explore), ranked by predicted
// GLup/s.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/polyvol/polyvol/explore"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/model"
)

// Exploration is the JSON output of explore and merge (docs/json.md): the
// sweep's parameters and one model.Report per evaluated configuration,
// ranked by predicted GLup/s, ties broken by block and then fold (each
// compared x, y, z) and then tiling (explore.Rank).
type Exploration struct {
	Kernel string   `json:"kernel"`
	Device string   `json:"device"`
	Method string   `json:"method"`
	Model  string   `json:"model"`
	Domain [3]int64 `json:"domain"`
	// Threads are the threads per block of the block shapes tried, in
	// --threads order.
	Threads []int64 `json:"threads"`
	// Folds are the thread foldings tried with every block shape.
	Folds [][3]int64 `json:"folds"`
	// Tilings are the tilings tried with every fold and block shape.
	Tilings []kernel.Tiling `json:"tilings"`
	// Unstaged are the staging choices tried with a kernel with staged
	// fields (explore --staging: on is false, off true); left out for the
	// default, on only, and for a kernel without staged fields.
	Unstaged []bool `json:"unstaged,omitempty"`
	// Steps are the time steps per launch tried with a kernel with a state
	// (explore --steps; the spec's steps without it); left out for a
	// kernel without one.
	Steps []int64 `json:"steps,omitempty"`
	// AllShapes is set when the sweep kept the block shapes with threads
	// along a dimension the domain lacks (explore --all-shapes).
	AllShapes bool `json:"allShapes,omitempty"`
	// Registers are the registers per thread of every configuration that
	// RegistersTable does not list: the spec's, or --registers.
	Registers int `json:"registers"`
	// RegistersTable lists the configurations of --registers-table with
	// their registers per thread.
	RegistersTable []RegistersEntry `json:"registersTable,omitempty"`
	// Configurations counts the enumerated configurations: block shapes
	// times folds times tilings, a strided tiling only where it differs
	// from thread folding (explore.Configurations), of all shards together.
	Configurations int               `json:"configurations"`
	Skipped        []explore.Skipped `json:"skipped"`
	// Rows holds the reports, best first.
	Rows []*model.Report `json:"rows"`
	// Shard is set only in the output of a sharded sweep, for Merge.
	Shard *explore.Shard `json:"shard,omitempty"`
}

// RegistersEntry is one configuration of explore --registers-table and its
// registers per thread.
type RegistersEntry struct {
	explore.Configuration
	Registers int `json:"registers"`
}

// defaultThreads is the threads per block of the block shapes of a sweep
// that names none (DefaultSweep).
const defaultThreads = kernel.MaxThreadsPerBlock

// DefaultMaxConfigurations bounds the configurations of an explore request
// (DefaultExplore): about a minute on 2 cores for the heaviest example
// kernels (lbm-d3q27-aos: 168 configurations in 3 s), 30 times the paper's
// sweep.
const DefaultMaxConfigurations = 5000

// The staging choices of an explore request (--staging).
const (
	stagingOn  = "on"
	stagingOff = "off"
)

// defaultTiles is the --tiles value that tries every tiling.
var defaultTiles = strings.Join(TilingNames, ",")

// Sweep holds the keys of an explore request that choose its
// configurations, in their string forms (DefaultSweep for a request that
// names none): Threads is comma-separated counts, Folds "" means the
// default folds of the kernel's dimensions (explore.DefaultFoldsOf), Steps
// "" the spec's steps.
type Sweep struct {
	Threads, Folds, Tiles, Staging, Steps string
	AllShapes                             bool
}

// DefaultSweep is the sweep of a request that names none of its keys.
func DefaultSweep() Sweep {
	return Sweep{Threads: strconv.Itoa(defaultThreads), Tiles: defaultTiles, Staging: stagingOn}
}

// Apply returns cfg with the threads, folds, tilings, staging choices,
// time steps and shapes of s, checked in that order.
func (s Sweep) Apply(cfg explore.Config) (explore.Config, error) {
	var err error
	if cfg.Threads, err = parseThreads(s.Threads); err != nil {
		return cfg, err
	}
	if cfg.Folds, err = parseFolds(s.Folds); err != nil {
		return cfg, err
	}
	if cfg.Tilings, err = parseTilings(s.Tiles); err != nil {
		return cfg, err
	}
	if cfg.Unstaged, err = parseStaging(s.Staging); err != nil {
		return cfg, err
	}
	if cfg.Steps, err = parseSteps(s.Steps); err != nil {
		return cfg, err
	}
	cfg.AllShapes = s.AllShapes
	return cfg, nil
}

// parseThreads parses the --threads value, comma-separated counts of
// threads per block, each a power of two up to kernel.MaxThreadsPerBlock.
func parseThreads(s string) ([]int, error) {
	var threads []int
	for _, part := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(part))
		if err != nil {
			return nil, fieldErrorf("threads", "--threads %q: expected comma-separated powers of two from 1 to %d, e.g. 128,256", s, kernel.MaxThreadsPerBlock)
		}
		if _, err := explore.BlockShapes(n); err != nil {
			return nil, fieldErrorf("threads", "--%v", err)
		}
		if slices.Contains(threads, n) {
			return nil, fieldErrorf("threads", "--threads %q: %d appears twice", s, n)
		}
		threads = append(threads, n)
	}
	return threads, nil
}

// ThreadsText writes the thread counts of an exploration as --threads
// takes them, comma-separated.
func ThreadsText(threads []int64) string {
	parts := make([]string, len(threads))
	for i, n := range threads {
		parts[i] = strconv.FormatInt(n, 10)
	}
	return strings.Join(parts, ",")
}

// parseStaging parses the --staging value, comma-separated on and off, into
// explore.Config.Unstaged; on alone is nil.
func parseStaging(s string) ([]bool, error) {
	var unstaged []bool
	for _, part := range strings.Split(s, ",") {
		choice, err := ParseChoice("staging", strings.TrimSpace(part), stagingOn, stagingOff)
		if err != nil {
			return nil, err
		}
		u := choice == stagingOff
		if slices.Contains(unstaged, u) {
			return nil, fieldErrorf("staging", "--staging %q: %s appears twice", s, choice)
		}
		unstaged = append(unstaged, u)
	}
	if len(unstaged) == 1 && !unstaged[0] {
		return nil, nil
	}
	return unstaged, nil
}

// parseSteps parses the --steps value of explore, comma-separated time
// steps per launch T and ranges A:B (A <= B), into explore.Config.Steps;
// "" is nil, the spec's steps.
func parseSteps(s string) ([]int64, error) {
	if s == "" {
		return nil, nil
	}
	bad := func() ([]int64, error) {
		return nil, fieldErrorf("steps", "--steps %q: expected time steps per launch from 1 to %d, comma-separated, each T or a range A:B, e.g. 1:10 or 1,2,4", s, kernel.MaxSteps)
	}
	var steps []int64
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(part), ":")
		if !isRange {
			hi = lo
		}
		a, errA := strconv.ParseInt(lo, 10, 64)
		b, errB := strconv.ParseInt(hi, 10, 64)
		if errA != nil || errB != nil || a < 1 || b > kernel.MaxSteps || a > b {
			return bad()
		}
		for t := a; t <= b; t++ {
			if slices.Contains(steps, t) {
				return nil, fieldErrorf("steps", "--steps %q: %d appears twice", s, t)
			}
			steps = append(steps, t)
		}
	}
	return steps, nil
}

// parseTilings parses the --tiles value, comma-separated tiling names.
func parseTilings(s string) ([]kernel.Tiling, error) {
	var tilings []kernel.Tiling
	for _, part := range strings.Split(s, ",") {
		t, err := kernel.ParseTiling(strings.TrimSpace(part))
		if err != nil {
			return nil, fieldErrorf("tiles", "--tiles %q: %v", s, err)
		}
		if slices.Contains(tilings, t) {
			return nil, fieldErrorf("tiles", "--tiles %q: tiling %s appears twice", s, t)
		}
		tilings = append(tilings, t)
	}
	return tilings, nil
}

// FoldsFlag writes folds as the --folds value, colon-separated X,Y,Z
// triples.
func FoldsFlag(folds [][3]int64) string {
	parts := make([]string, len(folds))
	for i, f := range folds {
		parts[i] = Triple(f)
	}
	return strings.Join(parts, ":")
}

// parseFolds parses the --folds value, colon-separated X,Y,Z triples; ""
// is nil, the default folds.
func parseFolds(s string) ([][3]int64, error) {
	if s == "" {
		return nil, nil
	}
	var folds [][3]int64
	for _, part := range strings.Split(s, ":") {
		f, err := ParseTriple("folds", part)
		if err != nil {
			return nil, err
		}
		if slices.Contains(folds, f) {
			return nil, fieldErrorf("folds", "--folds %q: fold %s appears twice", s, Triple(f))
		}
		folds = append(folds, f)
	}
	return folds, nil
}

// Explore is a request for the ranking of a sweep: the sweep with its
// kernel (the request's domain and registers applied), device and
// estimate options, the bound on its size, and the registers table whose
// entries Config.Registers looks up.
type Explore struct {
	Config            explore.Config
	MaxConfigurations int
	RegistersTable    []RegistersEntry
}

// DefaultExplore returns the explore request that names none of its
// keys, without its sweep's configuration: at most
// DefaultMaxConfigurations configurations.
func DefaultExplore() Explore {
	return Explore{MaxConfigurations: DefaultMaxConfigurations}
}

// Size returns the number of configurations to estimate (of the shard,
// with Config.Shard), or an error when they are more than
// MaxConfigurations.
func (x Explore) Size() (int, error) {
	cfg, err := x.config()
	if err != nil {
		return 0, err
	}
	launches, _, _, err := cfg.Launches()
	if err != nil {
		return 0, err
	}
	if len(launches) > x.MaxConfigurations {
		return 0, fieldErrorf("max-configurations", "--max-configurations %d: the sweep has %d configurations (%s, %s); sweep fewer --folds, --tiles, --steps or --threads, split it with --shard, or raise --max-configurations",
			x.MaxConfigurations, len(launches), CountNoun(len(cfg.Folds), "fold"), CountNoun(len(cfg.Tilings), "tiling"))
	}
	return len(launches), nil
}

// Run checks the size of the sweep and estimates its configurations under
// ctx, reporting progress through Config.Progress; the skipped
// configurations come in explore.SortSkipped's order. The exploration of
// a shard (Config.Shard) carries the shard with the sweep's fingerprint
// and its rows' digest, for Merge; unless the sweep is a shard, at least
// one configuration must have been ranked.
func (x Explore) Run(ctx context.Context) (*Exploration, error) {
	cfg, err := x.config()
	if err != nil {
		return nil, err
	}
	if _, err := x.Size(); err != nil {
		return nil, err
	}
	res, err := explore.Run(ctx, cfg)
	var ce *explore.ConfigError
	if errors.As(err, &ce) {
		return nil, EstimateError(ce.Launch, ce.Err)
	}
	if err != nil {
		return nil, err
	}
	explore.SortSkipped(res.Skipped)
	k, opt := cfg.Kernel, cfg.Estimate
	e := &Exploration{
		Kernel: k.Name, Device: cfg.Device.Name, Method: opt.Method.Name, Model: string(opt.Model),
		Domain: k.Domain, Threads: threadCounts(cfg.Threads), Folds: cfg.Folds, Tilings: cfg.Tilings, Unstaged: cfg.Unstaged, Steps: cfg.Steps, AllShapes: cfg.AllShapes, Registers: k.Registers,
		RegistersTable: x.RegistersTable, Configurations: res.Configurations, Skipped: res.Skipped, Rows: res.Reports,
	}
	if cfg.Shard.Count != 0 {
		if err := sealShard(e, cfg.Shard, k, cfg.Device, opt); err != nil {
			return nil, err
		}
		return e, nil
	}
	if err := checkSomeRanked(e); err != nil {
		return nil, err
	}
	return e, nil
}

// config returns the sweep's configuration, with the default folds of the
// kernel's dimensions where it names none, no staging choices for a
// kernel without staged fields and no steps for a kernel without a state
// (each has one, which the exploration leaves out), and the steps swept
// for a kernel with a state, the spec's by default. Steps above 1 for a
// kernel without a state are the --steps flag's error.
func (x Explore) config() (explore.Config, error) {
	cfg := x.Config
	if cfg.Folds == nil {
		cfg.Folds = explore.DefaultFoldsOf(cfg.Kernel.Domain)
	}
	if !explore.Staged(cfg.Kernel) {
		cfg.Unstaged = nil
	}
	if cfg.Kernel.StateField() == nil {
		for _, t := range cfg.Steps {
			if err := cfg.Kernel.CheckSteps(kernel.Launch{Steps: t}); err != nil {
				return cfg, fieldErrorf("steps", "--steps: %v", err)
			}
		}
	}
	var err error
	cfg.Steps, err = cfg.SweptSteps()
	return cfg, err
}

// threadCounts returns the thread counts of explore.Config.Threads as
// Exploration.Threads records them.
func threadCounts(threads []int) []int64 {
	if threads == nil {
		threads = []int{kernel.MaxThreadsPerBlock}
	}
	counts := make([]int64, len(threads))
	for i, n := range threads {
		counts[i] = int64(n)
	}
	return counts
}

// checkSomeRanked returns the input error of a whole sweep whose every
// configuration was skipped: explore and merge give the same.
func checkSomeRanked(e *Exploration) error {
	if len(e.Rows) > 0 || len(e.Skipped) == 0 {
		return nil
	}
	return inputErrorf("every configuration was skipped; the first, %v: %s", e.Skipped[0].Configuration(), e.Skipped[0].Reason)
}

// CountNoun writes n and the noun, in the plural unless n is 1.
func CountNoun(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
