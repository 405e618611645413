package footprint

// Adversarial tests of the periodic counter (counter.count), the engine's
// cutting of accesses into affine pieces (indexProgressions) and the work
// budget: inputs built to break them. The first three tests hold inputs
// that once failed (each comment says what the input exercises and which
// mechanism handles it: Access.OnBox with the halving of boxes in
// appendPieces, the charge per piece, and the interleaved split of
// outermost axes in countPlanes); the rest are property tests against
// brute-force enumeration oracles.

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/polyvol/polyvol/geometry"
	"github.com/polyvol/polyvol/intmath"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/kernel/kerneltest"
	"github.com/polyvol/polyvol/lattice"
)

// advEngine returns an engine with a fresh default budget for spec.
func advEngine(t testing.TB, spec string, block, fold [3]int64, guard bool) *Engine {
	t.Helper()
	k := parseKernel(t, spec)
	g := geometry.NewGeometry(k.NewLaunch(block, fold))
	return &Engine{Budget: &Budget{}, Mapper: &geometry.AccessMapper{Kernel: k, Geom: g, PointGuard: guard}}
}

// Regression 1: Access.Period is all-or-nothing: when one coordinate's
// period passes 2^20 it reports ok=false for every coordinate, and
// Access.Breakpoints refuses any term whose argument couples two
// coordinates. splitCoordinate then has neither a residue split nor a
// breakpoint split and indexProgressions fails with ErrWorkBound, whatever
// the size of the box, even where the term never changes over the box.
// The message also misstates the cause ("change more than 65536 times over
// 16 points"). A realistic case: a 2D grid stored flat with a periodic
// neighbour, (x + Nx·y + 1) mod (Nx·Ny), which wraps once over the whole
// domain; on 2048×1024 (2^21 points) its period 2^21 exceeds 2^20.
func TestAdversarialLargePeriodRejected(t *testing.T) {
	small := []string{
		"[(x + y) % 1048583, y, z]",                       // argument ≤ 30 on the box: never wraps, affine
		"[x % 1048583, (y + z) % 2, 0]",                   // x alone cuts by breakpoints, y and z by residues mod 2
		"[x % 1048583, floor((floor(y / 2) + y) / 3), z]", // nested term in y, period 6
	}
	for _, l := range small {
		spec := "name: a\ndomain: [16, 16, 16]\nfields:\n  - name: F\n    element: 4\n    extent: [1048600, 16, 16]\n    load:\n      - " + l + "\n"
		e := advEngine(t, spec, [3]int64{32, 4, 1}, [3]int64{1, 1, 1}, true)
		q := Request{Gran: 32, Space: geometry.LinearSpace}
		th := []lattice.Box{{Hi: [3]int64{16, 16, 16}}}
		want := int64(len(enumerate(e, q, th)))
		if got, err := e.CountGranules(q, th); err != nil || got != want {
			t.Errorf("access %s on a 16^3 box: Count %d (%v), enumeration %d", l, got, err, want)
		}
	}
	// Flat periodic neighbour on a 2048×1024 grid: both accesses cover the
	// elements 0 … N−1, 8 B each, so the footprint is N·8/32 sectors.
	const nx, ny = 2048, 1024
	spec := fmt.Sprintf("name: a\ndomain: [%d, %d]\nfields:\n  - name: F\n    element: 8\n    extent: [%d, 1]\n    load:\n      - (x + %d*y + 1) %% %d\n      - x + %d*y\n", nx, ny, nx*ny, nx, nx*ny, nx)
	e := advEngine(t, spec, [3]int64{32, 4, 1}, [3]int64{1, 1, 1}, true)
	got, err := e.CountGranules(Request{Gran: 32, Space: geometry.LinearSpace}, []lattice.Box{{Hi: [3]int64{nx, ny, 1}}})
	if want := int64(nx * ny * 8 / 32); err != nil || got != want {
		t.Errorf("flat periodic neighbour on %d×%d: Count %d (%v), want %d", nx, ny, got, err, want)
	}
}

