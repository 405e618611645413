package kernel

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/polyvol/polyvol/intmath"
	"github.com/polyvol/polyvol/lattice"
)

// Guards.
//
// An access may hold only where conditions on the lattice point hold: a
// bounds check around a halo load, or a partial access of a polyhedral
// compiler. Its Guards are the conditions g ≥ 0. polyvol counts a guarded
// access exactly where each guard bounds one coordinate, a·v + c ≥ 0 with a
// single coordinate v, so that the points where it applies are a box
// (GuardBox): the counter clips the access's points to that box as it
// clips every point to the domain, and lanes whose points lie outside do
// not issue it. A guard over several coordinates or with floor and modulo
// terms that does not hold on the whole domain cannot be modelled and is
// an error (Kernel.ExpressionsError).

// unbounded is the extent of a coordinate that no guard bounds: far beyond
// any domain (2^50 points at most) and far from overflow.
const unbounded = int64(1) << 60

// GuardBox returns the box of lattice points where every guard of a holds,
// and false when a guard bounds more than one coordinate or has floor or
// modulo terms.
func (a Access) GuardBox() (lattice.Box, bool) {
	box := lattice.Box{Lo: [3]int64{-unbounded, -unbounded, -unbounded}, Hi: [3]int64{unbounded, unbounded, unbounded}}
	for _, g := range a.Guards {
		coef, c, ok := g.Linear()
		if !ok {
			return box, false
		}
		v := -1
		for i, k := range coef {
			if k != 0 {
				if v >= 0 {
					return box, false
				}
				v = i
			}
		}
		if v < 0 { // a constant guard: all points or none
			if c < 0 {
				box.Hi[0] = box.Lo[0]
			}
			continue
		}
		if a := coef[v]; a > 0 { // a·p + c ≥ 0 ⇔ p ≥ ⌈−c/a⌉
			box.Lo[v] = max(box.Lo[v], intmath.CeilDiv(-c, a))
		} else { // p ≤ ⌊c/−a⌋
			box.Hi[v] = min(box.Hi[v], intmath.FloorDiv(c, -a)+1)
		}
	}
	return box, true
}

// Partial returns the box of a's guards (GuardBox) and whether it leaves
// out points of the domain d, or an error when a's guards cannot be
// modelled and do not hold on the whole domain. Guards that hold on the
// whole domain are not applied: the access is then not partial, also at
// points beyond the domain that a method without clipping counts.
func (a Access) Partial(d [3]int64) (lattice.Box, bool, error) {
	box, ok := a.GuardBox()
	if !ok {
		if g, violated := violatedGuard(a, Point{d[0] - 1, d[1] - 1, d[2] - 1}); violated {
			return box, false, fmt.Errorf("the condition %s >= 0 bounds more than one coordinate or has floor or modulo terms, and does not hold on the whole domain %dx%dx%d; polyvol models conditions that bound one coordinate each", g, d[0], d[1], d[2])
		}
		return box, false, nil
	}
	dom := lattice.Box{Hi: d}
	return box, box.Intersect(dom) != dom, nil
}

// ParseCondition reads a condition on the lattice point, a conjunction
// ("and") of comparisons of index expressions, which may chain
// (0 <= x < 4096), with <, <=, >, >= and = (or ==), into guards g ≥ 0.
func ParseCondition(src string) ([]Expr, error) {
	return parseCondition(src, paramScope{})
}

// parseCondition is ParseCondition with the parameters of params bound. An
// error in one of the expressions is an *ExprError whose column counts
// from the start of the whole condition.
func parseCondition(src string, params paramScope) ([]Expr, error) {
	if strings.TrimSpace(src) == "" {
		return nil, fmt.Errorf("empty condition")
	}
	var guards []Expr
	start := 0 // the byte offset of the part in src
	for _, part := range strings.Split(src, " and ") {
		sides, ops, err := splitComparison(part)
		if err != nil {
			return nil, err
		}
		exprs := make([]Expr, len(sides))
		offset := start
		for i, s := range sides {
			if exprs[i], err = parseExpr(s, variables, params); err != nil {
				var e *ExprError
				if errors.As(err, &e) {
					return nil, &ExprError{Column: utf8.RuneCountInString(src[:offset]) + e.Column, Msg: e.Msg}
				}
				return nil, err
			}
			if i < len(ops) {
				offset += len(s) + len(ops[i])
			}
		}
		for i, op := range ops {
			gs, err := comparisonGuards(exprs[i], op, exprs[i+1])
			if err != nil {
				return nil, err
			}
			guards = append(guards, gs...)
		}
		start += len(part) + len(" and ")
	}
	return guards, nil
}

// splitComparison cuts a comparison chain into its sides and operators.
func splitComparison(s string) (sides, ops []string, err error) {
	start := 0
	for i := 0; i < len(s); i++ {
		op := ""
		switch {
		case strings.HasPrefix(s[i:], "<="), strings.HasPrefix(s[i:], ">="), strings.HasPrefix(s[i:], "=="):
			op = s[i : i+2]
		case s[i] == '<' || s[i] == '>' || s[i] == '=':
			op = s[i : i+1]
		}
		if op == "" {
			continue
		}
		sides = append(sides, s[start:i])
		ops = append(ops, op)
		i += len(op) - 1
		start = i + 1
	}
	sides = append(sides, s[start:])
	if len(ops) == 0 {
		return nil, nil, fmt.Errorf("%q: expected a comparison (<, <=, >, >=, =)", strings.TrimSpace(s))
	}
	return sides, ops, nil
}

// comparisonGuards returns the guards g ≥ 0 of a op b.
func comparisonGuards(a Expr, op string, b Expr) ([]Expr, error) {
	diff := func(p, q Expr, minus int64) (Expr, error) { // p − q − minus
		d, err := p.Sub(q)
		if err == nil {
			d, err = d.Add(Const(-minus))
		}
		return d, err
	}
	var gs []Expr
	add := func(p, q Expr, minus int64) error {
		d, err := diff(p, q, minus)
		gs = append(gs, d)
		return err
	}
	var err error
	switch op {
	case "<":
		err = add(b, a, 1)
	case "<=":
		err = add(b, a, 0)
	case ">":
		err = add(a, b, 1)
	case ">=":
		err = add(a, b, 0)
	default: // "=", "=="
		if err = add(b, a, 0); err == nil {
			err = add(a, b, 0)
		}
	}
	return gs, err
}
