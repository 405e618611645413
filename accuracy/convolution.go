package accuracy

import (
	"context"
	"fmt"
	"github.com/polyvol/polyvol/compiled"
	"io"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/examples"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/measured"
	"github.com/polyvol/polyvol/model"
	"github.com/polyvol/polyvol/pool"
)

// ConvolutionExample is the embedded example that states the Kernel Tuner
// convolution (a 15×15 float filter over 4096² outputs) as a spec, reading
// its input from global memory (use_shmem=0).
const ConvolutionExample = "convolution-15x15"

// ConvolutionStagedExample is the embedded example of the same convolution
// with its input tile staged in shared memory (use_shmem=1), the rows of
// the shared tile padded by the bank rule (stage pad: banks,
// use_padding=1).
const ConvolutionStagedExample = "convolution-15x15-staged"

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

// ConvolutionInput is where the measured kernel reads its input from:
// Kernel Tuner's use_shmem and use_padding.
type ConvolutionInput uint8

// The inputs of the convolution, in report order.
const (
	// InputGlobal: use_shmem=0, every thread reads its inputs from global
	// memory (ConvolutionExample).
	InputGlobal ConvolutionInput = iota
	// InputShared: use_shmem=1, use_padding=0, each block stages its input
	// tile in shared memory with unpadded rows (ConvolutionStagedExample
	// with stage pad: 0).
	InputShared
	// InputSharedPadded: use_shmem=1, use_padding=1, the shared rows padded
	// by the bank rule (ConvolutionStagedExample, stage pad: banks).
	InputSharedPadded
)

var convolutionInputNames = [...]string{"use_shmem=0", "use_shmem=1, use_padding=0", "use_shmem=1, use_padding=1"}

// String names the input by Kernel Tuner's parameters.
func (in ConvolutionInput) String() string {
	if int(in) < len(convolutionInputNames) {
		return convolutionInputNames[in]
	}
	return fmt.Sprintf("ConvolutionInput(%d)", in)
}

// Staged reports whether the input is staged in shared memory.
func (in ConvolutionInput) Staged() bool { return in != InputGlobal }

// convolutionInputs are the inputs in report order.
var convolutionInputs = []ConvolutionInput{InputGlobal, InputShared, InputSharedPadded}

// editExample returns the text of the embedded example name with each edit
// applied: the one line whose text, without its indentation, is edit[0]
// replaced by edit[1] at the same indentation. A line that the example
// does not hold exactly once is an error.
func editExample(name string, edits ...[2]string) (string, error) {
	data, err := examples.Read(name)
	if err != nil {
		return "", err
	}
	lines := strings.Split(string(data), "\n")
	for _, e := range edits {
		at := -1
		for i, l := range lines {
			if strings.TrimSpace(l) != e[0] {
				continue
			}
			if at >= 0 {
				return "", fmt.Errorf("example %s: want one line %q, found more", name, e[0])
			}
			at = i
		}
		if at < 0 {
			return "", fmt.Errorf("example %s: want one line %q, found none", name, e[0])
		}
		indent := len(lines[at]) - len(strings.TrimLeft(lines[at], " "))
		lines[at] = lines[at][:indent] + e[1]
	}
	return strings.Join(lines, "\n"), nil
}

// convolutionSpec returns the spec of the convolution with input in and
// the bounds checks of checks: the embedded example of the input
// (ConvolutionExample, or ConvolutionStagedExample where staged), which
// states no bounds checks, with its bounds_check line set to access where
// checks, and a staged spec's stage line set to the input's padding.
func convolutionSpec(in ConvolutionInput, checks bool) (string, error) {
	check := "none"
	if checks {
		check = "access"
	}
	edits := [][2]string{{"bounds_check: none", "bounds_check: " + check}}
	if !in.Staged() {
		return editExample(ConvolutionExample, edits...)
	}
	pad := "banks"
	if in == InputShared {
		pad = "0"
	}
	const stage = "stage: {copy: block, pad: banks}"
	return editExample(ConvolutionStagedExample, append(edits, [2]string{stage, strings.Replace(stage, "banks", pad, 1)})...)
}

