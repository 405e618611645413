package accuracy

import (
	"context"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/polyvol/polyvol/compiled"
	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/explore"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/model"
	"github.com/polyvol/polyvol/pool"
)

// HotspotExample is the embedded example that states Rodinia's hotspot as
// Kernel Tuner tunes it, with power read from global memory at every step
// (sh_power=0); the sh_power=1 rows stage power too (hotspotSpec).
const HotspotExample = "hotspot"

// HotspotSweep is one Kernel Tuner sweep of the hotspot in
// testdata/measured: its file, the device database entry it is estimated
// on, the side of its square grid and the sample HardwareReport takes
// (every Every-th group (block, tile, sh_power), with all its rows).
type HotspotSweep struct {
	File, Device string
	// Title names the device and the conditions of the measurement.
	Title string
	Grid  int64
	Every int
}

// HotspotSweeps are the hotspot sweeps of HardwareReport: the RTX A4000's
// full sweep (every tenth group, a few CPU minutes), and the two sweeps of
// blocks 1 × 32 only, whole: the Radeon PRO W7800's partial one and the
// RTX A4000's at 8192² with the clock locked at 1560 MHz, which is the
// device entry's clock_ghz.
var HotspotSweeps = []HotspotSweep{
	{File: "kernel_tuner_hotspot_a4000.csv", Device: "RTX-A4000", Title: "RTX A4000, 4096², clock not locked", Grid: 4096, Every: 10},
	{File: "kernel_tuner_hotspot_w7800_partial.csv", Device: "PRO-W7800", Title: "Radeon PRO W7800, 4096², blocks 1 × 32 only", Grid: 4096, Every: 1},
	{File: "kernel_tuner_hotspot_a4000_8192_clock1560.csv", Device: "RTX-A4000", Title: "RTX A4000, 8192², clock locked at 1560 MHz, blocks 1 × 32 only", Grid: 8192, Every: 1},
}

// HotspotFiles returns the files of HotspotSweeps.
func HotspotFiles() []string {
	var files []string
	for _, s := range HotspotSweeps {
		files = append(files, s.File)
	}
	return files
}

// hotspotWorth is the tolerance of the time-steps decision: the predicted
// best T is right where its measured time per step is within this share
// of the measured best T's.
const hotspotWorth = 0.05

// HotspotConfig is a launch of the hotspot: block, per-thread tile (the
// fold, strided by the block), time steps per launch, and whether power is
// staged (sh_power=1).
type HotspotConfig struct {
	Block, Tile [2]int64
	Steps       int64
	ShPower     bool
}

func (c HotspotConfig) String() string {
	return fmt.Sprintf("%d×%d, tile %d×%d, T %d", c.Block[0], c.Block[1], c.Tile[0], c.Tile[1], c.Steps)
}

// group is the configuration without its time steps.
func (c HotspotConfig) group() HotspotConfig { c.Steps = 0; return c }

// Launch returns the configuration as a launch of k: block [bx, by, 1],
// fold [tx, ty, 1], strided tiles, Steps time steps.
func (c HotspotConfig) Launch(k *kernel.Kernel) kernel.Launch {
	l := k.NewLaunch([3]int64{c.Block[0], c.Block[1], 1}, [3]int64{c.Tile[0], c.Tile[1], 1})
	l.Tiling, l.Steps = kernel.TileStrided, c.Steps
	return l
}

// hotspotRow is one measured configuration: time per step in ms (the
// launch's time_ms over its steps). Rows that differ only in
// loop_unroll_factor_t and blocks_per_sm, which the spec does not state,
// share one estimate.
type hotspotRow struct {
	cfg       HotspotConfig
	msPerStep float64
}

// HotspotGroup holds the figures of one set of rows: sh_power and the
// time steps they have.
type HotspotGroup struct {
	ShPower bool
	Steps   string // "T = 1", "T > 1" or "all T"
	N       int    // rows estimated
	Failed  int    // rows whose estimate failed
	// MAPE of the predicted time per step against the measured one,
	// percent; Rho Spearman's ρ of the two; Share the measured best time
	// over the measured time of the configuration predicted fastest.
	MAPE, Ratio, Rho, Share float64
	Predicted, Best         HotspotConfig
	PredictedMs, BestMs     float64
}

