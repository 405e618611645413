package accuracy

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/footprint"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/measured"
)

// FileStrides is gpu-benches' L1 micro-benchmark (gpu-strides): cycles per
// warp load of one thread block on one SM, for strided loads and 2-D warp
// tiles, on the devices of StridesDevices.
const FileStrides = "gpu_strides_l1_cycles.csv"

// StridesDevices maps the file's device names to the device database. The
// a100 file does not say whether the card has 40 or 80 GB; both entries have
// the same SM and L1 parameters.
var StridesDevices = map[string]string{
	"a100":  "A100-40GB",
	"a40":   "A40",
	"h200":  "H200",
	"mi210": "MI210",
	"rdna2": "RX6900XT",
}

// stridesDeviceOrder is the order of the devices in the report.
var stridesDeviceOrder = []string{"a100", "a40", "h200", "mi210", "rdna2"}

// stridesLoads is the number of loads per thread and loop iteration of the
// benchmark: element offsets 0, 4, …, 28 from the thread's base pointer.
const stridesLoads = 8

// stridesSpec is the benchmark's strideKernel as a kernel spec: 1024
// threads, lane x loads elements s·(x mod 64) + 4j for j = 0…7.
func stridesSpec(element, stride int) string {
	var loads []string
	for j := range stridesLoads {
		loads = append(loads, fmt.Sprintf("[%d*(x mod 64) + %d]", stride, 4*j))
	}
	return fmt.Sprintf(`name: gpu-strides-stride%d
domain: [1024]
fields:
  - name: A
    element: %d
    extent: [%d]
    load: [%s]
`, stride, element, 64*stride+4*stridesLoads, strings.Join(loads, ", "))
}

// stridesPitch is the row pitch of the benchmark's blockKernel in elements.
const stridesPitch = 4098

// tileSpec is the benchmark's blockKernel as a kernel spec: block
// (w, 1024/w), thread (x, y) loads element (x mod 64) + 4j of row
// (y mod 32) + 1 of an array with a pitch of 4098 elements, so each warp
// reads a w × 32/w tile (64 × 1 for w = 64).
func tileSpec(element, w int) string {
	var loads []string
	for j := range stridesLoads {
		loads = append(loads, fmt.Sprintf("[(x mod 64) + %d, (y mod 32) + 1]", 4*j))
	}
	return fmt.Sprintf(`name: gpu-strides-tile%d
domain: [%d, %d]
fields:
  - name: A
    element: %d
    extent: [%d, 33]
    load: [%s]
`, w, w, 1024/w, element, stridesPitch, strings.Join(loads, ", "))
}

// L1Point is one row of the strides file next to its prediction, in cycles
// per 32-thread warp load.
type L1Point struct {
	File, Device string // the file's device name and the database's
	DType, Kind  string // float or double; stride or block
	Param        int    // the stride in elements, or the tile width w
	Measured     float64
	// MeasuredData and MeasuredTag are the counters
	// l1tex__data_pipe_lsu_wavefronts and l1tex__t_output_wavefronts per
	// warp load (NVIDIA only, NaN on AMD).
	MeasuredData, MeasuredTag float64
	// Predicted is 32·Σc / (threads · 8): method exact's per-instruction
	// cycles of §3.8, without the allocation term (see l1Predict).
	Predicted, Data, Tag float64
	Excluded             string // why the row is not an L1 throughput; empty if it is
}

// Dev returns the deviation (predicted − measured)/measured in percent.
func (p L1Point) Dev() float64 { return 100 * (p.Predicted - p.Measured) / p.Measured }

// L1Stat summarises one (device, element type, kernel) group of L1Points
// that are not excluded.
type L1Stat struct {
	File, Device, DType, Kind string
	N                         int
	MAPE                      float64 // percent
	Within5                   int     // points within 5 %
	MaxDev                    float64 // largest |deviation| in percent
}

