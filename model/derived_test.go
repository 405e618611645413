package model

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/polyvol/polyvol/device"
)

// The devices of docs/metrics.md §6 that the check values use, written out
// from the table so that these tests do not depend on the device database.
var (
	a100x40 = device.Device{Name: "A100-40GB", SMs: 108, ClockGHz: 1.41, L1Bytes: 192 * 1024, L2Bytes: 20 * 1024 * 1024,
		L1BankWidth: 128, FP32PerCycleSM: 64, FP64PerCycleSM: 32, L2BandwidthGBs: 4000, DRAMBandwidthGBs: 1400}
	a100x80 = device.Device{Name: "A100-80GB", SMs: 108, ClockGHz: 1.41, L1Bytes: 192 * 1024, L2Bytes: 20 * 1024 * 1024,
		L1BankWidth: 128, FP32PerCycleSM: 64, FP64PerCycleSM: 32, L2BandwidthGBs: 4000, DRAMBandwidthGBs: 1600}
	mi210 = device.Device{Name: "MI210", SMs: 104, ClockGHz: 1.7, L1Bytes: 16 * 1024, L2Bytes: 6 * 1024 * 1024,
		L1BankWidth: 64, FP32PerCycleSM: 64, FP64PerCycleSM: 64, L2BandwidthGBs: 2900, DRAMBandwidthGBs: 1400}
)

// checkCase is one column of the docs/metrics.md §7.3 table.
type checkCase struct {
	name   string
	dev    device.Device
	launch Launch
	basic  Basic
}

// checkCases are C1–C5 with the table's basic values; flins = ⌈F/2⌉ per
// thread divided by λ (§1.3, §1.5).
var checkCases = []checkCase{
	{"C1", a100x40,
		Launch{ThreadsPerBlock: 1024, LupsPerThread: 1, BlocksPerSM: 2, BlocksPerWave: 216, FlopsPerLup: 13, FlinsPerLup: 7, FPBytes: 8},
		Basic{L1Cycles: 1, L1DataPipeCycles: 1, L1TagCycles: 0.4375, BlockL1LoadAlloc: 32768, BlockL1Load: 81920,
			BlockL2Load: 32768, BlockL2Store: 81920, BlockL1TLBPages: 4, TLBPages: 8,
			WaveMemLoadNew: 7077888, WaveMemStoreNew: 7077888, WaveValidCells: 221184}},
	{"C2", a100x80,
		Launch{ThreadsPerBlock: 512, LupsPerThread: 1, BlocksPerSM: 4, BlocksPerWave: 432, FlopsPerLup: 5, FlinsPerLup: 3, FPBytes: 8},
		Basic{L1Cycles: 0.6328125, L1DataPipeCycles: 0.6328125, L1TagCycles: 0.3671875, BlockL1LoadAlloc: 12672, BlockL1Load: 22528,
			BlockL2Load: 12384, BlockL2Store: 4608, BlockL1TLBPages: 2.375, TLBPages: 3,
			WaveMemLoadNew: 2007289.037, WaveMemStoreNew: 1769472, WaveMemOld: [2]float64{480128, 0},
			WaveMemLoadOverlap: [2]float64{235929.6, 0}, WaveValidCells: 221184}},
	{"C3", a100x40,
		Launch{ThreadsPerBlock: 512, LupsPerThread: 1, BlocksPerSM: 4, BlocksPerWave: 432, FlopsPerLup: 25, FlinsPerLup: 13, FPBytes: 8},
		Basic{L1Cycles: 2.5546875, L1DataPipeCycles: 2.5546875, L1TagCycles: 1.59375, BlockL1LoadAlloc: 56576, BlockL1Load: 105472,
			BlockL2Load: 53376, BlockL2Store: 4096, BlockL1TLBPages: 13, TLBPages: 14,
			WaveMemLoadNew: 8973422.095, WaveMemStoreNew: 1769472, WaveMemOld: [2]float64{143616, 31670272},
			WaveMemLoadOverlap: [2]float64{81825.2948, 7036975.353}, WaveValidCells: 221184}},
	{"C4", mi210,
		Launch{ThreadsPerBlock: 1024, LupsPerThread: 1, BlocksPerSM: 2, BlocksPerWave: 208, FlopsPerLup: 13, FlinsPerLup: 7, FPBytes: 8},
		Basic{L1Cycles: 2.25, L1DataPipeCycles: 2.25, L1TagCycles: 0.875, BlockL1LoadAlloc: 32768, BlockL1Load: 57344,
			BlockL2Load: 32768, BlockL2Store: 57344, BlockL1TLBPages: 4, TLBPages: 8,
			WaveMemLoadNew: 6815744, WaveMemStoreNew: 6815744, WaveValidCells: 212992}},
	{"C5", a100x40,
		Launch{ThreadsPerBlock: 1024, LupsPerThread: 2, BlocksPerSM: 2, BlocksPerWave: 216, FlopsPerLup: 25, FlinsPerLup: 12.5, FPBytes: 8},
		Basic{L1Cycles: 3.53125, L1DataPipeCycles: 3.53125, L1TagCycles: 2.6875, BlockL1LoadAlloc: 81920, BlockL1Load: 356352,
			BlockL2Load: 67584, BlockL2Store: 16384, BlockL1TLBPages: 25, TLBPages: 26,
			WaveMemLoadNew: 7488083.782, WaveMemStoreNew: 3538944, WaveMemOld: [2]float64{823296, 63766528},
			WaveMemLoadOverlap: [2]float64{321722.1818, 3458513.455}, WaveValidCells: 221184}},
}