// HotspotSteps is the time-steps decision over the groups of one sh_power:
// for each block and tile measured at two or more T, whether the T
// predicted fastest is the measured fastest or within hotspotWorth of it.
type HotspotSteps struct {
	ShPower bool
	N       int     // groups
	Right   float64 // share of the groups decided right
	// MeasuredT1 and PredictedT1 are the shares of the groups whose best
	// T is 1, measured and predicted.
	MeasuredT1, PredictedT1 float64
}

// Hotspot holds the comparison of the Kernel Tuner hotspot sweep with
// polyvol's predictions.
type Hotspot struct {
	// Sweep is the file and device; its Every the sample: every Every-th
	// group (block, tile, sh_power) of the file in file order, with all
	// its rows.
	Sweep          HotspotSweep
	Rows, Launches int
	Groups         []HotspotGroup
	Steps          []HotspotSteps
	Failures       []string
	// Compiler names the compiler of the instruction mix where it was
	// compiled from HotspotSource; "" where it was counted.
	Compiler         string
	lupsPerStep      float64
	predicted, meas  map[HotspotConfig]float64 // ms per step: predicted per launch, measured best per launch
	sampledLaunches  []HotspotConfig
	measuredByLaunch map[HotspotConfig][]float64
}

// readHotspot reads the rows of the sweep.
func readHotspot(path string) ([]hotspotRow, error) {
	t, err := ReadTable(path)
	if err != nil {
		return nil, err
	}
	var rows []hotspotRow
	for i := range t.Rows {
		v, err := readColumns(t, i, "block_size_x", "block_size_y", "tile_size_x", "tile_size_y", "temporal_tiling_factor", "sh_power", "time_ms")
		if err != nil {
			return nil, err
		}
		if !(v[6] > 0) || math.IsInf(v[6], 0) || v[4] < 1 || v[5] != 0 && v[5] != 1 {
			return nil, fmt.Errorf("%s: row %d: time_ms %g, temporal_tiling_factor %g, sh_power %g: want a positive time, T ≥ 1, sh_power 0 or 1", path, i+1, v[6], v[4], v[5])
		}
		rows = append(rows, hotspotRow{
			cfg:       HotspotConfig{Block: [2]int64{int64(v[0]), int64(v[1])}, Tile: [2]int64{int64(v[2]), int64(v[3])}, Steps: int64(v[4]), ShPower: v[5] == 1},
			msPerStep: v[6] / v[4],
		})
	}
	return rows, nil
}

// hotspotSpec returns the hotspot's spec on a grid² domain (inputs of
// (grid+20)² with the halo of 10 on each side): the example, with power
// staged (copied with the window, sh_power=1) where shPower.
func hotspotSpec(shPower bool, grid int64) (string, error) {
	var edits [][2]string
	if shPower {
		edits = append(edits, [2]string{"load: [[x, y]]", "stage: {copy: block}\n    load: [[x, y]]"})
	}
	spec, err := editExample(HotspotExample, edits...)
	if err != nil || grid == 4096 {
		return spec, err
	}
	in := grid + 20
	return strings.NewReplacer("4116", fmt.Sprint(in), "41170", fmt.Sprint(10*in+10), "4096", fmt.Sprint(grid)).Replace(spec), nil
}

