package isl

/*
#include <stdlib.h>
#include <isl/set.h>
#include <isl/constraint.h>
*/
import "C"

// BasicSet is an ISL basic set: one integer polyhedron, possibly with
// existentially quantified (div) variables.
type BasicSet struct {
	resource
	p *C.isl_basic_set
}

func (m maker) newBasicSet(p *C.isl_basic_set, op string) (*BasicSet, error) {
	return newObject(m, p, op, func(p *C.isl_basic_set) { C.isl_basic_set_free(p) }, func(p *C.isl_basic_set) *BasicSet { return &BasicSet{p: p} })
}

func (b *BasicSet) res() *resource {
	if b == nil {
		return nil
	}
	return &b.resource
}

// Free frees the basic set; it is idempotent and safe on nil.
func (b *BasicSet) Free() {
	if b != nil {
		b.free()
	}
}

// Dim returns the number of dimensions of the given type (DimDiv counts the
// existentially quantified variables). It wraps isl_basic_set_dim.
func (b *BasicSet) Dim(typ DimType) (int, error) {
	c, err := usable(b)
	if err != nil {
		return 0, err
	}
	return c.sizeResult(C.isl_basic_set_dim(b.p, typ.c()), "isl_basic_set_dim")
}

// ToSet returns the basic set as a set. It wraps isl_set_from_basic_set.
func (b *BasicSet) ToSet() (*Set, error) {
	if _, err := usable(b); err != nil {
		return nil, err
	}
	return b.origin.newSet(C.isl_set_from_basic_set(C.isl_basic_set_copy(b.p)), "isl_set_from_basic_set")
}

// Linear is an affine expression over the dimensions of a basic set,
//
//	Constant + Σ Param[i]·p_i + Σ Set[i]·x_i + Σ Div[i]·d_i,
//
// where d_i are the basic set's div (local) variables.
type Linear struct {
	Constant int64
	Param    []int64
	Set      []int64
	Div      []int64
}

// Constraint is one constraint of a basic set: Expr = 0 when Equality,
// Expr >= 0 otherwise.
type Constraint struct {
	Equality bool
	Expr     Linear
}

// dims is the number of dimensions of each type of a basic set.
type dims struct{ param, set, div int }

func (b *BasicSet) dims() (dims, error) {
	var d dims
	var err error
	for _, f := range []struct {
		typ DimType
		n   *int
	}{{DimParam, &d.param}, {DimSet, &d.set}, {DimDiv, &d.div}} {
		if *f.n, err = b.Dim(f.typ); err != nil {
			return dims{}, err
		}
	}
	return d, nil
}

// Constraints returns the constraints of the basic set with their integer
// coefficients. It fails when ISL knows no explicit expression for some
// div. It wraps isl_basic_set_get_constraint_list,
// isl_constraint_is_equality, isl_constraint_get_constant_val and
// isl_constraint_get_coefficient_val.
func (b *BasicSet) Constraints() ([]Constraint, error) {
	c, err := usable(b)
	if err != nil {
		return nil, err
	}
	d, err := b.dims()
	if err != nil {
		return nil, err
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
	out := make([]Constraint, n)
	for i := range out {
		con := C.isl_constraint_list_get_at(list, C.int(i))
		if con == nil || c.failed() {
			C.isl_constraint_free(con)
			return nil, c.lastError("isl_constraint_list_get_at")
		}
		out[i], err = readConstraint(c, con, d)
		C.isl_constraint_free(con)
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

func readConstraint(c *Ctx, con *C.isl_constraint, d dims) (Constraint, error) {
	eq, err := c.boolResult(C.isl_constraint_is_equality(con), "isl_constraint_is_equality")
	if err != nil {
		return Constraint{}, err
	}
	expr, err := readLinear(c, d,
		func() *C.isl_val { return C.isl_constraint_get_constant_val(con) },
		func(t DimType, pos int) *C.isl_val {
			return C.isl_constraint_get_coefficient_val(con, t.c(), C.int(pos))
		}, "isl_constraint_get_coefficient_val")
	return Constraint{Equality: eq, Expr: expr}, err
}

// readLinear reads the constant and the coefficients of every dimension
// through the given accessors, which return new isl_vals.
func readLinear(c *Ctx, d dims, constant func() *C.isl_val, coef func(DimType, int) *C.isl_val, op string) (Linear, error) {
	var l Linear
	var err error
	if l.Constant, err = takeInt64(c, constant(), op); err != nil {
		return Linear{}, err
	}
	for _, f := range []struct {
		typ DimType
		n   int
		out *[]int64
	}{{DimParam, d.param, &l.Param}, {DimSet, d.set, &l.Set}, {DimDiv, d.div, &l.Div}} {
		*f.out = make([]int64, f.n)
		for pos := range f.n {
			if (*f.out)[pos], err = takeInt64(c, coef(f.typ, pos), op); err != nil {
				return Linear{}, err
			}
		}
	}
	return l, nil
}

// takeInt64 converts an integer isl_val to int64 and frees it.
func takeInt64(c *Ctx, p *C.isl_val, op string) (int64, error) {
	v, err := c.newVal(p, op)
	if err != nil {
		return 0, err
	}
	defer v.Free()
	return v.Int64()
}
