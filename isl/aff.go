package isl

/*
#include <stdlib.h>
#include <isl/set.h>
#include <isl/map.h>
#include <isl/aff.h>
#include <isl/constraint.h>

// polyvol_pieces collects the pieces of a pw_multi_aff: each cell into
// cells, and its value, as a function on the universe, into values.
struct polyvol_pieces {
	isl_set_list *cells;
	isl_pw_multi_aff_list *values;
};

static isl_stat polyvol_add_piece(isl_set *cell, isl_multi_aff *value, void *user)
{
	struct polyvol_pieces *p = user;
	isl_set *all = isl_set_universe(isl_set_get_space(cell));
	p->cells = isl_set_list_add(p->cells, cell);
	p->values = isl_pw_multi_aff_list_add(p->values, isl_pw_multi_aff_alloc(all, value));
	return p->cells && p->values ? isl_stat_ok : isl_stat_error;
}

static isl_stat polyvol_pieces(isl_pw_multi_aff *pma, isl_set_list **cells, isl_pw_multi_aff_list **values)
{
	isl_ctx *ctx = isl_pw_multi_aff_get_ctx(pma);
	isl_size n = isl_pw_multi_aff_n_piece(pma);
	struct polyvol_pieces p = {NULL, NULL};
	if (n >= 0) {
		p.cells = isl_set_list_alloc(ctx, n);
		p.values = isl_pw_multi_aff_list_alloc(ctx, n);
	}
	isl_stat st = p.cells && p.values ? isl_pw_multi_aff_foreach_piece(pma, &polyvol_add_piece, &p) : isl_stat_error;
	*cells = p.cells;
	*values = p.values;
	return st;
}
*/
import "C"

import (
	"errors"
	"fmt"
)

// QuasiAffine is an integer-valued quasi-affine expression over the input
// (or set) dimensions of a map (or set) without parameters:
//
//	(Constant + Σ Var[i]·v_i + Σ Div[k]·⌊Divs[k]⌋) / Denominator
//
// where each Divs[k] is again a quasi-affine expression over the same
// dimensions and the divisions before k, whose value may be rational. The
// division by Denominator is exact where the expression applies.
type QuasiAffine struct {
	Denominator int64
	Constant    int64
	Var         []int64
	Div         []int64
	Divs        []QuasiAffine
}

// QuasiConstraint is a constraint Expr = 0 (Equality) or Expr ≥ 0 of a basic
// set, with the definitions of the divisions it involves.
type QuasiConstraint struct {
	Equality bool
	Expr     QuasiAffine
}

// Piece is one piece of a piecewise quasi-affine function: on the points
// of Cell, output j is Outputs[j].
type Piece struct {
	Cell    *Set
	Outputs []QuasiAffine
}

// maxDivDepth bounds the nesting of divisions readAff follows.
const maxDivDepth = 16

// readAff reads the quasi-affine expression aff (kept by the caller) over
// n input dimensions.
func readAff(c *Ctx, aff *C.isl_aff, n, depth int) (QuasiAffine, error) {
	if depth > maxDivDepth {
		return QuasiAffine{}, fmt.Errorf("isl_aff_get_div: divisions nested more than %d deep", maxDivDepth)
	}
	den, err := takeInt64(c, C.isl_aff_get_denominator_val(aff), "isl_aff_get_denominator_val")
	if err != nil {
		return QuasiAffine{}, err
	}
	// The coefficients are rationals over den: read den times each.
	scaled := func(p *C.isl_val, op string) (int64, error) {
		return takeInt64(c, C.isl_val_mul_ui(p, C.ulong(den)), op)
	}
	q := QuasiAffine{Denominator: den, Var: make([]int64, n)}
	if q.Constant, err = scaled(C.isl_aff_get_constant_val(aff), "isl_aff_get_constant_val"); err != nil {
		return QuasiAffine{}, err
	}
	for i := range n {
		if q.Var[i], err = scaled(C.isl_aff_get_coefficient_val(aff, C.isl_dim_in, C.int(i)), "isl_aff_get_coefficient_val"); err != nil {
			return QuasiAffine{}, err
		}
	}
	ndiv, err := c.sizeResult(C.isl_aff_dim(aff, C.isl_dim_div), "isl_aff_dim")
	if err != nil {
		return QuasiAffine{}, err
	}
	q.Div = make([]int64, ndiv)
	q.Divs = make([]QuasiAffine, ndiv)
	for k := range ndiv {
		if q.Div[k], err = scaled(C.isl_aff_get_coefficient_val(aff, C.isl_dim_div, C.int(k)), "isl_aff_get_coefficient_val"); err != nil {
			return QuasiAffine{}, err
		}
		if q.Div[k] == 0 {
			continue
		}
		div := C.isl_aff_get_div(aff, C.int(k))
		if div == nil || c.failed() {
			C.isl_aff_free(div)
			return QuasiAffine{}, c.lastError("isl_aff_get_div")
		}
		nan, err := c.boolResult(C.isl_aff_is_nan(div), "isl_aff_is_nan")
		if err == nil && nan {
			err = errors.New("isl_aff_get_div: a division has no known expression")
		}
		if err == nil {
			q.Divs[k], err = readAff(c, div, n, depth+1)
		}
		C.isl_aff_free(div)
		if err != nil {
			return QuasiAffine{}, err
		}
	}
	return q, nil
}

