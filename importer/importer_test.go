package importer

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestParseAffine(t *testing.T) {
	consts := map[string]int64{"N": 10, "M": 3}
	resolve := func(name string) (int64, bool, error) {
		if v, ok := consts[name]; ok {
			return v, false, nil
		}
		if name == "i" || name == "j" {
			return 0, true, nil
		}
		return 0, false, &UnboundError{Name: name}
	}
	for _, c := range []struct {
		src, want string // want: the ISL rendering over i, j, or "error: ..." text
	}{
		{"i - 1", "i - 1"},
		{"2*i + N*j - M", "2*i + 10*j - 3"},
		{"(j+1)*N + i", "i + 10*j + 10"},
		{"-(i - j) * 2", "-2*i + 2*j"},
		{"N**2 + N/2 + N//5 + N%4", "109"},
		{"(4*i + 2) / 2", "2*i + 1"},
		{"+i", "i"},
		{"i*j", "error: not affine"},
		{"i/2", "error: does not divide"},
		{"i % 2", "error: not affine"},
		{"i**2", "error: not affine"},
		{"N/0", "error: by zero"},
		{"K + i", "error: parameter K is unbound"},
		{"1.5*i", "error: floating-point"},
		{"(i + 1", "error: expected ')'"},
		{"i +", "error: expected a number"},
		{"9223372036854775807 + 1", "error: overflow"},
		{"i $ 2", "error: unexpected character"},
	} {
		a, err := ParseAffine(c.src, resolve)
		if want, isErr := strings.CutPrefix(c.want, "error: "); isErr {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%q: error %v, want one containing %q", c.src, err, want)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", c.src, err)
			continue
		}
		if got := a.ISL([]string{"i", "j"}); got != c.want {
			t.Errorf("%q = %q, want %q", c.src, got, c.want)
		}
	}
	var ue *UnboundError
	if _, err := ParseAffine("K", resolve); !errors.As(err, &ue) || ue.Name != "K" {
		t.Errorf("unbound name: %v does not unwrap to the UnboundError", err)
	}
}

func TestDefinesAndMap(t *testing.T) {
	p, err := ParseDefines([]string{"N=4096", " M = -2 ", "BIG=1_000_000"})
	if err != nil || p["N"] != 4096 || p["M"] != -2 || p["BIG"] != 1000000 {
		t.Errorf("ParseDefines: %v, %v", p, err)
	}
	for _, bad := range [][]string{{"N"}, {"N=x"}, {"1N=3"}, {"N=1", "N=2"}, {"N=1.5"}} {
		if _, err := ParseDefines(bad); err == nil {
			t.Errorf("ParseDefines(%q) accepted", bad)
		}
	}
	m, err := ParseMap("i0=y, i1=x")
	if err != nil || m["i0"] != 1 || m["i1"] != 0 || len(m) != 2 {
		t.Errorf("ParseMap: %v, %v", m, err)
	}
	for _, bad := range []string{"i", "i=w", "i=x,j=x", "i=x,i=y", "=x"} {
		if _, err := ParseMap(bad); err == nil {
			t.Errorf("ParseMap(%q) accepted", bad)
		}
	}
}

func TestElementSize(t *testing.T) {
	for _, c := range []struct {
		typ       string
		bytes     int64
		fp, isErr int
	}{
		{"double", 8, 8, 0}, {"float", 4, 4, 0}, {"half", 2, 2, 0}, {"i32", 4, 0, 0}, {"i64", 8, 0, 0},
		{"i8", 1, 0, 0}, {"ptr", 8, 0, 0}, {"double*", 8, 0, 0}, {"<4 x float>", 16, 4, 0}, {"<2 x double>", 16, 8, 0},
		{"int", 4, 0, 0}, {"unsigned  long", 8, 0, 0}, {"double _Complex", 16, 8, 0},
		{"x86_fp80", 0, 0, 1}, {"<3 x float>", 0, 0, 1}, {"%struct.cell", 0, 0, 1}, {"", 0, 0, 1},
	} {
		b, fp, err := ElementSize(c.typ)
		if (err != nil) != (c.isErr == 1) || b != c.bytes || fp != c.fp {
			t.Errorf("ElementSize(%q) = %d, %d, %v; want %d, %d, error %v", c.typ, b, fp, err, c.bytes, c.fp, c.isErr == 1)
		}
	}
}

