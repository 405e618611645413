package isl

/*
#include <stdlib.h>
#include <isl/set.h>
#include <isl/map.h>
#include <isl/union_map.h>
*/
import "C"

import (
	"fmt"
	"math/big"
)

// Map is an ISL map: a finite union of integer relations between a domain
// tuple and a range tuple.
type Map struct {
	resource
	p *C.isl_map
}

func (m maker) newMap(p *C.isl_map, op string) (*Map, error) {
	return newObject(m, p, op, func(p *C.isl_map) { C.isl_map_free(p) }, func(p *C.isl_map) *Map { return &Map{p: p} })
}

func (m *Map) res() *resource {
	if m == nil {
		return nil
	}
	return &m.resource
}

// Free frees the map; it is idempotent and safe on nil.
func (m *Map) Free() {
	if m != nil {
		m.free()
	}
}

// ReadMap parses a map such as "{ [i] -> [floor(i/4)] : 0 <= i < 64 }". It
// wraps isl_map_read_from_str.
func (m maker) ReadMap(str string) (*Map, error) {
	if err := m.ready(); err != nil {
		return nil, err
	}
	p := withCString(str, func(cs *C.char) *C.isl_map { return C.isl_map_read_from_str(m.ctx.p, cs) })
	return m.newMap(p, "isl_map_read_from_str")
}

// String returns ISL's text form of the map, or "<freed>". It wraps
// isl_map_to_str.
func (m *Map) String() string {
	if _, err := usable(m); err != nil {
		return "<freed>"
	}
	return goString(C.isl_map_to_str(m.p))
}

// mapUnary applies an ISL function that takes one map and gives a map.
func (m *Map) mapUnary(op string, f func(*C.isl_map) *C.isl_map) (*Map, error) {
	if _, err := usable(m); err != nil {
		return nil, err
	}
	return m.origin.newMap(f(C.isl_map_copy(m.p)), op)
}

// mapBinary applies an ISL function that takes two maps and gives a map.
func (m *Map) mapBinary(n *Map, op string, f func(a, b *C.isl_map) *C.isl_map) (*Map, error) {
	if _, err := usable(m, n); err != nil {
		return nil, err
	}
	return m.origin.newMap(f(C.isl_map_copy(m.p), C.isl_map_copy(n.p)), op)
}

// mapWithSet applies an ISL function that takes a map and a set and gives a
// map.
func (m *Map) mapWithSet(s *Set, op string, f func(*C.isl_map, *C.isl_set) *C.isl_map) (*Map, error) {
	if _, err := usable(m, s); err != nil {
		return nil, err
	}
	return m.origin.newMap(f(C.isl_map_copy(m.p), C.isl_set_copy(s.p)), op)
}

// mapToSet applies an ISL function that takes a map and gives a set.
func (m *Map) mapToSet(op string, f func(*C.isl_map) *C.isl_set) (*Set, error) {
	if _, err := usable(m); err != nil {
		return nil, err
	}
	return m.origin.newSet(f(C.isl_map_copy(m.p)), op)
}

// mapPredicate evaluates an ISL predicate on two maps.
func (m *Map) mapPredicate(n *Map, op string, f func(a, b *C.isl_map) C.isl_bool) (bool, error) {
	c, err := usable(m, n)
	if err != nil {
		return false, err
	}
	return c.boolResult(f(m.p, n.p), op)
}

// Copy returns a new reference to the map. It wraps isl_map_copy.
func (m *Map) Copy() (*Map, error) {
	return m.mapUnary("isl_map_copy", func(p *C.isl_map) *C.isl_map { return p })
}

// Union returns the union of m and n. It wraps isl_map_union.
func (m *Map) Union(n *Map) (*Map, error) {
	return m.mapBinary(n, "isl_map_union", func(a, b *C.isl_map) *C.isl_map { return C.isl_map_union(a, b) })
}

// Intersect returns the intersection of m and n. It wraps isl_map_intersect.
func (m *Map) Intersect(n *Map) (*Map, error) {
	return m.mapBinary(n, "isl_map_intersect", func(a, b *C.isl_map) *C.isl_map { return C.isl_map_intersect(a, b) })
}

// Subtract returns the pairs of m that are not in n. It wraps
// isl_map_subtract.
func (m *Map) Subtract(n *Map) (*Map, error) {
	return m.mapBinary(n, "isl_map_subtract", func(a, b *C.isl_map) *C.isl_map { return C.isl_map_subtract(a, b) })
}

