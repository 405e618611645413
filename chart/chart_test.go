package chart

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"image/png"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/explore"
	"github.com/polyvol/polyvol/footprint"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/model"
	"github.com/polyvol/polyvol/request"
)

// near reports whether a and b agree to 9 significant digits.
func near(a, b float64) bool {
	return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b))
}

// loadExample returns the embedded example spec name, at domain unless
// that is "", and the default device.
func loadExample(t *testing.T, name, domain string) (*kernel.Kernel, *device.Device) {
	t.Helper()
	k, _, err := request.Spec{Example: name}.Load()
	if err != nil {
		t.Fatal(err)
	}
	if domain != "" {
		if k, err = request.AtDomain(k, domain); err != nil {
			t.Fatal(err)
		}
	}
	dev, err := device.Lookup(request.DefaultDevice)
	if err != nil {
		t.Fatal(err)
	}
	return k, dev
}

// estimateOptions returns the options of the exact method and the
// performance model named m, with the default bounds on work and memory.
func estimateOptions(t *testing.T, m string) model.Options {
	t.Helper()
	opt, err := request.Estimate{Method: "exact", Model: m, MaxWork: footprint.DefaultWorkBound, MaxMemoryMB: request.DefaultMaxMemoryMB}.Options(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return opt
}

// TestRooflineHandComputed checks the chart of a report built by hand:
// each level's intensity is the flops per update over its bytes per
// update, a bound's own volume replaces the derived one, and the ceilings
// carry the bandwidths the bounds give, or imply.
func TestRooflineHandComputed(t *testing.T) {
	r := &model.Report{
		Launch:  model.LaunchInfo{FlopsPerLup: 25},
		Derived: model.Derived{L1Load: 200, L2TotalV2: 100, MemLoadV3: 32, MemStoreV2: 8},
		Prediction: model.Prediction{GLups: 20, Limiter: "DRAM", Bounds: []model.Bound{
			{Name: "flops", GLups: 400},
			{Name: "L1", GLups: 60},
			{Name: "L2", BytesPerLup: 100, GBs: 4000, GLups: 40},
			{Name: "DRAM", BytesPerLup: 50, GBs: 1000, GLups: 20},
			{Name: "latency", GLups: 300},
		}},
	}
	ch := rooflineOf(r, &device.Device{})
	if ch.Work != "flop" || ch.WorkPerLup != 25 || ch.Perf != 500 || ch.Limiter != "DRAM" {
		t.Errorf("work %s × %v, perf %v, limiter %s; want flop × 25, 20 GLup/s × 25 = 500 GFlop/s, DRAM", ch.Work, ch.WorkPerLup, ch.Perf, ch.Limiter)
	}
	// DRAM: the bound's 50 B/Lup, not memLoadV3 + memStoreV2 = 40.
	wantPoints := []rooflinePoint{{"L1", 200, 0.125}, {"L2", 100, 0.25}, {"DRAM", 50, 0.5}}
	if len(ch.Points) != len(wantPoints) {
		t.Fatalf("points %+v, want %+v", ch.Points, wantPoints)
	}
	for i, want := range wantPoints {
		if got := ch.Points[i]; got.Level != want.Level || got.BytesPerLup != want.BytesPerLup || !near(got.Intensity, want.Intensity) {
			t.Errorf("point %d: %+v, want %+v", i, got, want)
		}
	}
	wantCeilings := []rooflineCeiling{
		{Name: "flops", GLups: 400},
		{Name: "L1", GLups: 60, GBs: 60 * 200, Implied: true},
		{Name: "L2", GLups: 40, GBs: 4000},
		{Name: "DRAM", GLups: 20, GBs: 1000, Limiter: true},
		{Name: "latency", GLups: 300},
	}
	if len(ch.Ceilings) != len(wantCeilings) {
		t.Fatalf("ceilings %+v, want %+v", ch.Ceilings, wantCeilings)
	}
	for i, want := range wantCeilings {
		if got := ch.Ceilings[i]; got != want {
			t.Errorf("ceiling %d: %+v, want %+v", i, got, want)
		}
	}
	if got := ch.flatPerf(ch.Ceilings[0]); got != 10000 {
		t.Errorf("flops ceiling at %v GFlop/s, want 400 GLup/s × 25 flop = 10000", got)
	}
	// Intensities from the points' 0.125 to the ridges' 10000/1000 = 10
	// flop/B, performance from the points' 500 to the flops' 10000 (the
	// roofs at their own points are 1500, 1000 and 500), each decade
	// rounded outwards from half the lowest and twice (x) or 1.6 times (y)
	// the highest.
	x0, x1, y0, y1 := ch.ranges()
	if x0 != 0.01 || x1 != 100 || y0 != 100 || y1 != 100000 {
		t.Errorf("ranges x %v..%v, y %v..%v; want 0.01..100 (0.125/2, 10*2) and 100..100000 (500/2, 10000*1.6)", x0, x1, y0, y1)
	}
}

// TestRooflineWithoutBounds checks a model without a list of bounds (the
// roofline model): the ceilings are the derived section's four, a level
// bandwidth is the device's where it gives the bound at that volume, and a
// kernel without flops counts lattice updates.
func TestRooflineWithoutBounds(t *testing.T) {
	flops := 300.0
	r := &model.Report{
		Derived: model.Derived{L1Load: 64, L2LoadV2: 30, L2Store: 2, L2TotalV2: 32, MemLoadV3: 12, MemStoreV2: 4,
			Limiters: model.Limiters{PerfFlops: &flops, PerfL1: 90, PerfL2V2: 100, PerfMemV3: 80}},
		Prediction: model.Prediction{GLups: 80, Limiter: "DRAM"},
	}
	dev := &device.Device{DRAMBandwidthGBs: 80 * 16, L2BandwidthGBs: 5000}
	ch := rooflineOf(r, dev)
	if ch.Work != "Lup" || ch.WorkPerLup != 1 || ch.Perf != 80 {
		t.Errorf("work %s × %v, perf %v; want Lup × 1 and 80", ch.Work, ch.WorkPerLup, ch.Perf)
	}
	for i, want := range []rooflinePoint{{"L1", 64, 1.0 / 64}, {"L2", 32, 1.0 / 32}, {"DRAM", 16, 1.0 / 16}} {
		if got := ch.Points[i]; got.Level != want.Level || got.BytesPerLup != want.BytesPerLup || !near(got.Intensity, want.Intensity) {
			t.Errorf("point %d: %+v, want %+v", i, got, want)
		}
	}
	// L2: the device's 5000 GB/s is not 100 GLup/s × 32 B/Lup = 3200: implied.
	wantCeilings := []rooflineCeiling{
		{Name: "flops", GLups: 300},
		{Name: "L1", GLups: 90, GBs: 90 * 64, Implied: true},
		{Name: "L2", GLups: 100, GBs: 3200, Implied: true},
		{Name: "DRAM", GLups: 80, GBs: 1280, Limiter: true},
	}
	for i, want := range wantCeilings {
		if got := ch.Ceilings[i]; got != want {
			t.Errorf("ceiling %d: %+v, want %+v", i, got, want)
		}
	}
}

// TestRooflineOfPrediction checks the chart of the library's own reports
// against their JSON, read without the model's types: the overlap model's
// DRAM point at its bound's volume, the roofline model's at memLoadV3 +
// memStoreV2, L1 at L1Load, all at the predicted performance.
func TestRooflineOfPrediction(t *testing.T) {
	k, dev := loadExample(t, request.DefaultSpec, "")
	for _, m := range []string{"overlap", "roofline"} {
		opt := estimateOptions(t, m)
		r, err := request.Predict{Kernel: k, Device: dev, Launch: request.Launch{Fold: request.DefaultFold, Tile: kernel.TileConsecutive.String()}, Options: opt}.Run()
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := request.WriteJSON(&out, r); err != nil {
			t.Fatal(err)
		}
		var raw struct {
			Launch     struct{ FlopsPerLup float64 }
			Derived    map[string]any
			Prediction struct {
				GLups   float64
				Limiter string
				Bounds  []struct {
					Name        string
					BytesPerLup float64
				}
			}
		}
		if err := json.Unmarshal(out.Bytes(), &raw); err != nil {
			t.Fatal(err)
		}
		d := func(key string) float64 { return raw.Derived[key].(float64) }
		want := map[string]float64{"L1": d("L1Load"), "L2": d("L2totalV2"), "DRAM": d("memLoadV3") + d("memStoreV2")}
		for _, b := range raw.Prediction.Bounds {
			if b.BytesPerLup > 0 {
				want[b.Name] = b.BytesPerLup
			}
		}
		ch := rooflineOf(r, dev)
		if len(ch.Points) != 3 || !near(ch.Perf, raw.Prediction.GLups*raw.Launch.FlopsPerLup) {
			t.Fatalf("%s: points %+v at %v, want 3 at %v × %v", m, ch.Points, ch.Perf, raw.Prediction.GLups, raw.Launch.FlopsPerLup)
		}
		for _, p := range ch.Points {
			if !near(p.Intensity, raw.Launch.FlopsPerLup/want[p.Level]) {
				t.Errorf("%s: %s at %v flop/B, want %v / %v", m, p.Level, p.Intensity, raw.Launch.FlopsPerLup, want[p.Level])
			}
		}
		limiters := 0
		for _, c := range ch.Ceilings {
			if c.Limiter {
				limiters++
				if c.Name != raw.Prediction.Limiter {
					t.Errorf("%s: ceiling %s highlighted, the limiter is %s", m, c.Name, raw.Prediction.Limiter)
				}
			}
		}
		if limiters != 1 {
			t.Errorf("%s: %d ceilings highlighted, want the limiter's", m, limiters)
		}
		checkImages(t, "Roofline "+m, func(w io.Writer, format string, size Size) error { return Roofline(w, format, size, r, dev) },
			"limited by "+raw.Prediction.Limiter, "(limiter)")
	}
}

// smallExploration explores transpose2d at 128 x 64 with all block shapes,
// a 3-D kernel's default folds and the default tilings: a sweep that ranks
// some configurations and skips others.
func smallExploration(t *testing.T) *request.Exploration {
	t.Helper()
	k, dev := loadExample(t, "transpose2d", "128,64")
	opt := estimateOptions(t, string(model.DefaultModel))
	sweep := request.DefaultSweep()
	// The folds of a 3-D kernel's default: the 2-D domain skips fold
	// 1,1,2, which the heat map hatches.
	sweep.AllShapes, sweep.Folds = true, "1,1,1:1,2,1:1,1,2"
	cfg, err := sweep.Apply(explore.Config{Kernel: k, Device: dev, Estimate: opt, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	e, err := request.Explore{Config: cfg, MaxConfigurations: request.DefaultMaxConfigurations}.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestHeatMapOfExploration checks the heat map of an exploration: its best
// cell is the first ranked row, in the first row of panels; every
// configuration has one cell; the scale spans the ranked GLup/s; the
// image names the best configuration.
func TestHeatMapOfExploration(t *testing.T) {
	e := smallExploration(t)
	m := heatMapOf(e)
	best := e.Rows[0].Launch
	if got, want := m.Rows[0].Variant, "fold "+request.Triple(best.Fold)+" "+best.Tiling.String(); got != want {
		t.Errorf("first row %q, want the best's variant %q", got, want)
	}
	ranked, skipped, bests := 0, 0, 0
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, r := range e.Rows {
		lo, hi = min(lo, r.Prediction.GLups), max(hi, r.Prediction.GLups)
	}
	for i, row := range m.Rows {
		ranked, skipped = ranked+row.Ranked, skipped+row.Skipped
		for _, c := range row.Cells {
			if c.Rank == 1 {
				bests++
				if i != 0 || c.Block != best.Block || c.GLups != e.Rows[0].Prediction.GLups {
					t.Errorf("best cell %+v in row %d, want block %s at %v in row 0", c, i, request.Triple(best.Block), e.Rows[0].Prediction.GLups)
				}
			}
			if c.Rank > 0 && e.Rows[c.Rank-1].Launch.Block != c.Block {
				t.Errorf("cell %+v: rank %d is block %s", c, c.Rank, request.Triple(e.Rows[c.Rank-1].Launch.Block))
			}
		}
	}
	if bests != 1 || ranked != len(e.Rows) || skipped != len(e.Skipped) || skipped == 0 {
		t.Errorf("%d best cells, %d ranked, %d skipped; want 1, %d, %d (> 0)", bests, ranked, skipped, len(e.Rows), len(e.Skipped))
	}
	if m.Lo != lo || m.Hi != hi {
		t.Errorf("scale %v..%v, want %v..%v", m.Lo, m.Hi, lo, hi)
	}
	checkImages(t, "HeatMap", func(w io.Writer, format string, size Size) error { return HeatMap(w, format, size, e) },
		"ringed: the best, block "+request.Triple(best.Block))
	if err := HeatMap(io.Discard, formatSVG, DefaultSize, &request.Exploration{Skipped: e.Skipped}); err == nil {
		t.Error("HeatMap draws an exploration without ranked configurations")
	}
}

// TestViridis checks the colour map's ends and a stop.
func TestViridis(t *testing.T) {
	for _, c := range []struct {
		t    float64
		want [3]uint8
	}{{0, [3]uint8{0x44, 0x01, 0x54}}, {-1, [3]uint8{0x44, 0x01, 0x54}}, {0.5, [3]uint8{0x21, 0x91, 0x8c}}, {1, [3]uint8{0xfd, 0xe7, 0x25}}, {1.0 / 16, [3]uint8{0x46, 0x17, 0x68}}} {
		if got := viridis(c.t); [3]uint8{got.R, got.G, got.B} != c.want {
			t.Errorf("viridis(%v) = %v, want %v", c.t, got, c.want)
		}
	}
}

// TestLayercondImages checks the layer-condition curves of a sweep with a
// boundary case (32 x 1 x 32 blocks at s = 4096: z = 32 < 3 block layers):
// the SVG names the blocks and marks the boundary case.
func TestLayercondImages(t *testing.T) {
	keys := request.DefaultLayercondKeys()
	keys.Sweep = "128,4096"
	req, err := keys.Layercond()
	if err != nil {
		t.Fatal(err)
	}
	req.Kernel, req.Device = loadExample(t, request.DefaultSpec, "")
	req.Blocks = [][3]int64{{1024, 1, 1}, {32, 1, 32}}
	rep, err := req.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	checkImages(t, "Layercond", func(w io.Writer, format string, size Size) error { return Layercond(w, format, size, rep) },
		"block 1024,1,1", "block 32,1,32", BoundaryLabel(3), "domains s x s x z with z = 2^29/s^2", "DRAM load memLoadV3", "load L2LoadV2 (B/Lup)")
}

// TestTicks checks the tick labels of the layer-condition curves: the
// default ticks without trailing zeros, and the powers of two of the plane
// sizes.
func TestTicks(t *testing.T) {
	labelled := 0
	for _, tick := range (shortTicks{}).Ticks(0, 75) {
		if tick.Label != "" {
			labelled++
		}
		if strings.Contains(tick.Label, ".") {
			t.Errorf("tick label %q", tick.Label)
		}
	}
	if labelled == 0 {
		t.Error("no labelled tick between 0 and 75")
	}
	for _, c := range []struct {
		lo, hi   float64
		labelled bool
		want     string
	}{
		{100, 1100, true, "128 256 512 1024"},
		{40000, 5e6, true, "65536 128Ki 256Ki 512Ki 1Mi 2Mi 4Mi"},
		{100, 1100, false, "   "}, // four ticks, none labelled
	} {
		var got []string
		for _, tick := range powerOfTwoTicks(c.lo, c.hi, c.labelled) {
			got = append(got, tick.Label)
		}
		if strings.Join(got, " ") != c.want {
			t.Errorf("powers of two between %v and %v (labelled %v): %q, want %q", c.lo, c.hi, c.labelled, strings.Join(got, " "), c.want)
		}
	}
}

// checkImages checks what draw writes: an SVG of the default size that
// parses and contains each of texts, a PNG of 4 x 3 inches at 96 dpi, and
// an error for another format.
func checkImages(t *testing.T, name string, draw func(w io.Writer, format string, size Size) error, texts ...string) {
	t.Helper()
	var svg bytes.Buffer
	if err := draw(&svg, formatSVG, DefaultSize); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if root, w, h := svgRoot(t, svg.Bytes()); root != "svg" || w != "648pt" || h != "396pt" {
		t.Errorf("%s: SVG root %q of %s × %s, want svg of 648pt × 396pt (9 x 5.5 inches)", name, root, w, h)
	}
	for _, s := range texts {
		if !strings.Contains(svg.String(), s) {
			t.Errorf("%s: SVG lacks %q", name, s)
		}
	}
	var img bytes.Buffer
	if err := draw(&img, formatPNG, Size{Width: 4, Height: 3}); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if cfg, err := png.DecodeConfig(&img); err != nil || cfg.Width != 4*96 || cfg.Height != 3*96 {
		t.Errorf("%s: PNG %v, %d × %d pixels; want %d × %d", name, err, cfg.Width, cfg.Height, 4*96, 3*96)
	}
	if err := draw(io.Discard, "pdf", DefaultSize); err == nil {
		t.Errorf("%s: draws a pdf", name)
	}
}

// svgRoot returns the name, width and height of the root element of the
// SVG data, failing t where data does not parse as XML.
func svgRoot(t *testing.T, data []byte) (root, width, height string) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(data))
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return root, width, height
		}
		if err != nil {
			t.Fatal(err)
		}
		if el, ok := tok.(xml.StartElement); ok && root == "" {
			root = el.Name.Local
			for _, a := range el.Attr {
				switch a.Name.Local {
				case "width":
					width = a.Value
				case "height":
					height = a.Value
				}
			}
		}
	}
}
