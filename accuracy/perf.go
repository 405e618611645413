package accuracy

import (
	"cmp"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/examples"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/measured"
	"github.com/polyvol/polyvol/model"
)

// The measurements with absolute performance, as named in testdata/measured.
const (
	FileStream      = "gpu_stream_occupancy.csv"
	FilePaperPoints = "papers_ernst2023_text_points.csv"
)

// PerfModels are the performance models whose absolute GLup/s the report
// compares with the measurements.
var PerfModels = model.ModelNames

// streamDevices maps the device names of FileStream to the device database.
var streamDevices = map[string]string{
	"v100": "V100", "a100_40": "A100-40GB", "a100_80": "A100-80GB", "a40": "A40", "l40": "L40",
	"h100_pcie": "H100-PCIe", "h200": "H200", "gh200": "GH200", "mi100": "MI100", "mi210": "MI210",
	"mi300a": "MI300A", "mi300x": "MI300X", "rx6900xt": "RX6900XT", "RX6900XT": "RX6900XT",
}

// OverlapFitDevices are the devices whose gpu-stream rows the overlap
// model's constants (model.DefaultOverlap) were fitted on (FitJoint); every other
// device of FileStream and the paper's points are held out.
var OverlapFitDevices = []string{"V100", "A100-80GB", "L40", "MI100"}

// streamN is the array length of the gpu-stream benchmark, 128·1024·1024+2
// doubles (FileStream's header).
const streamN = 128*1024*1024 + 2

// streamSpec is the gpu-stream kernel kind (init, read, scale, triad, 3pt,
// 5pt; triad with streams 3 or 4 arrays) on arrays of streamN doubles, with
// sharedBytes of shared memory per block, the benchmark's spoiler that
// restricts the blocks per SM. The stencils update the points whose
// neighbours lie inside the array.
func streamSpec(kind string, streams int, sharedBytes int64) (string, error) {
	var loads, stores []string
	flops, domain := 0, streamN
	switch kind {
	case "init":
		stores = []string{"A"}
	case "read":
		loads = []string{"B"}
	case "scale":
		loads, stores, flops = []string{"B"}, []string{"A"}, 1
	case "triad":
		loads, stores, flops = []string{"B", "C"}, []string{"A"}, 2
		if streams == 4 {
			loads = append(loads, "D")
		}
	case "3pt", "5pt":
		w := 3
		flops = 4
		if kind == "5pt" {
			w, flops = 5, 9
		}
		domain = streamN - (w - 1)
		var l []string
		for i := range w {
			l = append(l, fmt.Sprintf("[x + %d]", i))
		}
		return fmt.Sprintf(`name: stream-%s
domain: [%d]
flops: %d
shared_bytes: %d
fields:
  - name: B
    element: 8
    extent: [%d]
    load: [%s]
  - name: A
    element: 8
    extent: [%d]
    offset: %d
    store: [[x]]
`, kind, domain, flops, sharedBytes, streamN, strings.Join(l, ", "), streamN, (w-1)/2), nil
	default:
		return "", fmt.Errorf("unknown gpu-stream kernel %q", kind)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "name: stream-%s\ndomain: [%d]\nflops: %d\nshared_bytes: %d\nfields:\n", kind, domain, flops, sharedBytes)
	for _, f := range loads {
		fmt.Fprintf(&b, "  - name: %s\n    element: 8\n    load: [[x]]\n", f)
	}
	for _, f := range stores {
		fmt.Fprintf(&b, "  - name: %s\n    element: 8\n    store: [[x]]\n", f)
	}
	return b.String(), nil
}

// streamBytes is the bytes per lattice update that FileStream's bandwidth
// counts for a kernel.
func streamBytes(kind string, streams int) float64 {
	switch kind {
	case "init", "read":
		return 8
	case "triad":
		return 8 * float64(streams)
	}
	return 16
}

