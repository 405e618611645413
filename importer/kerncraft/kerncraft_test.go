package kerncraft

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
	"github.com/polyvol/polyvol/model"
)

// typeOf is the C type of an element size.
var typeOf = map[int64]string{1: "char", 2: "short", 4: "float", 8: "double", 16: "double _Complex"}

// writeDescription writes k as a Kerncraft kernel description: loops z, y, x
// (outermost first) from lo to lo + N<i> with the extents as constants,
// arrays with their sizes outermost first and one index tuple per load and
// store, the field's alignment offset added to its innermost index. It
// returns the description and the constants.
func writeDescription(t *testing.T, k *kernel.Kernel, lo [3]int64) (string, map[string]int64) {
	t.Helper()
	n := k.Dims
	coords := []string{"x", "y", "z"}
	consts := map[string]int64{}
	var b strings.Builder
	b.WriteString("arrays:\n")
	for _, f := range k.Fields {
		var dims []string
		for i := n - 1; i >= 0; i-- {
			dims = append(dims, fmt.Sprint(f.Extent[i]))
		}
		fmt.Fprintf(&b, "    %s:\n        type: %s\n        dimension: [%s]\n", f.Name, typeOf[f.Element], strings.Join(dims, ", "))
	}
	b.WriteString("    s:\n        type: double\n        dimension: null\n")
	b.WriteString("loops:\n")
	for i := n - 1; i >= 0; i-- {
		c := fmt.Sprintf("N%d", i)
		consts[c] = k.Domain[i]
		fmt.Fprintf(&b, "    - index: %s\n      start: %d\n      stop: %s + %d\n      step: 1\n", coords[i], lo[i], c, lo[i])
	}
	var sub [3]kernel.Expr
	for i := range 3 {
		var err error
		if sub[i], err = kernel.Var(i).Add(kernel.Const(-lo[i])); err != nil {
			t.Fatal(err)
		}
	}
	for _, store := range []bool{false, true} {
		fmt.Fprintf(&b, "%s:\n", map[bool]string{false: "data sources", true: "data destinations"}[store])
		for _, f := range k.Fields {
			accs := f.Accesses(store)
			if len(accs) == 0 {
				continue
			}
			fmt.Fprintf(&b, "    %s:\n", f.Name)
			for _, a := range accs {
				subs := make([]string, n)
				for i := range n {
					e, err := a.Index[i].Substitute(sub)
					if err == nil && i == 0 {
						e, err = e.Add(kernel.Const(f.Offset))
					}
					if err != nil {
						t.Fatal(err)
					}
					subs[n-1-i] = fmt.Sprintf("%q", e.String())
				}
				fmt.Fprintf(&b, "        - [%s]\n", strings.Join(subs, ", "))
			}
		}
		if !store {
			b.WriteString("    s:\n        - null\n")
		}
	}
	fmt.Fprintf(&b, "flops:\n    \"+\": %g\n", k.Flops)
	return b.String(), consts
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

// TestRoundTripExamples writes every 2D and 3D embedded example as a
// Kerncraft description (loops starting at lo, constants for the extents,
// offsets folded into the indices), imports it and checks that the
// imported spec predicts what the example does.
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
			doc, consts := writeDescription(t, orig, [3]int64{2, 1, 3})
			res, err := Import([]byte(doc), name+".yml", importer.Options{Params: consts, Registers: orig.Registers})
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
			if k.Domain != orig.Domain || k.Dims != orig.Dims || k.Flops != orig.Flops || len(k.Fields) != len(orig.Fields) {
				t.Fatalf("imported domain %v (%d-D), %g flops, %d fields; want %v (%d-D), %g flops, %d fields",
					k.Domain, k.Dims, k.Flops, len(k.Fields), orig.Domain, orig.Dims, orig.Flops, len(orig.Fields))
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

// TestStar3DExampleEqualsEmbedded checks that the 7-point description of
// examples/polyhedral imports with M = N = 514 to the embedded star3d-r1.
func TestStar3DExampleEqualsEmbedded(t *testing.T) {
	data, err := os.ReadFile("../../examples/polyhedral/star3d-7pt.yml")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Import(data, "star3d-7pt.yml", importer.Options{Params: map[string]int64{"M": 514, "N": 514}})
	if err != nil {
		t.Fatal(err)
	}
	orig, err := kernel.ParseExample("star3d-r1")
	if err != nil {
		t.Fatal(err)
	}
	if res.Kernel.Flops != 7 || res.Kernel.Domain != orig.Domain {
		t.Fatalf("flops %g domain %v", res.Kernel.Flops, res.Kernel.Domain)
	}
	res.Kernel.Fields[0].Name, res.Kernel.Fields[1].Name = "A", "B" // Kerncraft's a and b
	block := [3]int64{64, 4, 4}
	if got, want := derived(t, res.Kernel, block), derived(t, orig, block); got != want {
		t.Errorf("imported star3d-7pt differs from star3d-r1:\n got  %s\n want %s", got, want)
	}
}

// TestStepsAndLinearIndices checks a loop with a step (a strided index over
// the loop counter) and a linearised one-dimensional array.
func TestStepsAndLinearIndices(t *testing.T) {
	doc := `arrays:
    a: {type: float, dimension: [N*N]}
    b: {type: float, dimension: [N, N]}
loops:
    - {index: j, start: 0, stop: N, step: 1}
    - {index: i, start: 1, stop: N-1, step: 2}
data sources:
    a: [[j*N + i - 1]]
data destinations:
    b: [[j, i]]
flops: {"*": 1.5}
`
	res, err := Import([]byte(doc), "steps.yml", importer.Options{Params: map[string]int64{"N": 64}})
	if err != nil {
		t.Fatal(err)
	}
	k := res.Kernel
	if k.Domain != [3]int64{31, 64, 1} || k.Flops != 1.5 || k.FPType != 4 {
		t.Fatalf("domain %v flops %g fp %d", k.Domain, k.Flops, k.FPType)
	}
	if got, want := res.Spec.Fields[0].LoadISL[0], "{ [x, y] -> a[2x + 64y] }"; got != want {
		t.Errorf("load %q, want %q", got, want)
	}
	if got, want := res.Spec.Fields[1].StoreISL[0], "{ [x, y] -> b[1 + 2x, y] }"; got != want {
		t.Errorf("store %q, want %q", got, want)
	}
}

// TestErrors checks that malformed descriptions fail with one line that
// names the file, the array or loop, and the access.
func TestErrors(t *testing.T) {
	base := `arrays:
    a: {type: double, dimension: [N, N]}
    b: {type: double, dimension: [N, N]}
loops:
    - {index: j, start: 1, stop: N-1}
    - {index: i, start: 1, stop: N-1}
data sources:
    a: [[j, i-1], [j, i+1]]
data destinations:
    b: [[j, i]]
flops: {"+": 1}
`
	bind := map[string]int64{"N": 100}
	for _, c := range []struct {
		name, old, new string
		params         map[string]int64
		want           []string
	}{
		{"ok", "", "", bind, nil},
		{"unbound", "", "", nil, []string{"bad.yml:5:", `loop j: stop "N-1": constant N is unbound`, "-D N=VALUE"}},
		{"wrong arity", "[j, i+1]", "[j, i+1, 0]", bind, []string{"bad.yml:8:", `data sources "a"[1] [j, i+1, 0]`, "wrong arity", "3 indices"}},
		{"undeclared array", "    b: [[j, i]]", "    c: [[j, i]]", bind, []string{`data destinations "c"`, `array "c" is not declared`}},
		{"non-affine", "[j, i-1]", "[j, i*j]", bind, []string{`data sources "a"[0] [j, i*j]`, "not affine"}},
		{"bad type", "type: double, dimension: [N, N]}\n    b", "type: quad, dimension: [N, N]}\n    b", bind, []string{`array "a"`, "bad type", "quad"}},
		{"triangle", "{index: i, start: 1, stop: N-1}", "{index: i, start: 1, stop: j}", bind, []string{"loop i", "depends on the loop index j", "box"}},
		// The flow mapping of line 11 is left open: the problem is at the
		// end of the text, the start of line 12.
		{"syntax", "flops: {\"+\": 1}", "flops: {\"+\": 1", bind, []string{"bad.yml:12:1: YAML syntax error", "flow mapping that starts at line 11, column 8"}},
		{"syntax tab", "    - {index: j", "\t- {index: j", bind, []string{"bad.yml:5:1: YAML syntax error", "cannot start any token"}},
		// "    b: c: [[j, i]]": the second ':' is character 9.
		{"syntax colon", "    b: [[j, i]]", "    b: c: [[j, i]]", bind, []string{"bad.yml:10:9: YAML syntax error", "mapping values are not allowed"}},
		{"unknown key", "flops:", "flop:", bind, []string{"unknown key \"flop\""}},
		{"unbound in index", "[j, i-1]", "[j, i-M]", bind, []string{`data sources "a"[0]`, "constant M is unbound; give its value with -D M=VALUE"}},
		// Every unbound constant in one message, at the first one read.
		{"three unbound", "dimension: [N, N]}\n    b", "dimension: [K, N]}\n    b", map[string]int64{},
			[]string{`bad.yml:5:34: loop j: stop "N-1": constant N is unbound, and so are K (line 2) and M (line 8); give their values with -D N=VALUE -D K=VALUE -D M=VALUE`}},
		{"unknown define", "", "", map[string]int64{"N": 100, "n": 3, "i": 1},
			[]string{"bad.yml: -D i=1, -D n=3: the kernel description has no constants i and n; its only constant is N"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			doc := strings.Replace(base, c.old, c.new, 1)
			if c.name == "three unbound" {
				doc = strings.Replace(doc, "[j, i-1]", "[j, i-M]", 1)
			}
			_, err := Import([]byte(doc), "bad.yml", importer.Options{Params: c.params})
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
			if strings.Contains(msg, "\n") || !strings.HasPrefix(msg, "bad.yml") {
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
