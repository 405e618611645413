package accuracy

import (
	"io"
	"math"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/model"
)

// convolutionTestSample is the sample of the convolution sweeps that the
// tests estimate (sampleConvolution): every 96th configuration of each
// class and the last, 18 to 30 configurations and 39 to 61 launches per GPU.
// TestConvolution checks what holds whatever the model predicts, which a
// sparser sample tests as well as a denser one (go run . measured
// --hardware estimates all of them, in more than an hour).
const convolutionTestSample = 96

var convolutionOnce struct {
	sync.Once
	c   *Convolution
	err error
}

// sampledConvolution returns the convolution report of the test sample,
// computed once per test binary.
func sampledConvolution(t *testing.T) *Convolution {
	t.Helper()
	convolutionOnce.Do(func() {
		convolutionOnce.c, convolutionOnce.err = ConvolutionReport(hardwareDir, convolutionTestSample, nil, io.Discard)
	})
	if convolutionOnce.err != nil {
		t.Fatal(convolutionOnce.err)
	}
	return convolutionOnce.c
}

// TestConvolution runs the convolution report over a sample of the four
// Kernel Tuner files and checks what must hold whatever the model
// predicts: every group has rows, the staged groups a defined ρ, ρ and the
// shares are in range, the staging-pays fractions are in [0, 1], and the
// counts add up to the rows of each file.
func TestConvolution(t *testing.T) {
	checkConvolution(t, sampledConvolution(t))
}

