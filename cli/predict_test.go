package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/polyvol/polyvol/request"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/polyvol/polyvol/examples"
	"github.com/polyvol/polyvol/footprint"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/model"
)

// TestPredictGolden pins predict --format json of every example kernel on
// A100-40GB with its default block, method exact. Regenerate with
// go test ./cli -run TestPredictGolden -update and review the diff.
func TestPredictGolden(t *testing.T) {
	for _, name := range examples.Names() {
		t.Run(name, func(t *testing.T) {
			out := mustRun(t, "predict", name, "--format", "json")
			var r model.Report
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				t.Fatalf("output is not a Report: %v", err)
			}
			if r.Kernel != name || r.Device != "A100-40GB" || r.Method != "exact" || r.Prediction.GLups <= 0 {
				t.Errorf("kernel %q device %q method %q GLups %v", r.Kernel, r.Device, r.Method, r.Prediction.GLups)
			}
			checkGolden(t, "predict-"+name+".json", out)
		})
	}
}

// TestPredictDefault checks that predict without arguments is star3d-r4 on
// A100-40GB with block 256,1,2 and that the table has every section.
func TestPredictDefault(t *testing.T) {
	out := mustRun(t, "predict")
	for _, want := range []string{
		"star3d-r4 on A100-40GB", "block 256,1,2", "L1 load", "L2 load V2", "DRAM load V4", "DRAM store V2",
		"data pipe", "blocks/SM", "  bound  ", "  flops  ", "  issue  ", "  latency  ", "prediction:",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("default predict output lacks %q:\n%s", want, out)
		}
	}
	// One limiter table: the overlap model's bounds, not the roofline's
	// limiter rows too; the legend only with --explain.
	for _, not := range []string{"L1 (cycles)", "DRAM (load V3 + store V2)", "The fields' shares"} {
		if strings.Contains(out, not) {
			t.Errorf("default predict output has %q:\n%s", not, out)
		}
	}
	if roof := mustRun(t, "predict", "--model", "roofline"); !strings.Contains(roof, "DRAM (load V3 + store V2)") || strings.Contains(roof, "  bound  ") {
		t.Errorf("roofline: want the limiter rows and no bounds table:\n%s", roof)
	}
	if explained := mustRun(t, "predict", "--explain"); !strings.Contains(explained, "The fields' shares add up to the total") {
		t.Errorf("--explain: no legend:\n%s", explained)
	}
	if quiet := mustRun(t, "predict", "--quiet"); !strings.HasPrefix(quiet, "prediction: ") || strings.Count(quiet, "\n") != 1 || !strings.HasSuffix(out, quiet) {
		t.Errorf("--quiet printed %q, want the last line of %q", quiet, out)
	}
	if json := mustRun(t, "predict", "star3d-r4", "--block", "256,1,2", "--format", "json"); json != mustRun(t, "predict", "--format", "json") {
		t.Error("predict without SPEC differs from predict star3d-r4 --block 256,1,2")
	}
}

// TestPredictCSV checks the header and that the row has one value per column.
func TestPredictCSV(t *testing.T) {
	out := mustRun(t, "predict", "vec-copy", "--format", "csv")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 {
		t.Fatalf("want a header and one row, got %d lines:\n%s", len(lines), out)
	}
	if lines[0] != strings.Join(csvHeader, ",") {
		t.Errorf("header %q", lines[0])
	}
	row := strings.Split(lines[1], ",")
	if len(row) != len(csvHeader) {
		t.Fatalf("%d cells for %d columns", len(row), len(csvHeader))
	}
	// vec-copy has no flops: the perfFlops cell is empty, and it moves 8 B
	// per Lup in L1 (one 8-byte load).
	col := func(name string) string {
		for i, h := range csvHeader {
			if h == name {
				return row[i]
			}
		}
		t.Fatalf("no column %s", name)
		return ""
	}
	if col("perfFlops") != "" || col("L1Load") != "8" || col("block") != "256x1x1" {
		t.Errorf("perfFlops %q L1Load %q block %q", col("perfFlops"), col("L1Load"), col("block"))
	}
}

