package model

import (
	"math"
	"strings"
	"testing"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/kernel"
)

// TestCountIdleThreadsHand checks the idle-thread counts against cases
// worked out by hand.
func TestCountIdleThreadsHand(t *testing.T) {
	for _, tc := range []struct {
		name                string
		block, fold, domain [3]int64
		want                IdleThreads
		frac                float64
	}{
		// 4,4,64 on a 1-D domain of 1000: a = (1000,1,1), grid 250 blocks
		// of 1024 threads; only threadIdx (x<4, 0, 0) work, linear ids 0..3,
		// all in warp 0 of each block.
		{"4,4,64 on 1-D", [3]int64{4, 4, 64}, [3]int64{1, 1, 1}, [3]int64{1000, 1, 1},
			IdleThreads{Launched: 256000, Active: 1000, Warps: 8000, ActiveWarps: 250, Blocks: 250}, 1 - 1000.0/256000},
		// 32,16,2 on a 64×64 2-D domain: grid (2,4,1) = 8 blocks; the z=1
		// half of each block is idle, i.e. warps 16..31 (ids 512..1023).
		{"32,16,2 on 2-D", [3]int64{32, 16, 2}, [3]int64{1, 1, 1}, [3]int64{64, 64, 1},
			IdleThreads{Launched: 8192, Active: 4096, Warps: 256, ActiveWarps: 128, Blocks: 8}, 0.5},
		// Edge only: 100 points, fold 2 → a = 50 threads with work; one block
		// of 64: ids 0..49 in warps 0 and 1, 14 idle.
		{"edge with fold", [3]int64{64, 1, 1}, [3]int64{2, 1, 1}, [3]int64{100, 1, 1},
			IdleThreads{Launched: 64, Active: 50, Warps: 2, ActiveWarps: 2, Blocks: 1}, 14.0 / 64},
		// An odd domain with fold 2: ⌈101/2⌉ = 51 threads have work.
		{"odd domain", [3]int64{64, 1, 1}, [3]int64{2, 1, 1}, [3]int64{101, 1, 1},
			IdleThreads{Launched: 64, Active: 51, Warps: 2, ActiveWarps: 2, Blocks: 1}, 13.0 / 64},
		// Four kinds of block: domain (40,3), block (32,2), grid (2,2). Each
		// block has warp 0 (row y=0) and warp 1 (row y=1). Blocks with
		// blockIdx.y = 1 cover y = 2 only, so their warp 1 is idle:
		// 2+2+1+1 = 6 active warps; 40·3 = 120 active threads of 256.
		{"four kinds", [3]int64{32, 2, 1}, [3]int64{1, 1, 1}, [3]int64{40, 3, 1},
			IdleThreads{Launched: 256, Active: 120, Warps: 8, ActiveWarps: 6, Blocks: 4}, 136.0 / 256},
		// The paper's star3d-r4 block on its domain: ⌈640/256⌉ = 3 blocks in
		// x cover 768 threads, of which 128 are idle: a sixth of them.
		{"paper 256,1,2", [3]int64{256, 1, 2}, [3]int64{1, 1, 2}, [3]int64{640, 512, 512},
			IdleThreads{Launched: 768 * 512 * 256, Active: 640 * 512 * 256, Warps: 768 * 512 * 256 / 32, ActiveWarps: 640 * 512 * 256 / 32, Blocks: 3 * 512 * 128}, 1.0 / 6},
		// No idle thread: 128,1,2 divides the domain.
		{"none", [3]int64{128, 1, 2}, [3]int64{1, 1, 2}, [3]int64{640, 512, 512},
			IdleThreads{Launched: 640 * 512 * 256, Active: 640 * 512 * 256, Warps: 640 * 512 * 256 / 32, ActiveWarps: 640 * 512 * 256 / 32, Blocks: 5 * 512 * 128}, 0},
	} {
		l := kernel.Launch{Block: tc.block, Fold: tc.fold, Domain: tc.domain}
		got := CountIdleThreads(l, 32)
		if got != tc.want {
			t.Errorf("%s: CountIdleThreads = %+v, want %+v", tc.name, got, tc.want)
		}
		if math.Abs(got.Fraction()-tc.frac) > 1e-15 {
			t.Errorf("%s: Fraction = %v, want %v", tc.name, got.Fraction(), tc.frac)
		}
	}
}

// TestCountIdleThreadsBrute compares CountIdleThreads with a thread-by-
// thread enumeration of small launches.
func TestCountIdleThreadsBrute(t *testing.T) {
	blocks := [][3]int64{{4, 4, 2}, {8, 2, 1}, {3, 5, 1}, {32, 1, 1}, {1, 1, 4}, {16, 2, 2}}
	folds := [][3]int64{{1, 1, 1}, {2, 1, 1}, {1, 3, 2}}
	domains := [][3]int64{{7, 1, 1}, {17, 5, 3}, {64, 2, 9}, {3, 3, 3}}
	for _, b := range blocks {
		for _, f := range folds {
			for _, d := range domains {
				l := kernel.Launch{Block: b, Fold: f, Domain: d}
				if l.Validate() != nil {
					continue
				}
				got := CountIdleThreads(l, 32)
				var want IdleThreads
				g := l.Grid()
				want.Blocks = g[0] * g[1] * g[2]
				B := b[0] * b[1] * b[2]
				for bz := range g[2] {
					for by := range g[1] {
						for bx := range g[0] {
							warpActive := map[int64]bool{}
							for id := range B {
								want.Launched++
								tx, ty, tz := bx*b[0]+id%b[0], by*b[1]+(id/b[0])%b[1], bz*b[2]+id/(b[0]*b[1])
								if tx*f[0] < d[0] && ty*f[1] < d[1] && tz*f[2] < d[2] {
									want.Active++
									warpActive[id/32] = true
								}
							}
							want.Warps += (B + 31) / 32
							want.ActiveWarps += int64(len(warpActive))
						}
					}
				}
				if got != want {
					t.Errorf("block %v fold %v domain %v: %+v, enumeration %+v", b, f, d, got, want)
				}
			}
		}
	}
}

