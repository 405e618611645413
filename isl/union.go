package isl

/*
#include <stdlib.h>
#include <isl/set.h>
#include <isl/map.h>
#include <isl/union_set.h>
#include <isl/union_map.h>
*/
import "C"

import "math/big"

// UnionSet is an ISL union set: a union of sets that may live in different
// spaces.
type UnionSet struct {
	resource
	p *C.isl_union_set
}

func (m maker) newUnionSet(p *C.isl_union_set, op string) (*UnionSet, error) {
	return newObject(m, p, op, func(p *C.isl_union_set) { C.isl_union_set_free(p) }, func(p *C.isl_union_set) *UnionSet { return &UnionSet{p: p} })
}

func (u *UnionSet) res() *resource {
	if u == nil {
		return nil
	}
	return &u.resource
}

// Free frees the union set; it is idempotent and safe on nil.
func (u *UnionSet) Free() {
	if u != nil {
		u.free()
	}
}

// ReadUnionSet parses a union set such as "{ A[i] : 0 <= i < 4; B[] }". It
// wraps isl_union_set_read_from_str.
func (m maker) ReadUnionSet(str string) (*UnionSet, error) {
	if err := m.ready(); err != nil {
		return nil, err
	}
	p := withCString(str, func(cs *C.char) *C.isl_union_set { return C.isl_union_set_read_from_str(m.ctx.p, cs) })
	return m.newUnionSet(p, "isl_union_set_read_from_str")
}

// String returns ISL's text form of the union set, or "<freed>". It wraps
// isl_union_set_to_str.
func (u *UnionSet) String() string {
	if _, err := usable(u); err != nil {
		return "<freed>"
	}
	return goString(C.isl_union_set_to_str(u.p))
}

// unionSetBinary applies an ISL function that takes two union sets and gives
// a union set.
func (u *UnionSet) unionSetBinary(v *UnionSet, op string, f func(a, b *C.isl_union_set) *C.isl_union_set) (*UnionSet, error) {
	if _, err := usable(u, v); err != nil {
		return nil, err
	}
	return u.origin.newUnionSet(f(C.isl_union_set_copy(u.p), C.isl_union_set_copy(v.p)), op)
}

// unionSetPredicate evaluates an ISL predicate on two union sets.
func (u *UnionSet) unionSetPredicate(v *UnionSet, op string, f func(a, b *C.isl_union_set) C.isl_bool) (bool, error) {
	c, err := usable(u, v)
	if err != nil {
		return false, err
	}
	return c.boolResult(f(u.p, v.p), op)
}

// Copy returns a new reference to the union set. It wraps
// isl_union_set_copy.
func (u *UnionSet) Copy() (*UnionSet, error) {
	if _, err := usable(u); err != nil {
		return nil, err
	}
	return u.origin.newUnionSet(C.isl_union_set_copy(u.p), "isl_union_set_copy")
}

// Union returns the union of u and v. It wraps isl_union_set_union.
func (u *UnionSet) Union(v *UnionSet) (*UnionSet, error) {
	return u.unionSetBinary(v, "isl_union_set_union", func(a, b *C.isl_union_set) *C.isl_union_set {
		return C.isl_union_set_union(a, b)
	})
}

// Intersect returns the intersection of u and v. It wraps
// isl_union_set_intersect.
func (u *UnionSet) Intersect(v *UnionSet) (*UnionSet, error) {
	return u.unionSetBinary(v, "isl_union_set_intersect", func(a, b *C.isl_union_set) *C.isl_union_set {
		return C.isl_union_set_intersect(a, b)
	})
}

// Subtract returns the points of u that are not in v. It wraps
// isl_union_set_subtract.
func (u *UnionSet) Subtract(v *UnionSet) (*UnionSet, error) {
	return u.unionSetBinary(v, "isl_union_set_subtract", func(a, b *C.isl_union_set) *C.isl_union_set {
		return C.isl_union_set_subtract(a, b)
	})
}

// Apply returns the image of u under m. It wraps isl_union_set_apply.
func (u *UnionSet) Apply(m *UnionMap) (*UnionSet, error) {
	if _, err := usable(u, m); err != nil {
		return nil, err
	}
	return u.origin.newUnionSet(C.isl_union_set_apply(C.isl_union_set_copy(u.p), C.isl_union_map_copy(m.p)),
		"isl_union_set_apply")
}

// Coalesce returns the union set with its pieces merged where ISL can. It
// wraps isl_union_set_coalesce.
func (u *UnionSet) Coalesce() (*UnionSet, error) {
	if _, err := usable(u); err != nil {
		return nil, err
	}
	return u.origin.newUnionSet(C.isl_union_set_coalesce(C.isl_union_set_copy(u.p)), "isl_union_set_coalesce")
}

