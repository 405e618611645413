package isl

/*
#include <stdlib.h>
#include <isl/aff.h>
#include <isl/map.h>
#include <isl/set.h>
*/
import "C"

// Aff is an ISL quasi-affine expression on a domain space, such as
// "{ [i, j] -> [(i + floor(j/4))] }".
type Aff struct {
	resource
	p *C.isl_aff
}

func (m maker) newAff(p *C.isl_aff, op string) (*Aff, error) {
	return newObject(m, p, op, func(p *C.isl_aff) { C.isl_aff_free(p) }, func(p *C.isl_aff) *Aff { return &Aff{p: p} })
}

func (a *Aff) res() *resource {
	if a == nil {
		return nil
	}
	return &a.resource
}

// Free frees the expression; it is idempotent and safe on nil.
func (a *Aff) Free() {
	if a != nil {
		a.free()
	}
}

// ReadAff parses a quasi-affine expression such as "{ [i] -> [(2i + 1)] }".
// It wraps isl_aff_read_from_str.
func (m maker) ReadAff(str string) (*Aff, error) {
	if err := m.ready(); err != nil {
		return nil, err
	}
	p := withCString(str, func(cs *C.char) *C.isl_aff { return C.isl_aff_read_from_str(m.ctx.p, cs) })
	return m.newAff(p, "isl_aff_read_from_str")
}

// String returns ISL's text form of the expression, or "<freed>". It wraps
// isl_aff_to_str.
func (a *Aff) String() string {
	if _, err := usable(a); err != nil {
		return "<freed>"
	}
	return goString(C.isl_aff_to_str(a.p))
}

// Copy returns a new reference to the expression. It wraps isl_aff_copy.
func (a *Aff) Copy() (*Aff, error) {
	if _, err := usable(a); err != nil {
		return nil, err
	}
	return a.origin.newAff(C.isl_aff_copy(a.p), "isl_aff_copy")
}

// Add returns a + b. It wraps isl_aff_add.
func (a *Aff) Add(b *Aff) (*Aff, error) {
	if _, err := usable(a, b); err != nil {
		return nil, err
	}
	return a.origin.newAff(C.isl_aff_add(C.isl_aff_copy(a.p), C.isl_aff_copy(b.p)), "isl_aff_add")
}

// Sub returns a - b. It wraps isl_aff_sub.
func (a *Aff) Sub(b *Aff) (*Aff, error) {
	if _, err := usable(a, b); err != nil {
		return nil, err
	}
	return a.origin.newAff(C.isl_aff_sub(C.isl_aff_copy(a.p), C.isl_aff_copy(b.p)), "isl_aff_sub")
}

// Dim returns the number of dimensions of the given type (DimIn for the
// domain, DimDiv for the local variables). It wraps isl_aff_dim.
func (a *Aff) Dim(typ DimType) (int, error) {
	c, err := usable(a)
	if err != nil {
		return 0, err
	}
	return c.sizeResult(C.isl_aff_dim(a.p, typ.c()), "isl_aff_dim")
}

// ConstantVal returns the constant term. It wraps isl_aff_get_constant_val.
func (a *Aff) ConstantVal() (*Val, error) {
	if _, err := usable(a); err != nil {
		return nil, err
	}
	return a.origin.newVal(C.isl_aff_get_constant_val(a.p), "isl_aff_get_constant_val")
}

// CoefficientVal returns the coefficient of dimension pos of the given type.
// It wraps isl_aff_get_coefficient_val.
func (a *Aff) CoefficientVal(typ DimType, pos int) (*Val, error) {
	if _, err := usable(a); err != nil {
		return nil, err
	}
	cp, err := cInt("isl_aff_get_coefficient_val", pos)
	if err != nil {
		return nil, err
	}
	return a.origin.newVal(C.isl_aff_get_coefficient_val(a.p, typ.c(), cp), "isl_aff_get_coefficient_val")
}

// ToPwAff returns a as a piecewise expression with one piece. It wraps
// isl_pw_aff_from_aff.
func (a *Aff) ToPwAff() (*PwAff, error) {
	if _, err := usable(a); err != nil {
		return nil, err
	}
	return a.origin.newPwAff(C.isl_pw_aff_from_aff(C.isl_aff_copy(a.p)), "isl_pw_aff_from_aff")
}

// PwAff is an ISL piecewise quasi-affine expression: quasi-affine
// expressions on disjoint domains.
type PwAff struct {
	resource
	p *C.isl_pw_aff
}

func (m maker) newPwAff(p *C.isl_pw_aff, op string) (*PwAff, error) {
	return newObject(m, p, op, func(p *C.isl_pw_aff) { C.isl_pw_aff_free(p) }, func(p *C.isl_pw_aff) *PwAff { return &PwAff{p: p} })
}

func (a *PwAff) res() *resource {
	if a == nil {
		return nil
	}
	return &a.resource
}

// Free frees the expression; it is idempotent and safe on nil.
func (a *PwAff) Free() {
	if a != nil {
		a.free()
	}
}

// ReadPwAff parses a piecewise expression such as
// "{ [i] -> [(i)] : i >= 0; [i] -> [(-i)] : i < 0 }". It wraps
// isl_pw_aff_read_from_str.
func (m maker) ReadPwAff(str string) (*PwAff, error) {
	if err := m.ready(); err != nil {
		return nil, err
	}
	p := withCString(str, func(cs *C.char) *C.isl_pw_aff { return C.isl_pw_aff_read_from_str(m.ctx.p, cs) })
	return m.newPwAff(p, "isl_pw_aff_read_from_str")
}

// String returns ISL's text form of the expression, or "<freed>". It wraps
// isl_pw_aff_to_str.
func (a *PwAff) String() string {
	if _, err := usable(a); err != nil {
		return "<freed>"
	}
	return goString(C.isl_pw_aff_to_str(a.p))
}