// spoilerShared returns the shared memory per block that lets exactly bps
// blocks of threads threads reside on an SM of dev, as gpu-stream's spoiler
// does, and false when the device's limits allow no such amount.
func spoilerShared(dev *device.Device, threads, bps int) (int64, bool) {
	l := dev.Limits
	want := bps
	if occ, err := dev.Occupancy(threads, kernel.DefaultRegisters, 0); err != nil {
		return 0, false
	} else if occ.BlocksPerSM < bps {
		want = occ.BlocksPerSM // the slots allow fewer, as on the hardware
	}
	s := (l.SharedPerSM/int64(bps))/l.SharedAllocUnit*l.SharedAllocUnit - l.SharedReservedPerBlock
	s = min(s, l.SharedPerBlock)
	for ; s >= 0; s -= l.SharedAllocUnit {
		occ, err := dev.Occupancy(threads, kernel.DefaultRegisters, s)
		if err != nil {
			continue
		}
		if occ.BlocksPerSM == want {
			return s, true
		}
		if occ.BlocksPerSM > want {
			return 0, false
		}
	}
	return 0, false
}

// PerfPoint is one absolute performance measurement and the models'
// predictions for it.
type PerfPoint struct {
	Dataset   string // "gpu-stream" or "paper"
	Device    string // device database name
	Kernel    string
	Config    string  // block and blocks per SM, or block and fold
	Source    string  // the measurement: gpu-stream's file (repository@commit) or the paper
	Measured  float64 // GLup/s
	Predicted map[model.ModelName]float64
	Fit       bool // the point belongs to the overlap model's fit data

	rep         *model.Report
	dev         *device.Device
	warps, lane float64
}

// PerfStat is the GLup/s MAPE of one performance model on one group.
type PerfStat struct {
	Dataset, Device, Kernel string
	Model                   model.ModelName
	Fit                     bool // fit data of the overlap model (else held out)
	N                       int
	MAPE                    float64 // percent
	Bias                    float64 // mean signed error, percent
}

// PerfRank is how one performance model ranks the configurations of one
// kernel on one device within one measurement (Source): runs of one
// benchmark years apart disagree by up to a factor of 1.6 on the same
// configuration, so rankings are taken within a file, not across files.
type PerfRank struct {
	Dataset, Device, Kernel, Source string
	Model                           model.ModelName
	Fit                             bool
	N                               int
	Rho                             float64 // Spearman ρ of predicted and measured GLup/s
	Share                           float64 // measured GLup/s of the predicted fastest / measured best, percent
	// Worst is the lowest Share any prediction could give: the slowest
	// measured over the best measured, percent.
	Worst float64
}

// Perf holds the absolute-performance comparison.
type Perf struct {
	Points []PerfPoint
	Stats  []PerfStat
	Ranks  []PerfRank
}

// PerfReport predicts every row of FileStream on every device of the
// database that the file measures, and the paper's A100 points of
// FilePaperPoints, with every model of PerfModels (method exact).
func PerfReport(dir string, progress io.Writer) (*Perf, []string, error) {
	b := &perfBuilder{pf: &Perf{}, fit: map[string]bool{}, ests: map[string]*estimator{}, skipBlocks: map[string][]int{}}
	for _, d := range OverlapFitDevices {
		b.fit[d] = true
	}
	t, err := ReadTable(filepath.Join(dir, FileStream))
	if err != nil {
		return nil, nil, err
	}
	fmt.Fprintf(progress, "estimating %d rows of %s\n", len(t.Rows), FileStream)
	for i := range t.Rows {
		if err := b.streamRow(t, i); err != nil {
			return nil, nil, err
		}
	}
	skipped := b.skipped()
	pt, err := ReadTable(filepath.Join(dir, FilePaperPoints))
	if err != nil {
		return nil, nil, err
	}
	for i := range pt.Rows {
		if err := b.paperRow(pt, i); err != nil {
			return nil, nil, err
		}
	}
	b.pf.Stats = perfStats(b.pf.Points)
	b.pf.Ranks = perfRanks(b.pf.Points)
	return b.pf, skipped, nil
}

