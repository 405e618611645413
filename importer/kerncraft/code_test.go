package kerncraft

import (
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/polyvol/polyvol/importer"
)

// codeTwins are the kernel code of examples/polyhedral and, for each, the
// kernel description that Kerncraft derives from it, written by hand.
var codeTwins = []struct {
	code, description string
	params            map[string]int64
}{
	{"jacobi2d-5pt.c", `arrays:
    a: {type: double, dimension: [M, N]}
    b: {type: double, dimension: [M, N]}
loops:
    - {index: j, start: 1, stop: M-1, step: 1}
    - {index: i, start: 1, stop: N-1, step: 1}
data sources:
    a: [[j, i-1], [j, i+1], [j-1, i], [j+1, i]]
data destinations:
    b: [[j, i]]
flops: {"+": 3, "*": 1}
`, map[string]int64{"M": 4098, "N": 2050}},
	{"matvec.c", `arrays:
    A: {type: double, dimension: [M, N]}
    x: {type: double, dimension: [N]}
    y: {type: double, dimension: [M]}
loops:
    - {index: i, start: 0, stop: M}
    - {index: j, start: 0, stop: N}
data sources:
    y: [[i]]
    A: [[i, j]]
    x: [[j]]
data destinations:
    y: [[i]]
flops: {"+": 1, "*": 1}
`, map[string]int64{"M": 8192, "N": 4096}},
}

// sameImport fails t unless the two imports made the same spec, launch and
// notes, but for the description, which names the imported file.
func sameImport(t *testing.T, code, desc *importer.Result) {
	t.Helper()
	c, d := *code.Spec, *desc.Spec
	c.Description, d.Description = "", ""
	cj, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	dj, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	if string(cj) != string(dj) {
		t.Errorf("the code imports to\n%s\nthe description to\n%s", cj, dj)
	}
	if (code.Launch == nil) != (desc.Launch == nil) || code.Launch != nil && *code.Launch != *desc.Launch {
		t.Errorf("launch %+v, the description's %+v", code.Launch, desc.Launch)
	}
	if !slices.Equal(code.Notes, desc.Notes) {
		t.Errorf("notes %q, the description's %q", code.Notes, desc.Notes)
	}
}

// TestKerncraftCodeEqualsDescription checks that the kernel code of
// examples/polyhedral imports to the same spec as its kernel description
// (codeTwins, imported as the same file name with .yml): loops, arrays,
// accesses in the same order, flops, notes and the reduction's launch.
func TestKerncraftCodeEqualsDescription(t *testing.T) {
	for _, tw := range codeTwins {
		t.Run(tw.code, func(t *testing.T) {
			data, err := os.ReadFile("../../examples/polyhedral/" + tw.code)
			if err != nil {
				t.Fatal(err)
			}
			opt := importer.Options{Params: tw.params}
			code, err := ImportCode(data, tw.code, opt)
			if err != nil {
				t.Fatal(err)
			}
			desc, err := Import([]byte(tw.description), strings.TrimSuffix(tw.code, ".c")+".yml", opt)
			if err != nil {
				t.Fatal(err)
			}
			sameImport(t, code, desc)
			if code.Spec.Name != strings.TrimSuffix(tw.code, ".c") || code.Spec.Flops == 0 {
				t.Errorf("name %q, flops %g", code.Spec.Name, code.Spec.Flops)
			}
		})
	}
}

// TestKerncraftCodeBlock imports the C of the code block of
// star3d-7pt.yml, which Kerncraft's descriptions carry beside what
// Kerncraft derives from it, and checks that it imports to what the
// description does; the description lists the loads in another order.
func TestKerncraftCodeBlock(t *testing.T) {
	data, err := os.ReadFile("../../examples/polyhedral/star3d-7pt.yml")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct{ Code string }
	if err := yaml.Unmarshal(data, &doc); err != nil || doc.Code == "" {
		t.Fatalf("no code block: %v", err)
	}
	opt := importer.Options{Params: map[string]int64{"M": 130, "N": 66}}
	code, err := ImportCode([]byte(doc.Code), "star3d-7pt.c", opt)
	if err != nil {
		t.Fatal(err)
	}
	desc, err := Import(data, "star3d-7pt.yml", opt)
	if err != nil {
		t.Fatal(err)
	}
	for _, res := range []*importer.Result{code, desc} {
		for _, f := range res.Spec.Fields {
			slices.Sort(f.LoadISL)
		}
	}
	sameImport(t, code, desc)
	if code.Spec.Flops != 7 {
		t.Errorf("flops %g, want 7", code.Spec.Flops)
	}
}

