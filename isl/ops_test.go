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
	got := must(pointsOf(s))
	if !got.equal(want) {
		t.Fatalf("%s: ISL gives %d points %v, brute force %d points\nISL set: %s", what, len(got), got, len(want), s)
	}
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
	for i := range 300 {
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
	if n := must(a.CountVal()); n != int64(len(pa)) {
		t.Fatalf("CountVal(%s) = %d, brute force %d", a, n, len(pa))
	}
	checkPoints(t, "Union", must(a.Union(b)), pa.union(pb))
	checkPoints(t, "Intersect", must(a.Intersect(b)), pa.filter(func(p point) bool { return pb[p] }))
	checkPoints(t, "Subtract", must(a.Subtract(b)), pa.filter(func(p point) bool { return !pb[p] }))
	checkPoints(t, "Coalesce", must(a.Coalesce()), pa)
	checkPoints(t, "Lexmin", must(a.Lexmin()), pa.lexExtreme(false))
	checkPoints(t, "Lexmax", must(a.Lexmax()), pa.lexExtreme(true))
	for _, c := range []struct {
		name string
		got  bool
		want bool
	}{
		{"IsSubset", must(a.IsSubset(b)), pa.subsetOf(pb)},
		{"IsEqual", must(a.IsEqual(b)), pa.equal(pb)},
		{"IsDisjoint", must(a.IsDisjoint(b)), len(pa.filter(func(p point) bool { return pb[p] })) == 0},
		{"IsEmpty", must(a.IsEmpty()), len(pa) == 0},
	} {
		if c.got != c.want {
			t.Fatalf("%s(%s, %s) = %v, brute force %v", c.name, a, b, c.got, c.want)
		}
	}

	k := rng.IntN(d)
	v := rng.IntN(2*bound+1) - bound
	checkPoints(t, "FixSi", must(a.FixSi(DimSet, k, v)), pa.filter(func(p point) bool { return p[k] == int64(v) }))
	checkPoints(t, "LowerBoundSi", must(a.LowerBoundSi(DimSet, k, v)), pa.filter(func(p point) bool { return p[k] >= int64(v) }))
	checkPoints(t, "UpperBoundSi", must(a.UpperBoundSi(DimSet, k, v)), pa.filter(func(p point) bool { return p[k] <= int64(v) }))
	checkPoints(t, "ProjectOut", must(a.ProjectOut(DimSet, k, 1)), pa.mapPoints(func(p point) point {
		var q point
		copy(q[:], append(append([]int64(nil), p[:k]...), p[k+1:]...))
		return q
	}))

	checkDisjoint(t, a, pa)
	if len(pa) > 0 {
		checkExtremes(t, a, pa, d)
	}
}

// checkDisjoint checks that MakeDisjoint gives basic sets whose counts add up
// to the count of a and whose union is a.
func checkDisjoint(t *testing.T, a *Set, pa pointSet) {
	dis := must(a.MakeDisjoint())
	parts := must(dis.BasicSets())
	if n := must(dis.NBasicSet()); n != len(parts) {
		t.Fatalf("NBasicSet = %d, BasicSets gives %d", n, len(parts))
	}
	total := int64(0)
	union := pointSet{}
	for _, b := range parts {
		s := must(b.ToSet())
		total += must(s.CountVal())
		union = union.union(must(pointsOf(s)))
	}
	if total != int64(len(pa)) || !union.equal(pa) {
		t.Fatalf("MakeDisjoint(%s) = %s: counts add to %d, want %d", a, dis, total, len(pa))
	}
}

// checkExtremes checks DimMinVal, DimMaxVal and BoxHull on a non-empty set.
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
	checkPoints(t, "BoxHull", must(a.BoxHull()), box)
}