// l1Predict returns the predicted cycles per warp load of spec on device d,
// for a grid of one block as the benchmark runs: method exact's L1 cycle
// model over that block's warps (footprint.L1Cycles). The benchmark loads
// the same L1-resident data 147456 times per thread, so the allocation term
// (one data-pipe cycle per line filled, the paper's per-field L1 cycles) amortises to
// nothing and is left out.
func l1Predict(spec string, block [3]int64, d *device.Device) (total, data, tag float64, err error) {
	k, err := kernel.Parse([]byte(spec), "spec.yaml")
	if err != nil {
		return 0, 0, 0, err
	}
	l := k.NewLaunch(block, kernel.NoFold)
	noFill := func(footprint.FieldInstructions, [][3]int64) (float64, error) { return 0, nil }
	r, err := footprint.L1Cycles(k, l, d.Memory(), footprint.ExactWarpRules, [][3]int64{{0, 0, 0}}, noFill)
	if err != nil {
		return 0, 0, 0, err
	}
	scale := float64(32) / stridesLoads
	return scale * r.Cycles, scale * r.DataPipe, scale * r.Tag, nil
}

// l1Strides compares the L1 cycle model with every row of the strides file
// whose device is in the database.
func (h *Hardware) l1Strides(path string, progress io.Writer) error {
	t, err := ReadTable(path)
	if err != nil {
		return err
	}
	fmt.Fprintf(progress, "predicting %d rows of %s\n", len(t.Rows), FileStrides)
	devs := map[string]*device.Device{}
	for i := range t.Rows {
		var p L1Point
		if p.File, err = t.Str(i, "device"); err != nil {
			return err
		}
		name, ok := StridesDevices[p.File]
		if !ok {
			h.Skipped = append(h.Skipped, fmt.Sprintf("%s row %d: device %q is not in the database", FileStrides, i+1, p.File))
			continue
		}
		p.Device = name
		if devs[name] == nil {
			if devs[name], err = device.Lookup(name); err != nil {
				return err
			}
		}
		if p.DType, err = t.Str(i, "dtype"); err != nil {
			return err
		}
		if p.Kind, err = t.Str(i, "kind"); err != nil {
			return err
		}
		param, err := t.Num(i, "param")
		if err != nil {
			return err
		}
		p.Param = int(param)
		if p.Measured, err = t.Num(i, "cycles_per_warp_load"); err != nil {
			return err
		}
		p.MeasuredData, p.MeasuredTag = math.NaN(), math.NaN()
		if devs[name].Vendor == "nvidia" { // the Nsight Compute counters of the L1TEX
			if p.MeasuredData, err = t.Num(i, "l1tex_data_pipe_lsu_wavefronts"); err != nil {
				return err
			}
			if p.MeasuredTag, err = t.Num(i, "l1tex_t_output_wavefronts"); err != nil {
				return err
			}
		}
		element := 4
		if p.DType == "double" {
			element = 8
		}
		var spec string
		var block [3]int64
		switch p.Kind {
		case "stride":
			spec, block = stridesSpec(element, p.Param), [3]int64{1024, 1, 1}
		case "block":
			spec, block = tileSpec(element, p.Param), [3]int64{int64(p.Param), int64(1024 / p.Param), 1}
		default:
			return fmt.Errorf("%s row %d: unknown kind %q", path, i+1, p.Kind)
		}
		if p.Predicted, p.Data, p.Tag, err = l1Predict(spec, block, devs[name]); err != nil {
			return fmt.Errorf("%s row %d: %w", path, i+1, err)
		}
		if p.File == "a40" && p.DType == "double" {
			// The file's header: the A40's FP64 rate (1/64 of FP32) caps the
			// loop's multiply-adds at about 8 cycles per warp load.
			p.Excluded = "FP64-bound (A40 FP64 rate, file header)"
		}
		h.L1 = append(h.L1, p)
	}
	h.L1Stats = l1Stats(h.L1)
	return nil
}

