package kernel

import (
	"strings"
	"testing"
)

// TestParseISLMap checks maps in ISL notation against the index tuples
// they stand for, worked out by hand.
func TestParseISLMap(t *testing.T) {
	cases := []struct {
		src  string
		want []string // canonical tuples
	}{
		{"{ [x, y, z] -> A[x, y + 1] }", []string{"(x, y + 1, 0)"}},
		{"{ S[i, j, k] -> A[27i + 3, j - 1, k] }", []string{"(27*x + 3, y - 1, z)"}},
		{"{ [x, y] -> A[12*floor(x/4) + x mod 4 + 8, y] }", []string{"(12*floor(x/4) + (x % 4) + 8, y, 0)"}},
		{"{ [x, y, z] -> A[2x + (y + z) mod 2, y, z] }", []string{"(2*x + ((y + z) % 2), y, z)"}},
		{"{ [x] -> A[x - 1]; [x] -> A[x + 1] }", []string{"(x - 1, 0, 0)", "(x + 1, 0, 0)"}},
		// A thread that touches a range of elements: one access per element.
		{"{ [x, y, z] -> A[i, y, z] : x <= i < x + 3 }", []string{"(x, y, z)", "(x + 1, y, z)", "(x + 2, y, z)"}},
		{"{ [x] -> A[i] : i >= 2x and i <= 2x + 1 }", []string{"(2*x, 0, 0)", "(2*x + 1, 0, 0)"}},
		{"{ [x] -> A[i] : 3 + 2x >= i > 2x }", []string{"(2*x + 1, 0, 0)", "(2*x + 2, 0, 0)", "(2*x + 3, 0, 0)"}},
		{"{ [x, y] -> A[i, j] : i = x + 1 and y <= j <= y + 1 }", []string{"(x + 1, y, 0)", "(x + 1, y + 1, 0)"}},
		// A disjunction: one piece per disjunct.
		{"{ [x] -> A[i] : i = x or x <= i <= x + 1 or i = 2x }", []string{"(x, 0, 0)", "(x + 1, 0, 0)", "(2*x, 0, 0)"}},
		// The iteration domain stated as constraints: guards, see below.
		{"{ S[i] -> A[i + 1] : 0 <= i < 16 }", []string{"(x + 1, 0, 0)"}},
		// Duplicates collapse.
		{"{ [x] -> A[x]; [x] -> A[i] : x <= i <= x }", []string{"(x, 0, 0)"}},
	}
	for _, c := range cases {
		accs, err := ParseISLMap(c.src)
		if err != nil {
			t.Errorf("%s: %v", c.src, err)
			continue
		}
		var got []string
		for _, a := range accs {
			got = append(got, a.String())
			if a.Text != c.src {
				t.Errorf("%s: access text %q, want the map", c.src, a.Text)
			}
		}
		if strings.Join(got, "; ") != strings.Join(c.want, "; ") {
			t.Errorf("%s:\n got  %v\n want %v", c.src, got, c.want)
		}
	}
}

// TestParseISLMapGuards checks that constraints on the lattice point become
// the conditions g ≥ 0 they state.
func TestParseISLMapGuards(t *testing.T) {
	accs, err := ParseISLMap("{ [x, y] -> A[x, y] : 0 <= x < 16 and y >= 2x and x + y = 5 }")
	if err != nil || len(accs) != 1 {
		t.Fatalf("%v, %v", accs, err)
	}
	var got []string
	for _, g := range accs[0].Guards {
		got = append(got, g.String())
	}
	want := "x; -x + 15; -2*x + y; x + y - 5; -x - y + 5"
	if strings.Join(got, "; ") != want {
		t.Errorf("guards %v, want %s", got, want)
	}
}

// TestParseISLMapErrors checks that maps outside the supported forms are
// rejected with the reason and the column of the offending text.
func TestParseISLMapErrors(t *testing.T) {
	cases := []struct{ src, want string }{
		{"[N] -> { [x] -> A[x] : x < N }", "column 1: parameters"},
		{"{ [x] -> A[i] : x <= i < 2x }", "does not have a constant width"},
		{"{ [x] -> A[i] : (i = x or i = 0) and x >= 0 }", "inside brackets"},
		{"{ [x] -> A[i] : x <= i or i = 0 }", "output \"i\" needs a lower and an upper bound"},
		{"{ [x] -> A[i] }", "column 12: output \"i\" needs a lower and an upper bound"},
		{"{ [x] -> A[i, j] : i = j }", "between two outputs"},
		{"{ [x, y, z, w] -> A[x] }", "column 13: the input tuple has 4 entries"},
		{"{ [x] -> A[x*x] }", "column 13: product of two non-constant expressions"},
		{"{ [x] -> A[x] ", "expected ';' or '}'"},
		{"{ [x, x] -> A[x] }", "input \"x\" appears twice"},
		{"{ [x] -> A[i] : x <= i < x + 2000 }", "more than 1024 accesses"},
		{"{ [x] -> A[x] } junk", "unexpected text"},
		{"{ [2] -> A[x] }", "is not a name"},
		{"{ [x] A[x] }", "expected '->'"},
	}
	for _, c := range cases {
		_, err := ParseISLMap(c.src)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to contain %q", c.src, err, c.want)
		}
	}
}

// FuzzParseISLMap checks that no input makes the converter panic or return
// more accesses than its bound, and that every access it returns prints as
// a tuple the expression parser reads back to the same access.
func FuzzParseISLMap(f *testing.F) {
	for _, s := range []string{
		"{ [x, y, z] -> A[x, y + 1] }",
		"{ S[i, j, k] -> A[27i + 3, j - 1, k] }",
		"{ [x, y] -> A[12*floor(x/4) + x mod 4 + 8, y] }",
		"{ [x, y, z] -> A[i, y, z] : x <= i < x + 3 }",
		"{ [x] -> A[x - 1]; [x] -> A[x + 1] }",
		"[N] -> { [x] -> A[x] : x < N }",
		"{ [x] -> A[i] : i >= 2x and i <= 2x + 1 }",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		accs, err := ParseISLMap(src)
		if err != nil {
			return
		}
		if len(accs) == 0 || len(accs) > maxMapAccesses {
			t.Fatalf("%q: %d accesses", src, len(accs))
		}
		for _, a := range accs {
			for _, e := range a.Index {
				back, err := ParseExpr(e.String())
				if err != nil || !back.Equal(e) {
					t.Fatalf("%q: index %s does not read back (%v)", src, e, err)
				}
			}
		}
	})
}
