package isl

/*
#include <stdlib.h>
#include <isl/set.h>
#include <isl/map.h>
*/
import "C"

import "fmt"

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
	if err := checkInput(str, "isl_map_read_from_str"); err != nil {
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

// Union returns the union of m and n. It wraps isl_map_union.
func (m *Map) Union(n *Map) (*Map, error) {
	return m.mapBinary(n, "isl_map_union", func(a, b *C.isl_map) *C.isl_map { return C.isl_map_union(a, b) })
}

// ApplyRange returns the composition that maps x to n(m(x)). It wraps
// isl_map_apply_range.
func (m *Map) ApplyRange(n *Map) (*Map, error) {
	return m.mapBinary(n, "isl_map_apply_range", func(a, b *C.isl_map) *C.isl_map { return C.isl_map_apply_range(a, b) })
}

// Coalesce returns the map with its pieces merged where ISL can. It wraps
// isl_map_coalesce.
func (m *Map) Coalesce() (*Map, error) {
	return m.mapUnary("isl_map_coalesce", func(p *C.isl_map) *C.isl_map { return C.isl_map_coalesce(p) })
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

// IntersectDomain returns the pairs of m whose domain point is in s. It
// wraps isl_map_intersect_domain.
func (m *Map) IntersectDomain(s *Set) (*Map, error) {
	return m.mapWithSet(s, "isl_map_intersect_domain", func(a *C.isl_map, b *C.isl_set) *C.isl_map {
		return C.isl_map_intersect_domain(a, b)
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

// IsEqual reports whether m and n have the same pairs. It wraps
// isl_map_is_equal.
func (m *Map) IsEqual(n *Map) (bool, error) {
	c, err := usable(m, n)
	if err != nil {
		return false, err
	}
	return c.boolResult(C.isl_map_is_equal(m.p, n.p), "isl_map_is_equal")
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
