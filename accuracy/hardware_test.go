package accuracy

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// hardwareDir is the repository's copy of the published measurements.
var hardwareDir = filepath.Join("..", "testdata", "measured")

// volumeBound is a recorded bound on one volume figure of
// docs/accuracy-hardware.md: the MAPE may not rise above MaxMAPE and ρ may
// not fall below MinRho (NaN: ρ is undefined because the prediction is the
// same for every configuration, and no bound is recorded).
type volumeBound struct {
	Dataset, Level, Method string
	MaxMAPE, MinRho        float64
}

// volumeBounds were recorded from the figures of the commit that added
// them (MAPE · 1.05 + 0.3 percentage points, ρ − 0.02), not tuned; the
// exact method's star3d L2→L1 and box2d rows were tightened the same way
// when Method.WarpReuseStays came in (box2d L2→L1 65.2 → 6.4 %), and the
// exact box2d DRAM row when Method.LayerReuseDistance did (19.9 → 5.0 %).
var volumeBounds = []volumeBound{
	{"star3d", "L2→L1 load", "exact", 7.5, 0.922},
	{"star3d", "L1→L2 store", "exact", 0.3, math.NaN()},
	{"star3d", "DRAM load", "exact", 7.9, 0.913},
	{"star3d", "DRAM store", "exact", 0.3, math.NaN()},
	{"star3d", "L2→L1 load", "reference", 6.3, 0.951},
	{"star3d", "L1→L2 store", "reference", 0.3, math.NaN()},
	{"star3d", "DRAM load", "reference", 8.7, 0.880},
	{"star3d", "DRAM store", "reference", 1.0, -0.083},
	{"box2d", "L2→L1 load", "exact", 7.0, 0.975},
	{"box2d", "L1→L2 store", "exact", 0.5, math.NaN()},
	{"box2d", "DRAM load", "exact", 5.6, 0.612},
	{"box2d", "DRAM store", "exact", 0.3, math.NaN()},
	{"box2d", "L2→L1 load", "reference", 7.2, 0.975},
	{"box2d", "L1→L2 store", "reference", 0.5, math.NaN()},
	{"box2d", "DRAM load", "reference", 3.9, 0.630},
	{"box2d", "DRAM store", "reference", 0.3, math.NaN()},
}

// groupBound is a recorded bound on one block-scan group: ρ may not fall
// below MinRho, the measured share of the predicted best below MinShare
// percent.
type groupBound struct {
	Variant, Run     string
	Range            int
	Method, Model    string
	MinRho, MinShare float64
}

