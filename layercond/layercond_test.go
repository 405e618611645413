package layercond

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/model"
)

// a100 returns the A100-40GB of the paper: 108 SMs, 20 MiB effective L2.
func a100(t testing.TB) *device.Device {
	t.Helper()
	dev, err := device.Lookup("A100-40GB")
	if err != nil {
		t.Fatal(err)
	}
	return dev
}

// TestPlateausStar3dR4 reproduces the layer-condition plateaus of the
// paper's §5.7 (spec §7.1) for the range-4 star stencil on the A100.
//
// The paper: "With no z layer reuse, all reuse has to come from the wave
// shape itself. With 1/2/4/8/16/32 layers deep wave shapes, (d+8)/d values
// have to be loaded", i.e. 72, 40, 24, 16, 12, 10 B/Lup. So the plateau is
// the volume when x and y reuse hit and z reuse is lost, NoZReuse = memLoadV1
// − memLoadOverlap[0], not the volume with z reuse (that one falls to the
// minimum of 8 B/Lup, one load per Lup).
//
// Hand derivation: a wave of 1024-thread blocks (1024/d, 1, d) on planes far
// larger than a wave (W = 216 blocks, a few block rows) is d layers deep.
// Its z-neighbours reach 4 layers below and above, so it loads d+8 layers
// at its xy positions; the y-neighbours are credited by the y layer set (the
// block row before, whose footprint reaches 4 rows ahead). Per Lup that is
// 8·(d+8)/d bytes. Method reference adds the x halo of its multi-dimensional
// address space: the elements −4 … −1 and s … s+3 of each centre-layer row
// fall into one extra 64-byte granule at each row end, 2·64 B per s Lups,
// which is 128/s B/Lup. Method exact uses linear addresses, where a row's
// halo lies in the neighbouring rows' granules.
//
// The plane size is s = 1664 = 26·64, z = 193 = 3·64 + 1: the number of
// block layers ⌈193/d⌉ (193, 97, 49, 25, 13, 7) is odd for every d. For an
// even count the exact method's middle wave (waves.ExactShape, the wave of
// index ⌊nb/W/2⌋) straddles the boundary between the two middle block
// layers; there it meets the domain's y boundary, whose halo rows nothing
// reuses, and NoZReuse rises (27.1 instead of 10 B/Lup for d = 32 at s =
// 2048, z = 128, four block layers).
func TestPlateausStar3dR4(t *testing.T) {
	k := loadExample(t, "star3d-r4")
	dev := a100(t)
	const s = 1664
	for _, m := range []model.Method{model.MethodReference, model.MethodExact} {
		for _, d := range []int64{1, 2, 4, 8, 16, 32} {
			c := Config{Kernel: k, Device: dev, Block: [3]int64{1024 / d, 1, d}, Method: m}
			p, err := Evaluate(context.Background(), c, s)
			if err != nil {
				t.Fatalf("%v d=%d: %v", m, d, err)
			}
			plateau := 8 * float64(d+8) / float64(d)
			want := plateau
			if m == model.MethodReference {
				want += 128.0 / s
			}
			if math.Abs(p.NoZReuse-want) > 1e-3 {
				t.Errorf("%v d=%d: memLoadV1 − overlap xy = %.4f B/Lup, want %.4f", m, d, p.NoZReuse, want)
			}
			// z reuse is lost: the z layer set is many times the L2
			// (O_ov,z > 2, where the fitted z hit is about 0, spec §7.1) …
			if p.Fits[1] || p.Oversubscription[1] < 2 {
				t.Errorf("%v d=%d: O_ov,z = %.3f, want > 2 (no z reuse)", m, d, p.Oversubscription[1])
			}
			// … so the capacity-aware prediction sits on the plateau: the
			// reference's steep curves keep all y reuse; the exact method's
			// paper-era y curve is loose and misses part of the y overlap
			// (up to 1.6 B/Lup for d = 32), never more than all of it.
			if p.MemLoadV2 < want-1e-3 || p.MemLoadV2 > want+p.MemLoadOverlap[0] {
				t.Errorf("%v d=%d: memLoadV2 = %.3f, want within [%.3f, %.3f]", m, d, p.MemLoadV2, want, want+p.MemLoadOverlap[0])
			}
			if m == model.MethodReference && p.MemLoadV2 > want*1.005 {
				t.Errorf("%v d=%d: memLoadV2 = %.3f, want the plateau %.3f within 0.5%%", m, d, p.MemLoadV2, want)
			}
			// With every layer's reuse credited each element of A is
			// loaded once: 8 B/Lup exactly with linear addresses.
			if m == model.MethodExact && math.Abs(p.FullReuse-8) > 1e-3 {
				t.Errorf("%v d=%d: fully reused volume %.4f B/Lup, want 8", m, d, p.FullReuse)
			}
		}
	}
}

