package accuracy

import (
	"context"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/examples"
	"github.com/polyvol/polyvol/isl"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/measured"
	"github.com/polyvol/polyvol/model"
	"github.com/polyvol/polyvol/pool"
)

// ConvolutionExample is the embedded example that states the Kernel Tuner
// convolution (a 15×15 float filter over 4096² outputs) as a spec.
const ConvolutionExample = "convolution-15x15"

// ConvolutionOutputs is the side of the convolution's square output, in
// lattice points: a launch tile that does not divide it needs bounds checks.
const ConvolutionOutputs = 4096

// ConvolutionGPU is one GPU of the Kernel Tuner convolution sweeps.
type ConvolutionGPU struct {
	Name   string // as the measurements name it
	File   string // in testdata/measured
	Device string // the device database entry it is estimated on
}

// convolutionOwnDevices selects the database entries of the four GPUs
// themselves; false estimates both NVIDIA GPUs on the A40 and both AMD GPUs
// on the RX 6900 XT, stand-ins of the same architectures.
const convolutionOwnDevices = true

func convolutionDevice(own, standIn string) string {
	if convolutionOwnDevices {
		return own
	}
	return standIn
}

// ConvolutionGPUs are the GPUs of the convolution sweeps, in report order.
var ConvolutionGPUs = []ConvolutionGPU{
	{"RTX A4000", "kernel_tuner_convolution_a4000.csv", convolutionDevice("RTX-A4000", "A40")},
	{"RTX A6000", "kernel_tuner_convolution_a6000.csv", convolutionDevice("RTX-A6000", "A40")},
	{"Radeon PRO W6600", "kernel_tuner_convolution_w6600.csv", convolutionDevice("PRO-W6600", "RX6900XT")},
	{"Radeon PRO W7800", "kernel_tuner_convolution_w7800.csv", convolutionDevice("PRO-W7800", "RX6900XT")},
}

// ConvolutionFiles lists the files ConvolutionReport reads.
func ConvolutionFiles() []string {
	var f []string
	for _, g := range ConvolutionGPUs {
		f = append(f, g.File)
	}
	return f
}

// convolutionSpec returns the spec of the convolution with the given bounds
// check, "none" or "access": the embedded example, which states none, with
// its bounds_check line set to check.
func convolutionSpec(check string) (string, error) {
	data, err := examples.Read(ConvolutionExample)
	if err != nil {
		return "", err
	}
	const line = "\nbounds_check: none\n"
	if strings.Count(string(data), line) != 1 {
		return "", fmt.Errorf("example %s: want one line %q", ConvolutionExample, strings.TrimSpace(line))
	}
	return strings.Replace(string(data), line, "\nbounds_check: "+check+"\n", 1), nil
}

// ConvolutionVariant is a kind of the configurations that read their inputs
// from global memory (use_shmem=0).
type ConvolutionVariant struct {
	// BoundsChecks: the launch tile (block × tile) does not divide the
	// output in x or y, and the kernel checks bounds on every load and store.
	BoundsChecks bool
	// ReadOnly: read_only=1, the inputs are loaded through the read-only
	// data path. The spec is the same for both.
	ReadOnly bool
}

func (v ConvolutionVariant) String() string {
	s := "no bounds checks"
	if v.BoundsChecks {
		s = "bounds checks"
	}
	if v.ReadOnly {
		return s + ", read_only=1"
	}
	return s + ", read_only=0"
}

// convolutionVariants is the order of the variants in the report.
var convolutionVariants = []ConvolutionVariant{{false, false}, {false, true}, {true, false}, {true, true}}

// ConvolutionConfig is a launch of the convolution: block size and
// per-thread tile (the fold, strided by the block size), x first.
type ConvolutionConfig struct {
	Block, Tile [2]int64
}

func (c ConvolutionConfig) String() string {
	return fmt.Sprintf("%d×%d, tile %d×%d", c.Block[0], c.Block[1], c.Tile[0], c.Tile[1])
}

// BoundsChecks reports whether the launch tile leaves a partial tile at the
// output's edge, where the measured kernel checks bounds.
func (c ConvolutionConfig) BoundsChecks() bool {
	return ConvolutionOutputs%(c.Block[0]*c.Tile[0]) != 0 || ConvolutionOutputs%(c.Block[1]*c.Tile[1]) != 0
}

// Launch returns the configuration as a launch of k: block [bx, by, 1],
// fold [tx, ty, 1], strided tiles.
func (c ConvolutionConfig) Launch(k *kernel.Kernel) kernel.Launch {
	l := k.NewLaunch([3]int64{c.Block[0], c.Block[1], 1}, [3]int64{c.Tile[0], c.Tile[1], 1})
	l.Tiling = kernel.TileStrided
	return l
}

