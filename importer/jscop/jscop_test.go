package jscop

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/examples"
	"github.com/polyvol/polyvol/importer"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/lattice"
	"github.com/polyvol/polyvol/model"
)

// typeOf is the LLVM type Polly writes for an element size.
var typeOf = map[int64]string{1: "i8", 2: "half", 4: "float", 8: "double", 16: "fp128"}

// writeJSCoP writes k as Polly would export it: one statement whose domain
// is the lattice shifted by lo (outermost loop first, the innermost one x)
// with its extents as parameters N0, N1, N2, arrays MemRef_<field> with
// their sizes outermost first and a leading "*", and one access relation
// per load and store. A field's alignment offset is added to its innermost
// subscript, which keeps every byte address. It returns the JSCoP and the
// parameter values.
func writeJSCoP(t *testing.T, k *kernel.Kernel, lo [3]int64) (string, map[string]int64) {
	t.Helper()
	n := k.Dims
	coords := []string{"x", "y", "z"}[:n]
	loops := make([]string, n) // outermost first
	for i := range n {
		loops[i] = coords[n-1-i]
	}
	params := map[string]int64{}
	var pnames, cons []string
	for i := range n {
		p := fmt.Sprintf("N%d", i)
		params[p] = k.Domain[i]
		pnames = append(pnames, p)
		cons = append(cons, fmt.Sprintf("%d <= %s < %d + %s", lo[i], coords[i], lo[i], p))
	}
	prefix := "[" + strings.Join(pnames, ", ") + "] -> "
	stmt := "Stmt_for_body"
	tuple := fmt.Sprintf("%s[%s]", stmt, strings.Join(loops, ", "))
	var sub [3]kernel.Expr
	for i := range 3 {
		var err error
		if sub[i], err = kernel.Var(i).Add(kernel.Const(-lo[i])); err != nil {
			t.Fatal(err)
		}
	}
	type access struct {
		Kind     string `json:"kind"`
		Relation string `json:"relation"`
	}
	type array struct {
		Name  string   `json:"name"`
		Sizes []string `json:"sizes"`
		Type  string   `json:"type"`
	}
	var arrays []array
	var accs []access
	for _, f := range k.Fields {
		name := "MemRef_" + f.Name
		sizes := []string{"*"}
		for i := n - 2; i >= 0; i-- {
			sizes = append(sizes, fmt.Sprint(f.Extent[i]))
		}
		arrays = append(arrays, array{name, sizes, typeOf[f.Element]})
		for _, store := range []bool{false, true} {
			for _, a := range f.Accesses(store) {
				subs := make([]string, n)
				for i := range n {
					e, err := a.Index[i].Substitute(sub)
					if err == nil && i == 0 {
						e, err = e.Add(kernel.Const(f.Offset))
					}
					if err != nil {
						t.Fatal(err)
					}
					subs[n-1-i] = e.ISL()
				}
				kind := map[bool]string{false: "read", true: "write"}[store]
				accs = append(accs, access{kind, fmt.Sprintf("%s{ %s -> %s[%s] }", prefix, tuple, name, strings.Join(subs, ", "))})
			}
		}
	}
	doc := map[string]any{
		"name":    "%for.cond---%for.end",
		"context": prefix + "{ : " + strings.Join(pnames, " > 0 and ") + " > 0 }",
		"arrays":  arrays,
		"statements": []any{map[string]any{
			"name":     stmt,
			"domain":   fmt.Sprintf("%s{ %s : %s }", prefix, tuple, strings.Join(cons, " and ")),
			"schedule": fmt.Sprintf("%s{ %s -> [%s] }", prefix, tuple, strings.Join(loops, ", ")),
			"accesses": accs,
		}},
	}
	out, err := json.MarshalIndent(doc, "", "   ")
	if err != nil {
		t.Fatal(err)
	}
	return string(out), params
}

