package accuracy

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/measured"
	"github.com/polyvol/polyvol/model"
)

// The published V100 measurements that HardwareReport compares with, as
// named in testdata/measured (copied verbatim, provenance headers included,
// from the project's shared measurement folder).
const (
	FileStar3D    = "v100_star3d_r2_600x600x512_blocks_zfold.csv"
	FileBoxRange  = "v100_box2d_block32x8_range_scan.csv"
	FileBlockScan = "v100_box2d_blockscan_gflops.csv"
)

// HardwareFiles lists the files HardwareReport reads (with its convolution
// section, ConvolutionFiles too).
var HardwareFiles = []string{FileStar3D, FileBoxRange, FileBlockScan, FileStrides, FileStream, FilePaperPoints}

// HardwareDevice is the device of the measurements.
const HardwareDevice = "V100"

// HardwareModels are the performance models compared on the block scan.
var HardwareModels = []model.ModelName{model.ModelRoofline, model.ModelLatency, model.ModelOverlap}

// Table is a CSV file of the shared measurement format: "#" comment lines,
// then a header line and rows, read by column name.
type Table struct {
	Path    string
	Comment []string // the comment lines, without "#"
	Columns map[string]int
	Rows    [][]string
}

// ReadTable reads a measurement CSV file of at most measured.MaxCSVBytes.
// A missing file is an error.
func ReadTable(path string) (*Table, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, measured.MaxCSVBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > measured.MaxCSVBytes {
		return nil, fmt.Errorf("%s: larger than %d MiB; not a measurement file", path, measured.MaxCSVBytes>>20)
	}
	t := &Table{Path: path}
	var body []string
	for _, line := range strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n") {
		switch {
		case strings.HasPrefix(line, "#"):
			t.Comment = append(t.Comment, strings.TrimPrefix(line, "#"))
		case strings.TrimSpace(line) != "":
			body = append(body, line)
		}
	}
	recs, err := csv.NewReader(strings.NewReader(strings.Join(body, "\n"))).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(recs) < 2 {
		return nil, fmt.Errorf("%s: no rows", path)
	}
	t.Columns = map[string]int{}
	for i, c := range recs[0] {
		t.Columns[strings.TrimSpace(c)] = i
	}
	t.Rows = recs[1:]
	return t, nil
}

// Str returns row i's cell of column c.
func (t *Table) Str(i int, c string) (string, error) {
	j, ok := t.Columns[c]
	if !ok {
		return "", fmt.Errorf("%s: no column %q", t.Path, c)
	}
	if j >= len(t.Rows[i]) {
		return "", fmt.Errorf("%s: row %d has no column %q", t.Path, i+1, c)
	}
	return strings.TrimSpace(t.Rows[i][j]), nil
}

// Num returns row i's cell of column c as a number.
func (t *Table) Num(i int, c string) (float64, error) {
	s, err := t.Str(i, c)
	if err != nil {
		return 0, err
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: row %d column %s: %w", t.Path, i+1, c, err)
	}
	return v, nil
}

// star3DOffset is the alignment offset of the star3d arrays in elements:
// the ghost layers (2 + 2·600 + 2·600²) plus the notebook's "byte_offset for
// alignment: 16" (2 doubles), which puts the first interior point on a
// 32 B boundary (721204 = 4·180301).
const star3DOffset = 2 + 2*600 + 2*600*600 + 2

// star3DSpec is the 13-point star of range 2 of the star3d file: arrays of
// 600×600×512 doubles with two ghost layers and the 596×596×508 interior
// updated, its first point aligned (star3DOffset).
func star3DSpec() string {
	var loads []string
	loads = append(loads, "[x, y, z]")
	for k := 1; k <= 2; k++ {
		for _, d := range []string{"[x + %d, y, z]", "[x - %d, y, z]", "[x, y + %d, z]", "[x, y - %d, z]", "[x, y, z + %d]", "[x, y, z - %d]"} {
			loads = append(loads, fmt.Sprintf(d, k))
		}
	}
	return fmt.Sprintf(`name: star3d-r2-v100
domain: [596, 596, 508]
flops: 13
fields:
  - name: src
    element: 8
    extent: [600, 600, 512]
    offset: %d
    load: [%s]
  - name: dst
    element: 8
    extent: [600, 600, 512]
    offset: %d
    store: [[x, y, z]]
`, star3DOffset, strings.Join(loads, ", "), star3DOffset)
}