// ConvolutionVariant is a kind of the configurations: its input, its bounds
// checks and its read_only setting.
type ConvolutionVariant struct {
	Input ConvolutionInput
	// BoundsChecks: the launch tile (block × tile) does not divide the
	// output in x or y, and the kernel checks bounds on every load and store.
	BoundsChecks bool
	// ReadOnly: read_only=1, the inputs are loaded through the read-only
	// data path. The spec is the same for both.
	ReadOnly bool
}

func (v ConvolutionVariant) String() string {
	s := v.Input.String() + ", no bounds checks"
	if v.BoundsChecks {
		s = v.Input.String() + ", bounds checks"
	}
	if v.ReadOnly {
		return s + ", read_only=1"
	}
	return s + ", read_only=0"
}

// convolutionVariants is the order of the variants in the report: input,
// then bounds checks, then read_only.
var convolutionVariants = func() []ConvolutionVariant {
	var vs []ConvolutionVariant
	for _, in := range convolutionInputs {
		for _, checks := range []bool{false, true} {
			for _, ro := range []bool{false, true} {
				vs = append(vs, ConvolutionVariant{in, checks, ro})
			}
		}
	}
	return vs
}()

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
	Rows        int // sampled rows of the variant: N + Failed
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

// setFigures sets g's figures from the predicted rates (GLup/s) and the
// measured times (ms) of its estimated rows and their configurations; lups
// is the lattice points of the convolution.
func (g *ConvolutionGroup) setFigures(glups, ms []float64, cfgs []ConvolutionConfig, lups float64) {
	g.N = len(ms)
	pred := make([]float64, g.N)
	for i := range ms {
		pred[i] = convolutionMs(lups, glups[i])
	}
	f := rankFiguresOf(pred, ms)
	g.MAPE, g.Rho, g.Ratio, g.Share = f.MAPE, f.Rho, f.Ratio, f.Share
	if g.N > 0 {
		g.Predicted, g.PredictedMs = cfgs[f.predicted], ms[f.predicted]
		g.Best, g.BestMs = cfgs[f.best], ms[f.best]
	}
}

// rankFigures compares the predicted and measured times of configurations:
// the MAPE of the predicted times (percent), Spearman's ρ, the median
// ratio of predicted to measured, and the measured best over the measured
// time of the configuration predicted fastest (measured.PredictedBest);
// predicted and best index that configuration and the one measured
// fastest. The figures are NaN for no configuration.
type rankFigures struct {
	MAPE, Rho, Ratio, Share float64
	predicted, best         int
}

// rankFiguresOf returns the rankFigures of the predicted and measured
// times pred and meas (ms) of the same configurations, in one order.
func rankFiguresOf(pred, meas []float64) rankFigures {
	f := rankFigures{MAPE: math.NaN(), Rho: math.NaN(), Ratio: math.NaN(), Share: math.NaN()}
	if len(meas) == 0 {
		return f
	}
	ratios := make([]float64, len(meas))
	predRates := make([]float64, len(meas))
	measRates := make([]float64, len(meas))
	for i := range meas {
		ratios[i], predRates[i], measRates[i] = pred[i]/meas[i], 1/pred[i], 1/meas[i]
		if meas[i] < meas[f.best] {
			f.best = i
		}
	}
	f.MAPE, f.Rho, f.Ratio = measured.MAPE(pred, meas), measured.Spearman(pred, meas), median(ratios)
	best := measured.PredictedBest(predRates, measRates)
	f.Share, f.predicted = best.Fraction, best.Index
	return f
}

// readColumns returns the numbers of row i of t in the columns cols.
func readColumns(t *Table, i int, cols ...string) ([]float64, error) {
	v := make([]float64, len(cols))
	for j, c := range cols {
		var err error
		if v[j], err = t.Num(i, c); err != nil {
			return nil, err
		}
	}
	return v, nil
}

// convolutionMs is the time in ms of lups lattice points at glups GLup/s.
func convolutionMs(lups, glups float64) float64 { return lups / (glups * 1e9) * 1e3 }

