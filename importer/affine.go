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
	if t := p.peek(); t.Kind != kernel.TokenEnd {
		return Affine{}, &AffineError{Column: t.Col, Msg: fmt.Sprintf("unexpected %s", t.Describe())}
	}
	return a, nil
}

// affineToken is a token of an affine expression, with its value if it
// is an integer.
type affineToken struct {
	kernel.ExprToken
	val int64
}

// lexAffine splits src into tokens, "**" and "//" among the operators and
// line breaks among the blanks, refusing floating-point numbers, integers
// beyond 64 bits and characters that start no token.
func lexAffine(src string) ([]affineToken, error) {
	scanned := kernel.ScanExpr(src, kernel.ExprSyntax{Newlines: true, Pairs: []string{"**", "//"}})
	toks := make([]affineToken, len(scanned))
	for i, t := range scanned {
		toks[i].ExprToken = t
		switch {
		case kernel.FloatMark(scanned, i):
			return nil, &AffineError{Column: t.Col, Msg: "expected an integer, not a floating-point number"}
		case t.Kind == kernel.TokenInt:
			v, err := strconv.ParseInt(t.Text, 10, 64)
			if err != nil {
				return nil, &AffineError{Column: t.Col, Msg: fmt.Sprintf("integer %s does not fit in 64 bits", t.Text)}
			}
			toks[i].val = v
		case t.Kind == kernel.TokenOther:
			return nil, &AffineError{Column: t.Col, Msg: fmt.Sprintf("unexpected character %q", []rune(t.Text)[0])}
		}
	}
	return toks, nil
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
	if t.Kind != kernel.TokenEnd {
		p.pos++
	}
	return t
}

func (p *affineParser) sum() (Affine, error) {
	a, err := p.term()
	for err == nil {
		op := p.peek()
		if op.Kind != '+' && op.Kind != '-' {
			return a, nil
		}
		p.next()
		var b Affine
		if b, err = p.term(); err != nil {
			break
		}
		if op.Kind == '-' {
			b, err = b.Scale(-1)
		}
		if err == nil {
			a, err = a.Add(b)
		}
		if err != nil {
			err = &AffineError{Column: op.Col, Msg: err.Error()}
		}
	}
	return Affine{}, err
}

func (p *affineParser) term() (Affine, error) {
	a, err := p.unary()
	for err == nil {
		op := p.peek()
		if op.Kind != '*' && op.Kind != '/' && op.Text != "//" && op.Kind != '%' {
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
		return &AffineError{Column: op.Col, Msg: err.Error()}
	}
	if op.Kind == '*' {
		switch {
		case b.IsConst():
			r, err := a.Scale(b.Const)
			return r, wrap(err)
		case a.IsConst():
			r, err := b.Scale(a.Const)
			return r, wrap(err)
		}
		return Affine{}, &AffineError{Column: op.Col, Msg: fmt.Sprintf("the product of %s and %s is not affine (one factor must be a constant)", strings.Join(a.Vars(), "+"), strings.Join(b.Vars(), "+"))}
	}
	if !b.IsConst() {
		return Affine{}, &AffineError{Column: op.Col, Msg: fmt.Sprintf("%s by a non-constant is not affine", op.Text)}
	}
	d := b.Const
	if d == 0 {
		return Affine{}, &AffineError{Column: op.Col, Msg: fmt.Sprintf("%s by zero", op.Text)}
	}
	if op.Kind == '%' {
		if !a.IsConst() {
			return Affine{}, &AffineError{Column: op.Col, Msg: "a remainder of a loop index is not affine; write it as a raw ISL map"}
		}
		return Affine{Const: a.Const % d}, nil
	}
	// / and //: exact division only, so that the result stays affine.
	if a.Const%d != 0 {
		return Affine{}, &AffineError{Column: op.Col, Msg: fmt.Sprintf("%s by %d does not divide %d exactly", op.Text, d, a.Const)}
	}
	out := Affine{Const: a.Const / d, Coef: map[string]int64{}}
	for v, c := range a.Coef {
		if c%d != 0 {
			return Affine{}, &AffineError{Column: op.Col, Msg: fmt.Sprintf("%s by %d does not divide the coefficient %d of %s exactly; the expression is not affine", op.Text, d, c, v)}
		}
		out.Coef[v] = c / d
	}
	return out, nil
}

func (p *affineParser) unary() (Affine, error) {
	t := p.peek()
	if t.Kind != '-' && t.Kind != '+' {
		return p.power()
	}
	p.next()
	if p.depth++; p.depth > maxAffineDepth {
		return Affine{}, &AffineError{Column: t.Col, Msg: "expression nested too deeply"}
	}
	a, err := p.unary()
	p.depth--
	if err != nil || t.Kind == '+' {
		return a, err
	}
	r, err := a.Scale(-1)
	if err != nil {
		return Affine{}, &AffineError{Column: t.Col, Msg: err.Error()}
	}
	return r, nil
}

func (p *affineParser) power() (Affine, error) {
	a, err := p.primary()
	if err != nil {
		return a, err
	}
	op := p.peek()
	if op.Text != "**" {
		return a, nil
	}
	p.next()
	if p.depth++; p.depth > maxAffineDepth {
		return Affine{}, &AffineError{Column: op.Col, Msg: "expression nested too deeply"}
	}
	e, err := p.unary()
	p.depth--
	if err != nil {
		return Affine{}, err
	}
	if !e.IsConst() || e.Const < 0 {
		return Affine{}, &AffineError{Column: op.Col, Msg: "** needs a constant, non-negative exponent"}
	}
	if e.Const == 1 {
		return a, nil
	}
	if e.Const == 0 {
		return Affine{Const: 1}, nil
	}
	if !a.IsConst() {
		return Affine{}, &AffineError{Column: op.Col, Msg: "a power of a loop index is not affine"}
	}
	v := int64(1)
	for range e.Const {
		if v, err = intmath.MulChecked(v, a.Const); err != nil {
			return Affine{}, &AffineError{Column: op.Col, Msg: err.Error()}
		}
		if v == 0 || v == 1 {
			break
		}
	}
	return Affine{Const: v}, nil
}

func (p *affineParser) primary() (Affine, error) {
	t := p.next()
	switch t.Kind {
	case kernel.TokenInt:
		return Affine{Const: t.val}, nil
	case kernel.TokenName:
		v, isVar, err := p.resolve(t.Text)
		if err != nil {
			return Affine{}, &AffineError{Column: t.Col, Msg: err.Error(), Err: err}
		}
		if isVar {
			return Affine{Coef: map[string]int64{t.Text: 1}}, nil
		}
		return Affine{Const: v}, nil
	case '(':
		if p.depth++; p.depth > maxAffineDepth {
			return Affine{}, &AffineError{Column: t.Col, Msg: "expression nested too deeply"}
		}
		a, err := p.sum()
		p.depth--
		if err != nil {
			return Affine{}, err
		}
		if c := p.next(); c.Kind != ')' {
			return Affine{}, &AffineError{Column: c.Col, Msg: fmt.Sprintf("expected ')' to close the '(' of column %d, got %s", t.Col, c.Describe())}
		}
		return a, nil
	}
	return Affine{}, &AffineError{Column: t.Col, Msg: fmt.Sprintf("expected a number, a name or '(', got %s", t.Describe())}
}
