package model

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/kernel"
)

// loadExample parses one of the embedded example kernels.
func loadExample(t *testing.T, name string) *kernel.Kernel {
	t.Helper()
	k, err := kernel.ParseExample(name)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// c6Kernel is the C6 case of spec §7.3: a 2D 5-point stencil in a 3D array
// N = D = (3456, 64, 8), α = 0, 5 flops.
const c6Kernel = `name: c6
domain: [3456, 64, 8]
flops: 5
fields:
  - name: A
    element: 8
    load: [[x, y, z], [x+1, y, z], [x-1, y, z], [x, y+1, z], [x, y-1, z]]
  - name: B
    element: 8
    store: [[x, y, z]]
`

// near reports whether got equals the printed value want to its printed
// rounding (half a unit of its last digit, and at least a relative 1e-9).
func near(got float64, want string) bool {
	w, err := strconv.ParseFloat(want, 64)
	if err != nil {
		panic(err)
	}
	tol := 1e-9 * math.Abs(w)
	if i := strings.IndexByte(want, '.'); i >= 0 {
		tol = max(tol, 0.5*math.Pow10(-(len(want)-i-1)))
	} else {
		tol = max(tol, 0.5)
	}
	return math.Abs(got-w) <= tol
}

// TestEstimateReproducesSpecCases runs the engine with method reference on
// cases C1–C6 of spec §7.3 and compares every basic metric the spec prints,
// and the derived prediction, to its printed rounding.
func TestEstimateReproducesSpecCases(t *testing.T) {
	type want map[string]string
	c6, err := kernel.Parse([]byte(c6Kernel), "c6.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		k      *kernel.Kernel
		dev    string
		block  [3]int64
		fold   [3]int64
		domain [3]int64
		want   want
	}{
		{"C1", loadExample(t, "vec3-scale"), "A100-40GB", [3]int64{1024, 1, 1}, kernel.NoFold, [3]int64{1000000, 1, 1}, want{
			"L1Cycles": "1", "L1DataPipeCycles": "1", "L1TagCycles": "0.4375",
			"blockL1LoadAlloc": "32768", "blockL1Load": "81920", "blockL2Load": "32768", "blockL2LoadOverlap": "0", "blockL2Store": "81920",
			"blockL1TLBPages": "4", "TLBpages": "8", "waveMemLoadNew": "7077888", "waveMemStoreNew": "7077888",
			"waveMemOld0": "0", "waveMemOld1": "0", "waveMemLoadOverlap0": "0", "waveMemLoadOverlap1": "0", "waveValidCells": "221184",
			"perfV3": "19.7213", "limV3": "3"}},
		{"C2", loadExample(t, "star2d-r1"), "A100-80GB", [3]int64{512, 1, 1}, kernel.NoFold, [3]int64{15000, 15000, 1}, want{
			"L1Cycles": "0.6328125", "L1DataPipeCycles": "0.6328125", "L1TagCycles": "0.3671875",
			"blockL1LoadAlloc": "12672", "blockL1Load": "22528", "blockL2Load": "12384", "blockL2LoadOverlap": "0", "blockL2Store": "4608",
			"blockL1TLBPages": "2.375", "TLBpages": "3", "waveMemLoadNew": "2007289.037", "waveMemStoreNew": "1769472",
			"waveMemOld0": "480128", "waveMemOld1": "0", "waveMemLoadOverlap0": "235929.6", "waveMemLoadOverlap1": "0", "waveValidCells": "221184",
			"perfV3": "99.71957", "limV3": "3"}},
		{"C3", loadExample(t, "star3d-r4"), "A100-40GB", [3]int64{256, 1, 2}, kernel.NoFold, [3]int64{640, 512, 512}, want{
			"L1Cycles": "2.5546875", "L1DataPipeCycles": "2.5546875", "L1TagCycles": "1.59375",
			"blockL1LoadAlloc": "56576", "blockL1Load": "105472", "blockL2Load": "53376", "blockL2LoadOverlap": "0", "blockL2Store": "4096",
			"blockL1TLBPages": "13", "TLBpages": "14", "waveMemLoadNew": "8973422.095", "waveMemStoreNew": "1769472",
			"waveMemOld0": "143616", "waveMemOld1": "31670272", "waveMemLoadOverlap0": "81825.2948", "waveMemLoadOverlap1": "7036975.353", "waveValidCells": "221184",
			"perfV3": "33.39816", "limV3": "3"}},
		{"C4", loadExample(t, "vec3-scale"), "MI210", [3]int64{1024, 1, 1}, kernel.NoFold, [3]int64{1000000, 1, 1}, want{
			"L1Cycles": "2.25", "L1DataPipeCycles": "2.25", "L1TagCycles": "0.875",
			"blockL1LoadAlloc": "32768", "blockL1Load": "57344", "blockL2Load": "32768", "blockL2LoadOverlap": "0", "blockL2Store": "57344",
			"blockL1TLBPages": "4", "TLBpages": "8", "waveMemLoadNew": "6815744", "waveMemStoreNew": "6815744",
			"waveMemOld0": "0", "waveMemOld1": "0", "waveMemLoadOverlap0": "0", "waveMemLoadOverlap1": "0", "waveValidCells": "212992",
			"perfV3": "19.5638", "limV3": "3"}},
		{"C5", loadExample(t, "star3d-r4"), "A100-40GB", [3]int64{64, 4, 4}, [3]int64{1, 1, 2}, [3]int64{640, 512, 512}, want{
			"L1Cycles": "3.53125", "L1DataPipeCycles": "3.53125", "L1TagCycles": "2.6875",
			"blockL1LoadAlloc": "81920", "blockL1Load": "356352", "blockL2Load": "67584", "blockL2LoadOverlap": "0", "blockL2Store": "16384",
			"blockL1TLBPages": "25", "TLBpages": "26", "waveMemLoadNew": "7488083.782", "waveMemStoreNew": "3538944",
			"waveMemOld0": "823296", "waveMemOld1": "63766528", "waveMemLoadOverlap0": "321722.1818", "waveMemLoadOverlap1": "3458513.455", "waveValidCells": "221184",
			"perfV3": "57.87350", "limV3": "3"}},
		{"C6", c6, "A100-40GB", [3]int64{32, 4, 1}, kernel.NoFold, [3]int64{3456, 64, 8}, want{
			"blockL2Load": "1792", "blockL2LoadOverlap": "12.8", "blockL1LoadAlloc": "2560",
			"L2LoadV1": "14", "L2LoadOverlap": "0.1", "L1Load": "42", "L2LoadV2": "13.9248495"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := specDevice(t, c.dev) // the table the check values were computed with
			l := kernel.Launch{Block: c.block, Fold: c.fold, Domain: c.domain}
			r, err := Estimate(c.k, l, d, Options{Method: MethodReference})
			if err != nil {
				t.Fatal(err)
			}
			got := reportValues(r)
			for key, w := range c.want {
				g, ok := got[key]
				if !ok {
					t.Fatalf("no value %q", key)
				}
				if !near(g, w) {
					t.Errorf("%s = %v, want %s", key, g, w)
				}
			}
		})
	}
}

// reportValues flattens the numbers the tests compare.
func reportValues(r *Report) map[string]float64 {
	b, d := r.Basic, r.Derived
	return map[string]float64{
		"L1Cycles": b.L1Cycles, "L1DataPipeCycles": b.L1DataPipeCycles, "L1TagCycles": b.L1TagCycles,
		"blockL1LoadAlloc": b.BlockL1LoadAlloc, "blockL1Load": b.BlockL1Load, "blockL2Load": b.BlockL2Load,
		"blockL2LoadOverlap": b.BlockL2LoadOverlap, "blockL2Store": b.BlockL2Store,
		"blockL1TLBPages": b.BlockL1TLBPages, "TLBpages": b.TLBPages,
		"waveMemLoadNew": b.WaveMemLoadNew, "waveMemStoreNew": b.WaveMemStoreNew,
		"waveMemOld0": b.WaveMemOld[0], "waveMemOld1": b.WaveMemOld[1],
		"waveMemLoadOverlap0": b.WaveMemLoadOverlap[0], "waveMemLoadOverlap1": b.WaveMemLoadOverlap[1],
		"waveValidCells": b.WaveValidCells,
		"L1Load":         d.L1Load, "L2LoadV1": d.L2LoadV1, "L2LoadOverlap": d.L2LoadOverlap, "L2LoadV2": d.L2LoadV2,
		"perfV3": d.PerfV3, "limV3": float64(d.LimV3),
	}
}

// TestEstimateReproducesReferenceSamples runs method reference on every
// configuration of testdata/reference/*.jsonl and compares the engine's
// basic metrics with the reference implementation's output.
func TestEstimateReproducesReferenceSamples(t *testing.T) {
	kernels := map[string]string{"star3d_r4_25pt": "star3d-r4", "star2d_r1_5pt": "star2d-r1"}
	d, err := device.Lookup("A100-40GB")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range loadReferenceLines(t) {
		name, ok := kernels[line.Kernel]
		if !ok {
			t.Fatalf("unknown reference kernel %q", line.Kernel)
		}
		k := loadExample(t, name)
		l := kernel.Launch{Domain: [3]int64{1, 1, 1}}
		for i := range 3 {
			l.Block[i], l.Fold[i] = int64(line.Block[i]), int64(line.Folding[i])
			if i < len(line.Domain) {
				l.Domain[i] = line.Domain[i]
			}
		}
		r, err := Estimate(k, l, d, Options{Method: MethodReference})
		if err != nil {
			t.Fatal(err)
		}
		got := reportValues(r)
		b, x := line.Basic, line.BasicExtra
		for key, w := range map[string]float64{
			"waveMemLoadNew": b.WaveMemLoadNew, "waveMemStoreNew": b.WaveMemStoreNew, "waveValidCells": b.WaveValidCells,
			"waveMemOld0": b.WaveMemOld[0], "waveMemOld1": b.WaveMemOld[1],
			"waveMemLoadOverlap0": b.WaveMemLoadOverlap[0], "waveMemLoadOverlap1": b.WaveMemLoadOverlap[1],
			"blockL1LoadAlloc": b.BlockL1LoadAlloc, "blockL1Load": b.BlockL1Load, "blockL2Load": b.BlockL2Load,
			"blockL2Store": b.BlockL2Store, "L1Cycles": b.L1Cycles, "TLBpages": b.TLBPages,
			"L1DataPipeCycles": x.L1DataPipeCycles, "L1TagCycles": x.L1TagCycles, "blockL1TLBPages": x.BlockL1TLBPages,
			"blockL2LoadOverlap": x.FieldBlockL2LoadOverlap["total"],
		} {
			if g := got[key]; math.Abs(g-w) > 1e-6*max(1, math.Abs(w)) {
				t.Errorf("%s block %v fold %v: %s = %v, reference %v", name, l.Block, l.Fold, key, g, w)
			}
		}
	}
}

// TestEstimateExactRecordsSpecCases records method exact's values on cases
// C1–C6, so that a change to them is deliberate. Each value that differs from
// method reference names the spec §8 item that explains the difference.
func TestEstimateExactRecordsSpecCases(t *testing.T) {
	c6, err := kernel.Parse([]byte(c6Kernel), "c6.yaml")
	if err != nil {
		t.Fatal(err)
	}
	type want map[string]string
	cases := []struct {
		name                string
		k                   *kernel.Kernel
		dev                 string
		block, fold, domain [3]int64
		want                want
	}{
		{"C1", loadExample(t, "vec3-scale"), "A100-40GB", [3]int64{1024, 1, 1}, kernel.NoFold, [3]int64{1000000, 1, 1}, want{
			"L1Cycles":         "0.75", // §8 item 7: store fields pay no allocation term
			"blockL1LoadAlloc": "32768", "blockL1Load": "81920", "blockL2Load": "32768", "blockL2Store": "81920",
			"waveMemLoadNew": "7077888", "waveMemStoreNew": "7077888",
			"waveMemOld0": "1.415578e+07", // §8 items 17, 20: the x layer is the W blocks before the wave, and Old_x counts
			"waveMemOld1": "0", "waveMemLoadOverlap0": "0", "waveMemLoadOverlap1": "0",
			"L2LoadV2": "32",       // §8 items 11, 22, 23; all the reuse is within a warp, and it stays while the blocks fit in L1 (Method.WarpReuseStays)
			"perfV3":   "19.95188", // §8 items 22, 23: O_L2 = V_alloc/V_cache with the paper-era store curve
			"limV3":    "3"}},
		{"C2", loadExample(t, "star2d-r1"), "A100-80GB", [3]int64{512, 1, 1}, kernel.NoFold, [3]int64{15000, 15000, 1}, want{
			"L1Cycles":         "0.5687122", // §8 items 4, 7, 8: all warps of the wave's blocks, per-instruction maxima
			"blockL1LoadAlloc": "12681.46",  // §8 items 3, 6: an interior wave's blocks, clipped, per full block
			"blockL1Load":      "22529.14",  // §8 items 3, 6
			"blockL2Load":      "12386.4",   // §8 items 3, 6
			"blockL2Store":     "4608.285",  // §8 items 3, 6
			"waveMemLoadNew":   "2015872",   // §8 items 2, 14, 15: W consecutive blocks, linear addresses with α
			"waveMemStoreNew":  "1769734",   // §8 items 13, 14: stores at the 32 B write granularity, α = 1
			"waveMemOld0":      "480192",    // §8 items 14, 17, 20: one block row before the wave (it holds T_x), linear addresses
			"waveMemOld1":      "0", "waveMemLoadOverlap1": "0",
			"waveMemLoadOverlap0": "246137.2", // §8 items 14, 18: linear addresses, consistent scaling
			"L2LoadV2":            "24.22253", // §8 items 11, 22, 23; only the reuse between warps can miss (WarpReuseStays)
			"perfV3":              "99.36463", // §8 items 13, 14, 22; O_ov,0 = Old_0/sizeL2 (LayerReuseDistance)
			"limV3":               "3"}},
		{"C3", loadExample(t, "star3d-r4"), "A100-40GB", [3]int64{256, 1, 2}, kernel.NoFold, [3]int64{640, 512, 512}, want{
			"L1Cycles":         "2.498438", // §8 items 4, 7, 8
			"blockL1LoadAlloc": "57241.6",  // §8 items 3, 6: every third block is half outside the domain
			"blockL1Load":      "105472", "blockL2Store": "4096",
			"blockL2Load":         "53401.6",      // §8 items 3, 6
			"waveMemLoadNew":      "8946432",      // §8 items 2, 14, 15
			"waveMemStoreNew":     "1769472",      //
			"waveMemOld0":         "144000",       // §8 items 17, 20
			"waveMemOld1":         "3.145747e+07", // §8 items 15, 17: the g0·g1 blocks before the wave
			"waveMemLoadOverlap0": "99072",        // §8 items 14, 18
			"waveMemLoadOverlap1": "7077888",      // §8 items 14, 18
			"L2LoadV2":            "107.658",      // §8 items 11, 22, 23
			"perfV3":              "34.58471",     // §8 items 22, 24: O_ov,1 = Old_1/sizeL2 = 1.51 with the paper-era z curve (LayerReuseDistance)
			"limV3":               "2"}},
		{"C4", loadExample(t, "vec3-scale"), "MI210", [3]int64{1024, 1, 1}, kernel.NoFold, [3]int64{1000000, 1, 1}, want{
			"L1Cycles": "2.25", "blockL1LoadAlloc": "32768", "blockL1Load": "57344", "blockL2Load": "32768", "blockL2Store": "57344",
			"waveMemLoadNew": "6815744", "waveMemStoreNew": "6815744",
			"waveMemOld0": "1.363149e+07", // §8 items 17, 20
			"waveMemOld1": "0", "waveMemLoadOverlap0": "0", "waveMemLoadOverlap1": "0",
			"L2LoadV2": "37.38008", // §8 items 11, 22, 23: MI210's 16 KiB L1 is oversubscribed by β blocks
			"perfV3":   "19.6352",  // §8 items 22, 23
			"limV3":    "3"}},
		{"C5", loadExample(t, "star3d-r4"), "A100-40GB", [3]int64{64, 4, 4}, [3]int64{1, 1, 2}, [3]int64{640, 512, 512}, want{
			"L1Cycles":         "3.375", // §8 items 4, 7, 8
			"blockL1LoadAlloc": "81920", "blockL1Load": "356352", "blockL2Load": "67584", "blockL2Store": "16384",
			"waveMemLoadNew":      "7412736",      // §8 items 2, 14, 15, 19: W blocks, valid points under folding
			"waveMemStoreNew":     "3538944",      //
			"waveMemOld0":         "826368",       // §8 items 17, 20: T_x ∪ T_y = T_y
			"waveMemOld1":         "6.320531e+07", // §8 items 15, 17
			"waveMemLoadOverlap0": "334848",       // §8 items 14, 18
			"waveMemLoadOverlap1": "3538944",      // §8 items 14, 18
			"L2LoadV2":            "34.66648",     // §8 items 11, 22, 23; only the reuse between warps can miss (WarpReuseStays)
			"perfV3":              "58.32561",     // §8 items 22, 24; LayerReuseDistance
			"limV3":               "3"}},
		{"C6", c6, "A100-40GB", [3]int64{32, 4, 1}, kernel.NoFold, [3]int64{3456, 64, 8}, want{
			"L1Cycles":         "0.53125", // §8 items 4, 7, 8
			"blockL1LoadAlloc": "2560", "blockL1Load": "5376", "blockL2Load": "1792", "blockL2Store": "1024",
			"blockL2LoadOverlap":  "0",        // §8 item 12: sharing between blocks is not modelled
			"waveMemLoadNew":      "1824768",  // §8 items 2, 15: the wave is exactly one block layer
			"waveMemStoreNew":     "1769472",  //
			"waveMemOld0":         "276480",   // §8 item 14: y+1 of the last row wraps to the next layer's first row
			"waveMemOld1":         "3594240",  // §8 items 15, 17
			"waveMemLoadOverlap0": "55296",    // §8 item 14: that wrapped row is reused
			"waveMemLoadOverlap1": "0",        //
			"L2LoadV2":            "14.1206",  // §8 items 11, 12, 22; only the reuse between warps can miss (WarpReuseStays)
			"perfV3":              "87.49482", // §8 items 14, 22
			"limV3":               "3"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := specDevice(t, c.dev) // the table the check values were computed with
			r, err := Estimate(c.k, kernel.Launch{Block: c.block, Fold: c.fold, Domain: c.domain}, d, Options{Method: MethodExact})
			if err != nil {
				t.Fatal(err)
			}
			got := reportValues(r)
			for key, w := range c.want {
				g := got[key]
				wv, _ := strconv.ParseFloat(w, 64)
				if math.Abs(g-wv) > 5e-7*max(1, math.Abs(wv)) {
					t.Errorf("%s = %.7g, recorded %s", key, g, w)
				}
			}
		})
	}
}