// perfBuilder collects the points of PerfReport: an estimator per device,
// the devices of the overlap model's fit data, and the rows of FileStream
// skipped, by reason (a format with a %s for the blocks) in the order met.
type perfBuilder struct {
	pf         *Perf
	fit        map[string]bool
	ests       map[string]*estimator
	skipBlocks map[string][]int
	skipOrder  []string
}

// estimator returns the estimator of the named device.
func (b *perfBuilder) estimator(name string) (*estimator, error) {
	if e, ok := b.ests[name]; ok {
		return e, nil
	}
	dev, err := device.Lookup(name)
	if err != nil {
		return nil, err
	}
	e := &estimator{dev: dev, specs: map[string]*kernel.Kernel{}, cache: map[string]*model.Report{}}
	b.ests[name] = e
	return e, nil
}

// add predicts one measured configuration with every model of PerfModels
// and adds it to the points.
func (b *perfBuilder) add(e *estimator, dataset, source, kern, cfg, spec string, block, fold [3]int64, meas float64) error {
	r, err := e.estimate(spec, block, fold, model.MethodExact, model.ModelRoofline)
	if err != nil {
		return err
	}
	k := e.specs[spec]
	pt := PerfPoint{Dataset: dataset, Device: e.dev.Name, Kernel: kern, Config: cfg, Source: source, Measured: meas, Fit: dataset == "gpu-stream" && b.fit[e.dev.Name],
		Predicted: map[model.ModelName]float64{}, rep: r, dev: e.dev}
	pt.warps, pt.lane = model.ActiveWarps(r, e.dev)
	for _, mn := range PerfModels {
		p, err := model.Predict(mn, r, e.dev, k.FPType)
		if err != nil {
			return fmt.Errorf("%s %s %s: %w", e.dev.Name, kern, cfg, err)
		}
		pt.Predicted[mn] = p.GLups
	}
	b.pf.Points = append(b.pf.Points, pt)
	return nil
}

// skip records a row of block size block left out for reason.
func (b *perfBuilder) skip(reason string, block int) {
	if _, ok := b.skipBlocks[reason]; !ok {
		b.skipOrder = append(b.skipOrder, reason)
	}
	if bs := b.skipBlocks[reason]; !slices.Contains(bs, block) {
		b.skipBlocks[reason] = append(bs, block)
	}
}

// skipped returns one line per reason a row was skipped, with the blocks
// of its rows.
func (b *perfBuilder) skipped() []string {
	var out []string
	for _, r := range b.skipOrder {
		var bs []string
		for _, block := range b.skipBlocks[r] {
			bs = append(bs, fmt.Sprint(block))
		}
		out = append(out, fmt.Sprintf(r, strings.Join(bs, ", ")))
	}
	return out
}

