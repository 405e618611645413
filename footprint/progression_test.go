package footprint

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/polyvol/polyvol/geometry"
	"github.com/polyvol/polyvol/intmath"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/kernel/kerneltest"
	"github.com/polyvol/polyvol/lattice"
)

// granulesOf enumerates the granules of gran bytes that the union of ps
// touches, byte by byte.
func granulesOf(ps []progression, gran int64) map[int64]bool {
	seen := map[int64]bool{}
	for _, p := range ps {
		var walk func(d int, base int64)
		walk = func(d int, base int64) {
			if d == len(p.axes) {
				for b := base; b < base+p.width; b++ {
					seen[intmath.FloorDiv(b, gran)] = true
				}
				return
			}
			for q := range p.axes[d].count {
				walk(d+1, base+q*p.axes[d].step)
			}
		}
		walk(0, p.base)
	}
	return seen
}

// randomProgressions returns up to six progressions that share most steps,
// as the accesses of one kernel do, with now and then a long axis so that
// the counter's periodic sums are exercised.
func randomProgressions(r *rand.Rand) []progression {
	steps := []int64{int64(1 + r.IntN(12)), int64(5 + r.IntN(60)), int64(40 + r.IntN(400)), int64(-1 - r.IntN(30))}
	var ps []progression
	for range 1 + r.IntN(6) {
		p := progression{base: int64(r.IntN(1000) - 500), width: int64(1 + r.IntN(16))}
		for range r.IntN(4) {
			count := int64(1 + r.IntN(6))
			if r.IntN(4) == 0 {
				count = int64(20 + r.IntN(200))
			}
			p.axes = append(p.axes, axis{step: steps[r.IntN(len(steps))], count: count})
		}
		ps = append(ps, p)
	}
	var volume int64
	for _, p := range ps {
		v := p.width
		for _, a := range p.axes {
			v *= a.count
		}
		volume += v
	}
	if volume > 100_000 { // keep the enumeration quick
		return randomProgressions(r)
	}
	return ps
}

// TestCounterEqualsEnumeration checks the counter against byte-by-byte
// enumeration on random unions of progressions (overlapping, interleaved,
// negative steps, long axes) at granularities that divide the steps, that
// do not, and that no element size divides.
func TestCounterEqualsEnumeration(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 23))
	grans := []int64{1, 2, 3, 4, 5, 7, 8, 12, 16, 24, 32, 48, 64, 100, 128, 256, 4096}
	for c := range 3000 {
		ps := randomProgressions(r)
		gran := grans[r.IntN(len(grans))]
		want := int64(len(granulesOf(ps, gran)))
		got, err := newCounter(gran, &Budget{}).count(ps)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("case %d gran %d: counter %d, enumeration %d for %+v", c, gran, got, want, ps)
		}
	}
}

// TestCounterCostIndependentOfCounts checks that the work of a count does
// not grow with the counts of the axes: a plane of rows repeated 10^3 and
// 10^9 times costs the same.
func TestCounterCostIndependentOfCounts(t *testing.T) {
	work := func(planes int64) int64 {
		b := &Budget{}
		ps := []progression{
			{base: 8, width: 8 * 640, axes: []axis{{step: 8 * 648, count: 512}, {step: 8 * 648 * 520, count: planes}}},
			{base: 8 - 8*648, width: 8 * 640, axes: []axis{{step: 8 * 648, count: 512}, {step: 8 * 648 * 520, count: planes}}},
			{base: 8 - 8*648*520, width: 8 * 640, axes: []axis{{step: 8 * 648, count: 512}, {step: 8 * 648 * 520, count: planes}}},
		}
		if _, err := newCounter(32, b).count(ps); err != nil {
			t.Fatal(err)
		}
		return b.Used()
	}
	if small, large := work(1000), work(1_000_000_000); large != small {
		t.Errorf("work grows with the plane count: %d units for 10^3 planes, %d for 10^9", small, large)
	}
}

// TestBudgetStopsRunawayCounts checks that a count whose work passes the
// budget fails with ErrWorkBound instead of running on.
func TestBudgetStopsRunawayCounts(t *testing.T) {
	// Steps of 7 and 1000·7+1 bytes at 4096 B granules: every plane of the
	// window interacts and the period is 4096 planes.
	ps := []progression{{base: 0, width: 1, axes: []axis{{step: 7001, count: 1 << 40}, {step: 7_000_007, count: 1 << 20}}}}
	_, err := newCounter(4096, &Budget{Limit: 10_000}).count(ps)
	if !errors.Is(err, ErrWorkBound) {
		t.Fatalf("got %v, want ErrWorkBound", err)
	}
}

