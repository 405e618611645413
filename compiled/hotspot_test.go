package compiled

import (
	"slices"
	"testing"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/examples"
	"github.com/polyvol/polyvol/kernel"
)

// TestHotspotSourceByHand compiles examples/sources/hotspot.cu through a
// Provider, so that the launch's block, fold and time steps arrive as
// Kernel Tuner's macros, for an NVIDIA and an AMD architecture, and checks
// its counts against a count by hand of the code the source states.
//
// Block 32 × 4, tile 1 × 2 strided: the block's outputs are 32 × 8, its
// window (32 + 2T) × (8 + 2T). The copy takes ceil((8 + 2T)/4) rows ×
// ceil((32 + 2T)/32) columns per thread; step t = 1 … T updates
// ceil((32 + 2T − 2t)/32) × ceil((8 + 2T − 2t)/4) points per thread, each
// under its guard, all unrolled. An update is 12 FP64-pipe instructions:
// five FMAs and an add in double precision, five float to double
// conversions (the point, the sums of opposite neighbours, power and the
// ambient term) and one back; it reads 5 temperatures (and power with
// sh_power=1) from shared memory and writes one. The store reads the 2
// outputs from shared memory. Barriers: one after the copy, one per step.
//
//	T = 2, sh_power = 0: window 36 × 12, copy 3 × 2 = 6; steps 2·3 + 1·2 =
//	  8 points: FP64 96; global loads 6 + 8 (power at every step); shared
//	  stores 6 + 8, loads 8·5 + 2; barriers 3.
//	T = 3, sh_power = 1: window 38 × 14, copy 4 × 2 = 8 of each array;
//	  steps 2·3 + 2·3 + 1·2 = 14 points: FP64 168; global loads 16;
//	  shared stores 16 + 14, loads 14·6 + 2; barriers 4.
//
// AMDGPU merges two shared loads into one ds_load_2addr where their
// offsets allow, so its shared instructions lie between the stores plus
// half the loads and the NVIDIA count.
func TestHotspotSourceByHand(t *testing.T) {
	c := testCompiler(t)
	k, code := hotspotSpecAndSource(t)
	cases := []struct {
		steps                               int64
		shPower                             string
		fp64, globalLoads, globalStores     float64
		barriers, sharedStores, sharedLoads float64
	}{
		{steps: 2, shPower: "0", fp64: 96, globalLoads: 14, globalStores: 2, barriers: 3, sharedStores: 14, sharedLoads: 42},
		{steps: 3, shPower: "1", fp64: 168, globalLoads: 16, globalStores: 2, barriers: 4, sharedStores: 30, sharedLoads: 86},
	}
	for _, name := range []string{"RTX-A4000", "PRO-W7800"} {
		dev, err := device.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range cases {
			l := k.NewLaunch([3]int64{32, 4, 1}, [3]int64{1, 2, 1})
			l.Tiling, l.Steps = kernel.TileStrided, tc.steps
			p := &Provider{Compiler: c, Source: &Source{Name: "hotspot.cu", Code: string(code), Macros: []Macro{{"sh_power", tc.shPower}}}}
			got, err := p.Code(k, l, dev)
			if err != nil {
				t.Fatalf("%s, T %d: %v", dev.Arch, tc.steps, err)
			}
			n := got.Counts
			if n.FP64 != tc.fp64 || n.GlobalLoads != tc.globalLoads || n.GlobalStores != tc.globalStores || n.Barriers != tc.barriers || len(got.Loops) != 0 {
				t.Errorf("%s, T %d, sh_power %s: FP64 %v, global loads %v, stores %v, barriers %v, loops %+v; want %v, %v, %v, %v, none",
					dev.Arch, tc.steps, tc.shPower, n.FP64, n.GlobalLoads, n.GlobalStores, n.Barriers, got.Loops, tc.fp64, tc.globalLoads, tc.globalStores, tc.barriers)
			}
			low, high := tc.sharedStores+tc.sharedLoads/2, tc.sharedStores+tc.sharedLoads
			if got.Format == FormatPTX {
				low = high
			}
			if n.Shared < low || n.Shared > high {
				t.Errorf("%s, T %d, sh_power %s: %v shared-memory instructions, want %v to %v", dev.Arch, tc.steps, tc.shPower, n.Shared, low, high)
			}
		}
	}
}