// derivedGetters name every derived value the tests compare.
var derivedGetters = map[string]func(Derived) float64{
	"L1Cycles":           func(d Derived) float64 { return d.L1CyclesPerLup },
	"L1Load":             func(d Derived) float64 { return d.L1Load },
	"O_L1":               func(d Derived) float64 { return d.OL1 },
	"O_L1ov":             func(d Derived) float64 { return d.OL1ov },
	"L1LoadEvicts":       func(d Derived) float64 { return d.L1LoadEvicts },
	"L2LoadV1":           func(d Derived) float64 { return d.L2LoadV1 },
	"L2LoadOverlap":      func(d Derived) float64 { return d.L2LoadOverlap },
	"L2LoadV2":           func(d Derived) float64 { return d.L2LoadV2 },
	"L2Store":            func(d Derived) float64 { return d.L2Store },
	"memLoadV1":          func(d Derived) float64 { return d.MemLoadV1 },
	"memLoadOverlap0":    func(d Derived) float64 { return d.MemLoadOverlap[0] },
	"memLoadOverlap1":    func(d Derived) float64 { return d.MemLoadOverlap[1] },
	"O_ov0":              func(d Derived) float64 { return d.OOv[0] },
	"O_ov1":              func(d Derived) float64 { return d.OOv[1] },
	"memLoadOverlapHit0": func(d Derived) float64 { return d.MemLoadOverlapHit[0] },
	"memLoadOverlapHit1": func(d Derived) float64 { return d.MemLoadOverlapHit[1] },
	"memLoadV2":          func(d Derived) float64 { return d.MemLoadV2 },
	"memStoreV1":         func(d Derived) float64 { return d.MemStoreV1 },
	"O_L2":               func(d Derived) float64 { return d.OL2 },
	"memStoreEvicts":     func(d Derived) float64 { return d.MemStoreEvicts },
	"memLoadEvicts":      func(d Derived) float64 { return d.MemLoadEvicts },
	"memStoreV2":         func(d Derived) float64 { return d.MemStoreV2 },
	"memLoadV3":          func(d Derived) float64 { return d.MemLoadV3 },
	"memLoadV4":          func(d Derived) float64 { return d.MemLoadV4 },
	"perfFlops":          func(d Derived) float64 { return *d.PerfFlops },
	"perfL1":             func(d Derived) float64 { return d.PerfL1 },
	"perfL2V1":           func(d Derived) float64 { return d.PerfL2V1 },
	"perfL2V2":           func(d Derived) float64 { return d.PerfL2V2 },
	"perfMemV1":          func(d Derived) float64 { return d.PerfMemV1 },
	"perfMemV2":          func(d Derived) float64 { return d.PerfMemV2 },
	"perfMemV3":          func(d Derived) float64 { return d.PerfMemV3 },
	"perfMemV4":          func(d Derived) float64 { return d.PerfMemV4 },
	"perfV3":             func(d Derived) float64 { return d.PerfV3 },
}

