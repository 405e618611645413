package kernel

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// star5Spec is a 2-D 5-point stencil advancing its state A in time; its
// one store writes A's next value to B at the lattice point.
const star5Spec = `name: star5
domain: [256, 256]
state: A
steps: 1
fields:
  - name: A
    element: 4
    extent: [272, 272]
    offset: 2184
    stage: {copy: block}
    load: [[x, y], [x - 1, y], [x + 1, y], [x, y - 1], [x, y + 1]]
  - name: P
    element: 4
    load: [[x, y]]
  - name: B
    element: 4
    store: [[x, y]]
`

// TestStepWorkByHand checks the updates of a 4×4 block of the 5-point
// star (halo 1 on each side in x and y): step t of T computes the block
// grown by T − t halos, (4 + 2(T − t))² points.
func TestStepWorkByHand(t *testing.T) {
	k, err := Parse([]byte(star5Spec), "star5.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		steps, computed int64
		redundant       float64
	}{
		{1, 16, 0},                    // 4²
		{2, 36 + 16, 20.0 / 52},       // 6² + 4², 2·16 useful
		{3, 64 + 36 + 16, 68.0 / 116}, // 8² + 6² + 4², 3·16 useful
	} {
		l := k.NewLaunch([3]int64{4, 4, 1}, NoFold)
		l.Steps = c.steps
		w, err := k.StepWorkOf(l)
		if err != nil {
			t.Fatal(err)
		}
		if w.Points != 16 || w.Computed != c.computed || w.Useful() != 16*c.steps {
			t.Errorf("T = %d: %+v, want 16 points, computed %d", c.steps, w, c.computed)
		}
		if got := w.RedundantShare(); got != c.redundant {
			t.Errorf("T = %d: redundant share %g, want %g", c.steps, got, c.redundant)
		}
		if got, want := w.ComputedPerUseful(), float64(c.computed)/float64(16*c.steps); got != want {
			t.Errorf("T = %d: computed per useful %g, want %g", c.steps, got, want)
		}
	}
}

// TestStepTiles checks the state's tile grown by T halos, (4 + 2T)² floats
// under a 4×4 block, held twice in shared memory.
func TestStepTiles(t *testing.T) {
	k, err := Parse([]byte(star5Spec), "star5.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for T := int64(1); T <= 3; T++ {
		l := k.NewLaunch([3]int64{4, 4, 1}, NoFold)
		l.Steps = T
		tile, err := TileOf(k.Fields[0], l)
		if err != nil {
			t.Fatal(err)
		}
		side := 4 + 2*T
		if tile.Size != [3]int64{side, side, 1} || tile.Dims[0].Lo != -T || tile.Dims[1].Hi != T {
			t.Errorf("T = %d: tile %+v, want %d × %d from −%d", T, tile, side, side, T)
		}
		shared, err := StagedSharedBytes(k, l)
		if err != nil {
			t.Fatal(err)
		}
		if want := 2 * 4 * side * side; shared != want {
			t.Errorf("T = %d: shared memory %d bytes, want two buffers of %d", T, shared, want/2)
		}
	}
}

func TestStepsSpecErrors(t *testing.T) {
	for _, c := range []struct{ spec, at, want string }{
		{strings.Replace(star5Spec, "steps: 1", "steps: 0", 1), "star5.yaml:4:8:", "steps = 0: expected a value from 1 to 1024"},
		{strings.Replace(star5Spec, "state: A\nsteps: 1", "steps: 3", 1), "star5.yaml:3:8:", "names no state"},
		{strings.Replace(star5Spec, "state: A", "state: P", 1), "star5.yaml:3:8:", `state "P" is not staged`},
		{strings.Replace(star5Spec, "state: A", "state: C", 1), "star5.yaml:3:8:", `state "C": no field of that name`},
		{strings.Replace(star5Spec, "store: [[x, y]]", "store: [[x + 1, y]]", 1), "star5.yaml:17:12:", "not at the lattice point"},
		{strings.Replace(star5Spec, "store: [[x, y]]", "store: [[x, y], [x, y + 1]]", 1), "star5.yaml:17:12:", "stores 2 accesses"},
		{strings.Replace(star5Spec, "    element: 4\n    store", "    element: 8\n    store", 1), "star5.yaml:17:12:", "8-byte elements"},
		{strings.Replace(star5Spec, "    load: [[x, y]]\n", "    load: [[x, y]]\n    store: [[x, y]]\n", 1), "star5.yaml:15:12:", `fields "P" and "B" both store`},
	} {
		_, err := Parse([]byte(c.spec), "star5.yaml")
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), c.at) {
			t.Errorf("want an error at %s naming %q, got %v", c.at, c.want, err)
		}
	}
}