// box2DSpec is the 2-D box stencil of range r of the box2d files, on the
// grid the range scan's store volumes fit: threads x < 14976 and rows
// y in [r, 15000−r) of 15000² arrays. The spec's x starts at thread 0, as
// the hardware's blocks do, so block footprints keep their alignment; the
// r threads x < r that return early on the hardware are counted as
// updates, an error of r/14976 ≤ 0.06 % in the normalisation. The offset
// is row r plus 16 elements (128 B, so alignment is kept), which keeps
// the loads at x − r inside the array. With l1only the
// coordinates wrap into a 128×64 tile at (1024, 1024), as the notebook's
// L1-resident variant does.
func box2DSpec(r int, l1only bool) string {
	var loads []string
	for dy := -r; dy <= r; dy++ {
		for dx := -r; dx <= r; dx++ {
			if l1only {
				loads = append(loads, fmt.Sprintf("[(x mod 128) + %d, (y mod 64) + %d]", 1024+dx-r, 1024+dy-r))
			} else {
				loads = append(loads, fmt.Sprintf("[x + %d, y + %d]", dx, dy))
			}
		}
	}
	store := "[x, y]"
	if l1only {
		store = fmt.Sprintf("[(x mod 128) + %d, (y mod 64) + %d]", 1024-r, 1024-r)
	}
	n := (2*r + 1) * (2*r + 1)
	return fmt.Sprintf(`name: box2d-r%d-v100
domain: [%d, %d]
flops: %d
fields:
  - name: B
    element: 8
    extent: [15000, 15000]
    offset: %d
    load: [%s]
  - name: A
    element: 8
    extent: [15000, 15000]
    offset: %d
    store: [%s]
`, r, 14976, 15000-2*r, n+1, 16+15000*r, strings.Join(loads, ", "), 16+15000*r, store)
}

// VolumeStat is the accuracy of one method at one level of one dataset.
type VolumeStat struct {
	Dataset, Level, Predicted, Method string
	N                                 int
	MAPE                              float64 // percent
	Rho                               float64 // Spearman ρ; NaN when undefined
}

// GroupStat is the ranking accuracy of one method and performance model on
// one (run, range, variant) group of the block scan.
type GroupStat struct {
	Run, Variant string
	Range        int
	Method       string
	Model        model.ModelName
	N            int     // distinct blocks (repeats averaged)
	Rho          float64 // Spearman ρ of predicted GLup/s and measured GFlop/s
	Top1         bool    // the predicted best is the measured best
	Fraction     float64 // measured performance of the predicted best / measured best
	Best         [3]int64
}

// Hardware holds every figure of docs/accuracy-hardware.md.
type Hardware struct {
	Volumes []VolumeStat
	Groups  []GroupStat
	// L1 holds the L1 cycle model against gpu-strides (FileStrides), one
	// point per row, and L1Stats its summary per device, type and kernel.
	L1      []L1Point
	L1Stats []L1Stat
	// Perf holds the absolute GLup/s of every performance model against
	// FileStream and FilePaperPoints.
	Perf *Perf
	// Convolution holds the Kernel Tuner convolution sweeps of four GPUs
	// against the predicted times (ConvolutionReport).
	Convolution *Convolution
	// Hotspot holds the Kernel Tuner hotspot sweeps (time steps per
	// launch) against the predicted times per step (HotspotReports).
	Hotspot *HotspotSection
	Skipped []string // rows left out, with the reason
	// Joint is the joint fit of the overlap model on the stream kernels,
	// the V100 box sets and the convolution, with its held-out figures;
	// nil without the convolution (JointFit).
	Joint *JointFit

	fit []fitPoint // the box block scan's points of the joint fit
}

