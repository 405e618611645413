package footprint

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/kernel/kerneltest"
)

func TestWarpVolumesCheckCases(t *testing.T) {
	// docs/metrics.md §7.3, rows blockL1Load and blockL2Store (bytes per
	// block), and warpL1Load where reference/*.jsonl has the configuration
	// (C5 = star3d_r4_25pt, block (64,4,4), fold (1,1,2)).
	want := map[string][3]float64{
		"C1": {81920, 81920, -1},
		"C2": {22528, 4608, -1},
		"C3": {105472, 4096, -1},
		"C4": {57344, 57344, -1},
		"C5": {356352, 16384, 217088},
	}
	for _, c := range checkCases() {
		t.Run(c.name, func(t *testing.T) {
			k, d := c.kernel(t), lookupDevice(t, c.device)
			r, err := WarpVolumes(k, k.NewLaunch(c.block, c.fold), d.Memory(), ReferenceWarpRules, nil)
			if err != nil {
				t.Fatal(err)
			}
			w := want[c.name]
			if r.BlockL1Load != w[0] || r.BlockL2Store != w[1] {
				t.Errorf("blockL1Load, blockL2Store = %v, %v, want %v, %v", r.BlockL1Load, r.BlockL2Store, w[0], w[1])
			}
			if w[2] >= 0 && r.WarpL1Load != w[2] {
				t.Errorf("warpL1Load = %v, want %v", r.WarpL1Load, w[2])
			}
		})
	}
}

func TestWarpVolumesExactCheckCases(t *testing.T) {
	// Method Exact over an interior wave: blockL1Load, blockL2Store,
	// warpL1Load and the threads per block inside the domain. The values are
	// this implementation's; each line says why one differs from §7.3.
	want := map[string][4]float64{
		"C1": {81920, 81920, 32768, 1024},
		// §8 items 3, 6: 15 of the wave's 432 blocks lie at x = 29 and hold
		// 152 of 512 threads inside the domain (499.5 per block on average),
		// so the average block requests fewer sectors.
		"C2": {21979.11111111111, 4495.777777777777, 13487.333333333334, 499.5},
		// §8 items 3, 6: every third block of the wave (x = 2) is half
		// outside the 640-point domain: 105472·(2 + 1/2)/3, 4096·(5/6) and
		// 512·(5/6) threads.
		"C3": {87893.33333333333, 3413.3333333333335, 58880, 1280.0 / 3},
		// §8 item 10: the exact fusion (16 B at offset 0, 8 B at 16) counts
		// full ranges, which touch the same 64-byte sectors here; warpL1Load
		// counts 64-byte sectors of 64-lane warps instead of the reference's
		// 32-byte sectors of 32-thread warps scaled by CLFetchSize (§3.7).
		"C4": {57344, 57344, 32768, 1024},
		"C5": {356352, 16384, 217088, 1024},
	}
	for _, c := range checkCases() {
		t.Run(c.name, func(t *testing.T) {
			k, d := c.kernel(t), lookupDevice(t, c.device)
			l := k.NewLaunch(c.block, c.fold)
			r, err := WarpVolumes(k, l, d.Memory(), ExactWarpRules, interiorWave(t, k, l, d))
			if err != nil {
				t.Fatal(err)
			}
			got := [4]float64{r.BlockL1Load, r.BlockL2Store, r.WarpL1Load, r.Threads}
			for i, w := range want[c.name] {
				if !near(got[i], w, 1e-9) {
					t.Errorf("blockL1Load, blockL2Store, warpL1Load, threads = %v, want %v", got, want[c.name])
					break
				}
			}
		})
	}
}