func TestCheckSteps(t *testing.T) {
	k, err := Parse([]byte(star5Spec), "star5.yaml")
	if err != nil {
		t.Fatal(err)
	}
	l := k.NewLaunch([3]int64{4, 4, 1}, NoFold)
	for _, c := range []struct {
		steps    int64
		unstaged bool
		want     string
	}{
		{1, true, ""},
		{4, false, ""},
		{4, true, "read from global memory"},
		{-1, false, "expected 1 to 1024"},
		{MaxSteps + 1, false, "expected 1 to 1024"},
	} {
		l.Steps, l.Unstaged = c.steps, c.unstaged
		err := k.CheckSteps(l)
		if (c.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), c.want) {
			t.Errorf("steps %d unstaged %v: %v, want %q", c.steps, c.unstaged, err, c.want)
		}
	}
}

// TestStepRegionByHand checks the step regions of a 32×8 block of the
// 5-point star folded 2×2 over three steps, by hand: the first step grows
// the block's 64×16 points by 2 halos to 68×20 from (−2, −2), which 3×3
// points per thread cover; thread (31, 7)'s point (1, 1) lies at 31 + 32
// and 7 + 8 from the region's first point under the strided tiling, at
// 31·3 + 1 (past the region) under thread folding; its point (2, 2) at
// 31 + 64 lies past the region. And it checks by enumeration that every
// step's points, each taken by exactly one thread, number as StepWork
// counts them.
func TestStepRegionByHand(t *testing.T) {
	k, err := Parse([]byte(star5Spec), "star5.yaml")
	if err != nil {
		t.Fatal(err)
	}
	halo, err := StepHalo(k.StateField())
	if err != nil {
		t.Fatal(err)
	}
	l := Launch{Block: [3]int64{32, 8, 1}, Fold: [3]int64{2, 2, 1}, Domain: k.Domain, Tiling: TileStrided, Steps: 3}
	r := StepRegionOf(l, halo, 2)
	if want := (StepRegion{Grow: 2, Lo: [3]int64{-2, -2, 0}, Size: [3]int64{68, 20, 1}, Fold: [3]int64{3, 3, 1}}); r != want {
		t.Fatalf("StepRegionOf = %+v, want %+v", r, want)
	}
	q := [3]int64{31, 7, 0}
	if off, ok := r.Offset(q, [3]int64{1, 1, 0}, l.Block, TileStrided); !ok || off != [3]int64{61, 13, 0} {
		t.Errorf("strided point (1, 1) of thread (31, 7): %v %v, want [61 13 0] true", off, ok)
	}
	if _, ok := r.Offset(q, [3]int64{1, 1, 0}, l.Block, TileConsecutive); ok {
		t.Error("consecutive point (1, 1) of thread (31, 7) lies in the region")
	}
	if _, ok := r.Offset(q, [3]int64{2, 2, 0}, l.Block, TileStrided); ok {
		t.Error("strided point (2, 2) of thread (31, 7) lies in the region")
	}
	w, err := k.StepWorkOf(l)
	if err != nil {
		t.Fatal(err)
	}
	for _, tiling := range []Tiling{TileConsecutive, TileStrided} {
		var computed int64
		for step := int64(1); step <= l.Steps; step++ {
			r := StepRegionOf(l, halo, l.Steps-step)
			seen := map[[3]int64]bool{}
			for tx := range l.Block[0] {
				for ty := range l.Block[1] {
					forEachOffset(r.Fold, func(j [3]int64) {
						off, ok := r.Offset([3]int64{tx, ty, 0}, j, l.Block, tiling)
						if !ok {
							return
						}
						if seen[off] {
							t.Errorf("%s step %d: point %v taken twice", tiling, step, off)
						}
						seen[off] = true
						for c := range 3 {
							if off[c] < r.Lo[c] || off[c] >= r.Lo[c]+r.Size[c] {
								t.Errorf("%s step %d: point %v outside the region %+v", tiling, step, off, r)
							}
						}
					})
				}
			}
			computed += int64(len(seen))
		}
		if computed != w.Computed {
			t.Errorf("%s: the steps take %d points, StepWork computes %d", tiling, computed, w.Computed)
		}
	}
}

// bruteIssuedLanes counts the lanes that the warps of l's block issue for
// region r thread by thread: the pairs (fold point, warp) where a thread of
// the warp (its linear index over warpSize) has its point in the region,
// times warpSize.
func bruteIssuedLanes(r StepRegion, l Launch, warpSize int64) int64 {
	issued := map[[4]int64]bool{}
	b := l.Block
	forEachOffset(b, func(q [3]int64) {
		warp := (q[0] + b[0]*q[1] + b[0]*b[1]*q[2]) / warpSize
		forEachOffset(r.Fold, func(j [3]int64) {
			if _, ok := r.Offset(q, j, b, l.Tiling); ok {
				issued[[4]int64{j[0], j[1], j[2], warp}] = true
			}
		})
	})
	return int64(len(issued)) * warpSize
}

