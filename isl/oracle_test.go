package isl

// This file holds the brute-force oracle: small random sets and relations
// described both as ISL text and as Go predicates, enumerated point by point
// inside the universe [-bound, bound]^d.

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
)

// bound is the half-width of the universe every random set lives in.
const bound = 8

// point holds up to three coordinates; unused ones are zero.
type point [3]int64

// pointSet is a set of points enumerated by brute force.
type pointSet map[point]bool

// linear is c + Σ coef[i]·v_i over the variables v0, v1, ...
type linear struct {
	coef []int64
	c    int64
}

func (l linear) eval(p point) int64 {
	v := l.c
	for i, a := range l.coef {
		v += a * p[i]
	}
	return v
}

func (l linear) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d", l.c)
	for i, a := range l.coef {
		if a != 0 {
			fmt.Fprintf(&b, " + %d*v%d", a, i)
		}
	}
	return b.String()
}

func floorDiv(a, m int64) int64 {
	q := a / m
	if a%m != 0 && (a < 0) != (m < 0) {
		q--
	}
	return q
}

// constraint is one random condition on the variables.
type constraint struct {
	kind int // 0: lin >= 0; 1: lin mod m = r; 2: floor(lin/m) <= v_k + r; 3: exists e: lin = m*e
	lin  linear
	m, r int64
	k    int
}

func (c constraint) holds(p point) bool {
	v := c.lin.eval(p)
	switch c.kind {
	case 0:
		return v >= 0
	case 1:
		return v-floorDiv(v, c.m)*c.m == c.r
	case 2:
		return floorDiv(v, c.m) <= p[c.k]+c.r
	default:
		return v%c.m == 0
	}
}

func (c constraint) String() string {
	switch c.kind {
	case 0:
		return fmt.Sprintf("%v >= 0", c.lin)
	case 1:
		return fmt.Sprintf("(%v) mod %d = %d", c.lin, c.m, c.r)
	case 2:
		return fmt.Sprintf("floor((%v)/%d) <= v%d + %d", c.lin, c.m, c.k, c.r)
	default:
		return fmt.Sprintf("exists (e : %v = %d*e)", c.lin, c.m)
	}
}

// piece is a box intersected with a few constraints.
type piece struct {
	lo, hi []int64
	cons   []constraint
}

func (pc piece) holds(p point) bool {
	for i := range pc.lo {
		if p[i] < pc.lo[i] || p[i] > pc.hi[i] {
			return false
		}
	}
	for _, c := range pc.cons {
		if !c.holds(p) {
			return false
		}
	}
	return true
}

func (pc piece) String() string {
	var parts []string
	for i := range pc.lo {
		parts = append(parts, fmt.Sprintf("%d <= v%d <= %d", pc.lo[i], i, pc.hi[i]))
	}
	for _, c := range pc.cons {
		parts = append(parts, c.String())
	}
	return strings.Join(parts, " and ")
}

// randomSet is a union of pieces over n variables, split into a domain of
// nIn variables and a range of the others (nIn = 0 for a plain set).
type randomSet struct {
	n, nIn int
	pieces []piece
}

func randLinear(rng *rand.Rand, n int) linear {
	l := linear{coef: make([]int64, n), c: rng.Int64N(7) - 3}
	for i := range l.coef {
		l.coef[i] = rng.Int64N(5) - 2
	}
	return l
}

func randConstraint(rng *rand.Rand, n int) constraint {
	c := constraint{kind: rng.IntN(4), lin: randLinear(rng, n), m: 2 + rng.Int64N(3), k: rng.IntN(n)}
	switch c.kind {
	case 0:
		c.lin.c += 4 // mostly non-empty half-spaces
	case 1:
		c.r = rng.Int64N(c.m)
	case 2:
		c.r = rng.Int64N(5) - 2
	}
	return c
}

func newRandomSet(rng *rand.Rand, n, nIn int) randomSet {
	rs := randomSet{n: n, nIn: nIn}
	for range 1 + rng.IntN(3) {
		var pc piece
		for range n {
			a, b := rng.Int64N(2*bound+1)-bound, rng.Int64N(2*bound+1)-bound
			pc.lo, pc.hi = append(pc.lo, min(a, b)), append(pc.hi, max(a, b))
		}
		for range rng.IntN(3) {
			pc.cons = append(pc.cons, randConstraint(rng, n))
		}
		rs.pieces = append(rs.pieces, pc)
	}
	return rs
}

func (rs randomSet) holds(p point) bool {
	return slices.ContainsFunc(rs.pieces, func(pc piece) bool { return pc.holds(p) })
}

func varList(from, to int) string {
	var names []string
	for i := from; i < to; i++ {
		names = append(names, fmt.Sprintf("v%d", i))
	}
	return "[" + strings.Join(names, ", ") + "]"
}

// String renders the set, or the relation when nIn > 0, in ISL syntax.
func (rs randomSet) String() string {
	tuple := varList(0, rs.n)
	if rs.nIn > 0 {
		tuple = varList(0, rs.nIn) + " -> " + varList(rs.nIn, rs.n)
	}
	var parts []string
	for _, pc := range rs.pieces {
		parts = append(parts, tuple+" : "+pc.String())
	}
	return "{ " + strings.Join(parts, "; ") + " }"
}

