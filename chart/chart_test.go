package chart

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"image/png"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/explore"
	"github.com/polyvol/polyvol/footprint"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/model"
	"github.com/polyvol/polyvol/request"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
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
	ch := rooflineOf(r, &device.Device{}, 8)
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
	ch := rooflineOf(r, dev, 8)
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
		p, err := request.Predict{Kernel: k, Device: dev, Launch: request.DefaultLaunch(), Options: opt}.Run()
		if err != nil {
			t.Fatal(err)
		}
		r := p.Report
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
		ch := rooflineOf(r, dev, 8)
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
		checkImages(t, "Roofline "+m, func(w io.Writer, format string, size Size) error { return Roofline(w, format, size, r, dev, k.FPType) },
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

// TestHeatMapOfExploration checks the ranking drawn of an exploration
// against the exploration's rows: each block x and y has one cell, the
// best-ranked configuration of that x and y found by a search of all rows
// (explore.Rank puts configurations with many idle threads last), or
// a hatched one where the sweep skipped every configuration of it; the
// bars and the spread hold the rows in rank order with their limiters; the
// scale spans the ranked GLup/s; the image names the best configuration.
func TestHeatMapOfExploration(t *testing.T) {
	e := smallExploration(t)
	m := rankingOf(e)
	first := map[[2]int64]int{} // the best rank of each block x and y
	for i, r := range e.Rows {
		if xy := [2]int64{r.Launch.Block[0], r.Launch.Block[1]}; first[xy] == 0 {
			first[xy] = i + 1
		}
	}
	skippedOnly := map[[2]int64]bool{}
	for _, s := range e.Skipped {
		if xy := [2]int64{s.Block[0], s.Block[1]}; first[xy] == 0 {
			skippedOnly[xy] = true
		}
	}
	if len(m.Cells) != len(first)+len(skippedOnly) {
		t.Errorf("%d cells, want %d ranked and %d skipped block x and y", len(m.Cells), len(first), len(skippedOnly))
	}
	bests := 0
	for _, c := range m.Cells {
		xy := [2]int64{c.X, c.Y}
		if c.Rank == 0 {
			if !skippedOnly[xy] {
				t.Errorf("cell %+v hatched, but block x and y %v has a ranked configuration", c, xy)
			}
			continue
		}
		if row := e.Rows[c.Rank-1]; c.Rank != first[xy] || c.GLups != row.Prediction.GLups {
			t.Errorf("cell %+v: the best rank of x and y %v is %d, at %v GLup/s", c, xy, first[xy], e.Rows[first[xy]-1].Prediction.GLups)
		}
		if c.Rank == 1 {
			bests++
		}
	}
	if bests != 1 || m.Skipped != len(e.Skipped) || m.Skipped == 0 {
		t.Errorf("%d best cells, %d skipped; want 1 and %d (> 0)", bests, m.Skipped, len(e.Skipped))
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	limiters := map[string]bool{}
	if len(m.Ranked) != len(e.Rows) {
		t.Fatalf("%d ranked, want %d", len(m.Ranked), len(e.Rows))
	}
	for i, r := range e.Rows {
		lo, hi = min(lo, r.Prediction.GLups), max(hi, r.Prediction.GLups)
		limiters[r.Prediction.Limiter] = true
		if got := m.Ranked[i]; got.Block != r.Launch.Block || got.GLups != r.Prediction.GLups || got.Limiter != r.Prediction.Limiter {
			t.Errorf("ranked %d: %+v, want block %s at %v limited by %s", i+1, got, request.Triple(r.Launch.Block), r.Prediction.GLups, r.Prediction.Limiter)
		}
	}
	if len(m.Limiters) != len(limiters) || m.Limiters[0] != e.Rows[0].Prediction.Limiter {
		t.Errorf("limiters %q, want the %d of the rows, the best's first", m.Limiters, len(limiters))
	}
	if m.Lo != lo || m.Hi != hi {
		t.Errorf("scale %v..%v, want %v..%v", m.Lo, m.Hi, lo, hi)
	}
	best := e.Rows[0].Launch
	checkImages(t, "HeatMap", func(w io.Writer, format string, size Size) error { return HeatMap(w, format, size, e) },
		"ringed: the best, block "+request.Triple(best.Block), "1. block "+request.Triple(best.Block), fmt.Sprintf("all %d ranked configurations", len(e.Rows)))
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

// svgText is a text element of an SVG that package chart writes, in the
// drawing's coordinates (y up).
type svgText struct {
	At   vg.Point
	Size vg.Length
	Text string
}

// box returns the text's extent in the default font, as text.Style
// measures it.
func (s svgText) box() vg.Rectangle {
	sty := text.Style{Font: font.From(plot.DefaultFont, s.Size), Handler: plot.DefaultTextHandler}
	return sty.Rectangle(s.Text).Add(s.At)
}

// svgPath is a path element: the points of its moves and lines, in the
// drawing's coordinates, and its style.
type svgPath struct {
	Points []vg.Point
	Style  string
}

// bounds returns the smallest rectangle that holds the path's points.
func (p svgPath) bounds() vg.Rectangle {
	r := vg.Rectangle{Min: p.Points[0], Max: p.Points[0]}
	for _, q := range p.Points[1:] {
		r.Min.X, r.Min.Y = min(r.Min.X, q.X), min(r.Min.Y, q.Y)
		r.Max.X, r.Max.Y = max(r.Max.X, q.X), max(r.Max.Y, q.Y)
	}
	return r
}

// parseSVG returns the texts and paths of an SVG that vgsvg writes: texts
// at (x, -y) under scale(1, -1), paths of M, L and A commands.
func parseSVG(t *testing.T, data []byte) ([]svgText, []svgPath) {
	t.Helper()
	var texts []svgText
	var paths []svgPath
	dec := xml.NewDecoder(bytes.NewReader(data))
	num := func(s string) vg.Length {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("SVG number %q: %v", s, err)
		}
		return vg.Length(v)
	}
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return texts, paths
		}
		if err != nil {
			t.Fatal(err)
		}
		el, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		attr := map[string]string{}
		for _, a := range el.Attr {
			attr[a.Name.Local] = a.Value
		}
		switch el.Name.Local {
		case "text":
			var body string
			if err := dec.DecodeElement(&body, &el); err != nil {
				t.Fatal(err)
			}
			m := regexp.MustCompile(`font-size:([0-9.]+)px`).FindStringSubmatch(attr["style"])
			if m == nil {
				t.Fatalf("text %q without a font size", body)
			}
			texts = append(texts, svgText{At: vg.Point{X: num(attr["x"]), Y: -num(attr["y"])}, Size: num(m[1]), Text: body})
		case "path":
			p := svgPath{Style: attr["style"]}
			for _, m := range regexp.MustCompile(`[MLA]([^MLAZ]*)`).FindAllStringSubmatch(attr["d"], -1) {
				f := strings.FieldsFunc(m[1], func(r rune) bool { return r == ',' || r == ' ' })
				p.Points = append(p.Points, vg.Point{X: num(f[len(f)-2]), Y: num(f[len(f)-1])})
			}
			paths = append(paths, p)
		}
	}
}

