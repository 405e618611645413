package layercond

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/polyvol/polyvol/kernel"
)

// DefaultCacheFraction is the share of the L2 the sequential layer condition
// may use: half, the other half being left to the destination grid, as the
// paper states it ("three layers … into the cache capacity, half of which is
// available for the source grid").
const DefaultCacheFraction = 0.5

// Condition is one sequential layer condition: the cache a sequential sweep
// over the lattice (x fastest, then y, then z) needs so that every reuse
// between accesses at most one row (y layer, the row condition of a 2-D
// kernel) or one layer (z layer) apart hits. The need is Bytes(X, Y) = XY·X·Y + PerX·X + Const bytes for an
// X×Y×Z domain, and the condition is Bytes(X, Y) ≤ CacheBytes.
type Condition struct {
	Layer      string `json:"layer"` // "y" or "z"
	XY         int64  `json:"XY"`    // bytes per point of an XY plane
	PerX       int64  `json:"X"`     // bytes per point of a row
	Const      int64  `json:"const"` // bytes independent of the domain
	CacheBytes int64  `json:"cacheBytes"`
	// MaxSquare is the largest s for which the condition holds with X = Y = s
	// (0 when it holds for none).
	MaxSquare int64 `json:"maxSquare"`
	// Text is the condition as Kerncraft states it, e.g. "X*Y <= 145635".
	Text string `json:"text"`
}

// SequentialLC is the classic layer condition of a kernel for a cache of
// CacheBytes bytes.
type SequentialLC struct {
	CacheBytes int64 `json:"cacheBytes"`
	// Conditions are the y and z layer conditions, in that order; a 2-D
	// kernel (or a 1-D one), which has no layers, has the y one only: its
	// row condition.
	Conditions []Condition `json:"conditions"`
	// Skipped names the loaded fields left out because an access is not a
	// constant offset from the lattice point (x+a, y+b, z+c).
	Skipped []string `json:"skipped,omitempty"`
}

// poly is c2·X·Y + c1·X + c0, a linear element offset (or distance) in an
// X×Y×Z array. Comparisons assume large X and Y: c2 outranks c1 outranks c0.
type poly [3]int64 // {c0, c1, c2}

func (p poly) sub(q poly) poly { return poly{p[0] - q[0], p[1] - q[1], p[2] - q[2]} }
func (p poly) add(q poly) poly { return poly{p[0] + q[0], p[1] + q[1], p[2] + q[2]} }
func (p poly) scale(c int64) poly {
	return poly{c * p[0], c * p[1], c * p[2]}
}
func comparePoly(p, q poly) int {
	return cmp.Or(cmp.Compare(p[2], q[2]), cmp.Compare(p[1], q[1]), cmp.Compare(p[0], q[0]))
}

// Sequential returns the classic layer conditions of k's loaded fields for
// a cache of cacheBytes bytes, in Kerncraft's form: for each field, sort its
// distinct linear offsets o = c + b·X + a·X·Y and take the distances δ between
// neighbours; reuse at distances up to t (one row, t = X, or one layer,
// t = X·Y) hits when the cache holds
//
//	Σ_fields element·multiplicity·( Σ_{δ ≤ t} δ + t·(#{δ > t} + 1) )
//
// bytes. For a star stencil of range r this is 2r+1 layers per field for the
// z layer; star3d-r4 with 8-byte elements needs 72·X·Y bytes. Stores are
// not counted: the cache fraction leaves room for the destination grid.
func Sequential(k *kernel.Kernel, cacheBytes int64) (*SequentialLC, error) {
	if cacheBytes < 1 {
		return nil, fmt.Errorf("layercond: cache of %d bytes: expected at least 1", cacheBytes)
	}
	out := &SequentialLC{CacheBytes: cacheBytes}
	thresholds := []poly{{0, 1, 0}, {0, 0, 1}}[:max(1, k.Dims-1)] // one row, one layer
	need := make([]poly, len(thresholds))
	for _, f := range k.Fields {
		if len(f.Loads) == 0 {
			continue
		}
		offs, ok := offsets(f, k.Dims)
		if !ok {
			out.Skipped = append(out.Skipped, f.Name)
			continue
		}
		for i, t := range thresholds {
			need[i] = need[i].add(requirement(offs, t).scale(f.Element * f.Multiplicity))
		}
	}
	if need[0] == (poly{}) {
		return nil, fmt.Errorf("layercond: kernel %s has no loaded field with offset accesses (x+a, y+b, z+c) for a sequential layer condition", k.Name)
	}
	for i := range need {
		out.Conditions = append(out.Conditions, condition(Layers[i], need[i], cacheBytes))
	}
	return out, nil
}