// testBlock is a block of 256 threads shaped for the kernel's dimensions.
func testBlock(k *kernel.Kernel) [3]int64 {
	if k.Dims == 2 {
		return [3]int64{32, 8, 1}
	}
	return [3]int64{32, 4, 2}
}

// derived estimates k on the A100-40GB with the default method and model
// and returns the derived metrics as JSON.
func derived(t *testing.T, k *kernel.Kernel, block [3]int64) string {
	t.Helper()
	dev, err := device.Lookup("A100-40GB")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := model.Estimate(k, k.NewLaunch(block, kernel.NoFold), dev, model.Options{})
	if err != nil {
		t.Fatalf("%s: %v", k.Name, err)
	}
	out, err := json.Marshal(rep.Derived)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// TestRoundTripExamples writes every 2D and 3D embedded example as a JSCoP
// (shifted, parametric, with "*" sizes and offsets folded into the
// subscripts), imports it and checks that the imported spec predicts the
// same volumes, cycles and performance as the example.
func TestRoundTripExamples(t *testing.T) {
	n := 0
	for _, name := range examples.Names() {
		orig, err := kernel.ParseExample(name)
		if err != nil {
			t.Fatal(err)
		}
		if orig.Dims < 2 {
			continue
		}
		n++
		t.Run(name, func(t *testing.T) {
			doc, params := writeJSCoP(t, orig, [3]int64{3, 1, 2})
			flops := orig.Flops
			res, err := Import([]byte(doc), name+".jscop", importer.Options{Params: params, Flops: &flops, Registers: orig.Registers})
			if err != nil {
				t.Fatalf("%v\n%s", err, doc)
			}
			k := res.Kernel
			// Neither format states the kernel's bounds checks, which cost
			// instructions only: take the example's.
			k.BoundsCheck = orig.BoundsCheck
			// Nor which fields a block stages in shared memory: take the
			// example's, field by field.
			for _, f := range k.Fields {
				if of := orig.Field(f.Name); of != nil {
					f.Stage = of.Stage
				}
			}
			// Nor which staged field it advances in time, nor the
			// precision of its arithmetic where wider than its arrays'
			// elements (the hotspot computes on floats in double).
			k.State, k.Steps, k.FPType = orig.State, orig.Steps, orig.FPType
			if k.Domain != orig.Domain || k.Dims != orig.Dims || len(k.Fields) != len(orig.Fields) {
				t.Fatalf("imported domain %v (%d-D), %d fields; want %v (%d-D), %d fields", k.Domain, k.Dims, len(k.Fields), orig.Domain, orig.Dims, len(orig.Fields))
			}
			block := testBlock(orig)
			if got, want := derived(t, k, block), derived(t, orig, block); got != want {
				t.Errorf("imported spec differs from the example:\n got  %s\n want %s\nspec:\n%s", got, want, res.YAML())
			}
		})
	}
	if n < 5 {
		t.Fatalf("only %d 2D and 3D examples", n)
	}
}

// readExample reads a file of examples/polyhedral.
func readExample(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile("../../examples/polyhedral/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestLBMExampleEqualsEmbedded checks that the D3Q19 AoS JSCoP of
// examples/polyhedral, four-dimensional arrays src[N+2][N+2][N+2][19] as
// Polly writes them, imports with N=256 to the embedded lbm-d3q19-aos
// example: the same byte addresses, so the same predictions.
func TestLBMExampleEqualsEmbedded(t *testing.T) {
	flops := 200.0
	res, err := Import(readExample(t, "lbm-d3q19-aos.jscop"), "lbm-d3q19-aos.jscop", importer.Options{Params: map[string]int64{"N": 256}, Flops: &flops, Registers: 64})
	if err != nil {
		t.Fatal(err)
	}
	orig, err := kernel.ParseExample("lbm-d3q19-aos")
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Kernel.Fields[0].Extent; got[0] != 4902 || got[1] != 258 {
		t.Errorf("src extent %v, want 4902 x 258 x ...", got)
	}
	block := [3]int64{64, 2, 2}
	if got, want := derived(t, res.Kernel, block), derived(t, orig, block); got != want {
		t.Errorf("imported LBM differs from lbm-d3q19-aos:\n got  %s\n want %s", got, want)
	}
}

// TestStar2DExample imports the 5-point JSCoP of examples/polyhedral and
// checks its domain, fields and maps.
func TestStar2DExample(t *testing.T) {
	res, err := Import(readExample(t, "star2d-5pt.jscop"), "star2d-5pt.jscop", importer.Options{Params: map[string]int64{"N": 4096}})
	if err != nil {
		t.Fatal(err)
	}
	k := res.Kernel
	if k.Name != "star2d-5pt" || k.Domain != [3]int64{4094, 4094, 1} || k.Dims != 2 {
		t.Fatalf("name %q domain %v dims %d", k.Name, k.Domain, k.Dims)
	}
	if a, b := k.Field("A"), k.Field("B"); a == nil || b == nil || len(a.Loads) != 5 || len(b.Stores) != 1 || a.Extent[0] != 4096 {
		t.Fatalf("fields %+v", k.Fields)
	}
	if want := "{ [x, y] -> B[1 + x, 1 + y] }"; res.Spec.Fields[1].StoreISL[0] != want {
		t.Errorf("store map %q, want %q", res.Spec.Fields[1].StoreISL[0], want)
	}
	if err := k.ExpressionsError(); err != nil {
		t.Error(err)
	}
}

// twoStatements is a JSCoP with an initialisation and a stencil statement.
const twoStatements = `{
   "arrays": [
      {"name": "MemRef_A", "sizes": ["*", "64"], "type": "float"},
      {"name": "MemRef_B", "sizes": ["*", "64"], "type": "float"}
   ],
   "context": "{  :  }",
   "name": "%entry---%exit",
   "statements": [
      {
         "accesses": [{"kind": "write", "relation": "{ Stmt_init[i0] -> MemRef_B[0, i0] }"}],
         "domain": "{ Stmt_init[i0] : 0 <= i0 <= 63 }",
         "name": "Stmt_init",
         "schedule": "{ Stmt_init[i0] -> [0, i0, 0] }"
      },
      {
         "accesses": [
            {"kind": "read", "relation": "{ Stmt_body[i0, i1] -> MemRef_A[i0, i1] }"},
            {"kind": "read", "relation": "{ Stmt_body[i0, i1] -> MemRef_tmp__phi[] }"},
            {"kind": "write", "relation": "{ Stmt_body[i0, i1] -> MemRef_B[1 + i0, i1] }"}
         ],
         "domain": "{ Stmt_body[i0, i1] : 0 <= i0 <= 31 and 0 <= i1 <= 63 }",
         "name": "Stmt_body",
         "schedule": "{ Stmt_body[i0, i1] -> [1, i0, i1] }"
      }
   ]
}`

// TestStatements checks the choice of the statement: by name, and an error
// that lists the statements when none is named.
func TestStatements(t *testing.T) {
	_, err := Import([]byte(twoStatements), "two.jscop", importer.Options{})
	if err == nil || !strings.Contains(err.Error(), "Stmt_init, Stmt_body") || !strings.Contains(err.Error(), "--statement") {
		t.Fatalf("no statement chosen: error %v", err)
	}
	res, err := Import([]byte(twoStatements), "two.jscop", importer.Options{Statement: "Stmt_body"})
	if err != nil {
		t.Fatal(err)
	}
	k := res.Kernel
	if k.Domain != [3]int64{64, 32, 1} || k.FPType != 4 || k.Fields[0].Element != 4 || len(res.Notes) != 1 || !strings.Contains(res.Notes[0], "MemRef_tmp__phi") {
		t.Errorf("domain %v fp %d notes %q", k.Domain, k.FPType, res.Notes)
	}
	if got := k.Field("B").Extent; got != [3]int64{64, 33, 1} {
		t.Errorf("B's \"*\" extent inferred as %v, want 64 x 33", got)
	}
	if _, err := Import([]byte(twoStatements), "two.jscop", importer.Options{Statement: "Stmt_nope"}); err == nil || !strings.Contains(err.Error(), `no statement "Stmt_nope"`) {
		t.Errorf("unknown statement: %v", err)
	}
	// --map: the outer loop along x.
	res, err = Import([]byte(twoStatements), "two.jscop", importer.Options{Statement: "Stmt_body", Map: map[string]int{"i0": 0}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Kernel.Domain != [3]int64{32, 64, 1} || res.Spec.Fields[0].LoadISL[0] != "{ [x, y] -> A[y, x] }" {
		t.Errorf("--map i0=x: domain %v, map %q", res.Kernel.Domain, res.Spec.Fields[0].LoadISL[0])
	}
}

// TestErrors checks that malformed JSCoPs fail with an *importer.Error
// that names the file, the statement or array, and the access.
func TestErrors(t *testing.T) {
	base := `{"arrays": [{"name": "MemRef_A", "sizes": ["*", "%N"], "type": "double"}],
 "context": "[N] -> { : N >= 4 }",
 "statements": [{"name": "S", "domain": "[N] -> { S[i, j] : 0 <= i < N and 0 <= j < N }",
   "accesses": [{"kind": "read", "relation": "[N] -> { S[i, j] -> MemRef_A[i, j] }"}]}]}`
	bind := map[string]int64{"N": 64}
	for _, c := range []struct {
		name, old, new string
		params         map[string]int64
		want           []string
	}{
		{"ok", "", "", bind, nil},
		{"unbound", "", "", nil, []string{"bad.jscop:1:", `array "MemRef_A"`, "parameter N is unbound", "-D N=VALUE"}},
		{"unknown define", "", "", map[string]int64{"N": 64, "M": 8}, []string{"bad.jscop: -D M=8: the JSCoP has no parameter M; its only parameter is N"}},
		{"unknown defines", "", "", map[string]int64{"N": 64, "M": 8, "K": 1}, []string{"bad.jscop: -D K=1, -D M=8: the JSCoP has no parameters K and M; its only parameter is N"}},
		{"context", "", "", map[string]int64{"N": 2}, []string{"bad.jscop:2:13: context: the context's constraint N >= 4 does not hold for N=2"}},
		{"wrong output arity", "MemRef_A[i, j]", "MemRef_A[i, j, 0]", bind, []string{`statement "S" access 0 (read MemRef_A)`, "wrong arity", "3 subscripts", "2 sizes"}},
		{"wrong input arity", "S[i, j] -> ", "S[i] -> ", bind, []string{`access 0`, "wrong arity", "1 input dimensions", "2 loops"}},
		{"undeclared array", "MemRef_A[i, j] }", "MemRef_C[i, j] }", bind, []string{`access 0 (read MemRef_C)`, `array "MemRef_C" is not declared`}},
		{"non-affine", "MemRef_A[i, j]", "MemRef_A[i, i*j]", bind, []string{`access 0`, "ISL cannot read the relation", "affine"}},
		{"bad type", `"double"`, `"x86_fp80"`, bind, []string{`array "MemRef_A"`, "bad type", "x86_fp80"}},
		{"bad kind", `"read"`, `"may-write"`, bind, []string{`access 0`, "may-write"}},
		{"triangle", "0 <= j < N", "0 <= j <= i", bind, []string{`statement "S"`, "not a box"}},
		{"partial access", "MemRef_A[i, j] }", "MemRef_A[i, j] : i > 0 }", bind, nil},
		{"partial access over two loops", "MemRef_A[i, j] }", "MemRef_A[i, j] : i > j }", bind, []string{`statement "S"`, `field "A" load_isl[0]`, "bounds more than one coordinate"}},
		{"syntax", `"kind": "read",`, `"kind": "read"`, bind, []string{"bad.jscop:4:", "JSON syntax error"}},
		{"four loops", "S[i, j] :", "S[i, j, k, l] : 0 <= k < 2 and 0 <= l < 2 and", bind, []string{`statement "S"`, "4 loop dimensions"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			doc := strings.Replace(base, c.old, c.new, 1)
			if c.name == "four loops" {
				doc = strings.ReplaceAll(base, "S[i, j] ->", "S[i, j, k, l] ->")
				doc = strings.Replace(doc, c.old, c.new, 1)
			}
			_, err := Import([]byte(doc), "bad.jscop", importer.Options{Params: c.params})
			if c.want == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var ie *importer.Error
			if !errors.As(err, &ie) {
				t.Fatalf("error %v (%T) is not an *importer.Error", err, err)
			}
			msg := err.Error()
			if strings.Contains(msg, "\n") || !strings.HasPrefix(msg, "bad.jscop") {
				t.Errorf("not one line naming the file: %q", msg)
			}
			for _, w := range c.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q does not contain %q", msg, w)
				}
			}
		})
	}
}

// TestPartialAccess imports a read that holds for i > 0 only: the access
// is partial, applying on 63 of the 64 rows of i (x, the innermost loop
// j being x), and the import estimates.
func TestPartialAccess(t *testing.T) {
	doc := `{"arrays": [{"name": "MemRef_A", "sizes": ["*", "%N"], "type": "double"}],
 "context": "[N] -> { : N >= 4 }",
 "statements": [{"name": "S", "domain": "[N] -> { S[i, j] : 0 <= i < N and 0 <= j < N }",
   "accesses": [{"kind": "read", "relation": "[N] -> { S[i, j] -> MemRef_A[i, j] : i > 0 }"},
                {"kind": "write", "relation": "[N] -> { S[i, j] -> MemRef_A[i, j] }"}]}]}`
	res, err := Import([]byte(doc), "partial.jscop", importer.Options{Params: map[string]int64{"N": 64}})
	if err != nil {
		t.Fatal(err)
	}
	k := res.Kernel
	if len(k.Fields) != 1 || len(k.Fields[0].Loads) != 1 {
		t.Fatalf("fields %v", k.Fields)
	}
	box, partial, err := k.Fields[0].Loads[0].Partial(k.Domain)
	if err != nil || !partial {
		t.Fatalf("the read is not partial: %v, %v", partial, err)
	}
	if in := box.Intersect(lattice.Box{Hi: k.Domain}); in.Size() != 63*64 {
		t.Errorf("the read applies on %v, %d points; want 63 × 64", in, in.Size())
	}
}

// noArraysDoc is a JSCoP in the layout Polly wrote before LLVM 4, without
// "arrays": a five-point stencil from A to B over an N × N array.
const noArraysDoc = `{
   "context" : "[N] -> {  : N >= -2147483648 and N <= 2147483647 }",
   "name" : "for.cond => for.end",
   "statements" : [{
      "accesses" : [
         { "kind" : "read", "relation" : "[N] -> { Stmt_s[i0, i1] -> MemRef_A[1 + i0, i1] }" },
         { "kind" : "read", "relation" : "[N] -> { Stmt_s[i0, i1] -> MemRef_A[i0, 1 + i1] }" },
         { "kind" : "read", "relation" : "[N] -> { Stmt_s[i0, i1] -> MemRef_A[2 + i0, 1 + i1] }" },
         { "kind" : "read", "relation" : "[N] -> { Stmt_s[i0, i1] -> MemRef_A[1 + i0, 2 + i1] }" },
         { "kind" : "read", "relation" : "[N] -> { Stmt_s[i0, i1] -> MemRef_tmp[] }" },
         { "kind" : "write", "relation" : "[N] -> { Stmt_s[i0, i1] -> MemRef_B[1 + i0, 1 + i1] }" }
      ],
      "domain" : "[N] -> { Stmt_s[i0, i1] : i0 >= 0 and i0 <= -3 + N and i1 >= 0 and i1 <= -3 + N }",
      "name" : "Stmt_s",
      "schedule" : "[N] -> { Stmt_s[i0, i1] -> scattering[0, i0, 0, i1, 0] }"
   }]
}`

// TestNoArrays checks a JSCoP without "arrays": refused without an element
// size, with the flag named; with one, every array accessed is declared
// with that element size and the extents of its accessed subscripts, and
// a note says so.
func TestNoArrays(t *testing.T) {
	_, err := Import([]byte(noArraysDoc), "noarrays.jscop", importer.Options{Params: map[string]int64{"N": 64}})
	if err == nil || !strings.HasPrefix(err.Error(), "noarrays.jscop:1:1: JSCoP: no key \"arrays\"") || !strings.Contains(err.Error(), "--element") {
		t.Fatalf("without --element: %v", err)
	}
	res, err := Import([]byte(noArraysDoc), "noarrays.jscop", importer.Options{Params: map[string]int64{"N": 64}, Element: 4})
	if err != nil {
		t.Fatal(err)
	}
	k := res.Kernel
	a, b := k.Field("A"), k.Field("B")
	if k.Domain != [3]int64{62, 62, 1} || a == nil || b == nil || len(k.Fields) != 2 {
		t.Fatalf("domain %v, fields %v", k.Domain, k.Fields)
	}
	// A is read up to subscripts [63, 63], B written up to [62, 62].
	if a.Element != 4 || a.Extent != [3]int64{64, 64, 1} || len(a.Loads) != 4 || b.Element != 4 || b.Extent != [3]int64{63, 63, 1} || len(b.Stores) != 1 || k.FPType != 4 {
		t.Errorf("A: %d bytes, extent %v, %d loads; B: %d bytes, extent %v, %d stores; fp_type %d", a.Element, a.Extent, len(a.Loads), b.Element, b.Extent, len(b.Stores), k.FPType)
	}
	var assumed, scalar bool
	for _, n := range res.Notes {
		assumed = assumed || strings.Contains(n, "4-byte elements (--element)")
		scalar = scalar || strings.Contains(n, "MemRef_tmp")
	}
	if !assumed || !scalar {
		t.Errorf("notes %q lack the assumed element size or the skipped scalar", res.Notes)
	}
	// With "arrays", --element is not used, and a note says so.
	res, err = Import(readExample(t, "star2d-5pt.jscop"), "star2d-5pt.jscop", importer.Options{Params: map[string]int64{"N": 64}, Element: 4})
	if err != nil {
		t.Fatal(err)
	}
	if res.Kernel.Fields[0].Element != 8 || len(res.Notes) != 1 || !strings.Contains(res.Notes[0], "--element 4 is not used") {
		t.Errorf("element %d, notes %q", res.Kernel.Fields[0].Element, res.Notes)
	}
}

// TestNoParameters checks that -D for a JSCoP without parameters names
// the value and says that there are none.
func TestNoParameters(t *testing.T) {
	doc := `{"arrays": [{"name": "MemRef_A", "sizes": ["8"], "type": "float"}], "statements": [{"name": "S", "domain": "{ S[i] : 0 <= i < 8 }",
	  "accesses": [{"kind": "read", "relation": "{ S[i] -> MemRef_A[i] }"}]}]}`
	_, err := Import([]byte(doc), "p.jscop", importer.Options{Params: map[string]int64{"N": 8}})
	if err == nil || err.Error() != "p.jscop: -D N=8: the JSCoP has no parameter N; it has no parameters" {
		t.Errorf("error %v", err)
	}
}
