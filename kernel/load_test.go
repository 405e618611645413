package kernel

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/polyvol/polyvol/examples"
)

const starSpec = `# comment
name: star
domain: [64, 32, 16]
flops: 7
fields:
  - name: A
    element: 8
    offset: 4
    load:
      - [x, y, z]
      - [x + 1, y, z]
      - [1 + x, y, z]
      - [x, y, z - 4]
    store:
      - [x, y, z]
  - name: V
    element: 4
    extent: [1000]
    scalar: true
    multiplicity: 3
    load:
      - [3*x + 1]
      - 3*x + 2
  - name: M
    element: 8
    extent: [1000, 1000]
    load_isl:
      - "{ [x, y, z] -> M[x, y + 1] }"
`

// starMap is a MapReader for the tests of the loader (the relation
// package tests the reading of maps): every map stands for the access
// (x, y + 1) of starSpec's raw map.
var starMap = WithMapReader(func(src string, _ MapSite) ([]Access, error) {
	y1, err := Var(1).Add(Const(1))
	return []Access{{Index: [3]Expr{Var(0), y1}, Text: src}}, err
})

func TestParseValidSpec(t *testing.T) {
	k, err := Parse([]byte(starSpec), "star.yaml", starMap)
	if err != nil {
		t.Fatal(err)
	}
	if k.Name != "star" || k.Domain != [3]int64{64, 32, 16} || k.Dims != 3 || k.Flops != 7 ||
		k.Registers != DefaultRegisters || k.FPType != DefaultFPType || k.Source != "star.yaml" || len(k.Fields) != 3 {
		t.Fatalf("kernel = %+v", k)
	}
	a, v, m := k.Fields[0], k.Fields[1], k.Fields[2]
	if a.Extent != k.Domain || len(a.Loads) != 3 || len(a.Stores) != 1 || a.Multiplicity != 1 {
		t.Errorf("A: extent %v, %d loads (x+1 and 1+x are one), %d stores, multiplicity %d", a.Extent, len(a.Loads), len(a.Stores), a.Multiplicity)
	}
	if v.Extent != [3]int64{1000, 1, 1} || !v.Scalar || v.Multiplicity != 3 || len(v.Loads) != 2 {
		t.Errorf("V = %+v", v)
	}
	// The raw map is turned into the access it stands for.
	if len(m.Loads) != 1 || m.Loads[0].String() != "(x, y + 1, 0)" || m.Loads[0].Text != "{ [x, y, z] -> M[x, y + 1] }" {
		t.Errorf("M: loads %v", m.Loads)
	}
	// Element index α + e0 + e1·N0 + e2·N0·N1 of A at (x, y, z−4), by hand.
	p := Point{5, 6, 7}
	if got, want := a.ElementIndex(a.Loads[2], p), int64(4+5+6*64+3*64*32); got != want {
		t.Errorf("ElementIndex = %d, want %d", got, want)
	}
	if got, want := a.ByteAddress(a.Loads[2], p), 8*int64(4+5+6*64+3*64*32); got != want {
		t.Errorf("ByteAddress = %d, want %d", got, want)
	}
	for _, acc := range append(a.Loads, a.Stores...) {
		e, err := a.ElementIndexExpr(acc)
		if err != nil || e.Eval(p) != a.ElementIndex(acc, p) {
			t.Errorf("ElementIndexExpr(%s) = %s at %v gives %d, ElementIndex %d (%v)", acc, e, p, e.Eval(p), a.ElementIndex(acc, p), err)
		}
	}
	// A single expression e is the tuple (e, 0, 0): linear index α + e.
	if got := v.ElementIndex(v.Loads[1], p); got != 17 {
		t.Errorf("V ElementIndex(3x+2) at x=5 = %d, want 17", got)
	}
	if got := k.FlopsPerThread([3]int64{1, 2, 2}); got != 28 {
		t.Errorf("FlopsPerThread = %v, want 28", got)
	}
}

