package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/polyvol/polyvol/accuracy"
	"github.com/polyvol/polyvol/compiled"
	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/measured"
	"github.com/polyvol/polyvol/model"
	"github.com/polyvol/polyvol/request"
	ucli "github.com/urfave/cli/v2"
)

func init() {
	register(func() *ucli.Command {
		return &ucli.Command{
			Name:      "measured",
			Usage:     "compare predictions with GPU measurements (scripts/measure-gpu.sh) as a markdown report",
			ArgsUsage: "DIR",
			UsageText: `polyvol measured DIR [--device NAME] [--methods exact,reference] [-o FILE.md]

DIR holds the CSV files of scripts/measure-gpu.sh (see testdata/measured/README.md).
For every sweep, level and method the report gives the mean absolute
percentage error of the predicted volumes, the Spearman rank correlation over
the configurations, and where the configuration predicted fastest ranks among
the measured ones and at which fraction of the measured best it runs.

Examples:
   polyvol measured testdata/measured/h100 --device H100-SXM
   polyvol measured testdata/measured/h100 \
       --methods exact -o docs/accuracy-h100.md
   polyvol measured --hardware testdata/measured -o docs/accuracy-hardware.md
   polyvol measured --hardware testdata/measured --compiled-convolution 8 -o docs/accuracy-compiled.md
   polyvol measured --hardware testdata/measured --compiled-hotspot 4 -o docs/accuracy-compiled-hotspot.md
   polyvol measured --hardware testdata/measured --hotspot

With --hardware, DIR holds the published V100 measurements (see
accuracy.HardwareFiles) and the report gives volume MAPE and Spearman ρ per
dataset, level and method, and the ranking of the block scan per group,
method and performance model.`,
			Flags: []ucli.Flag{
				&ucli.StringFlag{Name: "device", Aliases: []string{"d"}, Value: "H100-SXM", Usage: "GPU `NAME` the measurements were taken on"},
				deviceFileFlag,
				&ucli.StringFlag{Name: "methods", Value: "exact,reference", Usage: "comma-separated estimation `METHODS` to compare"},
				&ucli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the report to `FILE` instead of standard output", TakesFile: true},
				&ucli.BoolFlag{Name: "hardware", Usage: "DIR holds the published V100 measurements (testdata/measured): write the report of docs/accuracy-hardware.md"},
				&ucli.BoolFlag{Name: "hotspot", Usage: "with --hardware: write only the Kernel Tuner hotspot's section (its sweeps against the predictions and the best time steps per launch on every device; minutes, where the whole report takes an hour on two cores)"},
				&ucli.IntFlag{Name: "compiled-convolution", Usage: "with --hardware: write only the Kernel Tuner convolution's section, its instruction mix compiled by clang from examples/sources/convolution-15x15.cu for every `N`-th configuration (docs/accuracy-compiled.md; a compile of 1 to 10 s per launch and architecture, cached)"},
				&ucli.IntFlag{Name: "compiled-hotspot", Usage: "with --hardware: write only the Kernel Tuner hotspot's sweeps, their instruction mix compiled by clang from examples/sources/hotspot.cu for every `N`-th group of --hotspot's sample (docs/accuracy-compiled-hotspot.md; a compile of 1 to 60 s per launch and architecture, cached)"},
			},
			Action: runMeasured,
		}
	})
}

// runMeasured is the action of the measured command.
func runMeasured(c *ucli.Context) error {
	if c.NArg() != 1 {
		return usageErrorf("measured takes one DIR, got %d arguments", c.NArg())
	}
	if err := checkOutputFlag(c, "output"); err != nil {
		return err
	}
	dir := c.Args().First()
	if c.Bool("hardware") {
		return runHardware(c, dir)
	}
	sweeps, err := measured.LoadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return asUsage(err)
	}
	rows := 0
	for _, s := range sweeps {
		rows += len(s.Rows)
	}
	if rows == 0 {
		return usageErrorf("no measurements in %s: run scripts/measure-gpu.sh on a machine with an H100, nvcc and ncu (see testdata/measured/README.md)", dir)
	}
	var methods []model.Method
	for _, name := range strings.Split(c.String("methods"), ",") {
		m, err := model.MethodByName(strings.TrimSpace(name))
		if err != nil {
			return flagErrorf("methods", "--methods: %v", err)
		}
		methods = append(methods, m)
	}
	dev, err := commandDevice(c)
	if err != nil {
		return err
	}
	cmp, err := compareMeasured(c, sweeps, dev, methods)
	if err != nil {
		return err
	}
	w := c.App.Writer
	out := c.String("output")
	if out != "" {
		var b strings.Builder
		writeMeasuredReport(&b, dir, dev, cmp)
		if err := os.WriteFile(out, []byte(b.String()), 0o644); err != nil {
			return flagErrorf("output", "--output: %v", err)
		}
		fmt.Fprintf(c.App.ErrWriter, "wrote %s\n", out)
		return nil
	}
	writeMeasuredReport(w, dir, dev, cmp)
	return nil
}

