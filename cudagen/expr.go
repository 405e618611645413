package cudagen

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/polyvol/polyvol/kernel"
)

// sum is a quasi-affine expression as the C translation sees it: a list of
// terms and a constant. It mirrors the canonical form of kernel.Expr, which
// keeps its terms unexported, and is recovered from the documented ISL
// rendering of that form (kernel.Expr.ISL).
type sum struct {
	terms []term
	konst int64
}

// term is coef·v for a coordinate (atom == nil, v = 0, 1, 2 for x, y, z) or
// coef·atom for a floor-division or modulo atom.
type term struct {
	coef int64
	v    int
	atom *atom
}

// atom is floor(arg/d) or, when mod is set, the non-negative arg mod d.
type atom struct {
	mod bool
	arg sum
	d   int64
}

// translate returns the canonical expression e as a sum.
func translate(e kernel.Expr) (sum, error) {
	p := &exprParser{src: e.ISL()}
	s, err := p.sum()
	if err == nil && p.pos < len(p.src) {
		err = p.errorf("unexpected %q", p.src[p.pos:])
	}
	if err != nil {
		return sum{}, fmt.Errorf("expression %s: %w", e, err)
	}
	return s, nil
}

// exprParser reads the ISL rendering of a canonical expression:
//
//	sum  = ["-"] term {("+" | "-") term}
//	term = INT ["*" atom] | atom
//	atom = "x" | "y" | "z" | "floor((" sum ")/" INT ")" | "((" sum ") mod " INT ")"
type exprParser struct {
	src string
	pos int
}

func (p *exprParser) errorf(format string, args ...any) error {
	return fmt.Errorf("ISL form %q, column %d: %s", p.src, p.pos+1, fmt.Sprintf(format, args...))
}

func (p *exprParser) skipSpace() {
	for p.pos < len(p.src) && p.src[p.pos] == ' ' {
		p.pos++
	}
}

// accept consumes tok (after spaces) and reports whether it was there.
func (p *exprParser) accept(tok string) bool {
	p.skipSpace()
	if strings.HasPrefix(p.src[p.pos:], tok) {
		p.pos += len(tok)
		return true
	}
	return false
}

func (p *exprParser) expect(tok string) error {
	if !p.accept(tok) {
		return p.errorf("expected %q", tok)
	}
	return nil
}

// integer reads an unsigned decimal constant.
func (p *exprParser) integer() (int64, bool, error) {
	p.skipSpace()
	start := p.pos
	for p.pos < len(p.src) && p.src[p.pos] >= '0' && p.src[p.pos] <= '9' {
		p.pos++
	}
	if start == p.pos {
		return 0, false, nil
	}
	v, err := strconv.ParseInt(p.src[start:p.pos], 10, 64)
	if err != nil {
		return 0, false, p.errorf("constant: %v", err)
	}
	return v, true, nil
}

func (p *exprParser) sum() (sum, error) {
	var s sum
	sign := int64(1)
	if p.accept("-") {
		sign = -1
	}
	for {
		c, isInt, err := p.integer()
		if err != nil {
			return s, err
		}
		switch {
		case isInt && !p.accept("*"):
			s.konst += sign * c
		default:
			if !isInt {
				c = 1
			}
			t, err := p.atom()
			if err != nil {
				return s, err
			}
			t.coef = sign * c
			s.terms = append(s.terms, t)
		}
		switch {
		case p.accept("+"):
			sign = 1
		case p.accept("-"):
			sign = -1
		default:
			return s, nil
		}
	}
}

func (p *exprParser) atom() (term, error) {
	for v, name := range []string{"x", "y", "z"} {
		if p.accept(name) {
			return term{v: v}, nil
		}
	}
	mod := false
	switch {
	case p.accept("floor"):
		if err := p.expect("("); err != nil {
			return term{}, err
		}
	case p.accept("("):
		mod = true
	default:
		return term{}, p.errorf("expected x, y, z, floor or a bracket")
	}
	if err := p.expect("("); err != nil {
		return term{}, err
	}
	arg, err := p.sum()
	if err != nil {
		return term{}, err
	}
	if err := p.expect(")"); err != nil {
		return term{}, err
	}
	op := "/"
	if mod {
		op = "mod"
	}
	if err := p.expect(op); err != nil {
		return term{}, err
	}
	d, ok, err := p.integer()
	if err != nil {
		return term{}, err
	}
	if !ok || d < 1 {
		return term{}, p.errorf("expected a positive divisor")
	}
	if err := p.expect(")"); err != nil {
		return term{}, err
	}
	return term{atom: &atom{mod: mod, arg: arg, d: d}}, nil
}