// estimator caches estimates by kernel text, launch, method and model.
type estimator struct {
	dev   *device.Device
	specs map[string]*kernel.Kernel
	cache map[string]*model.Report
}

func (e *estimator) estimate(spec string, block, fold [3]int64, m model.Method, mn model.ModelName) (*model.Report, error) {
	key := fmt.Sprint(spec, block, fold, m.Name, mn)
	if r, ok := e.cache[key]; ok {
		return r, nil
	}
	k, ok := e.specs[spec]
	if !ok {
		var err error
		if k, err = kernel.Parse([]byte(spec), "spec.yaml"); err != nil {
			return nil, err
		}
		e.specs[spec] = k
	}
	l := k.NewLaunch(block, fold)
	r, err := model.Estimate(k, l, e.dev, model.Options{Method: m, Model: mn})
	if err != nil {
		return nil, fmt.Errorf("block %v fold %v: %w", block, fold, err)
	}
	e.cache[key] = r
	return r, nil
}

// glups is the predicted GLup/s of spec under block b (no folding) with
// method m and performance model mn, computed with model.Predict from the
// roofline estimate's volumes: what Estimate with that model gives.
func (e *estimator) glups(spec string, b [3]int64, m model.Method, mn model.ModelName) (float64, error) {
	r, err := e.estimate(spec, b, kernel.NoFold, m, model.ModelRoofline)
	if err != nil {
		return 0, err
	}
	p, err := model.Predict(mn, r, e.dev, e.specs[spec].FPType)
	return p.GLups, err
}

// HardwareReport compares the estimates of both methods (and, on the block
// scan, both performance models) with the V100 measurements in dir, and the
// L1 cycle model with the gpu-strides micro-benchmark on every device of
// StridesDevices; dir must hold every file of HardwareFiles. With
// convolutionEvery > 0 it also compares the predicted times with the Kernel
// Tuner convolution sweeps, every convolutionEvery-th launch of each
// (ConvolutionReport; 1: all of them, minutes of CPU time), and the
// predicted times per step with the Kernel Tuner hotspot sweeps and the
// best T on every device (HotspotReports).
func HardwareReport(dir string, convolutionEvery int, progress io.Writer) (*Hardware, error) {
	dev, err := device.Lookup(HardwareDevice)
	if err != nil {
		return nil, err
	}
	e := &estimator{dev: dev, specs: map[string]*kernel.Kernel{}, cache: map[string]*model.Report{}}
	h := &Hardware{}
	if err := h.star3D(e, filepath.Join(dir, FileStar3D), progress); err != nil {
		return nil, err
	}
	if err := h.boxRange(e, filepath.Join(dir, FileBoxRange), progress); err != nil {
		return nil, err
	}
	if err := h.blockScan(e, filepath.Join(dir, FileBlockScan), progress); err != nil {
		return nil, err
	}
	if err := h.l1Strides(filepath.Join(dir, FileStrides), progress); err != nil {
		return nil, err
	}
	pf, skipped, err := PerfReport(dir, progress)
	if err != nil {
		return nil, err
	}
	h.Perf = pf
	h.Skipped = append(h.Skipped, skipped...)
	if convolutionEvery > 0 {
		if h.Convolution, err = ConvolutionReport(dir, convolutionEvery, nil, progress); err != nil {
			return nil, err
		}
		if h.Joint, err = h.FitJoint(dir, progress); err != nil {
			return nil, err
		}
		if h.Hotspot, err = HotspotReports(dir, 1, nil, progress); err != nil {
			return nil, err
		}
	}
	return h, nil
}

// hardwareColumns are the measured volume columns of the published data,
// each with the counter that measured it (the level of Levels it gives).
var hardwareColumns = []struct{ column, counter string }{
	{"meas_l2_load_B_per_lup", measured.CounterL2Read},
	{"meas_l2_store_B_per_lup", measured.CounterL2Write},
	{"meas_dram_load_B_per_lup", measured.CounterDRAMRead},
	{"meas_dram_store_B_per_lup", measured.CounterDRAMWrite},
}