// TestHotspotTimeLoop compiles examples/sources/hotspot.cu with its time
// loop unrolled in part (loop_unroll_factor_t), so that clang keeps it,
// and checks the weighted FP64 count against the loop's trip count and
// the fully unrolled variant, by hand.
//
// Block 32 × 4, tile 1 × 2 strided, T = 4, sh_power = 0: the window is
// 40 × 16, and step t updates ceil((40 − 2t)/32) × ceil((16 − 2t)/4)
// points per thread: 2·4 = 8, 2·3 = 6, 2·3 = 6, 1·2 = 2, 22 in all, 12
// FP64 instructions each (TestHotspotSourceByHand). Unrolled whole, the
// code holds every step's points under its halo guard: 12·22 = 264. With
// the time loop kept, a step's point loops depend on t, and clang unrolls
// them to their most iterations, those of the loop's first step, each
// point under its guard: unrolled by 1, the body holds step 1's 8 points
// and runs 4 times, 12·8·4 = 384; unrolled by 2, it holds steps 1 and 2
// (8 + 6 points) and runs twice, 12·14·2 = 336. The weighted counts
// exceed the whole unrolling by the guarded points that the later steps'
// shrinking windows skip, which a kept loop cannot leave out.
func TestHotspotTimeLoop(t *testing.T) {
	c := testCompiler(t)
	k, code := hotspotSpecAndSource(t)
	cases := []struct {
		unroll string
		trips  int64 // of the time loop; 0: none kept
		fp64   float64
	}{
		{"4", 0, 264},
		{"1", 4, 384},
		{"2", 2, 336},
	}
	for _, name := range []string{"RTX-A4000", "PRO-W7800"} {
		dev, err := device.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range cases {
			l := k.NewLaunch([3]int64{32, 4, 1}, [3]int64{1, 2, 1})
			l.Tiling, l.Steps = kernel.TileStrided, 4
			p := &Provider{Compiler: c, Source: &Source{Name: "hotspot.cu", Code: string(code), Macros: []Macro{{"sh_power", "0"}, {"loop_unroll_factor_t", tc.unroll}}}}
			got, err := p.Code(k, l, dev)
			if err != nil {
				t.Fatalf("%s, unroll %s: %v", dev.Arch, tc.unroll, err)
			}
			var trips []int64
			for _, loop := range got.Loops {
				trips = append(trips, loop.TripCount)
			}
			want := []int64{tc.trips}
			if tc.trips == 0 {
				want = nil
			}
			if got.Counts.FP64 != tc.fp64 || !slices.Equal(trips, want) || !got.TripCountsKnown() {
				t.Errorf("%s, unroll %s: FP64 %v, loops %+v; want %v, trip counts %v", dev.Arch, tc.unroll, got.Counts.FP64, got.Loops, tc.fp64, want)
			}
		}
	}
}

// hotspotSpecAndSource returns the hotspot example's kernel and the text
// of its CUDA source.
func hotspotSpecAndSource(t *testing.T) (*kernel.Kernel, []byte) {
	t.Helper()
	spec, err := examples.Read("hotspot")
	if err != nil {
		t.Fatal(err)
	}
	k, err := kernel.Parse(spec, "hotspot.yaml")
	if err != nil {
		t.Fatal(err)
	}
	code, err := examples.Sources.ReadFile("sources/hotspot.cu")
	if err != nil {
		t.Fatal(err)
	}
	return k, code
}
