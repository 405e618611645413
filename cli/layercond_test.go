package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/layercond"
	"github.com/polyvol/polyvol/model"
)

// layercondArgs is a quick sweep: method reference, block (1024,1,1), whose
// z transition lies between 256 and 512.
var layercondArgs = []string{"layercond", "star3d-r4", "--device", "A100-40GB", "--method", "reference",
	"--block", "1024,1,1", "--sweep", "64:1024:x2"}

// TestLayercondJSONMatchesLibrary checks that the command reports what
// layercond.Sweep computes, and the paper's sequential layer condition.
func TestLayercondJSONMatchesLibrary(t *testing.T) {
	code, out, errOut := runCudaCLI(append(layercondArgs, "--format", "json")...)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep LayercondReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	k, err := kernel.ParseExample("star3d-r4")
	if err != nil {
		t.Fatal(err)
	}
	dev, err := device.Lookup("A100-40GB")
	if err != nil {
		t.Fatal(err)
	}
	want, err := layercond.Sweep(layercond.Config{Kernel: k, Device: dev, Block: [3]int64{1024, 1, 1},
		Method: model.MethodReference, Sizes: []int64{64, 128, 256, 512, 1024}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Sweeps) != 1 || !reflect.DeepEqual(rep.Sweeps[0], want) {
		t.Errorf("command sweep differs from layercond.Sweep:\n%+v\n%+v", rep.Sweeps, want)
	}
	// Half of the 20 MiB L2: 72·X·Y ≤ 10 MiB, s ≤ 381 (paper §5.7).
	if rep.Sequential == nil || rep.Sequential.CacheBytes != 10<<20 || rep.Sequential.Conditions[1].Text != "X*Y <= 145635" ||
		rep.Sequential.Conditions[1].MaxSquare != 381 {
		t.Errorf("sequential condition %+v, want X*Y <= 145635 (s <= 381) for 10 MiB", rep.Sequential)
	}
	if rep.L2Bytes != 20<<20 || rep.Total != layercond.PaperTotal {
		t.Errorf("L2 %d total %d, want 20 MiB and %d", rep.L2Bytes, rep.Total, layercond.PaperTotal)
	}
}

func TestLayercondTable(t *testing.T) {
	code, out, errOut := runCudaCLI(layercondArgs...)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep LayercondReport
	_, js, _ := runCudaCLI(append(layercondArgs, "--format", "json")...)
	if err := json.Unmarshal([]byte(js), &rep); err != nil {
		t.Fatal(err)
	}
	z := rep.Sweeps[0].Transitions[1]
	for _, want := range []string{
		"star3d-r4 on A100-40GB (NVIDIA A100-SXM4-40GB), L2 20.00 MiB, method reference",
		"block 1024,1,1  fold 1,1,1",
		"z = 2^29/s^2",
		"  y layer: fits throughout the sweep (s <= 1024)",
		"  z layer: s = " + itoa(z.S) + "  (O_ov ",
		"0.5 x L2 = 10.00 MiB",
		"  z layer: X*Y <= 145635      (square planes: s <= 381)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	// One row per plane size, z from the series: 2^29/512² = 2048.
	found := false
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) > 2 && f[0] == "512" && f[1] == "2048" {
			found = true
		}
	}
	if !found {
		t.Errorf("table lacks the row of s = 512, z = 2048:\n%s", out)
	}
}

// itoa formats an int64 for expected strings.
func itoa(v int64) string { return num(float64(v)) }

