package cli

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/relation"
	ucli "github.com/urfave/cli/v2"
)

// polyhedral is the folder of the JSCoP and Kerncraft examples.
const polyhedral = "../examples/polyhedral/"

// TestImportPipedToExplore is the Polly user's path of the docs: import a
// JSCoP with -D and pipe the spec into explore - , which ranks the
// configurations.
func TestImportPipedToExplore(t *testing.T) {
	spec := mustRun(t, "import", "jscop", polyhedral+"star2d-5pt.jscop", "-D", "N=4096")
	var out, errOut bytes.Buffer
	code := RunWithInput([]string{"polyvol", "explore", "-", "--device", "H100-SXM", "--top", "3"}, strings.NewReader(spec), &out, &errOut)
	if code != ExitOK {
		t.Fatalf("explore -: exit %d, stderr %q", code, errOut.String())
	}
	for _, want := range []string{"star2d-5pt on H100-SXM", "domain 4094,4094,1", "rank", "\n  1 "} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("explore output lacks %q:\n%s", want, out.String())
		}
	}
}

// TestImportFormatsAndOutput checks --format json, -o and the Kerncraft path:
// the YAML and JSON specs load as the same kernel.
func TestImportFormatsAndOutput(t *testing.T) {
	dir := t.TempDir()
	yamlPath := filepath.Join(dir, "star.yaml")
	args := []string{"import", "kerncraft", polyhedral + "star3d-7pt.yml", "-D", "M=514", "-D", "N=514"}
	if out := mustRun(t, append(args, "-o", yamlPath)...); out != "" {
		t.Errorf("-o: stdout %q", out)
	}
	jsonText := mustRun(t, append(args, "--format", "json")...)
	a, err := kernel.LoadFile(yamlPath, relation.Option())
	if err != nil {
		t.Fatal(err)
	}
	b, err := kernel.Parse([]byte(jsonText), "star.json", relation.Option())
	if err != nil {
		t.Fatal(err)
	}
	if a.Name != "star3d-7pt" || a.Domain != b.Domain || a.Flops != 7 || len(a.Fields) != 2 || len(b.Fields[0].Loads) != 7 {
		t.Errorf("yaml %+v, json %+v", a, b)
	}
	// The flags of the spec: name, flops, registers.
	out := mustRun(t, append(args, "--name", "seven", "--flops", "8", "--registers", "40")...)
	for _, want := range []string{"name: seven", "flops: 8", "registers: 40"} {
		if !strings.Contains(out, want) {
			t.Errorf("spec lacks %q:\n%s", want, out)
		}
	}
}

// TestJSCoPAsSpec checks that predict and explore take a .jscop file as
// SPEC, and that a parameter they cannot bind is a usage error that names
// it and says how to bind it.
func TestJSCoPAsSpec(t *testing.T) {
	dir := t.TempDir()
	fixed := filepath.Join(dir, "fixed.jscop")
	doc := `{"arrays": [{"name": "MemRef_A", "sizes": ["*", "1026"], "type": "double"}, {"name": "MemRef_B", "sizes": ["*", "1026"], "type": "double"}],
 "context": "{  :  }", "name": "%for---%end",
 "statements": [{"name": "Stmt_body", "domain": "{ Stmt_body[i0, i1] : 0 <= i0 <= 1023 and 0 <= i1 <= 1023 }", "schedule": "{ Stmt_body[i0, i1] -> [i0, i1] }",
   "accesses": [{"kind": "read", "relation": "{ Stmt_body[i0, i1] -> MemRef_A[1 + i0, i1] }"}, {"kind": "read", "relation": "{ Stmt_body[i0, i1] -> MemRef_A[1 + i0, 2 + i1] }"},
                {"kind": "write", "relation": "{ Stmt_body[i0, i1] -> MemRef_B[1 + i0, 1 + i1] }"}]}]}`
	if err := os.WriteFile(fixed, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	out := mustRun(t, "predict", fixed, "--device", "H100-SXM")
	if !strings.Contains(out, "fixed on H100-SXM") || !strings.Contains(out, "domain 1024,1024,1") {
		t.Errorf("predict fixed.jscop:\n%s", out)
	}
	if out := mustRun(t, "explore", fixed, "--top", "2"); !strings.Contains(out, "rank") {
		t.Errorf("explore fixed.jscop:\n%s", out)
	}
	if out := mustRun(t, "predict", polyhedral+"star2d-5pt.jscop", "-D", "N=4096"); !strings.Contains(out, "domain 4094,4094,1") {
		t.Errorf("predict star2d-5pt.jscop -D N=4096:\n%s", out)
	}
	_, errOut, code := run(t, "predict", polyhedral+"star2d-5pt.jscop")
	if code != ExitUsage || strings.Count(errOut, "\n") != 1 {
		t.Fatalf("unbound parameter: exit %d, stderr %q", code, errOut)
	}
	for _, want := range []string{"star2d-5pt.jscop", "parameter N is unbound", "-D N=VALUE"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("error %q lacks %q", errOut, want)
		}
	}
}

