package model

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/sim"
)

// residentSpec is a kernel whose loads wrap into a tile of (tileX + 1) ×
// tileY doubles of field B (rows 2·tileX doubles apart) on a 1024×256
// domain, storing to a separate field A.
func residentSpec(t *testing.T, tileX, tileY int) *kernel.Kernel {
	t.Helper()
	spec := fmt.Sprintf(`name: resident
domain: [1024, 256]
flops: 1
fields:
  - name: B
    element: 8
    extent: [%d, %d]
    load: [[(x mod %d), (y mod %d)], [(x mod %d) + 1, (y mod %d)]]
  - name: A
    element: 8
    extent: [1024, 256]
    store: [[x, y]]
`, 2*tileX, tileY, tileX, tileY, tileX, tileY)
	k, err := kernel.Parse([]byte(spec), "resident.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// TestGridResidentL1 checks Method.GridResidentL1 on a hand-counted case and
// against the LRU simulator. Every 32×4 block loads the whole 33×4-double
// tile: per row bytes 0–263 of a 512 B row, 9 sectors of 32 B and 3 lines
// of 128 B, so 36 sectors and 12 lines (1.5 KiB, far below the V100's L1).
// The 2048 blocks reach every one of the 80 SMs, and each SM fetches the
// tile once: 80 · 36 · 32 B over 1024 · 256 updates, and allocates 80 · 12
// lines over as many threads. The simulator, whose L1 keeps lines from block
// to block, counts the same load exactly.
func TestGridResidentL1(t *testing.T) {
	dev, err := device.Lookup("V100")
	if err != nil {
		t.Fatal(err)
	}
	k := residentSpec(t, 32, 4)
	l := k.NewLaunch([3]int64{32, 4, 1}, kernel.NoFold)
	r, err := Estimate(k, l, dev, Options{Method: MethodExact})
	if err != nil {
		t.Fatal(err)
	}
	lups := 1024.0 * 256
	want := 80 * 36 * 32 / lups
	b := r.Derived.LoadFields[0]
	if b.Name != "B" || math.Abs(b.L2LoadV2-want) > 1e-12 || math.Abs(r.Derived.L2LoadV2-want) > 1e-12 {
		t.Errorf("L2→L1 load: field %s %g, total %g B/Lup, want %g", b.Name, b.L2LoadV2, r.Derived.L2LoadV2, want)
	}
	if wantAlloc := 80 * 12 / lups; math.Abs(b.L1AllocCycles-wantAlloc) > 1e-12 {
		t.Errorf("allocation term %g cycles/Lup, want %g", b.L1AllocCycles, wantAlloc)
	}
	s, err := sim.Run(k, l, sim.Config{Device: dev})
	if err != nil {
		t.Fatal(err)
	}
	if got := float64(s.Fields[0].L2LoadBytes) / lups; math.Abs(got-want) > 1e-12 {
		t.Errorf("simulator: L2→L1 load %g B/Lup, want %g", got, want)
	}

	// Without the rule each block fetches its tile: 36 sectors per 128
	// updates, 72 times the resident load.
	off := MethodExact
	off.GridResidentL1 = false
	r, err = Estimate(k, l, dev, Options{Method: off})
	if err != nil {
		t.Fatal(err)
	}
	if got, perBlock := r.Derived.L2LoadV2, 36*32/128.0; math.Abs(got-perBlock) > 1e-12 {
		t.Errorf("without GridResidentL1: L2→L1 load %g B/Lup, want %g", got, perBlock)
	}
}

// TestGridResidentL1NeedsTheTileToFit checks that the rule leaves a kernel
// alone whose grid footprint exceeds L1: a 1025×16-double tile (16 rows of
// 65 lines of 128 B, 130 KiB) does not fit the V100's 128 KiB, one of 15
// rows (122 KiB) does.
func TestGridResidentL1NeedsTheTileToFit(t *testing.T) {
	dev, err := device.Lookup("V100")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		tileY    int
		resident bool
	}{{15, true}, {16, false}} {
		k := residentSpec(t, 1024, c.tileY)
		r, err := Estimate(k, k.NewLaunch([3]int64{32, 4, 1}, kernel.NoFold), dev, Options{Method: MethodExact})
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Basic.ResidentL2Load > 0; got != c.resident {
			t.Errorf("tile of %d rows: resident %v, want %v", c.tileY, got, c.resident)
		}
	}

	// A wave can fit where the grid does not: row ⌊y/64⌋ of 64 doubles
	// (4 lines) on a 64×65536 domain. A wave of 2560 blocks of 64 threads
	// touches 40 rows (20 KiB), the grid 1024 rows (512 KiB).
	k, err := kernel.Parse([]byte(`name: slow-rows
domain: [64, 65536]
fields:
  - name: B
    element: 8
    extent: [64, 1024]
    load: [[x, floor(y / 64)]]
  - name: A
    element: 8
    extent: [64, 65536]
    store: [[x, y]]
`), "slow-rows.yaml")
	if err != nil {
		t.Fatal(err)
	}
	r, err := Estimate(k, k.NewLaunch([3]int64{64, 1, 1}, kernel.NoFold), dev, Options{Method: MethodExact})
	if err != nil {
		t.Fatal(err)
	}
	if wave := r.Basic.LoadFields[0].WaveMemNew * r.Basic.waveScale(); wave > float64(dev.L1Bytes) {
		t.Errorf("the wave's load footprint is %g B, want one that fits the %d B L1", wave, dev.L1Bytes)
	}
	if r.Basic.ResidentL2Load != 0 {
		t.Errorf("a grid footprint of 512 KiB was taken as resident in %d B of L1", dev.L1Bytes)
	}
}

// TestResidentLoadEqualsSimulatorOnOneSM checks the grid footprint behind
// Method.GridResidentL1 on random kernels (affine, strided, floor and
// constant indices; see crossKernel) against the simulator's lane-by-lane
// trace: on a device with one SM, whose LRU L1 holds every line the grid
// loads, the simulator fetches each sector exactly once, so its L2→L1 load
// per field equals the resident load SMs × sectors × L1FetchBytes exactly.
func TestResidentLoadEqualsSimulatorOnOneSM(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	devs := []string{"A100-40GB", "V100", "H100-SXM", "MI210"}
	cases := 300
	if testing.Short() {
		cases = 60
	}
	resident := 0
	for c := range cases {
		k := crossKernel(t, r)
		d, err := device.Lookup(devs[r.IntN(len(devs))])
		if err != nil {
			t.Fatal(err)
		}
		one := *d
		one.SMs = 1
		l := k.NewLaunch([3]int64{int64(1 + r.IntN(40)), int64(1 + r.IntN(4)), int64(1 + r.IntN(2))},
			[3]int64{int64(1 + r.IntN(2)), int64(1 + r.IntN(2)), 1})
		if l.Validate() != nil {
			continue
		}
		rep, err := Estimate(k, l, &one, Options{Method: MethodExact})
		if err != nil {
			continue // a block that does not fit the device
		}
		if rep.Basic.ResidentL2Load == 0 {
			continue
		}
		resident++
		s, err := sim.Run(k, l, sim.Config{Device: &one})
		if err != nil {
			t.Fatal(err)
		}
		points := float64(l.Domain[0] * l.Domain[1] * l.Domain[2])
		blockLups := float64(l.ThreadsPerBlock() * l.LupsPerThread())
		checkResidentSums(t, rep, fmt.Sprintf("case %d", c))
		for _, f := range rep.Basic.LoadFields {
			got := f.ResidentL2Load * points / blockLups
			for _, sf := range s.Fields {
				if sf.Field == f.Name && math.Abs(got-float64(sf.L2LoadBytes)) > 1e-6*max(1, got) {
					t.Fatalf("case %d: %s block %v fold %v domain %v, field %s: resident load %g B, simulator %d B",
						c, one.Name, l.Block, l.Fold, l.Domain, f.Name, got, sf.L2LoadBytes)
				}
			}
		}
	}
	if resident < cases/4 {
		t.Errorf("only %d of %d random cases were resident", resident, cases)
	}
}

// checkResidentSums checks a resident report's invariants: the load fields'
// L2→L1 load, DRAM load V2 and DRAM load evictions add up to the totals, no
// eviction is negative, and the DRAM load is at most one DRAM fetch per
// L2→L1 sector.
func checkResidentSums(t *testing.T, r *Report, where string) {
	t.Helper()
	d := r.Derived
	var l2, mem, ev float64
	for _, f := range d.LoadFields {
		l2 += f.L2LoadV2
		mem += f.MemLoadV2
		ev += f.MemLoadEvicts
		if f.MemLoadEvicts < 0 {
			t.Errorf("%s: field %s: DRAM load evictions %g < 0", where, f.Name, f.MemLoadEvicts)
		}
	}
	tol := 1e-9 * max(1, d.L2LoadV2)
	if math.Abs(l2-d.L2LoadV2) > tol || math.Abs(mem-d.MemLoadV2) > tol || math.Abs(ev-d.MemLoadEvicts) > tol {
		t.Errorf("%s: fields sum to L2→L1 %g, DRAM V2 %g, evictions %g; totals %g, %g, %g", where, l2, mem, ev, d.L2LoadV2, d.MemLoadV2, d.MemLoadEvicts)
	}
	dev, err := device.Lookup(r.Device)
	if err != nil {
		return // a modified device of the test: its fetch sizes are the base's
	}
	if ratio := max(1, float64(dev.DRAMFetchBytes)/float64(dev.L1FetchBytes)); d.MemLoadV2 > d.L2LoadV2*ratio+tol {
		t.Errorf("%s: DRAM load V2 %g above %g × the L2→L1 load %g", where, d.MemLoadV2, ratio, d.L2LoadV2)
	}
}

// TestGridResidentTwoFields checks the sums with two load fields of which
// only one is capped for 32×4 blocks: the tile B of residentSpec, and
// C[⌊x/32⌋, ⌊y/64⌋] (64 KiB), one element per block, whose block load
// (32 B per 128 updates) is below every SM's one fetch of its grid footprint
// (V100: 80 · 2048 sectors · 32 B over 4096² updates, 0.31 B/Lup). With
// 32×1 blocks both are capped.
func TestGridResidentTwoFields(t *testing.T) {
	k, err := kernel.Parse([]byte(`name: two-fields
domain: [4096, 4096]
fields:
  - name: B
    element: 8
    extent: [64, 4]
    load: [[(x mod 32), (y mod 4)], [(x mod 32) + 1, (y mod 4)]]
  - name: C
    element: 8
    extent: [128, 64]
    load: [[floor(x / 32), floor(y / 64)]]
  - name: A
    element: 8
    extent: [4096, 4096]
    store: [[x, y]]
`), "two-fields.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"V100", "A100-40GB"} {
		dev, err := device.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range [][3]int64{{32, 4, 1}, {32, 1, 1}} {
			r, err := Estimate(k, k.NewLaunch(b, kernel.NoFold), dev, Options{Method: MethodExact})
			if err != nil {
				t.Fatal(err)
			}
			if r.Basic.ResidentL2Load == 0 {
				t.Fatalf("%s block %v: not resident", name, b)
			}
			checkResidentSums(t, r, fmt.Sprintf("%s block %v", name, b))
			c := r.Derived.LoadFields[1]
			if capped := c.L2LoadV2 < c.L2LoadV1; capped != (b[1] == 1) {
				t.Errorf("%s block %v: field C capped %v (L2→L1 %g, block load %g)", name, b, capped, c.L2LoadV2, c.L2LoadV1)
			}
		}
	}
}

// TestGridResidentPerLatticePoint checks the cap's normalisation where the
// fold does not divide the domain: the tile of TestGridResidentL1 on a
// 1023×255 domain with fold 2×2 is fetched by each of the 80 SMs once, 80 ·
// 36 · 32 B over the 1023 · 255 lattice points.
func TestGridResidentPerLatticePoint(t *testing.T) {
	dev, err := device.Lookup("V100")
	if err != nil {
		t.Fatal(err)
	}
	k := residentSpec(t, 32, 4)
	l := k.NewLaunch([3]int64{16, 2, 1}, [3]int64{2, 2, 1})
	l.Domain = [3]int64{1023, 255, 1}
	r, err := Estimate(k, l, dev, Options{Method: MethodExact})
	if err != nil {
		t.Fatal(err)
	}
	if want := 80 * 36 * 32 / (1023.0 * 255); math.Abs(r.Derived.L2LoadV2-want) > 1e-12 {
		t.Errorf("L2→L1 load %g B/Lup, want %g", r.Derived.L2LoadV2, want)
	}
}
