package importer_test

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/polyvol/polyvol/importer"
	"github.com/polyvol/polyvol/importer/jscop"
	"github.com/polyvol/polyvol/importer/kerncraft"
	"github.com/polyvol/polyvol/isl"
	"github.com/polyvol/polyvol/procmem"
)

// hygieneImport is one input of the hygiene runs: a front end's Import, a
// document and the options.
type hygieneImport struct {
	name string
	run  func([]byte, string, importer.Options) (*importer.Result, error)
	data []byte
	opt  importer.Options
}

// hygieneImports lists the inputs the hygiene runs cycle through: the
// JSCoP and Kerncraft examples of examples/polyhedral with the constants of
// their README, and with a constant left unbound, and the fuzz corpora of
// both front ends, most of which are malformed, so that the error paths
// are exercised too. want is how many of them import.
func hygieneImports(t testing.TB) (imports []hygieneImport, want int) {
	t.Helper()
	read := func(path string) []byte {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	params := func(kv ...any) importer.Options {
		p := map[string]int64{}
		for i := 0; i < len(kv); i += 2 {
			p[kv[i].(string)] = int64(kv[i+1].(int))
		}
		return importer.Options{Params: p}
	}
	dir := filepath.Join("..", "examples", "polyhedral")
	imports = []hygieneImport{
		{"star2d-5pt.jscop", jscop.Import, read(filepath.Join(dir, "star2d-5pt.jscop")), params("N", 4096)},
		{"lbm-d3q19-aos.jscop", jscop.Import, read(filepath.Join(dir, "lbm-d3q19-aos.jscop")), params("N", 256)},
		{"star3d-7pt.yml", kerncraft.Import, read(filepath.Join(dir, "star3d-7pt.yml")), params("M", 514, "N", 514)},
	}
	want = len(imports)
	imports = append(imports,
		hygieneImport{"star2d-5pt.jscop unbound", jscop.Import, imports[0].data, params()},
		hygieneImport{"star3d-7pt.yml unbound", kerncraft.Import, imports[2].data, params("M", 514)},
	)
	for _, fe := range []struct {
		dir    string
		run    func([]byte, string, importer.Options) (*importer.Result, error)
		params importer.Options
	}{
		{filepath.Join("jscop", "testdata", "fuzz", "FuzzImportJSCoP"), jscop.Import, params("N", 64, "M", 3)},
		{filepath.Join("kerncraft", "testdata", "fuzz", "FuzzImportKerncraft"), kerncraft.Import, params("N", 64, "M", 100)},
	} {
		paths, err := filepath.Glob(filepath.Join(fe.dir, "*"))
		if err != nil || len(paths) == 0 {
			t.Fatalf("no fuzz corpus in %s: %v", fe.dir, err)
		}
		for _, p := range paths {
			data, statement := fuzzCorpusEntry(t, p)
			opt := fe.params
			opt.Statement = statement
			imports = append(imports, hygieneImport{p, fe.run, data, opt})
		}
	}
	return imports, want
}

// fuzzCorpusEntry reads a file of a Go fuzz corpus ("go test fuzz v1",
// then one value per line) whose values are the document ([]byte) and,
// for JSCoP, the statement (string).
func fuzzCorpusEntry(t testing.TB, path string) (data []byte, statement string) {
	t.Helper()
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(text)), "\n")
	if len(lines) < 2 || lines[0] != "go test fuzz v1" {
		t.Fatalf("%s: not a Go fuzz corpus file", path)
	}
	for _, line := range lines[1:] {
		var err error
		switch {
		case strings.HasPrefix(line, "[]byte(") && strings.HasSuffix(line, ")"):
			var s string
			s, err = strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(line, "[]byte("), ")"))
			data = []byte(s)
		case strings.HasPrefix(line, "string(") && strings.HasSuffix(line, ")"):
			statement, err = strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(line, "string("), ")"))
		default:
			err = errors.New("unexpected value")
		}
		if err != nil {
			t.Fatalf("%s: %q: %v", path, line, err)
		}
	}
	return data, statement
}

// hygieneFigures are the measurements of a hygiene run.
type hygieneFigures struct {
	procmem.Run
	imported, failed int // imports that succeeded and failed
}

// runHygiene runs n imports, cycling through the inputs, and checks after
// each that no ISL object is left live and that every error is an
// *importer.Error; it measures the resident set at the start, after the
// first half and after the second.
func runHygiene(t testing.TB, n int) hygieneFigures {
	t.Helper()
	// One OS thread makes every C allocation of the run come from one
	// malloc arena: otherwise the arenas of the threads cgo calls happen
	// to run on grow the resident set for thousands of runs before it
	// levels off, which would hide a leak or feign one.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	inputs, want := hygieneImports(t)
	if live := isl.LiveObjects(); live != 0 {
		t.Fatalf("%d ISL objects live before the first import", live)
	}
	var fig hygieneFigures
	fig.Start = procmem.Settled()
	for i := range n {
		in := inputs[i%len(inputs)]
		res, err := in.run(in.data, "hygiene", in.opt)
		var ie *importer.Error
		switch {
		case i%len(inputs) < want && (err != nil || res == nil):
			t.Fatalf("import %d, %s: %v", i, in.name, err)
		case err != nil && !errors.As(err, &ie):
			t.Fatalf("import %d, %s: error %T is not an *importer.Error: %v", i, in.name, err, err)
		case err != nil:
			fig.failed++
		default:
			fig.imported++
		}
		if live := isl.LiveObjects(); live != 0 {
			t.Fatalf("import %d, %s: %d ISL objects live after it, want 0", i, in.name, live)
		}
		if i == max(n/2, 1)-1 {
			fig.Middle = procmem.Settled()
		}
	}
	fig.End = procmem.Settled()
	return fig
}

// TestImportHygiene runs 100 imports of the JSCoP and Kerncraft examples
// and fuzz corpora: no ISL object may outlive its import, and the resident
// set may not grow by more than 10 % from the first half to the second.
func TestImportHygiene(t *testing.T) {
	fig := runHygiene(t, 100)
	t.Logf("%d imported, %d failed; VmRSS %d KiB at the start, %d KiB after 50 imports, %d KiB after 100", fig.imported, fig.failed, fig.Start>>10, fig.Middle>>10, fig.End>>10)
	if fig.imported == 0 || fig.failed == 0 {
		t.Errorf("%d imports succeeded and %d failed, want some of each", fig.imported, fig.failed)
	}
	if err := fig.CheckFlat(0.1); err != nil {
		t.Error(err)
	}
}

// BenchmarkImportHygiene is the long form of TestImportHygiene: b.N
// imports (10^3 with -benchtime 1000x), with the same checks, reporting
// the resident set at the start, middle and end in KiB.
func BenchmarkImportHygiene(b *testing.B) {
	fig := runHygiene(b, b.N)
	b.ReportMetric(float64(fig.Start>>10), "rss-start-KiB")
	b.ReportMetric(float64(fig.Middle>>10), "rss-middle-KiB")
	b.ReportMetric(float64(fig.End>>10), "rss-end-KiB")
	b.ReportMetric(float64(isl.LiveObjects()), "isl-live-end")
	b.Logf("%d imports (%d imported, %d failed): VmRSS %d KiB at the start, %d KiB after the first half, %d KiB at the end; %d ISL objects live", b.N, fig.imported, fig.failed, fig.Start>>10, fig.Middle>>10, fig.End>>10, isl.LiveObjects())
	if b.N >= 100 {
		if err := fig.CheckFlat(0.1); err != nil {
			b.Error(err)
		}
	}
}