// TestImportMalformed checks that every malformed JSCoP or Kerncraft file
// gives exit code 2 and one line naming the file, the statement or array,
// and the access.
func TestImportMalformed(t *testing.T) {
	jscopDoc := `{"arrays": [{"name": "MemRef_A", "sizes": ["*", "%N"], "type": "double"}],
 "context": "[N] -> { : N >= 4 }", "name": "%a---%b",
 "statements": [{"name": "Stmt_s", "domain": "[N] -> { Stmt_s[i, j] : 0 <= i < N and 0 <= j < N }", "schedule": "[N] -> { Stmt_s[i, j] -> [i, j] }",
   "accesses": [{"kind": "read", "relation": "[N] -> { Stmt_s[i, j] -> MemRef_A[i, j] }"}, {"kind": "write", "relation": "[N] -> { Stmt_s[i, j] -> MemRef_A[i, 1 + j] }"}]}]}`
	kerncraftDoc := `arrays:
    a: {type: double, dimension: [N, N]}
    b: {type: double, dimension: [N, N]}
loops:
    - {index: j, start: 1, stop: N-1, step: 1}
    - {index: i, start: 1, stop: N-1, step: 1}
data sources:
    a: [[j, i-1], [j, i+1]]
data destinations:
    b: [[j, i]]
flops: {"+": 1}
`
	dir := t.TempDir()
	for _, c := range []struct {
		name, format, old, new string
		args                   []string
		want                   []string
	}{
		{"jscop wrong arity", "jscop", "MemRef_A[i, 1 + j]", "MemRef_A[i, 1 + j, 0]", nil, []string{`statement "Stmt_s" access 1 (write MemRef_A)`, "wrong arity"}},
		{"jscop undeclared array", "jscop", "MemRef_A[i, j] }", "MemRef_Q[i, j] }", nil, []string{`statement "Stmt_s" access 0 (read MemRef_Q)`, "not declared"}},
		{"jscop unbound parameter", "jscop", "", "", []string{}, []string{`array "MemRef_A"`, "parameter N is unbound"}},
		{"jscop unbound in a relation", "jscop", "[N] -> { Stmt_s[i, j] -> MemRef_A[i, j] }", "[N, M] -> { Stmt_s[i, j] -> MemRef_A[i, j + M] }", nil, []string{`statement "Stmt_s" access 0 (read MemRef_A)`, "parameter M is unbound"}},
		{"jscop non-affine relation", "jscop", "MemRef_A[i, j] }", "MemRef_A[i, i*j] }", nil, []string{`statement "Stmt_s" access 0 (read MemRef_A)`, "affine"}},
		{"jscop bad type", "jscop", `"double"`, `"x86_fp80"`, nil, []string{`array "MemRef_A"`, "bad type"}},
		{"jscop JSON syntax", "jscop", `"kind": "write",`, `"kind": "write"`, nil, []string{":4:", "JSON syntax error"}},
		{"jscop not a box", "jscop", "0 <= j < N }", "0 <= j <= i }", nil, []string{`statement "Stmt_s"`, "not a box"}},
		{"jscop two statements", "jscop", `}"}]}]}`, `}"}]}, {"name": "Stmt_t", "domain": "{ Stmt_t[i] : 0 <= i < 4 }", "accesses": []}]}`, nil, []string{"statements", "Stmt_s, Stmt_t", "--statement"}},
		{"kerncraft wrong arity", "kerncraft", "[j, i+1]", "[j, i+1, 0]", nil, []string{`data sources "a"[1] [j, i+1, 0]`, "wrong arity"}},
		{"kerncraft undeclared array", "kerncraft", "    b: [[j, i]]", "    c: [[j, i]]", nil, []string{`data destinations "c"`, "not declared"}},
		{"kerncraft unbound constant", "kerncraft", "", "", []string{}, []string{"loop j", "constant N is unbound"}},
		{"kerncraft non-affine", "kerncraft", "[j, i-1]", "[j, i*j]", nil, []string{`data sources "a"[0] [j, i*j]`, "not affine"}},
		{"kerncraft bad type", "kerncraft", "{type: double, dimension: [N, N]}\n    b", "{type: real, dimension: [N, N]}\n    b", nil, []string{`array "a"`, "bad type"}},
		{"kerncraft YAML syntax", "kerncraft", `flops: {"+": 1}`, `flops: {"+": 1`, nil, []string{"YAML syntax error"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			doc, ext := jscopDoc, ".jscop"
			if c.format == "kerncraft" {
				doc, ext = kerncraftDoc, ".yml"
			}
			if !strings.Contains(doc, c.old) {
				t.Fatalf("the case's text %q is not in the document", c.old)
			}
			path := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-")+ext)
			if err := os.WriteFile(path, []byte(strings.Replace(doc, c.old, c.new, 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			args := c.args
			if args == nil {
				args = []string{"-D", "N=64"}
			}
			_, errOut, code := run(t, append([]string{"import", c.format, path}, args...)...)
			if code != ExitUsage || strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, "polyvol: "+path) {
				t.Fatalf("exit %d, stderr %q; want exit 2 and one line naming the file", code, errOut)
			}
			for _, w := range c.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("error %q lacks %q", errOut, w)
				}
			}
		})
	}
}

