package accuracy

import (
	"fmt"
	"io"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/model"
)

// The joint fit of the overlap model.
//
// The overlap model's three constants (model.OverlapParams) are fitted on
// data where limiters compete: the gpu-stream kernels (one limiter at a
// time, against occupancy), the V100 box stencil's block scan (L1, L2 and
// DRAM against the block shape) and the Kernel Tuner convolution (flops,
// instruction issue and L1 against block and tile). The three datasets
// weigh alike: the objective is the mean of their errors.
//
//   - gpu-stream: MAPE of GLup/s.
//   - convolution: MAPE of the time, over the launches without bounds
//     checks and with read_only=0, the variant that the spec states
//     exactly (the others are in the convolution section).
//   - box block scan: the file records neither the domain nor the flops
//     per update, so only ratios within one (run, range, variant) group
//     are measured: the error of a point is |q/q̄ − 1| with q the ratio of
//     predicted to measured rate and q̄ the geometric mean of q over the
//     group, a MAPE after one free scale per group.
//
// Fit devices are JointFitDevices; the other devices of each dataset are
// held out. Leave-one-device-out refits without each fit device and
// evaluates on it; leave-one-kernel-out does the same per kernel.

// Dataset names of the joint fit.
const (
	datasetStream      = "gpu-stream"
	datasetBox         = "box2d block scan"
	datasetConvolution = "convolution"
)

// JointFitDevices are the devices whose measurements the joint fit uses:
// the gpu-stream fit devices (OverlapFitDevices: both vendors, three NVIDIA
// generations), the V100 of the box sets and the RTX A4000 of the
// convolution.
var JointFitDevices = append(slices.Clone(OverlapFitDevices), "RTX-A4000")

// FitConvolutionEvery is the convolution sample of the joint fit: every
// FitConvolutionEvery-th launch without bounds checks of each file, in file
// order, with read_only=0 (about 48 launches per GPU).
const FitConvolutionEvery = 4

// fitPoint is one measured configuration with the estimate that the
// overlap model re-predicts under trial constants.
type fitPoint struct {
	dataset, device, kernel string
	// group is non-empty for points whose measured rate is known up to a
	// scale shared by the group.
	group    string
	measured float64 // GLup/s; any rate for points of a group
	rep      *model.Report
	dev      *device.Device
	warps    float64 // active warps per SM (model.ActiveWarps)
	lanes    float64 // active lanes per warp
}

func newFitPoint(dataset, kern, group string, measured float64, r *model.Report, dev *device.Device) fitPoint {
	p := fitPoint{dataset: dataset, device: dev.Name, kernel: kern, group: group, measured: measured, rep: r, dev: dev}
	p.warps, p.lanes = model.ActiveWarps(r, dev)
	return p
}

// JointRow is the error of one held-out part of the data: with the joint
// constants (in sample where the part was fitted) and with constants fitted
// without it.
type JointRow struct {
	Part     string // a device or a kernel
	Datasets string // the datasets the part has points in
	N        int
	// InSample is the error of the part's points with the joint fit's
	// constants, percent: the mean of its datasets' errors.
	InSample float64
	// HeldOut is the same error with constants fitted without the part,
	// HeldOutParams.
	HeldOut       float64
	HeldOutParams model.OverlapParams
}

// JointStat is the error of one dataset and device with the joint fit's
// constants.
type JointStat struct {
	Dataset, Device string
	Fit             bool // a device of JointFitDevices
	N               int
	Error           float64 // percent
}

// JointFit is the joint fit of the overlap model and its held-out figures.
type JointFit struct {
	Params model.OverlapParams
	// Objective is the fit's objective at Params: the mean of the three
	// datasets' errors over the fit devices, percent.
	Objective float64
	Stats     []JointStat
	// Devices holds leave-one-device-out, Kernels leave-one-kernel-out,
	// over the fit devices' points.
	Devices, Kernels []JointRow
	// TLB relates the box block scan's residuals to the pages per block.
	TLB TLBEffect
}

