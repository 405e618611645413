package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/polyvol/polyvol/chart"
	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/layercond"
	"github.com/polyvol/polyvol/model"
	"github.com/polyvol/polyvol/request"
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
	var rep request.LayercondReport
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
	var rep request.LayercondReport
	_, js, _ := runCudaCLI(append(layercondArgs, "--format", "json")...)
	if err := json.Unmarshal([]byte(js), &rep); err != nil {
		t.Fatal(err)
	}
	z := rep.Sweeps[0].Transitions[1]
	for _, want := range []string{
		"star3d-r4 on A100-40GB (NVIDIA A100-SXM4-40GB), method reference\n",
		"L2 20.00 MiB, L1 192.00 KiB per SM; domains s x s x z with z = 2^29/s^2\n",
		"block 1024,1,1  fold 1,1,1",
		"  y layer: fits throughout the sweep (s <= 1024)",
		"  z layer: s = " + itoa(z.S) + "  (O_ov ",
		"  L1: fits throughout the sweep (s <= 1024)",
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
	for _, want := range []string{"z transition", "domains s x s x z with z = 2^29/s^2", `width="648pt"`, `height="396pt"`} {
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

// TestLayercondLegendAndPowers checks the column legends of the default
// and the --wide table and the 2^k form of the series constant.
func TestLayercondLegendAndPowers(t *testing.T) {
	out := mustRun(t, "layercond", "--sweep", "256")
	for _, want := range []string{"z = 2^29/s^2", "columns: s, z", "L2->L1   L2 to L1 load L2LoadV2", "--wide shows all columns"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q", want)
		}
	}
	wide := mustRun(t, "layercond", "--sweep", "256", "--wide")
	for _, want := range []string{"O_ov       oversubscription", "/L2        that footprint", "O_L1       smL1Alloc over the L1", "volumes in B/Lup, footprints in MiB"} {
		if !strings.Contains(wide, want) {
			t.Errorf("--wide table lacks %q", want)
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
		"1-D":            {"layercond", "vec-copy"},
		"inner of 2-D":   {"layercond", "star2d-r1", "--inner", "512"},
		"inner":          {"layercond", "--inner", "-4"},
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

// layercondTable returns the table of the first block in a layercond
// output, as rows of fields, header first.
func layercondTable(t *testing.T, out string) [][]string {
	t.Helper()
	lines := strings.Split(out, "\n")
	start := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "block ") })
	if start < 0 {
		t.Fatalf("no block in the output:\n%s", out)
	}
	var rows [][]string
	for _, l := range lines[start+1:] {
		if strings.HasPrefix(l, "why") || strings.HasPrefix(l, "transitions") {
			break
		}
		rows = append(rows, strings.Fields(l))
	}
	return rows
}

// parseWhyNo returns, per yes/no column, the runs of plane sizes [lo, hi]
// whose "no" the output's first "why" section explains, and the
// explanations joined per column.
func parseWhyNo(t *testing.T, out string) (map[string][][2]int64, map[string]string) {
	t.Helper()
	_, rest, ok := strings.Cut(out, "why \"no\":\n")
	if !ok {
		return nil, nil
	}
	rest, _, _ = strings.Cut(rest, "transitions")
	runs, texts := map[string][][2]int64{}, map[string]string{}
	// Paragraphs start with two spaces, continuation lines with four.
	for _, para := range strings.Split(strings.ReplaceAll(rest, "\n    ", " "), "\n") {
		column, list, ok := strings.Cut(strings.TrimSpace(para), " at s = ")
		if !ok {
			continue
		}
		list, text, _ := strings.Cut(list, ": ")
		texts[column] += text + "\n"
		for _, run := range strings.Split(list, ", ") {
			a, b, isRun := strings.Cut(run, "..")
			if !isRun {
				b = a
			}
			lo, errLo := strconv.ParseInt(a, 10, 64)
			hi, errHi := strconv.ParseInt(b, 10, 64)
			if errLo != nil || errHi != nil {
				t.Fatalf("run %q of %q", run, para)
			}
			runs[column] = append(runs[column], [2]int64{lo, hi})
		}
	}
	return runs, texts
}

// explained reports whether s lies in one of runs.
func explained(runs [][2]int64, s int64) bool {
	return slices.ContainsFunc(runs, func(r [2]int64) bool { return r[0] <= s && s <= r[1] })
}

// TestLayercondDefaultAndWide checks the two tables of a sweep whose z
// layer stops fitting (s = 512: the z layer set is one block layer, whose
// loads of A span its 2 layers and 4 more on each side, and whose stores
// of B its 2 layers, 12 layers of 512·512 doubles = 24 MiB; method exact's
// O_ov,z = Old_z/L2 = 24/20 = 1.2), whose last plane has a single
// block layer (13553 x 13553 x 2 with blocks 2 deep: no z layer set, the
// "ovl z 0.00 … no" row), and whose blocks overfill the L1 (method exact:
// 4 blocks of (256,1,2) on an SM allocate about 220 KiB of 192 KiB): the
// default table has 7 columns and fits in 80 columns, --wide has the 16
// columns of the full table and the 7 L1 columns, and every "no" of the
// default table is explained below it.
func TestLayercondDefaultAndWide(t *testing.T) {
	args := []string{"layercond", "star3d-r4", "--block", "256,1,2", "--sweep", "128,512,13553"}
	out := mustRun(t, args...)
	for _, line := range strings.Split(out, "\n") {
		if n := utf8.RuneCountInString(line); n > 80 {
			t.Errorf("line of %d columns in the default output: %q", n, line)
		}
	}
	rows := layercondTable(t, out)
	if want := []string{"s", "z", "DRAM", "L2->L1", "y", "layer", "z", "layer", "L1"}; !slices.Equal(rows[0], want) {
		t.Errorf("default header %q, want %q", rows[0], want)
	}
	sizes, texts := parseWhyNo(t, out)
	noes := 0
	for _, r := range rows[1:] {
		if len(r) != 7 {
			t.Fatalf("default row %q: want 7 fields", r)
		}
		s, _ := strconv.ParseInt(r[0], 10, 64)
		for i, column := range []string{"y layer", "z layer", "L1"} {
			if r[4+i] == "no" {
				noes++
				if !explained(sizes[column], s) {
					t.Errorf("the %s \"no\" at s = %d is not explained:\n%s", column, s, out)
				}
			}
		}
	}
	if noes != 5 { // z at 512 and 13553, L1 at every size
		t.Errorf("%d \"no\" in the default table, want 5:\n%s", noes, out)
	}
	for column, want := range map[string]string{
		"z layer": "no z layer set: the grid has a single block layer (z = 2 <= block z x fold z = 2)",
		"L1":      "the 4 blocks of an SM allocate",
	} {
		if !strings.Contains(texts[column], want) {
			t.Errorf("the %s explanations lack %q:\n%s", column, want, texts[column])
		}
	}
	if !strings.Contains(texts["z layer"], `"`+chart.BoundaryLabel(3)+`"`) || !strings.Contains(texts["z layer"], "O_ov z = 1.200 > 1: the z layer set (Old z = 24.00 MiB)") {
		t.Errorf("the z explanations lack the plot's boundary label or O_ov z at s = 512:\n%s", texts["z layer"])
	}

	wide := layercondTable(t, mustRun(t, append(args, "--wide")...))
	header := strings.Join(wide[0], " ")
	if want := "s z memLoadV1 V2 V3 ovl xy ovl z no z reuse Old y /L2 O_ov y fits Old z /L2 O_ov z fits L1 KiB O_L1 fits L1Load L2->L1 V1 evicts V2"; header != want {
		t.Errorf("--wide header %q, want %q", header, want)
	}
	for _, r := range wide[1:] {
		if len(r) != 23 {
			t.Errorf("--wide row %q: want 23 fields", r)
		}
	}
}

// TestLayercondL1 runs the kernel of package layercond's L1 tests, which
// loads 24 rows y … y+23: with method reference a block (1024,1,1) fits in
// L1 on planes of s ≤ 826 and not from 828 on (layercond's
// TestL1TransitionReference derives it), with method exact 6 rows fit
// (O_L1 = 6/12) at every plane size.
func TestLayercondL1(t *testing.T) {
	spec := func(n int) string {
		loads := make([]string, n)
		for i := range loads {
			loads[i] = fmt.Sprintf("[x, y + %d, z]", i)
		}
		path := filepath.Join(t.TempDir(), "ystack.yaml")
		text := fmt.Sprintf("name: ystack\ndomain: [64, 64, 64]\nfields:\n  - {name: A, element: 8, extent: [64, %d, 64], load: [%s]}\n  - {name: B, element: 8, store: [[x, y, z]]}\n",
			64+n-1, strings.Join(loads, ", "))
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	out := mustRun(t, "layercond", spec(24), "--block", "1024,1,1", "--method", "reference", "--sweep", "256,512,1024")
	var l1 []string
	for _, r := range layercondTable(t, out)[1:] {
		l1 = append(l1, r[6])
	}
	if !slices.Equal(l1, []string{"yes", "yes", "no"}) || !strings.Contains(out, "  L1: s = 827  (O_L1 1.000 at 827, 1.001 at 828; ") {
		t.Errorf("L1 column %q, want yes yes no and the transition at s = 827:\n%s", l1, out)
	}
	sizes, texts := parseWhyNo(t, out)
	if !slices.Equal(sizes["L1"], [][2]int64{{1024, 1024}}) ||
		!strings.Contains(texts["L1"], "O_L1 = 1.225 > 1: one block allocates 192.00 KiB of L1 lines (smL1Alloc), more than the 156.77 KiB = sqrt(L1 x 128 KiB)") {
		t.Errorf("L1 explanation at s = 1024 (24·8192 B over √(192 KiB·128 KiB)): %v %q", sizes["L1"], texts["L1"])
	}
	out = mustRun(t, "layercond", spec(6), "--block", "1024,1,1", "--sweep", "256,1024")
	if !strings.Contains(out, "  L1: fits throughout the sweep (s <= 1024)\n      O_L1 = 0.500 at every size: the blocks' L1 allocation depends on the") {
		t.Errorf("method exact, 6 rows: want O_L1 = 0.500 throughout:\n%s", out)
	}
}

// TestLayercondJSONKeys checks that a point of the JSON output keeps the
// keys it had before the L1 fields, in their order, followed by the L1 keys
// docs/json.md lists, and that each sweep has its L1 transition.
func TestLayercondJSONKeys(t *testing.T) {
	var rep struct {
		Sweeps []struct {
			Points       []json.RawMessage `json:"points"`
			L1Bytes      int64             `json:"L1Bytes"`
			L1Transition *layercond.Transition
		} `json:"sweeps"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, "layercond", "--sweep", "256", "--format", "json")), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Sweeps) != 1 || rep.Sweeps[0].L1Bytes != 196608 || rep.Sweeps[0].L1Transition == nil || rep.Sweeps[0].L1Transition.Layer != "L1" {
		t.Fatalf("sweeps %+v: want one with L1Bytes 196608 and an L1 transition", rep.Sweeps)
	}
	dec := json.NewDecoder(bytes.NewReader(rep.Sweeps[0].Points[0]))
	var keys []string
	if _, err := dec.Token(); err != nil { // {
		t.Fatal(err)
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			t.Fatal(err)
		}
		keys = append(keys, key.(string))
	}
	want := []string{"s", "domain", "memLoadV1", "memLoadV2", "memLoadV3", "memLoadOverlap", "noZReuse", "fullReuse",
		"waveMemLoadNew", "waveMemOld", "oldOverL2", "waveOverlapOversubscription", "fits",
		"grid", "blocksPerWave", "blocksPerSM", "blockL1LoadAlloc", "smL1Alloc", "L1Oversubscription",
		"L1Load", "L2LoadV1", "L1LoadEvicts", "L2LoadV2", "L1Fits"}
	if !slices.Equal(keys, want) {
		t.Errorf("point keys %q, want %q", keys, want)
	}
}

// TestLayercondGolden compares the default table of the default sweep,
// block (256,1,2), with its golden file: the output the issue asked for,
// whose last row is the single-block-layer plane 13553 x 13553 x 2.
func TestLayercondGolden(t *testing.T) {
	checkGolden(t, "layercond-star3d-r4.txt", mustRun(t, "layercond", "star3d-r4", "--block", "256,1,2"))
}

// TestLayercondRows checks the command on a 2-D kernel: rows of s points,
// y = 2^29/s of them, a "rows" column for the row condition and no z
// columns, every "no" explained, the row transition of the library, and
// the sequential row condition of the 5-point star in half the A100's L2:
// three rows of 8-byte elements, 24·X ≤ 10 MiB, X ≤ 436906.
func TestLayercondRows(t *testing.T) {
	args := []string{"layercond", "star2d-r1", "--block", "256,2,1", "--sweep", "4096,1048576"}
	out := mustRun(t, args...)
	for _, line := range strings.Split(out, "\n") {
		if n := utf8.RuneCountInString(line); n > 80 {
			t.Errorf("line of %d columns in the default output: %q", n, line)
		}
	}
	rows := layercondTable(t, out)
	if want := []string{"s", "y", "DRAM", "L2->L1", "rows", "L1"}; !slices.Equal(rows[0], want) {
		t.Errorf("header %q, want %q", rows[0], want)
	}
	if want := []string{"1048576", "512"}; len(rows) != 3 || !slices.Equal(rows[2][:2], want) || rows[2][4] != "no" || rows[1][4] != "yes" {
		t.Errorf("rows %q, want s = 4096 fitting and s = 1048576 (y = 512) not", rows)
	}
	sizes, _ := parseWhyNo(t, out)
	if !explained(sizes["rows"], 1048576) || len(sizes) != 1 {
		t.Errorf("explanations %v, want the rows at s = 1048576 only", sizes)
	}
	k, err := kernel.ParseExample("star2d-r1")
	if err != nil {
		t.Fatal(err)
	}
	dev, err := device.Lookup("A100-40GB")
	if err != nil {
		t.Fatal(err)
	}
	r, err := layercond.Sweep(layercond.Config{Kernel: k, Device: dev, Block: [3]int64{256, 2, 1}, Sizes: []int64{4096, 1048576}})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"domains s x y with y = 2^29/s\n",
		"columns: s, y     the domain s x y: y rows of s points\n",
		"  rows: s = " + itoa(r.Transitions[0].S) + "  (O_ov ",
		"\n  rows: X <= 436906\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	wide := layercondTable(t, mustRun(t, append(args, "--wide")...))
	if header := strings.Join(wide[0], " "); header != "s y memLoadV1 V2 V3 ovl xy Old y /L2 O_ov y fits L1 KiB O_L1 fits L1Load L2->L1 V1 evicts V2" {
		t.Errorf("wide header %q", header)
	}
	code, _, errOut := runCudaCLI("layercond", "vec-copy")
	if code != ExitUsage || errOut != "polyvol: vec-copy.yaml: domain: kernel vec-copy is 1-D, without rows or layers to reuse; layercond sweeps the rows of a 2-D kernel or the planes of a 3-D one\n" {
		t.Errorf("1-D kernel: exit %d, %q", code, errOut)
	}
}

// TestLayercondInner checks planes of a fixed row length: the domains
// 512 x s x z, and the sequential conditions on them (star3d-r4, 10 MiB):
// the y condition 136·512 ≤ 10 MiB at every s, the z condition
// 72·512·s ≤ 10 MiB up to s = 284.
func TestLayercondInner(t *testing.T) {
	out := mustRun(t, "layercond", "star3d-r4", "--block", "256,1,4", "--inner", "512", "--sweep", "256,512")
	for _, want := range []string{
		"domains 512 x s x z with z = 2^29/(512 s)\n",
		"columns: s, z     the domain 512 x s x z\n",
		"  y layer: X <= 77101         (X = 512: every s)\n",
		"  z layer: X*Y <= 145635      (X = 512: s <= 284)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if rows := layercondTable(t, out); len(rows) != 3 || !slices.Equal(rows[1][:2], []string{"256", "4096"}) {
		t.Errorf("rows %q, want s = 256 with z = 2^29/(512·256) = 4096 first", rows)
	}
}