// offsets returns the sorted distinct linear offsets of f's loads relative
// to the lattice point, or false when an access is not of the form
// (x+a, y+b, z+c). In the dimensions a kernel of
// fewer than three dimensions lacks, the index must be a constant.
func offsets(f *kernel.Field, dims int) ([]poly, bool) {
	var out []poly
	for _, a := range f.Loads {
		var o [3]int64
		for d, e := range a.Index {
			coef, c, ok := e.Linear()
			want := [3]int64{}
			if d < dims {
				want[d] = 1
			}
			if !ok || coef != want {
				return nil, false
			}
			o[d] = c
		}
		out = append(out, poly{o[0], o[1], o[2]})
	}
	slices.SortFunc(out, comparePoly)
	return slices.CompactFunc(out, func(p, q poly) bool { return p == q }), true
}

// requirement is Kerncraft's cache need, in elements, for reuse at distances
// up to t among the sorted offsets.
func requirement(offs []poly, t poly) poly {
	var need poly
	far := int64(1) // the leading access streams t elements ahead
	for i := 1; i < len(offs); i++ {
		if d := offs[i].sub(offs[i-1]); comparePoly(d, t) <= 0 {
			need = need.add(d)
		} else {
			far++
		}
	}
	return need.add(t.scale(far))
}

// condition states need ≤ cache as a Condition.
func condition(layer string, need poly, cache int64) Condition {
	c := Condition{Layer: layer, XY: need[2], PerX: need[1], Const: need[0], CacheBytes: cache}
	// The largest s with XY·s² + PerX·s + Const ≤ cache: the root of the
	// quadratic (or line), then corrected by single steps against rounding.
	// Sequential always gives XY > 0 (z) or PerX > 0 (y), so s is bounded.
	holds := func(s int64) bool {
		return float64(c.XY)*float64(s)*float64(s)+float64(c.PerX)*float64(s)+float64(c.Const) <= float64(cache)
	}
	var s int64
	if c.XY > 0 {
		a, b, r := float64(c.XY), float64(c.PerX), float64(c.Const-cache)
		if disc := b*b - 4*a*r; disc >= 0 {
			s = int64(max(0, (-b+math.Sqrt(disc))/(2*a)))
		}
	} else {
		s = max(0, (cache-c.Const)/c.PerX)
	}
	for s > 0 && !holds(s) {
		s--
	}
	for holds(s + 1) {
		s++
	}
	c.MaxSquare = s
	switch {
	case c.XY > 0 && c.PerX == 0:
		c.Text = fmt.Sprintf("X*Y <= %d", (cache-c.Const)/c.XY)
	case c.XY == 0 && c.PerX > 0:
		c.Text = fmt.Sprintf("X <= %d", (cache-c.Const)/c.PerX)
	default:
		c.Text = fmt.Sprintf("%d*X*Y + %d*X + %d <= %d", c.XY, c.PerX, c.Const, cache)
	}
	return c
}

// EverySize is what Condition.MaxSwept returns for a condition that holds
// at every swept extent.
const EverySize = -1

// MaxSwept returns the largest extent s of the series se at which the
// condition holds, 0 when it holds at none: MaxSquare for square planes
// and for rows (a 2-D kernel's row condition, X ≤ MaxSquare); for planes
// of a fixed row length X = se.Inner the largest Y = s with
// XY·X·s + PerX·X + Const ≤ CacheBytes, or EverySize when the condition
// does not depend on s (a y layer's) and holds.
func (c Condition) MaxSwept(se Series) int64 {
	if se.Inner == 0 {
		return c.MaxSquare
	}
	rest := c.CacheBytes - c.PerX*se.Inner - c.Const
	switch {
	case rest < 0:
		return 0
	case c.XY == 0:
		return EverySize
	}
	return rest / (c.XY * se.Inner)
}
