package kernel

import (
	"encoding/binary"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/polyvol/polyvol/intmath"
)

// Point is a lattice point (x, y, z) in global coordinates, x fastest.
type Point [3]int64

// varNames are the canonical names of the three coordinates, in order.
var varNames = [3]string{"x", "y", "z"}

// Expr is a quasi-affine integer expression over the coordinates x, y and z
// in canonical form: integer coefficients on x, y and z, a constant, and a
// sorted list of floor-division and modulo terms whose arguments are
// canonical too. Two expressions that differ only by reordering, brackets or
// constant folding compare equal with Equal and print the same String. The
// zero value is the constant 0. Expr values are immutable.
type Expr struct {
	lin   [3]int64
	konst int64
	divs  []divTerm // sorted by atom key, non-zero coefficients, unique atoms
}

// divTerm is coef·atom for a floor or modulo atom.
type divTerm struct {
	coef int64
	atom *divAtom
}

// divAtom is floor(arg/d) or arg mod d with d ≥ 2 and arg canonical and
// reduced: its coefficients lie in [0, d) and share no common factor with d.
type divAtom struct {
	mod bool
	arg Expr
	d   int64
	key string // canonical rendering; identical atoms have identical keys
}

// Const returns the constant expression c.
func Const(c int64) Expr { return Expr{konst: c} }

// Var returns the expression consisting of coordinate i (0 = x, 1 = y, 2 = z).
func Var(i int) Expr {
	var e Expr
	e.lin[i] = 1
	return e
}

// Linear reports the coefficients of x, y, z and the constant of e; ok is
// false when e contains floor or modulo terms.
func (e Expr) Linear() (coef [3]int64, constant int64, ok bool) {
	return e.lin, e.konst, len(e.divs) == 0
}

// DivTerm is one quasi-affine term of a canonical form:
// Coef·floor(Arg/Divisor), or Coef·(Arg mod Divisor) with a non-negative
// remainder when Mod is set. Coef is non-zero, Divisor is at least 2, and
// Arg is canonical with every coefficient and its constant in [0, Divisor).
type DivTerm struct {
	Coef    int64
	Mod     bool
	Arg     Expr
	Divisor int64
}

// Terms returns the canonical form of e: the coefficients of x, y and z,
// the constant, and the floor-division and modulo terms in the order that
// String and ISL print them (after the coordinates, before the constant).
// e is the sum of these parts. The returned slice is a copy, so changing it
// leaves e unchanged.
func (e Expr) Terms() (coef [3]int64, constant int64, divs []DivTerm) {
	for _, t := range e.divs {
		divs = append(divs, DivTerm{Coef: t.coef, Mod: t.atom.mod, Arg: t.atom.arg, Divisor: t.atom.d})
	}
	return e.lin, e.konst, divs
}

// IsConst reports whether e is a constant, and which.
func (e Expr) IsConst() (int64, bool) {
	return e.konst, e.lin == [3]int64{} && len(e.divs) == 0
}

// Equal reports whether e and o have the same canonical form.
func (e Expr) Equal(o Expr) bool {
	if e.lin != o.lin || e.konst != o.konst || len(e.divs) != len(o.divs) {
		return false
	}
	for i := range e.divs {
		if e.divs[i].coef != o.divs[i].coef || e.divs[i].atom.key != o.divs[i].atom.key {
			return false
		}
	}
	return true
}

// AppendKey appends to b a binary key of e's canonical form: two
// expressions have the same key exactly when they are Equal.
func (e Expr) AppendKey(b []byte) []byte {
	for _, c := range e.lin {
		b = binary.AppendVarint(b, c)
	}
	b = binary.AppendUvarint(binary.AppendVarint(b, e.konst), uint64(len(e.divs)))
	for _, t := range e.divs {
		b = binary.AppendUvarint(binary.AppendVarint(b, t.coef), uint64(len(t.atom.key)))
		b = append(b, t.atom.key...)
	}
	return b
}

// DistanceFrom reports whether e − o is a constant, and which: whether the
// two expressions differ in their constants only.
func (e Expr) DistanceFrom(o Expr) (distance int64, ok bool) {
	if e.lin != o.lin || len(e.divs) != len(o.divs) {
		return 0, false
	}
	for i := range e.divs {
		if e.divs[i].coef != o.divs[i].coef || e.divs[i].atom.key != o.divs[i].atom.key {
			return 0, false
		}
	}
	return e.konst - o.konst, true
}

