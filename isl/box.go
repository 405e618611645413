package isl

/*
#include <stdlib.h>
#include <isl/space.h>
#include <isl/set.h>
#include <isl/val.h>

// polyvol_box_set builds { name[i_0, ..., i_{n-1}] : lo_k <= i_k <= hi_k }
// without going through ISL's parser.
static isl_set *polyvol_box_set(isl_ctx *ctx, const char *name, int n, const long *lo, const long *hi) {
	isl_space *sp = isl_space_set_alloc(ctx, 0, n);
	if (name && name[0])
		sp = isl_space_set_tuple_name(sp, isl_dim_set, name);
	isl_set *s = isl_set_universe(sp);
	for (int k = 0; k < n; k++) {
		s = isl_set_lower_bound_val(s, isl_dim_set, k, isl_val_int_from_si(ctx, lo[k]));
		s = isl_set_upper_bound_val(s, isl_dim_set, k, isl_val_int_from_si(ctx, hi[k]));
	}
	return s;
}
*/
import "C"

import (
	"errors"
	"unsafe"
)

// BoxSet returns the set { name[i_0, ...] : lo[k] <= i_k <= hi[k] } with
// inclusive bounds. It builds the set through the API (isl_space_set_alloc,
// isl_set_universe, isl_set_lower_bound_val, isl_set_upper_bound_val), which
// is much faster than parsing its text.
func (m maker) BoxSet(name string, lo, hi []int64) (*Set, error) {
	if err := m.ready(); err != nil {
		return nil, err
	}
	if len(lo) != len(hi) || len(lo) == 0 {
		return nil, errors.New("isl: BoxSet needs equally long, non-empty bounds")
	}
	clo := make([]C.long, len(lo))
	chi := make([]C.long, len(hi))
	for i := range lo {
		clo[i], chi[i] = C.long(lo[i]), C.long(hi[i])
	}
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	p := C.polyvol_box_set(m.ctx.p, cname, C.int(len(lo)), &clo[0], &chi[0])
	return m.newSet(p, "isl_set_universe")
}
