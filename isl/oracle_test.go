package isl

// This file holds the brute-force oracle: small random sets and relations
// described both as ISL text and as Go predicates, enumerated point by point
// inside the universe [-bound, bound]^d.

import (
	"fmt"
	"maps"
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

// pointsRuns splits a point set of dimension d into runs: maximal boxes of
// consecutive points along the last dimension, which agree on all others.
func pointsRuns(ps pointSet, d int) (lo, hi []point) {
	pts := slices.SortedFunc(maps.Keys(ps), func(a, b point) int { return slices.Compare(a[:], b[:]) })
	for i, p := range pts {
		last := len(hi) - 1
		if i > 0 && slices.Equal(p[:d-1], hi[last][:d-1]) && p[d-1] == hi[last][d-1]+1 {
			hi[last] = p
			continue
		}
		lo, hi = append(lo, p), append(hi, p)
	}
	return lo, hi
}

// samePoints reports an error unless the bounded set s holds exactly the
// points of want: ISL counts as many points as brute force (CountVal), and
// every run of points of want, built as a box with BoxSet, is a subset of s.
// Equal counts and inclusion make the two sets equal. A set of dimension 0
// holds at most one point, so there the count alone decides.
func samePoints(s *Set, want pointSet) error {
	n, err := s.CountVal()
	if err != nil {
		return err
	}
	if n != int64(len(want)) {
		return fmt.Errorf("ISL counts %d points, brute force %d\nISL set: %s", n, len(want), s)
	}
	d, err := s.Dim(DimSet)
	if err != nil {
		return err
	}
	if d == 0 {
		return nil // { [] } or empty: the count tells them apart
	}
	lo, hi := pointsRuns(want, d)
	for i := range lo {
		box, err := s.origin.ctx.BoxSet("", lo[i][:d], hi[i][:d])
		if err != nil {
			return err
		}
		in, err := box.IsSubset(s)
		box.Free()
		if err != nil {
			return err
		}
		if !in {
			return fmt.Errorf("brute-force points %v..%v are not all in ISL set %s", lo[i][:d], hi[i][:d], s)
		}
	}
	return nil
}

// wrapText turns ISL's text of a map into the text of the set of its pairs
// [x, y], which is what isl_map_wrap would give without the nesting: the
// binding keeps no Wrap because polyvol does not use one.
func wrapText(m string) string {
	m = strings.ReplaceAll(m, "[] -> [", "[")
	m = strings.ReplaceAll(m, "] -> []", "]")
	return strings.ReplaceAll(m, "] -> [", ", ")
}

// decodeInUniverse evaluates, in Go, the constraints that Constraints reads
// from a basic set without local variables at every point of the universe.
func decodeInUniverse(cons []Constraint, d int) pointSet {
	out := pointSet{}
	universe(d, func(p point) {
		for _, c := range cons {
			v := c.Expr.Constant
			for i, a := range c.Expr.Set {
				v += a * p[i]
			}
			if c.Equality && v != 0 || !c.Equality && v < 0 {
				return
			}
		}
		out[p] = true
	})
	return out
}
