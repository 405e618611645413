package cli

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/footprint"
	"github.com/polyvol/polyvol/importer"
	"github.com/polyvol/polyvol/importer/jscop"
	"github.com/polyvol/polyvol/model"
	"github.com/polyvol/polyvol/request"
	"go.yaml.in/yaml/v3"
)

// initStencil is a region of four statements: an init loop nest, a loop
// that touches only a scalar, a 5-point stencil, and a statement with no
// loop.
const initStencil = "testdata/jscop/init-stencil.jscop"

// TestStatementAllImport checks import --statement all: one YAML document
// per kernel, each the spec that --statement NAME imports but for its
// name, the JSON list, and one note per skipped statement with its reason.
func TestStatementAllImport(t *testing.T) {
	out, stderr, code := run(t, "import", "jscop", initStencil, "--statement", "all", "-D", "n=64")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	docs := strings.Split(out, "\n---\n")
	if len(docs) != 2 {
		t.Fatalf("%d YAML documents, want 2:\n%s", len(docs), out)
	}
	for i, name := range []string{"Stmt_init", "Stmt_stencil"} {
		var spec struct{ Name string }
		if err := yaml.Unmarshal([]byte(docs[i]), &spec); err != nil {
			t.Fatalf("document %d: %v", i, err)
		}
		if want := "init-stencil." + name; spec.Name != want {
			t.Errorf("document %d: name %q, want %q", i, spec.Name, want)
		}
		alone := mustRun(t, "import", "jscop", initStencil, "--statement", name, "-D", "n=64")
		if got := strings.Replace(docs[i], "name: init-stencil."+name+"\n", "name: init-stencil\n", 1); strings.TrimSuffix(got, "\n")+"\n" != alone {
			t.Errorf("%s: the region's document differs from the statement's alone:\n%s\n%s", name, docs[i], alone)
		}
	}
	notes := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	for _, want := range []string{
		"polyvol: note: " + initStencil + ": statement Stmt_count skipped: only scalars: it touches no array in memory, only MemRef_count__phi, which Polly keeps in registers",
		"polyvol: note: " + initStencil + ": statement Stmt_exit skipped: no loop: its domain is a single point, which runs once",
	} {
		n := 0
		for _, l := range notes {
			if l == want {
				n++
			}
		}
		if n != 1 {
			t.Errorf("note %q %d times in stderr:\n%s", want, n, stderr)
		}
	}
	var specs []map[string]any
	if err := json.Unmarshal([]byte(mustRun(t, "import", "jscop", initStencil, "--statement", "all", "-D", "n=64", "--format", "json")), &specs); err != nil {
		t.Fatal(err)
	}
	if len(specs) != 2 || specs[0]["name"] != "init-stencil.Stmt_init" || specs[1]["name"] != "init-stencil.Stmt_stencil" {
		t.Errorf("JSON list %v", specs)
	}
	path := filepath.Join(t.TempDir(), "region.yaml")
	if o := mustRun(t, "import", "jscop", initStencil, "--statement", "all", "-D", "n=64", "--name", "heat", "-o", path); o != "" {
		t.Errorf("-o: stdout %q", o)
	}
	if data, err := os.ReadFile(path); err != nil || !strings.Contains(string(data), "name: heat.Stmt_stencil") || strings.Count(string(data), "\n---\n") != 1 {
		t.Errorf("-o file %q, %v", data, err)
	}
}

// regionJSON is the part of predict --statement all --format json that
// the tests read.
type regionJSON struct {
	Kernels []struct {
		Statement string             `json:"statement"`
		LupCount  int64              `json:"lupCount"`
		Seconds   float64            `json:"seconds"`
		Bytes     map[string]float64 `json:"bytes"`
	} `json:"kernels"`
	Skipped []struct {
		Statement string `json:"statement"`
		Reason    string `json:"reason"`
	} `json:"skipped"`
	Total struct {
		Kernels  int                `json:"kernels"`
		LupCount int64              `json:"lupCount"`
		Seconds  float64            `json:"seconds"`
		Bytes    map[string]float64 `json:"bytes"`
	} `json:"total"`
}