// HotspotReport estimates the configurations of the Kernel Tuner hotspot
// sweep s in dir on s.Device with method exact and the default performance
// model, every s.Every-th group (block, tile, sh_power) with all its rows,
// and compares the predicted times per step with the measured ones per
// sh_power, with and without T > 1, and the predicted best T of each group
// with the measured one. Where compiler is not nil the instruction mix is
// compiled from HotspotSource (hotspotMacros), else counted.
func HotspotReport(dir string, s HotspotSweep, compiler *compiled.Compiler, progress io.Writer) (*Hotspot, error) {
	if s.Every < 1 {
		return nil, fmt.Errorf("accuracy: hotspot sample: every %d-th group; want at least 1", s.Every)
	}
	source, err := newCompiledSource(compiler, HotspotSource)
	if err != nil {
		return nil, err
	}
	rows, err := readHotspot(filepath.Join(dir, s.File))
	if err != nil {
		return nil, err
	}
	dev, err := device.Lookup(s.Device)
	if err != nil {
		return nil, err
	}
	kernels := map[bool]*kernel.Kernel{}
	for _, sh := range []bool{false, true} {
		spec, err := hotspotSpec(sh, s.Grid)
		if err != nil {
			return nil, err
		}
		if kernels[sh], err = kernel.Parse([]byte(spec), HotspotExample+".yaml"); err != nil {
			return nil, err
		}
	}
	h := &Hotspot{Sweep: s, Rows: len(rows), lupsPerStep: float64(kernels[false].Lups()), Compiler: source.compilerVersion(),
		predicted: map[HotspotConfig]float64{}, meas: map[HotspotConfig]float64{}, measuredByLaunch: map[HotspotConfig][]float64{}}
	groupIndex := map[HotspotConfig]int{}
	for _, r := range rows {
		g := r.cfg.group()
		if _, ok := groupIndex[g]; !ok {
			groupIndex[g] = len(groupIndex)
		}
		if groupIndex[g]%s.Every != 0 {
			continue
		}
		if _, ok := h.measuredByLaunch[r.cfg]; !ok {
			h.sampledLaunches = append(h.sampledLaunches, r.cfg)
		}
		h.measuredByLaunch[r.cfg] = append(h.measuredByLaunch[r.cfg], r.msPerStep)
	}
	h.Launches = len(h.sampledLaunches)
	fmt.Fprintf(progress, "estimating %d launches of %s on %s\n", h.Launches, s.File, s.Device)
	glups := make([]float64, h.Launches)
	errs := make([]error, h.Launches)
	err = pool.Run(context.Background(), h.Launches, pool.Options{}, func(i int) error {
		cfg := h.sampledLaunches[i]
		k := kernels[cfg.ShPower]
		r, err := model.Estimate(k, cfg.Launch(k), dev, source.estimateOptions(hotspotMacros(cfg, s.Grid)...))
		if err == nil && !(r.Prediction.GLups > 0) {
			err = fmt.Errorf("predicted %g GLup/s", r.Prediction.GLups)
		}
		if err != nil { // counted, not fatal: each job writes its own entry
			errs[i] = err
			return nil
		}
		glups[i] = r.Prediction.GLups
		return nil
	})
	if err != nil {
		return nil, err
	}
	for i, cfg := range h.sampledLaunches {
		h.meas[cfg] = slices.Min(h.measuredByLaunch[cfg])
		if errs[i] != nil {
			h.Failures = append(h.Failures, fmt.Sprintf("sh_power=%d, block %s: %v", count(cfg.ShPower), cfg, errs[i]))
			continue
		}
		h.predicted[cfg] = convolutionMs(h.lupsPerStep, glups[i])
	}
	for _, sh := range []bool{false, true} {
		for _, steps := range []string{"T = 1", "T > 1", "all T"} {
			h.Groups = append(h.Groups, h.group(sh, steps))
		}
		h.Steps = append(h.Steps, h.stepsDecision(sh))
	}
	return h, nil
}

// HotspotSource is the file of examples.Sources that a hotspot report
// with a compiler compiles for the instruction mix.
const HotspotSource = "sources/hotspot.cu"

// hotspotMacros are the macros of HotspotSource for cfg on a grid² grid
// beside the launch's (block, tile and T): sh_power as cfg states, the
// time loop unrolled whole (loop_unroll_factor_t = T: in a loop kept,
// every step would count the guarded points of the body's first steps'
// wider windows) and no minimum of blocks per SM, the parameters that the
// rows sharing cfg's estimate differ in.
func hotspotMacros(cfg HotspotConfig, grid int64) []compiled.Macro {
	return []compiled.Macro{{Name: "sh_power", Value: fmt.Sprint(count(cfg.ShPower))}, {Name: "loop_unroll_factor_t", Value: fmt.Sprint(cfg.Steps)},
		{Name: "blocks_per_sm", Value: "0"}, {Name: "grid_size", Value: fmt.Sprint(grid)}}
}

