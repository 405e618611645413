package isl_test

import (
	"errors"
	"fmt"

	"github.com/polyvol/polyvol/isl"
)

// A scope frees everything made through it, and everything derived from
// those objects, in one call.
func Example() {
	ctx, err := isl.NewCtx()
	if err != nil {
		panic(err)
	}
	defer ctx.Close()
	sc := ctx.NewScope()
	defer sc.Free()

	threads, _ := sc.ReadSet("{ [x, y] : 0 <= x < 64 and 0 <= y < 4 }")
	sectors, _ := sc.ReadMap("{ [x, y] -> [floor((x + 4) * 8 / 32), y] }")
	restricted, _ := sectors.IntersectDomain(threads)
	touched, _ := restricted.Range()
	n, _ := touched.CountVal()
	fmt.Println(touched)
	fmt.Println(n, "sectors")
	// Output:
	// { [i0, i1] : 0 < i0 <= 16 and 0 <= i1 <= 3 }
	// 64 sectors
}

func ExampleSet_CountVal() {
	ctx, _ := isl.NewCtx()
	defer ctx.Close()
	s, _ := ctx.ReadSet("{ [i] : 0 <= i < 1024 * 2^60 and i mod 3 = 0 }")
	defer s.Free()
	_, err := s.CountVal()
	fmt.Println(errors.Is(err, isl.ErrOverflow))
	// Output:
	// true
}

func ExampleMap_ApplyRange() {
	ctx, _ := isl.NewCtx()
	defer ctx.Close()
	sc := ctx.NewScope()
	defer sc.Free()
	toWarp, _ := sc.ReadMap("{ [t] -> [floor(t / 32)] : 0 <= t < 256 }")
	toSM, _ := sc.ReadMap("{ [w] -> [w mod 4] }")
	both, _ := toWarp.ApplyRange(toSM)
	onlySM0, _ := sc.ReadMap("{ [s] -> [] : s = 0 }")
	sm0, _ := both.ApplyRange(onlySM0)
	threads, _ := sm0.Domain()
	n, _ := threads.CountVal()
	fmt.Println(n, "threads on SM 0")
	// Output:
	// 64 threads on SM 0
}

// Runaway computations stop with ErrQuota; the context stays usable.
func ExampleWithMaxOperations() {
	ctx, _ := isl.NewCtx(isl.WithMaxOperations(10000))
	defer ctx.Close()
	s, _ := ctx.ReadSet("{ [i, j, k] : 0 <= i, j, k < 300 and (i + 2j + 3k) mod 7 = 3 }")
	defer s.Free()
	_, err := s.CountVal()
	fmt.Println(errors.Is(err, isl.ErrQuota))
	small, _ := ctx.ReadSet("{ [i, j] : 0 <= i, j < 30 and (i + 2j) mod 7 = 3 }")
	defer small.Free()
	n, _ := small.CountVal()
	fmt.Println(n)
	// Output:
	// true
	// 129
}

// ISL's errors come back as Go errors carrying ISL's message.
func ExampleError() {
	ctx, _ := isl.NewCtx()
	defer ctx.Close()
	a, _ := ctx.ReadSet("{ [i] : 0 <= i < 4 }")
	defer a.Free()
	b, _ := ctx.ReadSet("{ [i, j] : 0 <= i, j < 4 }")
	defer b.Free()
	_, err := a.Intersect(b)
	var islErr *isl.Error
	fmt.Println(errors.As(err, &islErr), islErr.Op, islErr.Msg)
	// Output:
	// true isl_set_intersect spaces don't match
}

func ExampleBasicSet_Constraints() {
	ctx, _ := isl.NewCtx()
	defer ctx.Close()
	s, _ := ctx.ReadSet("{ [i] : exists (e : i = 4e + 1) and 0 <= i < 100 }")
	defer s.Free()
	pieces, _ := s.BasicSets()
	b := pieces[0]
	defer b.Free()
	cons, _ := b.Constraints()
	for _, c := range cons {
		fmt.Printf("equality=%v constant=%d set=%v div=%v\n", c.Equality, c.Expr.Constant, c.Expr.Set, c.Expr.Div)
	}
	// Output:
	// equality=true constant=1 set=[-1] div=[4]
	// equality=false constant=0 set=[1] div=[0]
	// equality=false constant=99 set=[-1] div=[0]
}
