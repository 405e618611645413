package cudagen

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/polyvol/polyvol/kernel"
)

// usesDiv reports whether e contains floor-division and modulo terms, at
// any depth.
func usesDiv(e kernel.Expr) (floor, mod bool) {
	_, _, divs := e.Terms()
	for _, d := range divs {
		f, m := usesDiv(d.Arg)
		floor = floor || f || !d.Mod
		mod = mod || m || d.Mod
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

// cExpr renders e as a C expression over the 64-bit variables x, y and z,
// with floordiv(a, d) and posmod(a, d) for the floor-division and modulo
// terms, in the order of e's canonical form (kernel.Expr.Terms).
func cExpr(e kernel.Expr) string { return cExprOver(e, coordinates) }

// cExprOver renders e as cExpr does, with the C names vars for x, y and z.
func cExprOver(e kernel.Expr, vars [3]string) string {
	coef, konst, divs := e.Terms()
	var b strings.Builder
	term := func(c int64, operand string) {
		switch {
		case b.Len() == 0 && c < 0:
			b.WriteString("-")
			c = -c
		case b.Len() == 0:
		case c < 0:
			b.WriteString(" - ")
			c = -c
		default:
			b.WriteString(" + ")
		}
		if c != 1 {
			b.WriteString(cLiteral(c) + " * ")
		}
		b.WriteString(operand)
	}
	for i, c := range coef {
		if c != 0 {
			term(c, vars[i])
		}
	}
	for _, d := range divs {
		fn := "floordiv"
		if d.Mod {
			fn = "posmod"
		}
		term(d.Coef, fmt.Sprintf("%s(%s, %s)", fn, cExprOver(d.Arg, vars), cLiteral(d.Divisor)))
	}
	switch {
	case b.Len() == 0:
		b.WriteString(cLiteral(konst))
	case konst < 0:
		b.WriteString(" - " + cLiteral(-konst))
	case konst > 0:
		b.WriteString(" + " + cLiteral(konst))
	}
	return b.String()
}

// coordinates are the C names of x, y and z in the generated kernel, and
// threadIndex those of the thread's index within its block.
var (
	coordinates = [3]string{"x", "y", "z"}
	threadIndex = [3]string{"tx", "ty", "tz"}
)

// evalC evaluates e at p the way the generated C code does: 64-bit integer
// arithmetic and the floordiv and posmod helpers built on C's truncating
// division and remainder (which Go's / and % share).
func evalC(e kernel.Expr, p kernel.Point) int64 {
	coef, v, divs := e.Terms()
	for i, c := range coef {
		v += c * p[i]
	}
	for _, d := range divs {
		a := evalC(d.Arg, p)
		if d.Mod {
			v += d.Coef * cPosmod(a, d.Divisor)
		} else {
			v += d.Coef * cFloordiv(a, d.Divisor)
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