func TestWarpVolumesExactHand(t *testing.T) {
	a100 := lookupDevice(t, "A100-40GB")
	cases := []struct {
		name              string
		spec              string
		block, fold       [3]int64
		sample            [][3]int64
		l1Load, refL1Load float64
	}{{
		// 40 points, blocks of 32: block 1 has 8 threads inside the domain,
		// bytes 256..319 = 2 sectors. Reference never clips: 8 sectors.
		name:   "clipped block",
		spec:   "name: t\ndomain: [40]\nfields:\n  - {name: A, element: 8, load: [[x]]}\n",
		block:  [3]int64{32, 1, 1},
		fold:   kernel.NoFold,
		sample: [][3]int64{{1, 0, 0}},
		l1Load: 2 * 32, refL1Load: 8 * 32,
	}, {
		// 2x folding over 41 points: point j = 0 (address 16t) is valid for
		// t ≤ 20, bytes 0..320 = 11 sectors; point j = 1 (16t + 8) for
		// t ≤ 19, bytes 8..312 = 10 sectors. Reference: 16 + 16 sectors.
		name:   "folded guard",
		spec:   "name: t\ndomain: [41]\nfields:\n  - {name: A, element: 8, load: [[x]]}\n",
		block:  [3]int64{32, 1, 1},
		fold:   [3]int64{2, 1, 1},
		sample: [][3]int64{{0, 0, 0}},
		l1Load: 21 * 32, refL1Load: 32 * 32,
	}, {
		// Block (24,2,1), α = 16 B, rows 128 B apart. Hardware warp 0 is row
		// 0 (bytes 16..111: 4 sectors) plus row 1, x < 8 (144..175: 2);
		// warp 1 is row 1, x ≥ 8 (176..239: 3). The reference's boxes are
		// the rows: 4 + 4 sectors.
		name:   "non-power-of-two block",
		spec:   "name: t\ndomain: [24, 2]\nfields:\n  - {name: A, element: 4, extent: [32, 2], offset: 4, load: [[x, y]]}\n",
		block:  [3]int64{24, 2, 1},
		fold:   kernel.NoFold,
		sample: [][3]int64{{0, 0, 0}},
		l1Load: 9 * 32, refL1Load: 8 * 32,
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			k := parseKernel(t, c.spec)
			l := k.NewLaunch(c.block, c.fold)
			r, err := WarpVolumes(k, l, a100.Memory(), ExactWarpRules, c.sample)
			if err != nil {
				t.Fatal(err)
			}
			if r.BlockL1Load != c.l1Load {
				t.Errorf("exact blockL1Load = %v, want %v", r.BlockL1Load, c.l1Load)
			}
			r, err = WarpVolumes(k, l, a100.Memory(), ReferenceWarpRules, nil)
			if err != nil {
				t.Fatal(err)
			}
			if r.BlockL1Load != c.refL1Load {
				t.Errorf("reference blockL1Load = %v, want %v", r.BlockL1Load, c.refL1Load)
			}
		})
	}
}