// group returns the figures of the sampled rows of sh_power sh and the
// steps selection.
func (h *Hotspot) group(sh bool, steps string) HotspotGroup {
	g := HotspotGroup{ShPower: sh, Steps: steps}
	var pred, meas []float64
	var cfgs []HotspotConfig
	for _, cfg := range h.sampledLaunches {
		if cfg.ShPower != sh || steps == "T = 1" && cfg.Steps != 1 || steps == "T > 1" && cfg.Steps == 1 {
			continue
		}
		p, ok := h.predicted[cfg]
		for _, m := range h.measuredByLaunch[cfg] {
			if !ok {
				g.Failed++
				continue
			}
			pred, meas, cfgs = append(pred, p), append(meas, m), append(cfgs, cfg)
		}
	}
	g.N = len(meas)
	f := rankFiguresOf(pred, meas)
	g.MAPE, g.Rho, g.Ratio, g.Share = f.MAPE, f.Rho, f.Ratio, f.Share
	if g.N > 0 {
		g.Predicted, g.PredictedMs = cfgs[f.predicted], meas[f.predicted]
		g.Best, g.BestMs = cfgs[f.best], meas[f.best]
	}
	return g
}

// stepsDecision compares, for each sampled block and tile of sh_power sh
// measured at two or more T, the T predicted fastest with the measured
// fastest (the best measured time of each launch).
func (h *Hotspot) stepsDecision(sh bool) HotspotSteps {
	s := HotspotSteps{ShPower: sh, Right: math.NaN(), MeasuredT1: math.NaN(), PredictedT1: math.NaN()}
	byGroup := map[HotspotConfig][]HotspotConfig{}
	var order []HotspotConfig
	for _, cfg := range h.sampledLaunches {
		if _, ok := h.predicted[cfg]; !ok || cfg.ShPower != sh {
			continue
		}
		g := cfg.group()
		if _, ok := byGroup[g]; !ok {
			order = append(order, g)
		}
		byGroup[g] = append(byGroup[g], cfg)
	}
	right, measT1, predT1 := 0, 0, 0
	for _, g := range order {
		cfgs := byGroup[g]
		if len(cfgs) < 2 {
			continue
		}
		s.N++
		predBest, measBest := cfgs[0], cfgs[0]
		for _, c := range cfgs[1:] {
			if h.predicted[c] < h.predicted[predBest] {
				predBest = c
			}
			if h.meas[c] < h.meas[measBest] {
				measBest = c
			}
		}
		right += count(h.meas[predBest] <= (1+hotspotWorth)*h.meas[measBest])
		measT1 += count(measBest.Steps == 1)
		predT1 += count(predBest.Steps == 1)
	}
	if s.N > 0 {
		n := float64(s.N)
		s.Right, s.MeasuredT1, s.PredictedT1 = float64(right)/n, float64(measT1)/n, float64(predT1)/n
	}
	return s
}

