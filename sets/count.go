package sets

import (
	"errors"
	"fmt"
	"math/bits"

	"github.com/polyvol/polyvol/intmath"
	"github.com/polyvol/polyvol/isl"
)

// CountPoints returns the number of points of s. It splits s into disjoint basic
// sets and counts each box-shaped piece (every constraint bounds a single
// dimension, with any coefficient, and no local variable appears) as the
// product of its interval lengths, so its cost does not grow with the extent
// of the set. Pieces of any other shape are counted with isl_set_count_val.
// The result is always exact: CountVal on s gives the same number.
func CountPoints(s *isl.Set) (int64, error) {
	disjoint, err := s.MakeDisjoint()
	if err != nil {
		return 0, err
	}
	defer disjoint.Free()
	pieces, err := disjoint.BasicSets()
	if err != nil {
		return 0, err
	}
	defer func() {
		for _, p := range pieces {
			p.Free()
		}
	}()
	var total int64
	for _, p := range pieces {
		n, ok, err := boxCount(p)
		if err != nil {
			return 0, err
		}
		if !ok {
			if n, err = countPiece(p); err != nil {
				return 0, err
			}
		}
		sum, carry := bits.Add64(uint64(total), uint64(n), 0)
		if carry != 0 || sum > 1<<63-1 {
			return 0, fmt.Errorf("sets: count overflows int64: %w", isl.ErrOverflow)
		}
		total = int64(sum)
	}
	return total, nil
}

// countPiece counts a basic set with isl_set_count_val.
func countPiece(p *isl.BasicSet) (int64, error) {
	s, err := p.ToSet()
	if err != nil {
		return 0, err
	}
	defer s.Free()
	return s.CountVal()
}

// boxCount counts a basic set whose constraints each involve one set
// dimension; ok is false for any other shape (parameters, local variables
// that appear in a constraint, constraints coupling dimensions, or an
// unbounded dimension).
func boxCount(p *isl.BasicSet) (n int64, ok bool, err error) {
	cons, err := p.Constraints()
	if err != nil {
		if errors.Is(err, isl.ErrQuota) {
			return 0, false, err
		}
		// ISL lists no constraints of a basic set with unknown divs; such
		// a piece is not a box, so isl_set_count_val counts it.
		return 0, false, nil
	}
	nset, err := p.Dim(isl.DimSet)
	if err != nil {
		return 0, false, err
	}
	const unbounded = 1<<63 - 1
	lo := make([]int64, nset)
	hi := make([]int64, nset)
	for i := range lo {
		lo[i], hi[i] = -unbounded, unbounded
	}
	for _, c := range cons {
		if !zero(c.Expr.Param) || !zero(c.Expr.Div) {
			return 0, false, nil
		}
		dim, coef := -1, int64(0)
		for i, v := range c.Expr.Set {
			if v == 0 {
				continue
			}
			if dim >= 0 {
				return 0, false, nil
			}
			dim, coef = i, v
		}
		k := c.Expr.Constant
		if dim < 0 { // a constant constraint: k = 0 or k ≥ 0
			if (c.Equality && k != 0) || (!c.Equality && k < 0) {
				return 0, true, nil
			}
			continue
		}
		// coef·x + k = 0, or coef·x + k ≥ 0.
		switch {
		case c.Equality:
			if k%coef != 0 {
				return 0, true, nil
			}
			v := -k / coef
			lo[dim], hi[dim] = max(lo[dim], v), min(hi[dim], v)
		case coef > 0: // x ≥ ⌈−k/coef⌉
			lo[dim] = max(lo[dim], intmath.CeilDiv(-k, coef))
		default: // x ≤ ⌊k/−coef⌋
			hi[dim] = min(hi[dim], intmath.FloorDiv(k, -coef))
		}
	}
	n = 1
	for i := range lo {
		if lo[i] == -unbounded || hi[i] == unbounded {
			return 0, false, nil // unbounded: let ISL report it
		}
		if hi[i] < lo[i] {
			return 0, true, nil
		}
		hiProd, prod := bits.Mul64(uint64(n), uint64(hi[i]-lo[i]+1))
		if hiProd != 0 || prod > 1<<63-1 {
			return 0, false, fmt.Errorf("sets: count overflows int64: %w", isl.ErrOverflow)
		}
		n = int64(prod)
	}
	return n, true, nil
}

// zero reports whether every coefficient is 0.
func zero(coefs []int64) bool {
	for _, v := range coefs {
		if v != 0 {
			return false
		}
	}
	return true
}