// l1Stats groups the points by device, element type and kernel.
func l1Stats(points []L1Point) []L1Stat {
	var out []L1Stat
	idx := map[string]int{}
	var pred, meas [][]float64
	for _, p := range points {
		if p.Excluded != "" {
			continue
		}
		key := p.File + "/" + p.DType + "/" + p.Kind
		j, ok := idx[key]
		if !ok {
			j = len(out)
			idx[key] = j
			out = append(out, L1Stat{File: p.File, Device: p.Device, DType: p.DType, Kind: p.Kind})
			pred, meas = append(pred, nil), append(meas, nil)
		}
		s := &out[j]
		s.N++
		if math.Abs(p.Dev()) <= 5 {
			s.Within5++
		}
		s.MaxDev = max(s.MaxDev, math.Abs(p.Dev()))
		pred[j] = append(pred[j], p.Predicted)
		meas[j] = append(meas[j], p.Measured)
	}
	for j := range out {
		out[j].MAPE = measured.MAPE(pred[j], meas[j])
	}
	return out
}

// writeL1Markdown renders the L1 cycle comparison.
func (h *Hardware) writeL1Markdown(w io.Writer) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	p("\n## L1 cycles: gpu-benches gpu-strides\n\n")
	p("`testdata/measured/%s`: one block of 1024 threads on one SM, every load an L1 hit; cycles per 32-thread warp load. ", FileStrides)
	p("Specs (accuracy/l1.go): *stride s*, lane x loads elements s·(x mod 64) + 4j, j = 0…7; *tile w*, block (w, 1024/w), thread (x, y) loads element (x mod 64) + 4j of row (y mod 32) + 1, pitch %d elements. ", stridesPitch)
	p("Predicted = 32 · L1Cycles / 8 loads of method exact over the one block, without the allocation term (the data is loaded 147456 times per thread and stays resident). ")
	p("Measured data/tag = the counters l1tex__data_pipe_lsu_wavefronts and l1tex__t_output_wavefronts per warp load (NVIDIA only). Device a100 is taken as A100-40GB (the file does not say which; both entries share the SM).\n\n")
	p("| device | database | element | kernel | points | MAPE %% | within 5 %% | max abs deviation %% |\n|---|---|---|---|---:|---:|---:|---:|\n")
	for _, s := range h.L1Stats {
		p("| %s | %s | %s | %s | %d | %s | %d | %s |\n", s.File, s.Device, s.DType, s.Kind, s.N, fmtNum(s.MAPE, 1), s.Within5, fmtNum(s.MaxDev, 1))
	}
	p("\n### Remaining deviations\n\n")
	for _, line := range l1Deviations {
		p("- %s\n", line)
	}
	for _, kind := range []string{"block", "stride"} {
		var params []int
		cells := map[string]L1Point{}
		var cols []string
		for _, f := range stridesDeviceOrder {
			for _, dt := range []string{"float", "double"} {
				col := f + " " + dt
				found := false
				for _, q := range h.L1 {
					if q.File == f && q.DType == dt && q.Kind == kind {
						cells[fmt.Sprint(col, q.Param)] = q
						found = true
						if !slices.Contains(params, q.Param) {
							params = append(params, q.Param)
						}
					}
				}
				if found {
					cols = append(cols, col)
				}
			}
		}
		slices.Sort(params)
		label := "stride s"
		if kind == "block" {
			label = "tile width w"
		}
		p("\n### %s: measured / predicted cycles per warp load (deviation %%)\n\n", map[string]string{"block": "2-D warp tiles", "stride": "Strided loads"}[kind])
		p("| %s |", label)
		for _, c := range cols {
			p(" %s |", c)
		}
		p("\n|---:|")
		for range cols {
			p("---|")
		}
		p("\n")
		for _, prm := range params {
			p("| %d |", prm)
			for _, c := range cols {
				q, ok := cells[fmt.Sprint(c, prm)]
				switch {
				case !ok:
					p(" |")
				case q.Excluded != "":
					p(" %s / %s (excl.) |", fmtNum(q.Measured, 2), fmtNum(q.Predicted, 2))
				default:
					p(" %s / %s (%+.0f) |", fmtNum(q.Measured, 2), fmtNum(q.Predicted, 2), q.Dev())
				}
			}
			p("\n")
		}
	}
}

