package isl

/*
#include <stdlib.h>
#include <isl/space.h>
#include <isl/id.h>
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

// Name returns the name of the identifier. It wraps isl_id_get_name.
func (id *Id) Name() string {
	if _, err := usable(id); err != nil {
		return ""
	}
	return C.GoString(C.isl_id_get_name(id.p))
}