// Eval evaluates e at p with 64-bit arithmetic, floor division rounding
// toward −∞ and a non-negative modulo.
func (e Expr) Eval(p Point) int64 {
	v := e.konst
	for i, c := range e.lin {
		v += c * p[i]
	}
	for _, t := range e.divs {
		v += t.coef * t.atom.eval(p)
	}
	return v
}

func (a *divAtom) eval(p Point) int64 {
	v := a.arg.Eval(p)
	if a.mod {
		return intmath.FloorMod(v, a.d)
	}
	return intmath.FloorDiv(v, a.d)
}

// String returns the canonical text of e in the kernel expression syntax;
// ParseExpr(e.String()) yields an expression equal to e.
func (e Expr) String() string { return e.render(false) }

// ISL returns e in ISL syntax over the variable names x, y and z, with
// floor((e)/d) and ((e) mod d) for the quasi-affine terms.
func (e Expr) ISL() string { return e.render(true) }

// WriteTerm appends the term c·atom of a sum to b in the syntax that both
// polyvol's expressions and ISL read: "3*x", then " - 2*y", " + z"; a
// coefficient of 1 or −1 is left out. c must not be 0.
func WriteTerm(b *strings.Builder, c int64, atom string) {
	switch {
	case b.Len() == 0 && c == 1:
	case b.Len() == 0 && c == -1:
		b.WriteString("-")
	case b.Len() == 0:
		b.WriteString(strconv.FormatInt(c, 10))
		b.WriteString("*")
	case c == 1:
		b.WriteString(" + ")
	case c == -1:
		b.WriteString(" - ")
	case c < 0:
		b.WriteString(" - ")
		b.WriteString(strconv.FormatUint(-uint64(c), 10))
		b.WriteString("*")
	default:
		b.WriteString(" + ")
		b.WriteString(strconv.FormatInt(c, 10))
		b.WriteString("*")
	}
	b.WriteString(atom)
}

func (e Expr) render(isl bool) string {
	var b strings.Builder
	term := func(c int64, atom string) { WriteTerm(&b, c, atom) }
	for i, c := range e.lin {
		if c != 0 {
			term(c, varNames[i])
		}
	}
	for _, t := range e.divs {
		atom := t.atom.render(isl)
		if t.atom.mod && !isl && (t.coef != 1 || b.Len() != 0) {
			atom = "(" + atom + ")"
		}
		term(t.coef, atom)
	}
	switch {
	case b.Len() == 0:
		b.WriteString(strconv.FormatInt(e.konst, 10))
	case e.konst < 0:
		b.WriteString(" - ")
		b.WriteString(strconv.FormatUint(-uint64(e.konst), 10))
	case e.konst != 0:
		b.WriteString(" + ")
		b.WriteString(strconv.FormatInt(e.konst, 10))
	}
	return b.String()
}

func (a *divAtom) render(isl bool) string {
	arg := a.arg.render(isl)
	d := strconv.FormatInt(a.d, 10)
	switch {
	case isl && a.mod:
		return "((" + arg + ") mod " + d + ")"
	case isl:
		return "floor((" + arg + ")/" + d + ")"
	}
	if !a.arg.single() {
		arg = "(" + arg + ")"
	}
	if a.mod {
		return arg + " % " + d
	}
	return "floor(" + arg + "/" + d + ")"
}

// single reports whether e is exactly one variable or one floor atom, so
// that it needs no brackets before "/" or "%".
func (e Expr) single() bool {
	n := 0
	for _, c := range e.lin {
		if c != 0 {
			n++
			if c != 1 {
				return false
			}
		}
	}
	if len(e.divs) == 1 && (e.divs[0].coef != 1 || e.divs[0].atom.mod) {
		return false
	}
	return e.konst == 0 && n+len(e.divs) == 1
}

func abs64(a int64) int64 {
	if a < 0 {
		return -a
	}
	return a
}

