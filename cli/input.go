package cli

// Shared input helpers of the commands: spec loading, device resolution,
// flag parsing and error classification. Every error they return that the
// user caused is a *UsageError, so Run exits with ExitUsage.

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/examples"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/model"
	"github.com/polyvol/polyvol/request"
	"github.com/polyvol/polyvol/similar"
	ucli "github.com/urfave/cli/v2"
)

// usageErrorf returns a *UsageError with a formatted message.
func usageErrorf(format string, args ...any) error {
	return &UsageError{Err: fmt.Errorf(format, args...)}
}

// flagErrorf returns a *UsageError that names flag (without dashes) as
// the one at fault, with a formatted message, which names it too.
func flagErrorf(flag, format string, args ...any) error {
	return &UsageError{Field: flag, Err: fmt.Errorf(format, args...)}
}

// asUsage wraps a non-nil err as a *UsageError.
func asUsage(err error) error {
	if err == nil {
		return nil
	}
	return &UsageError{Err: err}
}

// loadKernel reads the kernel spec named by arg: a YAML or JSON file when a
// file of that path exists, otherwise the embedded example of that name
// (see examples.Names). A Polly JSCoP (a file named *.jscop or *.jscop.*,
// or with a top-level "statements"), a Kerncraft kernel description (a
// top-level "loops", "arrays", ... and no "fields") or Kerncraft kernel
// code (a file named *.c) is imported with the
// command's import flags instead (loadImported). Raw ISL maps are read by
// ISL (package relation), their parameters bound by the spec's params and
// -D, and turned into index expressions; a map that cannot be is an error
// here, because every command evaluates the accesses. All its errors
// are usage errors that name the file, line, field and position.
func loadKernel(c *ucli.Context, arg string) (*kernel.Kernel, error) {
	spec := request.Spec{File: arg, Label: specLabel(arg), Path: arg, Command: c.Command.Name,
		TakesDefines: slices.ContainsFunc(c.Command.Flags, func(f ucli.Flag) bool { return slices.Contains(f.Names(), "D") }),
		Import:       specImport(c)}
	var err error
	switch _, statErr := os.Stat(arg); {
	case arg != stdinSpec && request.IsJSCoPName(arg):
		spec.Text, spec.File, err = readImportFile(c, arg)
	case arg == stdinSpec:
		spec.File = request.StdinName
		spec.Text, err = io.ReadAll(io.LimitReader(c.App.Reader, kernel.MaxSpecBytes+1))
		if err != nil {
			err = asUsage(&kernel.SpecError{File: spec.File, Msg: err.Error()})
		}
	case statErr == nil:
		spec.Text, err = readSpecFile(arg)
	default:
		spec.Example = arg
		_, err = examples.Read(strings.TrimSuffix(arg, ".yaml") + ".yaml")
		if errors.Is(err, fs.ErrNotExist) {
			return nil, usageErrorf("spec %q: no such file and no embedded example of that name%s (examples: %s)", arg, similar.DidYouMean(arg, examples.Names()), strings.Join(examples.Names(), ", "))
		}
		err = asUsage(err)
	}
	if err != nil {
		return nil, err
	}
	k, notes, err := spec.Load()
	if err != nil {
		return nil, err
	}
	for _, n := range notes {
		addNote(c, "%s", n)
	}
	return k, nil
}

// readSpecFile reads the spec file path, at most one byte more than
// kernel.MaxSpecBytes, which the spec's reader refuses.
func readSpecFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, asUsage(err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, kernel.MaxSpecBytes+1))
	if err != nil {
		return nil, asUsage(&kernel.SpecError{File: path, Msg: err.Error()})
	}
	return data, nil
}

// specLabel names a SPEC argument in messages: the file, or the embedded
// example.
func specLabel(arg string) string {
	if arg == stdinSpec {
		return "<stdin>"
	}
	if _, err := os.Stat(arg); err != nil {
		return fmt.Sprintf("embedded example %q", arg)
	}
	return arg
}

// specArgHelp describes the SPEC argument in the commands' help.
var specArgHelp = wrapWords("SPEC is a kernel spec file (YAML or JSON; a Polly JSCoP, a Kerncraft kernel description or Kerncraft kernel code (FILE.c) is imported, as with polyvol import), - for standard input, or, when no such file exists, an embedded example: "+strings.Join(examples.Names(), ", ")+".", 78)

// wrapWords breaks text into lines of at most width characters at spaces.
func wrapWords(text string, width int) string {
	var b strings.Builder
	line := 0
	for i, w := range strings.Fields(text) {
		switch {
		case i == 0:
		case line+1+len(w) > width:
			b.WriteByte('\n')
			line = 0
		default:
			b.WriteByte(' ')
			line++
		}
		b.WriteString(w)
		line += len(w)
	}
	return b.String()
}