// ApplyRange returns the composition that maps x to n(m(x)). It wraps
// isl_map_apply_range.
func (m *Map) ApplyRange(n *Map) (*Map, error) {
	return m.mapBinary(n, "isl_map_apply_range", func(a, b *C.isl_map) *C.isl_map { return C.isl_map_apply_range(a, b) })
}

// ApplyDomain returns the map that relates n(x) to y for every pair (x, y)
// of m. It wraps isl_map_apply_domain.
func (m *Map) ApplyDomain(n *Map) (*Map, error) {
	return m.mapBinary(n, "isl_map_apply_domain", func(a, b *C.isl_map) *C.isl_map { return C.isl_map_apply_domain(a, b) })
}

// Reverse returns the inverse relation. It wraps isl_map_reverse.
func (m *Map) Reverse() (*Map, error) {
	return m.mapUnary("isl_map_reverse", func(p *C.isl_map) *C.isl_map { return C.isl_map_reverse(p) })
}

// Coalesce returns the map with its pieces merged where ISL can. It wraps
// isl_map_coalesce.
func (m *Map) Coalesce() (*Map, error) {
	return m.mapUnary("isl_map_coalesce", func(p *C.isl_map) *C.isl_map { return C.isl_map_coalesce(p) })
}

// Lexmin returns, for every domain point, the lexicographically smallest
// image. It wraps isl_map_lexmin.
func (m *Map) Lexmin() (*Map, error) {
	return m.mapUnary("isl_map_lexmin", func(p *C.isl_map) *C.isl_map { return C.isl_map_lexmin(p) })
}

// Lexmax returns, for every domain point, the lexicographically largest
// image. It wraps isl_map_lexmax.
func (m *Map) Lexmax() (*Map, error) {
	return m.mapUnary("isl_map_lexmax", func(p *C.isl_map) *C.isl_map { return C.isl_map_lexmax(p) })
}

// ProjectOut removes n dimensions of the given type starting at first. It
// wraps isl_map_project_out.
func (m *Map) ProjectOut(typ DimType, first, n int) (*Map, error) {
	if first < 0 || n < 0 {
		return nil, fmt.Errorf("isl_map_project_out: negative position %d or count %d", first, n)
	}
	return m.mapUnary("isl_map_project_out", func(p *C.isl_map) *C.isl_map {
		return C.isl_map_project_out(p, typ.c(), C.uint(first), C.uint(n))
	})
}

// mapBound applies one of the isl_map_{fix,lower_bound,upper_bound}_si
// functions.
func (m *Map) mapBound(op string, typ DimType, pos, value int,
	f func(*C.isl_map, C.enum_isl_dim_type, C.uint, C.int) *C.isl_map) (*Map, error) {
	cp, err := cPos(op, pos)
	if err != nil {
		return nil, err
	}
	cv, err := cInt(op, value)
	if err != nil {
		return nil, err
	}
	return m.mapUnary(op, func(p *C.isl_map) *C.isl_map { return f(p, typ.c(), cp, cv) })
}

// FixSi returns the pairs of m where dimension pos of the given type equals
// value. It wraps isl_map_fix_si.
func (m *Map) FixSi(typ DimType, pos, value int) (*Map, error) {
	return m.mapBound("isl_map_fix_si", typ, pos, value,
		func(p *C.isl_map, t C.enum_isl_dim_type, q C.uint, v C.int) *C.isl_map {
			return C.isl_map_fix_si(p, t, q, v)
		})
}

// LowerBoundSi returns the pairs of m where dimension pos of the given type
// is at least value. It wraps isl_map_lower_bound_si.
func (m *Map) LowerBoundSi(typ DimType, pos, value int) (*Map, error) {
	return m.mapBound("isl_map_lower_bound_si", typ, pos, value,
		func(p *C.isl_map, t C.enum_isl_dim_type, q C.uint, v C.int) *C.isl_map {
			return C.isl_map_lower_bound_si(p, t, q, v)
		})
}

// UpperBoundSi returns the pairs of m where dimension pos of the given type
// is at most value. It wraps isl_map_upper_bound_si.
func (m *Map) UpperBoundSi(typ DimType, pos, value int) (*Map, error) {
	return m.mapBound("isl_map_upper_bound_si", typ, pos, value,
		func(p *C.isl_map, t C.enum_isl_dim_type, q C.uint, v C.int) *C.isl_map {
			return C.isl_map_upper_bound_si(p, t, q, v)
		})
}

