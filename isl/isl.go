// Package isl is a cgo binding to the Integer Set Library (libisl 0.25).
//
// It wraps the ISL types polyvol uses (sets, basic sets, maps, values,
// spaces and identifiers), and only the operations polyvol calls, with
// methods named after the ISL function they call, so that isl_set_intersect
// is (*Set).Intersect and the ISL manual documents each method. The few
// helpers that are not a single ISL function carry descriptive Go names
// instead (BoxSet, BoundingBox, Int64, LiveObjects), so that no name promises
// an ISL function that behaves differently.
//
// Errors: the context runs with on_error = continue. Every ISL call that
// fails returns a Go error carrying ISL's own message; no input can abort the
// process. A bound on ISL operations turns runaway computations into an error
// matching ErrQuota.
//
// Ownership: methods never consume their receiver or their arguments; every
// returned object is new and owned by the caller, who frees it with Free or
// through a Scope:
//
//	sc := ctx.NewScope()
//	defer sc.Free()
//	a, err := sc.ReadSet("{ [i] : 0 <= i < 10 }")
//
// An object made by an operation belongs to the scope of its receiver, so
// everything derived from a scoped object is freed with the scope. Objects
// made directly through a Ctx belong to no scope and must be freed one by
// one. LiveObjects counts the ISL objects not yet freed, which makes leaks
// testable. A cleanup registered with runtime.AddCleanup frees forgotten
// objects as a safety net only.
//
// Concurrency: a Ctx and everything made from it belong to one goroutine at a
// time. Parallel work gives each goroutine its own Ctx.
package isl

/*
#cgo LDFLAGS: -lisl
#include <stdlib.h>
#include <isl/ctx.h>
#include <isl/options.h>
#include <isl/space_type.h>

static isl_ctx *polyvol_ctx_alloc(void) {
	isl_ctx *ctx = isl_ctx_alloc();
	if (ctx)
		isl_options_set_on_error(ctx, ISL_ON_ERROR_CONTINUE);
	return ctx;
}
*/
import "C"

import (
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"
)

// ErrQuota is matched (with errors.Is) by the error of an ISL call that ran
// past the context's bound on operations.
var ErrQuota = errors.New("isl: maximum number of operations exceeded")

// ErrFreed is matched by the error of a method called on a freed or nil object.
var ErrFreed = errors.New("isl: use of a freed or nil object")

// Error is an error reported by ISL itself, with ISL's message and the
// location in the ISL sources that raised it.
type Error struct {
	Op    string // the ISL function that failed, e.g. "isl_set_union"
	Msg   string // ISL's message; empty when ISL gave none
	File  string // ISL source file that raised the error, if known
	Line  int    // line in File, if known
	quota bool
}

func (e *Error) Error() string {
	msg := e.Msg
	if msg == "" {
		msg = "failed"
	}
	if e.File != "" {
		return fmt.Sprintf("%s: %s (%s:%d)", e.Op, msg, e.File, e.Line)
	}
	return fmt.Sprintf("%s: %s", e.Op, msg)
}

// Is reports whether the error is ErrQuota.
func (e *Error) Is(target error) bool { return target == ErrQuota && e.quota }

// liveObjects counts ISL objects made by this package and not yet freed, over
// all contexts.
var liveObjects atomic.Int64

// LiveObjects returns the number of ISL objects, over all contexts, that have
// been made and not yet freed.
func LiveObjects() int64 { return liveObjects.Load() }

// leakReport, when set, receives the allocation site of every object that
// the garbage collector found unfreed (OnLeak).
var leakReport atomic.Pointer[func(site string)]

// OnLeak makes every ISL object made from now on remember where it was
// made, and calls report with that site ("file.go:123 in pkg.Func", the
// first caller outside this package) when the garbage collector finds the
// object unreachable but not freed: a leak, which the safety-net cleanup
// then frees. nil stops the reports. Recording the site costs a stack walk
// per object; tests turn it on with PanicOnLeak.
func OnLeak(report func(site string)) {
	if report == nil {
		leakReport.Store(nil)
		return
	}
	leakReport.Store(&report)
}

// PanicOnLeak makes a leak crash the program with the object's allocation
// site (OnLeak): the TestMain of every package that makes ISL objects calls
// it, so that a forgotten object fails its test binary loudly.
func PanicOnLeak() {
	OnLeak(func(site string) { panic("isl: an object made at " + site + " was never freed") })
}

// allocationSite names the first caller outside this package's own code
// (its tests count as callers).
func allocationSite() string {
	pcs := make([]uintptr, 16)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(3, pcs)])
	for {
		f, more := frames.Next()
		if !strings.HasPrefix(f.Function, "github.com/polyvol/polyvol/isl.") || strings.HasSuffix(f.File, "_test.go") {
			return fmt.Sprintf("%s:%d in %s", filepath.Base(f.File), f.Line, f.Function)
		}
		if !more {
			return "unknown site"
		}
	}
}

