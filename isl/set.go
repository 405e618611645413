package isl

/*
#include <stdlib.h>
#include <isl/set.h>
#include <isl/map.h>
#include <isl/ilp.h>
#include <isl/val.h>
*/
import "C"

import (
	"fmt"
	"math"
)

// Set is an ISL set: a finite union of integer polyhedra, possibly with
// existentially quantified variables and parameters.
type Set struct {
	resource
	p *C.isl_set
}

func (m maker) newSet(p *C.isl_set, op string) (*Set, error) {
	return newObject(m, p, op, func(p *C.isl_set) { C.isl_set_free(p) }, func(p *C.isl_set) *Set { return &Set{p: p} })
}

func (s *Set) res() *resource {
	if s == nil {
		return nil
	}
	return &s.resource
}

// Free frees the set; it is idempotent and safe on nil.
func (s *Set) Free() {
	if s != nil {
		s.free()
	}
}

// ReadSet parses a set such as "[n] -> { [i, j] : 0 <= i, j < n }". It
// wraps isl_set_read_from_str.
func (m maker) ReadSet(str string) (*Set, error) {
	if err := m.ready(); err != nil {
		return nil, err
	}
	if err := checkInput(str, "isl_set_read_from_str"); err != nil {
		return nil, err
	}
	p := withCString(str, func(cs *C.char) *C.isl_set { return C.isl_set_read_from_str(m.ctx.p, cs) })
	return m.newSet(p, "isl_set_read_from_str")
}

// String returns ISL's text form of the set, or "<freed>". It wraps
// isl_set_to_str.
func (s *Set) String() string {
	if _, err := usable(s); err != nil {
		return "<freed>"
	}
	return goString(C.isl_set_to_str(s.p))
}

// setUnary applies an ISL function that takes one set and gives a set.
func (s *Set) setUnary(op string, f func(*C.isl_set) *C.isl_set) (*Set, error) {
	if _, err := usable(s); err != nil {
		return nil, err
	}
	return s.origin.newSet(f(C.isl_set_copy(s.p)), op)
}

// setBinary applies an ISL function that takes two sets and gives a set.
func (s *Set) setBinary(t *Set, op string, f func(a, b *C.isl_set) *C.isl_set) (*Set, error) {
	if _, err := usable(s, t); err != nil {
		return nil, err
	}
	return s.origin.newSet(f(C.isl_set_copy(s.p), C.isl_set_copy(t.p)), op)
}

// setPredicate evaluates an ISL predicate on two sets.
func (s *Set) setPredicate(t *Set, op string, f func(a, b *C.isl_set) C.isl_bool) (bool, error) {
	c, err := usable(s, t)
	if err != nil {
		return false, err
	}
	return c.boolResult(f(s.p, t.p), op)
}

// Intersect returns the intersection of s and t. It wraps isl_set_intersect.
func (s *Set) Intersect(t *Set) (*Set, error) {
	return s.setBinary(t, "isl_set_intersect", func(a, b *C.isl_set) *C.isl_set { return C.isl_set_intersect(a, b) })
}

// Subtract returns the points of s that are not in t. It wraps
// isl_set_subtract.
func (s *Set) Subtract(t *Set) (*Set, error) {
	return s.setBinary(t, "isl_set_subtract", func(a, b *C.isl_set) *C.isl_set { return C.isl_set_subtract(a, b) })
}

// MakeDisjoint returns the set as a union of pairwise disjoint basic sets.
// It wraps isl_set_make_disjoint.
func (s *Set) MakeDisjoint() (*Set, error) {
	return s.setUnary("isl_set_make_disjoint", func(p *C.isl_set) *C.isl_set { return C.isl_set_make_disjoint(p) })
}

// ProjectOut removes n dimensions of the given type starting at first,
// keeping their existential shadow. It wraps isl_set_project_out.
func (s *Set) ProjectOut(typ DimType, first, n int) (*Set, error) {
	if first < 0 || n < 0 {
		return nil, fmt.Errorf("isl_set_project_out: negative position %d or count %d", first, n)
	}
	return s.setUnary("isl_set_project_out", func(p *C.isl_set) *C.isl_set {
		return C.isl_set_project_out(p, typ.c(), C.uint(first), C.uint(n))
	})
}