// TestRooflineLayout checks the drawing of the roofline of two kernels on
// H100-SXM: the legend lies inside the image on a box of its own colour
// with every entry inside that box; no point label covers a drop line, a
// point or another point label; and the device peak, 2 flops per FP64 lane
// and cycle on every SM of the device's data, stands apart from the
// kernel's flops ceiling, the model's flops bound times the kernel's flops
// per update.
func TestRooflineLayout(t *testing.T) {
	dev, err := device.Lookup("H100-SXM")
	if err != nil {
		t.Fatal(err)
	}
	peak := 2 * dev.FP64PerCycleSM * dev.ClockGHz * float64(dev.SMs) / 1000
	for _, name := range []string{"star3d-r4", "lbm-d3q19-pull"} {
		k, _ := loadExample(t, name, "")
		p, err := request.Predict{Kernel: k, Device: dev, Launch: request.DefaultLaunch(), Options: estimateOptions(t, "overlap")}.Run()
		if err != nil {
			t.Fatal(err)
		}
		r := p.Report
		var svg bytes.Buffer
		if err := Roofline(&svg, formatSVG, DefaultSize, r, dev, k.FPType); err != nil {
			t.Fatal(err)
		}
		texts, paths := parseSVG(t, svg.Bytes())
		canvas := vg.Rectangle{Max: vg.Point{X: 648, Y: 396}}
		inside := func(r, in vg.Rectangle) bool {
			return r.Min.X >= in.Min.X && r.Min.Y >= in.Min.Y && r.Max.X <= in.Max.X && r.Max.Y <= in.Max.Y
		}

		var legend []svgPath
		for _, p := range paths {
			if strings.Contains(p.Style, "fill:#F6F7F9") {
				legend = append(legend, p)
			}
		}
		if len(legend) != 1 || !inside(legend[0].bounds(), canvas) {
			t.Fatalf("%s: legend boxes %+v, want one inside %+v", name, legend, canvas)
		}
		entries := 0
		for _, s := range texts {
			if strings.HasSuffix(s.Text, " B/Lup") || strings.Contains(s.Text, "B/s") {
				entries++
				if !inside(s.box(), legend[0].bounds()) {
					t.Errorf("%s: legend entry %q at %+v outside its box %+v", name, s.Text, s.box(), legend[0].bounds())
				}
			}
		}
		if entries != 6 {
			t.Errorf("%s: %d legend entries, want the 3 bandwidths and the 3 points", name, entries)
		}

		var obstacles []vg.Rectangle // drop lines and points, not the legend's
		for _, p := range paths {
			if inside(p.bounds(), legend[0].bounds()) {
				continue
			}
			switch {
			case strings.Contains(p.Style, "stroke-dasharray:1,2"): // a drop line
				obstacles = append(obstacles, p.bounds())
			case strings.Contains(p.Style, "fill:#") && len(p.Points) == 3: // a circle: two arcs between the ends of a diameter
				c, r := p.Points[1].Add(p.Points[2]).Scale(0.5), p.Points[1].Sub(p.Points[2]).Scale(0.5)
				radius := vg.Length(math.Hypot(float64(r.X), float64(r.Y)))
				obstacles = append(obstacles, vg.Rectangle{Min: c.Sub(vg.Point{X: radius, Y: radius}), Max: c.Add(vg.Point{X: radius, Y: radius})})
			}
		}
		var labels []vg.Rectangle
		for _, s := range texts {
			if strings.HasSuffix(s.Text, " flop/B") {
				labels = append(labels, s.box())
			}
		}
		if len(labels) != 3 || len(obstacles) != 6 {
			t.Fatalf("%s: %d point labels and %d drop lines and points, want 3 and 6", name, len(labels), len(obstacles))
		}
		for i, l := range labels {
			for _, o := range append(obstacles, labels[i+1:]...) {
				if l.Min.X < o.Max.X && o.Min.X < l.Max.X && l.Min.Y < o.Max.Y && o.Min.Y < l.Max.Y {
					t.Errorf("%s: point label at %+v covers %+v", name, l, o)
				}
			}
		}

		var flopsBound float64
		for _, b := range r.Prediction.Bounds {
			if b.Name == "flops" {
				flopsBound = b.GLups * r.Launch.FlopsPerLup / 1000
			}
		}
		tflops := func(v float64) string { return strconv.FormatFloat(v, 'g', 3, 64) + " TFlop/s" }
		for _, want := range []string{"device peak FP64 " + tflops(peak), "flops of the kernel's FP mix " + tflops(flopsBound)} {
			if !slices.ContainsFunc(texts, func(s svgText) bool { return strings.HasPrefix(s.Text, want) }) {
				t.Errorf("%s: no ceiling labelled %q", name, want)
			}
		}
		if !(flopsBound > 0 && flopsBound <= peak) {
			t.Errorf("%s: the kernel's flops ceiling %v TFlop/s, want above 0 and at most the peak %v", name, flopsBound, peak)
		}
	}
}