// writeHotspotIntro writes the heading and the method of the hotspot
// section of docs/accuracy-hardware.md, with the clocks of the RTX A4000
// sweeps compared; compiler names the compiler of a compiled mix, "" for
// the counted one.
func writeHotspotIntro(w io.Writer, c HotspotClock, compiler string) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	if compiler != "" {
		p("\n## Hotspot: time steps per launch (Kernel Tuner), compiled instruction mix\n\n")
	} else {
		p("\n## Hotspot: time steps per launch (Kernel Tuner)\n\n")
		p("`polyvol measured --hardware testdata/measured --hotspot` writes this section alone.\n\n")
	}
	p("The yardstick is Kernel Tuner's measured time of Rodinia's hotspot (a 5-point thermal stencil plus the power at the point, floats, the update in double precision) in the sweeps below (`testdata/measured/kernel_tuner_hotspot_*.csv`), ")
	p("over block size, per-thread tile, time steps per launch T = 1 … 10, time-loop unrolling, power staged in shared memory or re-read from global memory at every step (`sh_power`) and, on the RTX A4000, minimum blocks per SM. ")
	p("polyvol predicts the time per step from `examples/%s.yaml` (`state: temp`, `--steps T`; power staged with the window for sh_power=1; the domain and arrays grown for the 8192² sweep) on the device of each sweep, method exact, default performance model (%s); ", HotspotExample, model.DefaultModel)
	p("block (bx, by, 1), fold (tx, ty, 1), strided tiling. The measured time per step is time_ms / T; rows that differ only in loop unrolling and blocks per SM, which the spec does not state, share one prediction. ")
	if compiler != "" {
		p("The instruction mix of the issue bound is compiled (%s) from `examples/%s`, a kernel written for polyvol with the measured kernel's thread mapping and Kernel Tuner's macros, for each launch's block, tile, T and sh_power and each GPU's architecture, ", compiler, HotspotSource)
		p("its time loop unrolled whole (loop_unroll_factor_t = T) and without a minimum of blocks per SM (blocks_per_sm = 0): the code holds every step of a launch, and its counts are taken per step and useful update. ")
	}
	p("MAPE: of the predicted against the measured time per step; pred/meas: the median ratio of the two; ρ: Spearman's rank correlation of predicted and measured time; ")
	p("share: the measured best time over the measured time of the configuration predicted fastest (of tied predictions the slowest measured counts).\n\n")
	p("Noise floor: repeated sweeps of the same kernel agree to about ρ 0.9 and 5–20 %% in time, so figures near those are at the limit of what the data can tell.\n\n")
	p("Clock: polyvol predicts the RTX A4000 at its entry's clock_ghz, 1.56 GHz, the clock the 8192² sweep was locked at; the 4096² sweep's clock was not locked. ")
	p("On the launches both sweeps measured, the 8192² sweep's time per step and point over the 4096² sweep's has the median %s at T = 1 (%d launches) and %s at T > 1 (%d launches): ", fmtNum(c.Ratio1, 2), c.N1, fmtNum(c.RatioMore, 2), c.NMore)
	p("a launch that the FP64 units bound takes a time that scales with the clock (one that DRAM bounds does not), so where the ratio exceeds 1 the 4096² sweep ran at about the ratio times 1560 MHz, and its times are shorter than a prediction at 1.56 GHz by as much.\n")
}

// WriteMarkdown renders h as a subsection of the hotspot section of
// docs/accuracy-hardware.md.
func (h *Hotspot) WriteMarkdown(w io.Writer) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	s := h.Sweep
	p("\n### %s\n\n", s.Title)
	p("`testdata/measured/%s`, %d rows, on %s. This report takes every %d-th (block, tile, sh_power) group of the file, with all its rows: %d launches estimated.\n\n", s.File, h.Rows, s.Device, s.Every, h.Launches)
	p("| sh_power | steps | n | failed | time/step MAPE %% | pred/meas | ρ | share of best %% | predicted fastest (measured ms/step) | measured fastest (ms/step) |\n|---|---|---:|---:|---:|---:|---:|---:|---|---|\n")
	for _, g := range h.Groups {
		predicted, best := "–", "–" // a group without rows has no fastest
		if g.N > 0 {
			predicted, best = fmt.Sprintf("%s (%s)", g.Predicted, fmtNum(g.PredictedMs, 3)), fmt.Sprintf("%s (%s)", g.Best, fmtNum(g.BestMs, 3))
		}
		p("| %d | %s | %d | %d | %s | %s | %s | %s | %s | %s |\n", count(g.ShPower), g.Steps, g.N, g.Failed,
			fmtNum(g.MAPE, 1), fmtNum(g.Ratio, 2), fmtNum(g.Rho, 3), fmtNum(100*g.Share, 1), predicted, best)
	}
	p("\nIs T > 1 worth it? For each sampled (block, tile, sh_power) measured at two or more T, the T predicted fastest is right where its measured time per step is within %g %% of the measured fastest T's (each launch's best measured row).\n\n", 100*hotspotWorth)
	p("| sh_power | groups | right %% | measured best T = 1 %% | predicted best T = 1 %% |\n|---|---:|---:|---:|---:|\n")
	for _, s := range h.Steps {
		p("| %d | %d | %s | %s | %s |\n", count(s.ShPower), s.N, fmtNum(100*s.Right, 1), fmtNum(100*s.MeasuredT1, 1), fmtNum(100*s.PredictedT1, 1))
	}
	if len(h.Failures) > 0 {
		p("\nLaunches whose estimate failed (%d):\n\n", len(h.Failures))
		for _, f := range slices.Sorted(slices.Values(h.Failures))[:min(len(h.Failures), 20)] {
			p("- %s\n", strings.TrimSpace(f))
		}
		if len(h.Failures) > 20 {
			p("- … and %d more\n", len(h.Failures)-20)
		}
	}
}