// Add returns e + o in canonical form.
func (e Expr) Add(o Expr) (Expr, error) {
	var r Expr
	var err error
	for i := range r.lin {
		if r.lin[i], err = intmath.AddChecked(e.lin[i], o.lin[i]); err != nil {
			return Expr{}, err
		}
	}
	if r.konst, err = intmath.AddChecked(e.konst, o.konst); err != nil {
		return Expr{}, err
	}
	// Merge two sorted term lists, summing coefficients of equal atoms.
	i, j := 0, 0
	for i < len(e.divs) || j < len(o.divs) {
		switch {
		case j == len(o.divs) || i < len(e.divs) && e.divs[i].atom.key < o.divs[j].atom.key:
			r.divs = append(r.divs, e.divs[i])
			i++
		case i == len(e.divs) || o.divs[j].atom.key < e.divs[i].atom.key:
			r.divs = append(r.divs, o.divs[j])
			j++
		default:
			c, err := intmath.AddChecked(e.divs[i].coef, o.divs[j].coef)
			if err != nil {
				return Expr{}, err
			}
			if c != 0 {
				r.divs = append(r.divs, divTerm{c, e.divs[i].atom})
			}
			i++
			j++
		}
	}
	return r, nil
}

// Scale returns c·e in canonical form.
func (e Expr) Scale(c int64) (Expr, error) {
	if c == 0 {
		return Expr{}, nil
	}
	var r Expr
	var err error
	for i := range r.lin {
		if r.lin[i], err = intmath.MulChecked(e.lin[i], c); err != nil {
			return Expr{}, err
		}
	}
	if r.konst, err = intmath.MulChecked(e.konst, c); err != nil {
		return Expr{}, err
	}
	for _, t := range e.divs {
		k, err := intmath.MulChecked(t.coef, c)
		if err != nil {
			return Expr{}, err
		}
		r.divs = append(r.divs, divTerm{k, t.atom})
	}
	return r, nil
}

// Sub returns e − o in canonical form.
func (e Expr) Sub(o Expr) (Expr, error) {
	n, err := o.Scale(-1)
	if err != nil {
		return Expr{}, err
	}
	return e.Add(n)
}

// splitDiv writes e = d·q + r where every coefficient and the constant of r
// lies in [0, d).
func (e Expr) splitDiv(d int64) (q, r Expr) {
	split := func(c int64) (int64, int64) {
		qq := intmath.FloorDiv(c, d)
		return qq, c - qq*d
	}
	for i, c := range e.lin {
		q.lin[i], r.lin[i] = split(c)
	}
	q.konst, r.konst = split(e.konst)
	for _, t := range e.divs {
		qc, rc := split(t.coef)
		if qc != 0 {
			q.divs = append(q.divs, divTerm{qc, t.atom})
		}
		if rc != 0 {
			r.divs = append(r.divs, divTerm{rc, t.atom})
		}
	}
	return q, r
}

// content is the gcd of all coefficients and the constant of e and d.
func (e Expr) content(d int64) int64 {
	g := intmath.GCD(d, e.konst)
	for _, c := range e.lin {
		g = intmath.GCD(g, c)
	}
	for _, t := range e.divs {
		g = intmath.GCD(g, t.coef)
	}
	return g
}

// divideExact divides every coefficient of e by g, which must divide them all.
func (e Expr) divideExact(g int64) Expr {
	r := Expr{konst: e.konst / g}
	for i, c := range e.lin {
		r.lin[i] = c / g
	}
	for _, t := range e.divs {
		r.divs = append(r.divs, divTerm{t.coef / g, t.atom})
	}
	return r
}

// FloorDiv returns ⌊e/d⌋ in canonical form; d must be positive.
// Whole multiples of d are moved out of the floor, and a common factor of
// the remaining argument and d is cancelled.
func (e Expr) FloorDiv(d int64) (Expr, error) {
	if d <= 0 {
		return Expr{}, fmt.Errorf("divisor %d is not positive", d)
	}
	if d == 1 {
		return e, nil
	}
	q, r := e.splitDiv(d)
	if _, isConst := r.IsConst(); isConst {
		return q, nil // 0 ≤ r < d, so ⌊r/d⌋ = 0
	}
	g := r.content(d)
	r, d = r.divideExact(g), d/g
	return q.Add(newAtom(false, r, d))
}

// Mod returns e mod d (the non-negative remainder) in canonical form; d must
// be positive. Multiples of d are dropped and a common factor g of the
// argument and d is taken out: (g·a) mod (g·m) = g·(a mod m).
func (e Expr) Mod(d int64) (Expr, error) {
	if d <= 0 {
		return Expr{}, fmt.Errorf("divisor %d is not positive", d)
	}
	if d == 1 {
		return Expr{}, nil
	}
	_, r := e.splitDiv(d)
	if _, isConst := r.IsConst(); isConst {
		return r, nil
	}
	g := r.content(d)
	return newAtom(true, r.divideExact(g), d/g).Scale(g)
}

