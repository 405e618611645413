package kernel

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/polyvol/polyvol/intmath"
)

func mustParse(t testing.TB, src string) Expr {
	t.Helper()
	e, err := ParseExpr(src)
	if err != nil {
		t.Fatalf("ParseExpr(%q): %v", src, err)
	}
	return e
}

func TestEvalHandComputed(t *testing.T) {
	tests := []struct {
		src  string
		p    Point
		want int64
	}{
		{"x + 2*y - 3*z + 7", Point{1, 2, 3}, 1 + 4 - 9 + 7},
		{"3*x + 1", Point{4, 0, 0}, 13},
		{"-(x - 2*(y + 1))", Point{1, 3, 0}, 7},
		{"floor(x / 4)", Point{7, 0, 0}, 1},
		{"floor(x / 4)", Point{-1, 0, 0}, -1}, // rounds toward −∞, not toward 0
		{"floor(x / 4)", Point{-4, 0, 0}, -1},
		{"floor(x / 4)", Point{-5, 0, 0}, -2},
		{"floor((x - 1) / 4)", Point{0, 0, 0}, -1},
		{"x % 4", Point{-1, 0, 0}, 3}, // non-negative remainder
		{"x mod 4", Point{-8, 0, 0}, 0},
		{"x % 4", Point{-9, 0, 0}, 3},
		{"(6*x + 3) % 9", Point{2, 0, 0}, 6},
		{"(6*x + 3) % 9", Point{-1, 0, 0}, 6},
		{"2 * (x % 4) - y mod 3", Point{7, -1, 0}, 6 - 2},
		{"-x % 4", Point{1, 0, 0}, 3}, // unary minus binds tighter than %
		{"tidx + 10*tidy + 100*tidz", Point{1, 2, 3}, 321},
		{"floor(floor(x/2)/3) + x % 2", Point{-13, 0, 0}, -3 + 1}, // ⌊−7/3⌋ + 1
		{"x + 1000000000000*y", Point{5, 3, 0}, 3000000000005},
	}
	for _, tc := range tests {
		if got := mustParse(t, tc.src).Eval(tc.p); got != tc.want {
			t.Errorf("%q at %v = %d, want %d", tc.src, tc.p, got, tc.want)
		}
	}
}

func TestCanonicalForm(t *testing.T) {
	groups := [][]string{
		{"x + 1", "1 + x", "(x) + 1", "((x+1))", "x - -1", "2 + x - 1", "tidx + 1", "+x+1"},
		{"2*x - y", "-y + x*2", "x + x - y", "(2)*x - 1*y", "-(y - 2*x)", "x*(3 - 1) - y"},
		{"floor(x/4)", "floor((x)/(2*2))", "floor(x / 4) + 0", "floor((x + 4)/4) - 1", "floor(2*x/8)"},
		{"x % 4", "(x + 8) % 4", "x mod 4", "(x - 4) mod 4", "(5*x) % 4 - 0", "(x - 4*y) % 4"},
		{"3*((2*x + 1) % 3)", "(6*x + 3) % 9"},
		{"0", "x - x", "x % 1", "floor(3/4)", "(y*0)"},
		{"floor(x/2) + y % 3", "y mod 3 + floor(x / 2)"},
	}
	for _, g := range groups {
		first := mustParse(t, g[0])
		for _, src := range g[1:] {
			e := mustParse(t, src)
			if !e.Equal(first) || e.String() != first.String() {
				t.Errorf("%q = %s, want equal to %q = %s", src, e, g[0], first)
			}
		}
	}
	different := [][2]string{{"x", "y"}, {"x % 4", "x % 8"}, {"floor(x/4)", "x % 4"}, {"floor(x/4)", "floor(y/4)"}, {"x + 1", "x + 2"}, {"2*(x % 4)", "x % 4"}}
	for _, d := range different {
		if mustParse(t, d[0]).Equal(mustParse(t, d[1])) {
			t.Errorf("%q and %q compare equal", d[0], d[1])
		}
	}
}