func TestParseJSON(t *testing.T) {
	src := "{\n\t\"name\": \"copy\",\n\t\"domain\": [100],\n\t\"fields\": [\n\t\t{\"name\": \"A\", \"element\": 8, \"load\": [[\"x\"]]},\n\t\t{\"name\": \"B\", \"element\": 8, \"store\": [[\"x + y\"]]}\n\t]\n}\n"
	_, err := Parse([]byte(src), "copy.json")
	// B has one extent entry (the domain's) but x + y is fine as one index.
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(src, `"x + y"`, `"x * y"`, 1)
	_, err = Parse([]byte(bad), "copy.json")
	wantError(t, err, "copy.json:6:", `field "B" store[0] index 0, column 3`, "not affine")
}

func wantError(t *testing.T, err error, parts ...string) {
	t.Helper()
	var se *SpecError
	if !errors.As(err, &se) {
		t.Fatalf("got %v, want a *SpecError containing %q", err, parts)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q does not contain %q", err, p)
		}
	}
}

func TestParseErrorsNamePositions(t *testing.T) {
	// Each case edits starSpec; the error must name file, line:column and
	// what is wrong.
	tests := []struct {
		name, old, new string
		want           []string
	}{
		{"non-affine", "[x + 1, y, z]", "[x + 1, y*x, z]", []string{"star.yaml:11:17:", `field "A" load[1] index 1, column 2`, "not affine"}},
		{"unknown name", "[x, y, z - 4]", "[x, y, w - 4]", []string{"star.yaml:13:16:", `field "A" load[3] index 2, column 1`, `unknown name "w"`}},
		{"division", "3*x + 2", "3*x / 2", []string{"star.yaml:23:9:", `field "V" load[1] index 0, column 5`, "floor(e / c)"}},
		{"float", "[3*x + 1]", "[3.5*x]", []string{"star.yaml:22:10:", `field "V" load[0] index 0, column 2`, "floating-point"}},
		{"store", "    store:\n      - [x, y, z]", "    store:\n      - [x, y, floor(z/0)]", []string{"star.yaml:15:", `field "A" store[0] index 2, column 8`, "positive"}},
		{"unknown top key", "flops: 7", "flop: 7", []string{"star.yaml:4:1:", `unknown key "flop"`}},
		{"unknown field key", "    offset: 4", "    ofset: 4", []string{"star.yaml:8:5:", `fields[0]: unknown key "ofset"`}},
		{"duplicate key", "flops: 7", "flops: 7\nflops: 8", []string{"star.yaml:5:1:", `"flops" given twice`}},
		{"missing name", "name: star\n", "", []string{"star.yaml:", `missing required key "name"`}},
		{"empty name", "name: star", `name: ""`, []string{"star.yaml:2:7:", "must not be empty"}},
		{"missing domain", "domain: [64, 32, 16]\n", "", []string{`missing required key "domain"`}},
		{"zero domain", "domain: [64, 32, 16]", "domain: [64, 0, 16]", []string{"star.yaml:3:14:", "domain[1] = 0", "at least 1"}},
		{"negative domain", "domain: [64, 32, 16]", "domain: [-64, 32, 16]", []string{"star.yaml:3:10:", "domain[0] = -64"}},
		{"domain 0 entries", "domain: [64, 32, 16]", "domain: []", []string{"star.yaml:3:9:", "1 to 3 entries", "got 0"}},
		{"domain 4 entries", "domain: [64, 32, 16]", "domain: [64, 32, 16, 2]", []string{"star.yaml:3:9:", "got 4"}},
		{"domain not integer", "domain: [64, 32, 16]", "domain: [64, 32, sixteen]", []string{"star.yaml:3:18:", "domain[2]: expected an integer"}},
		{"huge domain", "domain: [64, 32, 16]", "domain: [10000000, 10000000, 100]", []string{"star.yaml:3:30:", "2^50"}},
		{"zero extent", "extent: [1000]\n", "extent: [0]\n", []string{"star.yaml:18:14:", `field "V" extent[0] = 0`}},
		{"extent overflow", "extent: [1000, 1000]", "extent: [1000, 1000]\n    offset: 1000000000000000000", []string{"star.yaml:27:13:", `field "M"`, "2^60 bytes"}},
		{"address overflow", "[3*x + 1]", "[1000000000000000000*x]", []string{"star.yaml:22:9:", `field "V" load[0]`, "exceed"}},
		{"element size", "element: 4", "element: 3", []string{"star.yaml:17:14:", `field "V" element = 3`, "1, 2, 4, 8 or 16"}},
		{"missing element", "    element: 4\n", "", []string{"star.yaml:16:11:", `field "V": missing required key "element"`}},
		{"duplicate field", "name: M", "name: A", []string{"star.yaml:24:11:", `field "A": name already used by the field at line 6`}},
		{"no access", "    load_isl:\n      - \"{ [x, y, z] -> M[x, y + 1] }\"\n", "", []string{"star.yaml:24:11:", `field "M": no accesses`}},
		{"multiplicity", "multiplicity: 3", "multiplicity: 0", []string{"star.yaml:20:19:", `field "V" multiplicity = 0`}},
		{"registers", "flops: 7", "flops: 7\nregisters: 256", []string{"star.yaml:5:12:", "registers = 256", "1 to 255"}},
		{"shared", "flops: 7", "flops: 7\nshared_bytes: -1", []string{"star.yaml:5:15:", "shared_bytes = -1"}},
		{"fp_type", "flops: 7", "flops: 7\nfp_type: 2", []string{"star.yaml:5:10:", "fp_type = 2", "4 (single) or 8"}},
		{"negative flops", "flops: 7", "flops: -7", []string{"star.yaml:4:8:", "flops = -7"}},
		{"scalar not bool", "scalar: true", "scalar: 1", []string{"star.yaml:19:13:", `field "V" scalar: expected true or false`}},
		{"too many indices", "[x, y, z - 4]", "[x, y, z, 0]", []string{"star.yaml:13:9:", `field "A" load[3]`, "1 to 3 index expressions"}},
		{"index beyond extent", "[3*x + 1]", "[x, y]", []string{"star.yaml:22:9:", `field "V" load[0]`, "only 1 entries"}},
		{"empty raw map", `"{ [x, y, z] -> M[x, y + 1] }"`, `"  "`, []string{"star.yaml:28:9:", `field "M" load_isl[0]: empty ISL map`}},
		{"fields not list", "fields:\n", "fields: 3\nx:\n", []string{"star.yaml:", "unknown key \"x\""}},
		{"yaml syntax", "domain: [64, 32, 16]", "domain: [64, 32, 16", []string{"star.yaml:", "syntax error"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(starSpec, tc.old) {
				t.Fatalf("test edit %q not found in spec", tc.old)
			}
			src := strings.Replace(starSpec, tc.old, tc.new, 1)
			_, err := Parse([]byte(src), "star.yaml", starMap)
			wantError(t, err, tc.want...)
		})
	}
}