func TestISLTextHelpers(t *testing.T) {
	params, body, err := paramList("[N, M] -> { S[i0, i1] : 0 <= i0 < N }")
	if err != nil || !slices.Equal(params, []string{"N", "M"}) || !strings.HasPrefix(body, "{ S[") {
		t.Errorf("paramList: %q, %q, %v", params, body, err)
	}
	if p, _, err := paramList("{ : }"); err != nil || p != nil {
		t.Errorf("paramList without parameters: %q, %v", p, err)
	}
	for _, bad := range []string{"S[i]", "[N + 1] -> { S[i] }", "N -> { S[i] }"} {
		if _, _, err := paramList(bad); err == nil {
			t.Errorf("paramList(%q) accepted", bad)
		}
	}
	if !mentions("{ S[i] : i < N }", "N") || mentions("{ S_N[i] : i < 4 }", "N") {
		t.Error("mentions")
	}
	for src, want := range map[string][]string{
		"{ S[i0, i1] : 0 <= i0 }":        {"i0", "i1"},
		"{ S[i, 0, floor((j)/2)] }":      {"i", "i1", "i2"},
		"{ [x, x] }":                     {"x", "i1"},
		"{ S[] }":                        nil,
		"{ S[i, (j + k), [l]] : i > 0 }": {"i", "i1", "i2"},
	} {
		if got := tupleNames(src); !slices.Equal(got, want) {
			t.Errorf("tupleNames(%q) = %q, want %q", src, got, want)
		}
	}
	if v, err := EvalSize("(2 + (sext i32 %N to i64))", map[string]int64{"N": 256}); err != nil || v != 258 {
		t.Errorf("EvalSize: %d, %v", v, err)
	}
	if _, err := EvalSize("0", nil); err == nil {
		t.Error("EvalSize(0) accepted")
	}
}