// ConvolutionGroup holds the figures of one GPU and variant, with the
// default performance model (model.DefaultModel) and method exact.
type ConvolutionGroup struct {
	GPU, Device string
	Variant     ConvolutionVariant
	Rows        int // use_shmem=0 rows of the variant: N + Failed
	N           int // rows estimated
	Failed      int // rows whose estimate failed (Convolution.Failures says why)
	// MAPE of the predicted time (lattice points / predicted GLup/s)
	// against time_ms, percent.
	MAPE float64
	// Ratio is the median of predicted over measured time.
	Ratio float64
	// Rho is Spearman's ρ of predicted and measured time; NaN when undefined.
	Rho float64
	// Share is the measured best time over the measured time of the
	// configuration predicted fastest, in (0, 1]; of predictions tied with
	// the fastest the slowest measured counts (measured.PredictedBest).
	Share float64
	// Predicted is the configuration predicted fastest, Best the measured
	// fastest, with their measured times in ms.
	Predicted, Best     ConvolutionConfig
	PredictedMs, BestMs float64
}

// ConvolutionGPUStat counts one GPU's rows and the work of estimating them.
type ConvolutionGPUStat struct {
	GPU, Device string
	Rows        int // all rows of the file
	Staged      int // use_shmem=1 rows: the input tile staged in shared memory, not modelled
	Direct      int // use_shmem=0 rows
	Sampled     int // the use_shmem=0 rows of the launches estimated, the groups' rows
	Launches    int // distinct launches estimated (read_only=0 and 1 share one)
	Failed      int // launches whose estimate failed
	// Elapsed is the wall time of the GPU's estimates.
	Elapsed time.Duration
}

// Convolution holds the comparison of the Kernel Tuner convolution sweeps
// with polyvol's predictions.
type Convolution struct {
	// Every is the sample: every Every-th distinct launch of each file.
	Every  int
	GPUs   []ConvolutionGPUStat
	Groups []ConvolutionGroup
	// Failures lists each launch whose estimate failed, with the error.
	Failures []string
}

// convolutionRow is one use_shmem=0 row of a sweep.
type convolutionRow struct {
	cfg      ConvolutionConfig
	readOnly bool
	ms       float64
}

// readConvolution reads the rows of one sweep: the use_shmem=0 rows, and
// the count of the others.
func readConvolution(path string) (rows []convolutionRow, all, staged int, err error) {
	t, err := ReadTable(path)
	if err != nil {
		return nil, 0, 0, err
	}
	for i := range t.Rows {
		var v [7]float64
		for j, c := range []string{"block_size_x", "block_size_y", "tile_size_x", "tile_size_y", "read_only", "use_shmem", "time_ms"} {
			if v[j], err = t.Num(i, c); err != nil {
				return nil, 0, 0, err
			}
		}
		if v[5] != 0 {
			staged++
			continue
		}
		if v[6] <= 0 || math.IsInf(v[6], 0) {
			return nil, 0, 0, fmt.Errorf("%s: row %d: time_ms %g is not a positive time", path, i+1, v[6])
		}
		rows = append(rows, convolutionRow{
			cfg:      ConvolutionConfig{Block: [2]int64{int64(v[0]), int64(v[1])}, Tile: [2]int64{int64(v[2]), int64(v[3])}},
			readOnly: v[4] != 0,
			ms:       v[6],
		})
	}
	return rows, len(t.Rows), staged, nil
}

// ConvolutionReport estimates the use_shmem=0 configurations of the Kernel
// Tuner convolution sweeps in dir (ConvolutionFiles) on the device of its
// GPU (ConvolutionGPUs), with method exact and the default performance
// model, and compares the predicted times with the measured ones per GPU
// and variant. It takes every every-th distinct launch of a file in file
// order (1: all; tests take a sample) and the rows of those launches. A
// configuration whose estimate fails is counted in its group and listed in
// Failures; progress receives what is being estimated and how long each
// GPU took.
func ConvolutionReport(dir string, every int, progress io.Writer) (*Convolution, error) {
	if every < 1 {
		return nil, fmt.Errorf("accuracy: convolution sample: every %d-th launch; want at least 1", every)
	}
	kernels, err := convolutionKernels()
	if err != nil {
		return nil, err
	}
	c := &Convolution{Every: every}
	for _, g := range ConvolutionGPUs {
		if err := c.gpu(dir, g, kernels, progress); err != nil {
			return nil, err
		}
	}
	return c, nil
}

