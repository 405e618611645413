// Package relation reads access relations in ISL notation (the raw maps of
// a spec's load_isl and store_isl keys, and of JSCoP and Kerncraft imports)
// with libisl, and turns them into the index tuples and guards of
// kernel.Access, once, when a spec is loaded. It is the one reader of ISL
// notation: the layers below it (the counters, the simulator, the CUDA
// generator) receive plain quasi-affine expressions and never see ISL.
//
// A map is read by ISL, its parameters are bound (the spec's params key, or
// -D on the command line), and it is coalesced. Each of its basic maps is
// then split by ISL into the lexicographic minimum L(p) of the elements
// that a lattice point p touches, a piecewise quasi-affine function, and
// the offsets D of the touched elements from that minimum. Where D is the
// same finite set for every point, the basic map is exactly the accesses
// L(p) + d for d in D: one access per piece of L and offset d, guarded by
// the piece's cell. The cell is first simplified against the domain (ISL's
// gist), so that only conditions that leave points of the domain out
// remain; the kernel then checks that each bounds one coordinate. A map
// whose offsets depend on the point (a range of varying width) is valid
// but unmodelled: no finite union of quasi-affine accesses stands for it,
// and the loader refuses it.
package relation

import (
	"errors"
	"fmt"
	"strings"

	"github.com/polyvol/polyvol/isl"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/supervise"
)

// MaxAccesses bounds the accesses one map may stand for.
const MaxAccesses = 1024

// maxOperations bounds the ISL operations of reading one map, so that a
// pathological map fails instead of running for long.
const maxOperations = 20_000_000

// Option is the kernel loader option that reads raw maps with Read.
func Option() kernel.Option { return kernel.WithMapReader(Read) }

// Read turns the raw access map src into the accesses it stands for (see
// the package comment). It is a kernel.MapReader. Where the program runs
// untrusted work in worker processes (supervise.EnableWorkers), ISL reads
// the map in one, under readLimits, so that no map can crash or exhaust
// the caller: a crash of libisl is a *supervise.CrashError, a limit a
// *supervise.LimitError. Otherwise it reads in this process, behind the
// lexical check of package isl alone. Each read uses an ISL context of
// its own, freed before it returns.
func Read(src string, site kernel.MapSite) ([]kernel.Access, error) {
	if !supervise.WorkersEnabled() {
		return read(src, site)
	}
	return readInWorker(src, site)
}

// read is Read in this process.
func read(src string, site kernel.MapSite) (accs []kernel.Access, err error) {
	ctx, err := isl.NewCtx(isl.WithMaxOperations(maxOperations))
	if err != nil {
		return nil, err
	}
	defer ctx.Close()
	sc := ctx.NewScope()
	defer sc.Free()
	defer func() {
		if errors.Is(err, isl.ErrQuota) {
			err = errors.New("the map is too complex for ISL (the bound on operations was reached)")
		}
	}()
	m, nout, err := readMap(sc, src, site)
	if err != nil {
		return nil, err
	}
	orthant, err := domainSet(sc, site.Dims, nil)
	if err != nil {
		return nil, err
	}
	box, err := domainSet(sc, site.Dims, site.Domain[:site.Dims])
	if err != nil {
		return nil, err
	}
	if accs, err = pieceAccesses(m, orthant, box, nout); err != nil {
		return nil, err
	}
	for i := range accs {
		accs[i].Text = src
	}
	return kernel.Dedup(accs), nil
}

// readMap reads src, binds its parameters and checks its tuples against
// site. It returns the map without tuple names and its number of outputs.
func readMap(sc *isl.Scope, src string, site kernel.MapSite) (m *isl.Map, nout int, err error) {
	m, err = sc.ReadMap(src)
	if err != nil {
		return nil, 0, fmt.Errorf("invalid ISL map: %s", message(err))
	}
	if m, err = bindParams(m, site.Params, site.Named); err != nil {
		return nil, 0, err
	}
	nin, err := m.Dim(isl.DimIn)
	if err != nil {
		return nil, 0, err
	}
	if nin != site.Dims {
		return nil, 0, fmt.Errorf("the map's input tuple has %d coordinates, the domain %d; write one input per domain dimension, { [%s] -> ... }", nin, site.Dims, strings.Join([]string{"x", "y", "z"}[:site.Dims], ", "))
	}
	if nout, err = m.Dim(isl.DimOut); err != nil {
		return nil, 0, err
	}
	if nout < 1 || nout > 3 {
		return nil, 0, fmt.Errorf("the map's output tuple has %d entries; a field index has 1 to 3", nout)
	}
	if m, err = m.ResetTupleIds(); err != nil {
		return nil, 0, err
	}
	return m, nout, nil
}