// TestLowPlateauStar3dR4 checks the other end of the paper's curves: on
// small planes the z layer set fits and the volume is "almost as low as the
// absolute minimum of 8 B/Lup".
func TestLowPlateauStar3dR4(t *testing.T) {
	k := loadExample(t, "star3d-r4")
	dev := a100(t)
	for _, m := range []model.Method{model.MethodReference, model.MethodExact} {
		for _, d := range []int64{1, 4, 32} {
			p, err := Evaluate(context.Background(), Config{Kernel: k, Device: dev, Block: [3]int64{1024 / d, 1, d}, Method: m}, 128)
			if err != nil {
				t.Fatal(err)
			}
			if !p.Fits[1] || p.MemLoadV2 < 8 || p.MemLoadV2 > 10 {
				t.Errorf("%v d=%d s=128: z fits %v, memLoadV2 = %.3f B/Lup, want z reuse to fit and 8 ≤ V2 < 10", m, d, p.Fits[1], p.MemLoadV2)
			}
		}
	}
}

// TestZTransitionReference locates the z transition of block (1024,1,1)
// with method reference and checks it against a hand-derived bracket.
//
// The z layer set is one layer of threads over the whole s×s plane. With
// 64-byte granules (8 elements) its footprint is, for the loads of A, the
// centre layer with the x halo (s rows of ⌊(s+3)/8⌋+2 granules) and the y
// halo rows (8 of ⌈s/8⌉), the 8 other layers of the z-neighbours (s rows of
// ⌈s/8⌉), and the store of B (s rows of ⌈s/8⌉): at least 1.25·s² granules,
// Old_z ≥ 80·s² bytes. The reuse fits while O_ov,z = (Old_z + New − Ov_z)/L2
// ≤ 1, so 80·s² ≤ 20 MiB: s ≤ 511 (80·512² is exactly 20 MiB). New − Ov_z
// is what the wave loads that the layer set did not touch: the new leading
// layer, 221184 threads · 8 B = 1.77 MB, plus x and y halo granules, below
// 2.5 MB; with Old_z ≤ 80·s² + 200·s the reuse fits while 80·s² + 200·s +
// 2.5 MB ≤ 20 MiB, which holds up to s = 479. So 479 ≤ s* ≤ 511; the
// sequential condition for half the L2 says 381.
func TestZTransitionReference(t *testing.T) {
	r, err := Sweep(Config{
		Kernel: loadExample(t, "star3d-r4"), Device: a100(t), Block: [3]int64{1024, 1, 1},
		Method: model.MethodReference, Sizes: []int64{64, 128, 256, 512, 1024},
	})
	if err != nil {
		t.Fatal(err)
	}
	z := r.Transitions[1]
	if z.Layer != "z" || z.Kind != TransitionFound || z.S < 479 || z.S > 511 {
		t.Fatalf("z transition %+v, want one at 479 ≤ s ≤ 511", z)
	}
	if z.Last.S != z.S || z.First.S != z.S+1 || !z.Last.Fits[1] || z.First.Fits[1] {
		t.Errorf("z transition at %d: the reuse must fit at s and not at s+1, got %+v and %+v", z.S, *z.Last, *z.First)
	}
	if z.Estimates > 8 { // bisection of the bracket (256, 512): ⌈log2 256⌉ steps
		t.Errorf("z transition took %d estimates, want at most 8", z.Estimates)
	}
	// On planes narrower than the block's 1024 threads the wave spans whole
	// planes and has no y layer set; from s = 512 on the y set is a single
	// row and fits.
	y := r.Transitions[0]
	if y.Kind != FitsThroughout || y.S != 1024 {
		t.Errorf("y transition %+v, want fits throughout up to 1024", y)
	}
	for _, p := range r.Points {
		if wantY := p.S >= 512; p.Fits[0] != wantY {
			t.Errorf("s=%d: y fits %v, want %v", p.S, p.Fits[0], wantY)
		}
	}
}