func TestWarpVolumesC6(t *testing.T) {
	// §7.3 C6: 2D 5-point stencil in a 3D array, N = D = (3456,64,8),
	// α = 0, b = (32,4,1) on the A100: L1Load = blockL1Load/(B·λ) = 42 B/Lup.
	k := parseKernel(t, `
name: c6
domain: [3456, 64, 8]
flops: 5
fields:
  - {name: A, element: 8, load: [[x, y, z], [x + 1, y, z], [x - 1, y, z], [x, y + 1, z], [x, y - 1, z]]}
  - {name: B, element: 8, store: [[x, y, z]]}
`)
	l := k.NewLaunch([3]int64{32, 4, 1}, kernel.NoFold)
	r, err := WarpVolumes(k, l, lookupDevice(t, "A100-40GB").Memory(), ReferenceWarpRules, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.BlockL1Load / float64(l.ThreadsPerBlock()*l.LupsPerThread()); got != 42 {
		t.Errorf("L1Load = %v B/Lup, want 42", got)
	}
}

// randomSpec returns a random kernel spec: up to three fields of random
// element sizes, offsets, extents and multiplicities, whose accesses are
// affine in x, y, z with small coefficients and now and then a floor or
// modulo term, a quarter of them partial.
func randomSpec(r *rand.Rand, domain [3]int64) string {
	return kerneltest.Spec(r, kerneltest.Options{
		Domain:       domain,
		Fields:       3,
		Loads:        3,
		Stores:       2,
		Lead:         []kerneltest.Term{kerneltest.Affine},
		Extra:        []kerneltest.Term{kerneltest.Floor, kerneltest.Mod, kerneltest.Absent, kerneltest.Absent, kerneltest.Absent},
		MaxExtra:     1,
		MaxShift:     4,
		Partial:      true,
		Multiplicity: true,
		MaxOffset:    8,
		Margin:       [3]int64{300, 40, 10},
	})
}

func TestMemoisedEqualsEnumeration(t *testing.T) {
	// Memoisation on (lane pattern, base address mod M) must give exactly
	// what plain lane-by-lane enumeration gives, for every method and L1
	// model, including warps cut by the domain and non-affine accesses.
	r := rand.New(rand.NewPCG(7, 11))
	devices := []string{"A100-40GB", "MI210", "RX6900XT", "A40"}
	for i := range 30 {
		domain := [3]int64{int64(1 + r.IntN(150)), int64(1 + r.IntN(20)), int64(1 + r.IntN(8))}
		k := parseKernel(t, randomSpec(r, domain))
		var block, fold [3]int64
		for d, limit := range [3]int{24, 4, 2} {
			block[d] = int64(1 + r.IntN(limit))
			fold[d] = min(domain[d], int64(1+r.IntN(2)))
		}
		l := k.NewLaunch(block, fold)
		l.Tiling = kernel.Tiling(i % 2)
		g := l.Grid()
		sample := [][3]int64{{g[0] - 1, g[1] - 1, g[2] - 1}}
		for range 3 {
			sample = append(sample, [3]int64{r.Int64N(g[0]), r.Int64N(g[1]), r.Int64N(g[2])})
		}
		d := lookupDevice(t, devices[i%len(devices)])
		checkMemoisedEqualsEnumerated(t, fmt.Sprintf("case %d", i), k, l, d, sample)
	}
}

// checkMemoisedEqualsEnumerated compares the warp volumes and L1 cycles of
// the sample blocks, memoised and enumerated lane by lane, for every
// method's rules, and fails the test at the first difference.
func checkMemoisedEqualsEnumerated(t *testing.T, label string, k *kernel.Kernel, l kernel.Launch, d *device.Device, sample [][3]int64) {
	t.Helper()
	alloc := func(FieldInstructions, [][3]int64) (float64, error) { return 3, nil }
	for _, mr := range methodRules {
		m := mr.rules
		lists, err := Instructions(k, l, d.Memory(), m.Fusion)
		if err != nil {
			t.Fatal(err)
		}
		fast, err := warpVolumes(lists, l, d.Memory(), m, sample, true, nil)
		if err != nil {
			t.Fatal(err)
		}
		slow, err := warpVolumes(lists, l, d.Memory(), m, sample, false, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(fast, slow) {
			t.Fatalf("%s, %s on %s, block %v fold %v %s: memoised volumes %+v, enumerated %+v\n%s", label, mr.name, d.Name, l.Block, l.Fold, l.Tiling, fast, slow, generalSpecOf(k))
		}
		fastL1, err := l1Cycles(lists, l, d.Memory(), m, sample, alloc, true, nil)
		if err != nil {
			t.Fatal(err)
		}
		slowL1, err := l1Cycles(lists, l, d.Memory(), m, sample, alloc, false, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(fastL1, slowL1) {
			t.Fatalf("%s, %s on %s, block %v fold %v %s: memoised L1 %+v, enumerated %+v\n%s", label, mr.name, d.Name, l.Block, l.Fold, l.Tiling, fastL1, slowL1, generalSpecOf(k))
		}
	}
}

func BenchmarkWarpMetrics(b *testing.B) {
	// star3d-r4 on 640×512×512, A100-40GB, block (256,1,2): the volumes and
	// the L1 cycle model (allocation lines supplied as a constant, which the
	// engine computes with ISL).
	k := exampleKernel(b, "star3d-r4")
	d := lookupDevice(b, "A100-40GB")
	l := k.NewLaunch([3]int64{256, 1, 2}, kernel.NoFold)
	sample := interiorWave(b, k, l, d)
	alloc := func(FieldInstructions, [][3]int64) (float64, error) { return 450, nil }
	for _, mr := range methodRules {
		m := mr.rules
		b.Run(mr.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := WarpVolumes(k, l, d.Memory(), m, sample); err != nil {
					b.Fatal(err)
				}
				if _, err := L1Cycles(k, l, d.Memory(), m, sample, alloc); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func TestMemoHits(t *testing.T) {
	// C3's centre load: every warp tile of the truncated grid starts at
	// 8·(4 + 32·k0 + 640·k1 + 640·512·k2) bytes, a multiple of the 32-byte
	// sector, so all 3072 tiles share one memo entry.
	k := exampleKernel(t, "star3d-r4")
	l := k.NewLaunch([3]int64{256, 1, 2}, kernel.NoFold)
	lists, err := Instructions(k, l, lookupDevice(t, "A100-40GB").Memory(), FuseAsReference)
	if err != nil {
		t.Fatal(err)
	}
	c, err := sectorCounter(lists[0].Instructions[:1], nil, 32, false, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	tiles := boxTiles([3]int64{32, 1, 1}, [3]int64{24, 8, 16})
	for _, w := range tiles {
		if n, err := c.on(w); err != nil || n != 8 {
			t.Fatalf("tile at %v: %d sectors (%v), want 8", w.base, n, err)
		}
	}
	if len(c.memo) != 1 {
		t.Errorf("%d memo entries for %d tiles, want 1", len(c.memo), len(tiles))
	}
}

// TestMemoisedEqualsEnumerationReduction checks memoisation on the warps of
// a reduction as the importers model one: every thread folds over the
// whole reduced dimension, and the load and store of its output apply at
// the first and the last point only, so every lane executes them on some
// point and the warps are memoised like unguarded ones.
func TestMemoisedEqualsEnumerationReduction(t *testing.T) {
	k := parseKernel(t, `name: matvec
domain: [2048, 64]
fields:
  - name: A
    element: 8
    load: [[y, x]]
    extent: [64, 2048]
  - name: x
    element: 8
    load: [[y]]
  - name: "y"
    element: 8
    load: [{at: [x], if: "y = 0"}]
    store: [{at: [x], if: "y = 63"}]
`)
	// A fold that covers the reduced dimension, then one that covers half
	// of it: the second row of blocks never reaches y = 0 or y = 63 with
	// the point of the first or last fold offset.
	for _, fold := range [][3]int64{{1, 64, 1}, {1, 32, 1}} {
		for _, d := range []string{"A100-40GB", "MI210"} {
			l := k.NewLaunch([3]int64{64, 1, 1}, fold)
			g := l.Grid()
			sample := [][3]int64{{0, 0, 0}, {g[0] - 1, g[1] - 1, 0}, {g[0] / 2, g[1] / 2, 0}}
			checkMemoisedEqualsEnumerated(t, fmt.Sprint(d, " fold ", fold), k, l, lookupDevice(t, d), sample)
		}
	}
	// A guard that keeps part of a warp's lanes.
	cut := parseKernel(t, "name: cut\ndomain: [2048, 64]\nfields:\n  - name: A\n    element: 8\n    load: [[x, y]]\n    store: [{at: [x, y], if: \"x < 40\"}]\n")
	l := cut.NewLaunch([3]int64{64, 1, 1}, [3]int64{1, 1, 1})
	checkMemoisedEqualsEnumerated(t, "x < 40", cut, l, lookupDevice(t, "A100-40GB"), [][3]int64{{0, 0, 0}, {0, 5, 0}, {3, 7, 0}})
}

// TestThreadsAgreeWithExecutes checks the threads that execute each
// instruction, counted as boxes, against asking each lane (executes): on
// the reduction, its half fold and a guard that cuts warps, every lane is
// in an instruction's threads exactly when it executes it, a warp that
// cover calls full or idle is so lane by lane, and the cases have warps of
// each kind.
func TestThreadsAgreeWithExecutes(t *testing.T) {
	reduction := parseKernel(t, "name: r\ndomain: [2048, 64]\nfields:\n  - name: A\n    element: 8\n    load: [[y, x]]\n    extent: [64, 2048]\n  - name: \"y\"\n    element: 8\n    load: [{at: [x], if: \"y = 0\"}]\n    store: [{at: [x], if: \"y = 63\"}]\n")
	cut := parseKernel(t, "name: cut\ndomain: [2048, 64]\nfields:\n  - name: A\n    element: 8\n    load: [[x, y]]\n    store: [{at: [x, y], if: \"x < 40\"}]\n")
	d := lookupDevice(t, "A100-40GB")
	var states [3]int
	for _, c := range []struct {
		k     *kernel.Kernel
		block [3]int64
		fold  [3]int64
	}{
		{reduction, [3]int64{64, 1, 1}, [3]int64{1, 64, 1}},
		{reduction, [3]int64{64, 1, 1}, [3]int64{1, 32, 1}},
		{cut, [3]int64{64, 1, 1}, [3]int64{1, 1, 1}},
		{cut, [3]int64{16, 4, 1}, [3]int64{2, 1, 1}},
	} {
		l := c.k.NewLaunch(c.block, c.fold)
		lists, err := Instructions(c.k, l, d.Memory(), FuseInAddressOrder)
		if err != nil {
			t.Fatal(err)
		}
		g := newPointGuard(l, true, lists)
		grid := l.Grid()
		var blocks [][3]int64
		for by := range grid[1] {
			blocks = append(blocks, [3]int64{0, by, 0}, [3]int64{grid[0] - 1, by, 0})
		}
		for _, fi := range lists {
			for i := range fi.Instructions {
				in := &fi.Instructions[i]
				s, err := g.threads(in, nil)
				if err != nil {
					t.Fatal(err)
				}
				for _, w := range hardwareWarps(l.Block, d.WarpSize, blocks, nil) {
					executing := 0
					for _, o := range w.lanes.offsets {
						lane := kernel.Point{w.base[0] + o[0], w.base[1] + o[1], w.base[2] + o[2]}
						if g.executes(lane, in) != s.contains(lane) {
							t.Fatalf("%s block %v fold %v: lane %v: executes %v, in the threads %v", c.k.Name, c.block, c.fold, lane, g.executes(lane, in), s.boxes)
						}
						if s.contains(lane) {
							executing++
						}
					}
					lo, hi := w.bounds()
					st := s.cover(lo, hi)
					if st == everyLane && executing != len(w.lanes.offsets) || st == noLane && executing != 0 {
						t.Fatalf("%s block %v fold %v: warp at %v: cover %d, but %d of %d lanes execute", c.k.Name, c.block, c.fold, w.base, st, executing, len(w.lanes.offsets))
					}
					states[st]++
				}
			}
		}
	}
	if states[noLane] == 0 || states[someLanes] == 0 || states[everyLane] == 0 {
		t.Errorf("%d idle, %d partial and %d full warps: the cases must have each", states[noLane], states[someLanes], states[everyLane])
	}
}
