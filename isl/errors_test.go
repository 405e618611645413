package isl

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
)

func TestGarbageInputIsAnError(t *testing.T) {
	ctx := newTestCtx(t)
	garbage := []string{
		"", "{", "}", "{ [i] : }", "{ [i] : 0 <= i < }", "{ [i] -> }", "[[[[", "{ [i] : i mod 0 = 1 }",
		"{ [i] : floor(i/0) = 1 }", "{ [i] : exists (e : ) }", "\x00\xff", "{ [i] : i = 1/0 }",
		"{ A[i] ; B[ }", "[n] -> { [i] : i < n", "{ [i, i] : i > 0 }", "{ [i] : 99999999999999999999999999999 < i }x",
	}
	for _, g := range garbage {
		if s, err := ctx.ReadSet(g); err == nil {
			// ISL accepts a few odd inputs; they must still be usable sets.
			_ = s.String()
			s.Free()
		}
		if m, err := ctx.ReadMap(g); err == nil {
			m.Free()
		}
	}
	for _, g := range []string{"{", "{ [i] : 0 <= i < }", "[[[["} {
		_, err := ctx.ReadSet(g)
		var islErr *Error
		if !errors.As(err, &islErr) || islErr.Op != "isl_set_read_from_str" || islErr.Msg == "" {
			t.Errorf("ReadSet(%q) = %v, want an *Error from isl_set_read_from_str with ISL's message", g, err)
			continue
		}
		want := fmt.Sprintf("isl_set_read_from_str: %s (%s:%d)", islErr.Msg, islErr.File, islErr.Line)
		if islErr.File == "" || err.Error() != want {
			t.Errorf("ReadSet(%q) error text %q, want %q", g, err, want)
		}
	}
	// The context still works after the errors.
	s := must(ctx.ReadSet("{ [i] : 0 <= i < 5 }"))
	defer s.Free()
	if n := must(s.CountVal()); n != 5 {
		t.Errorf("CountVal = %d after errors, want 5", n)
	}
}

// TestErrorText checks the text of errors on hand-made values: without a
// message or a source location ISL's own fields are left out.
func TestErrorText(t *testing.T) {
	for _, c := range []struct {
		err  *Error
		want string
	}{
		{&Error{Op: "isl_set_union"}, "isl_set_union: failed"},
		{&Error{Op: "isl_set_union", Msg: "spaces don't match"}, "isl_set_union: spaces don't match"},
		{&Error{Op: "isl_set_union", Msg: "m", File: "isl_map.c", Line: 7}, "isl_set_union: m (isl_map.c:7)"},
	} {
		if got := c.err.Error(); got != c.want {
			t.Errorf("Error() = %q, want %q", got, c.want)
		}
	}
}

func TestSpaceMismatchIsAnError(t *testing.T) {
	ctx := newTestCtx(t)
	sc := ctx.NewScope()
	defer sc.Free()
	a := must(sc.ReadSet("{ [i] : 0 <= i < 4 }"))
	b := must(sc.ReadSet("{ [i, j] : 0 <= i, j < 4 }"))
	m := must(sc.ReadMap("{ [i, j] -> [i] }"))
	for name, op := range map[string]func() error{
		"Intersect": func() error { _, err := a.Intersect(b); return err },
		"Subtract":  func() error { _, err := a.Subtract(b); return err },
		"FixVal":    func() error { _, err := a.FixVal(DimSet, 3, must(sc.ValIntFromSi(0))); return err },
		"IntersectDomain": func() error {
			_, err := m.IntersectDomain(a)
			return err
		},
		"ProjectOut": func() error {
			_, err := a.ProjectOut(DimSet, 0, 2)
			return err
		},
	} {
		var islErr *Error
		if err := op(); !errors.As(err, &islErr) {
			t.Errorf("%s on mismatched spaces: %v, want an *Error", name, err)
		}
	}
	if _, err := a.Intersect(b); err == nil || ctx.failed() {
		t.Errorf("error state not reset after a failure")
	}
}

