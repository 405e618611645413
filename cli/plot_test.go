package cli

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"github.com/polyvol/polyvol/request"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/model"
)

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

// TestRooflineOfPrediction checks the chart of predict's own reports
// against the JSON they print, read without the model's types: the
// overlap model's DRAM point at its bound's volume, the roofline model's at
// memLoadV3 + memStoreV2, L1 at L1Load, all at the predicted performance.
func TestRooflineOfPrediction(t *testing.T) {
	dev, err := device.Lookup(defaultDevice)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"overlap", "roofline"} {
		out := mustRun(t, "predict", "--model", m, "--format", "json")
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
		var r model.Report
		if err := json.Unmarshal([]byte(out), &raw); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		d := func(key string) float64 { return raw.Derived[key].(float64) }
		want := map[string]float64{"L1": d("L1Load"), "L2": d("L2totalV2"), "DRAM": d("memLoadV3") + d("memStoreV2")}
		for _, b := range raw.Prediction.Bounds {
			if b.BytesPerLup > 0 {
				want[b.Name] = b.BytesPerLup
			}
		}
		ch := rooflineOf(&r, dev)
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
	}
}

// checkPNG checks that path holds a PNG of w × h inches at 96 dpi.
func checkPNG(t *testing.T, path string, w, h int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cfg, err := png.DecodeConfig(f)
	if err != nil || cfg.Width != w*96 || cfg.Height != h*96 {
		t.Errorf("%s: %v, %d × %d pixels; want %d × %d", path, err, cfg.Width, cfg.Height, w*96, h*96)
	}
}

// checkSVG checks that path parses as XML, with an svg root of w × h
// points, and returns its text.
func checkSVG(t *testing.T, path string, w, h int) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := xml.NewDecoder(bytes.NewReader(data))
	root := ""
	var width, height string
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
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
	if root != "svg" || width != itoa(int64(w))+"pt" || height != itoa(int64(h))+"pt" {
		t.Errorf("%s: root %q of %s × %s, want svg of %dpt × %dpt", path, root, width, height, w, h)
	}
	return string(data)
}

// TestPredictPlot checks the roofline files: a PNG of the size asked for,
// an SVG that parses, names the limiter's ceiling and leaves the JSON
// output as it is without --plot.
func TestPredictPlot(t *testing.T) {
	dir := t.TempDir()
	pngPath, svgPath := filepath.Join(dir, "roof.png"), filepath.Join(dir, "roof.svg")
	mustRun(t, "predict", "--quiet", "--plot", pngPath, "--plot-size", "5x4")
	checkPNG(t, pngPath, 5, 4)
	want := mustRun(t, "predict", "--format", "json")
	if got := mustRun(t, "predict", "--format", "json", "--plot", svgPath); got != want {
		t.Errorf("--plot changes the JSON output:\n%s", firstDiff(want, got))
	}
	text := checkSVG(t, svgPath, 648, 396) // the default 9x5.5 inches
	for _, s := range []string{"DRAM 1.38 TB/s (limiter)", "L1 12.6 TB/s (implied by the bound)", "flops 9.37 TFlop/s", "limited by DRAM"} {
		if !strings.Contains(text, s) {
			t.Errorf("SVG lacks %q", s)
		}
	}
}

// TestExplorePlot checks the heat map: its best cell is explore's first
// ranked row, in the first row of panels; every configuration has one
// cell; the scale spans the ranked GLup/s; the files are a PNG of the size
// asked for and an SVG that parses.
func TestExplorePlot(t *testing.T) {
	dir := t.TempDir()
	svgPath, pngPath := filepath.Join(dir, "heat.svg"), filepath.Join(dir, "heat.png")
	var e request.Exploration
	if err := json.Unmarshal([]byte(mustRun(t, append(small, "--format", "json", "--plot", svgPath)...)), &e); err != nil {
		t.Fatal(err)
	}
	m := heatMapOf(&e)
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
	if text := checkSVG(t, svgPath, 648, 396); !strings.Contains(text, "ringed: the best, block "+request.Triple(best.Block)) {
		t.Error("SVG does not name the best configuration")
	}
	mustRun(t, append(small, "--top", "1", "--plot", pngPath, "--plot-size", "6x8")...)
	checkPNG(t, pngPath, 6, 8)
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

// TestPlotUsageErrors checks that a plot that cannot be written, or that
// the command cannot draw, is a usage error of one line.
func TestPlotUsageErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cases := map[string][]string{
		"predict extension":  {"predict", "--plot", filepath.Join(dir, "roof.pdf")},
		"predict directory":  {"predict", "--plot", filepath.Join(dir, "missing", "roof.png")},
		"predict not a dir":  {"predict", "--plot", filepath.Join(file, "roof.svg")},
		"predict is a dir":   {"predict", "--plot", dir + "/.svg"},
		"predict size":       {"predict", "--plot", filepath.Join(dir, "roof.svg"), "--plot-size", "1x1"},
		"predict statements": {"predict", initStencil, "--statement", "all", "-D", "n=64", "--plot", filepath.Join(dir, "roof.svg")},
		"explore extension":  append(slices.Clone(small), "--plot", filepath.Join(dir, "heat.jpg")),
		"explore directory":  append(slices.Clone(small), "--plot", filepath.Join(dir, "missing", "heat.svg")),
		"explore shard":      append(slices.Clone(small), "--shard", "1/2", "--plot", filepath.Join(dir, "heat.svg")),
	}
	if err := os.Mkdir(dir+"/.svg", 0o755); err != nil {
		t.Fatal(err)
	}
	for name, args := range cases {
		code, out, errOut := runCudaCLI(args...)
		if code != ExitUsage || out != "" || !strings.HasPrefix(errOut, "polyvol: --plot") || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 2 with one --plot line on stderr", name, code, out, errOut)
		}
	}
}