// TestFlagsAfterSpec checks that flags are parsed after the positional SPEC.
func TestFlagsAfterSpec(t *testing.T) {
	_, errOut, code := run(t, "predict", "vec-copy", "--device", "NoSuchGPU")
	if code != ExitUsage || !strings.Contains(errOut, `unknown device "NoSuchGPU"`) {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	out := mustRun(t, "predict", "vec-copy", "--block", "128", "--format=csv")
	if !strings.Contains(out, ",128x1x1,") {
		t.Errorf("block flag after SPEC ignored:\n%s", out)
	}
}

// TestTeraPointDomain documents the decision that a domain of 2^40 points
// is valid input: the cost of an estimate does not depend on the domain size.
// A grid beyond CUDA's launch limits gets a note on stderr.
// Domains beyond 2^50 points are usage errors (TestUsageErrors).
func TestTeraPointDomain(t *testing.T) {
	out, errOut, code := run(t, "predict", "testdata/specs/tera-points.yaml", "--format", "csv")
	if code != ExitOK || !strings.Contains(out, ",1048576x1048576x1,") {
		t.Errorf("exit %d, output:\n%s", code, out)
	}
	// Its grid of 524288 blocks in y needs more than one CUDA launch: a
	// note says so, and the estimate stands.
	if !strings.Contains(errOut, "polyvol: note: grid y = 524288 blocks exceeds the 65535") {
		t.Errorf("stderr %q lacks the grid note", errOut)
	}
}

// TestPredictIdleNote checks the note on idle threads: a 4,4,64 block on
// vec-copy's 1-D domain of 2^20 points has 4 of its 1024 threads active
// (1 − 4/1024 = 99.6 % idle); block 256,1,1 divides the domain and gets no
// note.
func TestPredictIdleNote(t *testing.T) {
	_, errOut, code := run(t, "predict", "vec-copy", "--domain", "1048576", "--block", "4,4,64")
	want := "polyvol: note: 99.6 % of the launched threads are idle (267386880 of 268435456"
	if code != ExitOK || !strings.Contains(errOut, want) {
		t.Errorf("exit %d, stderr %q lacks %q", code, errOut, want)
	}
	_, errOut, code = run(t, "predict", "vec-copy", "--domain", "1048576", "--block", "256,1,1")
	if code != ExitOK || strings.Contains(errOut, "idle") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

// TestPredictResidentNote checks the note on a grid whose loaded lines stay
// in L1: method exact says so, with the per-SM L2→L1 load of the model's
// hand-counted case (80 SMs × 36 sectors × 32 B over 1024·256 updates =
// 0.352 B/Lup); method reference, which has no such rule, does not, nor
// does a grid that fits but whose load the rule leaves as it is.
func TestPredictResidentNote(t *testing.T) {
	spec := filepath.Join("testdata", "specs", "l1-resident.yaml")
	_, errOut, code := run(t, "predict", spec, "--device", "V100", "--block", "32,4")
	want := "polyvol: note: every line the whole grid loads fits in one SM's L1"
	if code != ExitOK || !strings.Contains(errOut, want) || !strings.Contains(errOut, "L2→L1 load (0.352 B/Lup)") {
		t.Errorf("exit %d, stderr %q lacks %q with 0.352 B/Lup", code, errOut, want)
	}
	_, errOut, code = run(t, "predict", spec, "--device", "V100", "--block", "32,4", "--method", "reference")
	if code != ExitOK || strings.Contains(errOut, "fits in one SM's L1") {
		t.Errorf("method reference: exit %d, stderr %q", code, errOut)
	}
	// A stream of 4096 doubles fits the L1 too, but every block loads its
	// own lines once anyway (8 B/Lup, below 80 SMs' fetch of all of them):
	// nothing is capped, so there is nothing to note.
	_, errOut, code = run(t, "predict", "vec-copy", "--domain", "4096", "--device", "V100", "--block", "256")
	if code != ExitOK || strings.Contains(errOut, "fits in one SM's L1") {
		t.Errorf("small stream: exit %d, stderr %q", code, errOut)
	}
}

// TestUsageErrors checks that every class of user error exits with code 2
// and one line on stderr that names the problem, with nothing on stdout.
func TestUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want []string // substrings of the message
	}{
		{"unknown flag", []string{"predict", "--bogus"}, []string{"flag provided but not defined", "bogus"}},
		{"unknown command", []string{"frobnicate"}, []string{"frobnicate"}},
		{"unknown device", []string{"predict", "--device", "Z100"}, []string{`unknown device "Z100"`, "A100-40GB"}},
		{"unknown spec", []string{"predict", "no-such-kernel"}, []string{`spec "no-such-kernel"`, "star3d-r4"}},
		{"malformed YAML", []string{"predict", "testdata/specs/malformed.yaml"}, []string{"testdata/specs/malformed.yaml:", "did not find expected"}},
		{"non-affine expression", []string{"predict", "testdata/specs/non-affine.yaml"}, []string{"non-affine.yaml:7:", `field "A" load[0]`, "column 2", "not affine"}},
		{"ISL syntax error", []string{"predict", "testdata/specs/isl-syntax.yaml"}, []string{"isl-syntax.yaml:7:", `field "A" load_isl[0]`, "syntax error"}},
		{"domain beyond 2^50 in spec", []string{"predict", "testdata/specs/huge-domain.yaml"}, []string{"huge-domain.yaml:2:", "2^50"}},
		{"domain beyond 2^50 by flag", []string{"predict", "vec-copy", "--domain", "1099511627776,1099511627776"}, []string{"2^50"}},
		{"zero block", []string{"predict", "--block", "0,1,1"}, []string{"--block", "entry 1 (x) = 0", "at least 1"}},
		{"block not a number", []string{"predict", "--block", "64,y"}, []string{"--block", "not an integer"}},
		{"block over 1024 threads", []string{"predict", "--block", "64,8,4"}, []string{"2048 threads", "limit 1024"}},
		{"block x over the limit", []string{"predict", "--block", "2048"}, []string{"block x = 2048", "hardware limit 1024"}},
		{"block too big for the registers", []string{"predict", "allen-cahn-d3q15", "--block", "1024"}, []string{"block 1024,1,1", "no block of 1024 threads fits on an SM", "registers", "smaller block"}},
		{"block too big for the reference's registers", []string{"predict", "allen-cahn-d3q15", "--block", "1024", "--method", "reference"}, []string{"no block of 1024 threads fits", "96 registers"}},
		{"no configuration fits", []string{"explore", "allen-cahn-d3q15", "--folds", "1,1,1"}, []string{"every configuration was skipped", "block 1,16,64", "fits on an SM"}},
		{"fold larger than domain", []string{"predict", "vec-copy", "--fold", "1,2,1"}, []string{"fold y = 2", "larger than the domain"}},
		{"unknown method", []string{"predict", "--method", "magic"}, []string{"--method", "magic"}},
		{"unknown model", []string{"predict", "--model", "ecm"}, []string{"--model", "ecm"}},
		{"unknown format", []string{"predict", "--format", "xml"}, []string{`--format "xml"`, "table, json, csv"}},
		{"two specs", []string{"predict", "vec-copy", "star3d-r4"}, []string{"at most one SPEC"}},
		{"explore without spec", []string{"explore"}, []string{"one SPEC"}},
		{"bad shard", []string{"explore", "vec-copy", "--shard", "3/2"}, []string{`--shard "3/2"`, "1 <= K <= N"}},
		{"shard not K/N", []string{"explore", "vec-copy", "--shard", "1"}, []string{`--shard "1"`}},
		{"threads not a power of two", []string{"explore", "vec-copy", "--threads", "384"}, []string{"--threads 384", "power of two"}},
		{"duplicate fold", []string{"explore", "vec-copy", "--folds", "1,1,1:1,1,1"}, []string{"appears twice"}},
		{"zero workers", []string{"explore", "vec-copy", "--workers", "0"}, []string{"--workers 0"}},
		{"missing device file", []string{"devices", "--device-file", "testdata/no-such-device.yaml"}, []string{"no-such-device.yaml"}},
		{"project without profile", []string{"project", "--from", "V100", "--to", "H100-SXM"}, []string{"profile"}},
		{"project with unknown device", []string{"project", "--profile", "testdata/profiles/dram-only.json", "--from", "V100", "--to", "X1"}, []string{`unknown device "X1"`}},
		{"project block without spec", []string{"project", "--profile", "testdata/profiles/dram-only.json", "--from", "V100", "--to", "H100-SXM", "--block", "64"}, []string{"--block needs --spec"}},
		{"completion for an unknown shell", []string{"completion", "fish"}, []string{"bash or zsh"}},
		{"merge without files", []string{"merge"}, []string{"shard files"}},
		{"shared memory beyond the device", []string{"predict", "testdata/specs/huge-shared.yaml"}, []string{"no block of 256 threads fits on an SM: shared memory", "shared_bytes"}},
		{"endless spec file", []string{"predict", "/dev/zero"}, []string{"/dev/zero", "larger than 2 MiB"}},
		{"endless device file", []string{"devices", "--device-file", "/dev/zero"}, []string{"/dev/zero", "larger than 1 MiB"}},
		{"endless shard file", []string{"merge", "/dev/zero"}, []string{"/dev/zero", "not an explore --shard output"}},
		{"counting work bound", []string{"predict", "star3d-r4", "--max-work", "1000"}, []string{"block 256,1,2 fold 1,1,1", "--max-work", "1000 units"}},
		{"max-work not positive", []string{"predict", "--max-work", "0"}, []string{"--max-work 0"}},
		{"raw map without expressions", []string{"predict", "testdata/specs/raw-varying.yaml"}, []string{"raw-varying.yaml:9:9:", `field "A" load_isl[0]`, "cannot be turned into index expressions", "not the same offsets from the first one at every point"}},
		{"raw map without expressions, simulate", []string{"simulate", "testdata/specs/raw-varying.yaml"}, []string{`field "A" load_isl[0]`}},
		{"raw map parameters unbound", []string{"predict", "testdata/specs/raw-unbound.yaml"}, []string{"raw-unbound.yaml:8:9:", `field "A" load_isl[0]`, "parameters N, M are not bound", "-D NAME=VALUE"}},
		{"import flags with a plain spec", []string{"predict", "testdata/specs/raw-params.yaml", "--statement", "S"}, []string{"--statement", "a polyvol spec has nothing to import"}},
		{"raw map guard over two coordinates excludes points", []string{"predict", "testdata/specs/raw-guard.yaml"}, []string{"raw-guard.yaml:11:9:", `field "A" load_isl[0]`, "x + y - 1 >= 0 bounds more than one coordinate", "does not hold on the whole domain 64x64x1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := run(t, tc.args...)
			if code != ExitUsage {
				t.Errorf("exit %d, want %d; stderr %q", code, ExitUsage, errOut)
			}
			if out != "" {
				t.Errorf("stdout not empty: %q", out)
			}
			if strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, "polyvol: ") {
				t.Errorf("stderr is not one line starting with \"polyvol: \": %q", errOut)
			}
			for _, w := range tc.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr %q lacks %q", errOut, w)
				}
			}
		})
	}
}