// TestIntegerConversions checks Int64 at and beyond the int64 range, on
// counts and extremes whose values are known by hand.
func TestIntegerConversions(t *testing.T) {
	ctx := newTestCtx(t)
	sc := ctx.NewScope()
	defer sc.Free()
	huge := must(sc.ReadSet("{ [i] : 0 <= i < 1024 * 2^60 }"))
	if _, err := huge.CountVal(); !errors.Is(err, ErrOverflow) {
		t.Errorf("CountVal of 2^70 points (a product: powers beyond 2^63 are refused on reading) = %v, want ErrOverflow", err)
	}
	for _, c := range []struct {
		set      string
		min, max int64
	}{
		{"{ [i] : -9223372036854775808 <= i <= 9223372036854775807 }", math.MinInt64, math.MaxInt64},
		{"{ [i] : -4611686018427387909 <= i <= -3 }", -4611686018427387909, -3},
		{"{ [i] : i = 0 }", 0, 0},
	} {
		s := must(sc.ReadSet(c.set))
		if lo, hi := must(must(s.DimMinVal(0)).Int64()), must(must(s.DimMaxVal(0)).Int64()); lo != c.min || hi != c.max {
			t.Errorf("extremes of %s = %d, %d; want %d, %d", s, lo, hi, c.min, c.max)
		}
	}
	// Literals beyond 2^63 are refused on reading; products reach past it.
	beyond := must(sc.ReadSet("{ [i] : -128*9223372036854775807 <= i <= 9223372036854775808 }"))
	for _, v := range []*Val{must(beyond.DimMinVal(0)), must(beyond.DimMaxVal(0))} {
		if _, err := v.Int64(); !errors.Is(err, ErrOverflow) {
			t.Errorf("Int64(%s) = %v, want ErrOverflow", v, err)
		}
	}
	for _, i := range []int64{0, 1, -1, 12345, math.MinInt64, math.MaxInt64} {
		v := must(sc.ValIntFromSi(i))
		if got := must(v.Int64()); got != i || v.String() != strconv.FormatInt(i, 10) {
			t.Errorf("ValIntFromSi(%d) = %s, Int64 %d", i, v, got)
		}
		if must(v.IsInfty()) || must(v.IsNegInfty()) {
			t.Errorf("ValIntFromSi(%d) is infinite", i)
		}
	}
}

// TestInfiniteExtremes checks the extremes of unbounded and empty sets: ISL
// gives infinities and NaN, which are no integers.
func TestInfiniteExtremes(t *testing.T) {
	ctx := newTestCtx(t)
	sc := ctx.NewScope()
	defer sc.Free()
	half := must(sc.ReadSet("{ [i, j] : i >= 3 and j <= -2 }"))
	for _, c := range []struct {
		v           *Val
		text        string
		infty, ninf bool
	}{
		{must(half.DimMinVal(0)), "3", false, false},
		{must(half.DimMaxVal(0)), "infty", true, false},
		{must(half.DimMinVal(1)), "-infty", false, true},
		{must(half.DimMaxVal(1)), "-2", false, false},
		{must(must(sc.ReadSet("{ [i] : 1 = 0 }")).DimMinVal(0)), "NaN", false, false},
	} {
		if c.v.String() != c.text || must(c.v.IsInfty()) != c.infty || must(c.v.IsNegInfty()) != c.ninf {
			t.Errorf("%s: IsInfty %v, IsNegInfty %v; want %s", c.v, must(c.v.IsInfty()), must(c.v.IsNegInfty()), c.text)
		}
		if _, err := c.v.Int64(); (err == nil) != (!c.infty && !c.ninf && c.text != "NaN") {
			t.Errorf("Int64(%s) error = %v", c.v, err)
		}
	}
	if _, err := half.BoundingBox(); err == nil {
		t.Errorf("BoundingBox of the unbounded %s succeeded", half)
	}
}

func TestQuotaStopsCountingAndCtxStaysUsable(t *testing.T) {
	ctx := newTestCtx(t, WithMaxOperations(10000))
	s := must(ctx.ReadSet("{ [i, j, k] : 0 <= i, j, k < 300 and (i + 2j + 3k) mod 7 = 3 and i + j <= k + 100 }"))
	defer s.Free()
	// isl_set_count_val returns a truncated count when it hits the quota;
	// the binding must report the error instead.
	if n, err := s.CountVal(); !errors.Is(err, ErrQuota) {
		t.Fatalf("CountVal under a quota of 10000 operations = %d, %v; want ErrQuota", n, err)
	}
	small := must(ctx.ReadSet("{ [i] : 0 <= i < 10 }"))
	defer small.Free()
	if n := must(small.CountVal()); n != 10 {
		t.Errorf("CountVal after a quota error = %d, want 10", n)
	}
	unbounded := newTestCtx(t)
	big := must(unbounded.ReadSet(s.String()))
	defer big.Free()
	if n := must(big.CountVal()); n != 1461672 {
		t.Errorf("CountVal without quota = %d, want 1461672", n)
	}
}

