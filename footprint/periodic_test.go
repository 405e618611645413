package footprint

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/polyvol/polyvol/geometry"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/kernel/kerneltest"
	"github.com/polyvol/polyvol/lattice"
)

// wrappedSpec returns a random kernel whose accesses wrap periodically, as
// the L1-resident box stencil's (x mod 128) + c, (y mod 64) + c′ do, on a
// domain that holds several periods: modulo and floor terms of one
// coordinate (rigid: every address drifts alike over a period), now and
// then with a periodic neighbour (x + k) mod P, a term of two coordinates
// or a stride, and in one kernel of four with affine indices beside the
// wrapped ones (which make the addresses drift differently, so that their
// distances enter the block classes' keys).
func wrappedSpec(r *rand.Rand, domain [3]int64) string {
	lead := []kerneltest.Term{kerneltest.Wrapped}
	if r.IntN(4) == 0 {
		lead = []kerneltest.Term{kerneltest.Wrapped, kerneltest.Wrapped, kerneltest.Wrapped, kerneltest.Offset}
	}
	return kerneltest.Spec(r, kerneltest.Options{
		Name:      "wrapped",
		Domain:    domain,
		Fields:    2,
		Loads:     5,
		Stores:    5,
		Lead:      lead,
		MaxShift:  4,
		Periods:   []int64{2, 3, 4, 6, 8, 12, 16, 32},
		MaxOffset: 39,
		Margin:    [3]int64{90, 20, 4},
	})
}

// wrappedLaunch returns a random launch of k whose blocks are at most one
// period wide or span several, with folds of up to 2 in x and y.
func wrappedLaunch(r *rand.Rand, k *kernel.Kernel) kernel.Launch {
	block := [3]int64{int64([]int{1, 2, 3, 4, 8, 16, 32, 40}[r.IntN(8)]), int64(1 + r.IntN(9)), int64(1 + r.IntN(2))}
	fold := [3]int64{int64(1 + r.IntN(2)), int64(1 + r.IntN(2)), 1}
	if r.IntN(2) == 0 {
		fold = kernel.NoFold
	}
	return k.NewLaunch(block, fold)
}

// gridBlocks lists the block indices of l's grid, x fastest.
func gridBlocks(l kernel.Launch) [][3]int64 { return lattice.Box{Hi: l.Grid()}.Points() }

// TestSumOverBlocksWrappedEqualsEnumeration checks SumOverBlocks on wrapped
// accesses, whose blocks it sorts into classes by phase modulo the period
// and, where no term wraps inside a block, by the affine shape of the
// addresses, against enumeration block by block: for the blocks of the
// whole grid and for their hardware warps (the thread boxes WarpSectors
// counts), loads and stores, the point guard on and off, at granularities
// from 4 B to a 4 KiB page.
func TestSumOverBlocksWrappedEqualsEnumeration(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 128))
	compared := 0
	for c := range 120 {
		domain := [3]int64{int64(20 + r.IntN(120)), int64(4 + r.IntN(40)), int64(1 + r.IntN(3))}
		k := parseKernel(t, wrappedSpec(r, domain))
		l := wrappedLaunch(r, k)
		e := &Engine{Mapper: &geometry.AccessMapper{Kernel: k, Geom: geometry.NewGeometry(l), PointGuard: r.IntN(2) == 0}}
		g := e.Mapper.Geom
		var blocks, warps []lattice.Box
		wb, warpBoxes := WarpThreadBoxes(l.Block, 32)
		for _, b := range gridBlocks(l) {
			bt := g.BlockThreads(b)
			blocks = append(blocks, bt)
			if warpBoxes {
				for _, w := range wb {
					warps = append(warps, w.Shift(bt.Lo))
				}
			}
		}
		for fi, f := range k.Fields {
			for _, store := range []bool{false, true} {
				if len(f.Accesses(store)) == 0 {
					continue
				}
				gran := []int64{4, 8, 32, 128, 4096}[r.IntN(5)]
				q := Request{Field: fi, Store: store, Gran: gran, Space: geometry.LinearSpace}
				if _, ok := newBlockClassifier(e, q); !ok {
					t.Fatalf("case %d field %s: no block classifier for wrapped accesses\n%s", c, f.Name, generalSpecOf(k))
				}
				for _, boxes := range [][]lattice.Box{blocks, warps} {
					if len(boxes) == 0 {
						continue
					}
					got, err := e.SumOverBlocks(q, boxes)
					if err != nil {
						t.Fatal(err)
					}
					var want int64
					for _, b := range boxes {
						want += int64(len(enumerate(e, q, []lattice.Box{b})))
					}
					if got != want {
						t.Fatalf("case %d field %s store %v gran %d block %v fold %v guard %v, %d boxes: SumOverBlocks %d, enumeration %d\n%s",
							c, f.Name, store, gran, l.Block, l.Fold, e.Mapper.PointGuard, len(boxes), got, want, generalSpecOf(k))
					}
					compared++
				}
			}
		}
	}
	t.Logf("%d sums compared", compared)
}