// volumes adds the volume statistics of one dataset: rows[i] is estimated
// by launch(i), and scale(i) converts its measured values to B per update.
func (h *Hardware) volumes(e *estimator, t *Table, dataset string, rows []int, launch func(int) (string, [3]int64, [3]int64), scale func(int) float64) error {
	for _, m := range Methods {
		reps := make([]*model.Report, len(rows))
		for j, i := range rows {
			spec, b, f := launch(i)
			r, err := e.estimate(spec, b, f, m, model.ModelRoofline)
			if err != nil {
				return fmt.Errorf("%s row %d: %w", t.Path, i+1, err)
			}
			reps[j] = r
		}
		for _, col := range hardwareColumns {
			lv, _ := levelOf(col.counter)
			var pred, meas []float64
			for j, i := range rows {
				v, err := t.Num(i, col.column)
				if err != nil {
					return err
				}
				meas = append(meas, v*scale(i))
				pred = append(pred, lv.Get(Predicted(reps[j].Derived)))
			}
			h.Volumes = append(h.Volumes, VolumeStat{dataset, lv.Name, lv.Key, m.Name, len(rows), measured.MAPE(pred, meas), measured.Spearman(pred, meas)})
		}
	}
	return nil
}

func (h *Hardware) star3D(e *estimator, path string, progress io.Writer) error {
	t, err := ReadTable(path)
	if err != nil {
		return err
	}
	spec := star3DSpec()
	var rows []int
	for i := range t.Rows {
		bz, err := t.Num(i, "block_z")
		if err != nil {
			return err
		}
		if bz > float64(kernel.MaxBlockDim[2]) {
			h.Skipped = append(h.Skipped, fmt.Sprintf("%s row %d: block z = %g exceeds CUDA's limit of 64, so it cannot have run as labelled", FileStar3D, i+1, bz))
			continue
		}
		rows = append(rows, i)
	}
	fmt.Fprintf(progress, "estimating %d configurations of %s\n", len(rows), FileStar3D)
	launch := func(i int) (string, [3]int64, [3]int64) {
		var b, f [3]int64
		for d, a := range []string{"x", "y", "z"} {
			bv, _ := t.Num(i, "block_"+a)
			fv, _ := t.Num(i, "fold_"+a)
			b[d], f[d] = int64(bv), int64(fv)
		}
		return spec, b, f
	}
	return h.volumes(e, t, "star3d r=2, 596×596×508, blocks × z-fold", rows, launch, func(int) float64 { return 1 })
}

func (h *Hardware) boxRange(e *estimator, path string, progress io.Writer) error {
	t, err := ReadTable(path)
	if err != nil {
		return err
	}
	var rows []int
	for i := range t.Rows {
		if _, err := t.Num(i, "range"); err != nil {
			return err
		}
		rows = append(rows, i) // r = 0 is the copy, a box of range 0
	}
	fmt.Fprintf(progress, "estimating %d configurations of %s\n", len(rows), FileBoxRange)
	rng := func(i int) int { r, _ := t.Num(i, "range"); return int(r) }
	launch := func(i int) (string, [3]int64, [3]int64) {
		return box2DSpec(rng(i), false), [3]int64{32, 8, 1}, kernel.NoFold
	}
	// The file's volumes are normalised by 15000²; the spec's domain has
	// 14976·(15000−2r) points (box2DSpec).
	scale := func(i int) float64 {
		r := float64(rng(i))
		return 15000 * 15000 / (14976 * (15000 - 2*r))
	}
	return h.volumes(e, t, "box2d r=0…9, block 32×8, four runs", rows, launch, scale)
}