// cInt checks that v fits in a C int, as ISL's _si functions require.
func cInt(op string, v int) (C.int, error) {
	if v < math.MinInt32 || v > math.MaxInt32 {
		return 0, fmt.Errorf("%s: %d does not fit in a C int; use the _val variant", op, v)
	}
	return C.int(v), nil
}

// cPos checks that a dimension position is non-negative.
func cPos(op string, pos int) (C.uint, error) {
	if pos < 0 || pos > math.MaxInt32 {
		return 0, fmt.Errorf("%s: invalid position %d", op, pos)
	}
	return C.uint(pos), nil
}

// setBoundVal applies one of the isl_set_{fix,lower_bound,upper_bound}_val
// functions.
func (s *Set) setBoundVal(op string, typ DimType, pos int, v *Val,
	f func(*C.isl_set, C.enum_isl_dim_type, C.uint, *C.isl_val) *C.isl_set) (*Set, error) {
	cp, err := cPos(op, pos)
	if err != nil {
		return nil, err
	}
	if _, err := usable(s, v); err != nil {
		return nil, err
	}
	return s.origin.newSet(f(C.isl_set_copy(s.p), typ.c(), cp, C.isl_val_copy(v.p)), op)
}

// FixVal returns the subset of s where dimension pos of the given type
// equals v. It wraps isl_set_fix_val.
func (s *Set) FixVal(typ DimType, pos int, v *Val) (*Set, error) {
	return s.setBoundVal("isl_set_fix_val", typ, pos, v,
		func(p *C.isl_set, t C.enum_isl_dim_type, q C.uint, v *C.isl_val) *C.isl_set {
			return C.isl_set_fix_val(p, t, q, v)
		})
}

// lowerBoundVal returns the subset of s where dimension pos of the given
// type is at least v. It wraps isl_set_lower_bound_val.
func (s *Set) lowerBoundVal(typ DimType, pos int, v *Val) (*Set, error) {
	return s.setBoundVal("isl_set_lower_bound_val", typ, pos, v,
		func(p *C.isl_set, t C.enum_isl_dim_type, q C.uint, v *C.isl_val) *C.isl_set {
			return C.isl_set_lower_bound_val(p, t, q, v)
		})
}

// upperBoundVal returns the subset of s where dimension pos of the given
// type is at most v. It wraps isl_set_upper_bound_val.
func (s *Set) upperBoundVal(typ DimType, pos int, v *Val) (*Set, error) {
	return s.setBoundVal("isl_set_upper_bound_val", typ, pos, v,
		func(p *C.isl_set, t C.enum_isl_dim_type, q C.uint, v *C.isl_val) *C.isl_set {
			return C.isl_set_upper_bound_val(p, t, q, v)
		})
}

// IsEmpty reports whether s has no points. It wraps isl_set_is_empty.
func (s *Set) IsEmpty() (bool, error) {
	c, err := usable(s)
	if err != nil {
		return false, err
	}
	return c.boolResult(C.isl_set_is_empty(s.p), "isl_set_is_empty")
}

// IsEqual reports whether s and t have the same points. It wraps
// isl_set_is_equal.
func (s *Set) IsEqual(t *Set) (bool, error) {
	return s.setPredicate(t, "isl_set_is_equal", func(a, b *C.isl_set) C.isl_bool { return C.isl_set_is_equal(a, b) })
}

// IsSubset reports whether every point of s is in t. It wraps
// isl_set_is_subset.
func (s *Set) IsSubset(t *Set) (bool, error) {
	return s.setPredicate(t, "isl_set_is_subset", func(a, b *C.isl_set) C.isl_bool { return C.isl_set_is_subset(a, b) })
}

// Dim returns the number of dimensions of the given type. It wraps
// isl_set_dim.
func (s *Set) Dim(typ DimType) (int, error) {
	c, err := usable(s)
	if err != nil {
		return 0, err
	}
	return c.sizeResult(C.isl_set_dim(s.p, typ.c()), "isl_set_dim")
}

// Space returns the space of s. It wraps isl_set_get_space.
func (s *Set) Space() (*Space, error) {
	if _, err := usable(s); err != nil {
		return nil, err
	}
	return s.origin.newSpace(C.isl_set_get_space(s.p), "isl_set_get_space")
}