// pieceAccesses coalesces m and returns the accesses of each of its basic
// maps, read on every point with non-negative coordinates (orthant), so
// that they hold for any domain (--domain), and where ISL cannot, on the
// domain's points (box). An *UnmodelledMapError names the piece it comes
// from.
func pieceAccesses(m *isl.Map, orthant, box *isl.Set, nout int) ([]kernel.Access, error) {
	m, err := m.Coalesce()
	if err != nil {
		return nil, err
	}
	pieces, err := m.BasicMaps()
	if err != nil {
		return nil, err
	}
	var accs []kernel.Access
	for i, b := range pieces {
		got, err := accesses(b, orthant, nout)
		if err != nil {
			got, err = accesses(b, box, nout)
		}
		var um *kernel.UnmodelledMapError
		if errors.As(err, &um) {
			if len(pieces) > 1 {
				um.Reason = fmt.Sprintf("piece %d of %d: %s", i+1, len(pieces), um.Reason)
			}
		}
		if err != nil {
			return nil, err
		}
		accs = append(accs, got...)
		if len(accs) > MaxAccesses {
			return nil, &kernel.UnmodelledMapError{Reason: fmt.Sprintf("the map stands for more than %d accesses", MaxAccesses)}
		}
	}
	return accs, nil
}

// message returns ISL's own message of an ISL error, or the error text.
func message(err error) string {
	var ie *isl.Error
	if errors.As(err, &ie) && ie.Msg != "" {
		return ie.Msg
	}
	return err.Error()
}

// bindParams fixes every parameter of m to its value in params and
// projects the parameters out; it names every unbound one at once, and
// adds every name to named.
func bindParams(m *isl.Map, params map[string]int64, named map[string]bool) (*isl.Map, error) {
	n, err := m.Dim(isl.DimParam)
	if err != nil || n == 0 {
		return m, err
	}
	var unbound []string
	for pos := range n {
		name, err := m.DimName(isl.DimParam, pos)
		if err != nil {
			return nil, err
		}
		if named != nil {
			named[name] = true
		}
		v, ok := params[name]
		if !ok {
			unbound = append(unbound, name)
			continue
		}
		if m, err = m.FixSi(isl.DimParam, pos, v); err != nil {
			return nil, fmt.Errorf("parameter %s = %d: %s", name, v, message(err))
		}
	}
	if len(unbound) > 0 {
		defs := make([]string, len(unbound))
		for i, name := range unbound {
			defs[i] = name + ": ..."
		}
		return nil, fmt.Errorf("the map's parameters %s are not bound; give their values in the spec (params: {%s}) or with -D NAME=VALUE", strings.Join(unbound, ", "), strings.Join(defs, ", "))
	}
	return m.ProjectOut(isl.DimParam, 0, n)
}

// domainSet returns the lattice points { [x, y, z] : 0 <= x < hi[0], ... }
// in dims dimensions, without upper bounds when hi is nil.
func domainSet(sc *isl.Scope, dims int, hi []int64) (*isl.Set, error) {
	lo := make([]int64, dims)
	top := make([]int64, dims)
	for i := range top {
		top[i] = unboundedCoordinate
		if hi != nil {
			top[i] = hi[i] - 1
		}
	}
	return sc.BoxSet("", lo, top)
}

// unboundedCoordinate stands for no upper bound: beyond every domain (2^50
// points at most), with room to add offsets without overflow.
const unboundedCoordinate = int64(1) << 62

// accesses turns one basic map b into the accesses L(p) + d (see the
// package comment) on the lattice points of dom, or an
// *UnmodelledMapError.
func accesses(b *isl.Map, dom *isl.Set, nout int) ([]kernel.Access, error) {
	// The points where the map states an access: its guards.
	own, err := b.Domain()
	if err != nil {
		return nil, err
	}
	if b, err = b.IntersectDomain(dom); err != nil {
		return nil, err
	}
	bdom, err := b.Domain()
	if err != nil {
		return nil, err
	}
	if empty, err := bdom.IsEmpty(); err != nil || empty {
		return nil, err // no point of the domain makes this access
	}
	touched, err := b.Range()
	if err != nil {
		return nil, err
	}
	if ok, err := touched.IsBounded(); err != nil || !ok {
		return nil, errors.Join(err, &kernel.UnmodelledMapError{Reason: "a lattice point touches an unbounded range of elements"})
	}
	offsets, err := sameOffsets(b, bdom)
	if err != nil {
		return nil, err
	}
	ds, err := points(offsets, nout)
	if err != nil {
		return nil, err
	}
	pieces, err := b.LexminPieces()
	if err != nil {
		return nil, err
	}
	var out []kernel.Access
	for _, p := range pieces {
		got, err := offsetAccesses(p, ds, dom, own, nout)
		if err != nil {
			return nil, err
		}
		out = append(out, got...)
	}
	return out, nil
}