// newAtom returns the expression 1·atom for a reduced argument.
func newAtom(mod bool, arg Expr, d int64) Expr {
	a := &divAtom{mod: mod, arg: arg, d: d}
	a.key = a.render(false)
	return Expr{divs: []divTerm{{1, a}}}
}

// Substitute replaces x, y and z by sub[0], sub[1] and sub[2] and returns the
// result in canonical form.
func (e Expr) Substitute(sub [3]Expr) (Expr, error) {
	r := Const(e.konst)
	for i, c := range e.lin {
		t, err := sub[i].Scale(c)
		if err == nil {
			r, err = r.Add(t)
		}
		if err != nil {
			return Expr{}, err
		}
	}
	for _, t := range e.divs {
		arg, err := t.atom.arg.Substitute(sub)
		if err != nil {
			return Expr{}, err
		}
		var a Expr
		if t.atom.mod {
			a, err = arg.Mod(t.atom.d)
		} else {
			a, err = arg.FloorDiv(t.atom.d)
		}
		if err == nil {
			a, err = a.Scale(t.coef)
		}
		if err == nil {
			r, err = r.Add(a)
		}
		if err != nil {
			return Expr{}, err
		}
	}
	return r, nil
}

// Bounds returns the smallest interval [min, max] that interval arithmetic
// guarantees to contain e over the box lo ≤ p ≤ hi (componentwise); ok is
// false if a bound does not fit in 64 bits.
func (e Expr) Bounds(lo, hi Point) (minV, maxV int64, ok bool) {
	minV, maxV = e.konst, e.konst
	add := func(a, b int64) bool {
		var err1, err2 error
		minV, err1 = intmath.AddChecked(minV, a)
		maxV, err2 = intmath.AddChecked(maxV, b)
		return err1 == nil && err2 == nil
	}
	scaled := func(c, a, b int64) (int64, int64, bool) {
		x, err1 := intmath.MulChecked(c, a)
		y, err2 := intmath.MulChecked(c, b)
		if c < 0 {
			x, y = y, x
		}
		return x, y, err1 == nil && err2 == nil
	}
	for i, c := range e.lin {
		a, b, ok := scaled(c, lo[i], hi[i])
		if !ok || !add(a, b) {
			return 0, 0, false
		}
	}
	for _, t := range e.divs {
		amin, amax, ok := t.atom.arg.Bounds(lo, hi)
		if !ok {
			return 0, 0, false
		}
		amin, amax = t.atom.bounds(amin, amax)
		a, b, ok := scaled(t.coef, amin, amax)
		if !ok || !add(a, b) {
			return 0, 0, false
		}
	}
	return minV, maxV, true
}

// bounds returns the least and greatest value of the atom where its
// argument lies in [amin, amax].
func (a *divAtom) bounds(amin, amax int64) (minV, maxV int64) {
	switch {
	case a.mod && intmath.FloorDiv(amin, a.d) == intmath.FloorDiv(amax, a.d):
		// The argument stays within one period: the remainder grows
		// with it.
		return intmath.FloorMod(amin, a.d), intmath.FloorMod(amax, a.d)
	case a.mod:
		return 0, a.d - 1
	}
	return intmath.FloorDiv(amin, a.d), intmath.FloorDiv(amax, a.d)
}

// boundedEverywhere returns the least and greatest value that interval
// arithmetic guarantees for e at every point: ok is false unless e
// depends on the coordinates through modulo terms only, or a bound does
// not fit in 64 bits.
func (e Expr) boundedEverywhere() (minV, maxV int64, ok bool) {
	if e.lin != [3]int64{} {
		return 0, 0, false
	}
	minV, maxV = e.konst, e.konst
	for _, t := range e.divs {
		amin, amax, ok := t.atom.arg.boundedEverywhere()
		switch {
		case !ok && !t.atom.mod:
			return 0, 0, false
		case !ok:
			amin, amax = 0, t.atom.d-1
		default:
			amin, amax = t.atom.bounds(amin, amax)
		}
		a, err1 := intmath.MulChecked(t.coef, amin)
		b, err2 := intmath.MulChecked(t.coef, amax)
		if t.coef < 0 {
			a, b = b, a
		}
		var err3, err4 error
		minV, err3 = intmath.AddChecked(minV, a)
		maxV, err4 = intmath.AddChecked(maxV, b)
		if err1 != nil || err2 != nil || err3 != nil || err4 != nil {
			return 0, 0, false
		}
	}
	return minV, maxV, true
}