// referenceTable is the derived part of the docs/metrics.md §7.3 table,
// columns C1–C5, exactly as printed.
var referenceTable = []struct {
	metric  string
	printed [5]string
}{
	{"L1Load", [5]string{"80", "44", "206", "56", "174"}},
	{"O_L1", [5]string{"0.204124", "0.0789386", "0.352433", "0.707107", "0.510310"}},
	{"L1LoadEvicts", [5]string{"0.206005", "0.0312104", "1.156994", "1.39686", "3.680401"}},
	{"L2LoadV1", [5]string{"32", "24.1875", "104.25", "32", "33"}},
	{"L2LoadV2", [5]string{"32.2060", "24.21871", "105.40699", "33.3969", "36.68040"}},
	{"L2Store", [5]string{"80", "9", "8", "56", "8"}},
	{"memLoadV1", [5]string{"32", "9.0752", "40.56994", "32", "16.92727"}},
	{"memLoadOverlap0", [5]string{"0", "1.066667", "0.3699422", "0", "0.7272727"}},
	{"memLoadOverlap1", [5]string{"0", "0", "31.81503", "0", "7.818182"}},
	{"O_ov0", [5]string{"0.3375", "0.1073593", "0.4308325", "1.08333", "0.3809766"}},
	{"O_ov1", [5]string{"0.3375", "0.095715", "1.602493", "1.08333", "3.232770"}},
	{"memLoadOverlapHit0", [5]string{"0", "1.066667", "0.3699099", "0", "0.7272601"}},
	{"memLoadOverlapHit1", [5]string{"0", "0", "6.281558", "0", "0.0093219"}},
	{"memLoadV2", [5]string{"32", "8.008533", "33.91847", "32", "16.19069"}},
	{"memStoreV1", [5]string{"32", "8", "8", "32", "8"}},
	{"O_L2", [5]string{"1.50935", "0.4026935", "1.145451", "2.65361", "1.175746"}},
	{"memStoreEvicts", [5]string{"3.49461", "0.0182311", "0", "3.78045", "≈0"}},
	{"memLoadEvicts", [5]string{"0.00263383", "0.0100914", "0.4277526", "0.0778658", "0.1315576"}},
	{"memStoreV2", [5]string{"35.4946", "8.018231", "8", "35.7805", "8"}},
	{"memLoadV3", [5]string{"35.4946", "8.026764", "33.91847", "35.7805", "16.19069"}},
	{"memLoadV4", [5]string{"35.4972", "8.036856", "34.34623", "35.8583", "16.32225"}},
	{"perfFlops", [5]string{"696.137", "1624.32", "374.8431", "1616.46", "389.8368"}},
	{"perfL1", [5]string{"152.28", "240.64", "59.60807", "78.5778", "86.24708"}},
	{"perfL2V1", [5]string{"35.7143", "120.5273", "35.63474", "32.9545", "97.56098"}},
	{"perfL2V2", [5]string{"35.6487", "120.4141", "35.27119", "32.4396", "89.52471"}},
	{"perfMemV1", [5]string{"21.875", "93.70315", "28.82441", "21.875", "56.16338"}},
	{"perfMemV2", [5]string{"21.875", "99.94670", "33.39816", "21.875", "57.87350"}},
	{"perfMemV3", [5]string{"19.7213", "99.71957", "33.39816", "19.5638", "57.87350"}},
	{"perfMemV4", [5]string{"19.7206", "99.65689", "33.06080", "19.5425", "57.56047"}},
	{"perfV3", [5]string{"19.7213", "99.71957", "33.39816", "19.5638", "57.87350"}},
}

// checkPrinted asserts that got rounds to the printed decimal value: it may
// differ by at most half a unit in the printed last place. "≈0" accepts
// values below 1e-6 in magnitude.
func checkPrinted(t *testing.T, label string, got float64, printed string) {
	t.Helper()
	if printed == "≈0" {
		if math.Abs(got) > 1e-6 {
			t.Errorf("%s = %v, want ≈0", label, got)
		}
		return
	}
	want, err := strconv.ParseFloat(printed, 64)
	if err != nil {
		t.Fatalf("%s: bad printed value %q", label, printed)
	}
	decimals := 0
	if i := strings.IndexByte(printed, '.'); i >= 0 {
		decimals = len(printed) - i - 1
	}
	tol := 0.5*math.Pow(10, -float64(decimals)) + 1e-12*math.Abs(want)
	if math.Abs(got-want) > tol {
		t.Errorf("%s = %.10g, want %s (±%g)", label, got, printed, tol)
	}
}