// ConvolutionPays is how well the model tells whether staging the input in
// shared memory pays, on one GPU with one padding: staging pays where the
// staged configuration's time is below the unstaged one's.
type ConvolutionPays struct {
	GPU, Device string
	Input       ConvolutionInput // the staged input: InputShared or InputSharedPadded
	// N counts the configurations (block, tile, read_only; the bounds
	// checks follow from block and tile) measured and estimated both with
	// use_shmem=0 and with Input.
	N int
	// Right is the fraction of the N where the model's answer (predicted
	// staged time below the predicted unstaged time) is the measurement's;
	// NaN for N = 0.
	Right float64
	// MeasuredPays and PredictedPays are the fractions of the N where
	// staging pays, measured and predicted; NaN for N = 0.
	MeasuredPays, PredictedPays float64
}

// The goals for the staged variants: per GPU and staged variant, Spearman's
// ρ of predicted and measured time at least stagedGoalRho and the
// configuration predicted fastest at least stagedGoalShare of the measured
// best; per GPU and padding, the model right about whether staging pays on
// at least stagingPaysGoal of the configurations.
const (
	stagedGoalRho   = 0.9
	stagedGoalShare = 0.95
	stagingPaysGoal = 0.9
)

// ConvolutionGPUStat counts one GPU's rows and the work of estimating them.
type ConvolutionGPUStat struct {
	GPU, Device string
	Rows        int // all rows of the file
	Direct      int // use_shmem=0 rows
	Staged      int // use_shmem=1 rows: the input tile staged in shared memory
	Configs     int // distinct configurations (block, tile) of the file
	Sampled     int // the rows of the configurations sampled, the groups' rows
	// Launches is the distinct launches estimated: each sampled
	// configuration with each input it was measured with (read_only=0 and
	// 1 share one).
	Launches int
	Failed   int // launches whose estimate failed
	// Elapsed is the wall time of the GPU's estimates.
	Elapsed time.Duration
}

// Convolution holds the comparison of the Kernel Tuner convolution sweeps
// with polyvol's predictions.
type Convolution struct {
	// Every is the sample: of the configurations of a file measured in
	// the same variants, every Every-th and the last (sampleConvolution).
	Every  int
	GPUs   []ConvolutionGPUStat
	Groups []ConvolutionGroup // per GPU, in the order of the variants
	Pays   []ConvolutionPays  // per GPU, InputShared then InputSharedPadded
	// Failures lists each launch whose estimate failed, with the error.
	Failures []string
	// Compiler names the compiler of the instruction mix where it was
	// compiled from ConvolutionSource; "" where it was counted.
	Compiler string

	source *compiledSource // nil: the mix is counted
}

// convolutionRow is one row of a sweep.
type convolutionRow struct {
	cfg      ConvolutionConfig
	input    ConvolutionInput
	readOnly bool
	ms       float64
}

func (r convolutionRow) variant() ConvolutionVariant {
	return ConvolutionVariant{r.input, r.cfg.BoundsChecks(), r.readOnly}
}

func (r convolutionRow) launch() convolutionLaunch { return convolutionLaunch{r.input, r.cfg} }

// convolutionLaunch is a configuration with the input it is estimated
// with: one estimate serves read_only=0 and 1.
type convolutionLaunch struct {
	input ConvolutionInput
	cfg   ConvolutionConfig
}

// readConvolution reads the rows of one sweep.
func readConvolution(path string) ([]convolutionRow, error) {
	t, err := ReadTable(path)
	if err != nil {
		return nil, err
	}
	var rows []convolutionRow
	for i := range t.Rows {
		v, err := readColumns(t, i, "block_size_x", "block_size_y", "tile_size_x", "tile_size_y", "read_only", "use_shmem", "use_padding", "time_ms")
		if err != nil {
			return nil, err
		}
		if v[7] <= 0 || math.IsInf(v[7], 0) {
			return nil, fmt.Errorf("%s: row %d: time_ms %g is not a positive time", path, i+1, v[7])
		}
		in := InputGlobal
		switch {
		case v[5] == 0 && v[6] == 0:
		case v[5] == 1 && v[6] == 0:
			in = InputShared
		case v[5] == 1 && v[6] == 1:
			in = InputSharedPadded
		default:
			return nil, fmt.Errorf("%s: row %d: use_shmem %g, use_padding %g: want 0, 0 or 1, 0 or 1, 1", path, i+1, v[5], v[6])
		}
		rows = append(rows, convolutionRow{
			cfg:      ConvolutionConfig{Block: [2]int64{int64(v[0]), int64(v[1])}, Tile: [2]int64{int64(v[2]), int64(v[3])}},
			input:    in,
			readOnly: v[4] != 0,
			ms:       v[7],
		})
	}
	return rows, nil
}

