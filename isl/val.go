package isl

/*
#include <stdlib.h>
#include <isl/val.h>
*/
import "C"

import (
	"errors"
	"fmt"
	"math/big"
	"unsafe"
)

// ErrOverflow is matched by the error of a conversion whose value does not
// fit in a Go int64.
var ErrOverflow = errors.New("isl: value does not fit in int64")

// Val is an ISL value: a rational number, infinity or NaN.
type Val struct {
	resource
	p *C.isl_val
}

func (m maker) newVal(p *C.isl_val, op string) (*Val, error) {
	return newObject(m, p, op, func(p *C.isl_val) { C.isl_val_free(p) }, func(p *C.isl_val) *Val { return &Val{p: p} })
}

func (v *Val) res() *resource {
	if v == nil {
		return nil
	}
	return &v.resource
}

// Free frees the value; it is idempotent and safe on nil.
func (v *Val) Free() {
	if v != nil {
		v.free()
	}
}

// ValIntFromSi returns the integer value i. It wraps isl_val_int_from_si.
func (m maker) ValIntFromSi(i int64) (*Val, error) {
	if err := m.ready(); err != nil {
		return nil, err
	}
	return m.newVal(C.isl_val_int_from_si(m.ctx.p, C.long(i)), "isl_val_int_from_si")
}

// String returns ISL's text form of the value, or "<freed>". It wraps
// isl_val_to_str.
func (v *Val) String() string {
	if _, err := usable(v); err != nil {
		return "<freed>"
	}
	return goString(C.isl_val_to_str(v.p))
}

// isInt reports whether the value is an integer. It wraps isl_val_is_int.
func (v *Val) isInt() (bool, error) {
	c, err := usable(v)
	if err != nil {
		return false, err
	}
	return c.boolResult(C.isl_val_is_int(v.p), "isl_val_is_int")
}

// IsInfty reports whether the value is positive infinity. It wraps
// isl_val_is_infty.
func (v *Val) IsInfty() (bool, error) {
	c, err := usable(v)
	if err != nil {
		return false, err
	}
	return c.boolResult(C.isl_val_is_infty(v.p), "isl_val_is_infty")
}

// IsNegInfty reports whether the value is negative infinity. It wraps
// isl_val_is_neginfty.
func (v *Val) IsNegInfty() (bool, error) {
	c, err := usable(v)
	if err != nil {
		return false, err
	}
	return c.boolResult(C.isl_val_is_neginfty(v.p), "isl_val_is_neginfty")
}

// bigInt returns the value as a big integer; it fails unless the value is an
// integer. It reads the value with isl_val_get_abs_num_chunks.
func (v *Val) bigInt() (*big.Int, error) {
	c, err := usable(v)
	if err != nil {
		return nil, err
	}
	isInt, err := v.isInt()
	if err != nil {
		return nil, err
	}
	if !isInt {
		return nil, fmt.Errorf("isl: value %s is not an integer", v)
	}
	n, err := c.sizeResult(C.isl_val_n_abs_num_chunks(v.p, 8), "isl_val_n_abs_num_chunks")
	if err != nil {
		return nil, err
	}
	chunks := make([]uint64, max(n, 1))
	if C.isl_val_get_abs_num_chunks(v.p, 8, unsafe.Pointer(&chunks[0])) < 0 || c.failed() {
		return nil, c.lastError("isl_val_get_abs_num_chunks")
	}
	z := new(big.Int)
	for i := n - 1; i >= 0; i-- {
		z.Lsh(z, 64)
		z.Or(z, new(big.Int).SetUint64(chunks[i]))
	}
	if C.isl_val_sgn(v.p) < 0 {
		z.Neg(z)
	}
	return z, nil
}

// Int64 returns the value as an int64; it fails unless the value is an
// integer, and matches ErrOverflow when the integer does not fit.
func (v *Val) Int64() (int64, error) {
	z, err := v.bigInt()
	if err != nil {
		return 0, err
	}
	if !z.IsInt64() {
		return 0, fmt.Errorf("%w: %s", ErrOverflow, z)
	}
	return z.Int64(), nil
}