func TestStringAndISL(t *testing.T) {
	tests := []struct{ src, str, isl string }{
		{"1 + x", "x + 1", "x + 1"},
		{"z - 2*y - 4", "-2*y + z - 4", "-2*y + z - 4"},
		{"floor((x-1)/4)", "floor((x + 3)/4) - 1", "floor((x + 3)/4) - 1"},
		{"-(x % 4)", "-(x % 4)", "-((x) mod 4)"},
		{"y + 2*(x+1) % 4", "y + 2*((x + 1) % 2)", "y + 2*((x + 1) mod 2)"},
		{"-7", "-7", "-7"},
	}
	for _, tc := range tests {
		e := mustParse(t, tc.src)
		if e.String() != tc.str || e.ISL() != tc.isl {
			t.Errorf("%q: String %q ISL %q, want %q and %q", tc.src, e.String(), e.ISL(), tc.str, tc.isl)
		}
	}
}

// TestTermsHandPicked checks the canonical parts of hand-picked
// expressions: floor((x - 1)/4) is floor((x + 3)/4) − 1, −x mod 4 is
// (3x) mod 4, and 2·((x + 1) mod 4) reduces to 2·((x + 1) mod 2); the terms
// come in the order String prints them.
func TestTermsHandPicked(t *testing.T) {
	x1 := mustParse(t, "x + 1")
	tests := []struct {
		src   string
		coef  [3]int64
		konst int64
		divs  []DivTerm
	}{
		{"7", [3]int64{}, 7, nil},
		{"3*x - z + 2", [3]int64{3, 0, -1}, 2, nil},
		{"floor((x - 1)/4) + 5*y", [3]int64{0, 5, 0}, -1, []DivTerm{{Coef: 1, Arg: mustParse(t, "x + 3"), Divisor: 4}}},
		{"-(-x % 4)", [3]int64{}, 0, []DivTerm{{Coef: -1, Mod: true, Arg: mustParse(t, "3*x"), Divisor: 4}}},
		{"y mod 3 + 2*(x+1) % 4 - floor(x/2)", [3]int64{}, 0, []DivTerm{
			{Coef: 2, Mod: true, Arg: x1, Divisor: 2},
			{Coef: -1, Arg: Var(0), Divisor: 2},
			{Coef: 1, Mod: true, Arg: Var(1), Divisor: 3},
		}},
	}
	for _, tc := range tests {
		e := mustParse(t, tc.src)
		coef, konst, divs := e.Terms()
		same := coef == tc.coef && konst == tc.konst && len(divs) == len(tc.divs)
		for i := 0; same && i < len(divs); i++ {
			d, w := divs[i], tc.divs[i]
			same = d.Coef == w.Coef && d.Mod == w.Mod && d.Divisor == w.Divisor && d.Arg.Equal(w.Arg)
		}
		if !same {
			t.Errorf("%q (canonical %s): Terms = %v, %d, %v; want %v, %d, %v", tc.src, e, coef, konst, divs, tc.coef, tc.konst, tc.divs)
		}
	}
}

// evalByTerms evaluates e through its Terms alone, recursing into the
// arguments of the floor and modulo terms.
func evalByTerms(e Expr, p Point) int64 {
	coef, v, divs := e.Terms()
	for i, c := range coef {
		v += c * p[i]
	}
	for _, d := range divs {
		a := evalByTerms(d.Arg, p)
		if d.Mod {
			v += d.Coef * intmath.FloorMod(a, d.Divisor)
		} else {
			v += d.Coef * intmath.FloorDiv(a, d.Divisor)
		}
	}
	return v
}

// checkTermsInvariants asserts the documented shape of every DivTerm of e,
// recursively: non-zero coefficient, divisor at least 2, and an argument
// whose coefficients and constant lie in [0, divisor).
func checkTermsInvariants(t *testing.T, e Expr) {
	t.Helper()
	_, _, divs := e.Terms()
	for _, d := range divs {
		coef, konst, inner := d.Arg.Terms()
		ok := d.Coef != 0 && d.Divisor >= 2 && konst >= 0 && konst < d.Divisor
		for _, c := range coef {
			ok = ok && c >= 0 && c < d.Divisor
		}
		for _, in := range inner {
			ok = ok && in.Coef > 0 && in.Coef < d.Divisor
		}
		if !ok {
			t.Fatalf("%s: term %+v breaks the canonical invariants", e, d)
		}
		checkTermsInvariants(t, d.Arg)
	}
}

