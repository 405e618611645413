package kernel

import (
	"math/rand/v2"
	"testing"
)

// TestTilingPointsByEnumeration checks the tilings against their definition
// by enumeration: under either, the threads of block bx cover the points
// [bx·b·f, (bx+1)·b·f) exactly once; a strided thread's point j is
// bx·b·f + tx + j·b; PointExprs evaluates to PointCoord; PointCoord grows
// strictly with the thread; and ActiveThreadsInBlock counts the threads of
// a block with a point in the domain.
func TestTilingPointsByEnumeration(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	for range 300 {
		var l Launch
		for i := range 3 {
			l.Block[i] = 1 + rng.Int64N(9)
			l.Fold[i] = 1 + rng.Int64N(4)
			l.Domain[i] = 1 + rng.Int64N(3*l.Block[i]*l.Fold[i])
		}
		l.Tiling = Tiling(rng.IntN(2))
		g := l.Grid()
		for i := range 3 {
			b, f := l.Block[i], l.Fold[i]
			var sub []Expr
			for j := range f {
				var jj [3]int64
				jj[i] = j
				s, err := l.PointExprs(jj)
				if err != nil {
					t.Fatal(err)
				}
				sub = append(sub, s[i])
			}
			prev := int64(-1)
			for bx := range g[i] {
				seen := map[int64]int{}
				active := int64(0)
				for tx := range b {
					th := bx*b + tx
					if c := l.PointCoord(i, th, 0); c <= prev {
						t.Fatalf("%v %s dim %d: point of thread %d is %d, not above %d", l.Fold, l.Tiling, i, th, c, prev)
					}
					prev = l.PointCoord(i, th, 0)
					if prev < l.Domain[i] {
						active++
					}
					for j := range f {
						c := l.PointCoord(i, th, j)
						want := f*th + j
						if l.Tiling == TileStrided {
							want = bx*b*f + tx + j*b
						}
						if c != want {
							t.Fatalf("%v %s dim %d: thread %d point %d at %d, want %d", l.Fold, l.Tiling, i, th, j, c, want)
						}
						var p Point
						p[i] = th
						if e := sub[j].Eval(p); e != c {
							t.Fatalf("%v %s dim %d: PointExprs gives %d, PointCoord %d", l.Fold, l.Tiling, i, e, c)
						}
						seen[c]++
					}
				}
				for c := bx * b * f; c < (bx+1)*b*f; c++ {
					if seen[c] != 1 {
						t.Fatalf("%v %s dim %d block %d: point %d covered %d times", l.Fold, l.Tiling, i, bx, c, seen[c])
					}
				}
				if got := l.ActiveThreadsInBlock(i, bx); got != active {
					t.Fatalf("%v %s dim %d block %d: %d active threads, enumeration %d", l.Fold, l.Tiling, i, bx, got, active)
				}
				prev = l.PointCoord(i, bx*b+b-1, f-1)
			}
		}
	}
}

func TestParseTiling(t *testing.T) {
	for _, tl := range []Tiling{TileConsecutive, TileStrided} {
		got, err := ParseTiling(tl.String())
		if err != nil || got != tl {
			t.Errorf("ParseTiling(%q) = %v, %v", tl.String(), got, err)
		}
	}
	if _, err := ParseTiling("blocked"); err == nil {
		t.Error("ParseTiling(\"blocked\") accepted")
	}
}

// TestFirstThreadByEnumeration checks FirstThread against its definition:
// under either tiling, for every point offset j and bound p, it is the
// least thread t ≥ 0 whose point j is at least p.
func TestFirstThreadByEnumeration(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 4))
	for range 300 {
		var l Launch
		for i := range 3 {
			l.Block[i] = 1 + rng.Int64N(9)
			l.Fold[i] = 1 + rng.Int64N(4)
			l.Domain[i] = 1 + rng.Int64N(3*l.Block[i]*l.Fold[i])
		}
		l.Tiling = Tiling(rng.IntN(2))
		for i := range 3 {
			for j := range l.Fold[i] {
				for p := -3 * l.Block[i]; p < 4*l.Block[i]*l.Fold[i]; p++ {
					want := int64(0)
					for l.PointCoord(i, want, j) < p {
						want++
					}
					if got := l.FirstThread(i, j, p); got != want {
						t.Fatalf("%s tiling, block %d, fold %d: FirstThread(%d, %d, %d) = %d, want %d", l.Tiling, l.Block[i], l.Fold[i], i, j, p, got, want)
					}
				}
			}
		}
	}
}