// HotspotBest is what polyvol predicts for the hotspot example (4096²,
// power re-read at every step) on one device of the database: the
// configuration that explore ranks first over T = 1 … 10 among the
// blocks of 256 threads without folds, and the best at T = 1.
type HotspotBest struct {
	Device string
	Best   explore.Configuration
	// GLups and Limiter are the best's prediction, T1GLups and T1Limiter
	// those of the best at T = 1.
	GLups, T1GLups     float64
	Limiter, T1Limiter string
}

// HotspotBestSteps explores the hotspot example over T = 1 … 10 on every
// device of the database, as `polyvol explore hotspot --device D --steps
// 1:10 --threads 256 --folds 1,1,1 --tiles consecutive` does (the blocks
// of 256 threads without folds: the sweep of all shapes and folds takes
// minutes per device).
func HotspotBestSteps(progress io.Writer) ([]HotspotBest, error) {
	spec, err := hotspotSpec(false, 4096)
	if err != nil {
		return nil, err
	}
	k, err := kernel.Parse([]byte(spec), HotspotExample+".yaml")
	if err != nil {
		return nil, err
	}
	var steps []int64
	for t := int64(1); t <= 10; t++ {
		steps = append(steps, t)
	}
	var out []HotspotBest
	for _, dev := range device.All() {
		fmt.Fprintf(progress, "exploring %s on %s over T = 1 … 10\n", HotspotExample, dev.Name)
		res, err := explore.Run(context.Background(), explore.Config{Kernel: k, Device: dev, Threads: []int{256},
			Folds: [][3]int64{{1, 1, 1}}, Tilings: []kernel.Tiling{kernel.TileConsecutive}, Steps: steps})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", dev.Name, err)
		}
		if len(res.Reports) == 0 {
			return nil, fmt.Errorf("%s: no configuration fits", dev.Name)
		}
		best := res.Reports[0]
		b := HotspotBest{Device: dev.Name, Best: explore.ReportConfiguration(best), GLups: best.Prediction.GLups, Limiter: best.Prediction.Limiter}
		for _, r := range res.Reports { // best first
			if r.Launch.Steps == 1 {
				b.T1GLups, b.T1Limiter = r.Prediction.GLups, r.Prediction.Limiter
				break
			}
		}
		out = append(out, b)
	}
	return out, nil
}

// writeHotspotBestMarkdown writes the predicted best T of every device.
func writeHotspotBestMarkdown(w io.Writer, bests []HotspotBest) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	p("\n### The best T that polyvol predicts on every device\n\n")
	p("The configuration ranked first by `polyvol explore hotspot --device D --steps 1:10 --threads 256 --folds 1,1,1 --tiles consecutive` (the blocks of 256 threads without folds; sh_power=0, 4096²) on each device of `polyvol devices`, with the limiter that decides it, and the best at T = 1. ")
	p("Predictions only: the sweeps above measure the RTX A4000 and the W7800.\n\n")
	p("| device | best T | best configuration | GLup/s | limiter | best at T = 1: GLup/s | limiter |\n|---|---:|---|---:|---|---:|---|\n")
	for _, b := range bests {
		p("| %s | %d | %s | %s | %s | %s | %s |\n", b.Device, b.Best.Steps, b.Best, fmtNum(b.GLups, 2), b.Limiter, fmtNum(b.T1GLups, 2), b.T1Limiter)
	}
}