// TestMapReader checks that the loader hands each raw map to the reader
// with the domain and the parameters, reports the reader's error at the
// map's position, keeps an unmodelled map raw with its reason, and refuses
// raw maps without a reader.
func TestMapReader(t *testing.T) {
	var seen []MapSite
	reject := WithMapReader(func(src string, site MapSite) ([]Access, error) {
		seen = append(seen, site)
		return nil, fmt.Errorf("invalid ISL map: syntax error at 'M'")
	})
	_, err := Parse([]byte(strings.Replace(starSpec, "domain:", "params: {N: 7}\ndomain:", 1)), "star.yaml", reject, WithParams(map[string]int64{"M": 3}))
	wantError(t, err, "star.yaml:29:9:", `field "M" load_isl[0]: invalid ISL map: syntax error at 'M'`)
	if len(seen) != 1 || seen[0].Dims != 3 || seen[0].Params["N"] != 7 || seen[0].Params["M"] != 3 {
		t.Errorf("reader saw %+v", seen)
	}
	unmodelled := WithMapReader(func(string, MapSite) ([]Access, error) {
		return nil, &UnmodelledMapError{Reason: "a range of varying width"}
	})
	_, err = Parse([]byte(starSpec), "star.yaml", unmodelled)
	wantError(t, err, "star.yaml:28:9:", `field "M" load_isl[0]: the map cannot be turned into index expressions, which polyvol counts: a range of varying width`)
	_, err = Parse([]byte(starSpec), "star.yaml")
	wantError(t, err, "star.yaml:28:9:", "raw ISL maps need a map reader")
}