// Regression 2: the budget did not bound memory as DefaultWorkBound's
// doc claims ("well under 200 MB"). indexProgressions charges one unit per
// affine piece and then materialises every piece (a 120-byte
// indexProgression, grown by append without preallocation, then a
// progression with its own 3-axis slice); for terms whose period is the
// grid's size (coupled or nested floor/mod terms, which get no breakpoints)
// the pieces are one per row or one per point. The same flat periodic
// neighbour as above on 1024×1024 (period exactly 2^20, so accepted) is cut
// into 1024·1024 pieces: it succeeds with 2.1 M units (under the 5 M
// bound) but allocates ~900 MB (~380 MB live at peak) and takes ~1 s.
// With 4 M pieces (e.g. 2048×2048 of [(x + y) % 2048, y]) it allocates
// ~2.9 GB and runs ~7 s before returning ErrWorkBound, and the 3D
// periodic restriction [floor(((x+1) % D)/2), …] at D = 128 takes ~8 s and
// 1.8 GB and succeeds.
func TestAdversarialBudgetDoesNotBoundMemory(t *testing.T) {
	const nx, ny = 1024, 1024
	spec := fmt.Sprintf("name: a\ndomain: [%d, %d]\nfields:\n  - name: F\n    element: 8\n    extent: [%d, 1]\n    load:\n      - (x + %d*y + 1) %% %d\n      - x + %d*y\n", nx, ny, nx*ny, nx, nx*ny, nx)
	e := advEngine(t, spec, [3]int64{32, 4, 1}, [3]int64{1, 1, 1}, true)
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	got, err := e.CountGranules(Request{Gran: 32, Space: geometry.LinearSpace}, []lattice.Box{{Hi: [3]int64{nx, ny, 1}}})
	runtime.ReadMemStats(&m1)
	if want := int64(nx * ny * 8 / 32); err != nil || got != want {
		t.Fatalf("Count %d (%v), want %d", got, err, want)
	}
	if alloc := m1.TotalAlloc - m0.TotalAlloc; alloc > 200<<20 {
		t.Errorf("one CountGranules of %d units allocated %d MB (bound claimed: well under 200 MB)", e.Budget.Used(), alloc>>20)
	}
}

// Regression 3: the counter's work grew with the grid when the
// accesses of one field have different largest steps, or when the periods
// T = G/intmath.GCD(P, G) of two nested levels are both longer than the box: here
// [x, 2y, z] and [x, y, 2z] at 32 B sectors, 8-byte elements, odd
// extents. countPlanes takes the z step of the second access as P; the
// first access's planes are translates of step P/2, so it becomes
// single-plane members whose hull spans half the planes (w ≈ D/2), and in
// the recursion every row of every plane is enumerated in one run. Work:
// ~3·10^4 units at 64^3, ~2.9·10^6 at 640^3 (×100 for ×10), ErrWorkBound
// at 3000^3 (2.7·10^10 points, well inside the 2^50 limit). Even
// [x, y, z] ∪ [x, y, 2z] grows linearly (1.7·10^3 → 1.7·10^4 → 7.8·10^4).
func TestAdversarialWorkGrowsWithGrid(t *testing.T) {
	work := func(D int, loads ...string) (int64, error) {
		spec := fmt.Sprintf("name: a\ndomain: [%[1]d, %[1]d, %[1]d]\nfields:\n  - name: F\n    element: 8\n    extent: [%[2]d, %[2]d, %[2]d]\n    load:\n", D, 2*D+1)
		for _, l := range loads {
			spec += "      - " + l + "\n"
		}
		e := advEngine(t, spec, [3]int64{32, 4, 2}, [3]int64{1, 1, 1}, true)
		_, err := e.CountGranules(Request{Gran: 32, Space: geometry.LinearSpace}, []lattice.Box{{Hi: [3]int64{int64(D), int64(D), int64(D)}}})
		return e.Budget.Used(), err
	}
	for _, loads := range [][]string{{"[x, 2*y, z]", "[x, y, 2*z]"}, {"[x, y, z]", "[x, y, 2*z]"}} {
		small, err1 := work(64, loads...)
		large, err2 := work(640, loads...)
		if err1 != nil || err2 != nil || large > 2*small {
			t.Errorf("%v: %d units at 64^3, %d at 640^3 (%v, %v)", loads, small, large, err1, err2)
		}
	}
	if used, err := work(3000, "[x, 2*y, z]", "[x, y, 2*z]"); err != nil {
		t.Errorf("[x, 2y, z] ∪ [x, y, 2z] on 3000^3 at 32 B: %v after %d units", err, used)
	}
}

