package jscop

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/polyvol/polyvol/importer"
)

// regionDoc is a region of four statements: an init loop nest, a loop
// that touches only a scalar, a stencil, and a statement with no loop.
const regionDoc = `{
 "arrays": [{"name": "MemRef_A", "sizes": ["*", "%n"], "type": "double"}, {"name": "MemRef_B", "sizes": ["*", "%n"], "type": "double"}],
 "context": "[n] -> {  : n >= 3 }", "name": "%init---%end",
 "statements": [
  {"name": "Stmt_init", "domain": "[n] -> { Stmt_init[i0, i1] : 0 <= i0 < n and 0 <= i1 < n }", "schedule": "[n] -> { Stmt_init[i0, i1] -> [0, i0, i1] }",
   "accesses": [{"kind": "write", "relation": "[n] -> { Stmt_init[i0, i1] -> MemRef_A[i0, i1] }"}]},
  {"name": "Stmt_count", "domain": "[n] -> { Stmt_count[i0] : 0 <= i0 < n }", "schedule": "[n] -> { Stmt_count[i0] -> [1, i0, 0] }",
   "accesses": [{"kind": "read", "relation": "[n] -> { Stmt_count[i0] -> MemRef_count__phi[] }"}, {"kind": "write", "relation": "[n] -> { Stmt_count[i0] -> MemRef_count__phi[] }"}]},
  {"name": "Stmt_stencil", "domain": "[n] -> { Stmt_stencil[i0, i1] : 0 <= i0 <= -3 + n and 0 <= i1 <= -3 + n }", "schedule": "[n] -> { Stmt_stencil[i0, i1] -> [2, i0, i1] }",
   "accesses": [{"kind": "read", "relation": "[n] -> { Stmt_stencil[i0, i1] -> MemRef_A[1 + i0, i1] }"}, {"kind": "read", "relation": "[n] -> { Stmt_stencil[i0, i1] -> MemRef_A[1 + i0, 2 + i1] }"},
                {"kind": "write", "relation": "[n] -> { Stmt_stencil[i0, i1] -> MemRef_B[1 + i0, 1 + i1] }"}]},
  {"name": "Stmt_exit", "domain": "[n] -> { Stmt_exit[] }", "schedule": "[n] -> { Stmt_exit[] -> [3, 0, 0] }",
   "accesses": [{"kind": "write", "relation": "[n] -> { Stmt_exit[] -> MemRef_B[0, 0] }"}]}
 ]}`

// TestImportRegion checks --statement all: every statement in order, the
// kernels the same specs as the statements imported one by one (but for
// the name), and the statements with only scalars or no loop skipped with
// their reasons.
func TestImportRegion(t *testing.T) {
	opt := importer.Options{Params: map[string]int64{"n": 64}, Statement: importer.AllStatements}
	reg, err := ImportRegion([]byte(regionDoc), "region.jscop", opt)
	if err != nil {
		t.Fatal(err)
	}
	if reg.Name != "%init---%end" || reg.File != "region.jscop" {
		t.Errorf("region %q of %q", reg.Name, reg.File)
	}
	var names []string
	for _, s := range reg.Statements {
		names = append(names, s.Name)
	}
	if want := []string{"Stmt_init", "Stmt_count", "Stmt_stencil", "Stmt_exit"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("statements %q, want %q", names, want)
	}
	skips := map[string][]string{
		"Stmt_count": {"only scalars", "MemRef_count__phi"},
		"Stmt_exit":  {"no loop"},
	}
	for _, s := range reg.Statements {
		want, skipped := skips[s.Name]
		if skipped != (s.Result == nil) {
			t.Errorf("%s: result %v, skip %q", s.Name, s.Result != nil, s.Skip)
			continue
		}
		for _, w := range want {
			if !strings.Contains(s.Skip, w) {
				t.Errorf("%s: skip reason %q lacks %q", s.Name, s.Skip, w)
			}
		}
		if skipped {
			continue
		}
		one := opt
		one.Statement = s.Name
		single, err := Import([]byte(regionDoc), "region.jscop", one)
		if err != nil {
			t.Fatalf("%s alone: %v", s.Name, err)
		}
		if got, want := s.Result.Spec.Name, "region."+s.Name; got != want {
			t.Errorf("%s: spec name %q, want %q", s.Name, got, want)
		}
		spec := *s.Result.Spec
		spec.Name = single.Spec.Name
		if !reflect.DeepEqual(&spec, single.Spec) {
			t.Errorf("%s: the region's spec differs from the statement's alone:\n%s\n%s", s.Name, s.Result.YAML(), single.YAML())
		}
	}
	if k := reg.Kernels(); len(k) != 2 || k[0].Name != "Stmt_init" || k[1].Name != "Stmt_stencil" {
		t.Errorf("kernels %+v", k)
	}
	named := opt
	named.Name = "heat"
	reg, err = ImportRegion([]byte(regionDoc), "region.jscop", named)
	if err != nil {
		t.Fatal(err)
	}
	if got := reg.Kernels()[1].Result.Spec.Name; got != "heat.Stmt_stencil" {
		t.Errorf("with a name: spec name %q", got)
	}
}