// BasicSets returns the basic sets whose union is s, each owned by the
// caller (or s's scope). It wraps isl_set_get_basic_set_list.
func (s *Set) BasicSets() ([]*BasicSet, error) {
	c, err := usable(s)
	if err != nil {
		return nil, err
	}
	list := C.isl_set_get_basic_set_list(s.p)
	if list != nil {
		defer C.isl_basic_set_list_free(list)
	}
	if list == nil || c.failed() {
		return nil, c.lastError("isl_set_get_basic_set_list")
	}
	n, err := c.sizeResult(C.isl_basic_set_list_size(list), "isl_basic_set_list_size")
	if err != nil {
		return nil, err
	}
	out := make([]*BasicSet, 0, n)
	for i := range n {
		b, err := s.origin.newBasicSet(C.isl_basic_set_list_get_at(list, C.int(i)), "isl_basic_set_list_get_at")
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

// DimMinVal returns the minimum of set dimension pos over s (-infty when
// unbounded, NaN when s is empty). It wraps isl_set_dim_min_val.
func (s *Set) DimMinVal(pos int) (*Val, error) {
	if _, err := usable(s); err != nil {
		return nil, err
	}
	if _, err := cInt("isl_set_dim_min_val", pos); err != nil || pos < 0 {
		return nil, fmt.Errorf("isl_set_dim_min_val: invalid position %d", pos)
	}
	return s.origin.newVal(C.isl_set_dim_min_val(C.isl_set_copy(s.p), C.int(pos)), "isl_set_dim_min_val")
}

// DimMaxVal returns the maximum of set dimension pos over s (infty when
// unbounded, NaN when s is empty). It wraps isl_set_dim_max_val.
func (s *Set) DimMaxVal(pos int) (*Val, error) {
	if _, err := usable(s); err != nil {
		return nil, err
	}
	if _, err := cInt("isl_set_dim_max_val", pos); err != nil || pos < 0 {
		return nil, fmt.Errorf("isl_set_dim_max_val: invalid position %d", pos)
	}
	return s.origin.newVal(C.isl_set_dim_max_val(C.isl_set_copy(s.p), C.int(pos)), "isl_set_dim_max_val")
}

// BoundingBox returns the smallest rectangular box, [min, max] in every set
// dimension, that contains the non-empty, bounded, parameter-free set s. It
// is no single ISL function (ISL's own box hulls, such as
// isl_set_get_simple_fixed_box_hull, answer a different question): it
// combines isl_set_dim_min_val and isl_set_dim_max_val with
// isl_set_lower_bound_val and isl_set_upper_bound_val on the universe of s's
// space.
func (s *Set) BoundingBox() (*Set, error) {
	if _, err := usable(s); err != nil {
		return nil, err
	}
	n, err := s.Dim(DimSet)
	if err != nil {
		return nil, err
	}
	box, err := s.origin.newSet(C.isl_set_universe(C.isl_set_get_space(s.p)), "isl_set_universe")
	if err != nil {
		return nil, err
	}
	for pos := range n {
		next, err := box.boundByExtremes(s, pos)
		box.Free()
		if err != nil {
			return nil, err
		}
		box = next
	}
	return box, nil
}

// boundByExtremes returns box with dimension pos bounded by the minimum and
// maximum of that dimension over s.
func (box *Set) boundByExtremes(s *Set, pos int) (*Set, error) {
	lo, err := s.DimMinVal(pos)
	if err != nil {
		return nil, err
	}
	defer lo.Free()
	hi, err := s.DimMaxVal(pos)
	if err != nil {
		return nil, err
	}
	defer hi.Free()
	for _, v := range []*Val{lo, hi} {
		if ok, err := v.isInt(); err != nil || !ok {
			return nil, fmt.Errorf("isl: BoundingBox: dimension %d of %s is unbounded or empty (extreme %s)", pos, s, v)
		}
	}
	lower, err := box.lowerBoundVal(DimSet, pos, lo)
	if err != nil {
		return nil, err
	}
	defer lower.Free()
	return lower.upperBoundVal(DimSet, pos, hi)
}

// CountVal returns the number of points of s; the error matches ErrOverflow
// when the count does not fit in an int64. It wraps isl_set_count_val.
func (s *Set) CountVal() (int64, error) {
	if _, err := usable(s); err != nil {
		return 0, err
	}
	v, err := s.origin.newVal(C.isl_set_count_val(s.p), "isl_set_count_val")
	if err != nil {
		return 0, err
	}
	defer v.Free()
	return v.Int64()
}