// ExprError is a syntax or affinity error in an expression; Column is the
// 1-based column (in characters) of the offending token.
type ExprError struct {
	Column int
	Msg    string
}

func (e *ExprError) Error() string { return fmt.Sprintf("column %d: %s", e.Column, e.Msg) }

// maxNesting bounds bracket nesting so that hostile input cannot exhaust the stack.
const maxNesting = 64

// tokenize splits an expression into tokens, refusing floating-point
// constants, a number directly followed by a name, and characters that
// start no token.
func tokenize(src string) ([]ExprToken, error) {
	toks := ScanExpr(src, ExprSyntax{})
	for i, t := range toks {
		switch {
		case FloatMark(toks, i):
			return nil, &ExprError{toks[i+1].Col, floatMessage}
		case t.Kind == TokenInt && toks[i+1].Kind == TokenName && toks[i+1].Col == t.Col+len(t.Text):
			name := toks[i+1].Text
			name = name[:strings.IndexFunc(name+"0", isDigit)]
			return nil, &ExprError{toks[i+1].Col, fmt.Sprintf("expected an operator after %s; write %s*%s for a product", t.Text, t.Text, name)}
		case t.Kind == TokenOther && t.Text == ".":
			return nil, &ExprError{t.Col, floatMessage}
		case t.Kind == TokenOther:
			return nil, &ExprError{t.Col, fmt.Sprintf("unexpected character %q", []rune(t.Text)[0])}
		}
	}
	return toks, nil
}

// floatMessage refuses a floating-point constant.
const floatMessage = "floating-point constants are not allowed; expressions are integer"

func isIdentRune(r rune) bool { return r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }

// variables maps accepted coordinate names to coordinate indices.
var variables = map[string]int{"x": 0, "y": 1, "z": 2, "tidx": 0, "tidy": 1, "tidz": 2}

// ParseExpr parses an index expression (see the package documentation for
// the syntax) into canonical form. Errors are *ExprError values.
func ParseExpr(src string) (Expr, error) {
	return parseExpr(src, variables, paramScope{})
}

// paramScope binds the parameters an expression may name besides the
// coordinates (a spec's params, -D): each stands for its value, a
// constant. named, when not nil, records the parameters named.
type paramScope struct {
	values map[string]int64
	named  map[string]bool
}

// parseExpr parses src with the given names of the coordinates and
// parameters.
func parseExpr(src string, vars map[string]int, params paramScope) (Expr, error) {
	toks, err := tokenize(src)
	if err != nil {
		return Expr{}, err
	}
	p := &parser{toks: toks, vars: vars, params: params}
	e, err := p.sum()
	if err != nil {
		return Expr{}, err
	}
	if t := p.peek(); t.Kind != TokenEnd {
		return Expr{}, p.unexpected(t)
	}
	return e, nil
}

type parser struct {
	vars   map[string]int // coordinate names
	params paramScope
	toks   []ExprToken
	pos    int
	depth  int
}

func (p *parser) peek() ExprToken { return p.toks[p.pos] }

func (p *parser) next() ExprToken {
	t := p.toks[p.pos]
	if t.Kind != TokenEnd {
		p.pos++
	}
	return t
}

func (p *parser) unexpected(t ExprToken) error {
	switch {
	case t.Kind == '/':
		return &ExprError{t.Col, "division is only allowed as floor(e / c) with a positive constant c"}
	case t.Kind == TokenEnd:
		return &ExprError{t.Col, "unexpected end of expression"}
	case t.Kind == ')':
		return &ExprError{t.Col, "unbalanced ')'"}
	}
	return &ExprError{t.Col, fmt.Sprintf("expected an operator, got %q", t.Text)}
}

// wrap attaches a column to an arithmetic error; errors that already carry
// a column pass through.
func wrap(col int, err error) error {
	if _, positioned := err.(*ExprError); err == nil || positioned {
		return err
	}
	return &ExprError{col, err.Error()}
}

// sum := term (('+' | '-') term)*
func (p *parser) sum() (Expr, error) {
	e, err := p.term()
	for err == nil && (p.peek().Kind == '+' || p.peek().Kind == '-') {
		op := p.next()
		var t Expr
		if t, err = p.term(); err != nil {
			break
		}
		if op.Kind == '+' {
			e, err = e.Add(t)
		} else {
			e, err = e.Sub(t)
		}
		err = wrap(op.Col, err)
	}
	return e, err
}