// groupBounds hold the block scan's rankings per group, method and model.
// Where a figure meets its goal (MAPE ≤ 12 %, ρ ≥ 0.95, share of the best
// ≥ 98 %, the goals of docs/accuracy-hardware.md) the bound is the goal
// itself; elsewhere it ratchets: the figure of the commit that recorded it,
// MAPE · 1.05 + 0.3 points, ρ − 0.02 or share − 1 point, which may tighten
// but never loosen without a reason in the commit. Bounds that cannot fail
// (ρ ≤ −1 together with a share below the group's worst measured over best
// measured) are left out. Recorded after the joint fit of the overlap
// model (accuracy.FitJoint).
var groupBounds = []groupBound{
	{"l1only", "6356407", 1, "exact", "roofline", 0.950, 93.5},
	{"l1only", "6356407", 1, "exact", "latency", 0.888, 28.7},
	{"l1only", "6356407", 1, "exact", "overlap", 0.950, 95.6},
	{"l1only", "6356407", 1, "reference", "roofline", 0.950, 95.4},
	{"l1only", "6356407", 1, "reference", "latency", 0.950, 95.4},
	{"l1only", "6356407", 1, "reference", "overlap", 0.950, 95.6},
	{"l1only", "7e804a7", 1, "exact", "roofline", 0.743, 13.8},
	{"l1only", "7e804a7", 1, "exact", "latency", 0.714, 13.8},
	{"l1only", "7e804a7", 1, "exact", "overlap", 0.950, 90.1},
	{"l1only", "7e804a7", 1, "reference", "roofline", 0.869, 92.9},
	{"l1only", "7e804a7", 1, "reference", "latency", 0.880, 92.9},
	{"l1only", "7e804a7", 1, "reference", "overlap", 0.950, 92.9},
	{"l1only", "7e804a7", 2, "exact", "roofline", 0.909, 34.7},
	{"l1only", "7e804a7", 2, "exact", "latency", 0.831, 34.7},
	{"l1only", "7e804a7", 2, "exact", "overlap", 0.950, 96.6},
	{"l1only", "7e804a7", 2, "reference", "roofline", 0.888, 93.4},
	{"l1only", "7e804a7", 2, "reference", "latency", 0.859, 93.4},
	{"l1only", "7e804a7", 2, "reference", "overlap", 0.908, 93.4},
	{"l1only", "7e804a7", 3, "exact", "roofline", 0.950, 66.0},
	{"l1only", "7e804a7", 3, "exact", "latency", 0.831, 58.9},
	{"l1only", "7e804a7", 3, "exact", "overlap", 0.923, 98.0},
	{"l1only", "7e804a7", 3, "reference", "roofline", 0.865, 94.9},
	{"l1only", "7e804a7", 3, "reference", "latency", 0.798, 94.9},
	{"l1only", "7e804a7", 3, "reference", "overlap", 0.884, 94.9},
	{"l1only", "7e804a7", 4, "exact", "roofline", 0.950, 95.3},
	{"l1only", "7e804a7", 4, "exact", "latency", 0.816, 58.3},
	{"l1only", "7e804a7", 4, "exact", "overlap", 0.928, 98.0},
	{"l1only", "7e804a7", 4, "reference", "roofline", 0.844, 96.0},
	{"l1only", "7e804a7", 4, "reference", "latency", 0.722, 96.0},
	{"l1only", "7e804a7", 4, "reference", "overlap", 0.849, 96.0},
	{"l1only", "9988dfc", 4, "exact", "roofline", 0.910, 95.3},
	{"l1only", "9988dfc", 4, "exact", "latency", 0.709, 58.3},
	{"l1only", "9988dfc", 4, "exact", "overlap", 0.908, 98.0},
	{"l1only", "9988dfc", 4, "reference", "roofline", 0.747, 95.9},
	{"l1only", "9988dfc", 4, "reference", "latency", 0.584, 95.9},
	{"l1only", "9988dfc", 4, "reference", "overlap", 0.764, 95.9},
	{"l1only", "b3e12ef", 1, "exact", "roofline", 0.950, 94.2},
	{"l1only", "b3e12ef", 1, "exact", "latency", 0.950, 56.8},
	{"l1only", "b3e12ef", 1, "exact", "overlap", 0.950, 94.2},
	{"l1only", "b3e12ef", 1, "reference", "roofline", 0.950, 94.2},
	{"l1only", "b3e12ef", 1, "reference", "latency", 0.950, 56.9},
	{"l1only", "b3e12ef", 1, "reference", "overlap", 0.950, 94.2},
	{"memory", "6356407", 1, "exact", "roofline", 0.696, 82.6},
	{"memory", "6356407", 1, "exact", "latency", 0.646, 82.6},
	{"memory", "6356407", 1, "exact", "overlap", 0.911, 98.0},
	{"memory", "6356407", 1, "reference", "roofline", 0.590, 41.0},
	{"memory", "6356407", 1, "reference", "latency", 0.486, 41.0},
	{"memory", "6356407", 1, "reference", "overlap", 0.925, 98.0},
	{"memory", "6356407", 2, "exact", "roofline", 0.897, 90.6},
	{"memory", "6356407", 2, "exact", "latency", 0.776, 90.6},
	{"memory", "6356407", 2, "exact", "overlap", 0.901, 94.4},
	{"memory", "6356407", 2, "reference", "roofline", 0.916, 90.6},
	{"memory", "6356407", 2, "reference", "latency", 0.826, 90.6},
	{"memory", "6356407", 2, "reference", "overlap", 0.912, 95.1},
	{"memory", "6356407", 3, "exact", "roofline", 0.950, 93.5},
	{"memory", "6356407", 3, "exact", "latency", 0.830, 93.5},
	{"memory", "6356407", 3, "exact", "overlap", 0.950, 93.5},
	{"memory", "6356407", 3, "reference", "roofline", 0.950, 92.5},
	{"memory", "6356407", 3, "reference", "latency", 0.869, 93.5},
	{"memory", "6356407", 3, "reference", "overlap", 0.950, 96.8},
	{"memory", "7e804a7", 1, "exact", "roofline", 0.736, 82.5},
	{"memory", "7e804a7", 1, "exact", "latency", 0.694, 82.5},
	{"memory", "7e804a7", 1, "exact", "overlap", 0.920, 98.0},
	{"memory", "7e804a7", 1, "reference", "roofline", 0.651, 41.0},
	{"memory", "7e804a7", 1, "reference", "latency", 0.561, 41.0},
	{"memory", "7e804a7", 1, "reference", "overlap", 0.950, 98.0},
	{"memory", "7e804a7", 2, "exact", "roofline", 0.907, 90.5},
	{"memory", "7e804a7", 2, "exact", "latency", 0.806, 90.5},
	{"memory", "7e804a7", 2, "exact", "overlap", 0.910, 94.3},
	{"memory", "7e804a7", 2, "reference", "roofline", 0.926, 90.5},
	{"memory", "7e804a7", 2, "reference", "latency", 0.848, 90.5},
	{"memory", "7e804a7", 2, "reference", "overlap", 0.924, 95.1},
	{"memory", "7e804a7", 3, "exact", "roofline", 0.950, 93.6},
	{"memory", "7e804a7", 3, "exact", "latency", 0.851, 93.6},
	{"memory", "7e804a7", 3, "exact", "overlap", 0.950, 93.6},
	{"memory", "7e804a7", 3, "reference", "roofline", 0.950, 92.5},
	{"memory", "7e804a7", 3, "reference", "latency", 0.883, 93.6},
	{"memory", "7e804a7", 3, "reference", "overlap", 0.950, 96.9},
	{"memory", "7e804a7", 4, "exact", "roofline", 0.950, 96.9},
	{"memory", "7e804a7", 4, "exact", "latency", 0.839, 96.9},
	{"memory", "7e804a7", 4, "exact", "overlap", 0.950, 96.9},
	{"memory", "7e804a7", 4, "reference", "roofline", 0.922, 92.5},
	{"memory", "7e804a7", 4, "reference", "latency", 0.859, 96.9},
	{"memory", "7e804a7", 4, "reference", "overlap", 0.950, 98.0},
	{"memory", "7e804a7", 7, "exact", "roofline", 0.950, 98.0},
	{"memory", "7e804a7", 7, "exact", "latency", 0.715, 98.0},
	{"memory", "7e804a7", 7, "exact", "overlap", 0.950, 98.0},
	{"memory", "7e804a7", 7, "reference", "roofline", 0.789, 82.0},
	{"memory", "7e804a7", 7, "reference", "latency", 0.757, 98.0},
	{"memory", "7e804a7", 7, "reference", "overlap", 0.912, 98.0},
	{"memory", "9988dfc", 1, "exact", "roofline", 0.732, 82.7},
	{"memory", "9988dfc", 1, "exact", "latency", 0.713, 82.7},
	{"memory", "9988dfc", 1, "exact", "overlap", 0.890, 98.0},
	{"memory", "9988dfc", 1, "reference", "roofline", 0.752, 82.7},
	{"memory", "9988dfc", 1, "reference", "latency", 0.717, 82.7},
	{"memory", "9988dfc", 1, "reference", "overlap", 0.910, 98.0},
	{"memory", "9988dfc", 2, "exact", "roofline", 0.866, 90.6},
	{"memory", "9988dfc", 2, "exact", "latency", 0.750, 90.6},
	{"memory", "9988dfc", 2, "exact", "overlap", 0.863, 94.5},
	{"memory", "9988dfc", 2, "reference", "roofline", 0.900, 90.6},
	{"memory", "9988dfc", 2, "reference", "latency", 0.808, 90.6},
	{"memory", "9988dfc", 2, "reference", "overlap", 0.880, 95.3},
	{"memory", "9988dfc", 3, "exact", "roofline", 0.950, 93.5},
	{"memory", "9988dfc", 3, "exact", "latency", 0.784, 93.5},
	{"memory", "9988dfc", 3, "exact", "overlap", 0.950, 93.5},
	{"memory", "9988dfc", 3, "reference", "roofline", 0.929, 92.4},
	{"memory", "9988dfc", 3, "reference", "latency", 0.834, 93.5},
	{"memory", "9988dfc", 3, "reference", "overlap", 0.950, 96.8},
	{"memory", "9988dfc", 7, "exact", "roofline", 0.950, 98.0},
	{"memory", "9988dfc", 7, "exact", "latency", 0.764, 98.0},
	{"memory", "9988dfc", 7, "exact", "overlap", 0.950, 98.0},
	{"memory", "9988dfc", 7, "reference", "roofline", 0.830, 82.0},
	{"memory", "9988dfc", 7, "reference", "latency", 0.798, 98.0},
	{"memory", "9988dfc", 7, "reference", "overlap", 0.925, 98.0},
	{"memory", "b3e12ef", 1, "exact", "roofline", 0.690, 82.9},
	{"memory", "b3e12ef", 1, "exact", "latency", 0.645, 82.9},
	{"memory", "b3e12ef", 1, "exact", "overlap", 0.917, 98.0},
	{"memory", "b3e12ef", 1, "reference", "roofline", 0.600, 41.0},
	{"memory", "b3e12ef", 1, "reference", "latency", 0.503, 41.0},
	{"memory", "b3e12ef", 1, "reference", "overlap", 0.925, 98.0},
	{"memory", "b3e12ef", 2, "exact", "roofline", 0.886, 90.5},
	{"memory", "b3e12ef", 2, "exact", "latency", 0.785, 90.5},
	{"memory", "b3e12ef", 2, "exact", "overlap", 0.905, 94.1},
	{"memory", "b3e12ef", 2, "reference", "roofline", 0.913, 87.6},
	{"memory", "b3e12ef", 2, "reference", "latency", 0.837, 87.6},
	{"memory", "b3e12ef", 2, "reference", "overlap", 0.927, 96.3},
	{"memory", "b3e12ef", 3, "exact", "roofline", 0.906, 93.8},
	{"memory", "b3e12ef", 3, "exact", "latency", 0.867, 93.8},
	{"memory", "b3e12ef", 3, "exact", "overlap", 0.923, 93.8},
	{"memory", "b3e12ef", 3, "reference", "roofline", 0.886, 91.8},
	{"memory", "b3e12ef", 3, "reference", "latency", 0.897, 93.8},
	{"memory", "b3e12ef", 3, "reference", "overlap", 0.909, 98.0},
}