// TestImportUsage checks the command line errors of import itself.
func TestImportUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"import", "polly", polyhedral + "star2d-5pt.jscop"}, `import "polly": expected jscop or kerncraft`},
		{[]string{"import", "jscop"}, "import takes a format"},
		{[]string{"import", "jscop", polyhedral + "star2d-5pt.jscop", "-D", "N"}, `-D "N": expected NAME=INTEGER`},
		{[]string{"import", "jscop", polyhedral + "star2d-5pt.jscop", "-D", "N=4096", "--format", "toml"}, "--format"},
		{[]string{"import", "jscop", polyhedral + "star2d-5pt.jscop", "-D", "N=4096", "--map", "i0=w"}, "--map"},
		{[]string{"import", "jscop", polyhedral + "star2d-5pt.jscop", "-D", "N=4096", "--map", "k=x"}, "no loop k; its loops are i0, i1"},
		{[]string{"import", "jscop", "no-such.jscop"}, "no-such.jscop"},
	} {
		_, errOut, code := run(t, c.args...)
		if code != ExitUsage || !strings.Contains(errOut, c.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 with %q", c.args, code, errOut, c.want)
		}
	}
	// Standard input and the note about skipped scalar accesses.
	doc := `{"arrays": [{"name": "MemRef_A", "sizes": ["8"], "type": "float"}], "statements": [{"name": "S", "domain": "{ S[i] : 0 <= i < 8 }",
	  "accesses": [{"kind": "read", "relation": "{ S[i] -> MemRef_A[i] }"}, {"kind": "write", "relation": "{ S[i] -> MemRef_sum__phi[] }"}]}]}`
	var out, errOut bytes.Buffer
	if code := RunWithInput([]string{"polyvol", "import", "jscop", "-"}, strings.NewReader(doc), &out, &errOut); code != ExitOK {
		t.Fatalf("import jscop -: exit %d, stderr %q", code, errOut.String())
	}
	if !strings.Contains(out.String(), "name: jscop") || !strings.Contains(errOut.String(), "MemRef_sum__phi") {
		t.Errorf("stdout %q, stderr %q", out.String(), errOut.String())
	}
}

// TestLoadJSCoPWithFlags checks the path a command with importSpecFlags
// takes when its SPEC is a .jscop file: loadKernel binds -D and applies
// --map.
func TestLoadJSCoPWithFlags(t *testing.T) {
	var got *kernel.Kernel
	app := &ucli.App{
		Name: "polyvol", Writer: io.Discard, ErrWriter: io.Discard,
		Commands: []*ucli.Command{{
			Name:  "probe",
			Flags: importSpecFlags(),
			Action: func(c *ucli.Context) error {
				k, err := loadKernel(c, c.Args().First())
				got = k
				return err
			},
		}},
	}
	if err := app.Run([]string{"polyvol", "probe", "-D", "N=130", "--map", "i0=x", polyhedral + "star2d-5pt.jscop"}); err != nil {
		t.Fatal(err)
	}
	if got == nil || got.Name != "star2d-5pt" || got.Domain != [3]int64{128, 128, 1} || got.Field("A").Loads[0].Index[1].String() != "x + 1" || got.Field("A").Loads[0].Index[0].String() != "y + 1" {
		t.Errorf("kernel %+v", got)
	}
}

