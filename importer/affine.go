package importer

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/polyvol/polyvol/intmath"
	"github.com/polyvol/polyvol/kernel"
)

// Affine is an integer affine form: a constant plus integer multiples of
// named variables (loop indices). The zero value is the constant 0.
type Affine struct {
	Coef  map[string]int64 // non-zero coefficients by variable name
	Const int64
}

// IsConst reports whether a has no variable terms.
func (a Affine) IsConst() bool { return len(a.Coef) == 0 }

// Vars returns the names of a's variables, sorted.
func (a Affine) Vars() []string {
	var out []string
	for v := range a.Coef {
		out = append(out, v)
	}
	slices.Sort(out)
	return out
}

// ISL renders a in ISL syntax ("3*i - j + 2"), the variables in the order
// given (variables of a not in order are not printed: the caller passes
// all of them).
func (a Affine) ISL(order []string) string {
	var b strings.Builder
	for _, v := range order {
		c := a.Coef[v]
		if c != 0 {
			kernel.WriteTerm(&b, c, v)
		}
	}
	switch {
	case b.Len() == 0:
		fmt.Fprintf(&b, "%d", a.Const)
	case a.Const < 0:
		fmt.Fprintf(&b, " - %d", -a.Const)
	case a.Const > 0:
		fmt.Fprintf(&b, " + %d", a.Const)
	}
	return b.String()
}

// Add returns a + b.
func (a Affine) Add(b Affine) (Affine, error) {
	out := Affine{Coef: map[string]int64{}}
	var err error
	if out.Const, err = intmath.AddChecked(a.Const, b.Const); err != nil {
		return Affine{}, err
	}
	for _, m := range []map[string]int64{a.Coef, b.Coef} {
		for v, c := range m {
			if out.Coef[v], err = intmath.AddChecked(out.Coef[v], c); err != nil {
				return Affine{}, err
			}
			if out.Coef[v] == 0 {
				delete(out.Coef, v)
			}
		}
	}
	return out, nil
}

// Scale returns k·a.
func (a Affine) Scale(k int64) (Affine, error) {
	out := Affine{Coef: map[string]int64{}}
	var err error
	if out.Const, err = intmath.MulChecked(a.Const, k); err != nil {
		return Affine{}, err
	}
	for v, c := range a.Coef {
		if out.Coef[v], err = intmath.MulChecked(c, k); err != nil {
			return Affine{}, err
		}
		if out.Coef[v] == 0 {
			delete(out.Coef, v)
		}
	}
	return out, nil
}

// Substitute replaces every variable v of a that sub holds by sub[v].
func (a Affine) Substitute(sub map[string]Affine) (Affine, error) {
	out := Affine{Const: a.Const}
	for v, c := range a.Coef {
		s, ok := sub[v]
		if !ok {
			s = Affine{Coef: map[string]int64{v: 1}}
		}
		t, err := s.Scale(c)
		if err == nil {
			out, err = out.Add(t)
		}
		if err != nil {
			return Affine{}, err
		}
	}
	return out, nil
}

// Resolver tells ParseAffine what a name stands for: a variable (isVar), or
// a constant value; an error (for example an unbound constant) is reported
// with the name's column.
type Resolver func(name string) (value int64, isVar bool, err error)

// AffineError is a syntax or semantic error in an affine expression, with
// the 1-based column of the offending token.
type AffineError struct {
	Column int
	Msg    string
	Err    error // the resolver's error, if it caused this one
}

func (e *AffineError) Error() string { return fmt.Sprintf("column %d: %s", e.Column, e.Msg) }

// Unwrap returns the resolver's error.
func (e *AffineError) Unwrap() error { return e.Err }

// maxAffineDepth bounds the nesting of brackets and unary operators.
const maxAffineDepth = 200

// ParseAffine parses an integer expression in the notation of C and
// sympy: integers, names, + and -, * (one factor constant), / and // by a
// constant that divides exactly, % of constants, ** with constant operands,
// and brackets. Names are resolved by resolve.
func ParseAffine(src string, resolve Resolver) (Affine, error) {
	toks, err := lexAffine(src)
	if err != nil {
		return Affine{}, err
	}
	p := &affineParser{toks: toks, resolve: resolve}
	a, err := p.sum()
	if err != nil {
		return Affine{}, err
	}
	if t := p.peek(); t.kind != tEOF {
		return Affine{}, &AffineError{Column: t.col, Msg: fmt.Sprintf("unexpected %s", t.describe())}
	}
	return a, nil
}

