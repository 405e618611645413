package request

// The keys of a request that name one configuration and how it is
// estimated, in the command line's string forms, and their validation: the
// messages name the flag (--block) that the HTTP API's key (block) is.

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/footprint"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/model"
	"github.com/polyvol/polyvol/similar"
)

// Defaults of the requests that estimate.
const (
	DefaultSpec   = "star3d-r4" // the spec predict, simulate and layercond run when given none
	DefaultDevice = "A100-40GB"
)

// DefaultBlock returns the block of a request without one: 256 threads
// along x, doubled along the spec's last dimension for 2-D and 3-D domains
// (256,2,1 and 256,1,2, the paper's star3d-r4 configuration).
func DefaultBlock(k *kernel.Kernel) [3]int64 {
	switch k.Dims {
	case 1:
		return [3]int64{256, 1, 1}
	case 2:
		return [3]int64{256, 2, 1}
	}
	return [3]int64{256, 1, 2}
}

// fieldErrorf returns an input *Error that names the flag or key at fault
// (without dashes), with a formatted message, which names it too.
func fieldErrorf(field, format string, args ...any) error {
	return &Error{Field: field, Err: fmt.Errorf(format, args...)}
}

// inputErrorf returns an input *Error with a formatted message.
func inputErrorf(format string, args ...any) error {
	return &Error{Err: fmt.Errorf(format, args...)}
}

// Triple formats a block, fold or domain as "X,Y,Z", the flag syntax.
func Triple(t [3]int64) string { return fmt.Sprintf("%d,%d,%d", t[0], t[1], t[2]) }

// ParseTriple parses the X,Y,Z value of the named flag (kernel.ParseTriple).
func ParseTriple(flag, value string) ([3]int64, error) {
	t, err := kernel.ParseTriple(value)
	if err != nil {
		return t, fieldErrorf(flag, "--%s %v", flag, err)
	}
	return t, nil
}

// ParseChoice checks that value is one of allowed for the named flag; the
// error suggests the allowed values that value may be a typo of.
func ParseChoice(flag, value string, allowed ...string) (string, error) {
	for _, a := range allowed {
		if value == a {
			return value, nil
		}
	}
	return "", fieldErrorf(flag, "--%s %q: expected one of %s%s", flag, value, strings.Join(allowed, ", "), similar.DidYouMean(value, allowed))
}

// TilingNames are the values of --tile and the entries of --tiles.
var TilingNames = []string{kernel.TileConsecutive.String(), kernel.TileStrided.String()}

// parseTile returns the tiling of a --tile value, one of TilingNames.
func parseTile(value string) (kernel.Tiling, error) {
	s, err := ParseChoice("tile", value, TilingNames...)
	if err != nil {
		return 0, err
	}
	return kernel.ParseTiling(s)
}

// Launch is the launch of one configuration as a request gives it, typed
// but not yet checked against the kernel (Of checks it).
type Launch struct {
	Block    [3]int64      // threads per block; zero for the kernel's DefaultBlock
	Fold     [3]int64      // lattice points per thread and dimension
	Tiling   kernel.Tiling // where a thread's fold points lie
	Unstaged bool          // read the staged fields from global memory
	Steps    int64         // time steps per launch; 0 for the spec's (kernel.Kernel.Steps)
}

// DefaultLaunch returns the launch of a request that gives none of its
// keys: DefaultBlock, no folding (kernel.NoFold), consecutive tiling, the
// staged fields staged, and the spec's time steps.
func DefaultLaunch() Launch {
	return Launch{Fold: kernel.NoFold, Tiling: kernel.TileConsecutive}
}

// ParseLaunch returns the launch of a request's keys block, fold, tile and
// steps in their string forms (X,Y,Z, one of TilingNames, a whole number),
// by name without dashes: the command line's flags, or the HTTP API's keys
// of the same names. A key that keys lacks, an empty block and empty steps
// keep DefaultLaunch's values; keys of anything else are ignored. Errors
// name the flag at fault. Unstaged, a boolean that each front end reads
// as it reads its other booleans, is left to the caller.
func ParseLaunch(keys map[string]string) (Launch, error) {
	l := DefaultLaunch()
	var err error
	if v := keys["block"]; v != "" {
		if l.Block, err = ParseTriple("block", v); err != nil {
			return Launch{}, err
		}
	}
	if v, ok := keys["fold"]; ok {
		if l.Fold, err = ParseTriple("fold", v); err != nil {
			return Launch{}, err
		}
	}
	if v, ok := keys["tile"]; ok {
		if l.Tiling, err = parseTile(v); err != nil {
			return Launch{}, err
		}
	}
	if v := keys["steps"]; v != "" {
		if l.Steps, err = strconv.ParseInt(v, 10, 64); err != nil || l.Steps < 1 {
			return Launch{}, fieldErrorf("steps", "--steps %q: expected a whole number of time steps from 1 to %d", v, kernel.MaxSteps)
		}
	}
	return l, nil
}

// Of returns the launch of kernel k that l describes, with k's domain,
// after checking it: the hardware's and polyvol's limits
// (kernel.Launch.Validate), then the time steps (kernel.Kernel.CheckSteps),
// l's and, where l leaves them to the spec, the spec's.
func (l Launch) Of(k *kernel.Kernel) (kernel.Launch, error) {
	block := l.Block
	if block == [3]int64{} {
		block = DefaultBlock(k)
	}
	out := k.NewLaunch(block, l.Fold)
	out.Tiling, out.Unstaged = l.Tiling, l.Unstaged
	if err := out.Validate(); err != nil {
		return kernel.Launch{}, &Error{Err: err}
	}
	if l.Steps != 0 {
		out.Steps = l.Steps
		if err := k.CheckSteps(out); err != nil {
			return kernel.Launch{}, fieldErrorf("steps", "--steps: %v", err)
		}
	}
	if err := k.CheckSteps(out); err != nil { // the spec's steps under --unstaged
		return kernel.Launch{}, &Error{Err: err}
	}
	return out, nil
}