// TestSpecFormats runs predict on a JSCoP named as Polly names the ones it
// reads back, and on a Kerncraft description, which predict imports with
// its -D flags: the description of star3d-r1 predicts what star3d-r1 does.
func TestSpecFormats(t *testing.T) {
	data, err := os.ReadFile(polyhedral + "star2d-5pt.jscop")
	if err != nil {
		t.Fatal(err)
	}
	interchanged := filepath.Join(t.TempDir(), "star2d.jscop.interchanged")
	if err := os.WriteFile(interchanged, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if out := mustRun(t, "predict", interchanged, "-D", "N=130"); !strings.Contains(out, "domain 128,128,1") {
		t.Errorf("predict %s:\n%s", interchanged, out)
	}
	kc := mustRun(t, "predict", polyhedral+"star3d-7pt.yml", "-D", "M=514", "-D", "N=514")
	ref := mustRun(t, "predict", "star3d-r1")
	last := func(s string) string { l := strings.Split(strings.TrimSpace(s), "\n"); return l[len(l)-1] }
	if !strings.HasPrefix(last(ref), "prediction: ") || last(kc) != last(ref) {
		t.Errorf("predict star3d-7pt.yml: %q; star3d-r1: %q", last(kc), last(ref))
	}
	// Standard input is told apart by its keys too.
	yml, err := os.ReadFile(polyhedral + "star3d-7pt.yml")
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := RunWithInput([]string{"polyvol", "predict", "-", "-D", "M=514", "-D", "N=514"}, bytes.NewReader(yml), &stdout, &stderr); code != ExitOK || last(stdout.String()) != last(ref) {
		t.Errorf("predict - < star3d-7pt.yml: exit %d, stderr %q, stdout\n%s", code, stderr.String(), stdout.String())
	}
	// simulate has no -D: the error says how to import.
	_, errOut, code := run(t, "simulate", polyhedral+"star3d-7pt.yml")
	want := `loop k: stop "M-1": constant M is unbound, and so is N (line 25); polyvol simulate has no -D; run: polyvol import kerncraft ` + polyhedral + "star3d-7pt.yml -D M=VALUE -D N=VALUE | polyvol simulate -\n"
	if code != ExitUsage || strings.Count(errOut, "\n") != 1 || !strings.HasSuffix(errOut, want) {
		t.Errorf("simulate star3d-7pt.yml: exit %d, stderr %q", code, errOut)
	}
}

// TestDefineErrors checks that a -D name the input does not have, and -D
// with a polyvol spec, are usage errors on one line that name the value.
func TestDefineErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"predict", polyhedral + "star2d-5pt.jscop", "-D", "N=64", "-D", "M=3"},
			"polyvol: " + polyhedral + "star2d-5pt.jscop: -D M=3: the JSCoP has no parameter M; its only parameter is N\n"},
		{[]string{"import", "kerncraft", polyhedral + "star3d-7pt.yml", "-D", "M=64", "-D", "N=64", "-D", "K=1", "-D", "k=2"},
			"polyvol: " + polyhedral + "star3d-7pt.yml: -D K=1, -D k=2: the kernel description has no constants K and k; its constants are M, N\n"},
		{[]string{"predict", "star2d-r1", "-D", "N=64", "--map", "i=x"},
			"polyvol: embedded example \"star2d-r1\": --map: a polyvol spec has nothing to import; the flags --statement, --map and --element apply to a JSCoP or Kerncraft SPEC (-D binds the parameters of its raw maps)\n"},
		{[]string{"predict", "star2d-r1", "-D", "N=64"},
			"polyvol: star2d-r1.yaml: -D N=64: no parameter of that name in the spec; it names no parameters\n"},
		{[]string{"predict", "testdata/specs/raw-params.yaml", "-D", "N=64", "-D", "Q=1"},
			"polyvol: testdata/specs/raw-params.yaml: -D Q=1: no parameter of that name in the spec; it names N\n"},
	} {
		out, errOut, code := run(t, c.args...)
		if code != ExitUsage || out != "" || errOut != c.want {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 and %q", c.args, code, errOut, c.want)
		}
	}
}