// jointPoints gathers the points of the joint fit: every gpu-stream row,
// the box block scan's, and the convolution sample of dir
// (convolutionFitPoints).
func (h *Hardware) jointPoints(dir string, progress io.Writer) ([]fitPoint, error) {
	if h.Perf == nil {
		return nil, fmt.Errorf("accuracy: the joint fit needs the stream report")
	}
	var pts []fitPoint
	for _, p := range h.Perf.Points {
		if p.Dataset == datasetStream {
			pts = append(pts, fitPoint{dataset: datasetStream, device: p.Device, kernel: p.Kernel, measured: p.Measured, rep: p.rep, dev: p.dev, warps: p.warps, lanes: p.lane})
		}
	}
	pts = append(pts, h.fit...)
	conv, err := convolutionFitPoints(dir, progress)
	if err != nil {
		return nil, err
	}
	return append(pts, conv...), nil
}

// convolutionFitPoints estimates the joint fit's convolution sample
// (FitConvolutionEvery) of every GPU of ConvolutionGPUs.
func convolutionFitPoints(dir string, progress io.Writer) ([]fitPoint, error) {
	kernels, err := convolutionKernels()
	if err != nil {
		return nil, err
	}
	lups := float64(kernels[convolutionSpecKey{InputGlobal, false}].Lups())
	var pts []fitPoint
	for _, g := range ConvolutionGPUs {
		rows, err := readConvolution(filepath.Join(dir, g.File))
		if err != nil {
			return nil, err
		}
		dev, err := device.Lookup(g.Device)
		if err != nil {
			return nil, err
		}
		var launches []convolutionLaunch
		var ms []float64
		n := 0
		for _, r := range rows {
			if r.variant() != (ConvolutionVariant{}) { // use_shmem=0, no bounds checks, read_only=0
				continue
			}
			if n%FitConvolutionEvery == 0 {
				launches, ms = append(launches, r.launch()), append(ms, r.ms)
			}
			n++
		}
		fmt.Fprintf(progress, "estimating %d launches of %s for the joint fit\n", len(launches), g.File)
		reports, errs, err := (&Convolution{}).estimate(launches, kernels, dev) // the counted mix the fit is made with
		if err != nil {
			return nil, err
		}
		for i, r := range reports {
			if errs[i] != nil {
				return nil, fmt.Errorf("%s, block %s: %w", g.File, launches[i].cfg, errs[i])
			}
			pts = append(pts, newFitPoint(datasetConvolution, ConvolutionExample, "", lups/(ms[i]*1e6), r, dev))
		}
	}
	return pts, nil
}

// ratios returns, for every point of pts, the overlap model's prediction
// under par over the measured rate, and for every point of a group that
// ratio over the group's geometric mean of them (1 elsewhere): the
// prediction with the group's unknown scale taken out.
func ratios(pts []fitPoint, par model.OverlapParams) (raw, scaled []float64, err error) {
	type groupKey struct{ dataset, group string }
	logSum, count := map[groupKey]float64{}, map[groupKey]int{}
	raw = make([]float64, len(pts))
	for i, p := range pts {
		glups, err := model.OverlapGLups(p.rep, p.dev, p.warps, p.lanes, par)
		if err != nil {
			return nil, nil, fmt.Errorf("%s %s %s: %w", p.dataset, p.device, p.kernel, err)
		}
		raw[i] = glups / p.measured
		if p.group != "" {
			k := groupKey{p.dataset, p.group}
			logSum[k] += math.Log(raw[i])
			count[k]++
		}
	}
	scaled = make([]float64, len(pts))
	for i, p := range pts {
		scaled[i] = 1
		if k := (groupKey{p.dataset, p.group}); p.group != "" {
			scaled[i] = raw[i] / math.Exp(logSum[k]/float64(count[k]))
		}
	}
	return raw, scaled, nil
}

// jointErrors returns the error of each dataset over pts under par,
// percent, and the points per dataset.
func jointErrors(pts []fitPoint, par model.OverlapParams) (map[string]float64, map[string]int, error) {
	raw, scaled, err := ratios(pts, par)
	if err != nil {
		return nil, nil, err
	}
	sum, n := map[string]float64{}, map[string]int{}
	for i, p := range pts {
		n[p.dataset]++
		switch {
		case p.group != "":
			sum[p.dataset] += math.Abs(scaled[i] - 1)
		case p.dataset == datasetConvolution: // time
			sum[p.dataset] += math.Abs(1/raw[i] - 1)
		default: // rate
			sum[p.dataset] += math.Abs(raw[i] - 1)
		}
	}
	for d := range sum {
		sum[d] *= 100 / float64(n[d])
	}
	return sum, n, nil
}