// TestStatementAllPredictSums checks predict --statement all against the
// statements predicted one by one with --statement NAME: the region's
// bytes per volume are the sums of each statement's volume (B/Lup) times
// its lattice updates, its time the sum of lattice updates / GLup/s.
func TestStatementAllPredictSums(t *testing.T) {
	flags := []string{"-D", "n=256", "--device", "H100-SXM"}
	var reg regionJSON
	if err := json.Unmarshal([]byte(mustRun(t, append([]string{"predict", initStencil, "--statement", "all", "--format", "json"}, flags...)...)), &reg); err != nil {
		t.Fatal(err)
	}
	if len(reg.Kernels) != 2 || reg.Total.Kernels != 2 || len(reg.Skipped) != 2 {
		t.Fatalf("kernels %d, total %d, skipped %d", len(reg.Kernels), reg.Total.Kernels, len(reg.Skipped))
	}
	if reg.Skipped[0].Statement != "Stmt_count" || !strings.HasPrefix(reg.Skipped[0].Reason, "only scalars") || reg.Skipped[1].Statement != "Stmt_exit" || !strings.HasPrefix(reg.Skipped[1].Reason, "no loop") {
		t.Errorf("skipped %+v", reg.Skipped)
	}
	keys := []string{"L1Load", "L2LoadV1", "L2LoadV2", "L2Store", "memLoadV1", "memLoadV2", "memLoadV3", "memLoadV4", "memStoreV1", "memStoreV2"}
	sumBytes := map[string]float64{}
	var sumSeconds float64
	var sumLups int64
	for i, name := range []string{"Stmt_init", "Stmt_stencil"} {
		var r model.Report
		if err := json.Unmarshal([]byte(mustRun(t, append([]string{"predict", initStencil, "--statement", name, "--format", "json"}, flags...)...)), &r); err != nil {
			t.Fatal(err)
		}
		derived, err := json.Marshal(r.Derived)
		if err != nil {
			t.Fatal(err)
		}
		var perLup map[string]any
		if err := json.Unmarshal(derived, &perLup); err != nil {
			t.Fatal(err)
		}
		lups := r.Launch.LupCount
		k := reg.Kernels[i]
		if k.Statement != name || k.LupCount != lups {
			t.Errorf("kernel %d: %s with %d Lups, want %s with %d", i, k.Statement, k.LupCount, name, lups)
		}
		for _, key := range keys {
			v, ok := perLup[key].(float64)
			if !ok {
				t.Fatalf("%s: no volume %s in the report", name, key)
			}
			sumBytes[key] += v * float64(lups)
			if !near(k.Bytes[key], v*float64(lups)) {
				t.Errorf("%s %s: %g bytes, want %g B/Lup x %d Lups", name, key, k.Bytes[key], v, lups)
			}
		}
		sumSeconds += float64(lups) / (r.Prediction.GLups * 1e9)
		sumLups += lups
	}
	if reg.Total.LupCount != sumLups || !near(reg.Total.Seconds, sumSeconds) {
		t.Errorf("total %d Lups in %g s, want %d in %g s", reg.Total.LupCount, reg.Total.Seconds, sumLups, sumSeconds)
	}
	for _, key := range keys {
		if !near(reg.Total.Bytes[key], sumBytes[key]) {
			t.Errorf("total %s: %g bytes, want %g", key, reg.Total.Bytes[key], sumBytes[key])
		}
	}
	if sumBytes["memStoreV2"] < 8*256*256 {
		t.Errorf("DRAM stores %g bytes: fewer than the init statement's 256 x 256 doubles", sumBytes["memStoreV2"])
	}

	// The table: each statement's report under its name, the sums, the
	// total line; --quiet: the prediction lines and the total line.
	out := mustRun(t, append([]string{"predict", initStencil, "--statement", "all"}, flags...)...)
	for _, want := range []string{"statement Stmt_init (kernel 1 of 2)\n", "statement Stmt_stencil (kernel 2 of 2)\n", "\nprediction: ", "skipped Stmt_count, Stmt_exit", "time (µs)", "DRAM store V2", "\ntotal: 2 kernels, "} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	quiet := mustRun(t, append([]string{"predict", initStencil, "--statement", "all", "--quiet"}, flags...)...)
	lines := strings.Split(strings.TrimSuffix(quiet, "\n"), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "statement Stmt_init: prediction: ") || !strings.HasPrefix(lines[1], "statement Stmt_stencil: prediction: ") || !strings.HasPrefix(lines[2], "total: 2 kernels, ") {
		t.Errorf("--quiet:\n%s", quiet)
	}
	csv := mustRun(t, append([]string{"predict", initStencil, "--statement", "all", "--format", "csv"}, flags...)...)
	if rows := strings.Split(strings.TrimSuffix(csv, "\n"), "\n"); len(rows) != 3 || !strings.HasPrefix(rows[1], "init-stencil.Stmt_init,") || !strings.HasPrefix(rows[2], "init-stencil.Stmt_stencil,") {
		t.Errorf("--format csv:\n%s", csv)
	}
}