// nestedNonPeriodicSpec is a kernel with one load whose period in x
// exceeds the 2^20 that kernel.Access.Period reports, through floor and
// modulo terms that couple x with y or nest in x: no residue classes and no
// breakpoints cut x (or y), and appendPieces cuts such coordinates into
// single points.
func nestedNonPeriodicSpec(domain [3]int64, element int64, extent [3]int64, load string) string {
	return fmt.Sprintf("name: a\ndomain: [%d, %d, %d]\nfields:\n  - name: F\n    element: %d\n    extent: [%d, %d, %d]\n    load:\n      - [%s]\n",
		domain[0], domain[1], domain[2], element, extent[0], extent[1], extent[2], load)
}

// TestCommonGranulesNestedFloorsMatchEnumeration: CountGranules and
// CountCommonGranules equal enumeration for an access whose x period
// (lcm of 13, 17·37 and 32·18) has no residue split and whose coupled and
// nested terms have no breakpoints, on thread sets whose boxes are too
// small to be halved.
func TestCommonGranulesNestedFloorsMatchEnumeration(t *testing.T) {
	spec := nestedNonPeriodicSpec([3]int64{42, 2, 2}, 2, [3]int64{64, 18, 1}, "(2*x + 2*y) % 13 + floor((x + floor(x/17))/37), (y + x % 32) % 18, 0")
	e := advEngine(t, spec, [3]int64{12, 6, 4}, [3]int64{2, 1, 1}, false)
	q := Request{Gran: 12, Space: geometry.LinearSpace}
	box := func(lo, hi [3]int64) lattice.Box { return lattice.Box{Lo: lo, Hi: hi} }
	a := []lattice.Box{box([3]int64{9, 1, 1}, [3]int64{17, 3, 2}), box([3]int64{1, 1, 1}, [3]int64{4, 3, 2}), box([3]int64{0, 1, 0}, [3]int64{12, 2, 2})}
	b := []lattice.Box{box([3]int64{19, 1, 1}, [3]int64{22, 3, 2}), box([3]int64{15, 0, 0}, [3]int64{19, 3, 2}), box([3]int64{0, 1, 0}, [3]int64{15, 3, 2})}
	fa, fb := enumerate(e, q, a), enumerate(e, q, b)
	for _, c := range []struct {
		threads []lattice.Box
		want    int
	}{{a, len(fa)}, {b, len(fb)}} {
		if got, err := e.CountGranules(q, c.threads); err != nil || got != int64(c.want) {
			t.Errorf("threads %v: CountGranules %d (%v), enumeration %d", c.threads, got, err, c.want)
		}
	}
	var ab int64
	for g := range fa {
		if fb[g] {
			ab++
		}
	}
	if got, err := e.CountCommonGranules(q, a, b); err != nil || got != ab {
		t.Errorf("CountCommonGranules %d (%v), enumeration %d", got, err, ab)
	}
}

// TestSumOverBlocksNestedFloorsMatchEnumeration: SumOverBlocks equals the
// sum of per-block enumerations for an access whose x period (lcm of 18,
// 24, 25·15 and 38·7) has no residue split, so that blocks are counted one
// by one, and whose nested terms in x and y have no breakpoints.
func TestSumOverBlocksNestedFloorsMatchEnumeration(t *testing.T) {
	spec := nestedNonPeriodicSpec([3]int64{53, 9, 4}, 16, [3]int64{40, 1, 16}, "4*floor((x + 11)/18) + x % 24, 0, (x + x % 25) % 15 + floor((y + floor(x/38))/7)")
	e := advEngine(t, spec, [3]int64{10, 8, 2}, [3]int64{2, 1, 1}, false)
	g := e.Mapper.Geom
	q := Request{Gran: 100, Space: geometry.LinearSpace}
	var blocks []lattice.Box
	var want int64
	for z := range g.Grid[2] {
		for y := range g.Grid[1] {
			for x := range g.Grid[0] {
				b := g.BlockThreads([3]int64{x, y, z})
				blocks = append(blocks, b)
				want += int64(len(enumerate(e, q, []lattice.Box{b})))
			}
		}
	}
	if got, err := e.SumOverBlocks(q, blocks); err != nil || got != want {
		t.Errorf("SumOverBlocks %d (%v), enumeration %d", got, err, want)
	}
}

// ---------------------------------------------------------------------
// Passing property tests.