// blockScan ranks the block sizes of FileBlockScan (at path) per run,
// range and variant with every method and model of HardwareModels against
// the measured mean GFlop/s of each block, and adds the exact method's
// points to the overlap model's fit data. Unknown variants are skipped.
func (h *Hardware) blockScan(e *estimator, path string, progress io.Writer) error {
	t, err := ReadTable(path)
	if err != nil {
		return err
	}
	groups, order, err := scanGroups(t)
	if err != nil {
		return err
	}
	for _, k := range order {
		blocks, meas := scanMeans(groups[k])
		if k.variant != "memory" && k.variant != "l1only" {
			h.Skipped = append(h.Skipped, fmt.Sprintf("%s: run %s, range %d, variant %s (%d blocks): not evaluated; unknown variant", FileBlockScan, k.run, k.rng, k.variant, len(blocks)))
			continue
		}
		fmt.Fprintf(progress, "estimating %d blocks of run %s, range %d, %s\n", len(blocks), k.run, k.rng, k.variant)
		if err := h.scanGroup(e, path, k, blocks, meas); err != nil {
			return err
		}
	}
	return nil
}

// scanKey is one group of the block scan: a run, a variant and a stencil
// range.
type scanKey struct {
	run, variant string
	rng          int
}

// scanGroups reads the block scan's table t: per group, the measured
// GFlop/s of each block, and the groups sorted by variant, run and range.
func scanGroups(t *Table) (map[scanKey]map[[3]int64][]float64, []scanKey, error) {
	groups := map[scanKey]map[[3]int64][]float64{}
	var order []scanKey
	for i := range t.Rows {
		run, err := t.Str(i, "run_commit")
		if err != nil {
			return nil, nil, err
		}
		series, err := t.Str(i, "series")
		if err != nil {
			return nil, nil, err
		}
		_, variant, _ := strings.Cut(series, ":")
		r, err := t.Num(i, "range")
		if err != nil {
			return nil, nil, err
		}
		var b [3]int64
		for d, a := range []string{"x", "y", "z"} {
			v, err := t.Num(i, "block_"+a)
			if err != nil {
				return nil, nil, err
			}
			b[d] = int64(v)
		}
		g, err := t.Num(i, "meas_gflops")
		if err != nil {
			return nil, nil, err
		}
		k := scanKey{run, variant, int(r)}
		if groups[k] == nil {
			groups[k] = map[[3]int64][]float64{}
			order = append(order, k)
		}
		groups[k][b] = append(groups[k][b], g)
	}
	slices.SortFunc(order, func(a, b scanKey) int {
		return strings.Compare(fmt.Sprint(a.variant, a.run, a.rng+100), fmt.Sprint(b.variant, b.run, b.rng+100))
	})
	return groups, order, nil
}

// scanMeans returns the blocks of one group in order and the mean of each
// block's measurements.
func scanMeans(samples map[[3]int64][]float64) ([][3]int64, []float64) {
	blocks := make([][3]int64, 0, len(samples))
	for b := range samples {
		blocks = append(blocks, b)
	}
	slices.SortFunc(blocks, func(a, b [3]int64) int { return slices.Compare(a[:], b[:]) })
	meas := make([]float64, len(blocks))
	for j, b := range blocks {
		s := 0.0
		for _, v := range samples[b] {
			s += v
		}
		meas[j] = s / float64(len(samples[b]))
	}
	return blocks, meas
}

// scanGroup predicts the blocks of group k with every method and model of
// HardwareModels and ranks them against meas.
func (h *Hardware) scanGroup(e *estimator, path string, k scanKey, blocks [][3]int64, meas []float64) error {
	spec := box2DSpec(k.rng, k.variant == "l1only")
	for _, m := range Methods {
		for _, mn := range HardwareModels {
			pred := make([]float64, len(blocks))
			for j, b := range blocks {
				g, err := e.glups(spec, b, m, mn)
				if err != nil {
					return fmt.Errorf("%s: run %s range %d %s: %w", path, k.run, k.rng, k.variant, err)
				}
				pred[j] = g
			}
			if m.Name == model.MethodExact.Name && mn == model.ModelOverlap {
				for j, b := range blocks {
					r, err := e.estimate(spec, b, kernel.NoFold, m, model.ModelRoofline)
					if err != nil {
						return err
					}
					h.fit = append(h.fit, newFitPoint(datasetBox, fmt.Sprintf("box2d-r%d", k.rng), fmt.Sprintf("%s r=%d %s", k.run, k.rng, k.variant), meas[j], r, e.dev))
				}
			}
			best := measured.PredictedBest(pred, meas)
			h.Groups = append(h.Groups, GroupStat{Run: k.run, Variant: k.variant, Range: k.rng, Method: m.Name, Model: mn,
				N: len(blocks), Rho: measured.Spearman(pred, meas), Top1: best.MeasuredRank == 1, Fraction: best.Fraction, Best: blocks[best.Index]})
		}
	}
	return nil
}