func (c *Convolution) gpu(dir string, g ConvolutionGPU, kernels map[bool]*kernel.Kernel, progress io.Writer) error {
	rows, all, staged, err := readConvolution(filepath.Join(dir, g.File))
	if err != nil {
		return err
	}
	dev, err := device.Lookup(g.Device)
	if err != nil {
		return err
	}
	direct := len(rows)
	var launches []ConvolutionConfig
	index := map[ConvolutionConfig]int{}
	seen := map[ConvolutionConfig]bool{}
	for _, r := range rows {
		if seen[r.cfg] {
			continue
		}
		if len(seen)%c.Every == 0 {
			index[r.cfg] = len(launches)
			launches = append(launches, r.cfg)
		}
		seen[r.cfg] = true
	}
	kept := rows[:0:0]
	for _, r := range rows {
		if _, ok := index[r.cfg]; ok {
			kept = append(kept, r)
		}
	}
	rows = kept
	fmt.Fprintf(progress, "estimating %d launches of %s on %s\n", len(launches), g.File, g.Device)
	start := time.Now()
	reports, errs, err := estimateConvolution(launches, kernels, dev)
	if err != nil {
		return err
	}
	glups := make([]float64, len(launches))
	for i, r := range reports {
		if r != nil {
			glups[i] = r.Prediction.GLups
		}
	}
	st := ConvolutionGPUStat{GPU: g.Name, Device: g.Device, Rows: all, Staged: staged, Direct: direct, Sampled: len(rows), Launches: len(launches), Elapsed: time.Since(start)}
	for i, e := range errs {
		if e != nil {
			st.Failed++
			c.Failures = append(c.Failures, fmt.Sprintf("%s on %s, block %s: %v", g.Name, g.Device, launches[i], e))
		}
	}
	fmt.Fprintf(progress, "%s: %d launches in %.1f s, %d failed\n", g.File, len(launches), st.Elapsed.Seconds(), st.Failed)
	c.GPUs = append(c.GPUs, st)

	lups := float64(kernels[false].Lups())
	for _, v := range convolutionVariants {
		grp := ConvolutionGroup{GPU: g.Name, Device: g.Device, Variant: v}
		var pred, meas, predGLups, measRate []float64
		var cfgs []ConvolutionConfig
		for _, r := range rows {
			if r.cfg.BoundsChecks() != v.BoundsChecks || r.readOnly != v.ReadOnly {
				continue
			}
			grp.Rows++
			i := index[r.cfg]
			if errs[i] != nil {
				grp.Failed++
				continue
			}
			pred = append(pred, lups/(glups[i]*1e9)*1e3)
			meas = append(meas, r.ms)
			predGLups = append(predGLups, glups[i])
			measRate = append(measRate, 1/r.ms)
			cfgs = append(cfgs, r.cfg)
		}
		grp.N = len(pred)
		grp.MAPE, grp.Rho, grp.Ratio, grp.Share = math.NaN(), math.NaN(), math.NaN(), math.NaN()
		if grp.N > 0 {
			grp.MAPE = measured.MAPE(pred, meas)
			grp.Rho = measured.Spearman(pred, meas)
			ratios := make([]float64, grp.N)
			for i := range pred {
				ratios[i] = pred[i] / meas[i]
			}
			grp.Ratio = median(ratios)
			best := measured.PredictedBest(predGLups, measRate)
			grp.Share = best.Fraction
			grp.Predicted, grp.PredictedMs = cfgs[best.Index], meas[best.Index]
			b := 0
			for i := range meas {
				if meas[i] < meas[b] {
					b = i
				}
			}
			grp.Best, grp.BestMs = cfgs[b], meas[b]
		}
		c.Groups = append(c.Groups, grp)
	}
	return nil
}

// estimateConvolution estimates each launch on dev with the kernel of its
// bounds checks, method exact and the default model, in parallel. A launch
// whose estimate fails, or predicts no positive rate, has a nil report and
// its error in errs; err is for the pool's own failures.
func estimateConvolution(launches []ConvolutionConfig, kernels map[bool]*kernel.Kernel, dev *device.Device) (reports []*model.Report, errs []error, err error) {
	reports = make([]*model.Report, len(launches))
	errs = make([]error, len(launches))
	err = pool.Run(context.Background(), len(launches), pool.Options{
		NewCtx: func() (*isl.Ctx, error) { return isl.NewCtx(isl.WithMaxOperations(model.DefaultMaxOperations)) },
	}, func(ctx *isl.Ctx, i int) error {
		cfg := launches[i]
		k := kernels[cfg.BoundsChecks()]
		r, err := model.Estimate(k, cfg.Launch(k), dev, model.Options{Method: model.MethodExact, Model: model.DefaultModel, Ctx: ctx})
		if err == nil && !(r.Prediction.GLups > 0) {
			err = fmt.Errorf("predicted %g GLup/s", r.Prediction.GLups)
		}
		if err != nil { // counted, not fatal: each job writes its own entry
			errs[i] = err
			return nil
		}
		reports[i] = r
		return nil
	})
	return reports, errs, err
}

