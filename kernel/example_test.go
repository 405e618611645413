package kernel_test

import (
	"fmt"

	"github.com/polyvol/polyvol/kernel"
)

func ExampleParseExpr() {
	e, err := kernel.ParseExpr("floor((x - 1) / 4) + 2*(y + x) - x")
	if err != nil {
		panic(err)
	}
	fmt.Println(e)
	fmt.Println(e.ISL())
	fmt.Println(e.Eval(kernel.Point{0, 3, 0}))
	// Output:
	// x + 2*y + floor((x + 3)/4) - 1
	// x + 2*y + floor((x + 3)/4) - 1
	// 5
}

func ExampleFoldAccesses() {
	star, _ := kernel.ParseExpr("z - 1")
	center, _ := kernel.ParseExpr("z")
	x, y := kernel.Var(0), kernel.Var(1)
	accesses := []kernel.Access{
		{Index: [3]kernel.Expr{x, y, center}},
		{Index: [3]kernel.Expr{x, y, star}},
	}
	folded, _ := kernel.FoldAccesses(accesses, kernel.Launch{Fold: [3]int64{1, 1, 2}})
	for _, a := range folded {
		fmt.Println(a)
	}
	// Output:
	// (x, y, 2*z)
	// (x, y, 2*z - 1)
	// (x, y, 2*z + 1)
}

func ExampleLaunch_Grid() {
	l := kernel.Launch{Block: [3]int64{64, 4, 4}, Fold: [3]int64{1, 1, 2}, Domain: [3]int64{640, 512, 512}}
	fmt.Println(l.Grid(), l.ThreadsPerBlock(), l.LupsPerThread())
	// Output: [10 128 64] 1024 2
}
