package isl

/*
#include <stdlib.h>
#include <isl/set.h>
#include <isl/map.h>
#include <isl/ilp.h>
#include <isl/point.h>
#include <isl/val.h>
#include <isl/union_set.h>

// polyvol_points receives the coordinates of at most cap points.
typedef struct {
	long *coords;
	long cap;
	long n;
	int dim;
	int full;
	int bad;
} polyvol_points;

static isl_stat polyvol_collect_point(isl_point *pnt, void *user) {
	polyvol_points *pts = user;
	if (pts->n >= pts->cap) {
		pts->full = 1;
		isl_point_free(pnt);
		return isl_stat_error;
	}
	for (int i = 0; i < pts->dim; i++) {
		isl_val *v = isl_point_get_coordinate_val(pnt, isl_dim_set, i);
		if (!v || !isl_val_is_int(v)) {
			pts->bad = 1;
			isl_val_free(v);
			isl_point_free(pnt);
			return isl_stat_error;
		}
		pts->coords[pts->n * pts->dim + i] = isl_val_get_num_si(v);
		isl_val_free(v);
	}
	pts->n++;
	isl_point_free(pnt);
	return isl_stat_ok;
}

static isl_stat polyvol_set_points(isl_set *set, polyvol_points *pts) {
	return isl_set_foreach_point(set, &polyvol_collect_point, pts);
}
*/
import "C"

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"unsafe"
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

// Copy returns a new reference to the set. It wraps isl_set_copy.
func (s *Set) Copy() (*Set, error) {
	return s.setUnary("isl_set_copy", func(p *C.isl_set) *C.isl_set { return p })
}