// TestIssuedLanesByHand counts the issued lanes of the 5-point star (halo
// 1 on each side) over two steps by hand, under both tilings.
//
// Block 1×32, fold 1×1, warps of 32: one warp. Step 1 computes the block
// grown by one halo, 3×34 points, with fold 3×2 (⌈3/1⌉, ⌈34/32⌉). At fold
// row 0 all 32 threads have a point (rows 0…31, or 0, 2, …, 62 < 68 under
// the consecutive tiling's 2y, 2y + 1); at fold row 1 two (rows 32 and
// 33), or seventeen (2y + 1 < 34): the warp issues at all 3·2 fold points,
// 6·32 = 192 lanes for 102 points. Step 2 computes the block's own 32
// points: 32 lanes. Per lane of T = 2 updates of the block's 32 points:
// (192 + 32) / (2·32) = 3.5, where the computed points are (102 + 32) / 64.
//
// Block 8×8, strided: two warps, rows 0…3 and 4…7. Step 1's region 10×10
// has fold 2×2; fold column 1 reaches columns 8 and 9 (threads x < 2), fold
// row 1 rows 8 and 9 (threads y < 2, all in warp 0): the fold points (0, 0)
// and (1, 0) issue both warps, (0, 1) and (1, 1) warp 0 alone, 6·32 = 192
// lanes; step 2 64: (192 + 64) / (2·64) = 2. Consecutive, thread y takes
// rows 2y and 2y + 1 < 10, so y < 5: both warps at every fold point, 8·32
// = 256 lanes, (256 + 64) / 128 = 2.5.
func TestIssuedLanesByHand(t *testing.T) {
	k, err := Parse([]byte(star5Spec), "star5.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		block              [3]int64
		tiling             Tiling
		step1              int64
		issued, computedPU float64
	}{
		{[3]int64{1, 32, 1}, TileStrided, 192, 3.5, 134.0 / 64},
		{[3]int64{1, 32, 1}, TileConsecutive, 192, 3.5, 134.0 / 64},
		{[3]int64{8, 8, 1}, TileStrided, 192, 2, 164.0 / 128},
		{[3]int64{8, 8, 1}, TileConsecutive, 256, 2.5, 164.0 / 128},
	} {
		l := k.NewLaunch(c.block, NoFold)
		l.Tiling, l.Steps = c.tiling, 2
		w, err := k.StepWorkOf(l)
		if err != nil {
			t.Fatal(err)
		}
		if got := w.Region(1).IssuedLanes(l.Block, l.Tiling, 32); got != c.step1 {
			t.Errorf("block %v %s: step 1 issues %d lanes, want %d", c.block, c.tiling, got, c.step1)
		}
		if got := w.IssuedPerUseful(32); got != c.issued {
			t.Errorf("block %v %s: issued per useful %g, want %g", c.block, c.tiling, got, c.issued)
		}
		if got := w.ComputedPerUseful(); got != c.computedPU {
			t.Errorf("block %v %s: computed per useful %g, want %g", c.block, c.tiling, got, c.computedPU)
		}
	}
}