// TestRawMapsWorkEverywhere checks that a spec written with raw ISL maps,
// one of them a range of elements per thread, runs in every command that
// takes a spec.
func TestRawMapsWorkEverywhere(t *testing.T) {
	spec := "testdata/specs/raw-range.yaml"
	for _, args := range [][]string{
		{"predict", "testdata/specs/raw-domain.yaml", "--block", "64,4,1"},
		{"predict", spec, "--block", "64,4,1"},
		{"explore", spec, "--top", "2"},
		{"layercond", spec, "--block", "64,4,1"},
		{"simulate", spec, "--block", "64,4,1"},
		{"cuda", spec, "--block", "64,4,1"},
	} {
		out, errOut, code := run(t, args...)
		if code != ExitOK || out == "" {
			t.Errorf("%v: exit %d, stderr %q", args, code, errOut)
		}
	}
}

// TestRawMapParametersEqualGuardedTwin checks that a raw map's parameter,
// bound by the spec's params or by -D over it, makes the same partial
// access as the spec written with an index expression and its condition.
func TestRawMapParametersEqualGuardedTwin(t *testing.T) {
	twin := func(n int) string {
		path := filepath.Join(t.TempDir(), "twin.yaml")
		spec := fmt.Sprintf("name: raw-params\ndomain: [64, 64]\nfields:\n  - name: A\n    element: 8\n    load:\n      - {at: [x, y], if: \"x < %d\"}\n", n)
		if err := os.WriteFile(path, []byte(spec), 0o644); err != nil {
			t.Fatal(err)
		}
		return mustRun(t, "predict", path, "--block", "32,4,1", "--format", "json")
	}
	volumes := func(out string) string {
		var rep struct{ Derived json.RawMessage }
		if err := json.Unmarshal([]byte(out), &rep); err != nil || len(rep.Derived) == 0 {
			t.Fatalf("%v: %s", err, out)
		}
		return string(rep.Derived)
	}
	for _, c := range []struct {
		args []string
		n    int
	}{
		{nil, 48},
		{[]string{"-D", "N=20"}, 20},
	} {
		got := mustRun(t, append([]string{"predict", "testdata/specs/raw-params.yaml", "--block", "32,4,1", "--format", "json"}, c.args...)...)
		if volumes(got) != volumes(twin(c.n)) {
			t.Errorf("%v: the raw map differs from its twin with x < %d:\n %s\n %s", c.args, c.n, volumes(got), volumes(twin(c.n)))
		}
	}
}