// IsEmpty reports whether u has no points. It wraps isl_union_set_is_empty.
func (u *UnionSet) IsEmpty() (bool, error) {
	c, err := usable(u)
	if err != nil {
		return false, err
	}
	return c.boolResult(C.isl_union_set_is_empty(u.p), "isl_union_set_is_empty")
}

// IsEqual reports whether u and v have the same points. It wraps
// isl_union_set_is_equal.
func (u *UnionSet) IsEqual(v *UnionSet) (bool, error) {
	return u.unionSetPredicate(v, "isl_union_set_is_equal", func(a, b *C.isl_union_set) C.isl_bool {
		return C.isl_union_set_is_equal(a, b)
	})
}

// IsSubset reports whether every point of u is in v. It wraps
// isl_union_set_is_subset.
func (u *UnionSet) IsSubset(v *UnionSet) (bool, error) {
	return u.unionSetPredicate(v, "isl_union_set_is_subset", func(a, b *C.isl_union_set) C.isl_bool {
		return C.isl_union_set_is_subset(a, b)
	})
}

// NSet returns the number of sets (one per space) in u. It wraps
// isl_union_set_n_set.
func (u *UnionSet) NSet() (int, error) {
	c, err := usable(u)
	if err != nil {
		return 0, err
	}
	return c.sizeResult(C.isl_union_set_n_set(u.p), "isl_union_set_n_set")
}