// Union returns the union of s and t. It wraps isl_set_union.
func (s *Set) Union(t *Set) (*Set, error) {
	return s.setBinary(t, "isl_set_union", func(a, b *C.isl_set) *C.isl_set { return C.isl_set_union(a, b) })
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

// Apply returns the image of s under m. It wraps isl_set_apply.
func (s *Set) Apply(m *Map) (*Set, error) {
	if _, err := usable(s, m); err != nil {
		return nil, err
	}
	return s.origin.newSet(C.isl_set_apply(C.isl_set_copy(s.p), C.isl_map_copy(m.p)), "isl_set_apply")
}

// Coalesce returns the set with its pieces merged where ISL can. It wraps
// isl_set_coalesce.
func (s *Set) Coalesce() (*Set, error) {
	return s.setUnary("isl_set_coalesce", func(p *C.isl_set) *C.isl_set { return C.isl_set_coalesce(p) })
}

// MakeDisjoint returns the set as a union of pairwise disjoint basic sets.
// It wraps isl_set_make_disjoint.
func (s *Set) MakeDisjoint() (*Set, error) {
	return s.setUnary("isl_set_make_disjoint", func(p *C.isl_set) *C.isl_set { return C.isl_set_make_disjoint(p) })
}

// ComputeDivs returns the set with an explicit expression for every
// existentially quantified variable. It wraps isl_set_compute_divs.
func (s *Set) ComputeDivs() (*Set, error) {
	return s.setUnary("isl_set_compute_divs", func(p *C.isl_set) *C.isl_set { return C.isl_set_compute_divs(p) })
}

// Lexmin returns the lexicographically smallest point of s (per parameter
// value). It wraps isl_set_lexmin.
func (s *Set) Lexmin() (*Set, error) {
	return s.setUnary("isl_set_lexmin", func(p *C.isl_set) *C.isl_set { return C.isl_set_lexmin(p) })
}

// Lexmax returns the lexicographically largest point of s (per parameter
// value). It wraps isl_set_lexmax.
func (s *Set) Lexmax() (*Set, error) {
	return s.setUnary("isl_set_lexmax", func(p *C.isl_set) *C.isl_set { return C.isl_set_lexmax(p) })
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

// setBound applies one of the isl_set_{fix,lower_bound,upper_bound}_si
// functions.
func (s *Set) setBound(op string, typ DimType, pos, value int,
	f func(*C.isl_set, C.enum_isl_dim_type, C.uint, C.int) *C.isl_set) (*Set, error) {
	cp, err := cPos(op, pos)
	if err != nil {
		return nil, err
	}
	cv, err := cInt(op, value)
	if err != nil {
		return nil, err
	}
	return s.setUnary(op, func(p *C.isl_set) *C.isl_set { return f(p, typ.c(), cp, cv) })
}

// FixSi returns the subset of s where dimension pos of the given type
// equals value. It wraps isl_set_fix_si.
func (s *Set) FixSi(typ DimType, pos, value int) (*Set, error) {
	return s.setBound("isl_set_fix_si", typ, pos, value,
		func(p *C.isl_set, t C.enum_isl_dim_type, q C.uint, v C.int) *C.isl_set {
			return C.isl_set_fix_si(p, t, q, v)
		})
}

// LowerBoundSi returns the subset of s where dimension pos of the given type
// is at least value. It wraps isl_set_lower_bound_si.
func (s *Set) LowerBoundSi(typ DimType, pos, value int) (*Set, error) {
	return s.setBound("isl_set_lower_bound_si", typ, pos, value,
		func(p *C.isl_set, t C.enum_isl_dim_type, q C.uint, v C.int) *C.isl_set {
			return C.isl_set_lower_bound_si(p, t, q, v)
		})
}

// UpperBoundSi returns the subset of s where dimension pos of the given type
// is at most value. It wraps isl_set_upper_bound_si.
func (s *Set) UpperBoundSi(typ DimType, pos, value int) (*Set, error) {
	return s.setBound("isl_set_upper_bound_si", typ, pos, value,
		func(p *C.isl_set, t C.enum_isl_dim_type, q C.uint, v C.int) *C.isl_set {
			return C.isl_set_upper_bound_si(p, t, q, v)
		})
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

// LowerBoundVal returns the subset of s where dimension pos of the given
// type is at least v. It wraps isl_set_lower_bound_val.
func (s *Set) LowerBoundVal(typ DimType, pos int, v *Val) (*Set, error) {
	return s.setBoundVal("isl_set_lower_bound_val", typ, pos, v,
		func(p *C.isl_set, t C.enum_isl_dim_type, q C.uint, v *C.isl_val) *C.isl_set {
			return C.isl_set_lower_bound_val(p, t, q, v)
		})
}

// UpperBoundVal returns the subset of s where dimension pos of the given
// type is at most v. It wraps isl_set_upper_bound_val.
func (s *Set) UpperBoundVal(typ DimType, pos int, v *Val) (*Set, error) {
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

// PlainIsUniverse reports whether s is obviously the universe of its space,
// without computation. It wraps isl_set_plain_is_universe.
func (s *Set) PlainIsUniverse() (bool, error) {
	c, err := usable(s)
	if err != nil {
		return false, err
	}
	return c.boolResult(C.isl_set_plain_is_universe(s.p), "isl_set_plain_is_universe")
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

// IsDisjoint reports whether s and t have no point in common. It wraps
// isl_set_is_disjoint.
func (s *Set) IsDisjoint(t *Set) (bool, error) {
	return s.setPredicate(t, "isl_set_is_disjoint", func(a, b *C.isl_set) C.isl_bool { return C.isl_set_is_disjoint(a, b) })
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

// NBasicSet returns the number of basic sets whose union is s. It wraps
// isl_set_n_basic_set.
func (s *Set) NBasicSet() (int, error) {
	c, err := usable(s)
	if err != nil {
		return 0, err
	}
	return c.sizeResult(C.isl_set_n_basic_set(s.p), "isl_set_n_basic_set")
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
			freeAll(out)
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

// SimpleHull returns a basic set containing s whose constraints are
// translates of constraints of s. It wraps isl_set_simple_hull.
func (s *Set) SimpleHull() (*BasicSet, error) {
	if _, err := usable(s); err != nil {
		return nil, err
	}
	return s.origin.newBasicSet(C.isl_set_simple_hull(C.isl_set_copy(s.p)), "isl_set_simple_hull")
}

// ConvexHull returns the smallest basic set containing s. It wraps
// isl_set_convex_hull.
func (s *Set) ConvexHull() (*BasicSet, error) {
	if _, err := usable(s); err != nil {
		return nil, err
	}
	return s.origin.newBasicSet(C.isl_set_convex_hull(C.isl_set_copy(s.p)), "isl_set_convex_hull")
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

// BoxHull returns the smallest rectangular box, [min, max] in every set
// dimension, that contains the non-empty, bounded, parameter-free set s.
// isl 0.25 has no isl_set_box_hull; this combines isl_set_dim_min_val and
// isl_set_dim_max_val with isl_set_lower_bound_val and
// isl_set_upper_bound_val on the universe of s's space.
func (s *Set) BoxHull() (*Set, error) {
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
		if ok, err := v.IsInt(); err != nil || !ok {
			return nil, fmt.Errorf("isl: BoxHull: dimension %d of %s is unbounded or empty (extreme %s)", pos, s, v)
		}
	}
	lower, err := box.LowerBoundVal(DimSet, pos, lo)
	if err != nil {
		return nil, err
	}
	defer lower.Free()
	return lower.UpperBoundVal(DimSet, pos, hi)
}

// countBig counts the points of s as a big integer.
func (s *Set) countBig() (*big.Int, error) {
	if _, err := usable(s); err != nil {
		return nil, err
	}
	v, err := s.origin.newVal(C.isl_set_count_val(s.p), "isl_set_count_val")
	if err != nil {
		return nil, err
	}
	defer v.Free()
	return v.BigInt()
}

// CountVal returns the number of points of s; the error matches ErrOverflow
// when the count does not fit in an int64. It wraps isl_set_count_val.
func (s *Set) CountVal() (int64, error) {
	z, err := s.countBig()
	if err != nil {
		return 0, err
	}
	return bigToInt64(z)
}

// CountValBig returns the number of points of s as a big integer. It wraps
// isl_set_count_val.
func (s *Set) CountValBig() (*big.Int, error) { return s.countBig() }

// ToUnionSet returns s as a union set. It wraps isl_union_set_from_set.
func (s *Set) ToUnionSet() (*UnionSet, error) {
	if _, err := usable(s); err != nil {
		return nil, err
	}
	return s.origin.newUnionSet(C.isl_union_set_from_set(C.isl_set_copy(s.p)), "isl_union_set_from_set")
}

// ErrTooManyPoints is matched by the error of Points when the set has more
// points than the limit.
var ErrTooManyPoints = errors.New("isl: set has more points than the limit")

// Points returns the coordinates of the points of the bounded,
// parameter-free set s, in ISL's order, failing with ErrTooManyPoints when
// there are more than limit. It is meant for tests and small sets. It wraps
// isl_set_foreach_point.
func (s *Set) Points(limit int) ([][]int64, error) {
	c, err := usable(s)
	if err != nil {
		return nil, err
	}
	dim, err := s.Dim(DimSet)
	if err != nil {
		return nil, err
	}
	if limit < 0 {
		return nil, fmt.Errorf("isl: Points: negative limit %d", limit)
	}
	pts := (*C.polyvol_points)(C.calloc(1, C.size_t(unsafe.Sizeof(C.polyvol_points{}))))
	defer C.free(unsafe.Pointer(pts))
	pts.cap = C.long(limit)
	pts.dim = C.int(dim)
	pts.coords = (*C.long)(C.calloc(C.size_t(max(limit*dim, 1)), C.size_t(unsafe.Sizeof(C.long(0)))))
	defer C.free(unsafe.Pointer(pts.coords))
	if C.polyvol_set_points(s.p, pts) < 0 || c.failed() {
		switch {
		case pts.full != 0:
			return nil, fmt.Errorf("%w (%d)", ErrTooManyPoints, limit)
		case pts.bad != 0:
			return nil, fmt.Errorf("isl: Points: a coordinate of %s does not fit in int64", s)
		default:
			return nil, c.lastError("isl_set_foreach_point")
		}
	}
	flat := unsafe.Slice((*int64)(unsafe.Pointer(pts.coords)), int(pts.n)*dim)
	out := make([][]int64, pts.n)
	for i := range out {
		out[i] = append([]int64(nil), flat[i*dim:(i+1)*dim]...)
	}
	return out, nil
}