// jointObjective is the mean of the datasets' errors over pts, summed in
// the datasets' order so that the fit does not depend on the order in
// which a map hands them out.
func jointObjective(pts []fitPoint, par model.OverlapParams) (float64, error) {
	errs, _, err := jointErrors(pts, par)
	if err != nil || len(errs) == 0 {
		return math.Inf(1), err
	}
	s := 0.0
	for _, d := range slices.Sorted(maps.Keys(errs)) {
		s += errs[d]
	}
	return s / float64(len(errs)), nil
}

// fitJointParams fits the three constants to the lowest objective over pts
// with the Nelder–Mead method, started from exponents 2, 3, 4 and 5 with one
// load and one store round trip, and returns the best rounded to two
// decimals with its objective. It is deterministic.
func fitJointParams(pts []fitPoint) (model.OverlapParams, float64, error) {
	var fitErr error
	objective := func(x []float64) float64 {
		par := model.OverlapParams{Exponent: x[0], LoadRoundTrips: x[1], StoreRoundTrips: x[2]}
		if !(par.Exponent >= 1) || !(par.LoadRoundTrips >= 0) || !(par.StoreRoundTrips >= 0) {
			return math.Inf(1)
		}
		e, err := jointObjective(pts, par)
		if err != nil {
			fitErr = err
		}
		return e
	}
	best, bestErr := []float64(nil), math.Inf(1)
	for _, p := range []float64{2, 3, 4, 5} {
		x, e := nelderMead(objective, []float64{p, 1, 1}, 0.25, 400, 1e-6)
		if e < bestErr {
			best, bestErr = x, e
		}
	}
	if fitErr != nil {
		return model.OverlapParams{}, 0, fitErr
	}
	for i := range best {
		best[i] = math.Round(100*best[i]) / 100
	}
	par := model.OverlapParams{Exponent: best[0], LoadRoundTrips: best[1], StoreRoundTrips: best[2]}
	obj, err := jointObjective(pts, par)
	return par, obj, err
}

// jointTraining returns the points of the fit devices.
func jointTraining(pts []fitPoint) []fitPoint {
	var out []fitPoint
	for _, p := range pts {
		if slices.Contains(JointFitDevices, p.device) {
			out = append(out, p)
		}
	}
	return out
}

// FitJoint fits the overlap model's constants on the fit devices' points
// and refits without each fit device and without each kernel
// (leave-one-out), reporting each part's error in and out of sample.
func (h *Hardware) FitJoint(dir string, progress io.Writer) (*JointFit, error) {
	pts, err := h.jointPoints(dir, progress)
	if err != nil {
		return nil, err
	}
	train := jointTraining(pts)
	fmt.Fprintf(progress, "fitting the overlap model on %d points, then leaving out each device and kernel\n", len(train))
	j := &JointFit{}
	if j.Params, j.Objective, err = fitJointParams(train); err != nil {
		return nil, err
	}
	if j.Stats, err = jointStats(pts, j.Params); err != nil {
		return nil, err
	}
	if j.TLB, err = tlbEffect(pts, j.Params); err != nil {
		return nil, err
	}
	for _, d := range JointFitDevices {
		row, err := leaveOut(train, j.Params, d, func(p fitPoint) bool { return p.device == d })
		if err != nil {
			return nil, err
		}
		j.Devices = append(j.Devices, row)
	}
	var kernels []string
	for _, p := range train {
		if !slices.Contains(kernels, jointKernel(p)) {
			kernels = append(kernels, jointKernel(p))
		}
	}
	for _, kn := range kernels {
		row, err := leaveOut(train, j.Params, kn, func(p fitPoint) bool { return jointKernel(p) == kn })
		if err != nil {
			return nil, err
		}
		j.Kernels = append(j.Kernels, row)
	}
	return j, nil
}