// Sets returns the member sets of u, one per space. It wraps
// isl_union_set_get_set_list.
func (u *UnionSet) Sets() ([]*Set, error) {
	c, err := usable(u)
	if err != nil {
		return nil, err
	}
	list := C.isl_union_set_get_set_list(u.p)
	if list != nil {
		defer C.isl_set_list_free(list)
	}
	if list == nil || c.failed() {
		return nil, c.lastError("isl_union_set_get_set_list")
	}
	n, err := c.sizeResult(C.isl_set_list_size(list), "isl_set_list_size")
	if err != nil {
		return nil, err
	}
	out := make([]*Set, 0, n)
	for i := range n {
		s, err := u.origin.newSet(C.isl_set_list_get_at(list, C.int(i)), "isl_set_list_get_at")
		if err != nil {
			freeAll(out)
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// freeAll frees every object of objs.
func freeAll[T Object](objs []T) {
	for _, o := range objs {
		o.Free()
	}
}

// countBig sums the counts of the member sets.
func (u *UnionSet) countBig() (*big.Int, error) {
	sets, err := u.Sets()
	if err != nil {
		return nil, err
	}
	defer freeAll(sets)
	total := new(big.Int)
	for _, s := range sets {
		n, err := s.countBig()
		if err != nil {
			return nil, err
		}
		total.Add(total, n)
	}
	return total, nil
}

// CountVal returns the number of points of u; the error matches ErrOverflow
// when the count does not fit in an int64. isl 0.25 has no
// isl_union_set_count_val: this sums isl_set_count_val over the member sets.
func (u *UnionSet) CountVal() (int64, error) {
	z, err := u.countBig()
	if err != nil {
		return 0, err
	}
	return bigToInt64(z)
}

// CountValBig returns the number of points of u as a big integer, summing
// isl_set_count_val over the member sets.
func (u *UnionSet) CountValBig() (*big.Int, error) { return u.countBig() }

// UnionMap is an ISL union map: a union of maps that may live in different
// spaces.
type UnionMap struct {
	resource
	p *C.isl_union_map
}

func (m maker) newUnionMap(p *C.isl_union_map, op string) (*UnionMap, error) {
	return newObject(m, p, op, func(p *C.isl_union_map) { C.isl_union_map_free(p) }, func(p *C.isl_union_map) *UnionMap { return &UnionMap{p: p} })
}

func (u *UnionMap) res() *resource {
	if u == nil {
		return nil
	}
	return &u.resource
}

// Free frees the union map; it is idempotent and safe on nil.
func (u *UnionMap) Free() {
	if u != nil {
		u.free()
	}
}

// ReadUnionMap parses a union map such as "{ S[i] -> A[i]; S[i] -> B[i+1] }".
// It wraps isl_union_map_read_from_str.
func (m maker) ReadUnionMap(str string) (*UnionMap, error) {
	if err := m.ready(); err != nil {
		return nil, err
	}
	p := withCString(str, func(cs *C.char) *C.isl_union_map { return C.isl_union_map_read_from_str(m.ctx.p, cs) })
	return m.newUnionMap(p, "isl_union_map_read_from_str")
}

// String returns ISL's text form of the union map, or "<freed>". It wraps
// isl_union_map_to_str.
func (u *UnionMap) String() string {
	if _, err := usable(u); err != nil {
		return "<freed>"
	}
	return goString(C.isl_union_map_to_str(u.p))
}

// unionMapUnary applies an ISL function that takes one union map and gives a
// union map.
func (u *UnionMap) unionMapUnary(op string, f func(*C.isl_union_map) *C.isl_union_map) (*UnionMap, error) {
	if _, err := usable(u); err != nil {
		return nil, err
	}
	return u.origin.newUnionMap(f(C.isl_union_map_copy(u.p)), op)
}

// unionMapBinary applies an ISL function that takes two union maps and gives
// a union map.
func (u *UnionMap) unionMapBinary(v *UnionMap, op string, f func(a, b *C.isl_union_map) *C.isl_union_map) (*UnionMap, error) {
	if _, err := usable(u, v); err != nil {
		return nil, err
	}
	return u.origin.newUnionMap(f(C.isl_union_map_copy(u.p), C.isl_union_map_copy(v.p)), op)
}

// unionMapWithSet applies an ISL function that takes a union map and a union
// set and gives a union map.
func (u *UnionMap) unionMapWithSet(s *UnionSet, op string, f func(*C.isl_union_map, *C.isl_union_set) *C.isl_union_map) (*UnionMap, error) {
	if _, err := usable(u, s); err != nil {
		return nil, err
	}
	return u.origin.newUnionMap(f(C.isl_union_map_copy(u.p), C.isl_union_set_copy(s.p)), op)
}

// unionMapToSet applies an ISL function that takes a union map and gives a
// union set.
func (u *UnionMap) unionMapToSet(op string, f func(*C.isl_union_map) *C.isl_union_set) (*UnionSet, error) {
	if _, err := usable(u); err != nil {
		return nil, err
	}
	return u.origin.newUnionSet(f(C.isl_union_map_copy(u.p)), op)
}

// unionMapPredicate evaluates an ISL predicate on two union maps.
func (u *UnionMap) unionMapPredicate(v *UnionMap, op string, f func(a, b *C.isl_union_map) C.isl_bool) (bool, error) {
	c, err := usable(u, v)
	if err != nil {
		return false, err
	}
	return c.boolResult(f(u.p, v.p), op)
}

// Copy returns a new reference to the union map. It wraps
// isl_union_map_copy.
func (u *UnionMap) Copy() (*UnionMap, error) {
	return u.unionMapUnary("isl_union_map_copy", func(p *C.isl_union_map) *C.isl_union_map { return p })
}

// Union returns the union of u and v. It wraps isl_union_map_union.
func (u *UnionMap) Union(v *UnionMap) (*UnionMap, error) {
	return u.unionMapBinary(v, "isl_union_map_union", func(a, b *C.isl_union_map) *C.isl_union_map {
		return C.isl_union_map_union(a, b)
	})
}

// Intersect returns the intersection of u and v. It wraps
// isl_union_map_intersect.
func (u *UnionMap) Intersect(v *UnionMap) (*UnionMap, error) {
	return u.unionMapBinary(v, "isl_union_map_intersect", func(a, b *C.isl_union_map) *C.isl_union_map {
		return C.isl_union_map_intersect(a, b)
	})
}

// Subtract returns the pairs of u that are not in v. It wraps
// isl_union_map_subtract.
func (u *UnionMap) Subtract(v *UnionMap) (*UnionMap, error) {
	return u.unionMapBinary(v, "isl_union_map_subtract", func(a, b *C.isl_union_map) *C.isl_union_map {
		return C.isl_union_map_subtract(a, b)
	})
}

// ApplyRange returns the composition that maps x to v(u(x)). It wraps
// isl_union_map_apply_range.
func (u *UnionMap) ApplyRange(v *UnionMap) (*UnionMap, error) {
	return u.unionMapBinary(v, "isl_union_map_apply_range", func(a, b *C.isl_union_map) *C.isl_union_map {
		return C.isl_union_map_apply_range(a, b)
	})
}

// Reverse returns the inverse relation. It wraps isl_union_map_reverse.
func (u *UnionMap) Reverse() (*UnionMap, error) {
	return u.unionMapUnary("isl_union_map_reverse", func(p *C.isl_union_map) *C.isl_union_map {
		return C.isl_union_map_reverse(p)
	})
}

// Coalesce returns the union map with its pieces merged where ISL can. It
// wraps isl_union_map_coalesce.
func (u *UnionMap) Coalesce() (*UnionMap, error) {
	return u.unionMapUnary("isl_union_map_coalesce", func(p *C.isl_union_map) *C.isl_union_map {
		return C.isl_union_map_coalesce(p)
	})
}

// IntersectDomain returns the pairs of u whose domain point is in s. It
// wraps isl_union_map_intersect_domain.
func (u *UnionMap) IntersectDomain(s *UnionSet) (*UnionMap, error) {
	return u.unionMapWithSet(s, "isl_union_map_intersect_domain", func(a *C.isl_union_map, b *C.isl_union_set) *C.isl_union_map {
		return C.isl_union_map_intersect_domain(a, b)
	})
}

// IntersectRange returns the pairs of u whose range point is in s. It wraps
// isl_union_map_intersect_range.
func (u *UnionMap) IntersectRange(s *UnionSet) (*UnionMap, error) {
	return u.unionMapWithSet(s, "isl_union_map_intersect_range", func(a *C.isl_union_map, b *C.isl_union_set) *C.isl_union_map {
		return C.isl_union_map_intersect_range(a, b)
	})
}

// Domain returns the domain points of u. It wraps isl_union_map_domain.
func (u *UnionMap) Domain() (*UnionSet, error) {
	return u.unionMapToSet("isl_union_map_domain", func(p *C.isl_union_map) *C.isl_union_set {
		return C.isl_union_map_domain(p)
	})
}

// Range returns the range points of u. It wraps isl_union_map_range.
func (u *UnionMap) Range() (*UnionSet, error) {
	return u.unionMapToSet("isl_union_map_range", func(p *C.isl_union_map) *C.isl_union_set {
		return C.isl_union_map_range(p)
	})
}

// Wrap returns u as a union set of pairs [x -> y]. It wraps
// isl_union_map_wrap.
func (u *UnionMap) Wrap() (*UnionSet, error) {
	return u.unionMapToSet("isl_union_map_wrap", func(p *C.isl_union_map) *C.isl_union_set {
		return C.isl_union_map_wrap(p)
	})
}

// IsEmpty reports whether u has no pairs. It wraps isl_union_map_is_empty.
func (u *UnionMap) IsEmpty() (bool, error) {
	c, err := usable(u)
	if err != nil {
		return false, err
	}
	return c.boolResult(C.isl_union_map_is_empty(u.p), "isl_union_map_is_empty")
}

// IsEqual reports whether u and v have the same pairs. It wraps
// isl_union_map_is_equal.
func (u *UnionMap) IsEqual(v *UnionMap) (bool, error) {
	return u.unionMapPredicate(v, "isl_union_map_is_equal", func(a, b *C.isl_union_map) C.isl_bool {
		return C.isl_union_map_is_equal(a, b)
	})
}

// IsSubset reports whether every pair of u is in v. It wraps
// isl_union_map_is_subset.
func (u *UnionMap) IsSubset(v *UnionMap) (bool, error) {
	return u.unionMapPredicate(v, "isl_union_map_is_subset", func(a, b *C.isl_union_map) C.isl_bool {
		return C.isl_union_map_is_subset(a, b)
	})
}

// NMap returns the number of maps (one per pair of spaces) in u. It wraps
// isl_union_map_n_map.
func (u *UnionMap) NMap() (int, error) {
	c, err := usable(u)
	if err != nil {
		return 0, err
	}
	return c.sizeResult(C.isl_union_map_n_map(u.p), "isl_union_map_n_map")
}

// Maps returns the member maps of u, one per pair of spaces. It wraps
// isl_union_map_get_map_list.
func (u *UnionMap) Maps() ([]*Map, error) {
	c, err := usable(u)
	if err != nil {
		return nil, err
	}
	list := C.isl_union_map_get_map_list(u.p)
	if list != nil {
		defer C.isl_map_list_free(list)
	}
	if list == nil || c.failed() {
		return nil, c.lastError("isl_union_map_get_map_list")
	}
	n, err := c.sizeResult(C.isl_map_list_size(list), "isl_map_list_size")
	if err != nil {
		return nil, err
	}
	out := make([]*Map, 0, n)
	for i := range n {
		m, err := u.origin.newMap(C.isl_map_list_get_at(list, C.int(i)), "isl_map_list_get_at")
		if err != nil {
			freeAll(out)
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

// CountVal returns the number of pairs of u; the error matches ErrOverflow
// when the count does not fit in an int64. It sums isl_set_count_val over
// the member sets of isl_union_map_wrap.
func (u *UnionMap) CountVal() (int64, error) {
	z, err := u.CountValBig()
	if err != nil {
		return 0, err
	}
	return bigToInt64(z)
}

// CountValBig returns the number of pairs of u as a big integer, summing
// isl_set_count_val over the member sets of isl_union_map_wrap.
func (u *UnionMap) CountValBig() (*big.Int, error) {
	w, err := u.Wrap()
	if err != nil {
		return nil, err
	}
	defer w.Free()
	return w.countBig()
}