// sampleConvolution returns the configurations of rows that a report with
// sample every estimates: the configurations measured in the same set of
// variants form a class, and of each class the first and the last in file
// order are taken and every every-th between, so that a sample holds two
// configurations of every variant of the file where it has two. It also
// returns the number of distinct configurations.
func sampleConvolution(rows []convolutionRow, every int) (sample map[ConvolutionConfig]bool, configs int) {
	variants := map[ConvolutionConfig]uint64{} // bit i: convolutionVariants[i] measured
	var order []ConvolutionConfig
	for _, r := range rows {
		if _, ok := variants[r.cfg]; !ok {
			order = append(order, r.cfg)
		}
		variants[r.cfg] |= 1 << slices.Index(convolutionVariants, r.variant())
	}
	size := map[uint64]int{}
	for _, cfg := range order {
		size[variants[cfg]]++
	}
	sample = map[ConvolutionConfig]bool{}
	seen := map[uint64]int{}
	for _, cfg := range order {
		class := variants[cfg]
		if seen[class]%every == 0 || seen[class] == size[class]-1 {
			sample[cfg] = true
		}
		seen[class]++
	}
	return sample, len(order)
}

// ConvolutionReport estimates the configurations of the Kernel Tuner
// convolution sweeps in dir (ConvolutionFiles) on the device of its GPU
// (ConvolutionGPUs), with method exact and the default performance model:
// the use_shmem=0 rows with ConvolutionExample, the use_shmem=1 rows with
// ConvolutionStagedExample at their padding. It compares the predicted
// times with the measured ones per GPU and variant, and the model's answer
// to whether staging pays with the measured one per GPU and padding. It
// takes a sample of each file's configurations (sampleConvolution; every
// 1: all, tests take a sample) and the rows of those. A launch whose
// estimate fails is counted in its groups and listed in Failures; progress
// receives what is being estimated and how long each GPU took.
func ConvolutionReport(dir string, every int, compiler *compiled.Compiler, progress io.Writer) (*Convolution, error) {
	if every < 1 {
		return nil, fmt.Errorf("accuracy: convolution sample: every %d-th configuration; want at least 1", every)
	}
	kernels, err := convolutionKernels()
	if err != nil {
		return nil, err
	}
	source, err := newCompiledSource(compiler, ConvolutionSource)
	if err != nil {
		return nil, err
	}
	c := &Convolution{Every: every, Compiler: source.compilerVersion(), source: source}
	for _, g := range ConvolutionGPUs {
		if err := c.gpu(dir, g, kernels, progress); err != nil {
			return nil, err
		}
	}
	return c, nil
}

func (c *Convolution) gpu(dir string, g ConvolutionGPU, kernels map[convolutionSpecKey]*kernel.Kernel, progress io.Writer) error {
	all, err := readConvolution(filepath.Join(dir, g.File))
	if err != nil {
		return err
	}
	dev, err := device.Lookup(g.Device)
	if err != nil {
		return err
	}
	st := ConvolutionGPUStat{GPU: g.Name, Device: g.Device, Rows: len(all)}
	sample, configs := sampleConvolution(all, c.Every)
	st.Configs = configs
	var rows []convolutionRow
	var launches []convolutionLaunch
	index := map[convolutionLaunch]int{}
	for _, r := range all {
		if r.input.Staged() {
			st.Staged++
		} else {
			st.Direct++
		}
		if !sample[r.cfg] {
			continue
		}
		rows = append(rows, r)
		if _, ok := index[r.launch()]; !ok {
			index[r.launch()] = len(launches)
			launches = append(launches, r.launch())
		}
	}
	st.Sampled, st.Launches = len(rows), len(launches)
	fmt.Fprintf(progress, "estimating %d launches of %s on %s\n", len(launches), g.File, g.Device)
	start := time.Now()
	reports, errs, err := c.estimate(launches, kernels, dev)
	if err != nil {
		return err
	}
	st.Elapsed = time.Since(start)
	// glups holds the predicted rate of each launch estimated.
	glups := map[convolutionLaunch]float64{}
	for i, r := range reports {
		if errs[i] != nil {
			st.Failed++
			c.Failures = append(c.Failures, fmt.Sprintf("%s on %s, %s, block %s: %v", g.Name, g.Device, launches[i].input, launches[i].cfg, errs[i]))
			continue
		}
		glups[launches[i]] = r.Prediction.GLups
	}
	fmt.Fprintf(progress, "%s: %d launches in %.1f s, %d failed\n", g.File, len(launches), st.Elapsed.Seconds(), st.Failed)
	c.GPUs = append(c.GPUs, st)

	lups := float64(kernels[convolutionSpecKey{InputGlobal, false}].Lups())
	for _, v := range convolutionVariants {
		grp := ConvolutionGroup{GPU: g.Name, Device: g.Device, Variant: v}
		var rates, meas []float64
		var cfgs []ConvolutionConfig
		for _, r := range rows {
			if r.variant() != v {
				continue
			}
			grp.Rows++
			p, ok := glups[r.launch()]
			if !ok {
				grp.Failed++
				continue
			}
			rates, meas, cfgs = append(rates, p), append(meas, r.ms), append(cfgs, r.cfg)
		}
		grp.setFigures(rates, meas, cfgs, lups)
		c.Groups = append(c.Groups, grp)
	}
	c.Pays = append(c.Pays, stagingPays(g, rows, glups, lups)...)
	return nil
}