// TestResetOperations checks that the operations of successive calls add up
// against the bound until ResetOperations sets the count back to zero.
func TestResetOperations(t *testing.T) {
	// One count (about 2000 operations) fits in the bound; a thousand do not.
	ctx := newTestCtx(t, WithMaxOperations(10000))
	s := must(ctx.ReadSet("{ [i, j] : 0 <= i, j < 50 and (i + 3j) mod 5 = 2 }"))
	defer s.Free()
	if n := must(s.CountVal()); n != 500 {
		t.Fatalf("CountVal(%s) = %d, want 500", s, n)
	}
	var err error
	for range 1000 {
		if _, err = s.CountVal(); err != nil {
			break
		}
	}
	if !errors.Is(err, ErrQuota) {
		t.Fatalf("1000 counts without ResetOperations: %v, want ErrQuota", err)
	}
	for range 1000 {
		ctx.ResetOperations()
		if _, err := s.CountVal(); err != nil {
			t.Fatalf("count after ResetOperations: %v", err)
		}
	}
}

func TestFreedAndForeignObjects(t *testing.T) {
	ctx := newTestCtx(t)
	other := newTestCtx(t)
	a := must(ctx.ReadSet("{ [i] : 0 <= i < 4 }"))
	b := must(other.ReadSet("{ [i] : 0 <= i < 4 }"))
	if _, err := a.Intersect(b); err == nil {
		t.Error("Intersect of sets from different contexts succeeded")
	}
	b.Free()
	b.Free() // idempotent
	var nilSet *Set
	nilSet.Free()
	if _, err := a.Intersect(b); !errors.Is(err, ErrFreed) {
		t.Errorf("Intersect with a freed set = %v, want ErrFreed", err)
	}
	if _, err := nilSet.CountVal(); !errors.Is(err, ErrFreed) {
		t.Errorf("CountVal on nil = %v, want ErrFreed", err)
	}
	if got := b.String(); got != "<freed>" {
		t.Errorf("String of freed set = %q", got)
	}
	if err := ctx.Close(); err == nil {
		t.Fatal("Close with a live object succeeded")
	}
	if n := must(a.CountVal()); n != 4 {
		t.Errorf("CountVal after refused Close = %d, want 4", n)
	}
	a.Free()
}

func TestNoLeaksOverManyCycles(t *testing.T) {
	before := LiveObjects()
	ctx, err := NewCtx()
	if err != nil {
		t.Fatal(err)
	}
	for i := range 10000 {
		if i%2 == 0 {
			sc := ctx.NewScope()
			a := must(sc.ReadSet("{ [i, j] : 0 <= i < 10 and 0 <= j <= i }"))
			b := must(a.FixVal(DimSet, 0, must(sc.ValIntFromSi(int64(i%10)))))
			if n := must(must(a.Subtract(b)).CountVal()); n != 55-int64(i%10+1) {
				t.Fatalf("count = %d", n)
			}
			sc.Free()
			continue
		}
		a := must(ctx.ReadSet("{ [i] : 0 <= i < 10 }"))
		m := must(ctx.ReadMap("{ [i] -> [floor(i/3)] }"))
		restricted := must(m.IntersectDomain(a))
		img := must(restricted.Range())
		if n := must(img.CountVal()); n != 4 {
			t.Fatalf("count = %d", n)
		}
		img.Free()
		restricted.Free()
		m.Free()
		a.Free()
	}
	if n := ctx.LiveObjects(); n != 0 {
		t.Errorf("ctx.LiveObjects = %d after the cycles, want 0", n)
	}
	if err := ctx.Close(); err != nil {
		t.Error(err)
	}
	if n := LiveObjects() - before; n != 0 {
		t.Errorf("LiveObjects grew by %d", n)
	}
}

// TestWrappersCarryNoCopy checks that every wrapper of a C object holds the
// noCopy guard, through which go vet reports a wrapper copied by value.
func TestWrappersCarryNoCopy(t *testing.T) {
	guard := reflect.TypeFor[noCopy]()
	for _, w := range []any{Set{}, Map{}, BasicSet{}, Space{}, Id{}, Val{}} {
		typ := reflect.TypeOf(w)
		f, ok := typ.FieldByName("noCopy")
		if !ok || f.Type != guard {
			t.Errorf("%s has no noCopy guard", typ)
		}
	}
}

// The guard must be a sync.Locker for go vet's copylocks check to see it.
var _ sync.Locker = (*noCopy)(nil)

