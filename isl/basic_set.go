package isl

/*
#include <stdlib.h>
#include <isl/set.h>
#include <isl/aff.h>
#include <isl/constraint.h>
#include <isl/local_space.h>
*/
import "C"

import "fmt"

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

// ReadBasicSet parses a basic set such as "{ [i] : 0 <= i < 10 }". It wraps
// isl_basic_set_read_from_str.
func (m maker) ReadBasicSet(str string) (*BasicSet, error) {
	if err := m.ready(); err != nil {
		return nil, err
	}
	p := withCString(str, func(cs *C.char) *C.isl_basic_set { return C.isl_basic_set_read_from_str(m.ctx.p, cs) })
	return m.newBasicSet(p, "isl_basic_set_read_from_str")
}

// String returns ISL's text form of the basic set, or "<freed>". It wraps
// isl_basic_set_to_str.
func (b *BasicSet) String() string {
	if _, err := usable(b); err != nil {
		return "<freed>"
	}
	return goString(C.isl_basic_set_to_str(b.p))
}

// Copy returns a new reference to the basic set. It wraps
// isl_basic_set_copy.
func (b *BasicSet) Copy() (*BasicSet, error) {
	if _, err := usable(b); err != nil {
		return nil, err
	}
	return b.origin.newBasicSet(C.isl_basic_set_copy(b.p), "isl_basic_set_copy")
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

// NConstraint returns the number of constraints of the basic set. It wraps
// isl_basic_set_n_constraint.
func (b *BasicSet) NConstraint() (int, error) {
	c, err := usable(b)
	if err != nil {
		return 0, err
	}
	return c.sizeResult(C.isl_basic_set_n_constraint(b.p), "isl_basic_set_n_constraint")
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

// Div defines a div variable of a basic set as floor(Expr / Denominator).
// Expr may refer to earlier divs.
type Div struct {
	Expr        Linear
	Denominator int64
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
// coefficients. Like Divs, it fails when ISL knows no explicit expression
// for some div (Set.ComputeDivs provides them). It wraps isl_basic_set_get_constraint_list,
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

// Divs returns the definitions of the div variables of the basic set. It
// fails when ISL knows no explicit expression for some div; Set.ComputeDivs
// provides them. It wraps isl_basic_set_get_div and the isl_aff accessors.
func (b *BasicSet) Divs() ([]Div, error) {
	c, err := usable(b)
	if err != nil {
		return nil, err
	}
	d, err := b.dims()
	if err != nil {
		return nil, err
	}
	out := make([]Div, d.div)
	for i := range out {
		aff := C.isl_basic_set_get_div(b.p, C.int(i))
		if aff == nil || c.failed() {
			C.isl_aff_free(aff)
			return nil, fmt.Errorf("div %d of %s: %w", i, b, c.lastError("isl_basic_set_get_div"))
		}
		out[i], err = readDiv(c, aff, d)
		C.isl_aff_free(aff)
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// readDiv reads floor(aff) as a Div. The aff is (Expr)/Denominator with
// integer numerator coefficients.
func readDiv(c *Ctx, aff *C.isl_aff, d dims) (Div, error) {
	den, err := takeInt64(c, C.isl_aff_get_denominator_val(aff), "isl_aff_get_denominator_val")
	if err != nil {
		return Div{}, err
	}
	// The accessors return rationals (numerator/den); scale them back.
	scaled := func(p *C.isl_val) *C.isl_val {
		return C.isl_val_mul(p, C.isl_val_int_from_si(c.p, C.long(den)))
	}
	expr, err := readLinear(c, d,
		func() *C.isl_val { return scaled(C.isl_aff_get_constant_val(aff)) },
		func(t DimType, pos int) *C.isl_val {
			return scaled(C.isl_aff_get_coefficient_val(aff, affDimType(t), C.int(pos)))
		}, "isl_aff_get_coefficient_val")
	return Div{Expr: expr, Denominator: den}, err
}

// affDimType maps a set dimension type to the type an isl_aff on that set
// uses: the set dimensions of an aff's domain are its DimIn dimensions.
func affDimType(t DimType) C.enum_isl_dim_type {
	if t == DimSet {
		return DimIn.c()
	}
	return t.c()
}