// TestRowConditionStar2d checks the row condition of the 2-D 5-point star
// (star2d-r1) on the A100 with method exact against a hand count.
//
// Rows of s points, y = 2^29/s of them. A block (256, b_y, 1) covers b_y
// rows; the y layer set is the block row before the wave, and method
// exact's O_ov,y is its footprint over the L2 (the distinct bytes between
// a row's use and its reuse). That block row loads b_y + 2 rows of A (its
// own and the y±1 neighbours) and stores b_y rows of B, 8 bytes a point:
// Old_y = 8·(2·b_y + 2)·s bytes, plus at most two 64-byte granules per
// row for the x halo and the row ends, (2·b_y + 2)·128 bytes. The row
// condition Old_y ≤ L2 = 20 MiB thus holds up to s* with
// L2/perX − (2·b_y + 2)·128/perX − 1 < s* ≤ L2/perX, perX = 8·(2·b_y + 2):
// for b_y = 2 (48 B per point of a row) 436889 < s* ≤ 436906, for b_y = 4
// (80 B) 262134 < s* ≤ 262144. Where it holds every element of A is loaded
// once from DRAM, 8 B/Lup (with the x halo's 2 granules per row, at most
// 128/s more); where the block row is more than twice the L2 (O_ov > 2,
// where the fitted curve grants no reuse) the wave reloads its b_y + 2 rows
// for b_y: 8·(b_y + 2)/b_y B/Lup, 16 for b_y = 2 and 12 for b_y = 4.
func TestRowConditionStar2d(t *testing.T) {
	k := loadExample(t, "star2d-r1")
	const l2 = 20 << 20
	for _, by := range []int64{2, 4} {
		r, err := Sweep(Config{Kernel: k, Device: a100(t), Block: [3]int64{256, by, 1}, Sizes: []int64{4096, 65536, 1 << 20}})
		if err != nil {
			t.Fatal(err)
		}
		perX, slack := 8*(2*by+2), (2*by+2)*128
		if r.Dims != 2 || len(r.Transitions) != 1 || r.Transitions[0].Layer != "y" {
			t.Fatalf("b_y=%d: dims %d, transitions %+v; want 2 and the y (row) transition only", by, r.Dims, r.Transitions)
		}
		for _, p := range r.Points {
			if want := [3]int64{p.S, PaperTotal / p.S, 1}; p.Domain != want {
				t.Errorf("b_y=%d s=%d: domain %v, want %v", by, p.S, p.Domain, want)
			}
			if old := p.WaveMemOld[0]; old < float64(perX*p.S) || old > float64(perX*p.S+slack) {
				t.Errorf("b_y=%d s=%d: Old_y = %v bytes, want %d·s … %d·s + %d", by, p.S, old, perX, perX, slack)
			}
			fits := p.S < 1<<20
			low, high := 8.0, 8+128/float64(p.S)
			if !fits {
				low = 8 * float64(by+2) / float64(by)
				high = low + 128/float64(p.S)
			}
			if p.Fits[0] != fits || p.Fits[1] || p.MemLoadV2 < low-1e-9 || p.MemLoadV2 > high+0.05 {
				t.Errorf("b_y=%d s=%d: row fits %v (z %v), memLoadV2 %.4f; want fits %v, no z layer, V2 in [%.4f, %.4f]",
					by, p.S, p.Fits[0], p.Fits[1], p.MemLoadV2, fits, low, high+0.05)
			}
		}
		row := r.Transitions[0]
		if lo, hi := (l2-slack)/perX-1, l2/perX; row.Kind != TransitionFound || row.S <= lo || row.S > hi ||
			!row.Last.Fits[0] || row.First.Fits[0] || row.First.S != row.S+1 {
			t.Errorf("b_y=%d: row transition %+v, want one in (%d, %d] that fits at s and not at s+1", by, row, lo, hi)
		}
	}
}