// runHardware writes the comparison with the published V100 measurements
// in dir (accuracy.HardwareReport) to --output or standard output.
func runHardware(c *ucli.Context, dir string) error {
	// A missing file is refused before the first file's progress lines.
	files := append(slices.Clone(accuracy.HardwareFiles), append(accuracy.ConvolutionFiles(), accuracy.HotspotFiles()...)...)
	for _, f := range files {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			return flagErrorf("hardware", "--hardware: %v (DIR must hold %s)", err, strings.Join(files, ", "))
		}
	}
	var given []string
	for _, f := range []string{"hotspot", "compiled-convolution", "compiled-hotspot"} {
		if c.IsSet(f) {
			given = append(given, f)
		}
	}
	if len(given) > 1 {
		return flagErrorf(given[0], "--%s and --%s each write one section: give one", given[0], given[1])
	}
	var report interface{ WriteMarkdown(io.Writer) }
	var err error
	switch {
	case c.IsSet("compiled-convolution"):
		compiler, every, ferr := compiledSample(c, "compiled-convolution")
		if ferr != nil {
			return ferr
		}
		var conv *accuracy.Convolution
		conv, err = accuracy.ConvolutionReport(dir, every, compiler, c.App.ErrWriter)
		report = compiledSection{section: conv, kernel: "convolution", flag: "compiled-convolution", file: "accuracy-compiled.md", every: every,
			counted: "for every configuration"}
	case c.IsSet("compiled-hotspot"):
		compiler, every, ferr := compiledSample(c, "compiled-hotspot")
		if ferr != nil {
			return ferr
		}
		var hotspot *accuracy.HotspotSection
		hotspot, err = accuracy.HotspotReports(dir, every, compiler, c.App.ErrWriter)
		report = compiledSection{section: hotspot, kernel: "hotspot", flag: "compiled-hotspot", file: "accuracy-compiled-hotspot.md", every: every,
			counted: fmt.Sprintf("on %d times as many (block, tile, sh_power) groups", every)}
	case c.Bool("hotspot"):
		report, err = accuracy.HotspotReports(dir, 1, nil, c.App.ErrWriter)
	default:
		report, err = accuracy.HardwareReport(dir, 1, c.App.ErrWriter)
	}
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return flagErrorf("hardware", "--hardware: %v (DIR must hold %s)", err, strings.Join(files, ", "))
		}
		return err
	}
	var b strings.Builder
	report.WriteMarkdown(&b)
	if out := c.String("output"); out != "" {
		if err := os.WriteFile(out, []byte(b.String()), 0o644); err != nil {
			return flagErrorf("output", "--output: %v", err)
		}
		fmt.Fprintf(c.App.ErrWriter, "wrote %s\n", out)
		return nil
	}
	_, err = io.WriteString(c.App.Writer, b.String())
	return err
}

// measuredRun is a measured configuration, ready to estimate: the spec at
// the measured domain and the launch.
type measuredRun struct {
	k *kernel.Kernel
	l kernel.Launch
}

// prepareMeasured loads the spec of every row of sweeps at the row's domain
// and checks its launch, so that a malformed row is refused before any
// estimate starts. Errors name the file and line.
func prepareMeasured(c *ucli.Context, sweeps []*measured.Sweep) ([][]measuredRun, error) {
	specs := map[string]*kernel.Kernel{}
	runs := make([][]measuredRun, len(sweeps))
	for si, s := range sweeps {
		for _, r := range s.Rows {
			k, ok := specs[r.Kernel]
			if !ok {
				var err error
				if k, err = loadKernel(c, r.Kernel); err != nil {
					return nil, fmt.Errorf("%s:%d: %w", s.Path, r.Line, err)
				}
				specs[r.Kernel] = k
			}
			k, err := request.KernelAt(k, r.Domain)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %w", s.Path, r.Line, err)
			}
			l := k.NewLaunch(r.Block, r.Fold)
			if err := l.Validate(); err != nil {
				return nil, usageErrorf("%s:%d: %v", s.Path, r.Line, err)
			}
			runs[si] = append(runs[si], measuredRun{k, l})
		}
	}
	return runs, nil
}

