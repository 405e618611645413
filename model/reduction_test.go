package model

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/kernel"
)

// estimateMatvec estimates y = A·x for an m×n row-major matrix of doubles
// on dev, launched as the import of examples/polyhedral/matvec.c suggests:
// one thread per row (x) looping over the n columns (a fold of n along y),
// y loaded at the first column and stored at the last.
func estimateMatvec(t *testing.T, dev *device.Device, m, n int64) *Report {
	t.Helper()
	k, l := matvecLaunch(t, m, n)
	r, err := Estimate(k, l, dev, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// matvecLaunch returns the spec and launch that estimateMatvec estimates.
func matvecLaunch(t *testing.T, m, n int64) (*kernel.Kernel, kernel.Launch) {
	t.Helper()
	spec := fmt.Sprintf(`name: matvec
params: {M: %d, N: %d}
domain: [%d, %d]
flops: 2
fields:
  - {name: A, element: 8, extent: [%d], load: [[y + N*x]]}
  - {name: X, element: 8, extent: [%d], load: [[y]]}
  - {name: "Y", element: 8, extent: [%d], load: [{at: [x], if: "y = 0"}], store: [{at: [x], if: "y = N - 1"}]}
`, m, n, m, n, m*n, n, m)
	k, err := kernel.Parse([]byte(spec), "matvec.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return k, kernel.Launch{Block: [3]int64{256, 1, 1}, Fold: [3]int64{1, n, 1}, Domain: k.Domain}
}

// TestMatvecDRAMVolumesByHand checks the DRAM volumes of a matrix-vector
// product against hand counts: every element of A moves from DRAM once
// (8 B per update), x once over the grid (8n bytes over m·n updates, 8/m),
// y is loaded and stored once per row (8/n each), and no store leaves a
// line partly written (a warp stores 32 consecutive doubles), so DRAM
// load V3 = 8 + 8/n + 8/m and store V2 = 8/n; the DRAM bound moves V3 and
// store V2. Where the whole grid's data fits in L2 (a 1024² matrix is
// 8 MiB, the A100's L2 20 MiB per partition) no load can miss L2 twice,
// so DRAM load V4 equals V3 too.
func TestMatvecDRAMVolumesByHand(t *testing.T) {
	dev, err := device.Lookup("A100-40GB")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		m, n     int64
		fitsInL2 bool
	}{{65536, 512, false}, {1024, 1024, true}} {
		r := estimateMatvec(t, dev, c.m, c.n)
		d := r.Derived
		m, n := float64(c.m), float64(c.n)
		wantLoad, wantStore := 8+8/n+8/m, 8/n
		if math.Abs(d.MemLoadV3-wantLoad) > 1e-9*wantLoad {
			t.Errorf("%d×%d: DRAM load V3 %v B/Lup, want 8 + 8/N + 8/M = %v", c.m, c.n, d.MemLoadV3, wantLoad)
		}
		if math.Abs(d.MemStoreV2-wantStore) > 1e-12 {
			t.Errorf("%d×%d: DRAM store V2 %v B/Lup, want 8/N = %v", c.m, c.n, d.MemStoreV2, wantStore)
		}
		if c.fitsInL2 && math.Abs(d.MemLoadV4-wantLoad) > 0.005*wantLoad {
			t.Errorf("%d×%d: DRAM load V4 %v B/Lup, want about V3's %v: the matrix fits in L2", c.m, c.n, d.MemLoadV4, wantLoad)
		}
		found := false
		for _, b := range r.Prediction.Bounds {
			if b.Name == "DRAM" {
				found = true
				if b.Volume != "V3" || math.Abs(b.BytesPerLup-(wantLoad+wantStore)) > 1e-9 {
					t.Errorf("%d×%d: DRAM bound moves %v B/Lup of %q, want %v of V3", c.m, c.n, b.BytesPerLup, b.Volume, wantLoad+wantStore)
				}
			}
		}
		if !found {
			t.Errorf("%d×%d: no DRAM bound among %+v", c.m, c.n, r.Prediction.Bounds)
		}
	}
}

// TestLatencyModelLeavesLoopingThreadsOut checks that the latency model,
// whose one round trip per warp presumes a thread's loads issued together,
// gives no latency estimate where a thread loops over a matvec row of 512
// columns, and predicts the slowest resource's bound, here L1's.
func TestLatencyModelLeavesLoopingThreadsOut(t *testing.T) {
	dev, err := device.Lookup("A100-40GB")
	if err != nil {
		t.Fatal(err)
	}
	k, l := matvecLaunch(t, 65536, 512)
	r, err := Estimate(k, l, dev, Options{Model: ModelLatency})
	if err != nil {
		t.Fatal(err)
	}
	p := r.Prediction
	if p.Latency != nil || p.NeededWarpsPerSM != 0 || p.Note == "" {
		t.Errorf("latency estimate %+v, warps needed %v, note %q; want none and a note", p.Latency, p.NeededWarpsPerSM, p.Note)
	}
	if p.Limiter != "L1" || math.Abs(p.GLups-r.Derived.PerfL1) > 1e-9*p.GLups {
		t.Errorf("prediction %v GLup/s limited by %s, want the L1 bound %v", p.GLups, p.Limiter, r.Derived.PerfL1)
	}
}

// TestLoopingThreadsHaveNoLatencyBound checks that the overlap model's
// latency bound, whose round trips presume a thread's loads issued
// together, is left out where a thread loops over more points than it runs
// unrolled (a matvec row of 512 columns), and kept where it runs them all
// unrolled (a row of 64).
func TestLoopingThreadsHaveNoLatencyBound(t *testing.T) {
	dev, err := device.Lookup("A100-40GB")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		n       int64
		latency bool
	}{{512, false}, {kernel.MaxUnrolledLupsPerThread, true}} {
		p := estimateMatvec(t, dev, 65536, c.n).Prediction
		has := false
		slowest := math.Inf(1)
		for _, b := range p.Bounds {
			has = has || b.Name == "latency"
			slowest = math.Min(slowest, b.GLups)
		}
		if has != c.latency || (p.NeededWarpsPerSM > 0) != c.latency {
			t.Errorf("fold %d: latency bound %v, warps needed %v; want a latency bound %v", c.n, has, p.NeededWarpsPerSM, c.latency)
		}
		if says := strings.Contains(p.Combination, "no latency bound"); says == c.latency {
			t.Errorf("fold %d: combination %q", c.n, p.Combination)
		}
		if !(p.GLups > 0) || p.GLups > slowest {
			t.Errorf("fold %d: prediction %v GLup/s, above its slowest bound %v", c.n, p.GLups, slowest)
		}
	}
}