// TestInnerExtentStar3dR4 sweeps planes of a fixed row length X = 512 and
// a growing height s with block (256,1,4) and method exact, against a hand
// count: the z layer set is one block layer, 4 + 8 layers of A (its own and
// the z±4 neighbours) and 4 layers of B, 16 layers of X·s points of 8
// bytes: Old_z = 65536·s bytes, plus less than a 64-byte granule at the
// ends of each layer (16·64 = 1024 bytes). It fits in the 20 MiB L2 up to
// s = 319 (65536·319 + 1024 < 20 MiB), and from s = 321 on it does not;
// s = 320 fills the L2 exactly. So the z transition is at 319 or 320. The
// y layer set, one block row of a fixed 512 points, fits throughout.
func TestInnerExtentStar3dR4(t *testing.T) {
	r, err := Sweep(Config{Kernel: loadExample(t, "star3d-r4"), Device: a100(t), Block: [3]int64{256, 1, 4},
		Inner: 512, Sizes: []int64{128, 256, 512, 1024}})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range r.Points {
		if want := [3]int64{512, p.S, PaperTotal / 512 / p.S}; p.Domain != want {
			t.Errorf("s=%d: domain %v, want %v", p.S, p.Domain, want)
		}
		if old := p.WaveMemOld[1]; old < float64(65536*p.S) || old > float64(65536*p.S+1024) {
			t.Errorf("s=%d: Old_z = %v bytes, want 65536·s … 65536·s + 1024", p.S, old)
		}
	}
	y, z := r.Transitions[0], r.Transitions[1]
	if r.Inner != 512 || r.Series().Domain(300) != [3]int64{512, 300, 3495} {
		t.Errorf("result series %+v, want inner 512", r.Series())
	}
	if y.Kind != FitsThroughout || z.Kind != TransitionFound || z.S < 319 || z.S > 320 {
		t.Errorf("y %+v, z %+v; want y to fit throughout and the z transition at 319 or 320", y, z)
	}
}

// TestSweepIndependentOfWorkers checks that the result does not depend on
// the number of workers, and that every plane size reports progress once.
func TestSweepIndependentOfWorkers(t *testing.T) {
	c := Config{
		Kernel: loadExample(t, "star3d-r4"), Device: a100(t), Block: [3]int64{256, 1, 4},
		Method: model.MethodReference, Sizes: []int64{128, 192, 256, 384, 512},
	}
	var results []*Result
	for _, w := range []int{1, 3} {
		c.Workers = w
		var calls atomic.Int64
		c.Progress = func() { calls.Add(1) }
		r, err := Sweep(c)
		if err != nil {
			t.Fatal(err)
		}
		if calls.Load() != int64(len(c.Sizes)) {
			t.Errorf("%d workers: progress called %d times, want %d", w, calls.Load(), len(c.Sizes))
		}
		results = append(results, r)
	}
	if !reflect.DeepEqual(results[0], results[1]) {
		t.Errorf("1 worker and 3 workers differ:\n%+v\n%+v", results[0], results[1])
	}
}

func TestConfigErrors(t *testing.T) {
	k := loadExample(t, "star3d-r4")
	dev := a100(t)
	ok := Config{Kernel: k, Device: dev, Block: [3]int64{256, 1, 2}, Sizes: []int64{64, 128}}
	cases := []struct {
		name string
		edit func(*Config)
		want string
	}{
		{"no kernel", func(c *Config) { c.Kernel = nil }, "kernel and a device"},
		{"1-D kernel", func(c *Config) { c.Kernel = loadExample(t, "vec-copy") }, "vec-copy.yaml: domain: kernel vec-copy is 1-D"},
		{"inner of a 2-D kernel", func(c *Config) { c.Kernel = loadExample(t, "star2d-r1"); c.Inner = 512 }, "inner extent 512"},
		{"negative inner", func(c *Config) { c.Inner = -1 }, "inner extent -1"},
		{"no sizes", func(c *Config) { c.Sizes = nil }, "no extents"},
		{"descending", func(c *Config) { c.Sizes = []int64{128, 64} }, "ascending"},
		{"block", func(c *Config) { c.Block = [3]int64{2048, 1, 1} }, "hardware limit"},
		{"fold deeper than z", func(c *Config) { c.Fold = [3]int64{1, 1, 4}; c.Sizes = []int64{20000} }, "fold z = 4"},
		{"too many points", func(c *Config) { c.Sizes = []int64{1 << 26} }, "2^50"},
		{"total", func(c *Config) { c.Total = -1 }, "series total"},
	}
	for _, tc := range cases {
		c := ok
		tc.edit(&c)
		if _, err := Sweep(c); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want one containing %q", tc.name, err, tc.want)
		}
	}
	if _, err := Evaluate(context.Background(), Config{Kernel: k, Device: dev, Block: [3]int64{0, 1, 1}}, 64); err == nil {
		t.Error("Evaluate with block x = 0: no error")
	}
}