// TestAllocLinesWrappedEqualsBrute checks the allocation lines of wrapped
// accesses, summed over the whole grid by SumOverBlocks, against the
// thread-by-thread oracle bruteAllocLines under both methods' rules.
func TestAllocLinesWrappedEqualsBrute(t *testing.T) {
	r := rand.New(rand.NewPCG(29, 64))
	for c := range 40 {
		domain := [3]int64{int64(20 + r.IntN(120)), int64(4 + r.IntN(40)), int64(1 + r.IntN(3))}
		k := parseKernel(t, wrappedSpec(r, domain))
		l := k.NewLaunch([3]int64{int64([]int{1, 4, 16, 32, 40}[r.IntN(5)]), int64(1 + r.IntN(9)), 1}, kernel.NoFold)
		d := lookupDevice(t, []string{"V100", "A100-40GB", "MI210"}[r.IntN(3)])
		blocks := gridBlocks(l)
		for _, mr := range methodRules {
			e := &Engine{Mapper: &geometry.AccessMapper{Kernel: k, Geom: geometry.NewGeometry(l), PointGuard: mr.rules.ClipLanes}}
			lists, err := Instructions(k, l, d.Memory(), mr.rules.Fusion)
			if err != nil {
				t.Fatal(err)
			}
			fast, brute := e.AllocLines(l, d.Memory(), mr.rules), bruteAllocLines(l, d, mr.rules)
			for _, fi := range lists {
				got, err := fast(fi, blocks)
				if err != nil {
					t.Fatal(err)
				}
				want, err := brute(fi, blocks)
				if err != nil {
					t.Fatal(err)
				}
				if got != want {
					t.Fatalf("case %d %s on %s block %v field %s store %v: AllocLines %v, brute force %v\n%s",
						c, mr.name, d.Name, l.Block, fi.Field.Name, fi.Store, got, want, generalSpecOf(k))
				}
			}
		}
	}
}

// TestMemoisedEqualsEnumerationWrapped checks the warp measures on wrapped
// accesses, where blockClasses groups the sample blocks by phase modulo
// the period and warpMeasure memoises warps by phase and by the affine
// shape of their addresses, against plain lane-by-lane enumeration of
// every warp of every sample block.
func TestMemoisedEqualsEnumerationWrapped(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 7))
	devices := []string{"V100", "A100-40GB", "MI210", "RX6900XT", "A40"}
	for i := range 40 {
		domain := [3]int64{int64(20 + r.IntN(120)), int64(4 + r.IntN(40)), int64(1 + r.IntN(3))}
		k := parseKernel(t, wrappedSpec(r, domain))
		l := wrappedLaunch(r, k)
		sample := gridBlocks(l)
		d := lookupDevice(t, devices[i%len(devices)])
		checkMemoisedEqualsEnumerated(t, fmt.Sprintf("case %d", i), k, l, d, sample)
	}
}

// l1onlySpec is the L1-resident variant of the V100 box stencil of range 4
// (accuracy/hardware.go, box2DSpec): the coordinates wrap into a 128×64
// tile.
func l1onlySpec() string {
	spec := "name: box2d-r4-l1only\ndomain: [14976, 14992]\nfields:\n  - name: B\n    element: 8\n    extent: [15000, 15000]\n    offset: 60016\n    load: ["
	for dy := -4; dy <= 4; dy++ {
		for dx := -4; dx <= 4; dx++ {
			if dy != -4 || dx != -4 {
				spec += ", "
			}
			spec += fmt.Sprintf("[(x mod 128) + %d, (y mod 64) + %d]", 1020+dx, 1020+dy)
		}
	}
	return spec + "]\n"
}

// BenchmarkWrappedSumOverBlocks times the per-warp L2→L1 sectors of the
// L1-resident box stencil (range 4, block 32×8, a V100 wave of 640 blocks,
// 5120 warps), the count that made its estimate take seconds: "classes"
// is SumOverBlocks, "one-by-one" counts every warp's footprint on its own,
// as SumOverBlocks did for floor and modulo terms before it classified
// them. The sums are checked equal.
func BenchmarkWrappedSumOverBlocks(b *testing.B) {
	k := parseKernel(b, l1onlySpec())
	d := lookupDevice(b, "V100")
	l := k.NewLaunch([3]int64{32, 8, 1}, kernel.NoFold)
	g := geometry.NewGeometry(l)
	var boxes []lattice.Box
	wb, _ := WarpThreadBoxes(l.Block, int64(d.WarpSize))
	for _, blk := range interiorWave(b, k, l, d) {
		for _, w := range wb {
			boxes = append(boxes, w.Shift(g.BlockThreads(blk).Lo))
		}
	}
	q := Request{Gran: d.L1FetchBytes, Space: geometry.LinearSpace}
	engine := func() *Engine {
		return &Engine{Budget: &Budget{Limit: 1 << 40}, Mapper: &geometry.AccessMapper{Kernel: k, Geom: g, PointGuard: true}}
	}
	var sums [2]int64
	b.Run("classes", func(b *testing.B) {
		for b.Loop() {
			n, err := engine().SumOverBlocks(q, boxes)
			if err != nil {
				b.Fatal(err)
			}
			sums[0] = n
		}
	})
	b.Run("one-by-one", func(b *testing.B) {
		for b.Loop() {
			e := engine()
			var sum int64
			for _, t := range boxes {
				n, err := e.CountGranules(q, []lattice.Box{t})
				if err != nil {
					b.Fatal(err)
				}
				sum += n
			}
			sums[1] = sum
		}
	})
	if sums[0] != sums[1] {
		b.Fatalf("%d warps: SumOverBlocks %d sectors, one by one %d", len(boxes), sums[0], sums[1])
	}
}
