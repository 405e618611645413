package model

import (
	"math"
	"reflect"
	"testing"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/footprint"
	"github.com/polyvol/polyvol/kernel"
)

// star5Steps is a 2-D 5-point stencil advancing its state A in time,
// reading P at the point from global memory at every step and storing A's
// next value to B. A's rows start on a 32-byte sector: its pitch (272) and
// offset (8·272 + 8) are multiples of 8 floats, so the tile row of a block
// of 32 threads in x starting at x0 − T (x0 a multiple of 32, T ≤ 8) spans
// the sectors of x0 − 8 … x0 + 39, six of them.
const star5Steps = `name: star5
domain: [256, 256]
flops: 10
state: A
fields:
  - name: A
    element: 4
    extent: [272, 272]
    offset: 2184
    stage: {copy: block}
    load: [[x, y], [x - 1, y], [x + 1, y], [x, y - 1], [x, y + 1]]
  - name: P
    element: 4
    load: [[x, y]]
  - name: B
    element: 4
    store: [[x, y]]
`

// TestStepVolumesByHand checks the per-step volumes of star5Steps under
// block 32×4 for T = 1, 2, 3 against hand counts. The grid's 8 × 64 blocks
// are one wave, the estimate's sample. The copy of A's tile, 32 + 2T
// floats wide and 4 + 2T rows, is six sectors a row (L2→L1) and seven
// requested (the block's warp copies columns 0–31 of a row, five sectors,
// and its first 2T threads columns 32 … 31 + 2T, two more, one of them
// shared): once per launch, so per step divided by T. B's store, four rows
// of 32 floats, is 512 bytes per launch. P (256 floats a row, from 0) is
// read at every step t over the block's points grown by g = T − t halos,
// 32 + 2g columns from x0 − g (x0 a multiple of 32) and 4 + 2g rows, clipped
// to the domain: 4 + g rows in the first and last block rows. A warp is a
// row of 32 threads; for g > 0 each takes two columns (fold 2,
// consecutive), the even offsets and the odd ones, one warp instruction
// each. Its sectors per region row, where the region is not clipped and in
// the first and last block columns: g = 0: 4 (x0 … x0 + 31); g = 1: 5 + 5
// (x0 − 1 … x0 + 31 and x0 … x0 + 32) and 4 + 5; g = 2: 6 + 6 and 5 + 5.
// The L2→L1 load is the distinct sectors of the first step's region: 6 a
// row, 5 in the edge columns, for g = 1 and 2. DRAM sees P's 256 × 256
// floats once per launch, the union of all blocks' regions.
func TestStepVolumesByHand(t *testing.T) {
	k, dev := star5StepsOnA100(t)
	// Per growth g: P's warp sectors per region row inside and in the edge
	// columns, its distinct sectors per row likewise, and the region's rows
	// inside and in the edge rows.
	type region struct{ warp, distinct, rows [2]float64 }
	regions := []region{{[2]float64{4, 4}, [2]float64{4, 4}, [2]float64{4, 4}},
		{[2]float64{10, 9}, [2]float64{6, 5}, [2]float64{6, 5}},
		{[2]float64{12, 10}, [2]float64{6, 5}, [2]float64{8, 6}}}
	overColumns := func(v [2]float64) float64 { return (6*v[0] + 2*v[1]) / 8 }
	overRows := func(v [2]float64) float64 { return (62*v[0] + 2*v[1]) / 64 }
	for _, c := range []struct {
		steps    int64
		computed float64 // Σ_t of the points step t computes
	}{
		{1, 128},
		{2, 34*6 + 128},
		{3, 36*8 + 34*6 + 128},
	} {
		l := k.NewLaunch([3]int64{32, 4, 1}, kernel.NoFold)
		l.Steps = c.steps
		rep, err := Estimate(k, l, dev, Options{Method: MethodExact})
		if err != nil {
			t.Fatal(err)
		}
		T := float64(c.steps)
		rows := 4 + 2*T
		perUseful := c.computed / (T * 128)
		var pL1 float64
		for g := range c.steps {
			pL1 += 32 * overColumns(regions[g].warp) * overRows(regions[g].rows)
		}
		first := regions[c.steps-1]
		pL2 := 32 * overColumns(first.distinct) * overRows(first.rows)
		a, p := rep.Basic.LoadFields[0], rep.Basic.LoadFields[1]
		for _, v := range []struct {
			what      string
			got, want float64
		}{
			{"A's copy, L1 load per block and step", a.BlockL1Load, 7 * 32 * rows / T},
			{"A's copy, L2→L1 per block and step", a.BlockL2Load, 6 * 32 * rows / T},
			{"B's store per block and step", rep.Basic.StoreFields[0].BlockL2Store, 512 / T},
			{"P's L1 load per block and step", p.BlockL1Load, pL1 / T},
			{"P's L2→L1 load per block and step", p.BlockL2Load, pL2 / T},
			{"P's DRAM load per useful update", rep.Derived.LoadFields[1].MemLoadV1, 4 / T},
			{"computed per useful update", rep.Launch.ComputedPerUseful, perUseful},
			{"flops per useful update", rep.Launch.FlopsPerLup, 10 * perUseful},
		} {
			if math.Abs(v.got-v.want) > 1e-9*v.want {
				t.Errorf("T = %d: %s %g, want %g", c.steps, v.what, v.got, v.want)
			}
		}
		if rep.Launch.Steps != c.steps {
			t.Errorf("T = %d: the report states %d steps", c.steps, rep.Launch.Steps)
		}
	}
}