func TestParseEmptyAndNonMapping(t *testing.T) {
	for _, src := range []string{"", "# only a comment\n", "- a\n- b\n", "just text"} {
		_, err := Parse([]byte(src), "bad.yaml")
		wantError(t, err, "bad.yaml:1:1:")
	}
}

func TestLoadFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "star.yaml")
	if err := os.WriteFile(path, []byte(starSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	k, err := LoadFile(path, starMap)
	if err != nil || k.Source != path {
		t.Fatalf("LoadFile = %v, %v", k, err)
	}
	if _, err := LoadFile(filepath.Join(t.TempDir(), "missing.yaml")); err == nil || !strings.Contains(err.Error(), "missing.yaml") {
		t.Errorf("missing file: %v", err)
	}
}

// TestExamples loads every embedded example and checks the access counts
// that the spec's check cases and the files' own descriptions state.
func TestExamples(t *testing.T) {
	want := map[string]struct{ fields, loads, stores int }{
		"vec-copy":         {2, 1, 1},
		"vec3-scale":       {3, 4, 4},
		"star2d-r1":        {2, 5, 1},
		"star3d-r1":        {2, 7, 1},
		"star3d-r4":        {2, 25, 1},
		"box3d-r1":         {2, 27, 1},
		"lbm-d3q19-pull":   {38, 19, 19},
		"lbm-d3q19-aos":    {2, 19, 19},
		"lbm-d3q27-aos":    {2, 27, 27},
		"transpose2d":      {2, 1, 1},
		"allen-cahn-d3q15": {32, 22, 16},
		// 15×15 filter taps of the input, one output; the filter lives in
		// constant memory and is no field.
		"convolution-15x15": {2, 225, 1},
		// The same kernels with the input staged in shared memory.
		"star3d-r1-staged":         {2, 7, 1},
		"convolution-15x15-staged": {2, 225, 1},
		// A 5-point star of the state temp plus the power at the point,
		// one output.
		"hotspot": {3, 6, 1},
	}
	names := examples.Names()
	if len(names) != len(want) {
		t.Errorf("examples %v, want %d", names, len(want))
	}
	for _, name := range names {
		k := loadExample(t, name)
		loads, stores := 0, 0
		for _, f := range k.Fields {
			loads += len(f.Loads)
			stores += len(f.Stores)
		}
		w := want[name]
		if k.Name != name || len(k.Fields) != w.fields || loads != w.loads || stores != w.stores {
			t.Errorf("%s: name %q, %d fields, %d loads, %d stores; want %d, %d, %d", name, k.Name, len(k.Fields), loads, stores, w.fields, w.loads, w.stores)
		}
	}
}

// TestLBMPullOffsets checks that every D3Q19 population is pulled from a
// distinct upstream neighbour within distance 1 and never diagonal in all
// three axes (that is D3Q27).
func TestLBMPullOffsets(t *testing.T) {
	k := loadExample(t, "lbm-d3q19-pull")
	seen := map[[3]int64]bool{}
	for _, f := range k.Fields {
		for _, a := range f.Loads {
			var c [3]int64
			nonzero := 0
			for i, e := range a.Index {
				coef, off, ok := e.Linear()
				if !ok || coef != Var(i).lin || off < -1 || off > 1 {
					t.Fatalf("%s: load %s is not (x+o, y+o, z+o)", f.Name, a)
				}
				c[i] = off
				if off != 0 {
					nonzero++
				}
			}
			if seen[c] || nonzero == 3 {
				t.Errorf("%s: offset %v repeated or a D3Q27 corner", f.Name, c)
			}
			seen[c] = true
		}
	}
	if len(seen) != 19 {
		t.Errorf("%d distinct pull offsets, want 19", len(seen))
	}
}

// TestLongExpressionErrorIsShort checks that an error about a huge
// expression quotes only its start, so that it stays one readable line.
func TestLongExpressionErrorIsShort(t *testing.T) {
	src := strings.Repeat("(", 100000) + "x" + strings.Repeat(")", 100000)
	_, err := Parse([]byte("name: deep\ndomain: [8]\nfields:\n  - name: A\n    element: 8\n    load: [\""+src+"\"]\n"), "deep.yaml")
	if err == nil || len(err.Error()) > 400 || !strings.Contains(err.Error(), "nested deeper than 64 levels") || !strings.Contains(err.Error(), "…") {
		t.Errorf("error of %d bytes: %.300v", len(fmt.Sprint(err)), err)
	}
}

// TestOneDocument checks that text after the spec's document is an error,
// not silently ignored, and that flops are bounded.
func TestOneDocument(t *testing.T) {
	spec := "name: a\ndomain: [8]\nfields:\n  - name: A\n    element: 8\n    load: [[x]]\n"
	for _, c := range []struct{ src, want string }{
		{spec + "---\nname: b\n", "a.yaml:7:1: syntax error: a spec is one YAML or JSON document, but another starts here"},
		{`{"name": "a", "domain": [8], "fields": [{"name": "A", "element": 8, "load": [["x"]]}]} garbage`, "a.yaml:1:88: syntax error"},
		{strings.Replace(spec, "fields:", "flops: 1.7e308\nfields:", 1), "a.yaml:3:8: flops = 1.7e+308: expected 0 to 10^9"},
		{strings.Replace(spec, "fields:", "flops: -1\nfields:", 1), "flops = -1"},
	} {
		if _, err := Parse([]byte(c.src), "a.yaml"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want it to contain %q", c.src, err, c.want)
		}
	}
	if _, err := Parse([]byte(spec+"---\n"), "a.yaml"); err == nil {
		t.Errorf("an empty second document was accepted")
	}
}

// TestFPTypeDefaultFollowsFields checks the precision of a spec without
// fp_type: single when every element is at most 4 bytes, double when one
// is wider, and an explicit fp_type wins.
func TestFPTypeDefaultFollowsFields(t *testing.T) {
	for _, c := range []struct {
		spec string
		want int
	}{
		{"name: f\ndomain: [64]\nfields:\n  - {name: a, element: 4, load: [[x]]}\n  - {name: b, element: 2, store: [[x]]}\n", 4},
		{"name: d\ndomain: [64]\nfields:\n  - {name: a, element: 4, load: [[x]]}\n  - {name: b, element: 8, store: [[x]]}\n", 8},
		{"name: e\ndomain: [64]\nfp_type: 8\nfields:\n  - {name: a, element: 4, load: [[x]]}\n", 8},
	} {
		k, err := Parse([]byte(c.spec), "fp.yaml")
		if err != nil {
			t.Fatal(err)
		}
		if k.FPType != c.want {
			t.Errorf("%s: fp_type %d, want %d", k.Name, k.FPType, c.want)
		}
	}
}

// TestNamesWithoutControlCharacters checks that a kernel or field name
// into which a YAML or JSON escape puts a control character is an error at
// the name, with the character and its byte offset, and that CheckName
// finds invalid UTF-8 too.
func TestNamesWithoutControlCharacters(t *testing.T) {
	for _, tc := range []struct{ spec, want string }{
		{"name: \"vec\\0copy\"\ndomain: [64]\nfields:\n  - name: A\n    element: 8\n    load: [[x]]\n", `t.yaml:1:7: name: control character U+0000 at byte offset 3 (in "vec\x00copy")`},
		{"name: \"\\x7f\"\ndomain: [64]\nfields:\n  - name: A\n    element: 8\n    load: [[x]]\n", `t.yaml:1:7: name: control character U+007F at byte offset 0`},
		{"name: v\ndomain: [64]\nfields:\n  - name: A\n    element: 8\n    load: [[x]]\n  - name: \"B\\u0085\"\n    element: 8\n    store: [[x]]\n", `t.yaml:7:11: fields[1] name: control character U+0085 at byte offset 1`},
		{`{"name": "v", "domain": [64], "fields": [{"name": "A\nB", "element": 8, "load": [["x"]]}]}`, `t.yaml:1:51: fields[0] name: control character U+000A at byte offset 1`},
		{`{"name": "v\u0001", "domain": [64], "fields": [{"name": "A", "element": 8, "load": [["x"]]}]}`, `t.yaml:1:10: name: control character U+0001 at byte offset 1`},
	} {
		_, err := Parse([]byte(tc.spec), "t.yaml")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v, want %q", tc.spec, err, tc.want)
		}
	}
}