// TestEstimateErrorClasses checks that an estimate exceeding the counting
// work bound is a usage error naming the configuration and the flag that
// raises the bound, and that other engine failures are internal.
func TestEstimateErrorClasses(t *testing.T) {
	l := kernel.Launch{Block: [3]int64{32, 4, 2}, Fold: [3]int64{1, 1, 2}}
	err := request.EstimateError(l, fmt.Errorf("counting: %w", footprint.ErrWorkBound))
	var ue *UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "block 32,4,2 fold 1,1,2") || !strings.Contains(err.Error(), "--max-work") {
		t.Errorf("work bound: %v (usage error: %v)", err, errors.As(err, &ue))
	}
	if err := request.EstimateError(l, errors.New("boom")); errors.As(err, &ue) {
		t.Errorf("internal failure classified as usage error: %v", err)
	}
}

// TestHelpHasExamples checks that every command's help shows an example.
func TestHelpHasExamples(t *testing.T) {
	for _, c := range commands() {
		if c.Name == "help" {
			continue
		}
		t.Run(c.Name, func(t *testing.T) {
			out := mustRun(t, c.Name, "--help")
			if !strings.Contains(out, "Example") || !strings.Contains(out, "polyvol "+c.Name) {
				t.Errorf("help of %s has no example:\n%s", c.Name, out)
			}
		})
	}
}