type affineToken struct {
	kind byte // tInt, tName, tEOF or the operator's first byte ('*' for "*", 'P' for "**", 'D' for "//")
	text string
	val  int64
	col  int
}

const (
	tEOF  = 0
	tInt  = 'n'
	tName = 'a'
)

func (t affineToken) describe() string {
	if t.kind == tEOF {
		return "end of expression"
	}
	return fmt.Sprintf("%q", t.text)
}

func isNameStart(r rune) bool { return r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }
func isNameRune(r rune) bool  { return isNameStart(r) || r >= '0' && r <= '9' }

func lexAffine(src string) ([]affineToken, error) {
	runes := []rune(src)
	var toks []affineToken
	for i := 0; i < len(runes); {
		r, col := runes[i], i+1
		switch {
		case r == ' ' || r == '\t' || r == '\n' || r == '\r':
			i++
		case r >= '0' && r <= '9':
			j := i
			for j < len(runes) && runes[j] >= '0' && runes[j] <= '9' {
				j++
			}
			if j < len(runes) && (runes[j] == '.' || runes[j] == 'e' || runes[j] == 'E') {
				return nil, &AffineError{Column: col, Msg: "expected an integer, not a floating-point number"}
			}
			v, err := strconv.ParseInt(string(runes[i:j]), 10, 64)
			if err != nil {
				return nil, &AffineError{Column: col, Msg: fmt.Sprintf("integer %s does not fit in 64 bits", string(runes[i:j]))}
			}
			toks = append(toks, affineToken{tInt, string(runes[i:j]), v, col})
			i = j
		case isNameStart(r):
			j := i
			for j < len(runes) && isNameRune(runes[j]) {
				j++
			}
			toks = append(toks, affineToken{tName, string(runes[i:j]), 0, col})
			i = j
		case r == '*' && i+1 < len(runes) && runes[i+1] == '*':
			toks = append(toks, affineToken{'P', "**", 0, col})
			i += 2
		case r == '/' && i+1 < len(runes) && runes[i+1] == '/':
			toks = append(toks, affineToken{'D', "//", 0, col})
			i += 2
		case strings.ContainsRune("+-*/%()", r):
			toks = append(toks, affineToken{byte(r), string(r), 0, col})
			i++
		default:
			return nil, &AffineError{Column: col, Msg: fmt.Sprintf("unexpected character %q", r)}
		}
	}
	return append(toks, affineToken{kind: tEOF, col: len(runes) + 1}), nil
}

type affineParser struct {
	toks    []affineToken
	pos     int
	depth   int
	resolve Resolver
}

func (p *affineParser) peek() affineToken { return p.toks[p.pos] }

func (p *affineParser) next() affineToken {
	t := p.toks[p.pos]
	if t.kind != tEOF {
		p.pos++
	}
	return t
}

func (p *affineParser) sum() (Affine, error) {
	a, err := p.term()
	for err == nil {
		op := p.peek()
		if op.kind != '+' && op.kind != '-' {
			return a, nil
		}
		p.next()
		var b Affine
		if b, err = p.term(); err != nil {
			break
		}
		if op.kind == '-' {
			b, err = b.Scale(-1)
		}
		if err == nil {
			a, err = a.Add(b)
		}
		if err != nil {
			err = &AffineError{Column: op.col, Msg: err.Error()}
		}
	}
	return Affine{}, err
}

func (p *affineParser) term() (Affine, error) {
	a, err := p.unary()
	for err == nil {
		op := p.peek()
		if op.kind != '*' && op.kind != '/' && op.kind != 'D' && op.kind != '%' {
			return a, nil
		}
		p.next()
		var b Affine
		if b, err = p.unary(); err != nil {
			break
		}
		a, err = binary(op, a, b)
	}
	return Affine{}, err
}

