package accuracy

import (
	"io"
	"math"
	"strings"
	"testing"

	"github.com/polyvol/polyvol/compiled"
	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/model"
)

// TestHotspot estimates a sample of each Kernel Tuner hotspot sweep and
// checks that every launch is estimated, that each sh_power has rows with
// and without T > 1 and groups of several T to decide, and that the
// report states them. The row counts are those the sweeps' provenance
// headers and testdata/measured/README.md state.
func TestHotspot(t *testing.T) {
	rows := map[string]int{
		"kernel_tuner_hotspot_a4000.csv":                12819,
		"kernel_tuner_hotspot_w7800_partial.csv":        2082,
		"kernel_tuner_hotspot_a4000_8192_clock1560.csv": 1660,
	}
	if len(HotspotSweeps) != len(rows) {
		t.Fatalf("%d sweeps, want %d", len(HotspotSweeps), len(rows))
	}
	for _, s := range HotspotSweeps {
		// Blocks 1 × 32 only: the W7800's ~200 groups alternate sh_power
		// in the file, the 8192² sweep has 14.
		every := map[string]int{"RTX-A4000": 60, "PRO-W7800": 15}[s.Device]
		if s.Grid == 8192 {
			every = 1
		}
		s.Every = every
		h, err := HotspotReport(hardwareDir, s, nil, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		if len(h.Failures) > 0 {
			t.Errorf("%s: %d estimates failed, first: %s", s.File, len(h.Failures), h.Failures[0])
		}
		if h.Rows != rows[s.File] {
			t.Errorf("%s: %d rows, want the file's %d", s.File, h.Rows, rows[s.File])
		}
		for _, g := range h.Groups {
			if g.N == 0 || math.IsNaN(g.MAPE) || math.IsNaN(g.Rho) || !(g.Share > 0 && g.Share <= 1) {
				t.Errorf("%s: sh_power %v, %s: %+v", s.File, g.ShPower, g.Steps, g)
			}
		}
		for _, st := range h.Steps {
			if st.N == 0 || math.IsNaN(st.Right) {
				t.Errorf("%s: sh_power %v: no groups decided: %+v", s.File, st.ShPower, st)
			}
		}
		var b strings.Builder
		h.WriteMarkdown(&b)
		if !strings.Contains(b.String(), "Is T > 1 worth it?") || !strings.Contains(b.String(), s.File) {
			t.Errorf("%s: the report leaves out the time-steps decision or the file:\n%s", s.File, b.String())
		}
	}
}

// TestHotspotSpecGrid checks the hotspot at 8192²: the domain, the arrays
// of 8192 + 2·10 points a side, and the origin of the inputs at (10, 10):
// element 10·8212 + 10 = 82130.
func TestHotspotSpecGrid(t *testing.T) {
	spec, err := hotspotSpec(true, 8192)
	if err != nil {
		t.Fatal(err)
	}
	k, err := kernel.Parse([]byte(spec), "hotspot.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if k.Domain != [3]int64{8192, 8192, 1} {
		t.Errorf("domain %v, want 8192²", k.Domain)
	}
	for _, f := range k.Fields {
		want, offset := [3]int64{8212, 8212, 1}, int64(82130)
		if f.Name == "out" {
			want, offset = [3]int64{8192, 8192, 1}, 0
		}
		if f.Extent != want || f.Offset != offset {
			t.Errorf("field %s: extent %v, offset %d; want %v, %d", f.Name, f.Extent, f.Offset, want, offset)
		}
	}
}

// TestHotspotFP64Bound checks the hotspot's FP64 bound on the RTX A4000
// against a hand count: twelve FP64 instructions per update (six
// double-precision operations and six conversions, from the kernel
// compiled for sm_86), 2 FP64 lanes per SM, 48 SMs at 1.56 GHz:
// 48 · 1.56 · 2 / 12 = 12.48 GLup/s at one step. With two steps, block
// 32 × 8 (eight warps, a row of 32 threads each) computes 34 × 10 points
// at step 1, fold 2 × 2 strided: fold column 1 reaches columns 32 and 33
// (threads x < 2, in every warp), fold row 1 rows 8 and 9 (threads y < 2,
// two warps), so 20 warps (8 + 8 + 2 + 2) issue it: 640 lanes;
// step 2 computes the block's 256 points, 256 lanes. Per lane of its 256
// useful updates a step the bound falls by 2 · 256 / 896.
func TestHotspotFP64Bound(t *testing.T) {
	k, dev := hotspotOnA4000(t, false)
	for _, c := range []struct {
		steps int64
		want  float64
	}{
		{1, 48 * 1.56 * 2 / 12.0},
		{2, 48 * 1.56 * 2 / 12.0 * 2 * 256 / 896},
	} {
		l := HotspotConfig{Block: [2]int64{32, 8}, Tile: [2]int64{1, 1}, Steps: c.steps}.Launch(k)
		r, err := model.Estimate(k, l, dev, model.Options{Method: model.MethodExact})
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Derived.PerfFlops; got == nil || math.Abs(*got-c.want) > 1e-9*c.want {
			t.Errorf("T = %d: FP64 bound %v GLup/s, want %g", c.steps, got, c.want)
		}
	}
}

// TestHotspotClockRatios checks the comparison of the two RTX A4000 sweeps
// against a brute-force count over the two files (a Python script pairing
// the rows by block, tile, T and sh_power, each launch's fastest time,
// per step and point): 4 launches of T = 1 with the median ratio
// 1.0597621008411944, 43 of T > 1 with 1.3043656758851108.
func TestHotspotClockRatios(t *testing.T) {
	c, err := HotspotClockRatios(hardwareDir)
	if err != nil {
		t.Fatal(err)
	}
	if c.N1 != 4 || c.NMore != 43 || math.Abs(c.Ratio1-1.0597621008411944) > 1e-9 || math.Abs(c.RatioMore-1.3043656758851108) > 1e-9 {
		t.Errorf("%+v, want 4 launches at 1.0597621008411944 and 43 at 1.3043656758851108", c)
	}
}

// TestHotspotCompiledMix checks that the compiled estimates of the hotspot
// report compile HotspotSource with the configuration's sh_power and the
// time loop unrolled whole, and take the counts per step: block 32 × 4,
// tile 1 × 2, T = 3, sh_power 1 on the RTX A4000 (sm_86). By hand (the
// source's copy and steps, as compiled's TestHotspotSourceByHand counts
// them): 14 updates of 12 FP64 instructions, 16 global loads (the window
// of temp and power, 8 each; none at the steps), 2 stores and 4 barriers
// per thread and launch, over λ·T = 2·3 updates of a thread per step.
func TestHotspotCompiledMix(t *testing.T) {
	compiler, err := compiled.Find()
	if err != nil {
		t.Fatalf("%v: the compiled hotspot report needs it", err)
	}
	compiler.Dir = t.TempDir()
	source, err := newCompiledSource(compiler, HotspotSource)
	if err != nil {
		t.Fatal(err)
	}
	k, dev := hotspotOnA4000(t, true)
	cfg := HotspotConfig{Block: [2]int64{32, 4}, Tile: [2]int64{1, 2}, Steps: 3, ShPower: true}
	r, err := model.Estimate(k, cfg.Launch(k), dev, source.estimateOptions(hotspotMacros(cfg, 4096)...))
	if err != nil {
		t.Fatal(err)
	}
	mix := r.Instructions
	if mix.Source != model.SourceCompiled || len(mix.Loops) != 0 || mix.Classes == nil {
		t.Fatalf("mix %s, loops %+v: want compiled, unrolled", mix.Source, mix.Loops)
	}
	c := mix.Classes
	got := []float64{c.FP64, c.GlobalLoads, c.GlobalStores, c.Barriers}
	want := []float64{168.0 / 6, 16.0 / 6, 2.0 / 6, 4.0 / 6}
	for i, class := range []string{"FP64", "global loads", "global stores", "barriers"} {
		if math.Abs(got[i]-want[i]) > 1e-9 {
			t.Errorf("%s per update and step: %v, want %v", class, got[i], want[i])
		}
	}
}

// TestHotspotEmptyGroup checks that a group without sampled rows (a sample
// that takes no sh_power=1 group of a file) renders its figures and its
// fastest configurations as undefined, not as a zero configuration.
func TestHotspotEmptyGroup(t *testing.T) {
	h := &Hotspot{Sweep: HotspotSweeps[2]}
	h.Groups = []HotspotGroup{h.group(true, "T = 1")}
	var b strings.Builder
	h.WriteMarkdown(&b)
	if want := "| 1 | T = 1 | 0 | 0 | – | – | – | – | – | – |\n"; !strings.Contains(b.String(), want) {
		t.Errorf("the empty group's row is not %q:\n%s", want, b.String())
	}
}

// hotspotOnA4000 returns the 4096² hotspot spec (power staged in shared
// memory where shPower) and the RTX A4000.
func hotspotOnA4000(t *testing.T, shPower bool) (*kernel.Kernel, *device.Device) {
	t.Helper()
	spec, err := hotspotSpec(shPower, 4096)
	if err != nil {
		t.Fatal(err)
	}
	k, err := kernel.Parse([]byte(spec), "hotspot.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dev, err := device.Lookup("RTX-A4000")
	if err != nil {
		t.Fatal(err)
	}
	return k, dev
}