// pwAffBinary applies an ISL function that takes two piecewise expressions
// and gives one.
func (a *PwAff) pwAffBinary(b *PwAff, op string, f func(x, y *C.isl_pw_aff) *C.isl_pw_aff) (*PwAff, error) {
	if _, err := usable(a, b); err != nil {
		return nil, err
	}
	return a.origin.newPwAff(f(C.isl_pw_aff_copy(a.p), C.isl_pw_aff_copy(b.p)), op)
}

// Copy returns a new reference to the expression. It wraps isl_pw_aff_copy.
func (a *PwAff) Copy() (*PwAff, error) {
	if _, err := usable(a); err != nil {
		return nil, err
	}
	return a.origin.newPwAff(C.isl_pw_aff_copy(a.p), "isl_pw_aff_copy")
}

// Add returns a + b on the intersection of their domains. It wraps
// isl_pw_aff_add.
func (a *PwAff) Add(b *PwAff) (*PwAff, error) {
	return a.pwAffBinary(b, "isl_pw_aff_add", func(x, y *C.isl_pw_aff) *C.isl_pw_aff { return C.isl_pw_aff_add(x, y) })
}

// Min returns the pointwise minimum of a and b. It wraps isl_pw_aff_min.
func (a *PwAff) Min(b *PwAff) (*PwAff, error) {
	return a.pwAffBinary(b, "isl_pw_aff_min", func(x, y *C.isl_pw_aff) *C.isl_pw_aff { return C.isl_pw_aff_min(x, y) })
}

// Max returns the pointwise maximum of a and b. It wraps isl_pw_aff_max.
func (a *PwAff) Max(b *PwAff) (*PwAff, error) {
	return a.pwAffBinary(b, "isl_pw_aff_max", func(x, y *C.isl_pw_aff) *C.isl_pw_aff { return C.isl_pw_aff_max(x, y) })
}

// Domain returns the set on which a is defined. It wraps isl_pw_aff_domain.
func (a *PwAff) Domain() (*Set, error) {
	if _, err := usable(a); err != nil {
		return nil, err
	}
	return a.origin.newSet(C.isl_pw_aff_domain(C.isl_pw_aff_copy(a.p)), "isl_pw_aff_domain")
}

// ToMap returns the graph of a as a map. It wraps isl_map_from_pw_aff.
func (a *PwAff) ToMap() (*Map, error) {
	if _, err := usable(a); err != nil {
		return nil, err
	}
	return a.origin.newMap(C.isl_map_from_pw_aff(C.isl_pw_aff_copy(a.p)), "isl_map_from_pw_aff")
}

// MultiAff is an ISL tuple of quasi-affine expressions on one domain, such as
// "{ [x, y] -> [floor(x/32), y] }".
type MultiAff struct {
	resource
	p *C.isl_multi_aff
}

func (m maker) newMultiAff(p *C.isl_multi_aff, op string) (*MultiAff, error) {
	return newObject(m, p, op, func(p *C.isl_multi_aff) { C.isl_multi_aff_free(p) }, func(p *C.isl_multi_aff) *MultiAff { return &MultiAff{p: p} })
}

func (a *MultiAff) res() *resource {
	if a == nil {
		return nil
	}
	return &a.resource
}

// Free frees the expression tuple; it is idempotent and safe on nil.
func (a *MultiAff) Free() {
	if a != nil {
		a.free()
	}
}

// ReadMultiAff parses a tuple of expressions such as
// "{ [i, j] -> [(i + j), (floor(j/2))] }". It wraps
// isl_multi_aff_read_from_str.
func (m maker) ReadMultiAff(str string) (*MultiAff, error) {
	if err := m.ready(); err != nil {
		return nil, err
	}
	p := withCString(str, func(cs *C.char) *C.isl_multi_aff { return C.isl_multi_aff_read_from_str(m.ctx.p, cs) })
	return m.newMultiAff(p, "isl_multi_aff_read_from_str")
}

// String returns ISL's text form of the tuple, or "<freed>". It wraps
// isl_multi_aff_to_str.
func (a *MultiAff) String() string {
	if _, err := usable(a); err != nil {
		return "<freed>"
	}
	return goString(C.isl_multi_aff_to_str(a.p))
}

// Copy returns a new reference to the tuple. It wraps isl_multi_aff_copy.
func (a *MultiAff) Copy() (*MultiAff, error) {
	if _, err := usable(a); err != nil {
		return nil, err
	}
	return a.origin.newMultiAff(C.isl_multi_aff_copy(a.p), "isl_multi_aff_copy")
}

// Size returns the number of expressions in the tuple. It wraps
// isl_multi_aff_size.
func (a *MultiAff) Size() (int, error) {
	c, err := usable(a)
	if err != nil {
		return 0, err
	}
	return c.sizeResult(C.isl_multi_aff_size(a.p), "isl_multi_aff_size")
}

// At returns expression pos of the tuple. It wraps isl_multi_aff_get_at.
func (a *MultiAff) At(pos int) (*Aff, error) {
	if _, err := usable(a); err != nil {
		return nil, err
	}
	cp, err := cInt("isl_multi_aff_get_at", pos)
	if err != nil {
		return nil, err
	}
	return a.origin.newAff(C.isl_multi_aff_get_at(a.p, cp), "isl_multi_aff_get_at")
}

// ToMap returns the graph of the tuple as a map. It wraps
// isl_map_from_multi_aff.
func (a *MultiAff) ToMap() (*Map, error) {
	if _, err := usable(a); err != nil {
		return nil, err
	}
	return a.origin.newMap(C.isl_map_from_multi_aff(C.isl_multi_aff_copy(a.p)), "isl_map_from_multi_aff")
}
