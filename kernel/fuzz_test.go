package kernel

import (
	"math/rand/v2"
	"testing"
)

// FuzzParseExpr checks that the expression parser never panics and that a
// parsed expression survives a String round trip and evaluates like its text.
func FuzzParseExpr(f *testing.F) {
	for _, s := range []string{"x", "3*x + 1", "floor((x - 1)/4)", "x % 4 - y mod 3", "-(z - 2*y)", "x*y", "x / 4", "1.5", "floor(x/0)", "((x)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		e, err := ParseExpr(src)
		if err != nil {
			if _, ok := err.(*ExprError); !ok {
				t.Fatalf("%q: error %T is not *ExprError", src, err)
			}
			return
		}
		back, err := ParseExpr(e.String())
		if err != nil || !back.Equal(e) {
			t.Fatalf("%q: String %q re-parses to %v, %v", src, e, back, err)
		}
		rng := rand.New(rand.NewPCG(uint64(len(src)), 7))
		checkAgainstOracle(t, src, e, rng, 8)
	})
}

// FuzzParse checks that the spec loader never panics and reports every
// failure as a *SpecError.
func FuzzParse(f *testing.F) {
	f.Add([]byte(starSpec))
	f.Add([]byte(`{"name": "a", "domain": [4], "fields": [{"name": "A", "element": 8, "load": [["x"]]}]}`))
	f.Add([]byte("name: a\ndomain: [4, 4]\nfields:\n  - name: A\n    element: 8\n    load: [[x, y*x]]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		k, err := Parse(data, "fuzz.yaml")
		if err != nil {
			if _, ok := err.(*SpecError); !ok {
				t.Fatalf("error %T is not *SpecError: %v", err, err)
			}
			return
		}
		if k.Name == "" || len(k.Fields) == 0 {
			t.Fatalf("accepted spec without name or fields: %+v", k)
		}
	})
}