// TestBudgetStopsAtTheMemoryBound runs the runaway count of
// TestBudgetStopsRunawayCounts under a memory bound below what the process
// already holds (which no collection can undo) and under one far above it:
// the first fails with ErrMemoryBound at its first reading, the second
// runs on to the work bound.
func TestBudgetStopsAtTheMemoryBound(t *testing.T) {
	ps := []progression{{base: 0, width: 1, axes: []axis{{step: 7001, count: 1 << 40}, {step: 7_000_007, count: 1 << 20}}}}
	low := &Budget{Limit: 1 << 40, MemoryLimit: 1 << 10}
	if _, err := newCounter(4096, low).count(ps); !errors.Is(err, ErrMemoryBound) || low.Used() > memoryCheckInterval+pieceCost {
		t.Errorf("below the process's memory: got %v after %d units, want ErrMemoryBound at the first reading", err, low.Used())
	}
	high := &Budget{Limit: 10_000, MemoryLimit: 1 << 40}
	if _, err := newCounter(4096, high).count(ps); !errors.Is(err, ErrWorkBound) {
		t.Errorf("far above the process's memory: got %v, want ErrWorkBound", err)
	}
}

// generalSpec returns a random kernel spec with every kind of index the
// spec language allows: strides of any sign, coupled and linearised terms,
// floor and modulo terms (nested now and then), odd extents and offsets,
// elements of 1 to 16 bytes, loads and stores.
func generalSpec(r *rand.Rand, domain [3]int64) string {
	return kerneltest.Spec(r, kerneltest.Options{
		Name:       "general",
		Domain:     domain,
		Fields:     2,
		Loads:      4,
		Stores:     4,
		Lead:       []kerneltest.Term{kerneltest.Offset, kerneltest.Offset, kerneltest.Offset, kerneltest.Absent},
		Extra:      []kerneltest.Term{kerneltest.Constant, kerneltest.Linearised, kerneltest.Stride, kerneltest.Floor, kerneltest.Mod, kerneltest.CoupledMod, kerneltest.Linearised, kerneltest.Nested, kerneltest.Offset, kerneltest.Offset, kerneltest.Offset},
		MaxExtra:   2,
		Strides:    []int64{2, 3, 9, 12, 27, -1, -2},
		MaxDivisor: 5,
		MaxOffset:  10,
		Margin:     [3]int64{90, 17, 9},
	})
}

// enumerate returns the granules of request q over the thread boxes, point
// by point: every byte of every element in the linear space, the tuple
// (⌊e0/κ⌋, e1, e2) in the multi-dimensional one.
func enumerate(e *Engine, q Request, threads []lattice.Box) map[[3]int64]bool {
	f, m := e.field(q), e.Mapper
	seen := map[[3]int64]bool{}
	for _, t := range threads {
		pb := m.PointBox(t)
		for x := pb.Lo[0]; x < pb.Hi[0]; x++ {
			for y := pb.Lo[1]; y < pb.Hi[1]; y++ {
				for z := pb.Lo[2]; z < pb.Hi[2]; z++ {
					p := kernel.Point{x, y, z}
					for _, a := range f.Accesses(q.Store) {
						if q.Space == geometry.MultiDimSpace {
							kappa := q.Gran / f.Element
							seen[[3]int64{intmath.FloorDiv(a.Index[0].Eval(p), kappa), a.Index[1].Eval(p), a.Index[2].Eval(p)}] = true
							continue
						}
						addr := f.ByteAddress(a, p)
						for g := intmath.FloorDiv(addr, q.Gran); g <= intmath.FloorDiv(addr+f.Element-1, q.Gran); g++ {
							seen[[3]int64{g}] = true
						}
					}
				}
			}
		}
	}
	return seen
}

// randomThreads returns one to three random thread boxes of e's launch, from
// single blocks to slabs of the whole grid.
func randomThreads(r *rand.Rand, e *Engine) []lattice.Box {
	g := e.Mapper.Geom
	dom := g.ThreadDomain()
	var out []lattice.Box
	for range 1 + r.IntN(3) {
		var b lattice.Box
		for d := range 3 {
			n := dom.Hi[d]
			b.Lo[d] = r.Int64N(n)
			b.Hi[d] = b.Lo[d] + 1 + r.Int64N(n-b.Lo[d]+1) // may reach past the domain
		}
		out = append(out, b)
	}
	return out
}