// compareMeasured estimates every measured configuration with every method
// on dev and compares the predictions with the measurements
// (accuracy.CompareMeasured). Every row is checked (prepareMeasured) before
// the first estimate; the estimates' progress goes to the command's error
// writer as a progress bar, on a terminal only.
func compareMeasured(c *ucli.Context, sweeps []*measured.Sweep, dev *device.Device, methods []model.Method) ([]accuracy.MeasuredComparison, error) {
	runs, err := prepareMeasured(c, sweeps)
	if err != nil {
		return nil, err
	}
	total := 0
	for _, s := range sweeps {
		total += len(s.Rows) * len(methods)
	}
	bar := newProgress(c.App.ErrWriter, total, "measured")
	defer bar.finish()
	return accuracy.CompareMeasured(sweeps, methods, func(si, i int, m model.Method) (*model.Report, error) {
		run := runs[si][i]
		rep, err := model.Estimate(run.k, run.l, dev, model.Options{Method: m})
		if err != nil {
			s := sweeps[si]
			return nil, fmt.Errorf("%s:%d: %w", s.Path, s.Rows[i].Line, request.EstimateError(run.l, err))
		}
		bar.add()
		return rep, nil
	})
}

// writeMeasuredReport renders the comparison as markdown.
func writeMeasuredReport(w io.Writer, dir string, dev *device.Device, cmp []accuracy.MeasuredComparison) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	p("# Predicted against measured volumes on %s\n\n", dev.Name)
	p("Measurements from `%s` (scripts/measure-gpu.sh, Nsight Compute counters); predictions by `model.Estimate` on %s (%s).\n", dir, dev.Name, dev.DisplayName)
	p("Volumes in bytes per lattice update (B/Lup), L1 wavefronts per 32 Lups; MAPE = mean |predicted − measured| / measured; ρ = Spearman rank correlation over the configurations.\n")
	for _, sc := range cmp {
		s := sc.Sweep
		p("\n## %s (%d configurations)\n\n", s.Name(), len(s.Rows))
		p("File `%s`", s.Path)
		for _, key := range []string{"device", "driver", "cuda", "clocks_mhz", "runtime"} {
			if v := s.Get(key); v != "" {
				p("; %s: %s", key, v)
			}
		}
		p(".\n\n| level | predicted | method | n | MAPE %% | ρ |\n|---|---|---|---:|---:|---:|\n")
		for _, a := range sc.Levels {
			p("| %s (%s) | %s | %s | %d | %s | %s |\n", a.Level.Name, a.Level.Unit, a.Predicted, a.Method, a.N, fmtStat(a.MAPE, 1), fmtStat(a.Rho, 3))
		}
		p("\n| performance | method | n | MAPE %% | ρ | predicted best | predicted GLup/s | measured GLup/s | measured rank | of measured best |\n|---|---|---:|---:|---:|---|---:|---:|---:|---:|\n")
		for _, b := range sc.Perf {
			p("| GLup/s | %s | %d | %s | %s | block %s fold %s | %s | %s | %d of %d | %s %% |\n", b.Method, b.N, fmtStat(b.MAPE, 1), fmtStat(b.Rho, 3),
				request.Triple(b.Row.Block), request.Triple(b.Row.Fold), fixed(b.PredGLups, 2), fixed(b.Row.GLups, 2), b.Best.MeasuredRank, b.N, fixed(100*b.Best.Fraction, 1))
		}
	}
}

// fmtStat formats a statistic, "–" where it is undefined.
func fmtStat(v float64, prec int) string {
	if math.IsNaN(v) {
		return "–"
	}
	return fixed(v, prec)
}

// compiledSample reads flag, --compiled-convolution or --compiled-hotspot:
// the sample N (every N-th configuration) of a report whose instruction
// mix clang compiles, and the compiler.
func compiledSample(c *ucli.Context, flag string) (*compiled.Compiler, int, error) {
	compiler := request.Compiler()
	if compiler == nil {
		return nil, 0, flagErrorf(flag, "--%s: %v", flag, compiled.ErrNoCompiler)
	}
	every := c.Int(flag)
	if every < 1 {
		return nil, 0, flagErrorf(flag, "--%s %d: expected every N-th configuration, N ≥ 1", flag, every)
	}
	return compiler, every, nil
}

// compiledSection is the report of --compiled-convolution or
// --compiled-hotspot: a section of the hardware report with the compiled
// instruction mix, under a title that says how it was made.
type compiledSection struct {
	section interface{ WriteMarkdown(io.Writer) }
	kernel  string // the Kernel Tuner kernel: convolution, hotspot
	flag    string // the flag that writes it
	file    string // its file in docs/
	every   int    // the flag's N
	// counted says how the counted section of docs/accuracy-hardware.md
	// samples the configurations.
	counted string
}

// WriteMarkdown writes the title, then the section.
func (r compiledSection) WriteMarkdown(w io.Writer) {
	fmt.Fprintf(w, "# The Kernel Tuner %s with the compiled instruction mix\n\n", r.kernel)
	fmt.Fprintf(w, "Generated by `go run . measured --hardware testdata/measured --%s %d -o docs/%s`; do not edit by hand. ", r.flag, r.every, r.file)
	fmt.Fprintf(w, "The same section with the instruction mix counted from the spec, %s, is in [accuracy-hardware.md](accuracy-hardware.md).\n", r.counted)
	r.section.WriteMarkdown(w)
}
