package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/polyvol/polyvol/accuracy"
	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/measured"
	"github.com/polyvol/polyvol/model"
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
	files := append(slices.Clone(accuracy.HardwareFiles), accuracy.ConvolutionFiles()...)
	for _, f := range files {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			return flagErrorf("hardware", "--hardware: %v (DIR must hold %s)", err, strings.Join(files, ", "))
		}
	}
	h, err := accuracy.HardwareReport(dir, 1, c.App.ErrWriter)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return flagErrorf("hardware", "--hardware: %v (DIR must hold %s)", err, strings.Join(files, ", "))
		}
		return err
	}
	var b strings.Builder
	h.WriteMarkdown(&b)
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

// levelAccuracy is the accuracy of one method at one level over a sweep.
type levelAccuracy struct {
	Level  measured.Level
	Method string
	N      int     // configurations with a measured value
	MAPE   float64 // percent
	Rho    float64 // Spearman ρ of predicted and measured values
}

// bestAccuracy is how one method ranks the configurations of a sweep by
// performance.
type bestAccuracy struct {
	Method    string
	N         int
	Rho       float64 // Spearman ρ of predicted and measured GLup/s
	MAPE      float64 // percent, predicted against measured GLup/s
	Best      measured.Best
	Row       measured.Row // the configuration predicted fastest
	PredGLups float64
}

// sweepComparison holds the accuracy of every method on one sweep.
type sweepComparison struct {
	Sweep  *measured.Sweep
	Levels []levelAccuracy // level-major, then method
	Perf   []bestAccuracy  // per method
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
			k, err := kernelAt(k, r.Domain)
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
// on dev and compares the predictions with the measurements. Every row is
// checked (prepareMeasured) before the first estimate; the estimates' progress
// goes to the command's error writer as a progress bar, on a terminal only.
func compareMeasured(c *ucli.Context, sweeps []*measured.Sweep, dev *device.Device, methods []model.Method) ([]sweepComparison, error) {
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
	var out []sweepComparison
	for si, s := range sweeps {
		if len(s.Rows) == 0 {
			continue
		}
		// derived[m][i] is the estimate of method m for row i.
		derived := make([][]*model.Report, len(methods))
		for mi, m := range methods {
			for i, r := range s.Rows {
				run := runs[si][i]
				rep, err := model.Estimate(run.k, run.l, dev, model.Options{Method: m})
				if err != nil {
					return nil, fmt.Errorf("%s:%d: %w", s.Path, r.Line, estimateError(run.l, err))
				}
				derived[mi] = append(derived[mi], rep)
				bar.add()
			}
		}
		sc := sweepComparison{Sweep: s}
		for _, lv := range measured.Levels {
			for mi, m := range methods {
				var pred, meas []float64
				for i, r := range s.Rows {
					if v, ok := r.PerLup(lv); ok {
						meas = append(meas, v)
						pred = append(pred, predictedLevel(lv, derived[mi][i].Derived))
					}
				}
				sc.Levels = append(sc.Levels, levelAccuracy{lv, m.Name, len(meas), measured.MAPE(pred, meas), measured.Spearman(pred, meas)})
			}
		}
		for mi, m := range methods {
			var pred, meas []float64
			for i, r := range s.Rows {
				pred = append(pred, derived[mi][i].Prediction.GLups)
				meas = append(meas, r.GLups)
			}
			b := measured.PredictedBest(pred, meas)
			sc.Perf = append(sc.Perf, bestAccuracy{m.Name, len(meas), measured.Spearman(pred, meas), measured.MAPE(pred, meas), b, s.Rows[b.Index], pred[b.Index]})
		}
		out = append(out, sc)
	}
	return out, nil
}

// predictedLevel is the model's value for a measured level: the final
// variant of each volume (capacity misses included) and the L1 data-pipe
// cycles per 32 Lups, the scale of l1tex__data_pipe_lsu_wavefronts.
func predictedLevel(l measured.Level, d model.Derived) float64 {
	switch l.Counter {
	case measured.CounterL2Read:
		return d.L2LoadV2
	case measured.CounterL2Write:
		return d.L2Store
	case measured.CounterDRAMRead:
		return d.MemLoadV4
	case measured.CounterDRAMWrite:
		return d.MemStoreV2
	case measured.CounterWavefronts:
		return 32 * d.L1DataPipeCyclesPerLup
	case measured.CounterL1Sectors:
		return d.L1Load
	}
	return math.NaN() // a level without a model counterpart shows as undefined
}

// predictedNames names the model quantity of each level in the report.
var predictedNames = map[string]string{
	measured.CounterL2Read:     "L2LoadV2",
	measured.CounterL2Write:    "L2Store",
	measured.CounterDRAMRead:   "memLoadV4",
	measured.CounterDRAMWrite:  "memStoreV2",
	measured.CounterWavefronts: "32·L1DataPipeCycles",
	measured.CounterL1Sectors:  "L1Load",
}

// kernelAt returns k for the measured domain d by the rule of the --domain
// flag (applyDomain), the rule `polyvol cuda` used when the program was
// generated: extents equal to the spec's domain follow d.
func kernelAt(k *kernel.Kernel, d [3]int64) (*kernel.Kernel, error) {
	set := flag.NewFlagSet("measured", flag.ContinueOnError)
	set.String("domain", "", "")
	if err := set.Set("domain", triple(d)); err != nil {
		return nil, err
	}
	return applyDomain(ucli.NewContext(nil, set, nil), k)
}

// writeMeasuredReport renders the comparison as markdown.
func writeMeasuredReport(w io.Writer, dir string, dev *device.Device, cmp []sweepComparison) {
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
			p("| %s (%s) | %s | %s | %d | %s | %s |\n", a.Level.Name, a.Level.Unit, predictedNames[a.Level.Counter], a.Method, a.N, fmtStat(a.MAPE, 1), fmtStat(a.Rho, 3))
		}
		p("\n| performance | method | n | MAPE %% | ρ | predicted best | predicted GLup/s | measured GLup/s | measured rank | of measured best |\n|---|---|---:|---:|---:|---|---:|---:|---:|---:|\n")
		for _, b := range sc.Perf {
			p("| GLup/s | %s | %d | %s | %s | block %s fold %s | %s | %s | %d of %d | %s %% |\n", b.Method, b.N, fmtStat(b.MAPE, 1), fmtStat(b.Rho, 3),
				triple(b.Row.Block), triple(b.Row.Fold), fixed(b.PredGLups, 2), fixed(b.Row.GLups, 2), b.Best.MeasuredRank, b.N, fixed(100*b.Best.Fraction, 1))
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