// WriteMarkdown renders h as docs/accuracy-hardware.md.
func (h *Hardware) WriteMarkdown(w io.Writer) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	p("# polyvol against published hardware measurements\n\n")
	p("Generated by `go run . measured --hardware testdata/measured -o docs/accuracy-hardware.md`; do not edit by hand.\n")
	p("`go test ./accuracy -run 'TestHardwareBounds|TestPerfBounds|TestPerfRankBounds'` fails when a figure here moves past the bound recorded in accuracy/hardware_test.go or accuracy/perf_test.go.\n\n")
	p("Measurements: `testdata/measured/` (%s, %s, %s on the %s; %s on the devices of its L1 section), each with its provenance header. Devices from the device database.\n\n",
		FileStar3D, FileBoxRange, FileBlockScan, HardwareDevice, FileStrides)
	p("## Volumes\n\nMAPE = mean |predicted − measured| / measured over the configurations; ρ = Spearman rank correlation. ")
	p("The range scan's volumes are converted from bytes per 15000² to bytes per point of the spec's 14976×(15000−2r) domain (its header; accuracy/hardware.go says why x starts at 0).\n\n")
	p("| dataset | level | predicted | method | n | MAPE %% | ρ |\n|---|---|---|---|---:|---:|---:|\n")
	for _, v := range h.Volumes {
		p("| %s | %s | %s | %s | %d | %s | %s |\n", v.Dataset, v.Level, v.Predicted, v.Method, v.N, fmtNum(v.MAPE, 1), fmtNum(v.Rho, 3))
	}
	p("\nWhere method exact misses the 5 %% goal or is behind method reference, and what was tried:\n\n")
	p("- **star3d L2→L1.** The error sits in the folded narrow blocks: at z-fold 4 the 4- and 8-wide blocks reload about twice the L1 capacity misses predicted (33 against 16 B/Lup), more than the paper-era L1 curve gives at their O_L1 of about 2. ")
	p("A rule with no L1 capacity misses while the co-resident blocks fit (model.Method.NoEvictionsWhileFits) brings box2d L2→L1 to 0.9 %% and the simulator to 0.3 %%, but star3d to 7.6 %%: ")
	p("the two V100 sets disagree just below O_L1 = 1 (box2d misses nothing at 0.91, star3d fold-2 blocks lose 6–12 %% of their reuse between warps at 0.8–0.9), so no capacity rule fitted on one passes the other. ")
	p("O_L1 does not order the folded blocks' losses (128,1,8 fold 4: O_L1 2.9, 11 %% of the redundant loads lost; 4,64,4 fold 4: 3.6, 37 %%); the share of L1 that one load instruction of all 64 warps fills does (55 %% for 4-wide blocks, 19 %% from 32 wide), ")
	p("and polyvol's LRU simulator of the same kernels gets the 8-wide fold-4 rows right (8,16,8: 34.1 against 35.6 B/Lup measured, exact 24.9) but not the 4-wide (41–44 against 57–60). ")
	p("A rule on the per-instruction footprint would need the order of the loads in the V100 binary, which moves the simulated volume by up to 30 %%; it is not built.\n")
	p("- **box2d L2→L1** (6.4 %%): the rule above that takes no L1 capacity misses while the blocks fit brings it to 0.9 %%, and star3d L2→L1 to 7.6 %%; it stays off for that reason.\n")
	p("- **star3d DRAM** (7.2 %%, method reference 8.0 %%). The error is in the z-folded launches, whose waves allocate 0.8–2.5 times the 6 MB L2 (1.2 at most without folding): MAPE 0.7 %% at fold 1, 3.8 %% at fold 2, 17.0 %% at fold 4 (5.7 of the 7.2 points). ")
	p("The compulsory volume is right everywhere, and at fold 1 the measured volume equals the one after layer reuse within 1 %%. ")
	p("At fold 4 memLoadEvicts puts the wave's one L2 miss fraction (0.21–0.43 at O_L2 1.5–2.5) on every redundant L2→L1 load, but what that load is decides whether it misses: ")
	p("in blocks one row tall (128,1,8: 20.0 predicted against 12.5 B/Lup measured; 64,1,16: 20.5 against 13.2) it is the y halo that a block a few launch slots earlier fetched, which the LRU simulator keeps entirely (10.6 and 10.1 B/Lup, about the compulsory volume), ")
	p("while in the 4-wide blocks it is mostly L1 capacity reloads, which the model already underestimates at L2→L1 (4,16,16 fold 4: 42.8 against 59.6 B/Lup), so the DRAM load comes out low (21.5 against 27.5). ")
	p("At fold 2 (O_L2 0.8–1.7) 25 of the 30 measured volumes lie above even the compulsory volume before any layer reuse: the hardware loses the previous wave's y-layer reuse, which the hit curve keeps at 86–100 %%. ")
	p("A rule that applies the L2 miss fraction to the L1 capacity reloads only, and counts the reuse between the blocks of one wave as hits, brings box2d DRAM to 2.8 %% but star3d to 7.8 %% (5.2 %% when fed the measured L2→L1 loads): it needs the L1 capacity fix first, and it is not built.\n")
	p("- **box2d DRAM** (5.0 against 3.4 %%). A rule that forms the L2 misses of the reuse between the blocks of one wave from the launch-order distance of neighbouring blocks instead of the whole wave brought it to 3.3 %% (star3d 7.2 → 7.1 %%), ")
	p("but against the LRU simulator it turned exact's DRAM ranking on the A100 with a 2 MB L2 negative (mean ρ 0.44 → −0.31, top-1 7/7 → 5/7), so it is not a method choice.\n")
	p("\n## Block scan: ranking of the blocks within each (run, range, variant) group\n\n")
	p("The file records GFlop/s but neither the domain nor the flops per update, so only rankings are compared. ")
	p("The specs assume the range scan's 15000² arrays and (2r+1)²+1 flops per update; repeated measurements of one block in one run are averaged. ")
	p("Top-1: the block predicted fastest is the measured fastest; share: its measured GFlop/s over the group's best.\n\n")
	p("Two V100 constants of the device database come from this file, so these groups are not independent of them: `l1_tag_cycles_per_line` = 0.75 ")
	p("(the L1 tag stage resolves 4 lines per 3 cycles: fitted on the L1-resident variant, whose cycles per warp load are 0.67–0.78 per distinct line for blocks 1 to 16 threads wide, where the paper's ⌈(lines+2)/4⌉ gives up to 2.7 times fewer) ")
	p("and `block_launch_cycles` = 173 (one block start per SM per 173 cycles: every 32-thread block runs at 20.44–20.48 GLup/s in both variants, 64- and 128-thread blocks at two and four times that where nothing else binds). ")
	p("Together they raise the overlap model's ρ from 0.69–0.87 to 0.87–0.99 (method exact).\n\n")
	p("In the L1-resident variant every line the grid loads fits in the V100's 128 KiB L1 (at range 4, 72 rows of 9–10 lines: 87 KiB), so an SM fetches and allocates each line once, whichever of its blocks touches it (model.Method.GridResidentL1, method exact). ")
	p("Charging each block its own allocation term and L2 misses, as before, predicted one-row blocks up to 18 %% slower than measured and L2 the limiter of a kernel that never leaves L1; with the rule the exact overlap model's ρ of those groups rose from 0.84–0.98 to 0.942–0.984, and its predicted best from 94–97 %% to 97.6–99.9 %% of the measured best at ranges 2–4. ")
	p("At range 1 the blocks 32 or more threads wide run 17–25 %% below their L1 bound (113–124 against 150 GLup/s) and the predicted best measures 91–95 %% of the best: about 7 cycles per warp and update beyond the modelled L1 cycles, the same excess as at range 4 (190 against 183 cycles per warp and update), so a cost per update rather than per load; ")
	p("a store writing through at 32 B per cycle (8 cycles for a warp's 256 B, where the model charges 2 wavefronts) would give it, but no measurement here isolates the store path (gpu-strides has loads only), and such a term (one L1 cycle per 32 B sector a store writes, tried) moves ρ by at most 0.005 in any group, being nearly the same for every block 32 or more wide; it was not added. ")
	p("The roofline model has no launch bound: at ranges 1–3 of run 7e804a7 it ties the 32-thread blocks, which the launch rate holds to 20 GLup/s, with the best, and a tie is credited with its slowest measured block (measured.PredictedBest), hence its shares of 15–67 %% there; the latency model prefers 8-wide blocks (shares 30–60 %%).\n\n")
	p("Still missing in the memory variant: the 2-D blocks of the DRAM-bound groups (ranges 1 and 2) run 4–15 %% below their prediction, more the taller they are (32×32: 15 %%), while single-row blocks run at or above theirs; ")
	p("the volumes do not show why (the DRAM volume is the same, the L2 volume falls with the height), so the predicted best at ranges 1–3 (32×32, 64×16) measures 88–95 %% of the best and ρ stays at 0.88–0.94 in those groups. ")
	p("Runs 6356407, 7e804a7 and 9988dfc are one measurement (ρ 1.000 between them on their common blocks, most values identical); run b3e12ef is a separate one that agrees with them only at ρ 0.946–0.99, which bounds what any model can reach on it. ")
	p("At ranges 3 and 4 (ρ 0.942–0.953) the L1-resident blocks 8 threads wide run 7–10 %% faster than predicted and 16 wide 2–4 %% faster, while the blocks 32 or more wide run 4–10 %% slower: the tag stage's 0.75 cycles per line is an average over widths 1–16, and the wide blocks carry the excess per update above, so blocks within a few percent of each other swap places. ")
	p("Repeats of one block within one run differ by at most 0.2 %% in the L1-resident variant (1.3 %% in the memory variant), so the orders within 2–3 %% of the L1-resident plateaus are measured, not noise.\n\n")
	p("| variant | run | range | method | model | blocks | ρ | top-1 | share of best %% | predicted best |\n|---|---|---:|---|---|---:|---:|---|---:|---|\n")
	for _, g := range h.Groups {
		top := "no"
		if g.Top1 {
			top = "yes"
		}
		p("| %s | %s | %d | %s | %s | %d | %s | %s | %s | %d,%d,%d |\n", g.Variant, g.Run, g.Range, g.Method, g.Model, g.N, fmtNum(g.Rho, 3), top, fmtNum(100*g.Fraction, 1), g.Best[0], g.Best[1], g.Best[2])
	}
	h.writeL1Markdown(w)
	h.writePerfMarkdown(w)
	if h.Convolution != nil {
		h.Convolution.WriteMarkdown(w)
	}
	if h.Joint != nil {
		h.Joint.WriteMarkdown(w)
	}
	if h.Hotspot != nil {
		h.Hotspot.WriteMarkdown(w)
	}
	if len(h.Skipped) > 0 {
		p("\n## Rows left out\n\n")
		for _, s := range h.Skipped {
			p("- %s\n", s)
		}
	}
}

// fmtNum formats v with prec decimals, "–" where it is undefined.
func fmtNum(v float64, prec int) string {
	if math.IsNaN(v) {
		return "–"
	}
	return strconv.FormatFloat(v, 'f', prec, 64)
}