// universe calls f for every point of [-bound, bound]^n.
func universe(n int, f func(point)) {
	var p point
	var rec func(int)
	rec = func(i int) {
		if i == n {
			f(p)
			return
		}
		for v := int64(-bound); v <= bound; v++ {
			p[i] = v
			rec(i + 1)
		}
		p[i] = 0
	}
	rec(0)
}

func (rs randomSet) enumerate() pointSet {
	out := pointSet{}
	universe(rs.n, func(p point) {
		if rs.holds(p) {
			out[p] = true
		}
	})
	return out
}

func (s pointSet) filter(keep func(point) bool) pointSet {
	out := pointSet{}
	for p := range s {
		if keep(p) {
			out[p] = true
		}
	}
	return out
}

func (s pointSet) union(t pointSet) pointSet {
	out := s.filter(func(point) bool { return true })
	for p := range t {
		out[p] = true
	}
	return out
}

func (s pointSet) subsetOf(t pointSet) bool {
	for p := range s {
		if !t[p] {
			return false
		}
	}
	return true
}

func (s pointSet) equal(t pointSet) bool { return len(s) == len(t) && s.subsetOf(t) }

// mapPoints returns { f(p) : p in s }.
func (s pointSet) mapPoints(f func(point) point) pointSet {
	out := pointSet{}
	for p := range s {
		out[f(p)] = true
	}
	return out
}

func lexLess(a, b point) bool { return slices.Compare(a[:], b[:]) < 0 }

// lexExtreme returns the singleton of the lexicographically smallest (or
// largest) point, or the empty set.
func (s pointSet) lexExtreme(largest bool) pointSet {
	var best point
	found := false
	for p := range s {
		better := lexLess(p, best)
		if largest {
			better = lexLess(best, p)
		}
		if !found || better {
			best, found = p, true
		}
	}
	if !found {
		return pointSet{}
	}
	return pointSet{best: true}
}

// pointsOf enumerates an ISL set inside the universe by evaluating, in Go,
// the constraints and div definitions of its basic sets (after
// ComputeDivs) at every point. That
// is much faster than isl_set_foreach_point; TestPoints and the "read"
// checks tie the decoding to brute force. It fails on sets that reach
// outside the universe.
func pointsOf(s *Set) (pointSet, error) {
	d, err := s.Dim(DimSet)
	if err != nil {
		return nil, err
	}
	explicit, err := s.ComputeDivs()
	if err != nil {
		return nil, err
	}
	defer explicit.Free()
	parts, err := explicit.BasicSets()
	if err != nil {
		return nil, err
	}
	defer freeAll(parts)
	out := pointSet{}
	for _, b := range parts {
		cons, err := b.Constraints()
		if err != nil {
			return nil, err
		}
		divs, err := b.Divs()
		if err != nil {
			return nil, err
		}
		universe(d, func(p point) {
			if satisfies(p, cons, divs) {
				out[p] = true
			}
		})
	}
	if len(out) == 0 {
		empty, err := s.IsEmpty()
		if err != nil || !empty {
			return nil, fmt.Errorf("%s has no points inside the universe but is not empty (%v)", s, err)
		}
		return out, nil
	}
	for i := range d {
		if err := checkInsideUniverse(s, i); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// checkInsideUniverse fails when dimension i of the non-empty set s leaves
// [-bound, bound].
func checkInsideUniverse(s *Set, i int) error {
	lo, err := s.DimMinVal(i)
	if err != nil {
		return err
	}
	defer lo.Free()
	hi, err := s.DimMaxVal(i)
	if err != nil {
		return err
	}
	defer hi.Free()
	l, errLo := lo.Int64()
	h, errHi := hi.Int64()
	if errLo != nil || errHi != nil || l < -bound || h > bound {
		return fmt.Errorf("dimension %d of %s spans [%s, %s], outside the universe", i, s, lo, hi)
	}
	return nil
}

// satisfies evaluates the constraints of a basic set at p, computing its
// divs from their definitions first.
func satisfies(p point, cons []Constraint, divs []Div) bool {
	vals := make([]int64, len(divs))
	for i, div := range divs {
		vals[i] = floorDiv(evalLinear(div.Expr, p, vals), div.Denominator)
	}
	for _, c := range cons {
		v := evalLinear(c.Expr, p, vals)
		if c.Equality && v != 0 || !c.Equality && v < 0 {
			return false
		}
	}
	return true
}

func evalLinear(l Linear, p point, divs []int64) int64 {
	v := l.Constant
	for i, c := range l.Set {
		v += c * p[i]
	}
	for i, c := range l.Div {
		v += c * divs[i]
	}
	return v
}

// islPoints enumerates an ISL set with Points (isl_set_foreach_point).
func islPoints(s *Set) (pointSet, error) {
	pts, err := s.Points(1 << 20)
	if err != nil {
		return nil, err
	}
	out := pointSet{}
	for _, c := range pts {
		var p point
		copy(p[:], c)
		out[p] = true
	}
	return out, nil
}