func TestDeriveReferenceCheckValues(t *testing.T) {
	for i, c := range checkCases {
		d, err := Derive(c.basic, c.launch, c.dev, MethodReference)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for _, row := range referenceTable {
			checkPrinted(t, c.name+" "+row.metric, derivedGetters[row.metric](d), row.printed[i])
		}
		for _, lim := range []Limiter{d.LimV1, d.LimV2, d.LimV3, d.LimV4} {
			if lim != LimiterDRAM {
				t.Errorf("%s: limiters %v %v %v %v, want DRAM (3) for all", c.name, d.LimV1, d.LimV2, d.LimV3, d.LimV4)
				break
			}
		}
	}
}

func TestDeriveC5FoldedL1Cycles(t *testing.T) {
	// §7.3: C5's derived L1Cycles per Lup = 3.53125/λ with λ = 2.
	d, err := Derive(checkCases[4].basic, checkCases[4].launch, checkCases[4].dev, MethodReference)
	if err != nil {
		t.Fatal(err)
	}
	if d.L1CyclesPerLup != 1.765625 {
		t.Errorf("C5 L1Cycles per Lup = %v, want 1.765625", d.L1CyclesPerLup)
	}
}

func TestDeriveC6PreviousBlockOverlap(t *testing.T) {
	// §7.3 C6: 2D 5-point stencil, b = (32,4,1), β = 16, A100-40GB, F = 5.
	// blockL1Load = L1Load·B = 42·128; L1Cycles is not given by the spec and
	// enters none of the checked values.
	b := Basic{BlockL1Load: 42 * 128, BlockL1LoadAlloc: 2560, BlockL2Load: 1792, BlockL2LoadOverlap: 12.8, L1Cycles: 1}
	l := Launch{ThreadsPerBlock: 128, LupsPerThread: 1, BlocksPerSM: 16, BlocksPerWave: 16 * 108, FlopsPerLup: 5, FlinsPerLup: 3, FPBytes: 8}
	d, err := Derive(b, l, a100x40, MethodReference)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		metric, printed string
	}{
		{"L2LoadV1", "14"}, {"L2LoadOverlap", "0.1"}, {"O_L1ov", "0.0091146"}, {"L1Load", "42"},
		{"O_L1", "0.0159472"}, {"L1LoadEvicts", "0.0247591"}, {"L2LoadV2", "13.9248495"},
	} {
		checkPrinted(t, "C6 "+c.metric, derivedGetters[c.metric](d), c.printed)
	}
}