// HotspotClock compares the two RTX A4000 sweeps on the launches both
// measured (blocks 1 × 32): Ratio1 and RatioMore are the medians, over
// the launches of T = 1 and of T > 1, of the 8192² sweep's time per step
// and point (clock locked at 1560 MHz) over the 4096² sweep's (clock not
// locked), each launch's fastest row; N1 and NMore count them. Where the
// FP64 units bound a launch its time scales with the clock, where DRAM
// does it does not.
type HotspotClock struct {
	N1, NMore         int
	Ratio1, RatioMore float64
}

// HotspotClockRatios reads the two RTX A4000 sweeps of HotspotSweeps in
// dir and compares them (HotspotClock).
func HotspotClockRatios(dir string) (HotspotClock, error) {
	best := func(s HotspotSweep) (map[HotspotConfig]float64, error) {
		rows, err := readHotspot(filepath.Join(dir, s.File))
		if err != nil {
			return nil, err
		}
		m := map[HotspotConfig]float64{}
		points := float64(s.Grid * s.Grid)
		for _, r := range rows {
			v := r.msPerStep / points
			if old, ok := m[r.cfg]; !ok || v < old {
				m[r.cfg] = v
			}
		}
		return m, nil
	}
	var unlocked, locked map[HotspotConfig]float64
	for _, s := range HotspotSweeps {
		if s.Device != "RTX-A4000" {
			continue
		}
		m, err := best(s)
		if err != nil {
			return HotspotClock{}, err
		}
		if s.Grid == 4096 {
			unlocked = m
		} else {
			locked = m
		}
	}
	var one, more []float64
	for cfg, l := range locked {
		u, ok := unlocked[cfg]
		if !ok {
			continue
		}
		if cfg.Steps == 1 {
			one = append(one, l/u)
		} else {
			more = append(more, l/u)
		}
	}
	c := HotspotClock{N1: len(one), NMore: len(more), Ratio1: math.NaN(), RatioMore: math.NaN()}
	if len(one) > 0 {
		c.Ratio1 = median(one)
	}
	if len(more) > 0 {
		c.RatioMore = median(more)
	}
	return c, nil
}

// HotspotSection is the hotspot section of docs/accuracy-hardware.md: the
// sweeps of HotspotSweeps against the predictions, the two RTX A4000
// sweeps' clocks, and the best T predicted on every device; or, with the
// instruction mix compiled, the sweeps and the clocks.
type HotspotSection struct {
	Sweeps []*Hotspot
	Clock  HotspotClock
	Bests  []HotspotBest // none where the mix is compiled
	// Compiler names the compiler of the instruction mix where it was
	// compiled from HotspotSource; "" where it was counted.
	Compiler string
}

// HotspotReports compares every sweep of HotspotSweeps in dir
// (HotspotReport), of each every·Every-th group, and the clocks of the
// RTX A4000 sweeps (HotspotClockRatios). Where compiler is nil the mix is
// counted and the best T on every device is explored too
// (HotspotBestSteps); else the mix is compiled from HotspotSource.
func HotspotReports(dir string, every int, compiler *compiled.Compiler, progress io.Writer) (*HotspotSection, error) {
	h := &HotspotSection{}
	for _, s := range HotspotSweeps {
		s.Every *= every
		hs, err := HotspotReport(dir, s, compiler, progress)
		if err != nil {
			return nil, err
		}
		h.Sweeps, h.Compiler = append(h.Sweeps, hs), hs.Compiler
	}
	var err error
	if h.Clock, err = HotspotClockRatios(dir); err != nil {
		return nil, err
	}
	if compiler == nil {
		if h.Bests, err = HotspotBestSteps(progress); err != nil {
			return nil, err
		}
	}
	return h, nil
}

// WriteMarkdown renders h as the hotspot section of
// docs/accuracy-hardware.md, or of docs/accuracy-compiled-hotspot.md
// where the mix is compiled.
func (h *HotspotSection) WriteMarkdown(w io.Writer) {
	writeHotspotIntro(w, h.Clock, h.Compiler)
	for _, hs := range h.Sweeps {
		hs.WriteMarkdown(w)
	}
	if h.Compiler == "" {
		writeHotspotBestMarkdown(w, h.Bests)
	}
}
