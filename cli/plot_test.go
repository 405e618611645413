package cli

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"github.com/polyvol/polyvol/request"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/polyvol/polyvol/chart"
)

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
	for _, s := range []string{"DRAM 1.38 TB/s (limiter)", "L1 12.6 TB/s (implied)", "FP mix 9.37 TFlop/s", "device peak FP64 9.75 TFlop/s", "limited by DRAM"} {
		if !strings.Contains(text, s) {
			t.Errorf("SVG lacks %q", s)
		}
	}
}

// TestPredictOccupancyPlot checks the occupancy files: an SVG that parses
// and states polyvol predict's blocks per SM and occupancy limiter, for the
// default launch (limited by warps) and with 128 registers per thread
// (limited by registers), and a PNG of the size asked for.
func TestPredictOccupancyPlot(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{{"predict"}, {"predict", "--registers", "128"}} {
		var r struct {
			Launch struct {
				BlocksPerSM      int
				OccupancyLimiter string
			}
		}
		if err := json.Unmarshal([]byte(mustRun(t, append(slices.Clone(args), "--format", "json")...)), &r); err != nil {
			t.Fatal(err)
		}
		svgPath := filepath.Join(dir, "occupancy.svg")
		mustRun(t, append(slices.Clone(args), "--quiet", "--plot-occupancy", svgPath)...)
		want := fmt.Sprintf("%d blocks per SM", r.Launch.BlocksPerSM)
		if text := checkSVG(t, svgPath, 648, 396); !strings.Contains(text, want) || !strings.Contains(text, "limited by "+r.Launch.OccupancyLimiter) {
			t.Errorf("%q: the occupancy SVG does not say %s limited by %s", args, want, r.Launch.OccupancyLimiter)
		}
	}
	pngPath := filepath.Join(dir, "occupancy.png")
	mustRun(t, "predict", "--quiet", "--plot-occupancy", pngPath, "--plot-size", "8x3")
	checkPNG(t, pngPath, 8, 3)
}

// TestExplorePlot checks the heat map files: an SVG that parses, names
// explore's first ranked row as the best configuration and leaves the
// JSON output as it is without --plot, and a PNG of the size asked for.
func TestExplorePlot(t *testing.T) {
	dir := t.TempDir()
	svgPath, pngPath := filepath.Join(dir, "heat.svg"), filepath.Join(dir, "heat.png")
	want := mustRun(t, append(small, "--format", "json")...)
	out := mustRun(t, append(small, "--format", "json", "--plot", svgPath)...)
	if out != want {
		t.Errorf("--plot changes the JSON output:\n%s", firstDiff(want, out))
	}
	var e request.Exploration
	if err := json.Unmarshal([]byte(out), &e); err != nil {
		t.Fatal(err)
	}
	best := e.Rows[0].Launch
	if text := checkSVG(t, svgPath, 648, 396); !strings.Contains(text, "ringed: the best, block "+request.Triple(best.Block)) {
		t.Error("SVG does not name the best configuration")
	}
	mustRun(t, append(small, "--top", "1", "--plot", pngPath, "--plot-size", "6x8")...)
	checkPNG(t, pngPath, 6, 8)
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
		"predict extension":    {"predict", "--plot", filepath.Join(dir, "roof.pdf")},
		"predict directory":    {"predict", "--plot", filepath.Join(dir, "missing", "roof.png")},
		"predict not a dir":    {"predict", "--plot", filepath.Join(file, "roof.svg")},
		"predict is a dir":     {"predict", "--plot", dir + "/.svg"},
		"predict size":         {"predict", "--plot", filepath.Join(dir, "roof.svg"), "--plot-size", "1x1"},
		"predict statements":   {"predict", initStencil, "--statement", "all", "-D", "n=64", "--plot", filepath.Join(dir, "roof.svg")},
		"occupancy extension":  {"predict", "--plot-occupancy", filepath.Join(dir, "occupancy.gif")},
		"occupancy directory":  {"predict", "--plot-occupancy", filepath.Join(dir, "missing", "occupancy.svg")},
		"occupancy statements": {"predict", initStencil, "--statement", "all", "-D", "n=64", "--plot-occupancy", filepath.Join(dir, "occupancy.svg")},
		"explore extension":    append(slices.Clone(small), "--plot", filepath.Join(dir, "heat.jpg")),
		"explore directory":    append(slices.Clone(small), "--plot", filepath.Join(dir, "missing", "heat.svg")),
		"explore shard":        append(slices.Clone(small), "--shard", "1/2", "--plot", filepath.Join(dir, "heat.svg")),
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

// TestDefaultPlotSize checks that the --plot-size default reads back as
// the images' default size.
func TestDefaultPlotSize(t *testing.T) {
	if size, err := parsePlotSize(defaultPlotSize); err != nil || size != chart.DefaultSize {
		t.Errorf("--plot-size %s: %+v, %v; want %+v", defaultPlotSize, size, err, chart.DefaultSize)
	}
}