// sameOffsets returns the offsets D of the elements that a point of bdom
// touches under b from the first of them, L(p), checking that they are
// the same at every point: b is exactly L(p) + D.
func sameOffsets(b *isl.Map, bdom *isl.Set) (*isl.Set, error) {
	first, err := b.Lexmin()
	if err != nil {
		return nil, err
	}
	neg, err := first.Neg()
	if err != nil {
		return nil, err
	}
	diff, err := b.Sum(neg)
	if err != nil {
		return nil, err
	}
	offsets, err := diff.Range()
	if err != nil {
		return nil, err
	}
	if n, err := offsets.CountVal(); err != nil || n > MaxAccesses {
		return nil, errors.Join(err, &kernel.UnmodelledMapError{Reason: fmt.Sprintf("a lattice point touches more than %d elements", MaxAccesses)})
	}
	spread, err := isl.MapFromDomainAndRange(bdom, offsets)
	if err != nil {
		return nil, err
	}
	rebuilt, err := first.Sum(spread)
	if err != nil {
		return nil, err
	}
	if eq, err := rebuilt.IsEqual(b); err != nil || !eq {
		return nil, errors.Join(err, &kernel.UnmodelledMapError{Reason: "the elements a lattice point touches are not the same offsets from the first one at every point (their number or spacing varies with the point)"})
	}
	return offsets, nil
}

// offsetAccesses returns the accesses of one piece p of L: its index plus
// each offset in ds, under each guard set of its cell.
func offsetAccesses(p isl.Piece, ds [][]int64, dom, own *isl.Set, nout int) ([]kernel.Access, error) {
	idx, err := outputs(p.Outputs)
	if err != nil {
		return nil, err
	}
	guardSets, err := guards(p.Cell, dom, own)
	if err != nil {
		return nil, err
	}
	var out []kernel.Access
	for _, gs := range guardSets {
		for _, d := range ds {
			a := kernel.Access{Guards: gs}
			for j := range nout {
				if a.Index[j], err = idx[j].Add(kernel.Const(d[j])); err != nil {
					return nil, err
				}
			}
			out = append(out, a)
		}
	}
	return out, nil
}

// points returns the points of the bounded set s, in lexicographic order.
func points(s *isl.Set, n int) ([][]int64, error) {
	var out [][]int64
	for len(out) <= MaxAccesses {
		if empty, err := s.IsEmpty(); err != nil || empty {
			return out, err
		}
		p, err := s.Lexmin()
		if err != nil {
			return nil, err
		}
		pt := make([]int64, n)
		for j := range pt {
			v, err := p.DimMinVal(j)
			if err != nil {
				return nil, err
			}
			pt[j], err = v.Int64()
			v.Free()
			if err != nil {
				return nil, err
			}
		}
		out = append(out, pt)
		if s, err = s.Subtract(p); err != nil {
			return nil, err
		}
	}
	return nil, &kernel.UnmodelledMapError{Reason: fmt.Sprintf("a lattice point touches more than %d elements", MaxAccesses)}
}

// outputs converts the quasi-affine outputs of a piece into expressions.
func outputs(qs []isl.QuasiAffine) ([]kernel.Expr, error) {
	out := make([]kernel.Expr, len(qs))
	for j, q := range qs {
		num, err := numerator(q)
		if err == nil && q.Denominator != 1 {
			num, err = num.FloorDiv(q.Denominator) // exact where the piece applies
		}
		if err != nil {
			return nil, fmt.Errorf("output %d: %v", j, err)
		}
		out[j] = tidy(num)
	}
	return out, nil
}

// numerator returns Denominator·q, an expression with integer coefficients.
func numerator(q isl.QuasiAffine) (kernel.Expr, error) {
	if len(q.Var) > 3 {
		return kernel.Expr{}, fmt.Errorf("%d coordinates; a lattice point has at most 3", len(q.Var))
	}
	e := kernel.Const(q.Constant)
	add := func(t kernel.Expr, c int64) (err error) {
		e, err = addScaled(e, t, c)
		return err
	}
	for i, c := range q.Var {
		if err := add(kernel.Var(i), c); err != nil {
			return kernel.Expr{}, err
		}
	}
	for k, c := range q.Div {
		if c == 0 {
			continue
		}
		arg, err := numerator(q.Divs[k])
		if err != nil {
			return kernel.Expr{}, err
		}
		if arg, err = arg.FloorDiv(q.Divs[k].Denominator); err != nil {
			return kernel.Expr{}, err
		}
		if err := add(arg, c); err != nil {
			return kernel.Expr{}, err
		}
	}
	return e, nil
}