// jointStats returns the error of the fitted params on the points of each
// dataset and device, in the order the points meet them.
func jointStats(pts []fitPoint, params model.OverlapParams) ([]JointStat, error) {
	type statKey struct{ dataset, device string }
	byKey := map[statKey][]fitPoint{}
	var keys []statKey
	for _, p := range pts {
		k := statKey{p.dataset, p.device}
		if byKey[k] == nil {
			keys = append(keys, k)
		}
		byKey[k] = append(byKey[k], p)
	}
	var stats []JointStat
	for _, k := range keys {
		errs, n, err := jointErrors(byKey[k], params)
		if err != nil {
			return nil, err
		}
		stats = append(stats, JointStat{Dataset: k.dataset, Device: k.device, Fit: slices.Contains(JointFitDevices, k.device), N: n[k.dataset], Error: errs[k.dataset]})
	}
	return stats, nil
}

// leaveOut compares, on the training points that in selects (the part
// named part), the objective of the fitted params with that of params
// refitted on the other training points.
func leaveOut(train []fitPoint, params model.OverlapParams, part string, in func(fitPoint) bool) (JointRow, error) {
	var mine, rest []fitPoint
	for _, p := range train {
		if in(p) {
			mine = append(mine, p)
		} else {
			rest = append(rest, p)
		}
	}
	row := JointRow{Part: part, N: len(mine)}
	errs, _, err := jointErrors(mine, params)
	if err != nil {
		return row, err
	}
	var sets []string
	for d := range errs {
		sets = append(sets, d)
	}
	slices.Sort(sets)
	row.Datasets = strings.Join(sets, ", ")
	if row.InSample, err = jointObjective(mine, params); err != nil {
		return row, err
	}
	if row.HeldOutParams, _, err = fitJointParams(rest); err != nil {
		return row, err
	}
	row.HeldOut, err = jointObjective(mine, row.HeldOutParams)
	return row, err
}

// jointKernel names a point's kernel for leave-one-kernel-out: the box
// stencils of all ranges are one kernel.
func jointKernel(p fitPoint) string {
	if p.dataset == datasetBox {
		return "box2d"
	}
	return p.kernel
}

// TLBEffect relates the box block scan's residuals under the joint fit's
// constants to the 512 KiB pages that one block spans
// (model.Basic.BlockL1TLBPages) and the V100's L1 TLB reach: a block past
// the reach misses in the TLB and runs slower than predicted.
type TLBEffect struct {
	N     int
	Reach float64 // pages the V100's L1 TLB covers
	// Bins hold the mean residual (predicted over measured rate, over the
	// group's geometric mean, minus one, percent: positive is predicted too
	// fast) by pages per block, in powers of two; Within and Beyond the
	// same within and beyond the reach.
	Bins           []TLBBin
	Within, Beyond TLBBin
}

// TLBBin is the mean residual of the configurations whose blocks span
// (Lo, Hi] pages.
type TLBBin struct {
	Lo, Hi float64
	N      int
	Mean   float64 // percent
}

// tlbEffect computes TLBEffect over the box block scan's points of pts.
func tlbEffect(pts []fitPoint, par model.OverlapParams) (TLBEffect, error) {
	var box []fitPoint
	for _, p := range pts {
		if p.dataset == datasetBox {
			box = append(box, p)
		}
	}
	e := TLBEffect{N: len(box)}
	if len(box) == 0 {
		return e, fmt.Errorf("accuracy: no box block scan points")
	}
	dev := box[0].dev
	if dev.L1TLBReachBytes <= 0 {
		return e, fmt.Errorf("accuracy: device %s has no measured L1 TLB reach", dev.Name)
	}
	e.Reach = float64(dev.L1TLBReachBytes / dev.L1TLBPageBytes)
	_, scaled, err := ratios(box, par)
	if err != nil {
		return e, err
	}
	e.Within, e.Beyond = TLBBin{Lo: 0, Hi: e.Reach}, TLBBin{Lo: e.Reach, Hi: math.Inf(1)}
	for lo := 0.0; lo < 1024; lo = max(2*lo, 4) {
		e.Bins = append(e.Bins, TLBBin{Lo: lo, Hi: max(2*lo, 4)})
	}
	e.Bins[len(e.Bins)-1].Hi = math.Inf(1)
	bins := []*TLBBin{&e.Within, &e.Beyond}
	for i := range e.Bins {
		bins = append(bins, &e.Bins[i])
	}
	for i, p := range box {
		res, pages := 100*(scaled[i]-1), p.rep.Basic.BlockL1TLBPages
		for _, b := range bins {
			if pages > b.Lo && pages <= b.Hi {
				b.Mean += res
				b.N++
			}
		}
	}
	for _, b := range bins {
		b.Mean /= float64(max(b.N, 1))
	}
	return e, nil
}