// TestImportRegionErrors checks the errors of a whole region: a statement
// that cannot be imported fails the region and is named, and Import
// refuses --statement all, which only ImportRegion models.
func TestImportRegionErrors(t *testing.T) {
	opt := importer.Options{Params: map[string]int64{"n": 64}, Statement: importer.AllStatements}
	_, err := Import([]byte(regionDoc), "region.jscop", opt)
	if err == nil || !strings.Contains(err.Error(), "--statement all") || !strings.Contains(err.Error(), "Stmt_init, Stmt_count") {
		t.Errorf("Import with --statement all: %v", err)
	}
	for _, tc := range []struct {
		name, old, new string
		want           []string
	}{
		{"unbound", "", "", []string{"parameter n is unbound", "-D n=VALUE"}},
		{"triangular", "0 <= i0 <= -3 + n and 0 <= i1 <= -3 + n", "0 <= i0 <= -3 + n and 0 <= i1 <= i0", []string{`statement "Stmt_stencil"`, "not a box"}},
		{"twice", `"name": "Stmt_exit"`, `"name": "Stmt_init"`, []string{`statement "Stmt_init"`, "named twice"}},
		{"no statements", regionDoc[strings.Index(regionDoc, `"statements": [`):], `"statements": []}`, []string{"no statements"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := strings.Replace(regionDoc, tc.old, tc.new, 1)
			o := opt
			if tc.name == "unbound" {
				o.Params = nil
			}
			_, err := ImportRegion([]byte(doc), "region.jscop", o)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%v lacks %q", err, w)
				}
			}
		})
	}
}

// manyStatements returns a region of n statements of one loop each,
// named apart, whose domains ISL cannot read: a region refused for
// its count fails before any statement is read, with the count's error
// rather than one about a domain.
func manyStatements(n int) string {
	stmts := make([]string, n)
	for i := range stmts {
		stmts[i] = fmt.Sprintf(`{"name": "S%d", "domain": "{ S%d[i0] : not ISL }", "accesses": [{"kind": "read", "relation": "{ S%d[i0] -> MemRef_A[i0] }"}]}`, i, i, i)
	}
	return `{"arrays": [{"name": "MemRef_A", "sizes": ["*"], "type": "double"}], "statements": [` + strings.Join(stmts, ",\n") + `]}`
}

// TestImportRegionMaxStatements checks the bound on a region's
// statements: 3,000 statements are refused under the
// default bound, before any is read, with ErrTooManyStatements at the
// position of "statements"; MaxStatements moves the bound both ways.
func TestImportRegionMaxStatements(t *testing.T) {
	opt := importer.Options{Statement: importer.AllStatements}
	for _, tc := range []struct {
		n, max int
		want   string
	}{
		{3000, 0, fmt.Sprintf("many.jscop:1:84: statements: 3000 statements, more than the %d that --max-statements allows", importer.DefaultMaxStatements)},
		{importer.DefaultMaxStatements + 1, 0, fmt.Sprintf("%d statements, more than the %d", importer.DefaultMaxStatements+1, importer.DefaultMaxStatements)},
		{5, 4, "5 statements, more than the 4 that --max-statements allows"},
	} {
		o := opt
		o.MaxStatements = tc.max
		_, err := ImportRegion([]byte(manyStatements(tc.n)), "many.jscop", o)
		if !errors.Is(err, importer.ErrTooManyStatements) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%d statements under MaxStatements %d: %v, want ErrTooManyStatements and %q", tc.n, tc.max, err, tc.want)
		}
	}
	// Within the bound the statements are read: the first domain fails.
	for _, o := range []importer.Options{{MaxStatements: 5}, {}} {
		o.Statement = importer.AllStatements
		_, err := ImportRegion([]byte(manyStatements(5)), "many.jscop", o)
		if err == nil || errors.Is(err, importer.ErrTooManyStatements) || !strings.Contains(err.Error(), "S0") {
			t.Errorf("5 statements under MaxStatements %d: %v, want the error of statement S0's domain", o.MaxStatements, err)
		}
	}
}

// FuzzImportRegion checks that ImportRegion never panics, reports every
// failure as an *importer.Error, gives each statement a spec or a reason
// to skip it, and that each spec is the one Import gives the statement
// alone, but for its name.
func FuzzImportRegion(f *testing.F) {
	f.Add([]byte(regionDoc))
	f.Add([]byte(twoStatements))
	f.Add([]byte(`{"arrays": [], "statements": [{"name": "S", "domain": "{ S[] }", "accesses": []}, {"name": "T", "domain": "{ T[i] : 0 <= i < 4 }", "accesses": [{"kind": "read", "relation": "{ T[i] -> MemRef_t[] }"}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		opt := importer.Options{Params: map[string]int64{"n": 64, "N": 64}, Statement: importer.AllStatements}
		reg, err := ImportRegion(data, "fuzz.jscop", opt)
		if err != nil {
			var ie *importer.Error
			if !errors.As(err, &ie) {
				t.Fatalf("error %T is not an *importer.Error: %v", err, err)
			}
			return
		}
		seen := map[string]bool{}
		for _, s := range reg.Statements {
			if seen[s.Name] || (s.Result == nil) == (s.Skip == "") {
				t.Fatalf("statement %q: result %v, skip %q, seen before %v", s.Name, s.Result != nil, s.Skip, seen[s.Name])
			}
			seen[s.Name] = true
			if s.Result == nil || s.Name == importer.AllStatements {
				continue
			}
			one := opt
			one.Statement = s.Name
			single, err := Import(data, "fuzz.jscop", one)
			if err != nil {
				t.Fatalf("statement %q imports in the region but not alone: %v", s.Name, err)
			}
			spec := *s.Result.Spec
			spec.Name = single.Spec.Name
			if !reflect.DeepEqual(&spec, single.Spec) {
				t.Fatalf("statement %q: the region's spec differs from the statement's alone", s.Name)
			}
		}
	})
}