// stdinSpec is the SPEC argument that reads the spec from standard input.
const stdinSpec = "-"

// deviceFileFlag is the --device-file flag shared by the commands that take
// a device: a user device file (YAML, the schema of device.Device), repeatable.
var deviceFileFlag = &ucli.StringSliceFlag{
	Name:      "device-file",
	Usage:     "load a device description from `FILE` (YAML, see docs/guide.md); repeatable",
	TakesFile: true,
}

// loadDeviceFiles loads every --device-file of c.
func loadDeviceFiles(c *ucli.Context) ([]*device.Device, error) {
	var devs []*device.Device
	for _, path := range c.StringSlice(deviceFileFlag.Name) {
		d, err := device.LoadFile(path)
		if err != nil {
			return nil, flagErrorf(deviceFileFlag.Name, "device file %w", err) // its lines joined where printed (request.Line)
		}
		devs = append(devs, d)
	}
	return devs, nil
}

// resolveDevice finds the device called name among the devices of the
// --device-file flags (canonical name, display name or alias, ignoring case)
// and then in the embedded database (device.Lookup). source names where the
// name comes from, such as "--device", for the error about a name that
// device.CheckName refuses.
func resolveDevice(c *ucli.Context, source, name string) (*device.Device, error) {
	if err := request.CheckDeviceName(source, name); err != nil {
		return nil, err
	}
	files, err := loadDeviceFiles(c)
	if err != nil {
		return nil, err
	}
	return request.FindDevice(name, files)
}

// commandDevice returns the device a command runs on: the one the
// --device flag names, or, when the flag is not given and --device-file
// holds exactly one device, that device.
func commandDevice(c *ucli.Context) (*device.Device, error) {
	name := c.String("device")
	if !c.IsSet("device") {
		files, err := loadDeviceFiles(c)
		if err != nil {
			return nil, err
		}
		if len(files) == 1 {
			name = files[0].Name
		}
	}
	return resolveDevice(c, "--device", name)
}

// estimateFlags are the flags that select how a configuration is estimated,
// with those that import a JSCoP SPEC.
func estimateFlags() []ucli.Flag {
	defaults := request.DefaultEstimate()
	return append([]ucli.Flag{
		&choiceFlag{&ucli.StringFlag{Name: "method", Value: defaults.Method, Usage: "estimation `METHOD`: exact (exact counts) or reference (the rules of the paper's reference implementation; docs/method.md)"}, methodChoices},
		&choiceFlag{&ucli.StringFlag{Name: "model", Value: defaults.Model, Usage: "performance `MODEL`: overlap (limiters that overlap imperfectly, and warps in flight; the most accurate on hardware), roofline (the paper's minimum of the limiters), latency (Volkov) or su2015"}, modelNames()},
		&ucli.StringFlag{Name: "domain", Usage: "override the spec's domain with `X,Y,Z` lattice points"},
		&ucli.Int64Flag{Name: "max-work", Value: defaults.MaxWork, Usage: "bound `N` on the counting work of one configuration, in progressions handled (about 0.3 µs and up to 100 bytes each; at the default the worst inputs found take 2 s)"},
		&ucli.Int64Flag{Name: "max-memory", Value: defaults.MaxMemoryMB, Usage: "bound `MB` on the memory one configuration's estimate adds to the process: counting stops once the estimates running hold more than this each"},
		&choiceFlag{&ucli.StringFlag{Name: "instructions", Usage: "where the instruction mix of the issue bound comes from: `SOURCE` compiled (clang 19 compiles the kernel for the device's architecture; counted, with a note, where none is installed) or counted (from the spec) (default: $POLYVOL_INSTRUCTIONS where set, else compiled for predict and counted for the sweeps of explore; a --source file is always compiled)"}, []string{request.InstructionsCompiled, request.InstructionsCounted}},
		&ucli.StringFlag{Name: "source", Usage: "compile this CUDA or HIP `FILE` for the instruction mix instead of the kernel polyvol cuda writes; the launch is passed as the macros block_size_x/y/z, tile_size_x/y/z (the fold) and, with time steps, temporal_tiling_factor"},
		&ucli.StringSliceFlag{Name: "macro", Usage: "a further macro `NAME=VALUE` (or NAME, defined as 1) of the --source file (repeatable)"},
		&ucli.StringFlag{Name: "kernel-name", Usage: "the `NAME` of the __global__ function of the --source file to count (default: its only one)"},
	}, importSpecFlags()...)
}

// modelNames returns the names of model.ModelNames.
func modelNames() []string {
	var names []string
	for _, m := range model.ModelNames {
		names = append(names, string(m))
	}
	return names
}