// advProgressions returns up to ten progressions over a few unrelated
// steps (negative ones included), with long axes, wide flat ranges and
// bases near ±2^40.
func advProgressions(r *rand.Rand) []progression {
	var steps []int64
	for range 1 + r.IntN(5) {
		s := int64(1 + r.IntN([]int{8, 40, 300, 3000}[r.IntN(4)]))
		if r.IntN(4) == 0 {
			s = -s
		}
		steps = append(steps, s)
	}
	base0 := int64(0)
	switch r.IntN(4) {
	case 0:
		base0 = 1 << 40
	case 1:
		base0 = -(1 << 40) - int64(r.IntN(1000))
	}
	var ps []progression
	var volume int64
	for range 1 + r.IntN(10) {
		p := progression{base: base0 + int64(r.IntN(3000)-1500), width: int64(1 + r.IntN(40))}
		if r.IntN(6) == 0 {
			p.width = int64(1 + r.IntN(5000))
		}
		v := p.width
		for range r.IntN(4) {
			count := int64(1 + r.IntN(6))
			if r.IntN(3) == 0 {
				count = int64(20 + r.IntN(400))
			}
			p.axes = append(p.axes, axis{step: steps[r.IntN(len(steps))], count: count})
			v *= count
		}
		volume += v
		ps = append(ps, p)
	}
	if volume > 200_000 {
		return advProgressions(r)
	}
	return ps
}

func advClone(ps []progression) []progression {
	out := make([]progression, len(ps))
	for i, p := range ps {
		p.axes = append([]axis(nil), p.axes...)
		out[i] = p
	}
	return out
}

// advGranules counts the granules of ps by walking translates and marking
// granule ranges in a bitmap (an oracle for large unions).
func advGranules(ps []progression, gran int64) int64 {
	lo, hi := int64(1<<62), int64(-1<<62)
	for _, p := range ps {
		a, b := p.base, p.base+p.width-1
		for _, ax := range p.axes {
			if d := ax.step * (ax.count - 1); d < 0 {
				a += d
			} else {
				b += d
			}
		}
		lo, hi = min(lo, intmath.FloorDiv(a, gran)), max(hi, intmath.FloorDiv(b, gran))
	}
	bits := make([]uint64, (hi-lo)/64+1)
	var n int64
	for _, p := range ps {
		var walk func(d int, base int64)
		walk = func(d int, base int64) {
			if d == len(p.axes) {
				for g := intmath.FloorDiv(base, gran); g <= intmath.FloorDiv(base+p.width-1, gran); g++ {
					if i := g - lo; bits[i/64]&(1<<(i%64)) == 0 {
						bits[i/64] |= 1 << (i % 64)
						n++
					}
				}
				return
			}
			for q := range p.axes[d].count {
				walk(d+1, base+q*p.axes[d].step)
			}
		}
		walk(0, p.base)
	}
	return n
}

// TestAdversarialCounterNasty: counter.count equals byte enumeration on
// unions of progressions with unrelated and negative steps, overlapping
// widths, wide flat ranges, bases near ±2^40 and granularities that are
// not powers of two. The same counter is reused, so the memo is exercised,
// and every union is counted again shifted by a whole number of granules
// (a memo hit) and by a random byte shift (a miss).
func TestAdversarialCounterNasty(t *testing.T) {
	r := rand.New(rand.NewPCG(99, 1))
	grans := []int64{1, 2, 3, 5, 6, 7, 9, 10, 11, 13, 32, 33, 96, 100, 127, 1000, 4096, 5000}
	counters := map[int64]*counter{}
	for c := range 4000 {
		ps := advProgressions(r)
		gran := grans[r.IntN(len(grans))]
		cnt := counters[gran]
		if cnt == nil {
			cnt = newCounter(gran, &Budget{Limit: 1 << 50})
			counters[gran] = cnt
		}
		for _, shift := range []int64{0, gran * int64(r.IntN(1<<20)-(1<<19)), int64(r.IntN(1 << 20))} {
			shifted := advClone(ps)
			for i := range shifted {
				shifted[i].base += shift
			}
			want := advGranules(shifted, gran)
			got, err := cnt.count(shifted)
			if err != nil || got != want {
				t.Fatalf("case %d gran %d shift %d: counter %d (%v), enumeration %d for %+v", c, gran, shift, got, err, want, ps)
			}
		}
	}
}