// binary applies a multiplicative operator.
func binary(op affineToken, a, b Affine) (Affine, error) {
	wrap := func(err error) error {
		if err == nil {
			return nil
		}
		if _, ok := err.(*AffineError); ok {
			return err
		}
		return &AffineError{Column: op.col, Msg: err.Error()}
	}
	if op.kind == '*' {
		switch {
		case b.IsConst():
			r, err := a.Scale(b.Const)
			return r, wrap(err)
		case a.IsConst():
			r, err := b.Scale(a.Const)
			return r, wrap(err)
		}
		return Affine{}, &AffineError{Column: op.col, Msg: fmt.Sprintf("the product of %s and %s is not affine (one factor must be a constant)", strings.Join(a.Vars(), "+"), strings.Join(b.Vars(), "+"))}
	}
	if !b.IsConst() {
		return Affine{}, &AffineError{Column: op.col, Msg: fmt.Sprintf("%s by a non-constant is not affine", op.text)}
	}
	d := b.Const
	if d == 0 {
		return Affine{}, &AffineError{Column: op.col, Msg: fmt.Sprintf("%s by zero", op.text)}
	}
	if op.kind == '%' {
		if !a.IsConst() {
			return Affine{}, &AffineError{Column: op.col, Msg: "a remainder of a loop index is not affine; write it as a raw ISL map"}
		}
		return Affine{Const: a.Const % d}, nil
	}
	// / and //: exact division only, so that the result stays affine.
	if a.Const%d != 0 {
		return Affine{}, &AffineError{Column: op.col, Msg: fmt.Sprintf("%s by %d does not divide %d exactly", op.text, d, a.Const)}
	}
	out := Affine{Const: a.Const / d, Coef: map[string]int64{}}
	for v, c := range a.Coef {
		if c%d != 0 {
			return Affine{}, &AffineError{Column: op.col, Msg: fmt.Sprintf("%s by %d does not divide the coefficient %d of %s exactly; the expression is not affine", op.text, d, c, v)}
		}
		out.Coef[v] = c / d
	}
	return out, nil
}

func (p *affineParser) unary() (Affine, error) {
	t := p.peek()
	if t.kind != '-' && t.kind != '+' {
		return p.power()
	}
	p.next()
	if p.depth++; p.depth > maxAffineDepth {
		return Affine{}, &AffineError{Column: t.col, Msg: "expression nested too deeply"}
	}
	a, err := p.unary()
	p.depth--
	if err != nil || t.kind == '+' {
		return a, err
	}
	r, err := a.Scale(-1)
	if err != nil {
		return Affine{}, &AffineError{Column: t.col, Msg: err.Error()}
	}
	return r, nil
}

func (p *affineParser) power() (Affine, error) {
	a, err := p.primary()
	if err != nil {
		return a, err
	}
	op := p.peek()
	if op.kind != 'P' {
		return a, nil
	}
	p.next()
	if p.depth++; p.depth > maxAffineDepth {
		return Affine{}, &AffineError{Column: op.col, Msg: "expression nested too deeply"}
	}
	e, err := p.unary()
	p.depth--
	if err != nil {
		return Affine{}, err
	}
	if !e.IsConst() || e.Const < 0 {
		return Affine{}, &AffineError{Column: op.col, Msg: "** needs a constant, non-negative exponent"}
	}
	if e.Const == 1 {
		return a, nil
	}
	if e.Const == 0 {
		return Affine{Const: 1}, nil
	}
	if !a.IsConst() {
		return Affine{}, &AffineError{Column: op.col, Msg: "a power of a loop index is not affine"}
	}
	v := int64(1)
	for range e.Const {
		if v, err = intmath.MulChecked(v, a.Const); err != nil {
			return Affine{}, &AffineError{Column: op.col, Msg: err.Error()}
		}
		if v == 0 || v == 1 {
			break
		}
	}
	return Affine{Const: v}, nil
}

func (p *affineParser) primary() (Affine, error) {
	t := p.next()
	switch t.kind {
	case tInt:
		return Affine{Const: t.val}, nil
	case tName:
		v, isVar, err := p.resolve(t.text)
		if err != nil {
			return Affine{}, &AffineError{Column: t.col, Msg: err.Error(), Err: err}
		}
		if isVar {
			return Affine{Coef: map[string]int64{t.text: 1}}, nil
		}
		return Affine{Const: v}, nil
	case '(':
		if p.depth++; p.depth > maxAffineDepth {
			return Affine{}, &AffineError{Column: t.col, Msg: "expression nested too deeply"}
		}
		a, err := p.sum()
		p.depth--
		if err != nil {
			return Affine{}, err
		}
		if c := p.next(); c.kind != ')' {
			return Affine{}, &AffineError{Column: c.col, Msg: fmt.Sprintf("expected ')' to close the '(' of column %d, got %s", t.col, c.describe())}
		}
		return a, nil
	}
	return Affine{}, &AffineError{Column: t.col, Msg: fmt.Sprintf("expected a number, a name or '(', got %s", t.describe())}
}