// Ctx is an ISL context. It and the objects made from it must be used by one
// goroutine at a time; give each goroutine of a parallel computation its own
// Ctx.
type Ctx struct {
	maker
	p    *C.isl_ctx
	live atomic.Int64

	orphanMu sync.Mutex
	orphans  []func()
	nOrphans atomic.Int32
}

// Option configures a Ctx made by NewCtx.
type Option func(*Ctx)

// WithMaxOperations bounds the number of ISL operations the context may
// perform before its calls fail with ErrQuota; 0 means no bound.
func WithMaxOperations(n uint64) Option {
	return func(c *Ctx) { C.isl_ctx_set_max_operations(c.p, C.ulong(n)) }
}

// NewCtx allocates an ISL context configured to report errors instead of
// aborting. Close it when done.
func NewCtx(opts ...Option) (*Ctx, error) {
	p := C.polyvol_ctx_alloc()
	if p == nil {
		return nil, errors.New("isl: isl_ctx_alloc failed")
	}
	c := &Ctx{p: p}
	c.maker = maker{ctx: c}
	for _, o := range opts {
		o(c)
	}
	return c, nil
}

// Close frees the context. It fails, leaving the context usable, while
// objects made from it are still live.
func (c *Ctx) Close() error {
	if c == nil || c.p == nil {
		return nil
	}
	c.freeOrphans()
	if n := c.live.Load(); n != 0 {
		return fmt.Errorf("isl: Close: %d objects of this context are still live", n)
	}
	C.isl_ctx_free(c.p)
	c.p = nil
	return nil
}

// LiveObjects returns the number of objects made from this context and not
// yet freed.
func (c *Ctx) LiveObjects() int64 { return c.live.Load() }

// ResetOperations sets the count of operations, which WithMaxOperations
// bounds, back to zero. It wraps isl_ctx_reset_operations.
func (c *Ctx) ResetOperations() { C.isl_ctx_reset_operations(c.p) }

// NewScope returns a scope whose Free frees every object made through it and
// every object derived from those.
func (c *Ctx) NewScope() *Scope {
	s := &Scope{}
	s.maker = maker{ctx: c, scope: s}
	return s
}

// lastError turns the context's pending error into a Go error and clears it.
// After a quota error it also resets the operation count, so that the
// context stays usable.
func (c *Ctx) lastError(op string) error {
	e := &Error{Op: op}
	if msg := C.isl_ctx_last_error_msg(c.p); msg != nil {
		e.Msg = C.GoString(msg)
	}
	if file := C.isl_ctx_last_error_file(c.p); file != nil {
		e.File = C.GoString(file)
		e.Line = int(C.isl_ctx_last_error_line(c.p))
	}
	if C.isl_ctx_last_error(c.p) == C.isl_error_quota {
		e.quota = true
		C.isl_ctx_reset_operations(c.p)
	}
	C.isl_ctx_reset_error(c.p)
	return e
}

// failed reports whether ISL recorded an error since the last lastError.
// Some ISL functions (isl_set_count_val under a quota, for one) record an
// error yet return a result, so every call is checked this way.
func (c *Ctx) failed() bool { return C.isl_ctx_last_error(c.p) != C.isl_error_none }

// newObject wraps the result p of the ISL function op, or turns its failure
// into an error, freeing a result that came with an error.
func newObject[P comparable, T any, PT interface {
	*T
	object
}](m maker, p P, op string, release func(P), wrap func(P) PT) (PT, error) {
	var null P
	if p == null || m.ctx.failed() {
		if p != null {
			release(p)
		}
		return nil, m.ctx.lastError(op)
	}
	obj := wrap(p)
	track(m, obj, func() { release(p) })
	return obj, nil
}

// boolResult converts an isl_bool into a Go bool or error.
func (c *Ctx) boolResult(b C.isl_bool, op string) (bool, error) {
	if b == C.isl_bool_error || c.failed() {
		return false, c.lastError(op)
	}
	return b == C.isl_bool_true, nil
}

// sizeResult converts an isl_size into a Go int or error.
func (c *Ctx) sizeResult(n C.isl_size, op string) (int, error) {
	if n < 0 || c.failed() {
		return 0, c.lastError(op)
	}
	return int(n), nil
}

// freeOrphans frees the objects whose Go wrappers were collected without
// Free. It runs on the goroutine that owns the context.
func (c *Ctx) freeOrphans() {
	if c.nOrphans.Load() == 0 {
		return
	}
	c.orphanMu.Lock()
	orphans := c.orphans
	c.orphans = nil
	c.nOrphans.Store(0)
	c.orphanMu.Unlock()
	for _, release := range orphans {
		release()
		c.live.Add(-1)
		liveObjects.Add(-1)
	}
}

