package footprint

import (
	"math/rand/v2"
	"testing"

	"github.com/polyvol/polyvol/geometry"
	"github.com/polyvol/polyvol/intmath"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/kernel/kerneltest"
	"github.com/polyvol/polyvol/lattice"
)

// separableSpec returns a random stencil-like kernel spec whose loads are
// separable: each index is c·v + o for its own coordinate v (c ∈ {1, 2, −1},
// now and then a transposed pair or a constant), the accesses SumOverBlocks
// counts from address ranges.
func separableSpec(r *rand.Rand, domain [3]int64) string {
	return kerneltest.Spec(r, kerneltest.Options{
		Name:      "separable",
		Domain:    domain,
		Fields:    2,
		Loads:     6,
		Lead:      []kerneltest.Term{kerneltest.Offset, kerneltest.Offset, kerneltest.Offset, kerneltest.Offset, kerneltest.Offset, kerneltest.Constant, kerneltest.Stride, kerneltest.Stride},
		MaxShift:  4,
		Strides:   []int64{2, -1},
		Transpose: true,
		MaxOffset: 8,
		Margin:    [3]int64{100, 80, 80},
		Rows:      []int64{64, 80, 150},
	})
}

// randomEngine returns an engine for a random launch of k: blocks of up to 16×4×2 threads,
// folds of up to 2 per dimension within the domain, the point guard on or
// off.
func randomEngine(r *rand.Rand, k *kernel.Kernel) *Engine {
	var block, fold [3]int64
	for d, limit := range [3]int{16, 4, 2} {
		block[d] = int64(1 + r.IntN(limit))
		fold[d] = min(k.Domain[d], int64(1+r.IntN(2)))
	}
	g := geometry.NewGeometry(k.NewLaunch(block, fold))
	return &Engine{Mapper: &geometry.AccessMapper{Kernel: k, Geom: g, PointGuard: r.IntN(2) == 0}}
}

// guardSome makes about a third of k's loads partial: each gets a bound
// on one coordinate of the lattice point that leaves out some of the
// domain, or all of it.
func guardSome(r *rand.Rand, k *kernel.Kernel) {
	for _, f := range k.Fields {
		for i := range f.Loads {
			if r.IntN(3) != 0 {
				continue
			}
			// Bounds that leave out points of the domain (guards that
			// hold on all of it are not applied, kernel.Access.Partial).
			v := r.IntN(3)
			c := 1 + r.Int64N(k.Domain[v])
			g, _ := kernel.Var(v).Add(kernel.Const(-c)) // v ≥ c, c in [1, D]
			if r.IntN(2) == 0 {
				g, _ = kernel.Const(c - 2).Sub(kernel.Var(v)) // v < c − 1, c − 1 in [0, D − 1]
			}
			f.Loads[i].Guards = []kernel.Expr{g}
		}
	}
}

// holds reports whether every guard of a holds at p.
func holds(a kernel.Access, p kernel.Point) bool {
	for _, g := range a.Guards {
		if g.Eval(p) < 0 {
			return false
		}
	}
	return true
}

// TestSumOverBlocksEqualsEnumeration checks that the class-wise counting of
// SumOverBlocks, from shifted address ranges, gives exactly the sum over the
// blocks of their distinct granules, enumerated thread by thread, for blocks
// inside and at the edge of the domain, with and without the point guard,
// with partial accesses, at granularities from a sector to a 512 KiB page.
func TestSumOverBlocksEqualsEnumeration(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 17))
	for c := range 60 {
		domain := [3]int64{int64(8 + r.IntN(40)), int64(1 + r.IntN(12)), int64(1 + r.IntN(6))}
		k := parseKernel(t, separableSpec(r, domain))
		guardSome(r, k)
		e := randomEngine(r, k)
		g, block, fold := e.Mapper.Geom, e.Mapper.Geom.Block, e.Mapper.Geom.Fold
		var blocks []lattice.Box
		for z := range g.Grid[2] {
			for y := range g.Grid[1] {
				for x := range g.Grid[0] {
					blocks = append(blocks, g.BlockThreads([3]int64{x, y, z}))
				}
			}
		}
		for fi, f := range k.Fields {
			for _, gran := range []int64{32, 128, 4096, 512 << 10} {
				got, err := e.SumOverBlocks(Request{Field: fi, Gran: gran, Space: geometry.LinearSpace}, blocks)
				if err != nil {
					t.Fatal(err)
				}
				var want int64
				for _, b := range blocks {
					seen := map[int64]bool{}
					for x := b.Lo[0]; x < b.Hi[0]; x++ {
						for y := b.Lo[1]; y < b.Hi[1]; y++ {
							for z := b.Lo[2]; z < b.Hi[2]; z++ {
								for j := range fold[0] * fold[1] * fold[2] {
									p := kernel.Point{fold[0]*x + j%fold[0], fold[1]*y + j/fold[0]%fold[1], fold[2]*z + j/fold[0]/fold[1]}
									if e.Mapper.PointGuard && (p[0] >= domain[0] || p[1] >= domain[1] || p[2] >= domain[2]) {
										continue
									}
									for _, a := range f.Loads {
										if holds(a, p) {
											seen[intmath.FloorDiv(f.ByteAddress(a, p), gran)] = true
										}
									}
								}
							}
						}
					}
					want += int64(len(seen))
				}
				if got != want {
					t.Fatalf("case %d field %s gran %d block %v fold %v guard %v: SumOverBlocks %d, enumeration %d",
						c, f.Name, gran, block, fold, e.Mapper.PointGuard, got, want)
				}
			}
		}
	}
}