func TestIdleNote(t *testing.T) {
	l := kernel.Launch{Block: [3]int64{4, 4, 64}, Fold: [3]int64{1, 1, 1}, Domain: [3]int64{1000, 1, 1}}
	if n := IdleNote(l, 32); !strings.Contains(n, "99.6 % of the launched threads are idle (255000 of 256000") {
		t.Errorf("IdleNote = %q", n)
	}
	// Exactly a quarter idle gets no note: 48 of 64 threads active.
	l = kernel.Launch{Block: [3]int64{64, 1, 1}, Fold: [3]int64{1, 1, 1}, Domain: [3]int64{48, 1, 1}}
	if n := IdleNote(l, 32); n != "" {
		t.Errorf("a quarter idle: IdleNote = %q, want none", n)
	}
	l.Domain[0] = 47
	if n := IdleNote(l, 32); n == "" {
		t.Errorf("17 of 64 idle: no note")
	}
}

// TestLatencyPredictionMatchesEstimate checks that LatencyPrediction with
// every warp active reproduces Estimate's latency model.
func TestLatencyPredictionMatchesEstimate(t *testing.T) {
	dev, err := device.Lookup("A100-40GB")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"star3d-r1", "vec-copy"} {
		k := loadExample(t, name)
		if name == "star3d-r1" {
			k.Domain = [3]int64{256, 128, 64}
		}
		l := k.NewLaunch([3]int64{256, 1, 1}, [3]int64{1, 1, 1})
		r, err := Estimate(k, l, dev, Options{Method: MethodExact, Model: ModelLatency})
		if err != nil {
			t.Fatal(err)
		}
		warps := float64(r.Launch.BlocksPerSM) * 256 / 32
		p, err := LatencyPrediction(r, dev, warps, 32, k.FPType)
		if err != nil {
			t.Fatal(err)
		}
		if p.GLups != r.Prediction.GLups || p.Limiter != r.Prediction.Limiter || p.Regime != r.Prediction.Regime {
			t.Errorf("%s: LatencyPrediction = %v %s %s, Estimate %v %s %s", name, p.GLups, p.Limiter, p.Regime,
				r.Prediction.GLups, r.Prediction.Limiter, r.Prediction.Regime)
		}
	}
}

// TestLatencyIdleThreads checks the latency model on vec-copy with block
// 4,4,64: 2 blocks per SM hold 2 active warps of 4 lanes each, so the
// latency-bound throughput is 2/L warps per cycle of 4 points each, far
// below what the full block's 64 warps of 32 points would give; the
// roofline, which has no threads in flight, is the same as for a block
// without idle threads.
func TestLatencyIdleThreads(t *testing.T) {
	dev, err := device.Lookup("A100-40GB")
	if err != nil {
		t.Fatal(err)
	}
	k := loadExample(t, "vec-copy")
	k.Domain = [3]int64{1 << 20, 1, 1}
	l := k.NewLaunch([3]int64{4, 4, 64}, [3]int64{1, 1, 1})
	r, err := Estimate(k, l, dev, Options{Method: MethodExact, Model: ModelLatency})
	if err != nil {
		t.Fatal(err)
	}
	if r.Launch.BlocksPerSM != 2 {
		t.Fatalf("blocks per SM = %d, want 2", r.Launch.BlocksPerSM)
	}
	p := r.Prediction
	if p.Latency == nil || p.Latency.WarpsPerSM != 2 || p.Regime != string(LatencyBound) {
		t.Fatalf("prediction %+v, want 2 warps per SM, latency-bound", p)
	}
	// Latency-bound: GLup/s = (2/L) · 4 lanes · SMs · clock.
	want := 2 / p.Latency.LatencyCycles * 4 * float64(dev.SMs) * dev.ClockGHz
	if math.Abs(p.GLups-want) > 1e-9*want {
		t.Errorf("GLup/s = %v, want %v", p.GLups, want)
	}
	all, err := LatencyPrediction(r, dev, 64, 32, k.FPType) // as if every thread had work
	if err != nil || !(p.GLups < all.GLups/10) {
		t.Errorf("GLup/s %v, not far below the %v of the full block (%v)", p.GLups, all.GLups, err)
	}
	roof, err := Estimate(k, l, dev, Options{Method: MethodExact, Model: ModelRoofline})
	if err != nil || roof.Prediction.GLups != roof.Derived.PerfV3 {
		t.Errorf("roofline %v, want perfV3 %v (%v)", roof.Prediction.GLups, roof.Derived.PerfV3, err)
	}
}