// adoptOrphan is the runtime cleanup of a collected wrapper: it hands the C
// object to its context, which frees it on its own goroutine. The handover
// comes before the report, so that whoever hears of the leak finds the
// object already queued for freeing.
func adoptOrphan(o orphan) {
	o.ctx.orphanMu.Lock()
	o.ctx.orphans = append(o.ctx.orphans, o.release)
	o.ctx.nOrphans.Add(1)
	o.ctx.orphanMu.Unlock()
	if report := leakReport.Load(); report != nil && o.site != "" {
		(*report)(o.site)
	}
}

type orphan struct {
	ctx     *Ctx
	release func()
	site    string // where the object was made, when OnLeak asked for it
}

// object is implemented by every ISL object wrapper of this package.
type object interface {
	// Free frees the C object; it is idempotent and safe on nil.
	Free()
	res() *resource
}

// Scope collects the objects made through it, and those derived from them,
// so that one Free releases them all. Like its Ctx, a Scope belongs to one
// goroutine at a time.
type Scope struct {
	maker
	objs []object
}

// Free frees every live object of the scope, newest first. The scope may be
// used again afterwards.
func (s *Scope) Free() {
	if s == nil {
		return
	}
	for _, o := range slices.Backward(s.objs) {
		o.Free()
	}
	s.objs = nil
}

// maker holds where new objects go: their context and, optionally, the scope
// that frees them. Ctx and Scope embed it, which gives both the constructor
// methods (ReadSet, ValIntFromSi, ...).
type maker struct {
	ctx   *Ctx
	scope *Scope
}

// noCopy, as a field of a struct, makes go vet's copylocks check report
// every copy of that struct by value: a copied wrapper would share its C
// object with the original, and both would free it. It is a named field, not
// an embedded one, so that the wrappers do not gain Lock and Unlock methods.
type noCopy struct{}

// Lock is a no-op; it exists only for go vet's copylocks check.
func (*noCopy) Lock() {}

// Unlock is a no-op; it exists only for go vet's copylocks check.
func (*noCopy) Unlock() {}

// resource is the bookkeeping shared by all wrappers; its noCopy guard
// covers every wrapper, since each embeds a resource (Ctx holds a
// sync.Mutex, which go vet guards the same way).
type resource struct {
	noCopy  noCopy
	origin  maker
	release func() // frees the C object; nil once freed
	cleanup runtime.Cleanup
}

// track registers a freshly made wrapper: it counts it as live, attaches the
// safety-net cleanup and adds it to the scope, if any.
func track[T any, PT interface {
	*T
	object
}](m maker, obj PT, release func()) {
	c := m.ctx
	c.freeOrphans()
	r := obj.res()
	r.origin = m
	r.release = release
	c.live.Add(1)
	liveObjects.Add(1)
	o := orphan{ctx: c, release: release}
	if leakReport.Load() != nil {
		o.site = allocationSite()
	}
	r.cleanup = runtime.AddCleanup((*T)(obj), adoptOrphan, o)
	if m.scope != nil {
		m.scope.objs = append(m.scope.objs, obj)
	}
}

// free releases the C object once.
func (r *resource) free() {
	if r.release == nil {
		return
	}
	r.cleanup.Stop()
	r.release()
	r.release = nil
	r.origin.ctx.live.Add(-1)
	liveObjects.Add(-1)
}

// usable checks that every object is live and that all belong to one
// context, which it returns.
func usable(objs ...object) (*Ctx, error) {
	var c *Ctx
	for _, o := range objs {
		r := o.res()
		if r == nil || r.release == nil {
			return nil, ErrFreed
		}
		if c == nil {
			c = r.origin.ctx
		} else if r.origin.ctx != c {
			return nil, errors.New("isl: objects belong to different contexts")
		}
	}
	return c, nil
}

// goString converts a string that ISL allocated into a Go string and frees it.
func goString(p *C.char) string {
	if p == nil {
		return ""
	}
	defer C.free(unsafe.Pointer(p))
	return C.GoString(p)
}

// ready reports an error when the maker's context has been closed.
func (m maker) ready() error {
	if m.ctx == nil || m.ctx.p == nil {
		return errors.New("isl: context is closed")
	}
	return nil
}

// withCString calls f with a C copy of s.
func withCString[R any](s string, f func(*C.char) R) R {
	cs := C.CString(s)
	defer C.free(unsafe.Pointer(cs))
	return f(cs)
}

// DimType selects a kind of dimension of a space. It mirrors enum
// isl_dim_type.
type DimType int

// The kinds of dimensions. DimSet is the same as DimOut.
const (
	DimParam DimType = C.isl_dim_param
	DimIn    DimType = C.isl_dim_in
	DimOut   DimType = C.isl_dim_out
	DimSet   DimType = C.isl_dim_set
	DimDiv   DimType = C.isl_dim_div
)

func (t DimType) c() C.enum_isl_dim_type { return C.enum_isl_dim_type(t) }