// Lexmin returns the lexicographic minimum of the image of every domain
// point of m. It wraps isl_map_lexmin.
func (m *Map) Lexmin() (*Map, error) {
	return m.mapUnary("isl_map_lexmin", func(p *C.isl_map) *C.isl_map { return C.isl_map_lexmin(p) })
}

// Sum returns { x -> a + b : (x, a) in m, (x, b) in n }. It wraps
// isl_map_sum.
func (m *Map) Sum(n *Map) (*Map, error) {
	return m.mapBinary(n, "isl_map_sum", func(a, b *C.isl_map) *C.isl_map { return C.isl_map_sum(a, b) })
}

// Neg returns { x -> -y : (x, y) in m }. It wraps isl_map_neg.
func (m *Map) Neg() (*Map, error) {
	return m.mapUnary("isl_map_neg", func(p *C.isl_map) *C.isl_map { return C.isl_map_neg(p) })
}

// FixSi fixes dimension pos of the given type to v. It wraps
// isl_map_fix_si.
func (m *Map) FixSi(typ DimType, pos int, v int64) (*Map, error) {
	cp, err := cPos("isl_map_fix_si", pos)
	if err != nil {
		return nil, err
	}
	if v != int64(C.int(v)) {
		return nil, fmt.Errorf("isl_map_fix_si: value %d does not fit in a C int", v)
	}
	return m.mapUnary("isl_map_fix_si", func(p *C.isl_map) *C.isl_map { return C.isl_map_fix_si(p, typ.c(), cp, C.int(v)) })
}

// DimName returns the name of dimension pos of the given type, "" when it
// has none. It wraps isl_map_get_dim_name.
func (m *Map) DimName(typ DimType, pos int) (string, error) {
	if _, err := usable(m); err != nil {
		return "", err
	}
	cp, err := cPos("isl_map_get_dim_name", pos)
	if err != nil {
		return "", err
	}
	p := C.isl_map_get_dim_name(m.p, typ.c(), cp)
	if p == nil {
		return "", nil
	}
	return C.GoString(p), nil
}