// TestEngineCountEqualsEnumeration is the property test of the counting
// path on random general kernels: for loads and stores, both address
// spaces, the point guard on and off, and granularities from 4 B to
// 512 KiB, the count of a union of thread boxes, the overlap of two and the
// common part of three equal point-by-point enumeration.
func TestEngineCountEqualsEnumeration(t *testing.T) {
	r := rand.New(rand.NewPCG(12, 7))
	grans := []int64{4, 8, 12, 24, 32, 48, 64, 128, 4096, 512 << 10}
	compared := 0
	for c := range 300 {
		domain := [3]int64{int64(3 + r.IntN(30)), int64(1 + r.IntN(9)), int64(1 + r.IntN(5))}
		k := parseKernel(t, generalSpec(r, domain))
		e := randomEngine(r, k)
		for fi, f := range k.Fields {
			for _, store := range []bool{false, true} {
				if len(f.Accesses(store)) == 0 {
					continue
				}
				space := geometry.LinearSpace
				gran := grans[r.IntN(len(grans))]
				if r.IntN(3) == 0 {
					space = geometry.MultiDimSpace
					gran = f.Element * int64(1+r.IntN(8))
				}
				q := Request{Field: fi, Store: store, Gran: gran, Space: space}
				a, b, d := randomThreads(r, e), randomThreads(r, e), randomThreads(r, e)
				where := fmt.Sprintf("case %d field %s store %v gran %d space %d guard %v fold %v", c, f.Name, store, gran, space, e.Mapper.PointGuard, e.Mapper.Geom.Fold)
				got, err := e.CountGranules(q, a)
				if err != nil {
					t.Fatal(where, err)
				}
				fa := enumerate(e, q, a)
				if want := int64(len(fa)); got != want {
					t.Fatalf("%s threads %v: Count %d, enumeration %d\n%s", where, a, got, want, generalSpecOf(k))
				}
				fb, fd := enumerate(e, q, b), enumerate(e, q, d)
				var ab, abd int64
				for g := range fa {
					if fb[g] {
						ab++
						if fd[g] {
							abd++
						}
					}
				}
				if got, err := e.CountCommonGranules(q, a, b); err != nil || got != ab {
					t.Fatalf("%s: CountCommonGranules of two %d (%v), enumeration %d", where, got, err, ab)
				}
				if got, err := e.CountCommonGranules(q, a, b, d); err != nil || got != abd {
					t.Fatalf("%s: CountCommonGranules %d (%v), enumeration %d", where, got, err, abd)
				}
				compared++
			}
		}
	}
	t.Logf("%d footprints compared", compared)
}

// generalSpecOf renders k's accesses for a failure message.
func generalSpecOf(k *kernel.Kernel) string {
	var b strings.Builder
	for _, f := range k.Fields {
		fmt.Fprintf(&b, "%s: element %d extent %v offset %d loads %v stores %v\n", f.Name, f.Element, f.Extent, f.Offset, f.Loads, f.Stores)
	}
	return b.String()
}

// TestSumOverBlocksGeneralEqualsEnumeration checks SumOverBlocks, whose
// classes of translated blocks share counts, against enumeration block by
// block on random general kernels.
func TestSumOverBlocksGeneralEqualsEnumeration(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 44))
	for c := range 80 {
		domain := [3]int64{int64(8 + r.IntN(40)), int64(1 + r.IntN(8)), int64(1 + r.IntN(4))}
		k := parseKernel(t, generalSpec(r, domain))
		e := randomEngine(r, k)
		g := e.Mapper.Geom
		var blocks []lattice.Box
		for z := range g.Grid[2] {
			for y := range g.Grid[1] {
				for x := range g.Grid[0] {
					blocks = append(blocks, g.BlockThreads([3]int64{x, y, z}))
				}
			}
		}
		for fi, f := range k.Fields {
			gran := []int64{4, 24, 32, 128, 4096}[r.IntN(5)]
			q := Request{Field: fi, Store: len(f.Loads) == 0, Gran: gran, Space: geometry.LinearSpace}
			got, err := e.SumOverBlocks(q, blocks)
			if err != nil {
				t.Fatal(err)
			}
			var want int64
			for _, b := range blocks {
				want += int64(len(enumerate(e, q, []lattice.Box{b})))
			}
			if got != want {
				t.Fatalf("case %d field %s gran %d: SumOverBlocks %d, enumeration %d\n%s", c, f.Name, gran, got, want, generalSpecOf(k))
			}
		}
	}
}

// TestWrappedCoordinatesAreTiles checks a periodic wrap, the L1-resident
// box stencil's (x mod 128, y mod 64): its footprint equals enumeration,
// and its work does not grow with the box, because each coordinate is one
// tile (the 128 points of a period repeated) plus the rest.
func TestWrappedCoordinatesAreTiles(t *testing.T) {
	spec := func(d [2]int64) string {
		return fmt.Sprintf("name: wrap\ndomain: [%d, %d]\nfields:\n  - name: A\n    element: 8\n    extent: [2048, 2048]\n    load:\n      - [(x mod 128) + 1021, (y mod 64) + 1019]\n      - [(x mod 128) + 1027, (y mod 64) + 1022]\n", d[0], d[1])
	}
	work := func(d [2]int64, check bool) int64 {
		k := parseKernel(t, spec(d))
		e := &Engine{Budget: &Budget{}, Mapper: &geometry.AccessMapper{Kernel: k, Geom: geometry.NewGeometry(k.NewLaunch([3]int64{32, 8, 1}, kernel.NoFold)), PointGuard: true}}
		q := Request{Gran: 32, Space: geometry.LinearSpace}
		box := []lattice.Box{{Lo: [3]int64{3, 5, 0}, Hi: [3]int64{d[0], d[1], 1}}}
		got, err := e.CountGranules(q, box)
		if err != nil {
			t.Fatal(err)
		}
		if check {
			if want := int64(len(enumerate(e, q, box))); got != want {
				t.Errorf("domain %v: Count %d, enumeration %d", d, got, want)
			}
		}
		return e.Budget.Used()
	}
	small, large := work([2]int64{300, 140}, true), work([2]int64{14976, 15000}, false)
	if large > 2*small {
		t.Errorf("work grows with the box: %d units on 300×140, %d on 14976×15000", small, large)
	}
}