// rebuild assembles an expression from the parts Terms reports with the
// public arithmetic.
func rebuild(t *testing.T, e Expr) Expr {
	t.Helper()
	coef, konst, divs := e.Terms()
	r := Const(konst)
	for i, c := range coef {
		v, err := Var(i).Scale(c)
		if err == nil {
			r, err = r.Add(v)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range divs {
		arg := rebuild(t, d.Arg)
		var a Expr
		var err error
		if d.Mod {
			a, err = arg.Mod(d.Divisor)
		} else {
			a, err = arg.FloorDiv(d.Divisor)
		}
		if err == nil {
			a, err = a.Scale(d.Coef)
		}
		if err == nil {
			r, err = r.Add(a)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// TestTermsMatchEvalOnRandomExpressions evaluates random expressions through
// their Terms and compares with Eval everywhere and with the text oracle
// where 64-bit evaluation is exact; the parts must also rebuild an equal
// expression, keep the canonical invariants, and be a copy.
func TestTermsMatchEvalOnRandomExpressions(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for range 2000 {
		src := randomExpr(rng, 1+rng.IntN(4))
		e := mustParse(t, src)
		for range 20 {
			p := Point{rng.Int64N(2001) - 1000, rng.Int64N(41) - 20, rng.Int64N(41) - 20}
			got := evalByTerms(e, p)
			if want := e.Eval(p); got != want {
				t.Fatalf("%q (canonical %s) at %v: by Terms %d, Eval %d", src, e, p, got, want)
			}
			if _, _, exact := e.Bounds(p, p); !exact {
				continue
			}
			if want, ok := evalText(src, p); !ok || !want.IsInt64() || got != want.Int64() {
				t.Fatalf("%q (canonical %s) at %v: by Terms %d, oracle %s", src, e, p, got, want)
			}
		}
		checkTermsInvariants(t, e)
		if r := rebuild(t, e); !r.Equal(e) {
			t.Fatalf("%q: Terms of %s rebuild %s", src, e, r)
		}
		if _, _, divs := e.Terms(); len(divs) > 0 {
			before := e.String()
			divs[0].Coef++
			divs[0].Divisor = 99
			if e.String() != before {
				t.Fatalf("%q: changing the Terms slice changed the expression to %s", src, e)
			}
		}
	}
}

// TestDistanceFromRandomExpressions checks DistanceFrom on random
// expressions: e + c is at distance c from e (shifted in the text, before
// canonicalisation), and a distance reported between two random
// expressions is their difference at every point tried (Eval the oracle).
func TestDistanceFromRandomExpressions(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for range 1000 {
		src := randomExpr(rng, 1+rng.IntN(4))
		e := mustParse(t, src)
		c := rng.Int64N(201) - 100
		shifted := mustParse(t, fmt.Sprintf("(%s) + %d", src, c))
		if d, ok := shifted.DistanceFrom(e); !ok || d != c {
			t.Fatalf("(%s) + %d from %s: distance %d, %v; want %d", src, c, src, d, ok, c)
		}
		other := mustParse(t, randomExpr(rng, 1+rng.IntN(2)))
		d, ok := e.DistanceFrom(other)
		if !ok {
			continue
		}
		for range 20 {
			p := Point{rng.Int64N(2001) - 1000, rng.Int64N(41) - 20, rng.Int64N(41) - 20}
			if got := e.Eval(p) - other.Eval(p); got != d {
				t.Fatalf("%s − %s at %v is %d, DistanceFrom said %d", e, other, p, got, d)
			}
		}
	}
	for _, c := range []struct {
		e, o string
		want int64
		ok   bool
	}{
		{"floor(x/4) + 3", "floor(x/4)", 3, true},
		{"4*(x % 32) + 16*y", "4*(x % 32) + 16*y + 20", -20, true},
		{"floor((x + 1)/4)", "floor(x/4)", 0, false},
		{"x % 8", "x % 4", 0, false},
		{"2*x + 1", "x + 1", 0, false},
	} {
		d, ok := mustParse(t, c.e).DistanceFrom(mustParse(t, c.o))
		if ok != c.ok || ok && d != c.want {
			t.Errorf("(%s).DistanceFrom(%s) = %d, %v; want %d, %v", c.e, c.o, d, ok, c.want, c.ok)
		}
	}
}

// TestPeriodRandomExpressions checks Period's defining property on random
// expressions, nested floor and modulo terms included: a step of the
// period along a coordinate changes e by the same amount from every point
// tried (Eval the oracle). Hand-picked cases check that terms whose
// argument stays below the divisor everywhere add no period of their own.
func TestPeriodRandomExpressions(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	for range 2000 {
		src := randomExpr(rng, 1+rng.IntN(4))
		e := mustParse(t, src)
		period, ok := e.Period()
		if !ok {
			continue
		}
		for i := range 3 {
			var step Point
			step[i] = period[i]
			var drift int64
			for n := range 30 {
				p := Point{rng.Int64N(2001) - 1000, rng.Int64N(201) - 100, rng.Int64N(201) - 100}
				q := Point{p[0] + step[0], p[1] + step[1], p[2] + step[2]}
				d := e.Eval(q) - e.Eval(p)
				if n == 0 {
					drift = d
				} else if d != drift {
					t.Fatalf("%s (canonical %s): period %v, but a step along %d changes it by %d at %v and by %d elsewhere", src, e, period, i, d, p, drift)
				}
			}
		}
	}
	for _, c := range []struct {
		src  string
		want [3]int64
	}{
		{"floor((x % 32)/64)", [3]int64{1, 1, 1}},
		{"-256*floor((x % 32)/64) - 4224*floor((y % 8)/16) + 4*(x % 32) + 264*(y % 8)", [3]int64{32, 8, 1}},
		{"(x % 4) % 8", [3]int64{4, 1, 1}},
		{"floor((x % 32)/16)", [3]int64{512, 1, 1}},
		{"floor(x/4) % 3", [3]int64{12, 1, 1}},
	} {
		if got, ok := mustParse(t, c.src).Period(); !ok || got != c.want {
			t.Errorf("period of %s: %v, %v; want %v", c.src, got, ok, c.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		src  string
		col  int
		want string
	}{
		{"x*y", 2, "not affine"},
		{"(x + 1) * (y - 1)", 9, "not affine"},
		{"floor(x / y)", 9, "non-constant"},
		{"floor(x / 0)", 9, "positive"},
		{"floor(x / -4)", 9, "positive"},
		{"x % 0", 3, "positive"},
		{"x mod y", 3, "constant"},
		{"x / 4", 3, "floor(e / c)"},
		{"(x / 4)", 4, "floor(e / c)"},
		{"x + w", 5, `unknown name "w"`},
		{"1.5*x", 2, "floating-point"},
		{"2x", 2, "2*x"},
		{"x +", 4, "end of expression"},
		{"(x + 1", 7, "expected ')'"},
		{"x + 1)", 6, "unbalanced"},
		{"floor(x)", 8, "expected '/'"},
		{"", 1, "end of expression"},
		{"x $ 1", 3, "unexpected character"},
		{"99999999999999999999", 1, "64 bits"},
		{"9223372036854775807 + 1", 21, "overflow"},
		{"x + ä", 5, "unexpected character"},
		{strings.Repeat("(", 100) + "x" + strings.Repeat(")", 100), 65, "nested"},
	}
	for _, tc := range tests {
		_, err := ParseExpr(tc.src)
		var ee *ExprError
		if !errors.As(err, &ee) {
			t.Errorf("%q: got error %v, want *ExprError", tc.src, err)
			continue
		}
		if ee.Column != tc.col || !strings.Contains(ee.Msg, tc.want) {
			t.Errorf("%q: got column %d %q, want column %d containing %q", tc.src, ee.Column, ee.Msg, tc.col, tc.want)
		}
	}
}

// evalText is an independent oracle: it evaluates an expression directly
// from its text at p with arbitrary-precision integers, following the
// documented grammar, without any canonicalisation.
func evalText(src string, p Point) (*big.Int, bool) {
	toks, err := tokenize(src)
	if err != nil {
		return nil, false
	}
	i := 0
	var sum, term, unary func() (*big.Int, bool)
	unary = func() (*big.Int, bool) {
		t := toks[i]
		switch {
		case t.Kind == '-' || t.Kind == '+':
			i++
			v, ok := unary()
			if ok && t.Kind == '-' {
				v.Neg(v)
			}
			return v, ok
		case t.Kind == 'n':
			i++
			v, ok := new(big.Int).SetString(t.Text, 10)
			return v, ok
		case t.Kind == 'i' && t.Text == "floor":
			i += 2 // "floor" "("
			n, ok1 := sum()
			i++ // "/"
			d, ok2 := sum()
			i++ // ")"
			if !ok1 || !ok2 || d.Sign() <= 0 {
				return nil, false
			}
			q, _ := new(big.Int).DivMod(n, d, new(big.Int)) // Euclidean = floor for d > 0
			return q, true
		case t.Kind == 'i':
			i++
			v, ok := variables[t.Text]
			return big.NewInt(p[v]), ok
		case t.Kind == '(':
			i++
			v, ok := sum()
			i++
			return v, ok
		}
		return nil, false
	}
	term = func() (*big.Int, bool) {
		v, ok := unary()
		for ok && (toks[i].Kind == '*' || toks[i].Kind == '%' || toks[i].Kind == 'i' && toks[i].Text == "mod") {
			op := toks[i].Kind
			i++
			var r *big.Int
			if r, ok = unary(); !ok {
				break
			}
			if op == '*' {
				v.Mul(v, r)
			} else if r.Sign() > 0 {
				v.Mod(v, r)
			} else {
				ok = false
			}
		}
		return v, ok
	}
	sum = func() (*big.Int, bool) {
		v, ok := term()
		for ok && (toks[i].Kind == '+' || toks[i].Kind == '-') {
			op := toks[i].Kind
			i++
			var r *big.Int
			if r, ok = term(); ok && op == '+' {
				v.Add(v, r)
			} else if ok {
				v.Sub(v, r)
			}
		}
		return v, ok
	}
	return sum()
}

// checkAgainstOracle asserts that e, parsed from src, evaluates like the
// text itself at random points where its 64-bit evaluation is exact.
func checkAgainstOracle(t *testing.T, src string, e Expr, rng *rand.Rand, points int) {
	t.Helper()
	for range points {
		p := Point{rng.Int64N(41) - 20, rng.Int64N(41) - 20, rng.Int64N(41) - 20}
		if _, _, exact := e.Bounds(p, p); !exact {
			continue
		}
		want, ok := evalText(src, p)
		if !ok {
			t.Fatalf("oracle failed on %q", src)
		}
		if got := e.Eval(p); !want.IsInt64() || got != want.Int64() {
			t.Fatalf("%q (canonical %s) at %v = %d, oracle %s", src, e, p, got, want)
		}
	}
}

// randomExpr builds a random expression text from the whole grammar.
func randomExpr(rng *rand.Rand, depth int) string {
	leaf := []string{"x", "y", "z", "tidx", "1", "0", "7", "12"}
	if depth == 0 {
		return leaf[rng.IntN(len(leaf))]
	}
	a, b := randomExpr(rng, depth-1), randomExpr(rng, depth-1)
	c := []string{"2", "3", "4", "5", "8", "-3"}[rng.IntN(6)]
	pos := []string{"2", "3", "4", "6", "8", "16"}[rng.IntN(6)]
	switch rng.IntN(8) {
	case 0:
		return a + " + " + b
	case 1:
		return a + " - (" + b + ")"
	case 2:
		return c + "*(" + a + ")"
	case 3:
		return "floor((" + a + ") / " + pos + ")"
	case 4:
		return "(" + a + ") % " + pos
	case 5:
		return "(" + a + ") mod " + pos
	case 6:
		return "-(" + a + ")"
	}
	return "(" + a + ")*" + c
}

func TestEvalMatchesOracleOnRandomExpressions(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		src := randomExpr(rng, 1+rng.IntN(4))
		e := mustParse(t, src)
		checkAgainstOracle(t, src, e, rng, 20)
		back := mustParse(t, e.String())
		if !back.Equal(e) {
			t.Fatalf("%q: String %q re-parses to %s", src, e, back)
		}
	}
}

func TestSubstitute(t *testing.T) {
	e := mustParse(t, "floor((x + 3*y)/4) + (z - 1) % 3 + 2*x")
	sub := [3]Expr{mustParse(t, "2*x + 1"), mustParse(t, "y - 5"), mustParse(t, "3*z")}
	s, err := e.Substitute(sub)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		p := Point{rng.Int64N(200) - 100, rng.Int64N(200) - 100, rng.Int64N(200) - 100}
		q := Point{sub[0].Eval(p), sub[1].Eval(p), sub[2].Eval(p)}
		if got, want := s.Eval(p), e.Eval(q); got != want {
			t.Fatalf("substituted %s at %v = %d, original at %v = %d", s, p, got, q, want)
		}
	}
	// (3z − 1) mod 3 is the constant 2 and ⌊(2x + 3y − 14)/4⌋ is
	// ⌊(2x + 3y + 2)/4⌋ − 4, so the constants cancel.
	if want := mustParse(t, "floor((2*x + 3*y + 2)/4) + 4*x"); !s.Equal(want) {
		t.Errorf("substituted = %s, want %s", s, want)
	}
}

func TestBoundsContainAllValues(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 300 {
		e := mustParse(t, randomExpr(rng, 3))
		lo := Point{rng.Int64N(20) - 10, rng.Int64N(20) - 10, rng.Int64N(20) - 10}
		hi := Point{lo[0] + rng.Int64N(5), lo[1] + rng.Int64N(5), lo[2] + rng.Int64N(5)}
		minV, maxV, ok := e.Bounds(lo, hi)
		if !ok {
			t.Fatalf("%s: bounds overflow on a small box", e)
		}
		for x := lo[0]; x <= hi[0]; x++ {
			for y := lo[1]; y <= hi[1]; y++ {
				for z := lo[2]; z <= hi[2]; z++ {
					if v := e.Eval(Point{x, y, z}); v < minV || v > maxV {
						t.Fatalf("%s at %v = %d outside bounds [%d, %d]", e, Point{x, y, z}, v, minV, maxV)
					}
				}
			}
		}
	}
	if _, _, ok := mustParse(t, "4611686018427387904*x").Bounds(Point{}, Point{4, 0, 0}); ok {
		t.Error("bounds of 2^62·x over x ≤ 4 reported as fitting in 64 bits")
	}
}

// TestModBoundsWithinOnePeriod checks that a remainder whose argument stays
// within one period is bounded by the argument's own range (brute force
// gives the exact extremes there), and by the whole period otherwise.
func TestModBoundsWithinOnePeriod(t *testing.T) {
	for _, c := range []struct {
		expr       string
		lo, hi     Point
		minV, maxV int64
	}{
		{"(x mod 128) + 5", Point{}, Point{0, 63, 0}, 5, 5},    // x fixed: no dependence on x
		{"(x mod 128) + 5", Point{}, Point{127, 0, 0}, 5, 132}, // the whole period
		{"(x mod 128) + 5", Point{130, 0, 0}, Point{140, 0, 0}, 7, 17},
		{"(x mod 128) + 5", Point{120, 0, 0}, Point{130, 0, 0}, 5, 132}, // crosses 128
		{"-3*((x + y) mod 8)", Point{1, 1, 0}, Point{2, 3, 0}, -15, -6},
		{"(2*x + 1) mod 16", Point{1, 0, 0}, Point{5, 0, 0}, 3, 11},
	} {
		e := mustParse(t, c.expr)
		minV, maxV, ok := e.Bounds(c.lo, c.hi)
		if !ok || minV != c.minV || maxV != c.maxV {
			t.Errorf("%s over %v..%v: bounds [%d, %d] (ok %v), want [%d, %d]", c.expr, c.lo, c.hi, minV, maxV, ok, c.minV, c.maxV)
		}
		bruteMin, bruteMax := int64(math.MaxInt64), int64(math.MinInt64)
		for x := c.lo[0]; x <= c.hi[0]; x++ {
			for y := c.lo[1]; y <= c.hi[1]; y++ {
				v := e.Eval(Point{x, y, 0})
				bruteMin, bruteMax = min(bruteMin, v), max(bruteMax, v)
			}
		}
		if bruteMin != c.minV || bruteMax != c.maxV {
			t.Errorf("%s over %v..%v: brute force gives [%d, %d], the case says [%d, %d]", c.expr, c.lo, c.hi, bruteMin, bruteMax, c.minV, c.maxV)
		}
	}
}

// TestOnBoxEqualsExpr checks on random quasi-affine expressions and boxes
// that OnBox agrees with the expression at every point of the box, and
// that a term whose argument stays between two multiples of its divisor
// disappears.
func TestOnBoxEqualsExpr(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 77))
	for c := range 2000 {
		src := randomExpr(r, 3)
		e, err := ParseExpr(src)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		var lo, hi Point
		for i := range 3 {
			lo[i] = int64(r.IntN(40) - 20)
			hi[i] = lo[i] + int64(r.IntN(6))
		}
		s, err := e.OnBox(lo, hi)
		if err != nil {
			t.Fatal(err)
		}
		for x := lo[0]; x <= hi[0]; x++ {
			for y := lo[1]; y <= hi[1]; y++ {
				for z := lo[2]; z <= hi[2]; z++ {
					if p := (Point{x, y, z}); s.Eval(p) != e.Eval(p) {
						t.Fatalf("case %d: %s on %v..%v is %s, which differs at %v", c, e, lo, hi, s, p)
					}
				}
			}
		}
	}
	e, _ := ParseExpr("x + 2048*y + (x + 2048*y + 1) % 2097152 + floor(z/100)")
	s, err := e.OnBox(Point{0, 0, 0}, Point{2047, 1022, 99})
	if err != nil || s.String() != "2*x + 4096*y + 1" {
		t.Errorf("OnBox = %s (%v), want 2*x + 4096*y + 1", s, err)
	}
}

// TestAppendKeyTellsCanonicalFormsApart checks that two expressions have
// the same AppendKey exactly when their canonical forms agree (Equal, and
// the same rendering), on expressions written in different ways and
// differing in a coefficient, a constant, a divisor, floor against modulo,
// and the argument of a floor.
func TestAppendKeyTellsCanonicalFormsApart(t *testing.T) {
	sources := []string{
		"x", "x + 0", "1*x", "x + 1", "1 + x", "2*x", "x + y", "y + x",
		"floor(x / 4)", "floor(x / 4) + 0", "floor(x / 8)", "x mod 4", "x % 4",
		"floor((x + 1) / 4)", "floor((1 + x) / 4)", "2*floor(x / 4) + 3",
		"3 + floor(x / 4)*2", "2*floor(x / 4) + 3 + x mod 4", "x mod 4 + 2*floor(x / 4) + 3",
		"floor(x / 4) + floor(y / 4)", "floor(y / 4) + floor(x / 4)", "4*floor(x / 4) + x mod 4",
		"-x", "0", "z - z",
	}
	exprs := make([]Expr, len(sources))
	for i, s := range sources {
		e, err := ParseExpr(s)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		exprs[i] = e
	}
	for i, a := range exprs {
		for j, b := range exprs {
			same := string(a.AppendKey(nil)) == string(b.AppendKey(nil))
			if same != a.Equal(b) || same != (a.String() == b.String()) {
				t.Errorf("%q and %q: same key %v, Equal %v, renderings %q and %q", sources[i], sources[j], same, a.Equal(b), a.String(), b.String())
			}
		}
	}
}