func TestDeriveExactMethod(t *testing.T) {
	// The exact method on the same basic values. Hand-derived arguments:
	// O_L1 = β·blockL1LoadAlloc/sizeL1 (§8 item 11), O_L2 = waveL2Alloc/sizeL2
	// (§8 item 22); C1: 2·32768/196608 = 1/3 and 2·7077888/20971520 = 0.675.
	c1, err := Derive(checkCases[0].basic, checkCases[0].launch, checkCases[0].dev, MethodExact)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(c1.OL1-1.0/3) > 1e-15 || math.Abs(c1.OL2-0.675) > 1e-15 || c1.SmL1Alloc != 65536 {
		t.Errorf("C1 exact O_L1 = %v, O_L2 = %v, smL1Alloc = %v; want 1/3, 0.675, 65536", c1.OL1, c1.OL2, c1.SmL1Alloc)
	}
	// NoEvictionsWhileFits (not a choice of MethodExact): C1's blocks fit
	// in L1 (O_L1 = 1/3), so no redundant L1 load misses and L2LoadV2 =
	// L2LoadV1.
	fits := MethodExact
	fits.NoEvictionsWhileFits = true
	c1f, err := Derive(checkCases[0].basic, checkCases[0].launch, checkCases[0].dev, fits)
	if err != nil {
		t.Fatal(err)
	}
	if c1f.L1LoadEvicts != 0 || c1f.L2LoadV2 != c1f.L2LoadV1 {
		t.Errorf("C1 exact, no evictions while fits: L1LoadEvicts = %v, L2LoadV2 = %v; want 0 and L2LoadV1 = %v", c1f.L1LoadEvicts, c1f.L2LoadV2, c1f.L2LoadV1)
	}
	// Paper-era L1 curve 0.73·exp(−4.6·exp(−0.34/3)) times (80 − 32) B/Lup
	// (the check case has no warp counts, so all of the redundant load).
	if want := 48 * 0.73 * math.Exp(-4.6*math.Exp(-0.34/3)); math.Abs(c1.L1LoadEvicts-want) > 1e-12 {
		t.Errorf("C1 exact L1LoadEvicts = %v, want %v", c1.L1LoadEvicts, want)
	}
	// LayerReuseDistance: O_ov,k = Old_k/sizeL2, the layer set's footprint
	// alone, and the paper-era z curve e^(−0.0036·e^(3.97·O)) for the y
	// layer too: C2 480128/20 MiB.
	c2c := checkCases[1]
	c2, err := Derive(c2c.basic, c2c.launch, c2c.dev, MethodExact)
	if err != nil {
		t.Fatal(err)
	}
	o := 480128 / float64(c2c.dev.L2Bytes)
	if math.Abs(c2.OOv[0]-o) > 1e-15 || c2.OOv[1] != 0 {
		t.Errorf("C2 exact O_ov = %v, want [%v 0]", c2.OOv, o)
	}
	if want := c2.MemLoadOverlap[0] * math.Exp(-0.0036*math.Exp(3.97*o)); math.Abs(c2.MemLoadOverlapHit[0]-want) > 1e-12 {
		t.Errorf("C2 exact memLoadOverlapHit0 = %v, want %v", c2.MemLoadOverlapHit[0], want)
	}
	// Without LayerReuseDistance, the plain allocation rule: O_ov includes
	// the wave's stores (§8 item 18/22), C1 (0 + 2·7077888 − 0)/20 MiB.
	plain := MethodExact
	plain.LayerReuseDistance = false
	c1p, err := Derive(checkCases[0].basic, checkCases[0].launch, checkCases[0].dev, plain)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(c1p.OOv[1]-0.675) > 1e-15 {
		t.Errorf("C1 plain O_ov,1 = %v, want 0.675", c1p.OOv[1])
	}

	// Recorded exact values (6 significant digits). Entries equal to the
	// reference column (zeros, compulsory volumes) involve no capacity curve.
	exact := []struct {
		metric string
		values [5]float64
	}{
		// β co-resident blocks share L1 (§8 item 11) and the paper-era L1 curve applies (§8 item 23).
		{"L1LoadEvicts", [5]float64{0.576584, 0.213879, 3.31203, 5.38008, 3.21882}},
		// follows L1LoadEvicts; the paper-era set has no previous-block term (§8 item 12).
		{"L2LoadV2", [5]float64{32.5766, 24.4014, 107.562, 37.3801, 36.2188}},
		// O_ov,k = Old_k/sizeL2, the layer set's footprint: its stack distance (LayerReuseDistance).
		{"O_ov0", [5]float64{0, 0.0228943, 0.00684814, 0, 0.0392578}},
		{"O_ov1", [5]float64{0, 0, 1.51016, 0, 3.04062}},
		// the paper-era steep z overlap fit for both layers (LayerReuseDistance; §8 items 23, 24).
		{"memLoadOverlapHit0", [5]float64{0, 1.06247, 0.368576, 0, 0.724219}},
		{"memLoadOverlapHit1", [5]float64{0, 0, 7.49605, 0, 0}},
		// follows the overlap hits (§8 items 23, 24).
		{"memLoadV2", [5]float64{32, 8.01273, 32.7053, 32, 16.2031}},
		// O_L2 = waveL2Alloc/sizeL2 instead of the square-root form (§8 item 22).
		{"O_L2", [5]float64{0.675, 0.18009, 0.512261, 2.16667, 0.52581}},
		// paper-era store and L2 curves at the plain O_L2 (§8 items 22, 23).
		{"memStoreEvicts", [5]float64{3.08441, 0.0479228, 0, 3.65025, 0}},
		{"memLoadEvicts", [5]float64{0.00609059, 0.000677373, 0.212757, 2.06765, 0.0644347}},
		// sum of the above (§8 items 11, 22, 23).
		{"memLoadV4", [5]float64{35.0905, 8.06132, 32.9181, 37.7179, 16.2675}},
		// the DRAM limiter moves with memLoadV3 and memStoreV2 (§8 items 22–24).
		{"perfV3", [5]float64{19.9519, 99.326, 34.3935, 19.6352, 57.8439}},
	}
	for i, c := range checkCases {
		d, err := Derive(c.basic, c.launch, c.dev, MethodExact)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for _, row := range exact {
			got, want := derivedGetters[row.metric](d), row.values[i]
			if math.Abs(got-want) > 5e-6*math.Max(1, math.Abs(want)) {
				t.Errorf("%s exact %s = %.6g, recorded %.6g", c.name, row.metric, got, want)
			}
		}
	}
}