// TestAdversarialCounterLong: large unions where the periodic sums carry
// most of the count (axes of up to 30 000 translates, periods up to 65 536
// planes, flat ranges of many planes), against a bitmap oracle.
func TestAdversarialCounterLong(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	for c := 0; c < 400; c++ {
		gran := []int64{3, 7, 32, 96, 100, 128, 1000, 4096, 12288, 65536}[r.IntN(10)]
		var steps []int64
		for range 1 + r.IntN(4) {
			s := int64(1 + r.IntN([]int{10, 100, 10000, 100000}[r.IntN(4)]))
			if r.IntN(3) == 0 {
				s = -s
			}
			steps = append(steps, s)
		}
		var ps []progression
		var work int64
		for range 1 + r.IntN(6) {
			p := progression{base: int64(r.IntN(200000) - 100000), width: int64(1 + r.IntN(64))}
			if r.IntN(5) == 0 {
				p.width = int64(1 + r.IntN(300000))
			}
			tr := int64(1)
			for range r.IntN(3) {
				cnt := int64(1 + r.IntN(5))
				if r.IntN(2) == 0 {
					cnt = int64(1 + r.IntN(30000))
				}
				p.axes = append(p.axes, axis{step: steps[r.IntN(len(steps))], count: cnt})
				tr *= cnt
			}
			work += tr * (1 + p.width/gran)
			ps = append(ps, p)
		}
		if work > 3_000_000 {
			c--
			continue
		}
		want := advGranules(ps, gran)
		got, err := newCounter(gran, &Budget{Limit: 1 << 50}).count(advClone(ps))
		if err != nil || got != want {
			t.Fatalf("case %d gran %d: counter %d (%v), oracle %d for %+v", c, gran, got, err, want, ps)
		}
	}
}

// TestAdversarialListRangesShift: listRanges + shiftCounter give the
// granules of the union under any byte shift, the claim SumOverBlocks
// relies on.
func TestAdversarialListRangesShift(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 9))
	grans := []int64{1, 3, 7, 32, 100, 128, 4096}
	for c := range 3000 {
		ps := advProgressions(r)
		gran := grans[r.IntN(len(grans))]
		cnt := newCounter(gran, &Budget{Limit: 1 << 50})
		ranges, ok := cnt.listRanges(advClone(ps))
		if !ok {
			continue
		}
		shifts := newShiftCounter(ranges, gran)
		for range 3 {
			shift := int64(r.IntN(1<<16) - 1<<15)
			shifted := advClone(ps)
			for i := range shifted {
				shifted[i].base += shift
			}
			if got, want := shifts.count(shift), advGranules(shifted, gran); got != want {
				t.Fatalf("case %d gran %d shift %d: shiftCounter %d, enumeration %d for %+v", c, gran, shift, got, want, ps)
			}
		}
	}
}

// advSpec returns a random kernel with nastier indices than generalSpec:
// strides up to 27 of both signs, coupled linear terms, floor and modulo
// terms with divisors up to 41 (cut at breakpoints), coupled and nested
// ones with divisors up to 41 too (cut into residue classes, or into single
// points where their period passes 2^20), large offsets and narrow extents.
func advSpec(r *rand.Rand, domain [3]int64) string {
	return kerneltest.Spec(r, kerneltest.Options{
		Name:       "adv",
		Domain:     domain,
		Fields:     2,
		Loads:      5,
		Stores:     5,
		Lead:       []kerneltest.Term{kerneltest.Offset, kerneltest.Offset, kerneltest.Offset, kerneltest.Absent},
		Extra:      []kerneltest.Term{kerneltest.Constant, kerneltest.Stride, kerneltest.Floor, kerneltest.Mod, kerneltest.CoupledMod, kerneltest.Linearised, kerneltest.Nested, kerneltest.Nested, kerneltest.Nested, kerneltest.Coupled, kerneltest.Offset, kerneltest.Offset, kerneltest.Offset, kerneltest.Offset},
		MaxExtra:   3,
		Strides:    []int64{1, 2, 3, 5, 7, 9, 12, 27, -1, -2, -3, -7},
		MaxDivisor: 41,
		BaseOffset: 1000,
		MaxOffset:  10,
		Margin:     [3]int64{300, 40, 9},
	})
}

// advKernel parses spec, reporting specs the loader rejects (addresses out
// of range) as nil.
func advKernel(spec string) *kernel.Kernel {
	k, err := kernel.Parse([]byte(spec), "inline.yaml")
	if err != nil {
		return nil
	}
	return k
}