// IntersectDomain returns the pairs of m whose domain point is in s. It
// wraps isl_map_intersect_domain.
func (m *Map) IntersectDomain(s *Set) (*Map, error) {
	return m.mapWithSet(s, "isl_map_intersect_domain", func(a *C.isl_map, b *C.isl_set) *C.isl_map {
		return C.isl_map_intersect_domain(a, b)
	})
}

// IntersectRange returns the pairs of m whose range point is in s. It wraps
// isl_map_intersect_range.
func (m *Map) IntersectRange(s *Set) (*Map, error) {
	return m.mapWithSet(s, "isl_map_intersect_range", func(a *C.isl_map, b *C.isl_set) *C.isl_map {
		return C.isl_map_intersect_range(a, b)
	})
}

// Domain returns the set of domain points of m. It wraps isl_map_domain.
func (m *Map) Domain() (*Set, error) {
	return m.mapToSet("isl_map_domain", func(p *C.isl_map) *C.isl_set { return C.isl_map_domain(p) })
}

// Range returns the set of range points of m. It wraps isl_map_range.
func (m *Map) Range() (*Set, error) {
	return m.mapToSet("isl_map_range", func(p *C.isl_map) *C.isl_set { return C.isl_map_range(p) })
}

// Wrap returns m as a set of pairs [x -> y]. It wraps isl_map_wrap.
func (m *Map) Wrap() (*Set, error) {
	return m.mapToSet("isl_map_wrap", func(p *C.isl_map) *C.isl_set { return C.isl_map_wrap(p) })
}

// Deltas returns the set of differences y - x over the pairs (x, y) of m. It
// wraps isl_map_deltas.
func (m *Map) Deltas() (*Set, error) {
	return m.mapToSet("isl_map_deltas", func(p *C.isl_map) *C.isl_set { return C.isl_map_deltas(p) })
}

// IsEmpty reports whether m has no pairs. It wraps isl_map_is_empty.
func (m *Map) IsEmpty() (bool, error) {
	c, err := usable(m)
	if err != nil {
		return false, err
	}
	return c.boolResult(C.isl_map_is_empty(m.p), "isl_map_is_empty")
}

// IsEqual reports whether m and n have the same pairs. It wraps
// isl_map_is_equal.
func (m *Map) IsEqual(n *Map) (bool, error) {
	return m.mapPredicate(n, "isl_map_is_equal", func(a, b *C.isl_map) C.isl_bool { return C.isl_map_is_equal(a, b) })
}

// IsSubset reports whether every pair of m is in n. It wraps
// isl_map_is_subset.
func (m *Map) IsSubset(n *Map) (bool, error) {
	return m.mapPredicate(n, "isl_map_is_subset", func(a, b *C.isl_map) C.isl_bool { return C.isl_map_is_subset(a, b) })
}

// Dim returns the number of dimensions of the given type. It wraps
// isl_map_dim.
func (m *Map) Dim(typ DimType) (int, error) {
	c, err := usable(m)
	if err != nil {
		return 0, err
	}
	return c.sizeResult(C.isl_map_dim(m.p, typ.c()), "isl_map_dim")
}

// Space returns the space of m. It wraps isl_map_get_space.
func (m *Map) Space() (*Space, error) {
	if _, err := usable(m); err != nil {
		return nil, err
	}
	return m.origin.newSpace(C.isl_map_get_space(m.p), "isl_map_get_space")
}

// countBig counts the pairs of m as a big integer.
func (m *Map) countBig() (*big.Int, error) {
	w, err := m.Wrap()
	if err != nil {
		return nil, err
	}
	defer w.Free()
	return w.countBig()
}

// CountVal returns the number of pairs of m; the error matches ErrOverflow
// when the count does not fit in an int64. It wraps isl_map_wrap and
// isl_set_count_val.
func (m *Map) CountVal() (int64, error) {
	z, err := m.countBig()
	if err != nil {
		return 0, err
	}
	return bigToInt64(z)
}

// CountValBig returns the number of pairs of m as a big integer. It wraps
// isl_map_wrap and isl_set_count_val.
func (m *Map) CountValBig() (*big.Int, error) { return m.countBig() }

// ToUnionMap returns m as a union map. It wraps isl_union_map_from_map.
func (m *Map) ToUnionMap() (*UnionMap, error) {
	if _, err := usable(m); err != nil {
		return nil, err
	}
	return m.origin.newUnionMap(C.isl_union_map_from_map(C.isl_map_copy(m.p)), "isl_union_map_from_map")
}
