// Package kernel describes a GPU kernel by what the memory system sees of it:
// the fields (arrays) it touches, the index expressions of every load and
// store in terms of the global lattice coordinates x, y and z, the domain of
// lattice points, and the scalars that set occupancy and the flop limit.
//
// A kernel is read from a YAML or JSON spec with Parse or LoadFile, which
// validate every value and report errors with file, line, field, access and
// expression column. The package is pure Go: it evaluates expressions at a
// point (for enumeration and simulation) and renders them in ISL syntax for
// the polyhedral packages, but does not call ISL itself. Launch holds a
// launch configuration (block, thread folding, domain) with its grid, and
// FoldAccesses rewrites accesses into thread coordinates for folding.
//
// # Expression syntax
//
// Index expressions are quasi-affine integer expressions in x, y and z (the
// aliases tidx, tidy and tidz are accepted):
//
//	3*x + 1          integer constants, + and -, products with a constant
//	-(y - 2)         unary minus and brackets
//	floor(x / 4)     floor division by a positive constant (rounds toward −∞)
//	x % 4, x mod 4   non-negative remainder by a positive constant
//
// "*", "%" and "mod" bind tighter than "+" and "-" and associate to the left;
// unary minus binds tighter still, so -x % 4 means (-x) % 4. Division is only
// written as floor(e / c). Products of two non-constant expressions,
// division or modulo by a non-constant, zero or negative value, floating-point
// constants and unknown names are rejected with the column of the offending
// token. A name that the spec's params (or WithParams, the command line's
// -D) binds stands for its value, a constant: 4096*y + x with
// params: {N: 4096} may be written N*y + x.
//
// Expressions are kept in a canonical form (see Expr), so x+1, 1+x and (x)+1
// are equal and duplicate accesses are removed when a spec is loaded.
//
// # Spec format
//
// A spec is a mapping with the keys name (required), description, domain
// (lattice points per dimension, x first, 1 to 3 entries), flops (per lattice
// update), fp_type (4 or 8 bytes; by default 4 when no field element is wider
// than 4 bytes, else 8), registers (per thread), shared_bytes (per block),
// bounds_check (point, none or access: BoundsCheck), state and steps
// (the staged field advanced in time and the time steps per launch:
// StepWork) and fields. Each field has name, element (bytes: 1, 2, 4, 8 or 16), extent
// (defaults to the domain), offset (alignment α in elements), multiplicity,
// scalar, and the access lists load and store (each access a list of 1 to 3
// index expressions, or a single expression, or a mapping {at: [...], if:
// "..."} of an access under a condition, ParseCondition) and load_isl and
// store_isl (raw ISL maps from the lattice point [x, y, z] to an array
// index). params binds parameter names to integers for the expressions,
// conditions and raw maps. Unknown keys are errors. See the files in the repository's examples folder.
package kernel

import (
	"fmt"
	"slices"
	"strings"

	"github.com/polyvol/polyvol/intmath"
)

// Kernel is a validated kernel description. Domain and field extents are
// padded with 1 to three dimensions; accesses are padded with the constant 0.
type Kernel struct {
	Name        string
	Description string
	Domain      [3]int64 // lattice points per dimension, x fastest
	Dims        int      // number of domain entries given in the spec (1 to 3)
	Flops       float64  // floating-point operations per lattice update
	Registers   int      // registers per thread
	// RegistersStated is set where the spec states Registers (or a
	// front end's --registers does), so that they win over a compiled
	// kernel's.
	RegistersStated bool
	SharedBytes     int64       // shared memory per block in bytes
	BoundsCheck     BoundsCheck // the domain checks the kernel's code makes
	FPType          int         // 4 (single) or 8 (double precision) bytes
	// State names the staged field that the kernel advances in time, whose
	// next value its one store writes ("" for none); Steps is the time
	// steps per launch that the spec states (at least 1; more need a
	// state). See Launch.StepCount.
	State  string
	Steps  int64
	Fields []*Field
	Source string // file name the kernel was read from, for messages
}