// streamRow adds row i of FileStream's table t, or skips it when the
// device cannot have run it as labelled.
func (b *perfBuilder) streamRow(t *Table, i int) error {
	dname, err := t.Str(i, "device")
	if err != nil {
		return err
	}
	name, ok := streamDevices[dname]
	if !ok {
		return fmt.Errorf("%s row %d: device %q is not in the device database map", FileStream, i+1, dname)
	}
	e, err := b.estimator(name)
	if err != nil {
		return err
	}
	var strs [3]string
	for j, c := range []string{"kernel", "source_repo", "commit"} {
		if strs[j], err = t.Str(i, c); err != nil {
			return err
		}
	}
	kind, repo, commit := strs[0], strs[1], strs[2]
	var nums [4]float64
	for j, c := range []string{"block_size", "blocks_per_sm", "bandwidth_gbs"} {
		if nums[j], err = t.Num(i, c); err != nil {
			return err
		}
	}
	streams := 0
	if kind == "triad" {
		v, err := t.Num(i, "triad_streams")
		if err != nil {
			return err
		}
		streams = int(v)
	}
	block, bps := int(nums[0]), int(nums[1])
	if block > e.dev.Limits.MaxThreadsPerBlock {
		b.skip(fmt.Sprintf("%s, device %s: rows with blocks of more threads than the device's %d (block %%s), which cannot have run as labelled", FileStream, dname, e.dev.Limits.MaxThreadsPerBlock), block)
		return nil
	}
	sh, ok := spoilerShared(e.dev, block, bps)
	if !ok {
		b.skip(fmt.Sprintf("%s, device %s: rows whose blocks per SM the device's shared-memory limits cannot enforce (block %%s)", FileStream, dname), block)
		return nil
	}
	spec, err := streamSpec(kind, streams, sh)
	if err != nil {
		return err
	}
	cfg := fmt.Sprintf("%d×%d", block, bps)
	if err := b.add(e, "gpu-stream", repo+"@"+commit, kind, cfg, spec, [3]int64{int64(block), 1, 1}, kernel.NoFold, nums[2]/streamBytes(kind, streams)); err != nil {
		return fmt.Errorf("%s row %d: %w", FileStream, i+1, err)
	}
	return nil
}

// paperRow adds row i of FilePaperPoints's table pt when it is a measured
// performance in GLup/s.
func (b *perfBuilder) paperRow(pt *Table, i int) error {
	q, _ := pt.Str(i, "quantity")
	kind, _ := pt.Str(i, "value_kind")
	unit, _ := pt.Str(i, "unit")
	dname, _ := pt.Str(i, "device")
	if q != "performance" || kind != "measured" || unit != "GLup/s" {
		return nil
	}
	kern, err := pt.Str(i, "kernel")
	if err != nil {
		return err
	}
	if kern != "star3d-r4" {
		return fmt.Errorf("%s row %d: no spec for kernel %q", FilePaperPoints, i+1, kern)
	}
	var block [3]int64
	for d, a := range []string{"x", "y", "z"} {
		v, err := pt.Num(i, "block_"+a)
		if err != nil {
			return err
		}
		block[d] = int64(v)
	}
	fs, _ := pt.Str(i, "fold")
	fold, ok := paperFold(fs)
	if !ok {
		return fmt.Errorf("%s row %d: unknown fold %q", FilePaperPoints, i+1, fs)
	}
	v, err := pt.Num(i, "value")
	if err != nil {
		return err
	}
	e, err := b.estimator(dname)
	if err != nil {
		return err
	}
	spec, err := exampleSpec(kern)
	if err != nil {
		return err
	}
	if err := b.add(e, "paper", "Ernst et al. 2023", kern, fmt.Sprintf("%d,%d,%d fold %s", block[0], block[1], block[2], fs), spec, block, fold, v); err != nil {
		return fmt.Errorf("%s row %d: %w", FilePaperPoints, i+1, err)
	}
	return nil
}

// paperFold returns the fold of FilePaperPoints's fold column: none, 2y or
// 2z.
func paperFold(fs string) ([3]int64, bool) {
	f := kernel.NoFold
	switch fs {
	case "none", "":
	case "2y":
		f[1] = 2
	case "2z":
		f[2] = 2
	default:
		return f, false
	}
	return f, true
}

// writeModelTableHead writes the head of a table with the leading cells lead
// (separator cells sep) and then two columns, first and second, per model of
// PerfModels.
func writeModelTableHead(w io.Writer, lead, sep, first, second string) {
	fmt.Fprintf(w, "| %s |", lead)
	for _, mn := range PerfModels {
		fmt.Fprintf(w, " %s %s | %s %s |", mn, first, mn, second)
	}
	fmt.Fprintf(w, "\n|%s", sep)
	for range PerfModels {
		fmt.Fprint(w, "---:|---:|")
	}
	fmt.Fprint(w, "\n")
}