// checkConvolution checks the figures of c (see TestConvolution) against the
// files in hardwareDir.
func checkConvolution(t *testing.T, c *Convolution) {
	t.Helper()
	nv := len(convolutionVariants)
	if len(c.GPUs) != len(ConvolutionGPUs) || len(c.Groups) != len(ConvolutionGPUs)*nv || len(c.Pays) != 2*len(ConvolutionGPUs) {
		t.Fatalf("%d GPUs, %d groups and %d staging-pays figures, want %d, %d and %d", len(c.GPUs), len(c.Groups), len(c.Pays), len(ConvolutionGPUs), len(ConvolutionGPUs)*nv, 2*len(ConvolutionGPUs))
	}
	if nv != 12 {
		t.Errorf("%d variants, want 3 inputs × bounds checks × read_only", nv)
	}
	failed := 0
	for gi, g := range ConvolutionGPUs {
		tab, err := ReadTable(filepath.Join(hardwareDir, g.File))
		if err != nil {
			t.Fatal(err)
		}
		direct := 0
		for i := range tab.Rows {
			if v, err := tab.Num(i, "use_shmem"); err != nil {
				t.Fatal(err)
			} else if v == 0 {
				direct++
			}
		}
		st := c.GPUs[gi]
		t.Logf("%s on %s: %d launches in %.1f s, %d failed", st.GPU, st.Device, st.Launches, st.Elapsed.Seconds(), st.Failed)
		if st.GPU != g.Name || st.Device != g.Device || st.Rows != len(tab.Rows) || st.Direct != direct || st.Staged+st.Direct != st.Rows || st.Sampled > st.Rows {
			t.Errorf("%s: %+v; the file has %d rows, %d of them use_shmem=0", g.Name, st, len(tab.Rows), direct)
		}
		if st.Staged == 0 || st.Configs < 1 || st.Configs > st.Rows {
			t.Errorf("%s: %d use_shmem=1 rows, %d configurations, for %d rows", g.Name, st.Staged, st.Configs, st.Rows)
		}
		if st.Launches < 1 || st.Launches > st.Sampled || st.Failed > st.Launches {
			t.Errorf("%s: %d launches, %d failed, for %d rows", g.Name, st.Launches, st.Failed, st.Sampled)
		}
		failed += st.Failed
		rows, stagedRows := 0, 0
		for vi, grp := range c.Groups[gi*nv : (gi+1)*nv] {
			rows += grp.Rows
			if grp.Variant.Input.Staged() {
				stagedRows += grp.Rows
			}
			if grp.GPU != g.Name || grp.Variant != convolutionVariants[vi] || grp.N < 1 || grp.N+grp.Failed != grp.Rows {
				t.Errorf("%s %s: %d rows, %d estimated, %d failed", grp.GPU, grp.Variant, grp.Rows, grp.N, grp.Failed)
			}
			// ρ is undefined (NaN) for fewer than two rows, as a small
			// sample can leave in a group; the sample holds at least two
			// rows of every staged variant.
			if !(grp.Rho >= -1 && grp.Rho <= 1 || grp.N < 2 && math.IsNaN(grp.Rho)) || !(grp.Share > 0 && grp.Share <= 1) || !(grp.MAPE >= 0) || math.IsInf(grp.MAPE, 0) || !(grp.Ratio > 0) {
				t.Errorf("%s %s: ρ %v, share %v, MAPE %v, ratio %v", grp.GPU, grp.Variant, grp.Rho, grp.Share, grp.MAPE, grp.Ratio)
			}
			if grp.Variant.Input.Staged() && math.IsNaN(grp.Rho) {
				t.Errorf("%s %s: %d rows estimated, ρ undefined", grp.GPU, grp.Variant, grp.N)
			}
			if grp.Predicted.BoundsChecks() != grp.Variant.BoundsChecks || grp.Best.BoundsChecks() != grp.Variant.BoundsChecks || grp.BestMs > grp.PredictedMs {
				t.Errorf("%s %s: predicted fastest %s (%g ms), measured fastest %s (%g ms)", grp.GPU, grp.Variant, grp.Predicted, grp.PredictedMs, grp.Best, grp.BestMs)
			}
		}
		if rows != st.Sampled || stagedRows > st.Staged || rows-stagedRows > st.Direct {
			t.Errorf("%s: the groups hold %d rows, %d of them use_shmem=1; the sample %d rows", g.Name, rows, stagedRows, st.Sampled)
		}
		for pi, p := range c.Pays[2*gi : 2*gi+2] {
			t.Logf("%s %s: staging pays told right on %.3f of %d (measured pays %.3f, predicted %.3f)", p.GPU, p.Input, p.Right, p.N, p.MeasuredPays, p.PredictedPays)
			if p.GPU != g.Name || p.Input != convolutionInputs[1+pi] || p.N < 1 {
				t.Errorf("%s %s: staging pays over %d configurations", p.GPU, p.Input, p.N)
			}
			for _, f := range []float64{p.Right, p.MeasuredPays, p.PredictedPays} {
				if !(f >= 0 && f <= 1) {
					t.Errorf("%s %s: staging pays right %v, measured %v, predicted %v; want fractions in [0, 1]", p.GPU, p.Input, p.Right, p.MeasuredPays, p.PredictedPays)
					break
				}
			}
		}
	}
	if len(c.Failures) != failed {
		t.Errorf("%d failures listed, %d counted", len(c.Failures), failed)
	}
	var md strings.Builder
	c.WriteMarkdown(&md)
	for _, want := range []string{"use_shmem=1, use_padding=1, bounds checks, read_only=1", "Does staging pay?", "Spearman ρ ≥ 0.9"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("the markdown lacks %q", want)
		}
	}
	if strings.Contains(md.String(), "not modelled") {
		t.Error("the markdown still calls use_shmem=1 not modelled")
	}
}

// TestSampleConvolution checks that a sample holds a configuration of every
// variant measured, however sparse, the first and the last of a class, and
// every configuration at every 1.
func TestSampleConvolution(t *testing.T) {
	var rows []convolutionRow
	for i := range int64(100) {
		cfg := ConvolutionConfig{Block: [2]int64{48, 1 + i}, Tile: [2]int64{1, 1}} // all with bounds checks
		rows = append(rows, convolutionRow{cfg: cfg, ms: 1}, convolutionRow{cfg: cfg, input: InputShared, ms: 1})
		if i == 77 { // the one configuration with padded rows
			rows = append(rows, convolutionRow{cfg: cfg, input: InputSharedPadded, readOnly: true, ms: 1})
		}
	}
	sample, configs := sampleConvolution(rows, 10)
	at := func(by int64) ConvolutionConfig {
		return ConvolutionConfig{Block: [2]int64{48, by}, Tile: [2]int64{1, 1}}
	}
	if configs != 100 || len(sample) != 12 || !sample[at(1)] || !sample[at(100)] || !sample[at(78)] {
		t.Errorf("%d configurations, sample of %d: %v", configs, len(sample), sample)
	}
	if all, _ := sampleConvolution(rows, 1); len(all) != 100 {
		t.Errorf("every 1: a sample of %d of 100", len(all))
	}
}