// TestSpecFromStdin checks that "-" as SPEC reads the spec from standard
// input: the embedded star3d-r1's text piped in predicts exactly what the
// example's name does, and an error in piped text names <stdin>.
func TestSpecFromStdin(t *testing.T) {
	text, err := examples.FS.ReadFile("star3d-r1.yaml")
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"polyvol", "predict", "-", "--device", "V100", "--block", "64,4,2", "--format", "json"}
	var out, errOut bytes.Buffer
	if code := RunWithInput(args, bytes.NewReader(text), &out, &errOut); code != ExitOK {
		t.Fatalf("predict -: exit %d, stderr %q", code, errOut.String())
	}
	byName := mustRun(t, "predict", "star3d-r1", "--device", "V100", "--block", "64,4,2", "--format", "json")
	if out.String() != byName {
		t.Errorf("predict - differs from predict star3d-r1:\n%s", firstDiff(byName, out.String()))
	}
	out.Reset()
	errOut.Reset()
	code := RunWithInput([]string{"polyvol", "predict", "-"}, strings.NewReader("name: x\nfields: [\n"), &out, &errOut)
	if code != ExitUsage || !strings.HasPrefix(errOut.String(), "polyvol: <stdin>") || out.Len() != 0 {
		t.Errorf("bad spec on stdin: exit %d, stdout %q, stderr %q; want exit 2, no output, an error naming <stdin>", code, out.String(), errOut.String())
	}
}