func TestZeroFlopsHasNoFlopLimiter(t *testing.T) {
	// §8 item 25: without flops the minimum must skip the flop limiter,
	// so limV3 is C1's DRAM bound, not 0 GLup/s.
	c := checkCases[0]
	l := c.launch
	l.FlopsPerLup, l.FlinsPerLup = 0, 0
	d, err := Derive(c.basic, l, c.dev, MethodReference)
	if err != nil {
		t.Fatal(err)
	}
	if d.PerfFlops != nil || d.TFlops != nil {
		t.Errorf("PerfFlops = %v, TFlops = %v, want both absent", d.PerfFlops, d.TFlops)
	}
	checkPrinted(t, "C1 no-flops perfV3", d.PerfV3, "19.7213")
	if d.LimV3 != LimiterDRAM {
		t.Errorf("limV3 = %v, want DRAM", d.LimV3)
	}
	js, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(js), `"perfFlops"`) {
		t.Errorf("JSON of a flop-free kernel contains perfFlops: %s", js)
	}
}

func TestDeriveTFlops(t *testing.T) {
	// Reference star2d sample: perfTFlopsFlops = 1624.32·5/1000 = 8.1216.
	c := checkCases[1]
	d, err := Derive(c.basic, c.launch, c.dev, MethodReference)
	if err != nil {
		t.Fatal(err)
	}
	checkPrinted(t, "C2 perfTFlops Flops", d.TFlops.Flops, "8.1216")
	checkPrinted(t, "C2 perfTFlops L1", d.TFlops.L1, "1.2032")
}

func TestDeriveRejectsBadInput(t *testing.T) {
	c := checkCases[0]
	bad := []struct {
		name string
		l    Launch
		dev  device.Device
	}{
		{"zero threads", Launch{LupsPerThread: 1, BlocksPerSM: 1, BlocksPerWave: 1, FPBytes: 8}, c.dev},
		{"fp type 2", Launch{ThreadsPerBlock: 1, LupsPerThread: 1, BlocksPerSM: 1, BlocksPerWave: 1, FPBytes: 2}, c.dev},
		{"no L2", c.launch, device.Device{Name: "x", SMs: 1, ClockGHz: 1, L1Bytes: 1, L2BandwidthGBs: 1, DRAMBandwidthGBs: 1}},
	}
	for _, b := range bad {
		if _, err := Derive(c.basic, b.l, b.dev, MethodReference); err == nil {
			t.Errorf("%s: no error", b.name)
		}
	}
	if _, err := Derive(c.basic, c.launch, c.dev, Method{Name: "odd", Oversubscription: "median"}); err == nil {
		t.Error("unknown oversubscription rule: no error")
	}
}

func TestMethodByName(t *testing.T) {
	for _, name := range []string{"reference", "exact"} {
		m, err := MethodByName(name)
		if err != nil || m.Name != name {
			t.Errorf("MethodByName(%q) = %v, %v", name, m.Name, err)
		}
	}
	if _, err := MethodByName("Exact"); err == nil || !strings.Contains(err.Error(), `"reference"`) {
		t.Errorf("MethodByName(Exact) error = %v, want one listing the valid names", err)
	}
}

func TestCurveForms(t *testing.T) {
	// Hand-evaluated: current R_L1 at O = 0 is 0.66·e^(−6.77); the paper-era
	// z overlap hit e^(−0.0036·e^(3.97·O)) is ≈1 for O < 1 and ≈0 for O > 2
	// (paper, §7.1); the intermediate previous-block hit at O = 0.5 is
	// e^(−0.0036·e^4) = 0.821...
	if got, want := CurrentCurves.L1.Miss(0), 0.66*math.Exp(-6.77); math.Abs(got-want) > 1e-15 {
		t.Errorf("R_L1(0) = %v, want %v", got, want)
	}
	z := PaperEraCurves.OverlapZ
	if z.Hit(0.5) < 0.97 || z.Hit(2.5) > 0.01 {
		t.Errorf("paper-era z hit(0.5) = %v, hit(2.5) = %v; want ≈1 and ≈0", z.Hit(0.5), z.Hit(2.5))
	}
	if got, want := IntermediateCurves.PrevBlock.Hit(0.5), math.Exp(-0.0036*math.Exp(4)); math.Abs(got-want) > 1e-15 {
		t.Errorf("intermediate previous-block hit(0.5) = %v, want %v", got, want)
	}
}