// roleName is the report's name of a point's role in the overlap fit.
func roleName(fit bool) string {
	if fit {
		return "fit"
	}
	return "held out"
}

// writeRanksMarkdown renders the ranking of the configurations within each
// measurement.
func (pf *Perf) writeRanksMarkdown(w io.Writer) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	p("\n### Ranking within each measurement\n\n")
	p("Per kernel, device and file of measurements (runs of gpu-stream years apart disagree by up to a factor of 1.6 on the same configuration, so files are not mixed): ")
	p("Spearman ρ of predicted and measured GLup/s over the configurations (block size × blocks per SM), and the measured GLup/s of the configuration predicted fastest as a share of the measured best, in %% ")
	p("(of tied predictions the slowest measured: the roofline predicts every occupancy of a stream alike, so its ρ is undefined there and its share is that of the lowest occupancy).\n\n")
	writeModelTableHead(w, "dataset | device | kernel | file | role | n", "---|---|---|---|---|---:|", "ρ", "share")
	for i := 0; i+len(PerfModels) <= len(pf.Ranks); i += len(PerfModels) {
		r := pf.Ranks[i]
		p("| %s | %s | %s | %s | %s | %d |", r.Dataset, r.Device, r.Kernel, r.Source, roleName(r.Fit), r.N)
		for _, rk := range pf.Ranks[i : i+len(PerfModels)] {
			p(" %s | %s |", fmtNum(rk.Rho, 3), fmtNum(rk.Share, 1))
		}
		p("\n")
	}
	p("\nThe overlap model's predicted best measures at least 93.6 %% of the measured best in every group but the six of one file; the paper's two A100 points are ranked the wrong way round (ρ −1: the predicted best measures 95.7 %% of the other). ")
	p("Where its ρ is below 0.9 (43 other groups: most on the L40, the A40 and the RX 6900 XT, init on most devices, triad on a few), the measured curve is flat: the bandwidth saturates at a few warps per SM and 13–31 of the 23–39 configurations lie within 7 %% of the best, so ρ ranks run-to-run noise on a plateau. ")
	p("The exception is the MI100's 2025 file (RRZE-HPC@977b087, shares 72–89 %%): its bandwidth falls again as blocks grow past a few hundred threads (triad from 982 GB/s at 224×2 to 718 at 1024×2; read from 901 at 704×2 to 737), so 3 of its 39 configurations lie within 5 %% of the best, ")
	p("while the MI100's 2023 file rises to a plateau (read 1180 GB/s at 1024×2) and the overlap model's pick measures 96.0–99.9 %% of its best. A model whose bound only grows with the warps in flight cannot rank a curve that falls; nothing in polyvol's inputs says when it does.\n")
}

// exampleSpec returns the text of an embedded example kernel.
func exampleSpec(name string) (string, error) {
	data, err := examples.Read(name + ".yaml")
	if err != nil {
		return "", err
	}
	return string(data), nil
}

// perfStats groups the points by dataset, device and kernel, and adds the
// pooled fit and held-out groups.
func perfStats(points []PerfPoint) []PerfStat {
	keys, groups := groupPerfPoints(points, func(p PerfPoint) []perfKey {
		return []perfKey{{p.Dataset, p.Device, p.Kernel, "", p.Fit}, {"all", "", "", "", p.Fit}}
	})
	var out []PerfStat
	for _, k := range keys {
		for _, mn := range PerfModels {
			pred, meas := groupValues(points, groups[k], mn)
			bias := 0.0
			for i := range pred {
				bias += 100 * (pred[i] - meas[i]) / meas[i]
			}
			out = append(out, PerfStat{Dataset: k.dataset, Device: k.dev, Kernel: k.kern, Model: mn, Fit: k.fit, N: len(pred),
				MAPE: measured.MAPE(pred, meas), Bias: bias / float64(len(pred))})
		}
	}
	return out
}