// term := unary (('*' | '%' | 'mod') unary)*
func (p *parser) term() (Expr, error) {
	e, err := p.unary()
	for err == nil {
		op := p.peek()
		isMod := op.Kind == '%' || op.Kind == TokenName && op.Text == "mod"
		if op.Kind != '*' && !isMod {
			break
		}
		p.next()
		var r Expr
		if r, err = p.unary(); err != nil {
			break
		}
		switch c, rConst := r.IsConst(); {
		case isMod && !rConst:
			err = &ExprError{op.Col, "the modulus must be a constant"}
		case isMod && c <= 0:
			err = &ExprError{op.Col, fmt.Sprintf("the modulus must be positive, got %d", c)}
		case isMod:
			e, err = e.Mod(c)
		case rConst:
			e, err = e.Scale(c)
		default:
			l, lConst := e.IsConst()
			if !lConst {
				err = &ExprError{op.Col, "product of two non-constant expressions is not affine"}
				break
			}
			e, err = r.Scale(l)
		}
		err = wrap(op.Col, err)
	}
	return e, err
}

// unary := ('-' | '+') unary | primary
func (p *parser) unary() (Expr, error) {
	if t := p.peek(); t.Kind == '-' || t.Kind == '+' {
		p.next()
		if err := p.enter(t.Col); err != nil {
			return Expr{}, err
		}
		e, err := p.unary()
		p.depth--
		if err != nil || t.Kind == '+' {
			return e, err
		}
		e, err = e.Scale(-1)
		return e, wrap(t.Col, err)
	}
	return p.primary()
}

func (p *parser) enter(col int) error {
	p.depth++
	if p.depth > maxNesting {
		return &ExprError{col, fmt.Sprintf("expression nested deeper than %d levels", maxNesting)}
	}
	return nil
}

func (p *parser) expect(kind byte, what string) error {
	if t := p.peek(); t.Kind != kind {
		if t.Kind == '/' && kind == ')' {
			return p.unexpected(t)
		}
		return &ExprError{t.Col, fmt.Sprintf("expected %s, got %s", what, t.Describe())}
	}
	p.next()
	return nil
}

// names lists the coordinate names for a message.
func (p *parser) names() string {
	if len(p.vars) == len(variables) && p.vars["tidx"] == 0 {
		return "x, y, z (or tidx, tidy, tidz)"
	}
	names := make([]string, len(p.vars))
	for n, i := range p.vars {
		names[i] = n
	}
	return strings.Join(names, ", ")
}

// paramHint names the bound parameters for the message about an unknown
// name, or says how to bind one.
func (p *parser) paramHint() string {
	if len(p.params.values) == 0 {
		return "; a parameter needs its value in the spec's params or -D NAME=VALUE"
	}
	names := slices.Sorted(maps.Keys(p.params.values))
	return ", or a parameter (" + strings.Join(names, ", ") + ")"
}

// primary := number | variable | parameter | '(' sum ')' | 'floor' '(' sum '/' sum ')'
func (p *parser) primary() (Expr, error) {
	t := p.next()
	switch t.Kind {
	case TokenInt:
		v, err := strconv.ParseInt(t.Text, 10, 64)
		if err != nil {
			return Expr{}, &ExprError{t.Col, fmt.Sprintf("constant %s does not fit in 64 bits", t.Text)}
		}
		return Const(v), nil
	case TokenName:
		if i, ok := p.vars[t.Text]; ok {
			return Var(i), nil
		}
		if t.Text == "floor" {
			return p.floor(t)
		}
		if v, ok := p.params.values[t.Text]; ok {
			if p.params.named != nil {
				p.params.named[t.Text] = true
			}
			return Const(v), nil
		}
		return Expr{}, &ExprError{t.Col, fmt.Sprintf("unknown name %q; expected %s, a number, floor(...) or '('%s", t.Text, p.names(), p.paramHint())}
	case '(':
		if err := p.enter(t.Col); err != nil {
			return Expr{}, err
		}
		e, err := p.sum()
		if err == nil {
			err = p.expect(')', "')'")
		}
		p.depth--
		return e, err
	}
	return Expr{}, &ExprError{t.Col, fmt.Sprintf("expected a number, a variable, floor(...) or '(', got %s", t.Describe())}
}