// convolutionKernels parses the convolution's spec without bounds checks
// (false) and with a check on every access (true).
func convolutionKernels() (map[bool]*kernel.Kernel, error) {
	kernels := map[bool]*kernel.Kernel{}
	for _, checks := range []bool{false, true} {
		check := "none"
		if checks {
			check = "access"
		}
		spec, err := convolutionSpec(check)
		if err != nil {
			return nil, err
		}
		if kernels[checks], err = kernel.Parse([]byte(spec), ConvolutionExample+".yaml"); err != nil {
			return nil, err
		}
	}
	return kernels, nil
}

// median returns the median of v (the mean of the middle two for an even
// count); v is reordered.
func median(v []float64) float64 {
	sort.Float64s(v)
	n := len(v)
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}

// WriteMarkdown renders c as the convolution section of
// docs/accuracy-hardware.md.
func (c *Convolution) WriteMarkdown(w io.Writer) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	p("\n## Convolution (Kernel Tuner, four GPUs)\n\n")
	p("Kernel Tuner's times of a 15×15 single-precision convolution (4096² outputs from a 4110² input, the filter in constant memory) over every block size, per-thread tile and `read_only` setting, ")
	p("measured by others on four GPUs (%s), against the times polyvol predicts for the spec `examples/%s.yaml` ", strings.Join(ConvolutionFiles(), ", "), ConvolutionExample)
	p("with method exact and the default performance model (%s). ", model.DefaultModel)
	p("A thread computes a tile of outputs strided by the block size: block (bsx, bsy, 1), fold (tsx, tsy, 1), strided tiling. ")
	p("The predicted time is 4096² / (predicted GLup/s · 10⁹). ")
	if c.Every > 1 {
		p("This report takes every %d-th distinct launch of each file, and the rows of those launches. ", c.Every)
	}
	p("The configurations that stage the input tile in shared memory (use_shmem=1) need a model of the staging copy that polyvol does not have: they are not modelled, only counted.\n\n")
	p("The rows are split by variant: where bsx·tsx or bsy·tsy does not divide 4096 the measured kernel checks bounds on every load and store, ")
	p("which the spec states (`bounds_check: access`, otherwise `none`) and the model costs in instruction issue")
	p("; read_only=1 loads the input through the read-only data path, the same spec as read_only=0. ")
	p("MAPE: of the predicted against the measured time; pred/meas: the median ratio of the two; ρ: Spearman's rank correlation of predicted and measured time; ")
	p("share: the measured best time over the measured time of the configuration predicted fastest (of tied predictions the slowest measured counts).\n\n")
	p("| GPU | device | rows | not modelled (use_shmem=1) | use_shmem=0 | launches estimated | failed |\n|---|---|---:|---:|---:|---:|---:|\n")
	for _, g := range c.GPUs {
		p("| %s | %s | %d | %d | %d | %d | %d |\n", g.GPU, g.Device, g.Rows, g.Staged, g.Direct, g.Launches, g.Failed)
	}
	p("\n| GPU | variant | n | failed | time MAPE %% | pred/meas | ρ | share of best %% | predicted fastest (measured ms) | measured fastest (ms) |\n|---|---|---:|---:|---:|---:|---:|---:|---|---|\n")
	for _, g := range c.Groups {
		p("| %s | %s | %d | %d | %s | %s | %s | %s | %s (%s) | %s (%s) |\n", g.GPU, g.Variant, g.N, g.Failed,
			fmtNum(g.MAPE, 1), fmtNum(g.Ratio, 2), fmtNum(g.Rho, 3), fmtNum(100*g.Share, 1),
			g.Predicted, fmtNum(g.PredictedMs, 3), g.Best, fmtNum(g.BestMs, 3))
	}
	if len(c.Failures) > 0 {
		p("\nLaunches whose estimate failed:\n\n")
		for _, f := range slices.Sorted(slices.Values(c.Failures)) {
			p("- %s\n", f)
		}
	}
}