// near reports whether a and b agree to 1e-9 relative.
func near(a, b float64) bool {
	return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b))
}

// TestStatementAllRefused checks the refusals of --statement all: each a
// usage error on one line that says what to do.
func TestStatementAllRefused(t *testing.T) {
	dir := t.TempDir()
	scalars := filepath.Join(dir, "scalars.jscop")
	doc := `{"arrays": [], "context": "{ : }", "name": "%a---%b", "statements": [
 {"name": "Stmt_s", "domain": "{ Stmt_s[i0] : 0 <= i0 < 8 }", "accesses": [{"kind": "write", "relation": "{ Stmt_s[i0] -> MemRef_s[] }"}]}]}`
	if err := os.WriteFile(scalars, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"predict", "star2d-r1", "--statement", "all"}, "--statement all reads a JSCoP file"},
		{[]string{"predict", "--statement", "all"}, "--statement all needs a JSCoP SPEC"},
		{[]string{"predict", initStencil, "--statement", "all", "-D", "n=64", "--domain", "8,8,1"}, "size the region with -D"},
		{[]string{"predict", initStencil, "--statement", "all"}, "parameter n is unbound"},
		{[]string{"explore", initStencil, "--statement", "all", "-D", "n=64"}, "--statement all models every statement"},
		{[]string{"import", "kerncraft", polyhedral + "star3d-7pt.yml", "--statement", "all", "-D", "M=8", "-D", "N=8"}, "a Kerncraft description has one statement"},
		{[]string{"import", "jscop", scalars, "--statement", "all"}, "no statement of the region is a kernel polyvol models (Stmt_s: only scalars"},
		{[]string{"import", "jscop", initStencil, "-D", "n=64"}, "choose one with --statement, or --statement all for the whole region"},
	} {
		out, stderr, code := run(t, tc.args...)
		if code != ExitUsage || out != "" || strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "polyvol: ") || !strings.Contains(stderr, tc.want) {
			t.Errorf("polyvol %s: exit %d, stdout %q, stderr %q; want exit 2 and one line with %q", strings.Join(tc.args, " "), code, out, stderr, tc.want)
		}
	}
}

