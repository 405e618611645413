package jscop

import (
	"errors"
	"os"
	"testing"

	"github.com/polyvol/polyvol/importer"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/relation"
)

// FuzzImportJSCoP checks that the JSCoP importer never panics, reports
// every failure as a one-line *importer.Error, and that every spec it
// writes loads again as the kernel it returned.
func FuzzImportJSCoP(f *testing.F) {
	for _, name := range []string{"star2d-5pt.jscop", "lbm-d3q19-aos.jscop"} {
		if data, err := os.ReadFile("../../examples/polyhedral/" + name); err == nil {
			f.Add(data, "")
		}
	}
	f.Add([]byte(twoStatements), "Stmt_body")
	f.Add([]byte(`{"arrays": [{"name": "MemRef_A", "sizes": ["*", "%N"], "type": "double"}], "context": "[N] -> { : N >= 4 }",
 "statements": [{"name": "S", "domain": "[N] -> { S[i, j] : 0 <= i < N and 0 <= j < N }",
   "accesses": [{"kind": "read", "relation": "[N] -> { S[i, j] -> MemRef_A[i, 2j + 1] }"}, {"kind": "write", "relation": "[N] -> { S[i, j] -> MemRef_A[o0, j] : i <= o0 <= i + 2 }"}]}]}`), "")
	f.Add([]byte(`{"arrays": [{"name": "MemRef_f", "sizes": ["*", "(2 + %N)", "9"], "type": "<2 x float>"}], "context": "{ : }",
 "statements": [{"name": "S", "domain": "[N] -> { S[i] : 0 <= i < N }",
   "accesses": [{"kind": "read", "relation": "[N] -> { S[i] -> MemRef_f[1 + i, 4] }"}, {"kind": "read", "relation": "{ S[i] -> MemRef_f[o0, o1] : exists (e: o0 = 2e and i <= o0 <= i + 1 and o1 = i mod 9) }"}]}]}`), "")
	f.Add([]byte(`{"arrays": [], "statements": [{"name": "S", "domain": "{ S[i, j] : 0 <= j <= i < 8 }", "accesses": []}]}`), "")
	f.Add([]byte(`{"statements": []}`), "S")
	f.Fuzz(func(t *testing.T, data []byte, statement string) {
		res, err := Import(data, "fuzz.jscop", importer.Options{Params: map[string]int64{"N": 64, "M": 3}, Statement: statement})
		if err != nil {
			var ie *importer.Error
			if !errors.As(err, &ie) {
				t.Fatalf("error %T is not an *importer.Error: %v", err, err)
			}
			return
		}
		k, err := kernel.Parse(res.YAML(), "fuzz.yaml", relation.Option())
		if err != nil {
			t.Fatalf("the imported spec does not load: %v\n%s", err, res.YAML())
		}
		if k.Domain != res.Kernel.Domain || len(k.Fields) != len(res.Kernel.Fields) {
			t.Fatalf("the spec loads as another kernel")
		}
		if _, err := kernel.Parse(res.JSON(), "fuzz.json", relation.Option()); err != nil {
			t.Fatalf("the JSON spec does not load: %v\n%s", err, res.JSON())
		}
	})
}
