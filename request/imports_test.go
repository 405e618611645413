package request

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/polyvol/polyvol/importer"
	"github.com/polyvol/polyvol/supervise"
)

// importOutcome renders what an import gives: the YAML, notes and launch
// of each kernel and whether it parsed, or the error, with the names an
// unbound-parameter error carries.
func importOutcome(path string, data []byte, region bool, opt importer.Options) string {
	var b bytes.Buffer
	var results []*importer.Result
	var err error
	if region {
		var reg *importer.Region
		if reg, err = ImportRegion(data, path, opt); err == nil {
			fmt.Fprintf(&b, "region %s notes %q\n", reg.Name, reg.Notes)
			for _, s := range reg.Statements {
				fmt.Fprintf(&b, "statement %s skip %q\n", s.Name, s.Skip)
				if s.Result != nil {
					results = append(results, s.Result)
				}
			}
		}
	} else {
		var res *importer.Result
		format := InputFormat(path, data)
		if res, err = ImportText(format, data, path, opt); err == nil {
			results = append(results, res)
		}
	}
	if err != nil {
		var ue *importer.UnboundError
		errors.As(err, &ue)
		return fmt.Sprintf("error %v; unbound %v", err, ue)
	}
	for _, r := range results {
		fmt.Fprintf(&b, "%s\nnotes %q launch %v kernel %v\n", r.YAML(), r.Notes, r.Launch, r.Kernel != nil && len(r.Kernel.Fields) > 0)
	}
	return b.String()
}

// TestImportInWorkerEqualsImport imports every example of
// examples/polyhedral, each JSCoP also as a region and without its
// parameters bound, in this process and in a worker: the specs, notes,
// launches and errors agree exactly, and every kernel parses.
func TestImportInWorkerEqualsImport(t *testing.T) {
	paths, err := filepath.Glob("../examples/polyhedral/*")
	if err != nil {
		t.Fatal(err)
	}
	paths = slices.DeleteFunc(paths, func(p string) bool { return filepath.Ext(p) == ".md" })
	if len(paths) < 8 {
		t.Fatalf("%d examples, want the 8 of examples/polyhedral", len(paths))
	}
	type run struct {
		path   string
		region bool
		opt    importer.Options
	}
	var runs []run
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		// Bind every name that the import finds unbound.
		params := importer.Options{Params: map[string]int64{}}
		if _, err := ImportText(InputFormat(p, data), data, p, importer.Options{}); err != nil {
			var ue *importer.UnboundError
			if !errors.As(err, &ue) {
				t.Fatalf("%s: %v", p, err)
			}
			for _, n := range ue.Names() {
				params.Params[n] = 256
			}
		}
		runs = append(runs, run{p, false, params}, run{p, false, importer.Options{}})
		if IsJSCoPName(p) {
			runs = append(runs, run{p, true, params})
		}
	}
	var want []string
	for _, r := range runs {
		data, err := os.ReadFile(r.path)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, importOutcome(r.path, data, r.region, r.opt))
	}
	if !supervise.EnableWorkers() {
		t.Fatal("workers could not be enabled")
	}
	defer supervise.DisableWorkers()
	imported := 0
	for i, r := range runs {
		data, _ := os.ReadFile(r.path)
		got := importOutcome(r.path, data, r.region, r.opt)
		if got != want[i] {
			t.Errorf("%s (region %v, %v):\n in a worker %s\n in process  %s", r.path, r.region, r.opt.Params, got, want[i])
		}
		if bytes.Contains([]byte(got), []byte("kernel true")) {
			imported++
		}
	}
	if imported < 8 {
		t.Errorf("%d imports made a kernel, want at least 8", imported)
	}
}