// Field is one array the kernel accesses. Loads and stores of the same field
// are independent: they are never matched against each other.
type Field struct {
	Name         string
	Element      int64    // bytes per element
	Extent       [3]int64 // array extents used to linearise indices, x fastest
	Offset       int64    // alignment α: elements between the base address and index (0,0,0)
	Multiplicity int64    // number of identically accessed instances of the field
	Scalar       bool     // access is uniform across a warp (a scalar cache serves it where the device's scalar_loads rule says so)
	Loads        []Access // distinct load index tuples in canonical form
	Stores       []Access // distinct store index tuples in canonical form
	// Stage, when set, stages the field's loads in shared memory
	// (Staging, TileOf); nil reads them from global memory.
	Stage *Staging
}

// Access is one index tuple (e0, e1, e2) of a field, x fastest.
type Access struct {
	Index [3]Expr
	Text  string // the tuple as written in the spec, for messages
	// Guards are the conditions g ≥ 0 on the lattice point under which
	// the access happens: a spec access's "if", or the constraints a raw
	// map states (such as 0 <= x < 256). Where they do not hold on the
	// whole domain, each must bound one coordinate (GuardBox).
	Guards []Expr
}

// Defaults applied when a spec omits the key.
const (
	DefaultRegisters = 32
	DefaultFPType    = 8 // without fp_type when a field's element is wider than 4 bytes, else 4
)

// ElementIndex returns the linear element index α + e0 + e1·N0 + e2·N0·N1 of
// access a at point p (docs/guide.md, the keys of a field).
func (f *Field) ElementIndex(a Access, p Point) int64 {
	n0, n1 := f.Extent[0], f.Extent[1]
	return f.Offset + a.Index[0].Eval(p) + a.Index[1].Eval(p)*n0 + a.Index[2].Eval(p)*n0*n1
}

// ElementAt returns the linear element index α + e0 + e1·N0 + e2·N0·N1 of
// the array index e.
func (f *Field) ElementAt(e [3]int64) int64 {
	return f.Offset + e[0] + e[1]*f.Extent[0] + e[2]*f.Extent[0]*f.Extent[1]
}

// ByteAddress returns the linear byte address Element·ElementIndex(a, p).
func (f *Field) ByteAddress(a Access, p Point) int64 {
	return f.Element * f.ElementIndex(a, p)
}

// ElementIndexExpr returns the linear element index of access a as one
// expression, α + e0 + e1·N0 + e2·N0·N1, in canonical form.
func (f *Field) ElementIndexExpr(a Access) (Expr, error) {
	strides := [3]int64{1, f.Extent[0], f.Extent[0] * f.Extent[1]}
	sum := Const(f.Offset)
	for i, e := range a.Index {
		t, err := e.Scale(strides[i])
		if err == nil {
			sum, err = sum.Add(t)
		}
		if err != nil {
			return Expr{}, err
		}
	}
	return sum, nil
}

// AddressBounds returns bounds on the byte address of access a over the box
// lo ≤ p ≤ hi; ok is false if the addresses may not fit in 64 bits.
func (f *Field) AddressBounds(a Access, lo, hi Point) (minB, maxB int64, ok bool) {
	idx, err := f.ElementIndexExpr(a)
	if err == nil {
		idx, err = idx.Scale(f.Element)
	}
	if err != nil {
		return 0, 0, false
	}
	return idx.Bounds(lo, hi)
}

// Accesses returns the field's loads or stores.
func (f *Field) Accesses(store bool) []Access {
	if store {
		return f.Stores
	}
	return f.Loads
}

// Equal reports whether a and o have the same canonical index tuple.
func (a Access) Equal(o Access) bool {
	return a.Index[0].Equal(o.Index[0]) && a.Index[1].Equal(o.Index[1]) && a.Index[2].Equal(o.Index[2])
}

// String returns the canonical tuple "(e0, e1, e2)".
func (a Access) String() string {
	return "(" + a.Index[0].String() + ", " + a.Index[1].String() + ", " + a.Index[2].String() + ")"
}

// ISL returns the index tuple in ISL syntax, "[e0, e1, e2]", over x, y, z.
func (a Access) ISL() string {
	return fmt.Sprintf("[%s, %s, %s]", a.Index[0].ISL(), a.Index[1].ISL(), a.Index[2].ISL())
}

