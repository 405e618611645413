package isl

import (
	"errors"
	"math/big"
	"runtime"
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
		if u, err := ctx.ReadUnionSet(g); err == nil {
			u.Free()
		}
		if a, err := ctx.ReadAff(g); err == nil {
			a.Free()
		}
	}
	for _, g := range []string{"{", "{ [i] : 0 <= i < }", "[[[["} {
		_, err := ctx.ReadSet(g)
		var islErr *Error
		if !errors.As(err, &islErr) || islErr.Op != "isl_set_read_from_str" || islErr.Msg == "" {
			t.Errorf("ReadSet(%q) = %v, want an *Error from isl_set_read_from_str with ISL's message", g, err)
		}
	}
	// The context still works after the errors.
	s := must(ctx.ReadSet("{ [i] : 0 <= i < 5 }"))
	defer s.Free()
	if n := must(s.CountVal()); n != 5 {
		t.Errorf("CountVal = %d after errors, want 5", n)
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
		"Union":     func() error { _, err := a.Union(b); return err },
		"Intersect": func() error { _, err := a.Intersect(b); return err },
		"Subtract":  func() error { _, err := a.Subtract(b); return err },
		"Apply":     func() error { _, err := a.Apply(m); return err },
		"FixSi":     func() error { _, err := a.FixSi(DimSet, 3, 0); return err },
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
	if _, err := a.Union(b); err == nil || ctx.failed() {
		t.Errorf("error state not reset after a failure")
	}
}

func TestCountOverflow(t *testing.T) {
	ctx := newTestCtx(t)
	s := must(ctx.ReadSet("{ [i] : 0 <= i < 2^70 }"))
	defer s.Free()
	if _, err := s.CountVal(); !errors.Is(err, ErrOverflow) {
		t.Errorf("CountVal = %v, want ErrOverflow", err)
	}
	want := new(big.Int).Lsh(big.NewInt(1), 70)
	if got := must(s.CountValBig()); got.Cmp(want) != 0 {
		t.Errorf("CountValBig = %s, want 2^70 = %s", got, want)
	}
	neg := must(ctx.ReadVal("-1180591620717411303425"))
	defer neg.Free()
	if got := must(neg.BigInt()); got.Cmp(new(big.Int).Neg(new(big.Int).Add(want, big.NewInt(1)))) != 0 {
		t.Errorf("BigInt = %s, want -(2^70 + 1)", got)
	}
}

func TestQuotaStopsCountingAndCtxStaysUsable(t *testing.T) {
	ctx := newTestCtx(t)
	s := must(ctx.ReadSet("{ [i, j, k] : 0 <= i, j, k < 300 and (i + 2j + 3k) mod 7 = 3 and i + j <= k + 100 }"))
	defer s.Free()
	ctx.SetMaxOperations(10000)
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
	ctx.SetMaxOperations(0)
	if n := must(s.CountVal()); n != 1461672 {
		t.Errorf("CountVal without quota = %d, want 1461672", n)
	}
}

func TestFreedAndForeignObjects(t *testing.T) {
	ctx := newTestCtx(t)
	other := newTestCtx(t)
	a := must(ctx.ReadSet("{ [i] : 0 <= i < 4 }"))
	b := must(other.ReadSet("{ [i] : 0 <= i < 4 }"))
	if _, err := a.Union(b); err == nil {
		t.Error("Union of sets from different contexts succeeded")
	}
	b.Free()
	b.Free() // idempotent
	var nilSet *Set
	nilSet.Free()
	if _, err := a.Union(b); !errors.Is(err, ErrFreed) {
		t.Errorf("Union with a freed set = %v, want ErrFreed", err)
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
			b := must(a.FixSi(DimSet, 0, i%10))
			if n := must(must(a.Subtract(b)).CountVal()); n != 55-int64(i%10+1) {
				t.Fatalf("count = %d", n)
			}
			sc.Free()
			continue
		}
		a := must(ctx.ReadSet("{ [i] : 0 <= i < 10 }"))
		m := must(ctx.ReadMap("{ [i] -> [floor(i/3)] }"))
		img := must(a.Apply(m))
		if n := must(img.CountVal()); n != 4 {
			t.Fatalf("count = %d", n)
		}
		img.Free()
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

func TestScopeDetach(t *testing.T) {
	ctx := newTestCtx(t)
	sc := ctx.NewScope()
	a := must(sc.ReadSet("{ [i] : 0 <= i < 8 }"))
	b := must(a.LowerBoundSi(DimSet, 0, 3))
	kept := must(b.Lexmin())
	sc.Detach(kept)
	if n := ctx.LiveObjects(); n != 3 {
		t.Errorf("LiveObjects = %d, want 3", n)
	}
	sc.Free()
	if n := ctx.LiveObjects(); n != 1 {
		t.Errorf("LiveObjects after Scope.Free = %d, want 1 (the detached set)", n)
	}
	if got := kept.String(); got != "{ [i = 3] }" {
		t.Errorf("detached set = %s, want { [i = 3] }", got)
	}
	kept.Free()
}

func TestCleanupFreesForgottenObjects(t *testing.T) {
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
					if u, err = s.FixSi(DimSet, 0, i%20); err == nil {
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

// FuzzReadSet checks that no input string crashes the parser and that every
// accepted set prints to text that parses back to an equal set.
func FuzzReadSet(f *testing.F) {
	for _, s := range []string{"{ [i] : 0 <= i < 10 }", "[n] -> { [i, j] : exists (e : i = 4e) and j < n }",
		"{ A[i] -> B[floor(i/3)] }", "{ [i] : i mod 0 = 1 }", "{ [i] : ", ""} {
		f.Add(s)
	}
	ctx, err := NewCtx(WithMaxOperations(100000))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, str string) {
		ctx.ResetOperations()
		s, err := ctx.ReadSet(str)
		if err != nil {
			return
		}
		defer s.Free()
		back, err := ctx.ReadSet(s.String())
		if err != nil {
			if errors.Is(err, ErrQuota) {
				return
			}
			t.Fatalf("printed set %q does not parse: %v", s, err)
		}
		defer back.Free()
		if eq, err := s.IsEqual(back); err == nil && !eq {
			t.Fatalf("%q printed as %q, which parses to a different set", str, s)
		}
	})
}
