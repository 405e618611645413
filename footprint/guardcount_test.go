package footprint

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/intmath"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/kernel/kerneltest"
)

// pinStores makes about half of k's stores apply on one layer only, as
// the store of a reduction's result does: v = c for a coordinate v and c
// in the domain, or a two-sided range c ≤ v < c + w.
func pinStores(r *rand.Rand, k *kernel.Kernel) {
	for _, f := range k.Fields {
		for i := range f.Stores {
			if r.IntN(2) == 0 {
				continue
			}
			v := r.IntN(3)
			c := r.Int64N(k.Domain[v])
			w := int64(1)
			if r.IntN(2) == 0 {
				w += r.Int64N(k.Domain[v] - c)
			}
			lo, _ := kernel.Var(v).Add(kernel.Const(-c))        // v ≥ c
			hi, _ := kernel.Const(c + w - 1).Sub(kernel.Var(v)) // v ≤ c + w − 1
			f.Stores[i].Guards = []kernel.Expr{lo, hi}
		}
	}
}

// laneSums are the per-field sums of the warp measures that the lane-by-lane
// oracle adds up; warpSectors are the sectors of all of a field's
// instructions together per warp (WarpL1Load).
type laneSums struct {
	sectors, bank, lines, warpSectors int64
	tag                               float64
}

// enumeratedLaneSums is the oracle for the guarded warps: every hardware
// warp (of d's warp size for the sectors, of its sub-warp size for the L1
// terms) of every sample block, every instruction, every lane asked
// whether it executes (pointGuard.executes), with no memo, no classes and
// no boxes of threads.
func enumeratedLaneSums(lists []FieldInstructions, l kernel.Launch, d *device.Device, sample [][3]int64) []laneSums {
	guard := newPointGuard(l, true, lists)
	model := cycleModel{d: d.Memory(), wavefrontLanes: ExactWarpRules.WavefrontLanes}
	lanesOf := func(w warpTile, in *Instruction) []int64 {
		var out []int64
		for _, o := range w.lanes.offsets {
			p := kernel.Point{w.base[0] + o[0], w.base[1] + o[1], w.base[2] + o[2]}
			if guard.executes(p, in) {
				out = append(out, in.Address.Eval(p))
			}
		}
		return out
	}
	var sums []laneSums
	for _, fi := range lists {
		var s laneSums
		granule := d.L1FetchBytes
		if fi.Store {
			granule = d.L1WriteBytes
		}
		for _, w := range hardwareWarps(l.Block, d.WarpSize, sample, nil) {
			var ids []int64
			for i := range fi.Instructions {
				in := &fi.Instructions[i]
				for _, a := range lanesOf(w, in) {
					for g := intmath.FloorDiv(a, d.L1FetchBytes); g <= intmath.FloorDiv(a+in.Width-1, d.L1FetchBytes); g++ {
						ids = append(ids, g)
					}
				}
			}
			s.warpSectors += int64(len(distinct(ids)))
		}
		for i := range fi.Instructions {
			in := &fi.Instructions[i]
			for _, w := range hardwareWarps(l.Block, d.WarpSize, sample, nil) {
				var ids []int64
				for _, a := range lanesOf(w, in) {
					for g := intmath.FloorDiv(a, granule); g <= intmath.FloorDiv(a+in.Width-1, granule); g++ {
						ids = append(ids, g)
					}
				}
				s.sectors += int64(len(distinct(ids)))
			}
			for _, w := range hardwareWarps(l.Block, d.SubWarpSize, sample, nil) {
				t := model.terms(lanesOf(w, in), in.Width)
				s.bank += t.bank
				s.lines += t.lines
				s.tag += t.tag
			}
		}
		sums = append(sums, s)
	}
	return sums
}