// TestWithDomainKeepsPadding checks that halo-padded extents grow with the
// domain and the spec is left untouched.
func TestWithDomainKeepsPadding(t *testing.T) {
	k := loadExample(t, "star3d-r1") // extent 514 = domain 512 + 2
	got := k.WithDomain([3]int64{100, 200, 300})
	if got.Fields[0].Extent != [3]int64{102, 202, 302} || got.Domain != [3]int64{100, 200, 300} {
		t.Errorf("extent %v domain %v, want 102,202,302 and 100,200,300", got.Fields[0].Extent, got.Domain)
	}
	if k.Fields[0].Extent != [3]int64{514, 514, 514} {
		t.Errorf("the spec's extent changed to %v", k.Fields[0].Extent)
	}
}

// yStack is a 3-D kernel that loads n rows y … y+n−1 of A at every point
// and stores B, so that the L1 lines a block allocates can be counted by
// hand (TestL1HandCases, TestL1TransitionReference). A's extent keeps n−1
// rows of padding in y; rows of s doubles start on 128-byte lines when s is
// a multiple of 16.
func yStack(t *testing.T, n int) *kernel.Kernel {
	t.Helper()
	loads := make([]string, n)
	for i := range loads {
		loads[i] = fmt.Sprintf("[x, y + %d, z]", i)
	}
	return parseSpec(t, fmt.Sprintf(`name: ystack%d
domain: [64, 64, 64]
fields:
  - {name: A, element: 8, extent: [64, %d, 64], load: [%s]}
  - {name: B, element: 8, store: [[x, y, z]]}
`, n, 64+n-1, strings.Join(loads, ", ")))
}

// TestL1HandCases checks the L1 condition of method exact against a hand
// count. A block (1024,1,1) on planes of s = 1024 points is one row; its
// warps read the n rows y … y+n−1 of 1024 doubles, 64 lines of 128 bytes
// each: blockL1LoadAlloc = n·64·128 = 8192·n bytes. Two such blocks share
// an SM of the A100 (2048 threads), whose L1 holds 192 KiB = 196608 bytes,
// so O_L1 = 2·8192·n/196608 = n/12: 0.5 for n = 6 (fits), 2 for n = 24
// (does not). Every load is a warp-wide row segment of 32 doubles, 8
// sectors of 32 bytes, and no sector is requested twice: L1Load = L2LoadV1
// = 8·n B/Lup. Method exact scales the blocks of narrower planes (s = 256,
// 512: one row of s valid threads) to full blocks, so the allocation, and
// with it the condition, is the same at every plane size of the sweep
// (multiples of 16, whose rows start on a line): fits throughout or never.
func TestL1HandCases(t *testing.T) {
	dev := a100(t)
	for _, c := range []struct {
		n    int
		o    float64
		fits bool
		kind string
	}{{6, 0.5, true, FitsThroughout}, {24, 2, false, NeverFits}} {
		r, err := Sweep(Config{Kernel: yStack(t, c.n), Device: dev, Block: [3]int64{1024, 1, 1},
			Sizes: []int64{256, 512, 1024, 2048}})
		if err != nil {
			t.Fatal(err)
		}
		p := r.Points[2] // s = 1024
		alloc, vol := 8192*float64(c.n), 8*float64(c.n)
		if p.S != 1024 || p.BlocksPerSM != 2 || p.BlockL1LoadAlloc != alloc || p.SmL1Alloc != 2*alloc ||
			p.L1Oversubscription != c.o || p.L1Fits != c.fits {
			t.Errorf("n=%d s=1024: β %d, alloc %v, SM %v, O_L1 %v, fits %v; want 2, %v, %v, %v, %v",
				c.n, p.BlocksPerSM, p.BlockL1LoadAlloc, p.SmL1Alloc, p.L1Oversubscription, p.L1Fits, alloc, 2*alloc, c.o, c.fits)
		}
		if math.Abs(p.L1Load-vol) > 1e-9 || math.Abs(p.L2LoadV1-vol) > 1e-9 {
			t.Errorf("n=%d: L1Load %v, L2LoadV1 %v, want %v B/Lup", c.n, p.L1Load, p.L2LoadV1, vol)
		}
		for _, q := range r.Points {
			if q.L1Oversubscription != c.o || q.L1Fits != c.fits {
				t.Errorf("n=%d s=%d: O_L1 %v fits %v, want %v at every size", c.n, q.S, q.L1Oversubscription, q.L1Fits, c.o)
			}
		}
		if l1 := r.L1Transition; l1.Layer != L1 || l1.Kind != c.kind || l1.Estimates != 0 || r.L1Bytes != 196608 {
			t.Errorf("n=%d: L1 transition %+v, L1 %d bytes; want %s without estimates, 196608", c.n, l1, r.L1Bytes, c.kind)
		}
	}
}