// TestBuild checks the core on a hand-made Scop: parameters, the shift of
// the domain, the folding of a four-dimensional array into three field
// dimensions (AoS), the inference of a "*" size, and a skipped scalar.
func TestBuild(t *testing.T) {
	s := &Scop{
		File:    "t.jscop",
		Name:    "aos",
		Context: "[N] -> { : N > 2 }",
		Arrays: []*Array{
			{Name: "MemRef_f", Field: "f", Sizes: []int64{0, 6, 10, 3}, Element: 8, FPBytes: 8, Where: `array "MemRef_f"`},
			{Name: "MemRef_g", Field: "g", Sizes: []int64{40}, Element: 4, FPBytes: 4, Where: `array "MemRef_g"`},
		},
		Statement: &Statement{
			Name: "S", Where: `statement "S"`,
			Domain: "[N] -> { S[k, j, i] : 1 <= k <= N and 0 <= j < 4 and 2 <= i < 10 }",
			Accesses: []Access{
				{Relation: "[N] -> { S[k, j, i] -> MemRef_f[k, j, i, 2] }", Where: "a0"},
				{Relation: "{ S[k, j, i] -> MemRef_tmp[] }", Where: "a1"},
				{Write: true, Relation: "{ S[k, j, i] -> MemRef_g[o] : 4j <= o < 4j + 4 }", Where: "a2"},
			},
		},
		Flops: 3,
	}
	res, err := Build(s, Options{Params: map[string]int64{"N": 5}, Registers: 40})
	if err != nil {
		t.Fatal(err)
	}
	// The store to g depends on j alone: a reduction over i and k, which
	// go outward (y, z) and j on x.
	k := res.Kernel
	if k.Domain != [3]int64{4, 8, 5} || k.Dims != 3 || k.Registers != 40 || k.Flops != 3 || k.FPType != 8 {
		t.Fatalf("domain %v dims %d registers %d flops %g fp %d", k.Domain, k.Dims, k.Registers, k.Flops, k.FPType)
	}
	f := k.Field("f")
	if f.Extent != [3]int64{30, 6, 6} {
		t.Errorf("f extent %v, want 30 x 6 x 6 (3·10 folded, the \"*\" inferred from k ≤ 5)", f.Extent)
	}
	if got, want := res.Spec.Fields[0].LoadISL[0], "{ [x, y, z] -> f[8 + 3y, x, 1 + z] }"; got != want {
		t.Errorf("f map %q, want %q", got, want)
	}
	if g := k.Field("g"); len(g.Stores) != 4 || g.Extent != [3]int64{40, 1, 1} {
		t.Errorf("g: %d stores, extent %v", len(g.Stores), g.Extent)
	}
	if got, want := res.Spec.Fields[1].StoreISL[0], "{ [x, y = 7, z = 4] -> g[o0] : 4x <= o0 <= 3 + 4x }"; got != want {
		t.Errorf("g store %q, want %q (once per output, at the last i and k)", got, want)
	}
	if len(res.Notes) != 2 || !strings.Contains(res.Notes[0], "MemRef_tmp") || !strings.Contains(res.Notes[1], "do not depend on loops k and i") {
		t.Errorf("notes %q", res.Notes)
	}
	if !strings.HasPrefix(string(res.YAML()), "# polyvol kernel spec imported from t.jscop") || !strings.Contains(string(res.JSON()), `"load_isl"`) {
		t.Errorf("renderings:\n%s\n%s", res.YAML(), res.JSON())
	}
	// --map: k along x.
	res, err = Build(s, Options{Params: map[string]int64{"N": 5}, Map: map[string]int{"k": 0}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Kernel.Domain != [3]int64{5, 4, 8} {
		t.Errorf("--map k=x: domain %v, want 5 x 4 x 8 (the output j first, then the reduction i)", res.Kernel.Domain)
	}
}

// TestConjuncts checks the split of a parameter set's constraints into the
// constraints that must all hold, and the bodies it does not split.
func TestConjuncts(t *testing.T) {
	for body, want := range map[string][]string{
		"{ : N >= 4 }": {"N >= 4"},
		"{  : -9223372036854775808 <= N <= 9223372036854775807 and p % 128 = 0 }": {"-9223372036854775808 <= N", "N <= 9223372036854775807", "p % 128 = 0"},
		"{ : 0<=N<M and exists (e0: N = 2e0 and e0 > 1) }":                        {"0 <= N", "N < M", "exists (e0: N = 2e0 and e0 > 1)"},
		"{ : 0 < N, M and floor((N)/4) >= 2 }":                                    {"0 < N, M", "floor((N)/4) >= 2"},
		"{ : band >= 1 and ordinal <= 3 }":                                        {"band >= 1", "ordinal <= 3"},
		"{ : N > 0 or M > 0 }":                                                    nil,
		"{ : N > 0; : M > 0 }":                                                    nil,
		"{ : N > 0 implies M > 0 }":                                               nil,
		"{ : }":                                                                   nil,
		"{ : N > 0 and }":                                                         nil,
		"{ N > 0 ":                                                                nil,
	} {
		if got := Conjuncts(body); !slices.Equal(got, want) {
			t.Errorf("Conjuncts(%q) = %q, want %q", body, got, want)
		}
	}
}

// TestContextViolation checks that parameter values outside the context
// name the constraints they violate, not the whole context with Polly's
// bounds of a 64-bit parameter.
func TestContextViolation(t *testing.T) {
	s := &Scop{
		File:       "c.jscop",
		Context:    "[N, p] -> {  : -9223372036854775808 <= N <= 9223372036854775807 and -9223372036854775808 <= p <= 9223372036854775807 and N >= 8 and p % 128 = 0 }",
		ContextPos: Pos{Line: 2, Col: 15},
		Arrays:     []*Array{{Name: "A", Field: "A", Sizes: []int64{64}, Element: 8, Where: `array "A"`}},
		Statement: &Statement{Name: "S", Where: `statement "S"`, Domain: "{ S[i] : 0 <= i < 64 }",
			Accesses: []Access{{Relation: "{ S[i] -> A[i] }", Where: "a0"}}},
	}
	for _, c := range []struct {
		params map[string]int64
		want   string // "" for no error
	}{
		{map[string]int64{"N": 8, "p": 256}, ""},
		{map[string]int64{"N": 8, "p": 100}, "c.jscop:2:15: context: the context's constraint p % 128 = 0 does not hold for p=100"},
		{map[string]int64{"N": 3, "p": 100}, "c.jscop:2:15: context: the context's constraints N >= 8 and p % 128 = 0 do not hold for N=3, p=100"},
	} {
		_, err := Build(s, Options{Params: c.params})
		if c.want == "" {
			if err != nil {
				t.Errorf("%v: %v", c.params, err)
			}
			continue
		}
		if err == nil || err.Error() != c.want {
			t.Errorf("%v: error %v, want %q", c.params, err, c.want)
		}
	}
	// A disjunction cannot be split: the message shows the context.
	s.Context = "[N] -> { : N < 0 or N > 100 }"
	_, err := Build(s, Options{Params: map[string]int64{"N": 50}})
	if err == nil || !strings.Contains(err.Error(), "the parameter values N=50 violate the context [N] -> { : N < 0 or N > 100 }") {
		t.Errorf("disjunction: %v", err)
	}
}

// TestErrorCut checks that an error line longer than maxErrorLine is cut
// after a whole part or word, never inside a word.
func TestErrorCut(t *testing.T) {
	e := Errorf("f.jscop", Pos{Line: 1, Col: 2}, `statement "S"`, "the domain %s is not a box", strings.Repeat("{ S[i, j] : 0 <= i <= 7 and 0 <= j <= i } ", 10))
	got := e.Error()
	if len(got) > maxErrorLine || !strings.HasSuffix(got, " …") || !strings.HasPrefix(got, `f.jscop:1:2: statement "S": the domain { S[i, j] `) {
		t.Fatalf("cut line %q (%d bytes)", got, len(got))
	}
	// The text before the mark ends with a whole word of the message.
	words := strings.Fields(strings.TrimSuffix(got, " …"))
	if last := words[len(words)-1]; !slices.Contains(strings.Fields(e.Msg), last) {
		t.Errorf("the line %q ends inside a word: %q", got, last)
	}
}

// TestImplicitArrays checks the arrays Build declares for a Scop without
// array declarations: each size the largest subscript accessed plus one,
// the fourth dimension folded into x with the inferred size, and the field
// name of Scop.FieldName unless another field has it.
func TestImplicitArrays(t *testing.T) {
	s := &Scop{
		File: "t.jscop", Name: "t", ImplicitElement: 8,
		FieldName: func(a string) string { return strings.TrimPrefix(a, "MemRef_") },
		Arrays:    []*Array{{Name: "g", Field: "g", Sizes: []int64{4}, Element: 4, Where: `array "g"`}},
		Statement: &Statement{
			Name: "S", Where: `statement "S"`,
			Domain: "{ S[k, j, i] : 0 <= k <= 1 and 0 <= j <= 2 and 0 <= i <= 3 }",
			Accesses: []Access{
				{Relation: "{ S[k, j, i] -> MemRef_f[k, j, i, 2] }", Where: "a0"},
				{Relation: "{ S[k, j, i] -> MemRef_g[i + 1] }", Where: "a1"},
				{Write: true, Relation: "{ S[k, j, i] -> g[i] }", Where: "a2"},
			},
		},
	}
	res, err := Build(s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	k := res.Kernel
	// f[2][3][4][3]: x is i·3 + the last subscript, 12 wide.
	if f := k.Field("f"); f == nil || f.Element != 8 || f.Extent != [3]int64{12, 3, 2} || res.Spec.Fields[1].LoadISL[0] != "{ [x, y, z] -> f[2 + 3x, y, z] }" {
		t.Errorf("f: %+v, map %q", f, res.Spec.Fields[1].LoadISL)
	}
	// MemRef_g cannot be field g, which the declared array g is.
	if mg := k.Field("MemRef_g"); mg == nil || mg.Extent != [3]int64{5, 1, 1} || k.Field("g").Extent != [3]int64{4, 1, 1} {
		t.Errorf("fields %v", res.Spec.Fields)
	}
}

// TestExcerpt checks that a quoted input text is put on one line and cut
// after a whole word.
func TestExcerpt(t *testing.T) {
	long := strings.Repeat("0 <= i1 <= 9 and\n", 10) // 17 bytes a line, 170 in all
	want := strings.TrimSpace(strings.Repeat("0 <= i1 <= 9 and ", 5)) + " 0 <= i1 <= 9 …"
	// 5 lines fill 85 bytes; "0 <= i1 <= 9 " reaches 98, "and " would pass 100.
	if got := Excerpt(long); got != want {
		t.Errorf("Excerpt = %q, want %q", got, want)
	}
	if got := Excerpt("a\n b"); got != "a b" {
		t.Errorf("Excerpt(a b) = %q", got)
	}
}
