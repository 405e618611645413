package footprint

import (
	"encoding/binary"

	"github.com/polyvol/polyvol/kernel"
)

// laneAddress evaluates an instruction's byte address at a thread, with the
// coefficients of an affine address kept for speed.
type laneAddress struct {
	expr   kernel.Expr
	coef   [3]int64
	c0     int64
	affine bool
}

// newLaneAddress returns the evaluator of address e.
func newLaneAddress(e kernel.Expr) laneAddress {
	coef, c0, ok := e.Linear()
	return laneAddress{expr: e, coef: coef, c0: c0, affine: ok}
}

// at returns the address at thread p.
func (a *laneAddress) at(p kernel.Point) int64 {
	if a.affine {
		return a.c0 + a.coef[0]*p[0] + a.coef[1]*p[1] + a.coef[2]*p[2]
	}
	return a.expr.Eval(p)
}

// onBox returns the address on the box lo ≤ p ≤ hi: its affine form where
// no floor or modulo term wraps there (kernel.Expr.OnBox), which is faster
// to evaluate lane by lane, else a itself.
func (a *laneAddress) onBox(lo, hi kernel.Point) laneAddress {
	if a.affine {
		return *a
	}
	s, err := a.expr.OnBox(lo, hi)
	if err != nil {
		return *a
	}
	if b := newLaneAddress(s); b.affine {
		return b
	}
	return *a
}

// appendAffineShape appends to k the affine shape of addrs on the box
// lo..hi when no floor or modulo term wraps there, so that every address
// is affine on it (kernel.Expr.OnBox): each address's coefficients and its
// distance from the first address, evaluated at the point at. first is the
// first address there; ok is false when a term wraps.
func appendAffineShape(k []byte, addrs []laneAddress, lo, hi, at kernel.Point) (shape []byte, first int64, ok bool) {
	for j, a := range addrs {
		on, err := a.expr.OnBox(lo, hi)
		if err != nil {
			return k, 0, false
		}
		coef, c0, affine := on.Linear()
		if !affine {
			return k, 0, false
		}
		v := c0 + coef[0]*at[0] + coef[1]*at[1] + coef[2]*at[2]
		if j == 0 {
			first = v
		}
		for i := range 3 {
			k = binary.AppendVarint(k, coef[i])
		}
		k = binary.AppendVarint(k, v-first)
	}
	return k, first, true
}