func (p *parser) floor(name ExprToken) (Expr, error) {
	if err := p.expect('(', "'(' after floor"); err != nil {
		return Expr{}, err
	}
	if err := p.enter(name.Col); err != nil {
		return Expr{}, err
	}
	defer func() { p.depth-- }()
	num, err := p.sum()
	if err != nil {
		return Expr{}, err
	}
	slash := p.peek()
	if slash.Kind != '/' {
		return Expr{}, &ExprError{slash.Col, fmt.Sprintf("expected '/' in floor(e / c), got %s", slash.Describe())}
	}
	p.next()
	den, err := p.sum()
	if err != nil {
		return Expr{}, err
	}
	if err := p.expect(')', "')' closing floor("); err != nil {
		return Expr{}, err
	}
	d, ok := den.IsConst()
	switch {
	case !ok:
		return Expr{}, &ExprError{slash.Col, "division by a non-constant expression is not affine"}
	case d <= 0:
		return Expr{}, &ExprError{slash.Col, fmt.Sprintf("the divisor must be a positive constant, got %d", d)}
	}
	e, err := num.FloorDiv(d)
	return e, wrap(slash.Col, err)
}

// maxPeriod bounds the period Period reports in one coordinate.
const maxPeriod = 1 << 20

// Period returns, for each coordinate i, a step L_i such that
// e(p + L_i·u_i) − e(p) is the same for every point p (u_i the unit vector
// of coordinate i): e is affine on every residue class of points modulo L.
// It is 1 where no floor or modulo term depends on coordinate i, and the
// product of the divisors along each nesting chain otherwise, but for
// terms whose argument stays between two multiples of the divisor at
// every point (boundedEverywhere, as in floor((x mod 32)/64)): a floor
// term is a constant there and adds no period, a modulo term is its
// argument less a constant and adds its argument's. ok is false when a
// period exceeds 2^20.
func (e Expr) Period() (period [3]int64, ok bool) {
	period = [3]int64{1, 1, 1}
	for _, t := range e.divs {
		inner, ok := t.atom.arg.Period()
		if !ok {
			return period, false
		}
		d := t.atom.d
		if amin, amax, bounded := t.atom.arg.boundedEverywhere(); bounded && intmath.FloorDiv(amin, d) == intmath.FloorDiv(amax, d) {
			if !t.atom.mod {
				continue
			}
			d = 1
		}
		for i := range 3 {
			if !t.atom.arg.dependsOn(i) {
				continue
			}
			l := inner[i] * d
			period[i] = period[i] / intmath.GCD(period[i], l) * l
			if period[i] > maxPeriod {
				return period, false
			}
		}
	}
	return period, true
}

// dependsOn reports whether coordinate i appears in e, directly or inside a
// floor or modulo term.
func (e Expr) dependsOn(i int) bool {
	if e.lin[i] != 0 {
		return true
	}
	for _, t := range e.divs {
		if t.atom.arg.dependsOn(i) {
			return true
		}
	}
	return false
}

// OnBox returns e as it is on the box lo ≤ p ≤ hi (componentwise): every
// floor or modulo term whose argument stays between two multiples of its
// divisor there is replaced by its affine form, floor(a/d) by the constant
// ⌊a/d⌋ and a mod d by a − d·⌊a/d⌋, innermost terms first. The result
// equals e at every point of the box and has fewer terms, so a smaller
// period (see Period).
func (e Expr) OnBox(lo, hi Point) (Expr, error) {
	r := Expr{lin: e.lin, konst: e.konst}
	for _, t := range e.divs {
		arg, err := t.atom.arg.OnBox(lo, hi)
		if err != nil {
			return Expr{}, err
		}
		var v Expr
		minV, maxV, ok := arg.Bounds(lo, hi)
		switch q := intmath.FloorDiv(minV, t.atom.d); {
		case ok && q == intmath.FloorDiv(maxV, t.atom.d) && !t.atom.mod:
			v = Const(q)
		case ok && q == intmath.FloorDiv(maxV, t.atom.d):
			v, err = arg.Add(Const(-q * t.atom.d))
		case t.atom.mod:
			v, err = arg.Mod(t.atom.d)
		default:
			v, err = arg.FloorDiv(t.atom.d)
		}
		if err == nil {
			v, err = v.Scale(t.coef)
		}
		if err == nil {
			r, err = r.Add(v)
		}
		if err != nil {
			return Expr{}, err
		}
	}
	return r, nil
}
