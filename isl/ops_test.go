package isl

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
)

// newTestCtx returns a context that the test checks, at its end, for leaks
// and closes.
func newTestCtx(t testing.TB, opts ...Option) *Ctx {
	t.Helper()
	ctx, err := NewCtx(opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if n := ctx.LiveObjects(); n != 0 {
			t.Errorf("%d objects leaked", n)
		}
		if err := ctx.Close(); err != nil {
			t.Error(err)
		}
	})
	return ctx
}

// must returns v, panicking (which fails the test) on an unexpected error.
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// checkPoints fails the test unless s holds exactly the points of want.
func checkPoints(t *testing.T, what string, s *Set, want pointSet) {
	t.Helper()
	if err := samePoints(s, want); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// checkMap fails the test unless m holds exactly the pairs of want, each
// pair being the domain point followed by the range point.
func checkMap(t *testing.T, what string, m *Map, want pointSet) {
	t.Helper()
	pairs, err := m.origin.ctx.ReadSet(wrapText(m.String()))
	if err != nil {
		t.Fatalf("%s: pairs of %s: %v", what, m, err)
	}
	defer pairs.Free()
	checkPoints(t, what, pairs, want)
}

// dropCoordinate returns p without coordinate k.
func dropCoordinate(p point, k int) point {
	var q point
	copy(q[:], append(append([]int64(nil), p[:k]...), p[k+1:]...))
	return q
}

// split returns the first nIn coordinates of p and the rest, shifted down.
func split(p point, nIn int) (point, point) {
	var a, b point
	copy(a[:nIn], p[:nIn])
	copy(b[:], p[nIn:])
	return a, b
}

// join concatenates the first na coordinates of a with b.
func join(a point, na int, b point) point {
	var p point
	copy(p[:na], a[:na])
	copy(p[na:], b[:])
	return p
}

func TestSetOpsAgainstBruteForce(t *testing.T) {
	ctx := newTestCtx(t)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 200 {
		d := 1 + i%3
		ra, rb := newRandomSet(rng, d, 0), newRandomSet(rng, d, 0)
		func() {
			sc := ctx.NewScope()
			defer sc.Free()
			a := must(sc.ReadSet(ra.String()))
			b := must(sc.ReadSet(rb.String()))
			pa, pb := ra.enumerate(), rb.enumerate()
			checkSetOps(t, a, b, pa, pb, d, rng)
		}()
	}
}

func checkSetOps(t *testing.T, a, b *Set, pa, pb pointSet, d int, rng *rand.Rand) {
	checkPoints(t, "read", a, pa)
	checkPoints(t, "Intersect", must(a.Intersect(b)), pa.filter(func(p point) bool { return pb[p] }))
	checkPoints(t, "Subtract", must(a.Subtract(b)), pa.filter(func(p point) bool { return !pb[p] }))
	again := must(a.origin.ReadSet(a.String()))
	for _, c := range []struct {
		name string
		got  bool
		want bool
	}{
		{"IsSubset", must(a.IsSubset(b)), pa.subsetOf(pb)},
		{"IsSubset of a union", must(a.IsSubset(must(a.origin.ReadSet(unionText(a, b))))), true},
		{"IsEqual", must(a.IsEqual(b)), pa.equal(pb)},
		{"IsEqual to its own text", must(a.IsEqual(again)), true},
		{"IsEmpty", must(a.IsEmpty()), len(pa) == 0},
	} {
		if c.got != c.want {
			t.Fatalf("%s(%s, %s) = %v, brute force %v", c.name, a, b, c.got, c.want)
		}
	}
	if n := must(a.Dim(DimSet)); n != d {
		t.Fatalf("Dim(%s) = %d, want %d", a, n, d)
	}

	k := rng.IntN(d)
	v := int64(rng.IntN(2*bound+1) - bound)
	checkPoints(t, "FixVal", must(a.FixVal(DimSet, k, must(a.origin.ValIntFromSi(v)))), pa.filter(func(p point) bool { return p[k] == v }))
	checkPoints(t, "ProjectOut", must(a.ProjectOut(DimSet, k, 1)), pa.mapPoints(func(p point) point { return dropCoordinate(p, k) }))

	checkDisjoint(t, a, pa, d)
	if len(pa) > 0 {
		checkExtremes(t, a, pa, d)
	}
}

// unionText returns the ISL text of the union of two sets of one space.
func unionText(a, b *Set) string {
	return strings.TrimSuffix(a.String(), "}") + "; " + strings.TrimPrefix(b.String(), "{")
}

// checkDisjoint checks that MakeDisjoint gives basic sets of a's dimension,
// subsets of a, pairwise disjoint, whose counts add up to the count of a (so
// that their union is a), and that Constraints describes, by brute force in
// Go, every such basic set without local variables.
func checkDisjoint(t *testing.T, a *Set, pa pointSet, d int) {
	dis := must(a.MakeDisjoint())
	parts := must(dis.BasicSets())
	var sets []*Set
	total := int64(0)
	for _, b := range parts {
		s := must(b.ToSet())
		if !must(s.IsSubset(a)) || must(b.Dim(DimSet)) != d {
			t.Fatalf("MakeDisjoint(%s) has the piece %s, not a %d-dimensional subset", a, s, d)
		}
		for _, other := range sets {
			if !must(must(s.Intersect(other)).IsEmpty()) {
				t.Fatalf("MakeDisjoint(%s): pieces %s and %s overlap", a, s, other)
			}
		}
		sets = append(sets, s)
		total += must(s.CountVal())
		if must(b.Dim(DimDiv)) == 0 {
			checkPoints(t, "Constraints", s, decodeInUniverse(must(b.Constraints()), d))
		}
	}
	if total != int64(len(pa)) {
		t.Fatalf("MakeDisjoint(%s) = %s: counts add to %d, want %d", a, dis, total, len(pa))
	}
}

// checkExtremes checks DimMinVal, DimMaxVal and BoundingBox on a non-empty
// set.
func checkExtremes(t *testing.T, a *Set, pa pointSet, d int) {
	lo, hi := point{}, point{}
	first := true
	for p := range pa {
		for i := range d {
			if first || p[i] < lo[i] {
				lo[i] = p[i]
			}
			if first || p[i] > hi[i] {
				hi[i] = p[i]
			}
		}
		first = false
	}
	for i := range d {
		minV := must(a.DimMinVal(i))
		maxV := must(a.DimMaxVal(i))
		if must(minV.Int64()) != lo[i] || must(maxV.Int64()) != hi[i] {
			t.Fatalf("dim %d of %s: min/max %s/%s, brute force %d/%d", i, a, minV, maxV, lo[i], hi[i])
		}
	}
	box := pointSet{}
	universe(d, func(p point) {
		for i := range d {
			if p[i] < lo[i] || p[i] > hi[i] {
				return
			}
		}
		box[p] = true
	})
	checkPoints(t, "BoundingBox", must(a.BoundingBox()), box)
}

func TestMapOpsAgainstBruteForce(t *testing.T) {
	ctx := newTestCtx(t)
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 120 {
		nIn, nOut := 1+i%2, 1
		nOut2 := 1 + (i/2)%(3-nIn) // keeps nIn+nOut2 <= 3
		rr := newRandomSet(rng, nIn+nOut, nIn)
		rr2 := newRandomSet(rng, nIn+nOut, nIn)
		rt := newRandomSet(rng, nOut+nOut2, nOut)
		rs := newRandomSet(rng, nIn, 0)
		func() {
			sc := ctx.NewScope()
			defer sc.Free()
			r := must(sc.ReadMap(rr.String()))
			r2 := must(sc.ReadMap(rr2.String()))
			tm := must(sc.ReadMap(rt.String()))
			s := must(sc.ReadSet(rs.String()))
			pr, pr2, pt, ps := rr.enumerate(), rr2.enumerate(), rt.enumerate(), rs.enumerate()

			checkMap(t, "read", r, pr)
			if n, m := must(r.Dim(DimIn)), must(r.Dim(DimOut)); n != nIn || m != nOut {
				t.Fatalf("Dim(%s) = %d -> %d, want %d -> %d", r, n, m, nIn, nOut)
			}
			checkPoints(t, "Domain", must(r.Domain()), pr.mapPoints(func(p point) point { x, _ := split(p, nIn); return x }))
			checkPoints(t, "Range", must(r.Range()), pr.mapPoints(func(p point) point { _, y := split(p, nIn); return y }))
			checkMap(t, "IntersectDomain", must(r.IntersectDomain(s)), pr.filter(func(p point) bool { x, _ := split(p, nIn); return ps[x] }))
			checkMap(t, "Union", must(r.Union(r2)), pr.union(pr2))
			checkMap(t, "Coalesce", must(r.Coalesce()), pr)
			checkMap(t, "ProjectOut", must(r.ProjectOut(DimIn, 0, 1)), pr.mapPoints(func(p point) point { return dropCoordinate(p, 0) }))
			if got, want := must(r.IsEqual(r2)), pr.equal(pr2); got != want {
				t.Fatalf("IsEqual(%s, %s) = %v, brute force %v", r, r2, got, want)
			}
			if !must(r.IsEqual(must(sc.ReadMap(r.String())))) {
				t.Fatalf("%s is not equal to the map its text gives", r)
			}

			composed := pointSet{}
			for p := range pr {
				x, y := split(p, nIn)
				for q := range pt {
					if y2, z := split(q, nOut); y2 == y {
						composed[join(x, nIn, z)] = true
					}
				}
			}
			checkMap(t, "ApplyRange", must(r.ApplyRange(tm)), composed)
		}()
	}
}

// TestImageUnderFloorMap checks the image of random sets under the kind of
// map an engine builds, taken as the range of the map restricted to the set.
func TestImageUnderFloorMap(t *testing.T) {
	ctx := newTestCtx(t)
	sc := ctx.NewScope()
	defer sc.Free()
	m := must(sc.ReadMap("{ [v0, v1] -> [floor((v0 + 4)*8/32), v1] }"))
	rng := rand.New(rand.NewPCG(5, 6))
	for range 50 {
		rs := newRandomSet(rng, 2, 0)
		s := must(sc.ReadSet(rs.String()))
		want := rs.enumerate().mapPoints(func(p point) point { return point{floorDiv((p[0]+4)*8, 32), p[1]} })
		checkPoints(t, "image", must(must(m.IntersectDomain(s)).Range()), want)
	}
}

func TestBoxSet(t *testing.T) {
	ctx := newTestCtx(t)
	sc := ctx.NewScope()
	defer sc.Free()
	box := must(sc.BoxSet("T", []int64{0, -5, 7}, []int64{63999, 51199, 518}))
	parsed := must(sc.ReadSet("{ T[a, b, c] : 0 <= a <= 63999 and -5 <= b <= 51199 and 7 <= c <= 518 }"))
	if !must(box.IsEqual(parsed)) {
		t.Errorf("BoxSet = %s, want %s", box, parsed)
	}
	small := must(sc.BoxSet("", []int64{-2, 3}, []int64{4, 5}))
	if n := must(small.CountVal()); n != 7*3 {
		t.Errorf("CountVal(%s) = %d, want 21", small, n)
	}
	if _, err := sc.BoxSet("T", []int64{0}, []int64{1, 2}); err == nil {
		t.Error("BoxSet with bounds of different lengths succeeded")
	}
}

// TestTupleNamesAndDimensions checks Space, TupleId, Name and Dim on sets and
// maps whose names and dimensions are read off their text.
func TestTupleNamesAndDimensions(t *testing.T) {
	ctx := newTestCtx(t)
	sc := ctx.NewScope()
	defer sc.Free()
	set := must(sc.ReadSet("[n, m] -> { In[i, j, k] : 0 <= i, j, k < n + m }"))
	m := must(sc.ReadMap("[n] -> { S[i, j] -> A[i + j] : 0 <= i, j < n }"))
	setSpace, mapSpace := must(set.Space()), must(m.Space())
	for _, c := range []struct {
		space *Space
		typ   DimType
		want  string
	}{{setSpace, DimSet, "In"}, {mapSpace, DimIn, "S"}, {mapSpace, DimOut, "A"}} {
		id := must(c.space.TupleId(c.typ))
		if got := id.Name(); got != c.want {
			t.Errorf("tuple %d is named %q, want %q", c.typ, got, c.want)
		}
		id.Free()
		if got := id.Name(); got != "" {
			t.Errorf("Name of a freed identifier = %q", got)
		}
	}
	for _, c := range []struct {
		what      string
		got, want int
	}{
		{"set params", must(set.Dim(DimParam)), 2}, {"set dims", must(set.Dim(DimSet)), 3},
		{"map params", must(m.Dim(DimParam)), 1}, {"map in", must(m.Dim(DimIn)), 2}, {"map out", must(m.Dim(DimOut)), 1},
	} {
		if c.got != c.want {
			t.Errorf("%s: Dim = %d, want %d", c.what, c.got, c.want)
		}
	}
	unnamed := must(must(sc.ReadSet("{ [i] : 0 <= i < 4 }")).Space())
	var islErr *Error
	if _, err := unnamed.TupleId(DimSet); !errors.As(err, &islErr) || islErr.Op != "isl_space_get_tuple_id" {
		t.Errorf("TupleId of an unnamed tuple = %v, want an *Error from isl_space_get_tuple_id", err)
	}
	setSpace.Free()
	if _, err := setSpace.TupleId(DimSet); !errors.Is(err, ErrFreed) {
		t.Errorf("TupleId of a freed space = %v, want ErrFreed", err)
	}
}