// perfRanks ranks the configurations of each kernel on each device within
// each measurement, for every model of PerfModels.
func perfRanks(points []PerfPoint) []PerfRank {
	keys, groups := groupPerfPoints(points, func(p PerfPoint) []perfKey {
		return []perfKey{{p.Dataset, p.Device, p.Kernel, p.Source, p.Fit}}
	})
	var out []PerfRank
	for _, k := range keys {
		for _, mn := range PerfModels {
			pred, meas := groupValues(points, groups[k], mn)
			out = append(out, PerfRank{Dataset: k.dataset, Device: k.dev, Kernel: k.kern, Source: k.source, Model: mn, Fit: k.fit, N: len(pred),
				Rho: measured.Spearman(pred, meas), Share: 100 * measured.PredictedBest(pred, meas).Fraction,
				Worst: 100 * slices.Min(meas) / slices.Max(meas)})
		}
	}
	return out
}

// perfKey names a group of performance points.
type perfKey struct {
	dataset, dev, kern, source string
	fit                        bool
}

// groupPerfPoints puts every point into the groups keysOf names for it and
// returns the groups' keys in report order (dataset, fit before held out,
// device, kernel, source) with their points' indices.
func groupPerfPoints(points []PerfPoint, keysOf func(PerfPoint) []perfKey) ([]perfKey, map[perfKey][]int) {
	groups := map[perfKey][]int{}
	var keys []perfKey
	for i, p := range points {
		for _, k := range keysOf(p) {
			if _, ok := groups[k]; !ok {
				keys = append(keys, k)
			}
			groups[k] = append(groups[k], i)
		}
	}
	slices.SortStableFunc(keys, func(a, b perfKey) int {
		if c := strings.Compare(a.dataset, b.dataset); c != 0 {
			return c
		}
		if a.fit != b.fit {
			if a.fit {
				return -1
			}
			return 1
		}
		return cmp.Or(strings.Compare(a.dev, b.dev), strings.Compare(a.kern, b.kern), strings.Compare(a.source, b.source))
	})
	return keys, groups
}

// groupValues returns model mn's predictions and the measurements of the
// points at idx.
func groupValues(points []PerfPoint, idx []int, mn model.ModelName) (pred, meas []float64) {
	for _, i := range idx {
		pred = append(pred, points[i].Predicted[mn])
		meas = append(meas, points[i].Measured)
	}
	return pred, meas
}