// TestOccupancyHandComputed checks the occupancy curves on A100-40GB
// against the CUDA occupancy calculator's rules worked by hand from the
// device's limits (64 warps, 2048 threads and 32 blocks per SM, 65536
// registers allocated 256 a warp in groups of 4 warps, 167936 B of shared
// memory allocated 128 B at a time with 1024 B reserved per block), for
// blocks of 256 threads of 32 registers without shared memory, and of 1024
// threads, where 255 registers leave no room for a block.
func TestOccupancyHandComputed(t *testing.T) {
	dev, err := device.Lookup("A100-40GB")
	if err != nil {
		t.Fatal(err)
	}
	at := func(p occupancyPanel, x float64) (int, device.Limiter) {
		i := slices.Index(p.Samples, x)
		if i < 0 {
			t.Fatalf("%s: no sample at %v", p.Resource, x)
		}
		return p.Blocks[i], p.Limiters[i]
	}
	panels, err := occupancyPanels(dev, Resources{Threads: 256, Registers: 32})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		panel   int
		x       float64
		blocks  int
		limiter device.Limiter
	}{
		{0, 32, 32, device.LimitBlocks},    // 64 warps of 1 admit 64, the 32 block slots fewer
		{0, 96, 21, device.LimitWarps},     // 64 / 3 warps
		{0, 1024, 2, device.LimitWarps},    // 64 / 32 warps
		{0, 256, 8, device.LimitWarps},     // the launch: 64 / 8 warps; registers 65536 / (8 × 1024) also 8
		{1, 64, 4, device.LimitRegisters},  // 2048 registers a warp: 32 warps, 4 blocks of 8
		{1, 128, 2, device.LimitRegisters}, // 4096 a warp: 16 warps
		{1, 255, 1, device.LimitRegisters}, // 8160, allocated 8192, a warp: 8 warps
		{2, 48, 3, device.LimitShared},     // (49152 + 1024) B a block: 167936 / 50176 = 3.3
		{2, 16, 8, device.LimitWarps},      // 17408 B a block admit 9
		{2, 0, 8, device.LimitWarps},       // the reserve alone admits 164
		{2, 163, 1, device.LimitShared},    // 166912 B, the most a block may use
		{1, 1, 8, device.LimitWarps},       // 1 register: 256 a warp
	} {
		if blocks, lim := at(panels[c.panel], c.x); blocks != c.blocks || lim != c.limiter {
			t.Errorf("%s at %v: %d blocks limited by %s, want %d by %s", panels[c.panel].Resource, c.x, blocks, lim, c.blocks, c.limiter)
		}
	}
	panels, err = occupancyPanels(dev, Resources{Threads: 1024, Registers: 32})
	if err != nil {
		t.Fatal(err)
	}
	// 1024 threads: 32 warps of 8192 registers at 255 need 262144 > 65536.
	if blocks, lim := at(panels[1], 255); blocks != 0 || lim != device.LimitRegisters {
		t.Errorf("1024 threads of 255 registers: %d blocks limited by %s, want 0 by registers", blocks, lim)
	}
	if blocks, _ := at(panels[1], 64); blocks != 1 { // 32 warps of 2048 registers: the whole file
		t.Errorf("1024 threads of 64 registers: %d blocks, want 1", blocks)
	}
	checkImages(t, "Occupancy", func(w io.Writer, format string, size Size) error {
		return Occupancy(w, format, size, dev, Resources{Threads: 256, Registers: 64, SharedBytes: 1000}, "a kernel")
	}, "Occupancy of a kernel on A100-40GB: 256 threads, 64 registers per thread, 1000 B", "4 blocks per SM, 32 of 64 warps (50 %), limited by registers",
		"the launch, 64 registers: 4 blocks per SM")
	if err := Occupancy(io.Discard, formatSVG, DefaultSize, dev, Resources{Threads: 2048, Registers: 32}, "a kernel"); err == nil {
		t.Error("Occupancy draws blocks of 2048 threads")
	}
}