// Dedup returns the accesses with canonical duplicates removed, keeping the
// first occurrence of each tuple and guard set in order. Copies of one
// tuple under different guards stay apart: each applies where its own
// guards hold.
func Dedup(accesses []Access) []Access {
	seen := make(map[string]bool, len(accesses))
	var out []Access
	for _, a := range accesses {
		k := a.key()
		if !seen[k] {
			seen[k] = true
			out = append(out, a)
		}
	}
	return out
}

// key is the canonical tuple with the access's guards, sorted.
func (a Access) key() string {
	gs := make([]string, len(a.Guards))
	for i, g := range a.Guards {
		gs[i] = g.String()
	}
	slices.Sort(gs)
	return a.String() + " if " + strings.Join(slices.Compact(gs), ", ")
}

// ExpressionsError returns the first access of the kernel whose constraints
// on the lattice point do not hold on the whole domain, as a domain
// changed by WithDomain may make them (a *SpecError naming the file, field
// and access), or nil. Commands that evaluate accesses per lane or per
// thread need every access's guards to bound one coordinate each.
func (k *Kernel) ExpressionsError() error {
	for _, f := range k.Fields {
		for _, a := range append(slices.Clip(f.Loads), f.Stores...) {
			if _, _, err := a.Partial(k.Domain); err != nil {
				return &SpecError{File: k.Source, Msg: fmt.Sprintf("field %q access %q: %v", f.Name, a.Text, err)}
			}
		}
	}
	return nil
}

// violatedGuard returns a guard of a that does not hold at every point of
// the box 0 ≤ p ≤ last (by interval bounds, so a guard that holds may be
// reported when its bound is not tight), and whether there is one.
func violatedGuard(a Access, last Point) (Expr, bool) {
	for _, g := range a.Guards {
		if lo, _, ok := g.Bounds(Point{}, last); !ok || lo < 0 {
			return g, true
		}
	}
	return Expr{}, false
}

// Lups returns the number of lattice points D0·D1·D2 of the domain.
func (k *Kernel) Lups() int64 { return k.Domain[0] * k.Domain[1] * k.Domain[2] }

// FlopsPerThread returns F, the paper's flops per thread: the flops of one thread
// covering fold[0]·fold[1]·fold[2] lattice points.
func (k *Kernel) FlopsPerThread(fold [3]int64) float64 {
	return k.Flops * float64(fold[0]*fold[1]*fold[2])
}