// usesDiv reports whether s contains floor-division and modulo atoms.
func (s sum) usesDiv() (floor, mod bool) {
	for _, t := range s.terms {
		if t.atom == nil {
			continue
		}
		f, m := t.atom.arg.usesDiv()
		floor = floor || f || !t.atom.mod
		mod = mod || m || t.atom.mod
	}
	return floor, mod
}

// cLiteral renders an integer constant for C; constants outside the int
// range get the LL suffix so that they are never truncated.
func cLiteral(c int64) string {
	if c > math.MaxInt32 || c < math.MinInt32 {
		return strconv.FormatInt(c, 10) + "LL"
	}
	return strconv.FormatInt(c, 10)
}

// c renders s as a C expression over the 64-bit variables names[0..2]
// (x, y, z), with floordiv(a, d) and posmod(a, d) for the atoms.
func (s sum) c(names [3]string) string {
	var b strings.Builder
	for _, t := range s.terms {
		a := ""
		if t.atom == nil {
			a = names[t.v]
		} else {
			fn := "floordiv"
			if t.atom.mod {
				fn = "posmod"
			}
			a = fmt.Sprintf("%s(%s, %s)", fn, t.atom.arg.c(names), cLiteral(t.atom.d))
		}
		mag := t.coef
		switch {
		case b.Len() == 0 && mag < 0:
			b.WriteString("-")
			mag = -mag
		case b.Len() == 0:
		case mag < 0:
			b.WriteString(" - ")
			mag = -mag
		default:
			b.WriteString(" + ")
		}
		if mag != 1 {
			b.WriteString(cLiteral(mag) + " * ")
		}
		b.WriteString(a)
	}
	switch {
	case b.Len() == 0:
		b.WriteString(cLiteral(s.konst))
	case s.konst < 0:
		b.WriteString(" - " + cLiteral(-s.konst))
	case s.konst > 0:
		b.WriteString(" + " + cLiteral(s.konst))
	}
	return b.String()
}

// evalC evaluates s at p the way the generated C code does: 64-bit integer
// arithmetic and the floordiv and posmod helpers built on C's truncating
// division and remainder (which Go's / and % share).
func (s sum) evalC(p kernel.Point) int64 {
	v := s.konst
	for _, t := range s.terms {
		if t.atom == nil {
			v += t.coef * p[t.v]
			continue
		}
		a := t.atom.arg.evalC(p)
		if t.atom.mod {
			v += t.coef * cPosmod(a, t.atom.d)
		} else {
			v += t.coef * cFloordiv(a, t.atom.d)
		}
	}
	return v
}

// cFloordiv and cPosmod are line-by-line copies of the device functions
// floordiv and posmod of the generated programs (see helpersC).
func cFloordiv(a, d int64) int64 {
	q := a / d
	if a%d != 0 && a < 0 {
		q--
	}
	return q
}

func cPosmod(a, d int64) int64 {
	r := a % d
	if r < 0 {
		r += d
	}
	return r
}

// floordivC and posmodC are the device helpers the translated expressions
// call; Generate includes each only when an expression needs it.
const (
	floordivC = `// floordiv is floor(a/d) for d > 0 (C's / truncates toward zero).
__device__ __forceinline__ long long floordiv(long long a, long long d)
{
    const long long q = a / d;
    return (a % d != 0 && a < 0) ? q - 1 : q;
}
`
	posmodC = `// posmod is a mod d in [0, d) for d > 0 (C's % keeps the sign of a).
__device__ __forceinline__ long long posmod(long long a, long long d)
{
    const long long r = a % d;
    return r < 0 ? r + d : r;
}
`
)