// WriteMarkdown renders the joint fit, its held-out figures and the TLB
// check.
func (j *JointFit) WriteMarkdown(w io.Writer) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	p("\n## Joint fit of the overlap model, held out by device and by kernel\n\n")
	p("The overlap model's three constants are fitted on data where limiters compete, each dataset weighing alike (accuracy.FitJoint): ")
	p("the gpu-stream kernels (GLup/s MAPE), the V100 box block scan (the file records neither flops nor domain, so the error is the MAPE after one free scale per (run, range, variant) group) ")
	p("and the convolution without bounds checks, read_only=0 (time MAPE; every %d-th such launch of each file). ", FitConvolutionEvery)
	p("Fit devices: %s; every other device is held out. ", strings.Join(JointFitDevices, ", "))
	p("Result: exponent %g, load round trips %g, store round trips %g; objective (mean of the three datasets' errors) %.2f %%.\n\n",
		j.Params.Exponent, j.Params.LoadRoundTrips, j.Params.StoreRoundTrips, j.Objective)
	p("| dataset | device | role | n | error %% |\n|---|---|---|---:|---:|\n")
	for _, s := range j.Stats {
		p("| %s | %s | %s | %d | %.1f |\n", s.Dataset, s.Device, roleName(s.Fit), s.N, s.Error)
	}
	rows := func(title string, rs []JointRow) {
		p("\n%s\n\n| left out | datasets | n | in sample %% | held out %% | held out / in sample | constants fitted without it |\n|---|---|---:|---:|---:|---:|---|\n", title)
		for _, r := range rs {
			p("| %s | %s | %d | %.1f | %.1f | %.2f | %g, %g, %g |\n", r.Part, r.Datasets, r.N, r.InSample, r.HeldOut, r.HeldOut/r.InSample,
				r.HeldOutParams.Exponent, r.HeldOutParams.LoadRoundTrips, r.HeldOutParams.StoreRoundTrips)
		}
	}
	rows("Leave one device out: refit without the device's points, evaluate on them (goal: within 1.5× of in sample).", j.Devices)
	rows("Leave one kernel out: refit without the kernel's points (box2d: all ranges), evaluate on them.", j.Kernels)
	t := j.TLB
	p("\n### TLB pages\n\n")
	p("polyvol counts the distinct 512 KiB pages that one block's accesses span (`blockL1TLBPages`). ")
	p("The V100's L1 TLB covers 32 MiB, %.0f such pages (Jia et al. 2018; device key `l1_tlb_reach_bytes`). ", t.Reach)
	p("Over the %d configurations of the V100 box block scan, the residual of the joint fit (predicted over measured rate against its group's geometric mean; positive: predicted too fast) by pages per block:\n\n", t.N)
	p("| pages per block | n | mean residual %% |\n|---|---:|---:|\n")
	for _, b := range t.Bins {
		if b.N > 0 {
			p("| (%g, %g] | %d | %+.1f |\n", b.Lo, b.Hi, b.N, b.Mean)
		}
	}
	p("| **within the reach** | %d | %+.1f |\n| **beyond the reach** | %d | %+.1f |\n\n", t.Within.N, t.Within.Mean, t.Beyond.N, t.Beyond.Mean)
	p("The blocks past the reach (tall blocks of 256 to 1024 rows of 120 kB) run slower than predicted, more so the further past; within it the residual does not depend on the pages. ")
	p("polyvol does not charge the misses: the effect rests on %d configurations of one GPU, most of one run, too few to fit a miss cost that another GPU could check. ", t.Beyond.N)
	p("`predict` notes a block past the reach of a device whose reach is measured (`model.TLBNote`). ")
	p("The V100 star set, whose deep z blocks would span more pages, has counters but no times.\n")
}