func TestMapOpsAgainstBruteForce(t *testing.T) {
	ctx := newTestCtx(t)
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 200 {
		nIn, nOut := 1+i%2, 1
		nOut2 := 1 + (i/2)%(3-nIn) // keeps nIn+nOut2 <= 3
		rr := newRandomSet(rng, nIn+nOut, nIn)
		rr2 := newRandomSet(rng, nIn+nOut, nIn)
		rt := newRandomSet(rng, nOut+nOut2, nOut)
		rs := newRandomSet(rng, nIn, 0)
		rsOut := newRandomSet(rng, nOut, 0)
		func() {
			sc := ctx.NewScope()
			defer sc.Free()
			r := must(sc.ReadMap(rr.String()))
			r2 := must(sc.ReadMap(rr2.String()))
			tm := must(sc.ReadMap(rt.String()))
			s := must(sc.ReadSet(rs.String()))
			sOut := must(sc.ReadSet(rsOut.String()))
			pr, pr2, pt, ps, psOut := rr.enumerate(), rr2.enumerate(), rt.enumerate(), rs.enumerate(), rsOut.enumerate()

			checkMap := func(what string, m *Map, want pointSet) {
				t.Helper()
				checkPoints(t, what, must(m.Wrap()), want)
			}
			checkMap("read", r, pr)
			if n := must(r.CountVal()); n != int64(len(pr)) {
				t.Fatalf("Map.CountVal(%s) = %d, brute force %d", r, n, len(pr))
			}
			image := pointSet{}
			for p := range pr {
				if x, y := split(p, nIn); ps[x] {
					image[y] = true
				}
			}
			checkPoints(t, "Apply", must(s.Apply(r)), image)
			checkMap("Reverse", must(r.Reverse()), pr.mapPoints(func(p point) point {
				x, y := split(p, nIn)
				return join(y, nOut, x)
			}))
			checkPoints(t, "Domain", must(r.Domain()), pr.mapPoints(func(p point) point { x, _ := split(p, nIn); return x }))
			checkPoints(t, "Range", must(r.Range()), pr.mapPoints(func(p point) point { _, y := split(p, nIn); return y }))
			checkMap("IntersectDomain", must(r.IntersectDomain(s)), pr.filter(func(p point) bool { x, _ := split(p, nIn); return ps[x] }))
			checkMap("IntersectRange", must(r.IntersectRange(sOut)), pr.filter(func(p point) bool { _, y := split(p, nIn); return psOut[y] }))
			checkMap("Union", must(r.Union(r2)), pr.union(pr2))
			checkMap("Intersect", must(r.Intersect(r2)), pr.filter(func(p point) bool { return pr2[p] }))
			checkMap("Subtract", must(r.Subtract(r2)), pr.filter(func(p point) bool { return !pr2[p] }))
			if got, want := must(r.IsSubset(r2)), pr.subsetOf(pr2); got != want {
				t.Fatalf("IsSubset(%s, %s) = %v, brute force %v", r, r2, got, want)
			}
			if got, want := must(r.IsEqual(r2)), pr.equal(pr2); got != want {
				t.Fatalf("IsEqual(%s, %s) = %v, brute force %v", r, r2, got, want)
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
			checkMap("ApplyRange", must(r.ApplyRange(tm)), composed)

			lexmin := map[point]point{}
			for p := range pr {
				x, y := split(p, nIn)
				if m, ok := lexmin[x]; !ok || lexLess(y, m) {
					lexmin[x] = y
				}
			}
			want := pointSet{}
			for x, y := range lexmin {
				want[join(x, nIn, y)] = true
			}
			checkMap("Lexmin", must(r.Lexmin()), want)
		}()
	}
}

// TestImageUnderFloorMap checks the image of random sets under the kind of
// map an engine builds, given as a MultiAff.
func TestImageUnderFloorMap(t *testing.T) {
	ctx := newTestCtx(t)
	sc := ctx.NewScope()
	defer sc.Free()
	ma := must(sc.ReadMultiAff("{ [v0, v1] -> [(floor((v0 + 4)*8/32)), (v1)] }"))
	m := must(ma.ToMap())
	if n := must(ma.Size()); n != 2 {
		t.Fatalf("Size = %d, want 2", n)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 50 {
		rs := newRandomSet(rng, 2, 0)
		s := must(sc.ReadSet(rs.String()))
		want := rs.enumerate().mapPoints(func(p point) point { return point{floorDiv((p[0]+4)*8, 32), p[1]} })
		img := must(s.Apply(m))
		checkPoints(t, "image", img, want)
		if n := must(img.CountVal()); n != int64(len(want)) {
			t.Fatalf("CountVal(image of %s) = %d, want %d", s, n, len(want))
		}
	}
}

func TestUnionSetAndUnionMap(t *testing.T) {
	ctx := newTestCtx(t)
	sc := ctx.NewScope()
	defer sc.Free()
	rng := rand.New(rand.NewPCG(7, 8))
	for range 50 {
		ra, rb := newRandomSet(rng, 1, 0), newRandomSet(rng, 2, 0)
		// Name the tuples so the two sets live in different spaces.
		ua := must(sc.ReadUnionSet(strings.ReplaceAll(ra.String(), "[v0", "A[v0")))
		ub := must(sc.ReadUnionSet(strings.ReplaceAll(rb.String(), "[v0", "B[v0")))
		u := must(ua.Union(ub))
		want := int64(len(ra.enumerate()) + len(rb.enumerate()))
		if n := must(u.CountVal()); n != want {
			t.Fatalf("CountVal(%s) = %d, want %d", u, n, want)
		}
		if n := must(u.CountValBig()); n.Int64() != want {
			t.Fatalf("CountValBig(%s) = %s, want %d", u, n, want)
		}
		sets := must(u.Sets())
		sum := int64(0)
		for _, s := range sets {
			sum += must(s.CountVal())
		}
		if sum != want {
			t.Fatalf("member sets of %s count %d points, want %d", u, sum, want)
		}
		if n := must(u.NSet()); n != len(sets) || len(sets) > 2 {
			t.Fatalf("NSet = %d, Sets gives %d", n, len(sets))
		}
		if d := must(u.Subtract(ub)); !must(d.IsSubset(ua)) || !must(ua.IsSubset(u)) {
			t.Fatalf("Subtract/IsSubset inconsistent on %s", u)
		}
		if i := must(u.Intersect(ua)); !must(i.IsEqual(ua)) {
			t.Fatalf("Intersect(%s, %s) = %s", u, ua, i)
		}
		shift := must(sc.ReadUnionMap("{ A[i] -> A[i + 1]; B[i, j] -> C[j] }"))
		img := must(u.Apply(shift))
		wantImg := int64(len(ra.enumerate()) + len(rb.enumerate().mapPoints(func(p point) point { return point{p[1]} })))
		if n := must(img.CountVal()); n != wantImg {
			t.Fatalf("CountVal(%s applied to %s) = %d, want %d", shift, u, n, wantImg)
		}
		restricted := must(shift.IntersectDomain(u))
		if n := must(restricted.CountVal()); n != want {
			t.Fatalf("CountVal(%s) = %d, want %d", restricted, n, want)
		}
		if !must(must(restricted.Domain()).IsEqual(u)) {
			t.Fatalf("Domain(%s) != %s", restricted, u)
		}
		if !must(must(must(restricted.Reverse()).Range()).IsEqual(u)) {
			t.Fatalf("Range(Reverse(%s)) != %s", restricted, u)
		}
		if n := must(must(restricted.ApplyRange(must(restricted.Reverse()))).NMap()); n > 2 {
			t.Fatalf("ApplyRange gives %d maps, want at most 2", n)
		}
	}
}

// TestPoints checks isl_set_foreach_point enumeration, and with it the
// constraint decoding that pointsOf relies on, against brute force.
func TestPoints(t *testing.T) {
	ctx := newTestCtx(t)
	rng := rand.New(rand.NewPCG(9, 10))
	for i := range 60 {
		rs := newRandomSet(rng, 1+i%3, 0)
		func() {
			sc := ctx.NewScope()
			defer sc.Free()
			s := must(sc.ReadSet(rs.String()))
			want := rs.enumerate()
			if got := must(islPoints(s)); !got.equal(want) {
				t.Fatalf("Points(%s) gives %d points, brute force %d", s, len(got), len(want))
			}
			if got := must(pointsOf(s)); !got.equal(want) {
				t.Fatalf("constraints of %s describe %d points, brute force %d", s, len(got), len(want))
			}
			if len(want) > 0 {
				if _, err := s.Points(len(want) - 1); !errors.Is(err, ErrTooManyPoints) {
					t.Fatalf("Points(%s, limit %d) = %v, want ErrTooManyPoints", s, len(want)-1, err)
				}
			}
		}()
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
