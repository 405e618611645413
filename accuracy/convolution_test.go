package accuracy

import (
	"io"
	"math"
	"path/filepath"
	"sync"
	"testing"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/model"
)

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
		convolutionOnce.c, convolutionOnce.err = ConvolutionReport(hardwareDir, convolutionTestSample, io.Discard)
	})
	if convolutionOnce.err != nil {
		t.Fatal(convolutionOnce.err)
	}
	return convolutionOnce.c
}

// TestConvolution runs the convolution report over a sample of the four
// Kernel Tuner files and checks what must hold whatever the model
// predicts: every group has rows, ρ and the shares are in range, and the
// counts add up to the rows of each file.
func TestConvolution(t *testing.T) {
	checkConvolution(t, sampledConvolution(t))
}

// checkConvolution checks the figures of c (see TestConvolution) against the
// files in hardwareDir.
func checkConvolution(t *testing.T, c *Convolution) {
	t.Helper()
	if len(c.GPUs) != len(ConvolutionGPUs) || len(c.Groups) != len(ConvolutionGPUs)*len(convolutionVariants) {
		t.Fatalf("%d GPUs and %d groups, want %d and %d", len(c.GPUs), len(c.Groups), len(ConvolutionGPUs), len(ConvolutionGPUs)*len(convolutionVariants))
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
		if st.GPU != g.Name || st.Device != g.Device || st.Rows != len(tab.Rows) || st.Direct != direct || st.Staged+st.Direct != st.Rows || st.Sampled > st.Direct {
			t.Errorf("%s: %+v; the file has %d rows, %d of them use_shmem=0", g.Name, st, len(tab.Rows), direct)
		}
		if st.Launches < 1 || st.Launches > st.Direct || st.Failed > st.Launches {
			t.Errorf("%s: %d launches, %d failed, for %d rows", g.Name, st.Launches, st.Failed, st.Direct)
		}
		failed += st.Failed
		rows := 0
		for _, grp := range c.Groups[gi*len(convolutionVariants) : (gi+1)*len(convolutionVariants)] {
			rows += grp.Rows
			if grp.GPU != g.Name || grp.N < 1 || grp.N+grp.Failed != grp.Rows {
				t.Errorf("%s %s: %d rows, %d estimated, %d failed", grp.GPU, grp.Variant, grp.Rows, grp.N, grp.Failed)
			}
			// ρ is undefined (NaN) for fewer than two rows, as a small
			// sample can leave in a group.
			if !(grp.Rho >= -1 && grp.Rho <= 1 || grp.N < 2 && math.IsNaN(grp.Rho)) || !(grp.Share > 0 && grp.Share <= 1) || !(grp.MAPE >= 0) || math.IsInf(grp.MAPE, 0) || !(grp.Ratio > 0) {
				t.Errorf("%s %s: ρ %v, share %v, MAPE %v, ratio %v", grp.GPU, grp.Variant, grp.Rho, grp.Share, grp.MAPE, grp.Ratio)
			}
			if grp.Predicted.BoundsChecks() != grp.Variant.BoundsChecks || grp.Best.BoundsChecks() != grp.Variant.BoundsChecks || grp.BestMs > grp.PredictedMs {
				t.Errorf("%s %s: predicted fastest %s (%g ms), measured fastest %s (%g ms)", grp.GPU, grp.Variant, grp.Predicted, grp.PredictedMs, grp.Best, grp.BestMs)
			}
		}
		if rows != st.Sampled {
			t.Errorf("%s: the groups hold %d rows, the sample %d use_shmem=0 rows", g.Name, rows, st.Sampled)
		}
	}
	if len(c.Failures) != failed {
		t.Errorf("%d failures listed, %d counted", len(c.Failures), failed)
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
	for _, tc := range []struct {
		check string
		want  kernel.BoundsCheck
	}{{"none", kernel.BoundsNone}, {"access", kernel.BoundsAccess}} {
		spec, err := convolutionSpec(tc.check)
		if err != nil {
			t.Fatal(err)
		}
		k, err := kernel.Parse([]byte(spec), ConvolutionExample+".yaml")
		if err != nil {
			t.Fatal(err)
		}
		loads, stores := 0, 0
		for _, f := range k.Fields {
			loads += len(f.Loads)
			stores += len(f.Stores)
		}
		if k.BoundsCheck != tc.want || loads != 225 || stores != 1 || k.Flops != 450 || k.Lups() != 4096*4096 {
			t.Errorf("bounds check %s: got %s, %d loads, %d stores, %g flops, %d points", tc.check, k.BoundsCheck, loads, stores, k.Flops, k.Lups())
		}
	}
	if k, err := kernel.ParseExample(ConvolutionExample); err != nil || k.BoundsCheck != kernel.BoundsNone {
		t.Fatalf("example: %v, %v", k, err)
	}

	cfg := ConvolutionConfig{Block: [2]int64{32, 8}, Tile: [2]int64{1, 1}}
	if cfg.BoundsChecks() || !(ConvolutionConfig{Block: [2]int64{48, 8}, Tile: [2]int64{1, 1}}).BoundsChecks() || !(ConvolutionConfig{Block: [2]int64{32, 8}, Tile: [2]int64{1, 3}}).BoundsChecks() {
		t.Error("BoundsChecks: want none for 32×8, checks for 48×8 and for tile 1×3")
	}
	spec, err := convolutionSpec("none")
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