// l1Bound is a recorded bound on one (device, element type, kernel) group
// of the L1 cycle comparison with gpu-strides: N points, the MAPE may not
// rise above MaxMAPE, and at least MinWithin5 points stay within 5 %.
type l1Bound struct {
	File, DType, Kind string
	N                 int
	MaxMAPE           float64
	MinWithin5        int
}

// l1Bounds were recorded from the figures of the commit that added them
// (MAPE · 1.05 + 0.3 percentage points, points within 5 % as counted), not
// tuned; docs/accuracy-hardware.md explains the deviations that remain.
var l1Bounds = []l1Bound{
	{"a100", "float", "block", 7, 2.1, 7},
	{"a100", "double", "block", 7, 2.1, 6},
	{"a100", "float", "stride", 65, 6.3, 34},
	{"a100", "double", "stride", 65, 8.9, 29},
	{"a40", "float", "block", 7, 1.6, 7},
	{"a40", "float", "stride", 65, 5.9, 35},
	{"h200", "float", "stride", 16, 8.1, 9},
	{"h200", "double", "stride", 16, 4.5, 12},
	{"h200", "float", "block", 7, 2.1, 7},
	{"h200", "double", "block", 7, 1.5, 6},
	{"mi210", "float", "block", 7, 30.4, 0},
	{"mi210", "double", "block", 7, 11.4, 5},
	{"mi210", "float", "stride", 65, 29.5, 21},
	{"mi210", "double", "stride", 65, 29.0, 23},
	{"rdna2", "float", "block", 7, 2.0, 7},
	{"rdna2", "double", "block", 7, 40.7, 2},
	{"rdna2", "float", "stride", 65, 76.8, 10},
	{"rdna2", "double", "stride", 65, 63.0, 8},
}