// BasicMaps returns the basic maps whose union is m, each as a map owned by
// the caller (or m's scope). It wraps isl_map_get_basic_map_list.
func (m *Map) BasicMaps() ([]*Map, error) {
	c, err := usable(m)
	if err != nil {
		return nil, err
	}
	list := C.isl_map_get_basic_map_list(m.p)
	if list != nil {
		defer C.isl_basic_map_list_free(list)
	}
	if list == nil || c.failed() {
		return nil, c.lastError("isl_map_get_basic_map_list")
	}
	n, err := c.sizeResult(C.isl_basic_map_list_size(list), "isl_basic_map_list_size")
	if err != nil {
		return nil, err
	}
	out := make([]*Map, 0, n)
	for i := range n {
		b, err := m.origin.newMap(C.isl_map_from_basic_map(C.isl_basic_map_list_get_at(list, C.int(i))), "isl_basic_map_list_get_at")
		if err != nil {
			for _, b := range out {
				b.Free()
			}
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

// LexminPieces returns the lexicographic minimum of the image of every
// domain point of m as a piecewise quasi-affine function of the input
// dimensions. m must have no parameters. It wraps
// isl_map_lexmin_pw_multi_aff, isl_pw_multi_aff_foreach_piece and
// isl_aff_get_div; the cells are owned by the caller (or m's scope).
func (m *Map) LexminPieces() ([]Piece, error) {
	c, err := usable(m)
	if err != nil {
		return nil, err
	}
	if n, err := m.Dim(DimParam); err != nil || n != 0 {
		return nil, errors.Join(err, errors.New("isl_map_lexmin_pw_multi_aff: the map has parameters"))
	}
	nin, err := m.Dim(DimIn)
	if err != nil {
		return nil, err
	}
	pma := C.isl_map_lexmin_pw_multi_aff(C.isl_map_copy(m.p))
	if pma != nil {
		defer C.isl_pw_multi_aff_free(pma)
	}
	if pma == nil || c.failed() {
		return nil, c.lastError("isl_map_lexmin_pw_multi_aff")
	}
	var cells *C.isl_set_list
	var values *C.isl_pw_multi_aff_list
	st := C.polyvol_pieces(pma, &cells, &values)
	defer C.isl_set_list_free(cells)
	defer C.isl_pw_multi_aff_list_free(values)
	if st < 0 || c.failed() {
		return nil, c.lastError("isl_pw_multi_aff_foreach_piece")
	}
	n, err := c.sizeResult(C.isl_set_list_size(cells), "isl_set_list_size")
	if err != nil {
		return nil, err
	}
	var out []Piece
	fail := func(err error) ([]Piece, error) {
		for _, p := range out {
			p.Cell.Free()
		}
		return nil, err
	}
	for i := range n {
		cell, err := m.origin.newSet(C.isl_set_list_get_at(cells, C.int(i)), "isl_set_list_get_at")
		if err != nil {
			return fail(err)
		}
		out = append(out, Piece{Cell: cell})
		ma := C.isl_pw_multi_aff_as_multi_aff(C.isl_pw_multi_aff_list_get_at(values, C.int(i)))
		if ma == nil || c.failed() {
			C.isl_multi_aff_free(ma)
			return fail(c.lastError("isl_pw_multi_aff_as_multi_aff"))
		}
		nout, err := c.sizeResult(C.isl_multi_aff_size(ma), "isl_multi_aff_size")
		for j := 0; err == nil && j < nout; j++ {
			aff := C.isl_multi_aff_get_at(ma, C.int(j))
			if aff == nil || c.failed() {
				err = c.lastError("isl_multi_aff_get_at")
			} else {
				var q QuasiAffine
				q, err = readAff(c, aff, nin, 0)
				out[len(out)-1].Outputs = append(out[len(out)-1].Outputs, q)
			}
			C.isl_aff_free(aff)
		}
		C.isl_multi_aff_free(ma)
		if err != nil {
			return fail(err)
		}
	}
	return out, nil
}

// QuasiConstraints returns the constraints of the basic set with the
// definitions of their divisions; it fails when ISL knows no expression for
// a division. It wraps isl_basic_set_get_constraint_list and
// isl_constraint_get_aff.
func (b *BasicSet) QuasiConstraints() ([]QuasiConstraint, error) {
	c, err := usable(b)
	if err != nil {
		return nil, err
	}
	d, err := b.dims()
	if err != nil {
		return nil, err
	}
	if d.param != 0 {
		return nil, errors.New("isl_constraint_get_aff: the set has parameters")
	}
	list := C.isl_basic_set_get_constraint_list(b.p)
	if list != nil {
		defer C.isl_constraint_list_free(list)
	}
	if list == nil || c.failed() {
		return nil, c.lastError("isl_basic_set_get_constraint_list")
	}
	n, err := c.sizeResult(C.isl_constraint_list_size(list), "isl_constraint_list_size")
	if err != nil {
		return nil, err
	}
	out := make([]QuasiConstraint, n)
	for i := range out {
		con := C.isl_constraint_list_get_at(list, C.int(i))
		if con == nil || c.failed() {
			C.isl_constraint_free(con)
			return nil, c.lastError("isl_constraint_list_get_at")
		}
		eq, err := c.boolResult(C.isl_constraint_is_equality(con), "isl_constraint_is_equality")
		if err == nil {
			out[i].Equality = eq
			aff := C.isl_constraint_get_aff(con)
			if aff == nil || c.failed() {
				err = c.lastError("isl_constraint_get_aff")
			} else {
				out[i].Expr, err = readAff(c, aff, d.set, 0)
			}
			C.isl_aff_free(aff)
		}
		C.isl_constraint_free(con)
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Gist returns a set equal to s on the points of context, with the
// constraints that context implies left out. It wraps isl_set_gist.
func (s *Set) Gist(context *Set) (*Set, error) {
	return s.setBinary(context, "isl_set_gist", func(a, b *C.isl_set) *C.isl_set { return C.isl_set_gist(a, b) })
}

// Lexmin returns the lexicographically smallest point of s as a set. It
// wraps isl_set_lexmin.
func (s *Set) Lexmin() (*Set, error) {
	return s.setUnary("isl_set_lexmin", func(p *C.isl_set) *C.isl_set { return C.isl_set_lexmin(p) })
}

// IsBounded reports whether s is bounded. It wraps isl_set_is_bounded.
func (s *Set) IsBounded() (bool, error) {
	c, err := usable(s)
	if err != nil {
		return false, err
	}
	return c.boolResult(C.isl_set_is_bounded(s.p), "isl_set_is_bounded")
}

// MapFromDomainAndRange returns the product { x -> y : x in dom, y in ran }.
// It wraps isl_map_from_domain_and_range.
func MapFromDomainAndRange(dom, ran *Set) (*Map, error) {
	if _, err := usable(dom, ran); err != nil {
		return nil, err
	}
	return dom.origin.newMap(C.isl_map_from_domain_and_range(C.isl_set_copy(dom.p), C.isl_set_copy(ran.p)), "isl_map_from_domain_and_range")
}

// ResetTupleIds returns m with the names of its input and output tuples
// removed, so that it relates anonymous spaces. It wraps
// isl_map_reset_tuple_id.
func (m *Map) ResetTupleIds() (*Map, error) {
	return m.mapUnary("isl_map_reset_tuple_id", func(p *C.isl_map) *C.isl_map {
		return C.isl_map_reset_tuple_id(C.isl_map_reset_tuple_id(p, C.isl_dim_in), C.isl_dim_out)
	})
}