// l1Deviations explains the deviations of the L1 cycle model from the
// gpu-strides data that remain, for the report. The figures quoted are
// the report's own (its tables) or, where marked, an evaluation of
// alternative tag laws on the NVIDIA rows with strides up to 32
// (166 rows, counter l1tex__t_output_wavefronts) that was not adopted.
var l1Deviations = []string{
	"**NVIDIA data pipe: none.** The predicted data-pipe wavefronts equal l1tex__data_pipe_lsu_wavefronts within 3 % on every NVIDIA row. " +
		"Method exact serves an access wider than 4 B one half-warp (8 B) or quarter-warp (16 B) per wavefront, as the paper counts it (Ernst et al. 2023, its L1 cycle model); " +
		"before, the worst bank over the whole warp gave the A100's and H200's 4-wide double tile 2 data wavefronts against 4 measured (3.0 cycles against 4.0).",
	"**NVIDIA tag term** (odd and other non-power-of-two strides, narrow tiles): the model's ⌈(lines+2)/4⌉ per load (the tag term of the paper's L1 cycle model) is off by up to about ±25 %, " +
		"e.g. A100 float stride 3 predicts 2.0 against 1.63, double stride 3 predicts 2.75 against 2.42 (6 lines in one load of four, 7 in the others: ⌈8/4⌉ = 2, ⌈9/4⌉ = 3). " +
		"The measured tag counter is not a function of the lines per load: float stride 3 touches 3 lines in one of its 8 loads and 4 in the others yet averages 1.62 wavefronts (13/8, which no integer count per line number gives), " +
		"and 32 lines per load cost 8.3 (float stride 32), 8.0 (stride 64) and 9.2 (32-row tile). " +
		"Laws evaluated and not adopted (MAPE against the tag counter, 166 NVIDIA rows with strides ≤ 32): ⌈(L+2)/4⌉ 10.0 %, (L+2)/4 unrounded 6.5 %, ⌈(L+1)/4⌉ 5.7 %, ⌈L/4⌉ 8.9 %; " +
		"none reaches 5 % per point, the unrounded one has no meaning per load, and the others change spec check values without a physical argument.",
	"**NVIDIA strides above 32** (A100, A40): every lane touches its own line (32 per load, predicted 9). The measured 8 to 13.5 cycles vary non-monotonically with the stride, " +
		"which points to conflicts between lines 128·s bytes apart in the L1's sets; polyvol has no set model.",
	"**MI210 (CDNA)**: a uniform load (stride 0) costs 2.18 against the model's issue term of 4 per 16 lanes (8 per warp of 32): the hardware broadcasts; " +
		"floats at even strides cost 16 to 32 cycles, twice to four times the model, and doubles at odd strides 5 to 9 cost 8 instead of 10 to 16. " +
		"The CDNA terms of the paper's L1 cycle model (issue 4 for anything not coalesced, two tag banks by line parity) do not describe this L1; a CDNA model from its documentation is future work.",
	"**RX 6900 XT (RDNA)**: floats at strides that are not powers of two cost about ⌈s/4⌉ cycles (four lines per cycle) where the model's two tag banks by line parity give about s/2 (+50 to +100 %); " +
		"8-byte loads cost at least 4.3 cycles per 32 lanes where the model has no issue term on RDNA (q = 0), so contiguous doubles predict 1 to 2 (−54 to −77 %). " +
		"Both are the RDNA rules of the paper's tag and issue terms; changing them needs a source beyond this one benchmark.",
	"**A40 doubles** are left out of the statistics: the file's header says they plateau at about 8 cycles, the A40's FP64 rate, not L1.",
}