func TestCleanupFreesForgottenObjects(t *testing.T) {
	OnLeak(nil) // these leaks are on purpose
	defer PanicOnLeak()
	ctx := newTestCtx(t)
	for range 100 {
		_ = must(ctx.ReadSet("{ [i] : 0 <= i < 8 }"))
	}
	for i := 0; i < 100 && ctx.LiveObjects() > 0; i++ {
		runtime.GC()
		ctx.freeOrphans()
	}
	if n := ctx.LiveObjects(); n != 0 {
		t.Errorf("%d forgotten objects still live after GC", n)
	}
}

func TestContextsInParallel(t *testing.T) {
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for w := range errs {
		wg.Go(func() {
			ctx, err := NewCtx()
			if err != nil {
				errs[w] = err
				return
			}
			for i := range 200 {
				sc := ctx.NewScope()
				s, err := sc.ReadSet("{ [i, j] : 0 <= i < 20 and 0 <= j < 20 and (i + j) mod 3 = 0 }")
				if err == nil {
					var u *Set
					var v *Val
					if v, err = sc.ValIntFromSi(int64(i % 20)); err == nil {
						u, err = s.FixVal(DimSet, 0, v)
					}
					if err == nil {
						var n int64
						want := int64(7) // j ≡ -i (mod 3) in [0, 20)
						if i%20%3 == 1 {
							want = 6
						}
						if n, err = u.CountVal(); err == nil && n != want {
							err = errors.New("wrong count")
						}
					}
				}
				sc.Free()
				if err != nil {
					errs[w] = err
					return
				}
			}
			errs[w] = ctx.Close()
		})
	}
	wg.Wait()
	for w, err := range errs {
		if err != nil {
			t.Errorf("worker %d: %v", w, err)
		}
	}
}

// FuzzRead checks that no input string crashes ISL's readers (libisl
// divides by a literal zero divisor unchecked, which kills the process), and
// that every accepted set or map prints to text that parses back to an equal
// one.
func FuzzRead(f *testing.F) {
	for _, s := range []string{"{ [i] : 0 <= i < 10 }", "[n] -> { [i, j] : exists (e : i = 4e) and j < n }",
		"{ A[i] -> B[floor(i/3)] }", "{ [i] : i mod 0 = 1 }", "{ [i] : ", "",
		"{ [x, y, z] -> A[x, y, z] : x < 5 // 0 }", "{ [i] : 0 <= i < 1//0 }",
		// ISL's reader joins continuation lines and skips comments; long
		// lists, deep nesting and many pieces.
		"{ [i] : i < 5 // #\n 0 }", "{ [i] : i < 5 //\\\n0 }", "{ [i] : i < 2 ^ #\n 100 }", "{ [i] : i < 3 ^\\\n40 }",
		"{ [i] : # c \\\n more\n i < 3 }", "{ [x] : exists (#\n e0, e1, e2, e3 : x = e0) }",
		"{ [x] : x = ((((((((((y)))))))))) }", "{ [x] : x = 0; [x] : x = 1; [x] : x = 2 }",
		"[p0, p1, p2, p3, p4, p5, p6, p7] -> { [x] : x < p0 + p7 }",
	} {
		f.Add(s)
	}
	ctx, err := NewCtx(WithMaxOperations(100000))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, str string) {
		ctx.ResetOperations()
		if s, err := ctx.ReadSet(str); err == nil {
			defer s.Free()
			back, err := ctx.ReadSet(s.String())
			checkReadBack(t, str, s.String(), err, func() (bool, error) { defer back.Free(); return s.IsEqual(back) })
		}
		ctx.ResetOperations()
		if m, err := ctx.ReadMap(str); err == nil {
			defer m.Free()
			// A map read from set notation ("{ : }") prints with ISL's
			// placeholder tuple name "#none", which ISL's reader refuses:
			// that round trip is not checked.
			if printed := m.String(); !strings.Contains(printed, "#none") {
				back, err := ctx.ReadMap(printed)
				checkReadBack(t, str, printed, err, func() (bool, error) { defer back.Free(); return m.IsEqual(back) })
			}
		}
	})
}

// checkReadBack fails the test when the printed form of what str read
// (printed) did not read back (err), or read back to something else (equal).
func checkReadBack(t *testing.T, str, printed string, err error, equal func() (bool, error)) {
	t.Helper()
	if err != nil {
		if errors.Is(err, ErrQuota) {
			return
		}
		t.Fatalf("%q printed as %q, which does not parse: %v", str, printed, err)
	}
	if eq, err := equal(); err == nil && !eq {
		t.Fatalf("%q printed as %q, which parses to something else", str, printed)
	}
}
