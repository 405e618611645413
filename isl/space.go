package isl

/*
#include <stdlib.h>
#include <isl/space.h>
#include <isl/id.h>
#include <isl/set.h>
*/
import "C"

// Space is an ISL space: the parameters and the tuples (names and numbers of
// dimensions) of a set or map.
type Space struct {
	resource
	p *C.isl_space
}

func (m maker) newSpace(p *C.isl_space, op string) (*Space, error) {
	return newObject(m, p, op, func(p *C.isl_space) { C.isl_space_free(p) }, func(p *C.isl_space) *Space { return &Space{p: p} })
}

func (s *Space) res() *resource {
	if s == nil {
		return nil
	}
	return &s.resource
}

// Free frees the space; it is idempotent and safe on nil.
func (s *Space) Free() {
	if s != nil {
		s.free()
	}
}

// ReadSpace parses a space such as "[n] -> { A[i, j] }". It wraps
// isl_space_read_from_str.
func (m maker) ReadSpace(str string) (*Space, error) {
	if err := m.ready(); err != nil {
		return nil, err
	}
	p := withCString(str, func(cs *C.char) *C.isl_space { return C.isl_space_read_from_str(m.ctx.p, cs) })
	return m.newSpace(p, "isl_space_read_from_str")
}

// String returns ISL's text form of the space, or "<freed>". It wraps
// isl_space_to_str.
func (s *Space) String() string {
	if _, err := usable(s); err != nil {
		return "<freed>"
	}
	return goString(C.isl_space_to_str(s.p))
}

// Dim returns the number of dimensions of the given type. It wraps
// isl_space_dim.
func (s *Space) Dim(typ DimType) (int, error) {
	c, err := usable(s)
	if err != nil {
		return 0, err
	}
	return c.sizeResult(C.isl_space_dim(s.p, typ.c()), "isl_space_dim")
}

// IsEqual reports whether s and t are the same space. It wraps
// isl_space_is_equal.
func (s *Space) IsEqual(t *Space) (bool, error) {
	c, err := usable(s, t)
	if err != nil {
		return false, err
	}
	return c.boolResult(C.isl_space_is_equal(s.p, t.p), "isl_space_is_equal")
}

// SetUniverse returns the set of all points of the set space s. It wraps
// isl_set_universe.
func (s *Space) SetUniverse() (*Set, error) {
	if _, err := usable(s); err != nil {
		return nil, err
	}
	return s.origin.newSet(C.isl_set_universe(C.isl_space_copy(s.p)), "isl_set_universe")
}

// TupleId returns the identifier (name) of the tuple of the given type. It
// wraps isl_space_get_tuple_id.
func (s *Space) TupleId(typ DimType) (*Id, error) {
	if _, err := usable(s); err != nil {
		return nil, err
	}
	return s.origin.newId(C.isl_space_get_tuple_id(s.p, typ.c()), "isl_space_get_tuple_id")
}

// Id is an ISL identifier: a name used for tuples and dimensions.
type Id struct {
	resource
	p *C.isl_id
}

func (m maker) newId(p *C.isl_id, op string) (*Id, error) {
	return newObject(m, p, op, func(p *C.isl_id) { C.isl_id_free(p) }, func(p *C.isl_id) *Id { return &Id{p: p} })
}

func (id *Id) res() *resource {
	if id == nil {
		return nil
	}
	return &id.resource
}

// Free frees the identifier; it is idempotent and safe on nil.
func (id *Id) Free() {
	if id != nil {
		id.free()
	}
}

// IdAlloc returns an identifier with the given name. It wraps isl_id_alloc.
func (m maker) IdAlloc(name string) (*Id, error) {
	if err := m.ready(); err != nil {
		return nil, err
	}
	p := withCString(name, func(cs *C.char) *C.isl_id { return C.isl_id_alloc(m.ctx.p, cs, nil) })
	return m.newId(p, "isl_id_alloc")
}

// Name returns the name of the identifier. It wraps isl_id_get_name.
func (id *Id) Name() string {
	if _, err := usable(id); err != nil {
		return ""
	}
	return C.GoString(C.isl_id_get_name(id.p))
}

// String returns ISL's text form of the identifier, or "<freed>". It wraps
// isl_id_to_str.
func (id *Id) String() string {
	if _, err := usable(id); err != nil {
		return "<freed>"
	}
	return goString(C.isl_id_to_str(id.p))
}