// TestElementFlag checks a JSCoP without "arrays" (the layout before LLVM
// 4): without --element a usage error that names the flag, with it an
// import with a note on the assumed element size, and --element with a
// size no spec allows a usage error.
func TestElementFlag(t *testing.T) {
	path := filepath.Join(t.TempDir(), "noarrays.jscop")
	doc := `{"context": "[N] -> { : N >= 4 }", "name": "for.cond => for.end",
 "statements": [{"name": "S", "domain": "[N] -> { S[i0, i1] : 0 <= i0 < N and 0 <= i1 < N }", "schedule": "[N] -> { S[i0, i1] -> scattering[0, i0, 0, i1, 0] }",
   "accesses": [{"kind": "read", "relation": "[N] -> { S[i0, i1] -> MemRef_A[i0, 1 + i1] }"}, {"kind": "write", "relation": "[N] -> { S[i0, i1] -> MemRef_B[i0, i1] }"}]}]}`
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"import", "jscop", path, "-D", "N=64"}, {"predict", path, "-D", "N=64"}} {
		_, errOut, code := run(t, args...)
		if code != ExitUsage || strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, "polyvol: "+path+":1:1: JSCoP: no key \"arrays\"") || !strings.Contains(errOut, "--element") {
			t.Errorf("%s without --element: exit %d, stderr %q", args[0], code, errOut)
		}
	}
	out, errOut, code := run(t, "import", "jscop", path, "-D", "N=64", "--element", "4")
	if code != ExitOK || !strings.Contains(out, "element: 4\n    extent: [65, 64]") || !strings.Contains(errOut, "polyvol: note: "+path+": no key \"arrays\"") || !strings.Contains(errOut, "4-byte elements (--element)") {
		t.Errorf("import --element 4: exit %d, stdout\n%s\nstderr %q", code, out, errOut)
	}
	out, errOut, code = run(t, "predict", path, "-D", "N=64", "--element", "8")
	if code != ExitOK || !strings.Contains(out, "domain 64,64,1") || !strings.Contains(errOut, "8-byte elements (--element)") {
		t.Errorf("predict --element 8: exit %d, stdout\n%s\nstderr %q", code, out, errOut)
	}
	_, errOut, code = run(t, "import", "jscop", path, "-D", "N=64", "--element", "3")
	if code != ExitUsage || errOut != "polyvol: --element 3: expected 1, 2, 4, 8 or 16 bytes per element\n" {
		t.Errorf("--element 3: exit %d, stderr %q", code, errOut)
	}
}

// TestImportRoundTrip checks, for every input of examples/polyhedral, that
// predicting the file equals predicting the spec that import writes from
// it: the volumes and the prediction, byte for byte.
func TestImportRoundTrip(t *testing.T) {
	for _, c := range []struct {
		file    string
		defines []string // import flags
		launch  []string
	}{
		{"star2d-5pt.jscop", []string{"-D", "N=4096"}, nil},
		{"forward2d-partial.jscop", []string{"-D", "N=4096"}, nil},
		{"lbm-d3q19-aos.jscop", []string{"-D", "N=128"}, nil},
		{"matmul.jscop", []string{"-D", "N=128"}, []string{"--block", "32,8,1", "--fold", "1,1,128"}},
		{"matmul-tiled.jscop", []string{"-D", "N=128"}, []string{"--block", "32,32,1", "--fold", "1,1,128"}},
		{"star3d-7pt.yml", []string{"-D", "M=130", "-D", "N=130"}, nil},
		{"jacobi2d-5pt.c", []string{"-D", "M=1026", "-D", "N=1026"}, nil},
		{"matvec.c", []string{"-D", "M=8192", "-D", "N=512"}, []string{"--block", "256,1", "--fold", "1,512"}},
	} {
		t.Run(c.file, func(t *testing.T) {
			file := polyhedral + c.file
			kind := "jscop"
			if !strings.Contains(c.file, ".jscop") {
				kind = "kerncraft"
			}
			spec := filepath.Join(t.TempDir(), "imported.yaml")
			mustRun(t, append([]string{"import", kind, file, "-o", spec}, c.defines...)...)
			predict := func(args ...string) string {
				var rep struct{ Derived, Prediction json.RawMessage }
				out := mustRun(t, append(append(args, c.launch...), "--format", "json")...)
				if err := json.Unmarshal([]byte(out), &rep); err != nil || len(rep.Derived) == 0 {
					t.Fatalf("%v: %v\n%s", args, err, out)
				}
				return string(rep.Derived) + string(rep.Prediction)
			}
			direct := predict(append([]string{"predict", file}, c.defines...)...)
			if imported := predict("predict", spec); imported != direct {
				t.Errorf("predict of the imported spec differs from predict of the file:\n %s\n %s", imported, direct)
			}
		})
	}
}