// TestKerncraftCodeForms checks the forms of loops, assignments and
// expressions that kernel code may take, by the spec they import to.
func TestKerncraftCodeForms(t *testing.T) {
	n64 := map[string]int64{"N": 64}
	for _, c := range []struct {
		name, code string
		domain     [3]int64
		flops      float64
		params     map[string]int64
		loads      []string // of the first field
		stores     []string // of the last field
	}{
		{"inclusive stop, i++, step", `
float a[N*N], b[N][N];   /* two declarators, a linearised array */
for (long j = 0; j <= N-1; j++)
    for (int i = 1; i < N - 1; i += 2)
        b[j][i] = -a[j*N + i - 1];
`, [3]int64{31, 64, 1}, 1, n64, []string{"{ [x, y] -> a[2x + 64y] }"}, []string{"{ [x, y] -> b[1 + 2x, y] }"}},
		{"compound, scalars, duplicates, pragmas", `
double a[N], s;
#pragma omp parallel for
for (int i = 0; i < N; ++i) {
    a[i] *= s * (a[i] - 2.0) / a[(i)];
    ;
}
`, [3]int64{64, 1, 1}, 4, n64, []string{"{ [x] -> a[x] }"}, []string{"{ [x] -> a[x] }"}},
		{"literals and unary plus", `
double a[0x10][010];
for (int i = 0u; i < 010; ++i) {
    a[+i][(i)] = +a[2 * (i + 1) - 2][7L % 8];
}
`, [3]int64{8, 1, 1}, 0, nil, []string{"{ [x] -> a[7, 2x] }"}, []string{"{ [x] -> a[x, x] }"}},
		{"loop index as a value", `
double a[N];
for (int i = 0; i < N; ++i) a[i] = a[i] + i * 0.5;
`, [3]int64{64, 1, 1}, 2, n64, []string{"{ [x] -> a[x] }"}, []string{"{ [x] -> a[x] }"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := ImportCode([]byte(c.code), "forms.c", importer.Options{Params: c.params})
			if err != nil {
				t.Fatal(err)
			}
			k := res.Kernel
			f := res.Spec.Fields
			if k.Domain != c.domain || k.Flops != c.flops || !slices.Equal(f[0].LoadISL, c.loads) || !slices.Equal(f[len(f)-1].StoreISL, c.stores) {
				t.Errorf("domain %v flops %g loads %q stores %q\n%s", k.Domain, k.Flops, f[0].LoadISL, f[len(f)-1].StoreISL, res.YAML())
			}
		})
	}
}