func TestLayercondCSVAndPlots(t *testing.T) {
	dir := t.TempDir()
	svg, png := filepath.Join(dir, "lc.svg"), filepath.Join(dir, "lc.png")
	args := []string{"layercond", "star3d-r4", "--method", "reference", "--block", "1024,1,1", "--block", "256,1,4",
		"--sweep", "128,512", "--format", "csv", "--plot", svg}
	code, out, errOut := runCudaCLI(args...)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 5 || !strings.HasPrefix(lines[0], "kernel,device,method,block,fold,s,domain,memLoadV1,") ||
		!strings.HasPrefix(lines[4], "star3d-r4,A100-40GB,reference,256x1x4,1x1x1,512,512x512x2048,") {
		t.Errorf("CSV: want a header and 2 blocks × 2 sizes, got:\n%s", out)
	}
	data, err := os.ReadFile(svg)
	if err != nil || !bytes.Contains(data, []byte("<svg")) || !bytes.Contains(data, []byte("block 256,1,4")) {
		t.Errorf("SVG plot: %v, %d bytes", err, len(data))
	}
	// Method reference puts the z transition of (1024,1,1) at s = 486,
	// between the two sizes, and 512 x 512 x 2048 has 2048 >= 3 * 4 layers.
	for _, want := range []string{"z transition", "z = 2^29 / s^2", `width="648pt"`, `height="396pt"`} {
		if !bytes.Contains(data, []byte(want)) {
			t.Errorf("SVG plot lacks %q", want)
		}
	}
	if bytes.Contains(data, []byte("boundary case")) {
		t.Error("SVG plot marks boundary cases, but every point has at least 3 block layers")
	}
	sized := filepath.Join(dir, "small.svg")
	if code, _, errOut := runCudaCLI("layercond", "--block", "32,1,32", "--sweep", "128,4096", "--plot", sized, "--plot-size", "4x3"); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// 4096 x 4096 x 32 has one layer of blocks 32 deep: a boundary case.
	if data, err := os.ReadFile(sized); err != nil || !bytes.Contains(data, []byte(`width="288pt"`)) || !bytes.Contains(data, []byte("boundary case")) {
		t.Errorf("--plot-size 4x3 (288 x 216 pt) with a boundary case: %v", err)
	}
	args[len(args)-1] = png
	if code, _, errOut := runCudaCLI(args...); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if data, err := os.ReadFile(png); err != nil || !bytes.HasPrefix(data, []byte("\x89PNG")) {
		t.Errorf("PNG plot: %v", err)
	}
}

// TestLayercondLegendAndPowers checks the column legend of the table and
// the 2^k form of the series constant.
func TestLayercondLegendAndPowers(t *testing.T) {
	out := mustRun(t, "layercond", "--sweep", "256")
	for _, want := range []string{"z = 2^29/s^2", "columns: s, z", "O_ov       oversubscription", "/L2        that footprint"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q", want)
		}
	}
	for n, want := range map[int64]string{536870912: "2^29", 1: "2^0", 1000: "1000", 3 << 20: "3145728"} {
		if got := powerText(n); got != want {
			t.Errorf("powerText(%d) = %q, want %q", n, got, want)
		}
	}
	for _, tick := range (shortTicks{}).Ticks(0, 75) {
		if strings.Contains(tick.Label, ".") {
			t.Errorf("tick label %q", tick.Label)
		}
	}
}

func TestLayercondUsageErrors(t *testing.T) {
	cases := map[string][]string{
		"sweep":          {"layercond", "--sweep", "1:10:x1"},
		"duplicate":      {"layercond", "--block", "32,1,32:32,1,32"},
		"block":          {"layercond", "--block", "32,1,x"},
		"too many":       {"layercond", "--block", "2048,1,1"},
		"plot":           {"layercond", "--plot", "lc.pdf"},
		"plot-size":      {"layercond", "--plot-size", "9"},
		"plot-size big":  {"layercond", "--plot-size", "9x500"},
		"2-D":            {"layercond", "star2d-r1"},
		"cache-fraction": {"layercond", "--cache-fraction", "0"},
		"method":         {"layercond", "--method", "fast"},
		"total":          {"layercond", "--total", "0"},
		"workers":        {"layercond", "--workers", "0"},
		"fold":           {"layercond", "--fold", "1,1,4", "--sweep", "20000"},
		"format":         {"layercond", "--format", "xml"},
		"args":           {"layercond", "star3d-r4", "star3d-r1"},
		"spec":           {"layercond", "no-such-spec"},
	}
	for name, args := range cases {
		code, out, errOut := runCudaCLI(args...)
		if code != ExitUsage || out != "" || !strings.HasPrefix(errOut, "polyvol: ") || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 2 with one line on stderr", name, code, out, errOut)
		}
	}
}