// TestIssuedLanesBruteForce checks StepRegion.IssuedLanes against a count
// thread by thread (bruteIssuedLanes) on random blocks, folds, halos,
// growths, tilings and warp sizes, and StepWork.IssuedPerUseful against
// the brute-force counts of its steps for a 2-D state of random halos; it
// equals ComputedPerUseful where every step's warps are full.
func TestIssuedLanesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	tilings := []Tiling{TileConsecutive, TileStrided}
	warpSizes := []int64{4, 32, 64}
	for range 300 {
		var l Launch
		var halo [3][2]int64
		for c := range 3 {
			l.Block[c] = 1 + rng.Int64N(12)
			l.Fold[c] = 1 + rng.Int64N(3)
			halo[c] = [2]int64{rng.Int64N(3), rng.Int64N(3)}
		}
		l.Tiling = tilings[rng.IntN(2)]
		ws := warpSizes[rng.IntN(len(warpSizes))]
		r := StepRegionOf(l, halo, rng.Int64N(4))
		if got, want := r.IssuedLanes(l.Block, l.Tiling, ws), bruteIssuedLanes(r, l, ws); got != want {
			t.Errorf("block %v fold %v %s halo %v region %+v, warp %d: %d issued lanes, brute force %d", l.Block, l.Fold, l.Tiling, halo, r, ws, got, want)
		}
	}
	for range 60 {
		var h [4]int64
		for i := range h {
			h[i] = rng.Int64N(3)
		}
		spec := fmt.Sprintf(`name: grown
domain: [64, 64]
state: A
fields:
  - name: A
    element: 4
    extent: [72, 72]
    offset: 292
    stage: {copy: block}
    load: [[x, y], [x - %d, y], [x + %d, y], [x, y - %d], [x, y + %d]]
  - name: B
    element: 4
    store: [[x, y]]
`, h[0], h[1], h[2], h[3])
		k, err := Parse([]byte(spec), "grown.yaml")
		if err != nil {
			t.Fatal(err)
		}
		l := k.NewLaunch([3]int64{1 + rng.Int64N(40), 1 + rng.Int64N(12), 1}, [3]int64{1 + rng.Int64N(3), 1 + rng.Int64N(3), 1})
		l.Tiling, l.Steps = tilings[rng.IntN(2)], 1+rng.Int64N(5)
		ws := warpSizes[rng.IntN(len(warpSizes))]
		w, err := k.StepWorkOf(l)
		if err != nil {
			t.Fatal(err)
		}
		var issued int64
		full := true
		for step := int64(1); step <= l.Steps; step++ {
			r := w.Region(step)
			n := bruteIssuedLanes(r, l, ws)
			issued += n
			full = full && n == r.Points()
		}
		own := bruteIssuedLanes(w.Region(l.Steps), l, ws)
		got, want := w.IssuedPerUseful(ws), float64(issued)/float64(l.Steps*own)
		if got != want {
			t.Errorf("halo %v block %v fold %v %s T %d warp %d: issued per useful %g, brute force %g", h, l.Block, l.Fold, l.Tiling, l.Steps, ws, got, want)
		}
		if full && got != w.ComputedPerUseful() {
			t.Errorf("halo %v block %v fold %v %s T %d warp %d: full warps issue %g per useful, computed %g", h, l.Block, l.Fold, l.Tiling, l.Steps, ws, got, w.ComputedPerUseful())
		}
		if got < w.ComputedPerUseful()*float64(w.Points)/float64(own) {
			t.Errorf("halo %v block %v fold %v %s T %d warp %d: issued per useful %g below the computed points' %g", h, l.Block, l.Fold, l.Tiling, l.Steps, ws, got, w.ComputedPerUseful())
		}
	}
}

// forEachOffset calls fn with every offset j, 0 ≤ j < n.
func forEachOffset(n [3]int64, fn func([3]int64)) {
	for z := range n[2] {
		for y := range n[1] {
			for x := range n[0] {
				fn([3]int64{x, y, z})
			}
		}
	}
}

// TestShiftAccess checks ShiftAccess point by point: at every point p of
// the box it is shifted over, the shifted access applies exactly where
// p + delta lies in the domain and the access's own guards hold at
// p + delta, and there its index is the access's at p + delta.
func TestShiftAccess(t *testing.T) {
	x, err := Var(0).Add(Const(1))
	if err != nil {
		t.Fatal(err)
	}
	guards, err := ParseCondition("x >= 2 and y < 4")
	if err != nil {
		t.Fatal(err)
	}
	a := Access{Index: [3]Expr{x, Var(1), Const(0)}, Text: "[x + 1, y]", Guards: guards}
	domain := [3]int64{8, 6, 1}
	for _, c := range []struct{ delta, over [3]int64 }{
		{[3]int64{-3, 2, 0}, [3]int64{10, 5, 1}},
		{[3]int64{0, 0, 0}, domain},
		{[3]int64{2, -1, 0}, domain},
		{[3]int64{-1, -2, 0}, [3]int64{12, 12, 1}},
	} {
		s, err := ShiftAccess(a, c.delta, c.over, domain)
		if err != nil {
			t.Fatal(err)
		}
		holds := func(gs []Expr, p Point) bool {
			for _, g := range gs {
				if g.Eval(p) < 0 {
					return false
				}
			}
			return true
		}
		for py := range c.over[1] {
			for px := range c.over[0] {
				p := Point{px, py, 0}
				q := Point{px + c.delta[0], py + c.delta[1], 0}
				want := q[0] >= 0 && q[0] < domain[0] && q[1] >= 0 && q[1] < domain[1] && holds(a.Guards, q)
				if got := holds(s.Guards, p); got != want {
					t.Fatalf("delta %v: at %v the shifted access applies: %v, want %v", c.delta, p, got, want)
				}
				for j := range 3 {
					if want && s.Index[j].Eval(p) != a.Index[j].Eval(q) {
						t.Fatalf("delta %v: at %v index %d is %d, want %d", c.delta, p, j, s.Index[j].Eval(p), a.Index[j].Eval(q))
					}
				}
			}
		}
	}
}