// guards returns, for each disjoint basic set of the cell, the conditions
// g >= 0 under which the access applies: the constraints of own, the
// points where the map states an access, and those that split the cell
// from its neighbours on the points of dom. The domain's own bounds are
// left out, so that the guards hold for any domain.
func guards(cell, dom, own *isl.Set) ([][]kernel.Expr, error) {
	context, err := dom.Intersect(own)
	if err != nil {
		return nil, err
	}
	g, err := cell.Gist(context)
	if err == nil {
		g, err = g.Intersect(own)
	}
	if err != nil {
		return nil, err
	}
	if g, err = g.MakeDisjoint(); err != nil {
		return nil, err
	}
	bsets, err := g.BasicSets()
	if err != nil {
		return nil, err
	}
	var out [][]kernel.Expr
	for _, bs := range bsets {
		cons, err := bs.QuasiConstraints()
		bs.Free()
		if err != nil {
			return nil, err
		}
		gs := []kernel.Expr{}
		for _, c := range cons {
			e, err := numerator(c.Expr)
			if err != nil {
				return nil, err
			}
			e = tidy(e)
			gs = append(gs, e)
			if c.Equality {
				neg, err := e.Scale(-1)
				if err != nil {
					return nil, err
				}
				gs = append(gs, neg)
			}
		}
		out = append(out, gs)
	}
	return out, nil
}

// tidy returns the shortest of the equal forms of e that rewriting its
// floor terms one at a time gives: ISL writes floor(x/127) as
// x - floor((126x + 126)/127) and x mod 127 as x - 127*floor(x/127). Each
// term c*floor(a/d) may become -c*floor((d - 1 - a)/d) (the same value),
// and, where d divides c, (c/d)*(a - a mod d).
func tidy(e kernel.Expr) kernel.Expr {
	for improved := true; improved; {
		improved = false
		coef, konst, divs := e.Terms()
		for i, t := range divs {
			if t.Mod {
				continue
			}
			rest, err := without(coef, konst, divs, i)
			if err != nil {
				continue
			}
			for _, form := range alternatives(t) {
				if form == nil {
					continue
				}
				cand, err := rest.Add(*form)
				if err == nil && len(cand.String()) < len(e.String()) {
					e, improved = cand, true
				}
			}
			if improved {
				break
			}
		}
	}
	return e
}

// alternatives returns the forms of the term c*floor(a/d) that tidy tries;
// nil where a form overflows or does not apply.
func alternatives(t kernel.DivTerm) [2]*kernel.Expr {
	var out [2]*kernel.Expr
	// floor(a/d) = -floor((d - 1 - a)/d)
	if neg, err := t.Arg.Scale(-1); err == nil {
		if arg, err := neg.Add(kernel.Const(t.Divisor - 1)); err == nil {
			if f, err := arg.FloorDiv(t.Divisor); err == nil {
				if form, err := f.Scale(-t.Coef); err == nil {
					out[0] = &form
				}
			}
		}
	}
	// c*floor(a/d) = (c/d)*(a - a mod d) where d divides c
	if t.Coef%t.Divisor == 0 {
		k := t.Coef / t.Divisor
		if m, err := t.Arg.Mod(t.Divisor); err == nil {
			if diff, err := t.Arg.Sub(m); err == nil {
				if form, err := diff.Scale(k); err == nil {
					out[1] = &form
				}
			}
		}
	}
	return out
}

// without returns the sum of the parts of a canonical form (Expr.Terms)
// except the division term skip.
func without(coef [3]int64, konst int64, divs []kernel.DivTerm, skip int) (kernel.Expr, error) {
	sum := kernel.Const(konst)
	add := func(e kernel.Expr, c int64) (err error) {
		sum, err = addScaled(sum, e, c)
		return err
	}
	for v, c := range coef {
		if err := add(kernel.Var(v), c); err != nil {
			return kernel.Expr{}, err
		}
	}
	for j, u := range divs {
		if j == skip {
			continue
		}
		atom, err := u.Arg.FloorDiv(u.Divisor)
		if u.Mod {
			atom, err = u.Arg.Mod(u.Divisor)
		}
		if err == nil {
			err = add(atom, u.Coef)
		}
		if err != nil {
			return kernel.Expr{}, err
		}
	}
	return sum, nil
}

// addScaled returns sum + c·e.
func addScaled(sum, e kernel.Expr, c int64) (kernel.Expr, error) {
	t, err := e.Scale(c)
	if err != nil {
		return kernel.Expr{}, err
	}
	return sum.Add(t)
}