// TestConvolutionSpec checks the spec of the convolution: 225 loads and one
// store, the bounds checks of both variants, and the L1 load volume of
// block 32×8 without a tile, computed by hand.
//
// L1Load counts the 32 B sectors that every warp-wide load instruction
// requests (docs/metrics.md §3.1). A warp of block 32×8 is one row of 32
// threads at x = 32k, and its load [x + j, y + i] reads 32 consecutive
// floats, 128 B from element (y + i)·4110 + 32k + j: 4 sectors when that
// element is 32 B aligned, 5 otherwise. Its index mod 8 is
// (6·(y + i) + j) mod 8 (4110 ≡ 6 mod 8), which is 0 for an odd j never and
// for an even j in one row of every four; the 4096 rows of each i hold
// each residue mod 4 equally often. So per i the 15 loads request
// 15·5 − 8·(1/4) = 73 sectors, and the 225 loads 15·73 = 1095 sectors per
// warp of 32 lattice points: 1095 B/Lup, against the 225·4 = 900 B that
// the threads ask for.
func TestConvolutionSpec(t *testing.T) {
	for _, in := range convolutionInputs {
		for _, checks := range []bool{false, true} {
			spec, err := convolutionSpec(in, checks)
			if err != nil {
				t.Fatal(err)
			}
			k, err := kernel.Parse([]byte(spec), ConvolutionExample+".yaml")
			if err != nil {
				t.Fatal(err)
			}
			loads, stores := 0, 0
			var stage *kernel.Staging
			for _, f := range k.Fields {
				loads += len(f.Loads)
				stores += len(f.Stores)
				if f.Stage != nil {
					stage = f.Stage
				}
			}
			want := kernel.BoundsNone
			if checks {
				want = kernel.BoundsAccess
			}
			if k.BoundsCheck != want || loads != 225 || stores != 1 || k.Flops != 450 || k.Lups() != 4096*4096 {
				t.Errorf("%s, bounds checks %v: got %s, %d loads, %d stores, %g flops, %d points", in, checks, k.BoundsCheck, loads, stores, k.Flops, k.Lups())
			}
			wantPad := map[ConvolutionInput]int64{InputShared: 0, InputSharedPadded: kernel.PadBanks}
			switch {
			case !in.Staged() && stage != nil:
				t.Errorf("%s: input staged (%+v)", in, *stage)
			case in.Staged() && (stage == nil || stage.Copy != kernel.CopyBlock || stage.Pad != wantPad[in]):
				t.Errorf("%s: staging %+v, want copy block, pad %d", in, stage, wantPad[in])
			}
		}
	}
	if k, err := kernel.ParseExample(ConvolutionExample); err != nil || k.BoundsCheck != kernel.BoundsNone {
		t.Fatalf("example: %v, %v", k, err)
	}
	for _, edit := range [][2]string{{"no such line", "x"}, {"element: 4", "element: 8"}} { // none, two
		if _, err := editExample(ConvolutionExample, edit); err == nil {
			t.Errorf("edit %q: no error", edit[0])
		}
	}

	cfg := ConvolutionConfig{Block: [2]int64{32, 8}, Tile: [2]int64{1, 1}}
	if cfg.BoundsChecks() || !(ConvolutionConfig{Block: [2]int64{48, 8}, Tile: [2]int64{1, 1}}).BoundsChecks() || !(ConvolutionConfig{Block: [2]int64{32, 8}, Tile: [2]int64{1, 3}}).BoundsChecks() {
		t.Error("BoundsChecks: want none for 32×8, checks for 48×8 and for tile 1×3")
	}
	spec, err := convolutionSpec(InputGlobal, false)
	if err != nil {
		t.Fatal(err)
	}
	k, err := kernel.Parse([]byte(spec), ConvolutionExample+".yaml")
	if err != nil {
		t.Fatal(err)
	}
	dev, err := device.Lookup(ConvolutionGPUs[0].Device) // NVIDIA: warps of 32, no vector fusion
	if err != nil {
		t.Fatal(err)
	}
	r, err := model.Estimate(k, cfg.Launch(k), dev, model.Options{Method: model.MethodExact})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Derived.L1Load; math.Abs(got-1095) > 1e-9 {
		t.Errorf("L1Load of block 32×8, tile 1×1 on %s: %v B/Lup, want 1095", dev.Name, got)
	}
}
