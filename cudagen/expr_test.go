package cudagen

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/polyvol/polyvol/examples"
	"github.com/polyvol/polyvol/kernel"
)

// samplePoints are the points at which translated expressions are compared
// with kernel.Expr.Eval: signs and remainders on both sides of zero.
func samplePoints() []kernel.Point {
	var ps []kernel.Point
	vals := []int64{-1000003, -17, -8, -7, -3, -1, 0, 1, 2, 3, 5, 7, 8, 16, 511, 1 << 20}
	for _, x := range vals {
		for _, y := range []int64{-9, -1, 0, 1, 4, 513} {
			for _, z := range []int64{-5, 0, 3, 64} {
				ps = append(ps, kernel.Point{x, y, z})
			}
		}
	}
	return ps
}

func mustParse(t *testing.T, src string) kernel.Expr {
	t.Helper()
	e, err := kernel.ParseExpr(src)
	if err != nil {
		t.Fatalf("ParseExpr(%q): %v", src, err)
	}
	return e
}

// TestCExpr checks the C text of hand-picked expressions.
func TestCExpr(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"x", "x"},
		{"0", "0"},
		{"-5", "-5"},
		{"3*x + 1", "3 * x + 1"},
		{"x - 1 + 514*y + 514*514*z", "x + 514 * y + 264196 * z - 1"},
		{"-(y - 2)", "-y + 2"},
		{"floor(x / 4)", "floordiv(x, 4)"},
		{"x % 4", "posmod(x, 4)"},
		{"2*floor((x + 1) / 4) - (y mod 3)", "2 * floordiv(x + 1, 4) - posmod(y, 3)"},
		{"floor((x % 8 + 3*y) / 5)", "floordiv(3 * y + posmod(x, 8), 5)"},
		{"-x % 4", "posmod(3 * x, 4)"}, // canonical: coefficients reduced into [0, d)
		{"4294967296*z + 3000000000", "4294967296LL * z + 3000000000LL"},
	} {
		e := mustParse(t, tc.src)
		if got := cExpr(e); got != tc.want {
			t.Errorf("cExpr(%s) = %q, want %q (canonical %s)", tc.src, got, tc.want, e)
		}
	}
}

// TestUsesDiv checks which device helpers hand-picked expressions need,
// nested terms included.
func TestUsesDiv(t *testing.T) {
	for _, tc := range []struct {
		src        string
		floor, mod bool
	}{
		{"3*x + 1", false, false},
		{"floor(x / 4)", true, false},
		{"y % 3", false, true},
		{"(floor(x / 2) + y) % 3", true, true},
		{"floor((x % 8 + 3*y) / 5)", true, true},
		{"floor(x / 4) - floor(x / 4)", false, false},
	} {
		if fl, md := usesDiv(mustParse(t, tc.src)); fl != tc.floor || md != tc.mod {
			t.Errorf("usesDiv(%s) = %v, %v; want %v, %v", tc.src, fl, md, tc.floor, tc.mod)
		}
	}
}

// checkEval compares the C semantics of the translation with Expr.Eval and
// the translation's text, re-parsed as a kernel expression, with e.
func checkEval(t *testing.T, e kernel.Expr, pts []kernel.Point) {
	t.Helper()
	for _, p := range pts {
		if got, want := evalC(e, p), e.Eval(p); got != want {
			t.Fatalf("%s at %v: C semantics give %d, Expr.Eval %d (C: %s)", e, p, got, want, cExpr(e))
		}
	}
	// The C text uses the kernel syntax once floordiv(a, d) and posmod(a, d)
	// are spelled floor((a) / d) and ((a) % d); it must parse back to e.
	back := cExpr(e)
	back = strings.NewReplacer("LL", "").Replace(back)
	back = cToKernelSyntax(back)
	r, err := kernel.ParseExpr(back)
	if err != nil {
		t.Fatalf("%s: C text %q does not parse back: %v", e, back, err)
	}
	if !r.Equal(e) {
		t.Fatalf("%s: C text parses back to %s", e, r)
	}
}