// TestStatementAllBounds checks the bounds on a region's work: a JSCoP
// of 3,000 statements is refused by import and predict before any is read
// (--max-statements moves the bound), and predict charges the counting
// work of all statements to one --max-work, which refuses a region whose
// statements each fit alone.
func TestStatementAllBounds(t *testing.T) {
	dir := t.TempDir()
	many := filepath.Join(dir, "many.jscop")
	stmts := make([]string, 3000)
	for i := range stmts {
		stmts[i] = fmt.Sprintf(`{"name": "S%d", "domain": "[n] -> { S%d[i0] : 0 <= i0 < n }", "accesses": [{"kind": "read", "relation": "[n] -> { S%d[i0] -> MemRef_A[i0] }"}, {"kind": "write", "relation": "[n] -> { S%d[i0] -> MemRef_B[i0] }"}]}`, i, i, i, i)
	}
	doc := `{"arrays": [{"name": "MemRef_A", "sizes": ["*"], "type": "double"}, {"name": "MemRef_B", "sizes": ["*"], "type": "double"}], "context": "[n] -> { : n > 0 }", "statements": [` + strings.Join(stmts, ",\n") + `]}`
	if err := os.WriteFile(many, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	refused := func(args []string, want ...string) {
		t.Helper()
		out, stderr, code := run(t, args...)
		ok := code == ExitUsage && out == "" && strings.Count(stderr, "\n") == 1 && strings.HasPrefix(stderr, "polyvol: ")
		for _, w := range want {
			ok = ok && strings.Contains(stderr, w)
		}
		if !ok {
			t.Errorf("polyvol %s: exit %d, stdout %q, stderr %q; want exit 2 and one line with %q", strings.Join(args, " "), code, out, stderr, want)
		}
	}
	tooMany := fmt.Sprintf("polyvol: %s:1:", many)
	refused([]string{"predict", many, "--statement", "all", "-D", "n=4096"}, tooMany, "3000 statements, more than the 128 that --max-statements allows")
	refused([]string{"import", "jscop", many, "--statement", "all", "-D", "n=4096"}, tooMany, "3000 statements, more than the 128 that --max-statements allows")
	refused([]string{"import", "jscop", initStencil, "--statement", "all", "-D", "n=64", "--max-statements", "1"}, "4 statements, more than the 1 that --max-statements allows")
	refused([]string{"import", "jscop", initStencil, "--statement", "all", "-D", "n=64", "--max-statements", "0"}, "--max-statements 0: expected a positive number")
	if _, stderr, code := run(t, "import", "jscop", initStencil, "--statement", "all", "-D", "n=64", "--max-statements", "4"); code != ExitOK {
		t.Errorf("four statements under --max-statements 4: exit %d: %s", code, stderr)
	}

	// The counting work of each kernel of the region, estimated as predict
	// estimates it.
	data, err := os.ReadFile(initStencil)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := jscop.ImportRegion(data, initStencil, importer.Options{Params: map[string]int64{"n": 64}, Statement: importer.AllStatements})
	if err != nil {
		t.Fatal(err)
	}
	dev, err := device.Lookup(request.DefaultDevice)
	if err != nil {
		t.Fatal(err)
	}
	var most, sum int64
	for _, s := range reg.Kernels() {
		k := s.Result.Kernel
		b := &footprint.Budget{}
		if _, err := model.Estimate(k, k.NewLaunch(request.DefaultBlock(k), [3]int64{1, 1, 1}), dev, model.Options{Budget: b}); err != nil {
			t.Fatal(err)
		}
		most, sum = max(most, b.Used()), sum+b.Used()
	}
	if len(reg.Kernels()) != 2 || sum <= most {
		t.Fatalf("%d kernels of work %d together, %d the most: want two that both count", len(reg.Kernels()), sum, most)
	}
	bound := fmt.Sprint(most)
	for _, s := range reg.Kernels() {
		if _, stderr, code := run(t, "predict", initStencil, "--statement", s.Name, "-D", "n=64", "--max-work", bound); code != ExitOK {
			t.Errorf("statement %s alone under --max-work %s: exit %d: %s", s.Name, bound, code, stderr)
		}
	}
	refused([]string{"predict", initStencil, "--statement", "all", "-D", "n=64", "--max-work", bound}, "needs more work than --max-work allows")
	if _, stderr, code := run(t, "predict", initStencil, "--statement", "all", "-D", "n=64", "--max-work", fmt.Sprint(sum)); code != ExitOK {
		t.Errorf("the region under --max-work %d, its work: exit %d: %s", sum, code, stderr)
	}
}

// TestPredictReductionLaunch checks predict on a reduction whose accesses
// all apply at the first or last iteration of the reduction loop (an
// update of A[i0] in a loop over i1): with the default launch no access
// reaches the grid's middle wave, a usage error that says to fold over the
// reduction, and with the import's launch it predicts.
func TestPredictReductionLaunch(t *testing.T) {
	spec := pollyCorpus + "/Isl.Ast.rmsmd___%for.cond---%for.end6.jscop"
	args := []string{"predict", spec, "--element", "8", "-D", "n=1024", "--quiet"}
	out, stderr, code := run(t, args...)
	if code != ExitUsage || out != "" || strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "polyvol: block 256,2,1 fold 1,1,1: no access reaches the grid's middle wave") || !strings.Contains(stderr, "--block and --fold of the import's note") {
		t.Errorf("default launch: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	if out := mustRun(t, append(args, "--block", "256,1", "--fold", "1,1024")...); !strings.HasPrefix(out, "prediction: ") {
		t.Errorf("the import's launch: %q", out)
	}
}