// stagingPays compares, per padding, the model's answer to whether staging
// pays with the measured one over the configurations of rows measured and
// estimated both without and with staging; glups holds the predicted rates
// of the launches estimated.
func stagingPays(g ConvolutionGPU, rows []convolutionRow, glups map[convolutionLaunch]float64, lups float64) []ConvolutionPays {
	type key struct {
		cfg      ConvolutionConfig
		readOnly bool
	}
	direct := map[key]float64{} // measured ms of the use_shmem=0 rows
	for _, r := range rows {
		if !r.input.Staged() {
			direct[key{r.cfg, r.readOnly}] = r.ms
		}
	}
	var out []ConvolutionPays
	for _, in := range convolutionInputs[1:] { // the staged inputs
		p := ConvolutionPays{GPU: g.Name, Device: g.Device, Input: in}
		right, measPays, predPays := 0, 0, 0
		for _, r := range rows {
			unstagedMs, ok := direct[key{r.cfg, r.readOnly}]
			if r.input != in || !ok {
				continue
			}
			staged, okS := glups[r.launch()]
			unstaged, okU := glups[convolutionLaunch{InputGlobal, r.cfg}]
			if !okS || !okU {
				continue
			}
			p.N++
			m := r.ms < unstagedMs
			pr := convolutionMs(lups, staged) < convolutionMs(lups, unstaged)
			if m == pr {
				right++
			}
			if m {
				measPays++
			}
			if pr {
				predPays++
			}
		}
		p.Right, p.MeasuredPays, p.PredictedPays = math.NaN(), math.NaN(), math.NaN()
		if p.N > 0 {
			n := float64(p.N)
			p.Right, p.MeasuredPays, p.PredictedPays = float64(right)/n, float64(measPays)/n, float64(predPays)/n
		}
		out = append(out, p)
	}
	return out
}