// TestHardwareFilesPresent fails (never skips) when a measurement file is
// missing from testdata/measured.
func TestHardwareFilesPresent(t *testing.T) {
	for _, f := range append(slices.Clone(HardwareFiles), ConvolutionFiles()...) {
		data, err := os.ReadFile(filepath.Join(hardwareDir, f))
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if !strings.HasPrefix(string(data), "# source:") {
			t.Errorf("%s does not start with its provenance header", f)
		}
	}
}

var hardwareOnce struct {
	sync.Once
	h   *Hardware
	err error
}

// sharedHardware returns the hardware report without its convolution
// section (TestConvolution samples that), computed once per test binary.
func sharedHardware(t *testing.T) *Hardware {
	t.Helper()
	hardwareOnce.Do(func() { hardwareOnce.h, hardwareOnce.err = HardwareReport(hardwareDir, 0, io.Discard) })
	if hardwareOnce.err != nil {
		t.Fatal(hardwareOnce.err)
	}
	return hardwareOnce.h
}

// TestHardwareBounds recomputes every figure of docs/accuracy-hardware.md
// and fails when one moves past its recorded bound.
func TestHardwareBounds(t *testing.T) {
	h := sharedHardware(t)
	vols := map[string]VolumeStat{}
	for _, v := range h.Volumes {
		vols[strings.Fields(v.Dataset)[0]+"/"+v.Level+"/"+v.Method] = v
	}
	for _, b := range volumeBounds {
		key := b.Dataset + "/" + b.Level + "/" + b.Method
		v, ok := vols[key]
		if !ok {
			t.Errorf("%s: no figure", key)
			continue
		}
		if !(v.MAPE <= b.MaxMAPE) {
			t.Errorf("%s: MAPE %.2f %% above the bound %.1f %%", key, v.MAPE, b.MaxMAPE)
		}
		if !math.IsNaN(b.MinRho) && !(v.Rho >= b.MinRho) {
			t.Errorf("%s: ρ %.3f below the bound %.3f", key, v.Rho, b.MinRho)
		}
	}
	if len(vols) != len(volumeBounds) {
		t.Errorf("%d volume figures, %d bounds", len(vols), len(volumeBounds))
	}
	groups := map[string]GroupStat{}
	for _, g := range h.Groups {
		groups[fmt.Sprintf("%s/%s/%d/%s/%s", g.Variant, g.Run, g.Range, g.Method, g.Model)] = g
	}
	for _, b := range groupBounds {
		key := fmt.Sprintf("%s/%s/%d/%s/%s", b.Variant, b.Run, b.Range, b.Method, b.Model)
		g, ok := groups[key]
		if !ok {
			t.Errorf("%s: no figure", key)
			continue
		}
		if !(g.Rho >= b.MinRho) || !(100*g.Fraction >= b.MinShare) {
			t.Errorf("%s: ρ %.3f (bound %.3f), share of best %.1f %% (bound %.1f %%)", key, g.Rho, b.MinRho, 100*g.Fraction, b.MinShare)
		}
	}
	if len(groups) != len(groupBounds) {
		t.Errorf("%d groups, %d bounds", len(groups), len(groupBounds))
	}
	l1 := map[string]L1Stat{}
	for _, s := range h.L1Stats {
		l1[s.File+"/"+s.DType+"/"+s.Kind] = s
	}
	for _, b := range l1Bounds {
		key := b.File + "/" + b.DType + "/" + b.Kind
		s, ok := l1[key]
		if !ok {
			t.Errorf("L1 %s: no figure", key)
			continue
		}
		if s.N != b.N || !(s.MAPE <= b.MaxMAPE) || s.Within5 < b.MinWithin5 {
			t.Errorf("L1 %s: %d points, MAPE %.2f %% (bound %.1f %%), %d within 5 %% (bound %d of %d)", key, s.N, s.MAPE, b.MaxMAPE, s.Within5, b.MinWithin5, b.N)
		}
	}
	if len(l1) != len(l1Bounds) {
		t.Errorf("%d L1 groups, %d bounds", len(l1), len(l1Bounds))
	}
}