// TestFieldsLayout checks --fields: auto keeps star3d-r4's two fields in
// columns and turns lbm-d3q19-pull's 38 into rows, so that no line is much
// wider than fieldsWidth; rows carry the same cells as the columns, and
// none leaves the per-field shares out.
func TestFieldsLayout(t *testing.T) {
	cols := mustRun(t, "predict", "star3d-r4", "--fields", "auto")
	if !strings.Contains(cols, "  volume (B/Lup)      total       A  B (store)\n") {
		t.Fatalf("star3d-r4 auto: no per-field columns:\n%s", cols)
	}
	rows := mustRun(t, "predict", "star3d-r4", "--fields", "rows")
	// The A column of the column layout, read top to bottom, is A's row.
	var aColumn []string
	in := false
	for _, line := range strings.Split(cols, "\n") {
		switch {
		case strings.HasPrefix(line, "  volume (B/Lup)"), strings.HasPrefix(line, "  L1 cycles per Lup"):
			in = true
		case line == "":
			in = false
		case in:
			f := strings.Fields(line)
			aColumn = append(aColumn, f[len(f)-2])
		}
	}
	var aRows []string
	for _, line := range strings.Split(rows, "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[0] == "A" {
			aRows = append(aRows, f[1:]...)
		}
	}
	if len(aColumn) != 14 || strings.Join(aColumn, " ") != strings.Join(aRows, " ") {
		t.Errorf("field A: columns %v, rows %v", aColumn, aRows)
	}
	wide := mustRun(t, "predict", "lbm-d3q19-pull")
	if !strings.Contains(wide, "\n  src_f00 ") {
		t.Errorf("lbm-d3q19-pull auto: no per-field rows:\n%s", wide)
	}
	for _, line := range strings.Split(wide, "\n") {
		if len(line) > fieldsWidth+10 {
			t.Errorf("lbm-d3q19-pull auto: line of %d characters: %q", len(line), line)
		}
	}
	if none := mustRun(t, "predict", "lbm-d3q19-pull", "--fields", "none"); strings.Contains(none, "src_f00") {
		t.Errorf("--fields none shows fields:\n%s", none)
	}
}

// TestPredictPartialRawMaps checks that raw maps whose stated iteration
// domain is smaller than --domain become partial accesses, named in a
// note with the share of the domain where they apply.
func TestPredictPartialRawMaps(t *testing.T) {
	out, errOut, code := run(t, "predict", "testdata/specs/raw-domain.yaml", "--domain", "512,64,8")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"polyvol: note: partial accesses:", "A[i + 1, j, k] : 0 <= i <= 255", "on 50 % of the domain"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if !strings.Contains(out, "prediction:") {
		t.Errorf("no prediction:\n%s", out)
	}
}