// estimate estimates each launch on dev with the kernel of its input and
// bounds checks, method exact and the default model, in parallel, with
// the instruction mix compiled from ConvolutionSource where the report
// has a compiler (use_shmem and use_padding as the input states, read_only
// 0), else counted. A launch whose estimate fails, or predicts no positive
// rate, has a nil report and its error in errs; err is for the pool's own
// failures.
func (c *Convolution) estimate(launches []convolutionLaunch, kernels map[convolutionSpecKey]*kernel.Kernel, dev *device.Device) (reports []*model.Report, errs []error, err error) {
	reports = make([]*model.Report, len(launches))
	errs = make([]error, len(launches))
	err = pool.Run(context.Background(), len(launches), pool.Options{}, func(i int) error {
		cfg := launches[i].cfg
		k := kernels[convolutionSpecKey{launches[i].input, cfg.BoundsChecks()}]
		r, err := model.Estimate(k, cfg.Launch(k), dev, c.source.estimateOptions(convolutionMacros(launches[i].input)...))
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

// ConvolutionSource is the file of examples.Sources that the report
// compiles for the instruction mix, where it has a compiler.
const ConvolutionSource = "sources/convolution-15x15.cu"

// convolutionMacros are the macros of the convolution's source as Kernel
// Tuner would compile it for input in: use_shmem and use_padding as in
// states, read_only 0 (the read-only path changes the kind of load, not
// their number).
func convolutionMacros(in ConvolutionInput) []compiled.Macro {
	shmem, padding := "0", "0"
	if in.Staged() {
		shmem = "1"
		if in == InputSharedPadded {
			padding = "1"
		}
	}
	return []compiled.Macro{{Name: "use_shmem", Value: shmem}, {Name: "use_padding", Value: padding}, {Name: "read_only", Value: "0"}}
}

// convolutionSpecKey selects one spec of the convolution: its input and
// its bounds checks.
type convolutionSpecKey struct {
	input  ConvolutionInput
	checks bool
}

// convolutionKernels parses the convolution's spec of every input, without
// and with a bounds check on every access (convolutionSpec).
func convolutionKernels() (map[convolutionSpecKey]*kernel.Kernel, error) {
	kernels := map[convolutionSpecKey]*kernel.Kernel{}
	for _, in := range convolutionInputs {
		for _, checks := range []bool{false, true} {
			spec, err := convolutionSpec(in, checks)
			if err != nil {
				return nil, err
			}
			name := ConvolutionExample
			if in.Staged() {
				name = ConvolutionStagedExample
			}
			k, err := kernel.Parse([]byte(spec), name+".yaml")
			if err != nil {
				return nil, err
			}
			kernels[convolutionSpecKey{in, checks}] = k
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
	if c.Compiler != "" {
		p("\n## Convolution (Kernel Tuner, four GPUs), compiled instruction mix\n\n")
	} else {
		p("\n## Convolution (Kernel Tuner, four GPUs)\n\n")
	}
	p("The yardstick is Kernel Tuner's measured time of each configuration on each GPU: a 15×15 single-precision convolution (4096² outputs from a 4110² input, the filter in constant memory) over every block size, per-thread tile, `read_only`, `use_shmem` and `use_padding` setting, ")
	p("measured by others on four GPUs (%s). polyvol predicts the times of the use_shmem=0 configurations from the spec `examples/%s.yaml` ", strings.Join(ConvolutionFiles(), ", "), ConvolutionExample)
	p("and those of the use_shmem=1 configurations, which first copy each block's (bsy·tsy + 14) × (bsx·tsx + 14) input tile into shared memory, from `examples/%s.yaml`: ", ConvolutionStagedExample)
	p("the tile copied by the block's thread box (`stage: {copy: block, …}`), its rows unpadded for use_padding=0 (`pad: 0`) and padded by the bank rule for use_padding=1 (`pad: banks`). ")
	p("Method exact and the default performance model (%s). ", model.DefaultModel)
	if c.Compiler != "" {
		p("The instruction mix of the issue bound is compiled (%s) from `examples/%s`, a kernel written for polyvol with the measured kernel's thread mapping and Kernel Tuner's macros, for each launch's block, tile, use_shmem and use_padding and each GPU's architecture; read_only=0. ", c.Compiler, ConvolutionSource)
	}
	p("A thread computes a tile of outputs strided by the block size: block (bsx, bsy, 1), fold (tsx, tsy, 1), strided tiling. ")
	p("The predicted time is 4096² / (predicted GLup/s · 10⁹).")
	if c.Every > 1 {
		p(" This report takes, of the configurations (block, tile) of each file measured in the same variants, every %d-th and the last, and the rows of those.", c.Every)
	}
	p("\n\nThe rows are split by input (use_shmem, use_padding) and variant: where bsx·tsx or bsy·tsy does not divide 4096 the measured kernel checks bounds on every load and store, ")
	p("which the spec states (`bounds_check: access`, otherwise `none`) and the model costs in instruction issue")
	p("; read_only=1 loads the input through the read-only data path, the same spec as read_only=0. ")
	p("MAPE: of the predicted against the measured time; pred/meas: the median ratio of the two; ρ: Spearman's rank correlation of predicted and measured time; ")
	p("share: the measured best time over the measured time of the configuration predicted fastest (of tied predictions the slowest measured counts).\n\n")
	p("| GPU | device | rows | use_shmem=0 | use_shmem=1 | configurations | launches estimated | failed |\n|---|---|---:|---:|---:|---:|---:|---:|\n")
	for _, g := range c.GPUs {
		p("| %s | %s | %d | %d | %d | %d | %d | %d |\n", g.GPU, g.Device, g.Rows, g.Direct, g.Staged, g.Configs, g.Launches, g.Failed)
	}
	for _, in := range convolutionInputs {
		p("\n%s:\n\n", in)
		p("| GPU | variant | n | failed | time MAPE %% | pred/meas | ρ | share of best %% | predicted fastest (measured ms) | measured fastest (ms) |")
		if in.Staged() {
			p(" ρ ≥ %g | share ≥ %g %% |\n|---|---|---:|---:|---:|---:|---:|---:|---|---|---|---|\n", stagedGoalRho, 100*stagedGoalShare)
		} else {
			p("\n|---|---|---:|---:|---:|---:|---:|---:|---|---|\n")
		}
		for _, g := range c.Groups {
			if g.Variant.Input != in {
				continue
			}
			p("| %s | %s | %d | %d | %s | %s | %s | %s | %s (%s) | %s (%s) |", g.GPU, g.Variant, g.N, g.Failed,
				fmtNum(g.MAPE, 1), fmtNum(g.Ratio, 2), fmtNum(g.Rho, 3), fmtNum(100*g.Share, 1),
				g.Predicted, fmtNum(g.PredictedMs, 3), g.Best, fmtNum(g.BestMs, 3))
			if in.Staged() {
				p(" %s | %s |", met(g.Rho >= stagedGoalRho), met(g.Share >= stagedGoalShare))
			}
			p("\n")
		}
	}
	p("\nDoes staging pay? For each configuration (block, tile, read_only; the bounds checks follow from block and tile) measured both with use_shmem=0 and with use_shmem=1 at a padding, ")
	p("the model says staging pays where the predicted staged time is below the predicted unstaged one, the measurement where the measured staged time is below the measured unstaged one. ")
	p("Right: the share of the configurations where the two answers agree; the goal is %g %%.\n\n", 100*stagingPaysGoal)
	p("| GPU | staged input | n | right %% | measured: staging pays %% | predicted: staging pays %% | right ≥ %g %% |\n|---|---|---:|---:|---:|---:|---|\n", 100*stagingPaysGoal)
	for _, s := range c.Pays {
		p("| %s | %s | %d | %s | %s | %s | %s |\n", s.GPU, s.Input, s.N, fmtNum(100*s.Right, 1), fmtNum(100*s.MeasuredPays, 1), fmtNum(100*s.PredictedPays, 1), met(s.Right >= stagingPaysGoal))
	}
	rho, share, staged := 0, 0, 0
	for _, g := range c.Groups {
		if g.Variant.Input.Staged() {
			staged++
			rho += count(g.Rho >= stagedGoalRho)
			share += count(g.Share >= stagedGoalShare)
		}
	}
	pays := 0
	for _, s := range c.Pays {
		pays += count(s.Right >= stagingPaysGoal)
	}
	p("\nGoals for the staged configurations (use_shmem=1), against Kernel Tuner's measured times on each GPU: ")
	p("Spearman ρ ≥ %g, met in %d of %d staged groups (GPU × variant); the configuration predicted fastest ≥ %g %% of the measured best, met in %d of %d; ", stagedGoalRho, rho, staged, 100*stagedGoalShare, share, staged)
	p("staging pays told right on ≥ %g %% of the configurations, met in %d of %d (GPU × padding).\n", 100*stagingPaysGoal, pays, len(c.Pays))
	if len(c.Failures) > 0 {
		p("\nLaunches whose estimate failed:\n\n")
		for _, f := range slices.Sorted(slices.Values(c.Failures)) {
			p("- %s\n", f)
		}
	}
}

// met is "yes" where a goal is met, "no" where not (a NaN figure meets
// none).
func met(ok bool) string {
	if ok {
		return "yes"
	}
	return "no"
}

// count is 1 where ok, 0 elsewhere.
func count(ok bool) int {
	if ok {
		return 1
	}
	return 0
}
