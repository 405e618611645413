package isl

import (
	"fmt"
	"testing"
)

// BenchmarkCountVal times isl_set_count_val on boxes of growing extent and
// on the shapes an engine builds: the image of a box under a sector map, and
// a box with an existential stride. Run it with
//
//	go test ./isl -run '^$' -bench CountVal -benchtime 3x
func BenchmarkCountVal(b *testing.B) {
	cases := []struct{ name, set string }{}
	for _, n := range []int{1000, 10000, 100000} {
		cases = append(cases,
			struct{ name, set string }{fmt.Sprintf("box/%dx%d", n, n),
				fmt.Sprintf("{ [x, y] : 0 <= x, y < %d }", n)},
			struct{ name, set string }{fmt.Sprintf("sector-image/%dx%d", n, n),
				fmt.Sprintf("{ [a, y] : exists (x : a = floor((x + 4) * 8 / 32) and 0 <= x < %d) and 0 <= y < %[1]d }", n)},
			struct{ name, set string }{fmt.Sprintf("stride/%dx%d", n, n),
				fmt.Sprintf("{ [x, y] : 0 <= x, y < %d and exists (e : x + 2y = 3e + 1) }", n)})
	}
	cases = append(cases,
		struct{ name, set string }{"box/1000x1000x1000", "{ [x, y, z] : 0 <= x, y, z < 1000 }"},
		struct{ name, set string }{"sector-image/1000x1000x1000",
			"{ [a, y, z] : exists (x : a = floor((x + 4) * 8 / 32) and 0 <= x < 1000) and 0 <= y, z < 1000 }"},
		struct{ name, set string }{"stride/1000x1000x1000",
			"{ [x, y, z] : 0 <= x, y, z < 1000 and exists (e : x + 2y + z = 3e + 1) }"})
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			ctx := newTestCtx(b)
			s := must(ctx.ReadSet(c.set))
			defer s.Free()
			for b.Loop() {
				if _, err := s.CountVal(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