// estimateOptions returns the model options of the --method, --model,
// --max-work, --max-memory and instruction-mix flags, under the command's context (which
// polyvol serve ends with a request's budget).
func estimateOptions(c *ucli.Context) (model.Options, error) {
	return request.Estimate{Method: c.String("method"), Model: c.String("model"), MaxWork: c.Int64("max-work"), MaxMemoryMB: c.Int64("max-memory"),
		Instructions: instructionsFlags(c)}.Options(c.Context)
}

// instructionsFlags returns the instruction mix of the --instructions,
// --source, --macro and --kernel-name flags.
func instructionsFlags(c *ucli.Context) request.Instructions {
	return request.Instructions{Mode: c.String("instructions"), SourceFile: c.String("source"), Defines: c.StringSlice("macro"), Entry: c.String("kernel-name")}
}

// parseMethod returns the estimation method of the --method flag.
func parseMethod(c *ucli.Context) (model.Method, error) {
	return request.ParseMethod(c.String("method"))
}

// applyDomain returns k with its domain replaced by the --domain flag when it
// is set. Field extents keep their padding, as in layercond: an extent of the
// spec's domain plus p in a dimension becomes the new domain plus p there, so
// halo-padded arrays follow the domain; extents below the spec's domain are
// kept. The kernel it returns is the one the command runs, so it also
// records the notes on suspicious kernels (noteKernel).
func applyDomain(c *ucli.Context, k *kernel.Kernel) (*kernel.Kernel, error) {
	if !c.IsSet("domain") {
		noteKernel(c, k)
		return k, nil
	}
	out, err := request.AtDomain(k, c.String("domain"))
	if err != nil {
		return nil, err
	}
	noteKernel(c, out)
	return out, nil
}

// configurationFromFlags loads the SPEC argument (or the embedded default),
// applies --domain, resolves --device and parses --block (default by the
// kernel's dimensions), --fold, --tile and --unstaged: the configuration
// that predict and simulate share.
func configurationFromFlags(c *ucli.Context) (*kernel.Kernel, *device.Device, kernel.Launch, error) {
	k, dev, err := kernelAndDevice(c)
	if err != nil {
		return nil, nil, kernel.Launch{}, err
	}
	launch, err := launchFlags(c)
	if err != nil {
		return nil, nil, kernel.Launch{}, err
	}
	l, err := launch.Of(k)
	if err != nil {
		return nil, nil, kernel.Launch{}, err
	}
	return k, dev, l, nil
}

// kernelAndDevice loads the SPEC argument (or the embedded default),
// applies --domain and resolves --device.
func kernelAndDevice(c *ucli.Context) (*kernel.Kernel, *device.Device, error) {
	spec := defaultSpec
	if c.NArg() == 1 {
		spec = c.Args().First()
	}
	k, err := loadKernel(c, spec)
	if err != nil {
		return nil, nil, err
	}
	if k, err = applyDomain(c, k); err != nil {
		return nil, nil, err
	}
	dev, err := commandDevice(c)
	if err != nil {
		return nil, nil, err
	}
	return k, dev, nil
}

// launchFlags returns the launch of the --block, --fold, --tile, --steps
// (request.ParseLaunch) and --unstaged flags.
func launchFlags(c *ucli.Context) (request.Launch, error) {
	l, err := request.ParseLaunch(launchKeys(c, "block", "fold", "tile", "steps"))
	l.Unstaged = c.Bool("unstaged")
	return l, err
}

// launchKeys returns the values of the named launch flags of c by name, as
// request.ParseLaunch takes them; a flag not given has its default value,
// the request's (foldFlag, tileFlag).
func launchKeys(c *ucli.Context, names ...string) map[string]string {
	values := map[string]string{}
	for _, name := range names {
		values[name] = c.String(name)
	}
	return values
}

// foldFlag is the --fold flag of the commands that take one launch.
func foldFlag() ucli.Flag {
	return &ucli.StringFlag{Name: "fold", Value: request.Triple(request.DefaultLaunch().Fold), Usage: "thread folding `X,Y,Z`: lattice points per thread and dimension"}
}

// stepsFlag is the --steps flag of predict, simulate and cuda: the time steps per launch of a
// kernel with a state.
var stepsFlag = &ucli.StringFlag{Name: "steps", Usage: "time steps per launch `T` of a kernel with a state (temporal blocking; default: the spec's steps)"}

// tileFlag is the --tile flag of the commands that take one launch.
func tileFlag() ucli.Flag {
	return &choiceFlag{&ucli.StringFlag{Name: "tile", Value: request.DefaultLaunch().Tiling.String(),
		Usage: "where a thread's fold points lie: `TILING` consecutive (neighbours, thread folding) or strided (one block size apart, as hand-written CUDA tiles)"}, request.TilingNames}
}

// unstagedFlag is the --unstaged flag of the commands that take one launch.
var unstagedFlag = &ucli.BoolFlag{Name: "unstaged", Usage: "read the fields that the spec stages in shared memory (stage) from global memory instead"}