// advRandomEngine returns an engine over k with blocks up to 32×8×4,
// folds up to 3 and the point guard on or off.
func advRandomEngine(r *rand.Rand, k *kernel.Kernel) *Engine {
	var block, fold [3]int64
	for d, limit := range [3]int{32, 8, 4} {
		block[d] = int64(1 + r.IntN(limit))
		fold[d] = min(k.Domain[d], int64(1+r.IntN(3)))
	}
	g := geometry.NewGeometry(k.NewLaunch(block, fold))
	return &Engine{Budget: &Budget{Limit: 1 << 50}, Mapper: &geometry.AccessMapper{Kernel: k, Geom: g, PointGuard: r.IntN(2) == 0}}
}

// TestAdversarialEngineNasty: Engine.CountGranules and CountCommonGranules equal
// point-by-point enumeration on advSpec kernels, for loads and stores, both
// address spaces (multi-dimensional granularities that are not multiples
// of the element), granularities 4 B … 2 MiB, one engine (and memo) per
// kernel across requests. Counts the engine declines with ErrWorkBound
// (problem 1) are skipped, anything else fails.
func TestAdversarialEngineNasty(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 11))
	grans := []int64{4, 12, 32, 96, 100, 128, 4096, 512 << 10, 2 << 20}
	compared := 0
	for c := range 250 {
		domain := [3]int64{int64(1 + r.IntN(70)), int64(1 + r.IntN(12)), int64(1 + r.IntN(6))}
		k := advKernel(advSpec(r, domain))
		if k == nil {
			continue
		}
		e := advRandomEngine(r, k)
		for fi, f := range k.Fields {
			for _, store := range []bool{false, true} {
				if len(f.Accesses(store)) == 0 {
					continue
				}
				space, gran := geometry.LinearSpace, grans[r.IntN(len(grans))]
				if r.IntN(3) == 0 {
					space = geometry.MultiDimSpace
					gran = f.Element*int64(1+r.IntN(8)) + int64(r.IntN(int(f.Element)))
				}
				q := Request{Field: fi, Store: store, Gran: gran, Space: space}
				a, b := randomThreads(r, e), randomThreads(r, e)
				where := fmt.Sprintf("case %d field %s store %v gran %d space %d guard %v geom %+v", c, f.Name, store, gran, space, e.Mapper.PointGuard, e.Mapper.Geom)
				got, err := e.CountGranules(q, a)
				if errors.Is(err, ErrWorkBound) {
					continue
				}
				fa := enumerate(e, q, a)
				if err != nil || got != int64(len(fa)) {
					t.Fatalf("%s threads %v: Count %d (%v), enumeration %d\n%s", where, a, got, err, len(fa), generalSpecOf(k))
				}
				fb := enumerate(e, q, b)
				var ab int64
				for g := range fa {
					if fb[g] {
						ab++
					}
				}
				if got, err := e.CountCommonGranules(q, a, b); err != nil || got != ab {
					t.Fatalf("%s a %v b %v: CountCommonGranules %d (%v), enumeration %d\n%s", where, a, b, got, err, ab, generalSpecOf(k))
				}
				compared++
			}
		}
	}
	t.Logf("%d footprints compared", compared)
}

// TestAdversarialSumOverBlocksNasty: SumOverBlocks equals the sum of
// per-block enumerations on advSpec and generalSpec kernels, folds up to 3,
// granularities that are not powers of two.
func TestAdversarialSumOverBlocksNasty(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	for c := range 120 {
		domain := [3]int64{int64(4 + r.IntN(50)), int64(1 + r.IntN(10)), int64(1 + r.IntN(5))}
		spec := generalSpec(r, domain)
		if r.IntN(2) == 0 {
			spec = advSpec(r, domain)
		}
		k := advKernel(spec)
		if k == nil {
			continue
		}
		e := advRandomEngine(r, k)
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
			for _, store := range []bool{false, true} {
				if len(f.Accesses(store)) == 0 {
					continue
				}
				gran := []int64{4, 12, 24, 32, 100, 128, 4096, 512 << 10}[r.IntN(8)]
				q := Request{Field: fi, Store: store, Gran: gran, Space: geometry.LinearSpace}
				got, err := e.SumOverBlocks(q, blocks)
				if errors.Is(err, ErrWorkBound) {
					continue
				}
				var want int64
				for _, b := range blocks {
					want += int64(len(enumerate(e, q, []lattice.Box{b})))
				}
				if err != nil || got != want {
					t.Fatalf("case %d gran %d guard %v geom %+v: SumOverBlocks %d (%v), enumeration %d\n%s", c, gran, e.Mapper.PointGuard, g, got, err, want, generalSpecOf(k))
				}
			}
		}
	}
}