// Field returns the field with the given name, or nil.
func (k *Kernel) Field(name string) *Field {
	for _, f := range k.Fields {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// WithDomain returns a copy of k on domain d. A field's extent grows with
// the domain as its accesses index it: in an array dimension whose index
// expressions are affine (x + 1, 19·x + q), by the largest coefficient of
// each domain coordinate times that coordinate's growth, so that a
// halo-padded array keeps its halo and an array of structures of 19
// components per point grows by 19 per point. A dimension indexed through
// floor or modulo terms, or by raw ISL maps only, keeps its padding: an
// extent of k's domain plus p becomes d plus p; extents smaller than k's
// domain are kept. The accesses are not checked on the new domain; AtDomain
// checks them.
func (k *Kernel) WithDomain(d [3]int64) *Kernel {
	out := *k
	out.Domain = d
	out.Fields = make([]*Field, len(k.Fields))
	for i, f := range k.Fields {
		nf := *f
		for j := range 3 {
			if grow, ok := f.extentGrowth(j, k.Domain, d); ok {
				nf.Extent[j] = max(f.Extent[j]+grow, 1)
			} else if pad := f.Extent[j] - k.Domain[j]; pad >= 0 {
				nf.Extent[j] = d[j] + pad
			}
		}
		out.Fields[i] = &nf
	}
	return &out
}

// AtDomain returns k on domain d (WithDomain) once its accesses are
// checked there: every access's constraints on the lattice point hold on
// the whole domain (ExpressionsError, a *SpecError) and its byte addresses
// fit in 64 bits (an *AddressRangeError).
func (k *Kernel) AtDomain(d [3]int64) (*Kernel, error) {
	out := k.WithDomain(d)
	if err := out.ExpressionsError(); err != nil {
		return nil, err
	}
	last := Point{d[0] - 1, d[1] - 1, d[2] - 1}
	for _, f := range out.Fields {
		for _, store := range []bool{false, true} {
			for _, a := range f.Accesses(store) {
				if _, _, ok := f.AddressBounds(a, Point{}, last); !ok {
					return nil, &AddressRangeError{Field: f.Name, Access: a.Text}
				}
			}
		}
	}
	return out, nil
}

// AddressRangeError is an access whose byte addresses over a domain may
// not fit in 64 bits.
type AddressRangeError struct {
	Field  string // the field's name
	Access string // the access as the spec writes it
}

// Error names the field and the access.
func (e *AddressRangeError) Error() string {
	return fmt.Sprintf("the byte addresses of field %q access %s do not fit in 64 bits", e.Field, e.Access)
}

// extentGrowth returns how much array dimension j of f grows when the
// domain changes from from to to: Σ_i max |c_i| · (to_i − from_i) over the
// coefficients c_i of domain coordinate i in the index expressions of
// dimension j. It is false when f has no accesses, or an
// index of dimension j is not affine.
func (f *Field) extentGrowth(j int, from, to [3]int64) (int64, bool) {
	if len(f.Loads)+len(f.Stores) == 0 {
		return 0, false
	}
	var coef [3]int64
	for _, accesses := range [][]Access{f.Loads, f.Stores} {
		for _, a := range accesses {
			if j >= len(a.Index) {
				continue
			}
			c, _, ok := a.Index[j].Linear()
			if !ok {
				return 0, false
			}
			for i := range 3 {
				coef[i] = max(coef[i], c[i], -c[i])
			}
		}
	}
	var grow int64
	for i := range 3 {
		grow += coef[i] * (to[i] - from[i])
	}
	return grow, true
}

// Period returns the per-coordinate period of the access (see Expr.Period):
// the least common multiple over its three index expressions.
func (a Access) Period() (period [3]int64, ok bool) {
	period = [3]int64{1, 1, 1}
	for _, e := range a.Index {
		p, ok := e.Period()
		if !ok {
			return period, false
		}
		for i := range 3 {
			period[i] = period[i] / intmath.GCD(period[i], p[i]) * p[i]
			if period[i] > maxPeriod {
				return period, false
			}
		}
	}
	return period, true
}

// Breakpoints returns the points p in (lo, hi) of coordinate i at which a
// floor or modulo term of the access changes its value's slope or jumps, so
// that on every interval between two consecutive breakpoints (and lo, hi)
// the access is affine in coordinate i; at most limit of them. ok is false
// when a term whose argument depends on coordinate i also depends on another
// coordinate or holds a nested term (then only residue classes modulo the
// period make the access affine, see Period), or when there are more than
// limit breakpoints.
func (a Access) Breakpoints(i int, lo, hi int64, limit int) (points []int64, ok bool) {
	for _, e := range a.Index {
		for _, t := range e.divs {
			arg := t.atom.arg
			if !arg.dependsOn(i) {
				continue
			}
			if len(arg.divs) > 0 {
				return nil, false
			}
			for j := range 3 {
				if j != i && arg.lin[j] != 0 {
					return nil, false
				}
			}
			// The term changes where c·p + k crosses a multiple of d:
			// at p = ⌈(m·d − k)/c⌉ for the multiples m·d in the range.
			c, k, d := arg.lin[i], arg.konst, t.atom.d
			first, last := intmath.FloorDiv(c*lo+k, d)+1, intmath.FloorDiv(c*(hi-1)+k, d)
			if last-first+1 > int64(limit-len(points)) {
				return nil, false
			}
			for m := first; m <= last; m++ {
				points = append(points, -intmath.FloorDiv(k-m*d, c))
			}
		}
	}
	slices.Sort(points)
	return slices.Compact(points), true
}

// OnBox returns the access as it is on the box lo ≤ p ≤ hi (see
// Expr.OnBox).
func (a Access) OnBox(lo, hi Point) (Access, error) {
	out := a
	for i, e := range a.Index {
		var err error
		if out.Index[i], err = e.OnBox(lo, hi); err != nil {
			return a, err
		}
	}
	return out, nil
}