// TestStridesPredictions holds the points of the L1 comparison that
// hand-derived counts fix (docs/metrics.md §3.8, method exact): on the
// A100, contiguous doubles cost the half-warps' 2 wavefronts, the 4-wide
// double tile 2 + 2 bank-conflict wavefronts (TestCycleTermsHalfWarpWavefronts
// in footprint), float stride 8 hits one bank 8 times; double stride 3 is
// the tag term's ⌈(6+2)/4⌉ = 2 for one load in four and ⌈(7+2)/4⌉ = 3 for
// the others.
func TestStridesPredictions(t *testing.T) {
	h := sharedHardware(t)
	want := map[string]float64{
		"a100/double/stride/1": 2,
		"a100/double/block/4":  4,
		"a100/float/stride/8":  8,
		"a100/double/stride/3": 2.75,
	}
	for _, p := range h.L1 {
		key := fmt.Sprintf("%s/%s/%s/%d", p.File, p.DType, p.Kind, p.Param)
		if w, ok := want[key]; ok {
			if math.Abs(p.Predicted-w) > 1e-9 {
				t.Errorf("%s: predicted %v cycles per warp load, want %v", key, p.Predicted, w)
			}
			delete(want, key)
		}
	}
	for k := range want {
		t.Errorf("%s: no point", k)
	}
}