// writePerfMarkdown renders the absolute-performance section.
func (h *Hardware) writePerfMarkdown(w io.Writer) {
	pf := h.Perf
	if pf == nil {
		return
	}
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	p("\n## Absolute performance: GLup/s of each performance model\n\n")
	p("Every row of %s (the gpu-stream kernels init, read, scale, triad, 3pt and 5pt on arrays of 128·2²⁰+2 doubles, ", FileStream)
	p("one element per thread, with gpu-stream's shared-memory spoiler as the spec's `shared_bytes` so that the occupancy calculator gives the file's blocks per SM) ")
	p("on the device of the database that the file names, and the measured A100 GLup/s of %s (star3d-r4, the embedded example). ", FilePaperPoints)
	p("Measured GLup/s = bandwidth / bytes per update (8 for init and read, 8 per stream for triad, 16 otherwise). Method exact. ")
	p("MAPE = mean |predicted − measured| / measured; bias = mean signed error; both in %%.\n\n")
	p("The overlap model's three constants (model.OverlapExponent = %g, model.OverlapLoadRoundTrips = %g, model.OverlapStoreRoundTrips = %g) were fitted jointly on the gpu-stream rows of %s, the V100 box block scan and the RTX A4000 convolution (the joint fit below); ",
		model.OverlapExponent, model.OverlapLoadRoundTrips, model.OverlapStoreRoundTrips, strings.Join(OverlapFitDevices, ", "))
	p("every other device and the paper's points are held out.\n\n")
	writeModelTableHead(w, "dataset | device | kernel | role | n", "---|---|---|---|---:|", "MAPE", "bias")
	for i := 0; i+len(PerfModels) <= len(pf.Stats); i += len(PerfModels) {
		s := pf.Stats[i]
		dev, kern := s.Device, s.Kernel
		if s.Dataset == "all" {
			dev, kern = "**all**", "**all**"
		}
		p("| %s | %s | %s | %s | %d |", s.Dataset, dev, kern, roleName(s.Fit), s.N)
		for _, st := range pf.Stats[i : i+len(PerfModels)] {
			p(" %s | %s |", fmtNum(st.MAPE, 1), fmtNum(st.Bias, 1))
		}
		p("\n")
	}
	p("\nWhere the goal of 12 %% is missed, and why:\n\n")
	p("The warp lives below are cycles per warp, SMs·clock·warps·lanes / measured GLup/s, over the rows with at most 4 warps per SM, in units of the device's measured DRAM latency.\n\n")
	p("- **init** (stores only) is 5–21 %% off (the A100-40GB and the RX6900XT apart, below): its warps' lives are 0.66–1.05 DRAM latencies on the NVIDIA GPUs and 1.09–1.51 on the AMD ones; one constant (model.OverlapStoreRoundTrips = %g) serves both. Fitting the store round trips per vendor on the same fit devices gives 0.68 for NVIDIA and 0.71 for AMD and moves no group by more than 2 points (held out without the A100-40GB and the RX6900XT: 8.2 → 8.1 %%): the stores of scale, triad and the stencils on the AMD GPUs pull the other way, so init's error is scatter, not a vendor offset.\n", model.OverlapStoreRoundTrips)
	p("- **CDNA** (MI100, MI210, MI300A, MI300X): at low occupancy scale, triad and stencil warps live 2.6–3.2 DRAM latencies against 1.7–2.7 on the NVIDIA GPUs, yet the MI100's errors (8–19 %%) are scatter across occupancies with biases of −10 to +8 %%, not one offset: a CDNA factor on the round trips, fitted on the MI100, makes the fit and the held-out CDNA devices worse (×1.1: fit 7.6 → 8.1 %%, held out 13.3 → 13.6 %%). Above the goal stay the MI100's init, read, scale and triad (14–19 %%), the MI210's 5pt and init (17 and 21 %%) and the 5pt on the MI300A and the MI300X (14 and 13 %%).\n")
	p("- **A100-40GB** is 17–43 %% high: its 2024 file (d0c041e) implies warp lives of 3.5–4.0 DRAM latencies where the A100-80GB's imply 2.0–2.4 on the same chip: it reports half the low-occupancy bandwidth of its own 2023 file and of both A100-80GB files, as if one block per SM had been resident where it prints two.\n")
	p("- **RX6900XT** is 21–47 %% low: its streams imply warp lives of 0.2–0.7 of its measured DRAM latency, 1998 cycles of a pointer chase through chains past the 128 MB Infinity Cache with TLB misses included; a stream behaves as if the latency were about 500 cycles, near the Infinity Cache's 410.\n")
	pf.writeRanksMarkdown(w)
	p("\n### The paper's A100 points\n\n| configuration | measured GLup/s |")
	for _, mn := range PerfModels {
		p(" %s |", mn)
	}
	p("\n|---|---:|")
	for range PerfModels {
		p("---:|")
	}
	p("\n")
	for _, pt := range pf.Points {
		if pt.Dataset != "paper" {
			continue
		}
		p("| %s %s, %s | %.1f |", pt.Kernel, pt.Device, pt.Config, pt.Measured)
		for _, mn := range PerfModels {
			p(" %.1f |", pt.Predicted[mn])
		}
		p("\n")
	}
}