// TestStepIssuedLanesByHand checks that star5Steps under block 32×4 (four
// warps, a row of 32 threads each; consecutive tiling) charges the
// instructions and the flops bound per issued lane, the flops per update per
// computed point. Step t computes the block grown by g = T − t halos,
// (32 + 2g) × (4 + 2g) points with fold 2 × 2 for g = 1, 2. Thread x takes
// columns 2x and 2x + 1, so x < 16 + g have a point; thread y rows 2y and
// 2y + 1 < 4 + 2g, so y < 2 + g: for g = 1 three warps at each of the four
// fold points, 12·32 = 384 lanes, for g = 2 all four, 512 lanes; the
// block's own points 128. Per lane of T updates of the block's 128 points:
// T = 2: (384 + 128) / 256 = 2; T = 3: (512 + 384 + 128) / 384 = 8/3. The
// counted mix has ⌈10/2⌉ = 5 FP instructions per point, the flops bound
// 5·i FP32 instructions per useful update.
func TestStepIssuedLanesByHand(t *testing.T) {
	k, dev := star5StepsOnA100(t)
	for _, c := range []struct {
		steps            int64
		issued, computed float64
	}{
		{1, 1, 1},
		{2, 2, (34*6 + 128) / 256.0},
		{3, 8.0 / 3, (36*8 + 34*6 + 128) / 384.0},
	} {
		l := k.NewLaunch([3]int64{32, 4, 1}, kernel.NoFold)
		l.Steps = c.steps
		rep, err := Estimate(k, l, dev, Options{Method: MethodExact})
		if err != nil {
			t.Fatal(err)
		}
		bound, _ := FlopsBound(5*c.issued, 4, *dev)
		var perfFlops float64
		if rep.Derived.PerfFlops != nil {
			perfFlops = *rep.Derived.PerfFlops
		}
		for _, v := range []struct {
			what      string
			got, want float64
		}{
			{"issued per useful update", rep.Launch.IssuedPerUseful, c.issued},
			{"computed per useful update", rep.Launch.ComputedPerUseful, c.computed},
			{"flops per useful update", rep.Launch.FlopsPerLup, 10 * c.computed},
			{"FP instructions of the mix", rep.Instructions.FP, 5 * c.issued},
			{"flops bound", perfFlops, bound},
		} {
			if math.Abs(v.got-v.want) > 1e-9*v.want {
				t.Errorf("T = %d: %s %g, want %g", c.steps, v.what, v.got, v.want)
			}
		}
	}
}

// TestStepRegionCacheAcrossSteps estimates star5Steps under block 32×4 at
// T = 3, 1 and 2 with one StepRegionCache, as an exploration over the
// steps does, and checks that each report equals the estimate with a cache
// of its own, and that T = 1 and 2 count no region that T = 3 did not:
// their regions, grown by 0 and by 0 or 1 halos, are among T = 3's (grown
// by 0, 1 and 2). Another block shape counts regions of its own.
func TestStepRegionCacheAcrossSteps(t *testing.T) {
	k, dev := star5StepsOnA100(t)
	shared := NewStepRegionCache()
	estimate := func(block [3]int64, steps int64, cache *StepRegionCache) *Report {
		t.Helper()
		l := k.NewLaunch(block, kernel.NoFold)
		l.Steps = steps
		rep, err := Estimate(k, l, dev, Options{Method: MethodExact, StepRegions: cache})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	var afterThree int
	for _, steps := range []int64{3, 1, 2} {
		got, want := estimate([3]int64{32, 4, 1}, steps, shared), estimate([3]int64{32, 4, 1}, steps, nil)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("T = %d: the estimate with the shared cache differs from its own:\n%+v\nwant\n%+v", steps, got.Basic, want.Basic)
		}
		if steps == 3 {
			afterThree = len(shared.done)
		}
	}
	if afterThree == 0 || len(shared.done) != afterThree {
		t.Errorf("the cache holds %d regions after T = 3 and %d after T = 1 and 2; want the same, more than 0", afterThree, len(shared.done))
	}
	estimate([3]int64{64, 2, 1}, 2, shared)
	if len(shared.done) == afterThree {
		t.Errorf("block 64×2 counted no region of its own")
	}
}

// star5StepsOnA100 returns the kernel of star5Steps and the A100.
func star5StepsOnA100(t *testing.T) (*kernel.Kernel, *device.Device) {
	t.Helper()
	k, err := kernel.Parse([]byte(star5Steps), "star5.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dev, err := device.Lookup("A100-40GB")
	if err != nil {
		t.Fatal(err)
	}
	return k, dev
}

// TestInstructionCacheAcrossSteps estimates the hotspot on the RTX A4000
// at T = 3 and then T = 2 with one InstructionCache, as an exploration
// over the steps does, and checks that each report equals the estimate
// without the cache: a staged field's tile, and so its shared loads'
// addresses, grow with the steps.
func TestInstructionCacheAcrossSteps(t *testing.T) {
	k := loadExample(t, "hotspot")
	dev, err := device.Lookup("RTX-A4000")
	if err != nil {
		t.Fatal(err)
	}
	shared := footprint.NewInstructionCache()
	for _, steps := range []int64{3, 2} {
		l := k.NewLaunch([3]int64{16, 16, 1}, [3]int64{4, 1, 1})
		l.Steps = steps
		got, err := Estimate(k, l, dev, Options{Method: MethodExact, Instructions: shared})
		if err != nil {
			t.Fatal(err)
		}
		want, err := Estimate(k, l, dev, Options{Method: MethodExact})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("T = %d: the estimate with the shared instruction cache differs from its own:\n%+v\nwant\n%+v", steps, got.Basic, want.Basic)
		}
	}
}