// TestKerncraftCodeErrors checks that malformed kernel code fails with one
// line that names the file, line and column and what is wrong.
func TestKerncraftCodeErrors(t *testing.T) {
	base := `double a[M][N];
double b[M][N];
for (int j = 1; j < M - 1; ++j)
    for (int i = 1; i < N - 1; ++i)
        b[j][i] = a[j][i - 1] + a[j][i + 1];
`
	bind := map[string]int64{"M": 100, "N": 100}
	for _, c := range []struct {
		name, old, new string
		params         map[string]int64
		want           []string
	}{
		{"ok", "", "", bind, nil},
		// Every unbound constant in one message, at the first one read.
		{"unbound", "", "", nil, []string{`bad.c:1:10: array "a": dimension[0] "M": constant M is unbound, and so is N (line 1); give their values with -D M=VALUE -D N=VALUE`}},
		{"three unbound", "a[j][i + 1]", "a[j][i + K]", map[string]int64{"N": 100},
			[]string{`bad.c:1:10: array "a": dimension[0] "M": constant M is unbound, and so is K (line 5); give their values with -D M=VALUE -D K=VALUE`}},
		{"unknown define", "", "", map[string]int64{"M": 100, "N": 100, "n": 3},
			[]string{"bad.c: -D n=3: the kernel code has no constant n; its constants are M, N"}},
		{"syntax", "a[j][i + 1];", "a[j][i + 1]", bind, []string{"bad.c:5:44: C syntax error: unexpected end of file, expected ';'"}},
		{"syntax mid", "i - 1]", "i - ]", bind, []string{"bad.c:5:28: C syntax error: unexpected ']', expected unary expression"}},
		{"unmatched brace", "a[j][i + 1];", "a[j][i + 1]; }", bind, []string{"bad.c:5:46: C syntax error: unmatched '}'"}},
		{"unclosed brace", "    for (int i", "    for (int i = 0; i < 1; ++i) {\n    for (int i", bind, []string{"bad.c:", "expected '}'"}},
		{"include", "double a", "#include <math.h>\ndouble a", bind, []string{"bad.c:1:10: C syntax error: include file not found: <math.h>"}},
		{"wrong arity", "a[j][i + 1]", "a[j][i + 1][0]", bind, []string{"bad.c:5:33: a[j][i + 1][0]: wrong arity: 3 indices, but array a has 2 dimensions"}},
		{"undeclared array", "b[j][i] =", "c[j][i] =", bind, []string{"bad.c:5:9:", "array c is not declared"}},
		{"undeclared scalar", "a[j][i + 1];", "a[j][i + 1] * s;", bind, []string{"bad.c:5:47: s is not declared"}},
		{"non-affine", "a[j][i - 1]", "a[j][i * j]", bind, []string{"bad.c:5:24:", `data source a[j][i * j]: index 1 "i * j": the product of i and j is not affine`}},
		{"shift index", "a[j][i - 1]", "a[j][i << 1]", bind, []string{"bad.c:5:24:", "i << 1: expected an integer expression of + - * / % and brackets"}},
		{"float index", "a[j][i - 1]", "a[j][i - 1.0]", bind, []string{"bad.c:5:28:", "expected an integer, not a floating-point number"}},
		{"bad type", "double a", "quad a", bind, []string{"bad.c:1:6: C syntax error"}},
		{"unknown type", "double a", "long double a", bind, []string{`bad.c:1:13: array "a": bad type`}},
		{"pointer", "double a[M][N]", "double *a", bind, []string{"bad.c:1:8: *a: a pointer"}},
		{"triangle", "i < N - 1", "i < j", bind, []string{"bad.c:4:25: loop i: stop \"j\": depends on the loop index j", "box"}},
		{"counts down", "++i)", "--i)", bind, []string{"bad.c:4:32: loop i: the loop counts down"}},
		{"condition", "i < N - 1", "N - 1 > i", bind, []string{"bad.c:4:21: loop i: expected the condition i < STOP or i <= STOP"}},
		{"no declaration", "for (int i = 1;", "for (i = 1;", bind, []string{"bad.c:4:5: expected a loop that declares its index"}},
		{"no steps", "++i)", "i += 0)", bind, []string{"bad.c:4:37: loop i: step 0: expected a positive step"}},
		{"empty", "N - 1; ++i)", "1; ++i)", bind, []string{"bad.c:4:25: loop i: runs no iterations (start 1, stop 1)"}},
		{"imperfect nest", "++j)\n    for (int i = 1; i < N - 1; ++i)\n        b[j][i] = a[j][i - 1] + a[j][i + 1];",
			"++j) {\n    a[j][0] = 0;\n    for (int i = 1; i < N - 1; ++i)\n        b[j][i] = a[j][i - 1] + a[j][i + 1];\n}", bind, []string{"bad.c:5:5: loop j: a loop in the loop body; polyvol reads a perfect loop nest"}},
		{"four loops", "        b[j][i]", "    for (int k = 0; k < 2; ++k)\n    for (int l = 0; l < 2; ++l)\n        b[j][i]", bind, []string{"bad.c:6:5: 4 loops; polyvol's lattice has 1 to 3 dimensions"}},
		{"call", "a[j][i - 1] +", "sqrt(a[j][i - 1]) +", bind, []string{"bad.c:5:19: sqrt(a[j][i - 1]): a function call"}},
		{"modulo", "a[j][i - 1] +", "a[j][i - 1] % 2 +", bind, []string{"bad.c:5:19: a[j][i - 1] % 2: expected an expression of array elements"}},
		{"two assignments", "b[j][i] = a", "b[j][i] = b[j][i] = a", bind, []string{"bad.c:5:19: loop i:", "one assignment per statement"}},
		{"shift assignment", "b[j][i] =", "b[j][i] <<=", bind, []string{"bad.c:5:9: loop i:", "expected an assignment with =, +=, -=, *= or /="}},
		{"statement first", "double b[M][N];", "double b[M][N];\nb[0][0] = 1;", bind, []string{"bad.c:3:1: a statement before the loop nest"}},
		{"after the nest", "a[j][i + 1];\n", "a[j][i + 1];\ndouble c;\n", bind, []string{"bad.c:6:1: a declaration after the loop nest"}},
		{"unused scalar", "for (int j", "double c;\nfor (int j", bind, nil},
		{"no loops", "for (int j = 1; j < M - 1; ++j)\n    for (int i = 1; i < N - 1; ++i)\n", "", bind, []string{"bad.c:3:9: a statement outside a loop nest"}},
		{"twice", "double b[M][N];", "double a[M];", bind, []string{`bad.c:2:8: array "a": declared twice (first at line 1)`}},
		{"hidden", "double b[M][N];", "double b[M][N], i;", bind, []string{"bad.c:4:5: loop i: the index i hides the variable declared at line 2"}},
		{"zero size", "double a[M][N]", "double a[M][0]", bind, []string{`bad.c:1:13: array "a": dimension[1] = 0: expected a positive size`}},
		{"typedef", "double a[M][N];", "typedef double T; T a[M][N];", bind, []string{"bad.c:1:1: typedef double: kernel code declares arrays and scalars"}},
		{"attribute", "double b[M][N];", "double b[M][N] __attribute__((aligned(64)));", bind, []string{"bad.c:2:16: __attribute__ is not part of kernel code"}},
		// The C parser loops forever on these without the guards of parse.
		{"pointer at the end", "a[j][i + 1];\n", "a[j][i + 1];\ndouble *", bind, []string{"bad.c:6:9: C syntax error: unexpected end of file, expected type qualifier"}},
		{"pointer attribute", "a[j][i + 1];\n", "a[j][i + 1];\ndouble * __attribute__", bind, []string{"bad.c:6:10: __attribute__ is not part of kernel code"}},
		{"string at the end", "a[j][i + 1];\n", "a[j][i + 1];\n\"\\", bind, []string{"bad.c:6:1: C syntax error: string literal not terminated"}},
		{"macro stops", "a[j][i + 1];\n", "a[j][i + 1];\n#define A(x) A(x) A(x)\n#define B(x) A(A(A(A(x))))\ndouble * B(B(B(B(B(1)))))", bind, []string{"tokens after macro expansion"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			code := strings.Replace(base, c.old, c.new, 1)
			_, err := ImportCode([]byte(code), "bad.c", importer.Options{Params: c.params})
			if c.want == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var ie *importer.Error
			if !errors.As(err, &ie) {
				t.Fatalf("error %v (%T) is not an *importer.Error\n%s", err, err, code)
			}
			msg := err.Error()
			if strings.Contains(msg, "\n") || !strings.HasPrefix(msg, "bad.c") {
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

// TestKerncraftCodeLimits checks that inputs beyond the bounds fail early
// with an *importer.Error: too large, nested too deeply (in the text or
// through macros), too many tokens after macro expansion.
func TestKerncraftCodeLimits(t *testing.T) {
	for _, c := range []struct {
		name, code, want string
	}{
		{"size", "double a[N];\n" + strings.Repeat(" ", MaxCodeBytes), "larger than 16 KiB"},
		{"brackets", "double a[N]; for (int i = 0; i < N; ++i) a[i] = " + strings.Repeat("(", 2000) + "1" + strings.Repeat(")", 2000) + ";", "bad.c:1:"},
		{"macros", "#define P ((((((((((\n#define Q P P P P P P P P P P\nQ Q Q Q Q Q Q Q Q Q Q Q", "bad.c:1:1: the macros expand to more than 1000 opening brackets"},
		{"tokens", "#define A(x) A(x) A(x)\n#define B(x) A(A(A(A(x))))\nB(B(B(B(B(1)))))", "tokens after macro expansion"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadCode([]byte(c.code), "bad.c", importer.Options{Params: map[string]int64{"N": 8}})
			var ie *importer.Error
			if !errors.As(err, &ie) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want an *importer.Error with %q", err, c.want)
			}
		})
	}
}

// TestKerncraftIsCode checks which file names are kernel code.
func TestKerncraftIsCode(t *testing.T) {
	for name, want := range map[string]bool{"k.c": true, "dir/K.C": true, "k.yml": false, "k.c.yml": false, "c": false, "<stdin>": false} {
		if got := IsCode(name); got != want {
			t.Errorf("IsCode(%q) = %v, want %v", name, got, want)
		}
	}
}