// cToKernelSyntax rewrites floordiv(a, d) and posmod(a, d) calls into the
// kernel expression syntax.
func cToKernelSyntax(s string) string {
	for _, fn := range []string{"floordiv(", "posmod("} {
		for {
			i := strings.LastIndex(s, fn)
			if i < 0 {
				break
			}
			depth, comma, end := 0, -1, -1
			for j := i + len(fn); j < len(s) && end < 0; j++ {
				switch s[j] {
				case '(':
					depth++
				case ')':
					if depth == 0 {
						end = j
					}
					depth--
				case ',':
					if depth == 0 {
						comma = j
					}
				}
			}
			arg, d := s[i+len(fn):comma], strings.TrimSpace(s[comma+1:end])
			repl := fmt.Sprintf("floor((%s) / %s)", arg, d)
			if fn == "posmod(" {
				repl = fmt.Sprintf("((%s) %% %s)", arg, d)
			}
			s = s[:i] + repl + s[end+1:]
		}
	}
	return s
}

// TestTranslateEval compares translated expressions with Expr.Eval on
// hand-picked and random quasi-affine expressions.
func TestTranslateEval(t *testing.T) {
	pts := samplePoints()
	for _, src := range []string{
		"x", "-x", "7", "x + 514*y + 264196*z - 1", "floor(x / 4)", "floor((x - 3) / 4)",
		"x % 4", "-x % 4", "(x - y) mod 6", "floor((2*x + floor(y / 3)) / 5) - 3*(z % 7)",
		"floor((x % 8 - 3*y) / 5) + (floor(z / 2) mod 3)", "3*floor(-x / 2) - 4",
	} {
		checkEval(t, mustParse(t, src), pts)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 500 {
		checkEval(t, mustParse(t, randomExpr(rng, 3)), pts)
	}
}

// randomExpr builds a random expression text of the kernel syntax.
func randomExpr(rng *rand.Rand, depth int) string {
	var parts []string
	for range 1 + rng.IntN(3) {
		var p string
		switch r := rng.IntN(6); {
		case r < 3 || depth == 0:
			p = fmt.Sprintf("%d*%s", rng.IntN(11)-5, []string{"x", "y", "z"}[rng.IntN(3)])
		case r == 3:
			p = fmt.Sprintf("floor((%s) / %d)", randomExpr(rng, depth-1), 1+rng.IntN(9))
		default:
			p = fmt.Sprintf("%d*((%s) %% %d)", rng.IntN(5)-2, randomExpr(rng, depth-1), 1+rng.IntN(9))
		}
		parts = append(parts, p)
	}
	parts = append(parts, fmt.Sprint(rng.IntN(41)-20))
	return strings.Join(parts, " + ")
}

// TestIndexOfExamples evaluates the translated linear index of every access
// of every example (without α) against Field.ElementIndex on sample points.
func TestIndexOfExamples(t *testing.T) {
	pts := samplePoints()
	for _, name := range examples.Names() {
		k := loadExample(t, name)
		for _, f := range k.Fields {
			for _, a := range append(append([]kernel.Access(nil), f.Loads...), f.Stores...) {
				e, err := f.ElementIndexExpr(a)
				if err != nil {
					t.Fatal(err)
				}
				for _, p := range pts {
					if got, want := evalC(e, p), f.ElementIndex(a, p); got != want {
						t.Fatalf("%s field %s access %s at %v: %d, want %d", name, f.Name, a, p, got, want)
					}
				}
			}
		}
	}
}

// TestFloorDivPosmod checks the Go copies of the device helpers against the
// mathematical definitions: a = d·floordiv(a, d) + posmod(a, d), 0 ≤ posmod < d.
func TestFloorDivPosmod(t *testing.T) {
	for a := int64(-50); a <= 50; a++ {
		for d := int64(1); d <= 9; d++ {
			q, r := cFloordiv(a, d), cPosmod(a, d)
			if r < 0 || r >= d || q*d+r != a {
				t.Fatalf("floordiv(%d, %d) = %d, posmod = %d", a, d, q, r)
			}
		}
	}
}