// TestCountedGuardsEqualEnumeration checks the warp volumes (warpL1Load
// included, which measures all of a field's loads together) and L1 cycles
// of random guarded kernels, whose executing lanes are counted from boxes
// of threads and memoised, against the lane-by-lane oracle
// (enumeratedLaneSums): partial loads and stores of one-sided bounds,
// stores pinned to one layer or a range, folds that cover a whole
// dimension as a reduction's do, both tilings, NV and CDNA devices.
func TestCountedGuardsEqualEnumeration(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 3))
	devices := []string{"A100-40GB", "MI210"}
	for c := range 40 {
		domain := [3]int64{int64(1 + r.IntN(90)), int64(1 + r.IntN(24)), int64(1 + r.IntN(4))}
		k := kerneltest.Kernel(t, r, kerneltest.Options{
			Domain: domain, Fields: 2, Loads: 3, Stores: 2, Partial: true,
			Lead:  []kerneltest.Term{kerneltest.Affine, kerneltest.Offset},
			Extra: []kerneltest.Term{kerneltest.Floor, kerneltest.Absent}, MaxExtra: 1,
			Margin: [3]int64{40, 8, 2}, Multiplicity: true,
		})
		pinStores(r, k)
		var block, fold [3]int64
		for i, limit := range [3]int{40, 6, 2} {
			block[i] = int64(1 + r.IntN(limit))
			fold[i] = min(domain[i], int64(1+r.IntN(3)))
		}
		if r.IntN(3) == 0 { // a reduction's fold over the whole of y
			fold[1] = domain[1]
		}
		l := k.NewLaunch(block, fold)
		l.Tiling = kernel.Tiling(r.IntN(2))
		g := l.Grid()
		sample := [][3]int64{{g[0] - 1, g[1] - 1, g[2] - 1}}
		for range 3 {
			sample = append(sample, [3]int64{r.Int64N(g[0]), r.Int64N(g[1]), r.Int64N(g[2])})
		}
		d := lookupDevice(t, devices[c%len(devices)])
		label := fmt.Sprintf("case %d on %s, block %v fold %v %s", c, d.Name, block, fold, l.Tiling)
		lists, err := Instructions(k, l, d.Memory(), ExactWarpRules.Fusion)
		if err != nil {
			t.Fatalf("%s: %v", label, err)
		}
		want := enumeratedLaneSums(lists, l, d, sample)
		warp, err := WarpVolumesOf(lists, l, d.Memory(), ExactWarpRules, sample, &Budget{})
		if err != nil {
			t.Fatalf("%s: %v", label, err)
		}
		l1, err := L1CyclesOf(lists, l, d.Memory(), ExactWarpRules, sample, func(FieldInstructions, [][3]int64) (float64, error) { return 0, nil }, &Budget{})
		if err != nil {
			t.Fatalf("%s: %v", label, err)
		}
		threads := float64(newPointGuard(l, true, lists).activeThreadsIn(sample))
		for i, fi := range lists {
			mult := float64(fi.Field.Multiplicity)
			granule, got := d.L1FetchBytes, warp.Fields[i].L1Load
			if fi.Store {
				granule, got = d.L1WriteBytes, warp.Fields[i].L2Store
			}
			if w := mult * float64(want[i].sectors*granule) / float64(len(sample)); got != w {
				t.Fatalf("%s, field %s store %v: %v bytes per block, enumerated %v\n%s", label, fi.Field.Name, fi.Store, got, w, generalSpecOf(k))
			}
			if w := mult * float64(want[i].warpSectors*d.L1FetchBytes) / float64(len(sample)); !fi.Store && warp.Fields[i].WarpL1Load != w {
				t.Fatalf("%s, field %s: warpL1Load %v bytes per block, enumerated %v\n%s", label, fi.Field.Name, warp.Fields[i].WarpL1Load, w, generalSpecOf(k))
			}
			f := l1.Fields[i]
			if bank, lines := mult*float64(want[i].bank)/threads, mult*float64(want[i].lines)/threads; f.DataPipe != bank || f.Lines != lines || !near(f.Tag, mult*want[i].tag/threads, 1e-9) {
				t.Fatalf("%s, field %s store %v: L1 data pipe, lines, tag %v, %v, %v; enumerated %v, %v, %v\n%s", label, fi.Field.Name, fi.Store, f.DataPipe, f.Lines, f.Tag, bank, lines, mult*want[i].tag/threads, generalSpecOf(k))
			}
		}
	}
}

// matvecSpec is a matrix-vector product y = A·x over the lattice (x, y) =
// (row, column): every thread folds over columns, and the store of y[x]
// happens where the condition holds, at every point where it is empty.
func matvecSpec(condition string) string {
	store := "[x]"
	if condition != "" {
		store = `{at: [x], if: "` + condition + `"}`
	}
	return `name: matvec
domain: [4096, 4096]
flops: 2
fields:
  - {name: A, element: 8, extent: [16777216], load: [[y + 4096*x]]}
  - {name: X, element: 8, extent: [4096], load: [[y]]}
  - {name: "Y", element: 8, extent: [4096], load: [[x]], store: [` + store + `]}
`
}

// guardWork charges to budget the work of the warp volumes and L1 cycles
// of the matvec with the store's condition under block and fold on an
// A100's interior wave.
func guardWork(t testing.TB, condition string, block, fold [3]int64, budget *Budget) error {
	k := parseKernel(t, matvecSpec(condition))
	d := lookupDevice(t, "A100-40GB")
	l := k.NewLaunch(block, fold)
	sample := interiorWave(t, k, l, d)
	lists, err := Instructions(k, l, d.Memory(), ExactWarpRules.Fusion)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := WarpVolumesOf(lists, l, d.Memory(), ExactWarpRules, sample, budget); err != nil {
		return err
	}
	_, err = L1CyclesOf(lists, l, d.Memory(), ExactWarpRules, sample, func(FieldInstructions, [][3]int64) (float64, error) { return 0, nil }, budget)
	return err
}

// TestCutWarpsAreCharged checks that where a guard cuts warps, so that
// lanes are still tested one by one, the work is charged to the budget
// and a small work bound stops the count with ErrWorkBound: a matvec
// whose store happens at column 2047 only, under blocks of 16 × 16 and a
// fold of 16 columns, whose warps span two columns of threads, the one
// column 127 holds cut in the middle of the grid.
func TestCutWarpsAreCharged(t *testing.T) {
	block, fold := [3]int64{16, 16, 1}, [3]int64{1, 16, 1}
	var whole, cut Budget
	if err := guardWork(t, "", block, fold, &whole); err != nil {
		t.Fatal(err)
	}
	if err := guardWork(t, "y = 2047", block, fold, &cut); err != nil {
		t.Fatal(err)
	}
	t.Logf("work: %d units storing everywhere, %d with warps cut", whole.Used(), cut.Used())
	if cut.Used() <= whole.Used() {
		t.Errorf("the store cut warps, yet took %d units, no more than the unguarded %d: the lanes tested one by one are not charged", cut.Used(), whole.Used())
	}
	small := &Budget{Limit: cut.Used() / 2}
	if err := guardWork(t, "y = 2047", block, fold, small); !errors.Is(err, ErrWorkBound) {
		t.Errorf("a bound of %d units on a count of %d: %v, want ErrWorkBound", small.Limit, cut.Used(), err)
	}
}