// The --max-memory default and largest value, in MB. The bound is on the
// memory an estimate adds to the process (footprint.Budget.MemoryLimit);
// the default leaves 40 MB for the rest of a polyvol process (about 25 MB
// with its spec loaded) and what it allocates between two readings, so
// that no input found by hand or by fuzzing takes a predict past 200 MB of
// resident memory (the coupled wrap of the hostile corpus stops at
// 176-188 MB).
const (
	DefaultMaxMemoryMB = 160
	MaxMaxMemoryMB     = 1 << 30
)

// Estimate holds the keys that select how a configuration is estimated
// (DefaultEstimate for a request that names none); Options checks them.
type Estimate struct {
	Method      string // exact or reference
	Model       string // a name of model.ModelNames
	MaxWork     int64  // the bound on the counting work (footprint.Budget.Limit)
	MaxMemoryMB int64  // the bound on the memory, in MB (DefaultMaxMemoryMB)
	// Instructions selects the instruction mix: compiled (the default)
	// or counted, and the kernel source to compile.
	Instructions Instructions
}

// DefaultEstimate returns the estimate of a request that names none of
// its keys: method exact, the default model (model.DefaultModel), the
// default bounds, and the instruction mix's own default (Instructions).
func DefaultEstimate() Estimate {
	return Estimate{Method: model.MethodExact.Name, Model: string(model.DefaultModel), MaxWork: footprint.DefaultWorkBound, MaxMemoryMB: DefaultMaxMemoryMB}
}

// Options returns the model options of e, under ctx: the estimates stop
// when it ends.
func (e Estimate) Options(ctx context.Context) (model.Options, error) {
	m, err := ParseMethod(e.Method)
	if err != nil {
		return model.Options{}, err
	}
	mn, err := model.ParseModelName(e.Model)
	if err != nil {
		return model.Options{}, fieldErrorf("model", "--model: %v", err)
	}
	if e.MaxWork < 1 {
		return model.Options{}, fieldErrorf("max-work", "--max-work %d: expected a positive number", e.MaxWork)
	}
	if mb := e.MaxMemoryMB; mb < 1 || mb > MaxMaxMemoryMB {
		return model.Options{}, fieldErrorf("max-memory", "--max-memory %d: expected 1 to %d (MB)", mb, MaxMaxMemoryMB)
	}
	code, err := e.Instructions.Provider(ctx)
	if err != nil {
		return model.Options{}, err
	}
	return model.Options{Method: m, Model: mn, WorkBound: e.MaxWork, MemoryBound: e.MaxMemoryMB << 20, Context: ctx, Code: code}, nil
}

// ParseMethod returns the estimation method of a --method value.
func ParseMethod(name string) (model.Method, error) {
	m, err := model.MethodByName(name)
	if err != nil {
		return m, fieldErrorf("method", "--method: %v", err)
	}
	return m, nil
}

// launchName names the configuration of l in messages: "block X,Y,Z fold
// X,Y,Z", with the tiling when it is strided.
func launchName(l kernel.Launch) string {
	return "block " + Triple(l.Block) + " fold " + Triple(l.Fold) + l.Tiling.Suffix()
}

// EstimateError classifies an error of model.Estimate for launch l:
// exceeding the memory or work bound, a launch that does not fit and the
// spec's own faults are the request's (an *Error whose message says what
// to change), everything else is internal.
func EstimateError(l kernel.Launch, err error) error {
	where := launchName(l)
	if errors.Is(err, footprint.ErrMemoryBound) {
		return inputErrorf("%s: counting the footprints needs more memory than --max-memory allows (%w); raise --max-memory, or simplify the accesses (coupled wrapped terms such as (x + y) %% N hold memory in proportion to N)",
			where, err)
	}
	if errors.Is(err, footprint.ErrWorkBound) {
		return inputErrorf("%s: counting the footprints needs more work than --max-work allows (%w); raise --max-work, or simplify the accesses (floor and modulo terms with large divisors and strides that interleave rows cost the most)",
			where, err)
	}
	if errors.Is(err, model.ErrNoAccessInWave) {
		return inputErrorf("%s: no access reaches the grid's middle wave, which the volumes per lattice update come from: all apply only near the domain's edges (a reduction's first and last iterations); fold over the loops they skip, e.g. with the --block and --fold of the import's note", where)
	}
	if errors.Is(err, kernel.ErrTileTooLarge) {
		return inputErrorf("%s: %w; choose a smaller block or fold, or --unstaged", where, err)
	}
	if errors.As(err, new(*kernel.SpecError)) { // a raw map's constraints on another domain
		return inputErrorf("%s: %w", where, err)
	}
	var nf *device.NoFitError
	if errors.As(err, &nf) {
		block := Triple(l.Block)
		if strings.HasPrefix(nf.Reason, "shared memory") {
			if l.StepCount() > 1 {
				return inputErrorf("block %s, %d steps: %w; the tiles grow by the state's halo at every step: fewer steps, a smaller block or fold, or another device", block, l.StepCount(), err)
			}
			return inputErrorf("block %s: %w; reduce the spec's shared_bytes or its staged tiles (a smaller block or fold, or --unstaged), or choose another device", block, err)
		}
		if strings.HasPrefix(nf.Reason, "registers") {
			return inputErrorf("block %s: %w; choose a smaller block or fewer registers", block, err)
		}
		return inputErrorf("block %s: %w; choose a smaller block", block, err)
	}
	return fmt.Errorf("%s: %w", where, err)
}