// TestL1TransitionReference locates an L1 transition by bisection. Method
// reference counts the block's threads beyond a narrow plane at their
// linear addresses, which run on into the next rows, and its O_L1 is one
// block's allocation over √(L1·128 KiB) = √(196608·131072) = 160529.6 bytes.
// A block (1024,1,1) on a plane of s < 1024 points thus reads, through
// yStack's 24 accesses, the contiguous 1024 + 23·s doubles from its first
// row on: L = 8·(1024 + 23·s) bytes, which touch at least L/128 and fewer
// than L/128 + 2 lines of 128 bytes. So 8·(1024 + 23·s) ≤ blockL1LoadAlloc
// < 8·(1024 + 23·s) + 256, with equality on the left for s = 256 and 512
// (rows start on a line): O_L1 ≤ 1 up to s = 826 (8·(1024 + 23·826) + 256 =
// 160432) and above 1 from s = 828 on (8·(1024 + 23·828) = 160544), so the
// transition is s = 826 or 827. From s = 1024 on a block reads 24 rows of
// 1024 doubles, 196608 bytes: O_L1 = 1.22.
func TestL1TransitionReference(t *testing.T) {
	r, err := Sweep(Config{Kernel: yStack(t, 24), Device: a100(t), Block: [3]int64{1024, 1, 1},
		Method: model.MethodReference, Sizes: []int64{256, 512, 1024, 2048}})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range r.Points {
		want := float64(8 * (1024 + 23*p.S))
		if p.S > 512 {
			want = 196608
		}
		if p.BlockL1LoadAlloc != want || p.L1Fits != (p.S <= 512) {
			t.Errorf("s=%d: alloc %v, O_L1 %v, fits %v; want %v bytes and fits %v", p.S, p.BlockL1LoadAlloc, p.L1Oversubscription, p.L1Fits, want, p.S <= 512)
		}
	}
	l1 := r.L1Transition
	if l1.Kind != TransitionFound || l1.S < 826 || l1.S > 827 || l1.Last.S != l1.S || l1.First.S != l1.S+1 ||
		!l1.Last.L1Fits || l1.First.L1Fits || l1.Last.L1Oversubscription > 1 || l1.First.L1Oversubscription <= 1 {
		t.Errorf("L1 transition %+v, want one at s = 826 or 827 that fits at s and not at s+1", l1)
	}
	if l1.Estimates == 0 || l1.Estimates > 9 { // bisection of (512, 1024)
		t.Errorf("L1 transition took %d estimates, want 1 … 9", l1.Estimates)
	}
}

// TestEvaluateStopsWithContext checks that a plane size's estimate runs
// under the caller's context: under one that has ended, Evaluate returns
// the context's error instead of a point.
func TestEvaluateStopsWithContext(t *testing.T) {
	k := loadExample(t, "star3d-r4")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p, err := Evaluate(ctx, Config{Kernel: k, Device: a100(t), Block: [3]int64{256, 1, 4}}, 512)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Evaluate under an ended context = %+v, %v; want context.Canceled", p, err)
	}
}

// TestSweepStopsWithContext checks that a sweep cancelled part-way, when
// its last sweep point ends, returns the context's error and no result.
func TestSweepStopsWithContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sizes := []int64{256, 512, 1024, 2048}
	done := 0
	r, err := SweepContext(ctx, Config{Kernel: yStack(t, 24), Device: a100(t), Block: [3]int64{1024, 1, 1},
		Method: model.MethodReference, Sizes: sizes, Workers: 1, Progress: func() {
			if done++; done == len(sizes) {
				cancel()
			}
		}})
	if r != nil || !errors.Is(err, context.Canceled) {
		t.Errorf("SweepContext cancelled after its sweep points = %+v, %v; want no result and context.Canceled", r, err)
	}
}
