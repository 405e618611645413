package sim_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/sim"
)

// mixSpec exercises halos before the array start, a load and a store of the
// same field, a field with multiplicity 2 and unaligned offset, 4-byte
// elements, two stores per thread, and floor/modulo (non-affine) indices.
const mixSpec = `
name: mix
domain: [37, 23]
fields:
  - name: A
    element: 8
    extent: [39, 25]
    offset: 1
    load: [[x, y], [x + 1, y], [x - 1, y], [x, y + 1], [x, y - 1]]
    store: [[x, y]]
  - name: B
    element: 4
    multiplicity: 2
    offset: 3
    store: [[x, y], [x, y + 1]]
  - name: C
    element: 8
    extent: [20, 23]
    load: [["floor(x / 2)", "y % 3"]]
`

func parse(t *testing.T, spec string) *kernel.Kernel {
	t.Helper()
	k, err := kernel.Parse([]byte(spec), "test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func example(t *testing.T, name string) *kernel.Kernel {
	t.Helper()
	k, err := kernel.ParseExample(name)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func lookup(t *testing.T, name string, sms int) *device.Device {
	t.Helper()
	d, err := device.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	d.SMs = sms
	return d
}

// oracleCase is a kernel, launch and device small enough for the brute-force
// oracle.
type oracleCase struct {
	name   string
	k      *kernel.Kernel
	launch kernel.Launch
	dev    *device.Device
}

func oracleCases(t *testing.T) []oracleCase {
	mix := parse(t, mixSpec)
	star3d := example(t, "star3d-r1")
	return []oracleCase{
		{"mix A100 fold y", mix, kernel.Launch{Block: [3]int64{16, 3, 1}, Fold: [3]int64{1, 2, 1}, Domain: mix.Domain}, lookup(t, "A100-40GB", 3)},
		{"mix MI210", mix, kernel.Launch{Block: [3]int64{8, 6, 1}, Fold: kernel.NoFold, Domain: mix.Domain}, lookup(t, "MI210", 2)},
		{"star3d fold z", star3d, kernel.Launch{Block: [3]int64{8, 4, 2}, Fold: [3]int64{1, 1, 2}, Domain: [3]int64{10, 9, 7}}, lookup(t, "A100-40GB", 4)},
	}
}

// checkSums verifies that per-field counters add up to the totals and that
// hit and miss counts agree with the byte counts.
func checkSums(t *testing.T, r sim.Result, d *device.Device) {
	t.Helper()
	var sum sim.Volumes
	for _, f := range r.Fields {
		sum.L1LoadBytes += f.L1LoadBytes
		sum.L2LoadBytes += f.L2LoadBytes
		sum.L2StoreBytes += f.L2StoreBytes
		sum.DRAMLoadBytes += f.DRAMLoadBytes
		sum.DRAMStoreBytes += f.DRAMStoreBytes
		sum.DRAMStoreReadBytes += f.DRAMStoreReadBytes
		sum.L2PartitionBytes += f.L2PartitionBytes
		sum.L1Hits += f.L1Hits
		sum.L1Misses += f.L1Misses
		sum.L2Hits += f.L2Hits
		sum.L2Misses += f.L2Misses
		if f.L1Hits+f.L1Misses != f.L1LoadBytes/d.L1FetchBytes || f.L1Misses*d.L1FetchBytes != f.L2LoadBytes {
			t.Errorf("field %s: L1 hits %d + misses %d disagree with %d B requested, %d B fetched", f.Field, f.L1Hits, f.L1Misses, f.L1LoadBytes, f.L2LoadBytes)
		}
		if f.L2Hits+f.L2Misses != f.L2LoadBytes/32 {
			t.Errorf("field %s: L2 hits %d + misses %d, want %d sectors", f.Field, f.L2Hits, f.L2Misses, f.L2LoadBytes/32)
		}
		if want := float64(f.DRAMLoadBytes) / float64(r.Lups); f.MemLoad != want {
			t.Errorf("field %s: memLoad %g, want %g", f.Field, f.MemLoad, want)
		}
	}
	got := r.Total
	got.L1Load, got.L2Load, got.L2Store, got.MemLoad, got.MemStore = 0, 0, 0, 0, 0
	if got != sum {
		t.Errorf("total %+v\nsum of fields %+v", got, sum)
	}
}

func TestInfiniteMatchesBruteForce(t *testing.T) {
	const blocksPerSM = 2
	for _, c := range oracleCases(t) {
		want := bruteForce(c.k, c.launch, c.dev, blocksPerSM)
		for _, split := range []bool{false, true} {
			r, err := sim.Run(c.k, c.launch, sim.Config{Device: c.dev, Infinite: true, BlocksPerSM: blocksPerSM, SplitL2: split})
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			checkSums(t, r, c.dev)
			for i, f := range r.Fields {
				got := []int64{f.L1LoadBytes, f.L2LoadBytes, f.L2StoreBytes, f.DRAMLoadBytes, f.DRAMStoreBytes, f.DRAMStoreReadBytes}
				exp := []int64{want.l1Load[i], want.l2LoadPerSM[i], want.l2Store[i], want.dramLoad[i], want.dramStore[i], want.dramStoreRead[i]}
				for j, name := range []string{"L1 load", "L2 load", "L2 store", "DRAM load", "DRAM store", "DRAM store read"} {
					if got[j] != exp[j] {
						t.Errorf("%s (split %v) field %s: %s %d B, brute force %d B", c.name, split, f.Field, name, got[j], exp[j])
					}
				}
			}
			if r.Total.L1LoadBytes == 0 || r.Total.DRAMStoreBytes == 0 {
				t.Errorf("%s: empty run %+v", c.name, r.Total)
			}
		}
	}
}

// TestLargeCachesEqualInfinite: real caches larger than the whole footprint
// only ever miss compulsorily, whatever the policy and associativity.
func TestLargeCachesEqualInfinite(t *testing.T) {
	for _, c := range oracleCases(t) {
		inf, err := sim.Run(c.k, c.launch, sim.Config{Device: c.dev, Infinite: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, cfg := range []sim.Config{
			{L1Bytes: 1 << 20, L2Bytes: 1 << 22},
			{L1Bytes: 1 << 20, L2Bytes: 1 << 22, L1Policy: sim.PLRU, L2Policy: sim.PLRU},
			{L1Bytes: 1 << 22, L2Bytes: 1 << 24, L1Assoc: 4, L2Assoc: 16},
		} {
			cfg.Device = c.dev
			r, err := sim.Run(c.k, c.launch, cfg)
			if err != nil {
				t.Fatal(err)
			}
			checkSums(t, r, c.dev)
			r.Infinite = true
			if r.Total != inf.Total {
				t.Errorf("%s %+v:\n got %+v\nwant %+v", c.name, cfg, r.Total, inf.Total)
			}
		}
	}
}

// TestSmallL1Monotone: fully associative LRU has the inclusion property, so
// shrinking L1 never lowers the L2→L1 traffic of the same trace, and with
// capacity misses it exceeds the compulsory traffic.
func TestSmallL1Monotone(t *testing.T) {
	c := oracleCases(t)[2]
	prev := int64(0)
	for _, l1 := range []int64{1 << 20, 8192, 2048, 512, 128} {
		r, err := sim.Run(c.k, c.launch, sim.Config{Device: c.dev, L1Bytes: l1, BlocksPerSM: 2})
		if err != nil {
			t.Fatal(err)
		}
		checkSums(t, r, c.dev)
		if r.Total.L2LoadBytes < prev {
			t.Errorf("L1 %d B: L2 load %d B below %d B of a larger L1", l1, r.Total.L2LoadBytes, prev)
		}
		prev = r.Total.L2LoadBytes
	}
	inf, _ := sim.Run(c.k, c.launch, sim.Config{Device: c.dev, Infinite: true, BlocksPerSM: 2})
	if prev <= inf.Total.L2LoadBytes {
		t.Errorf("one-line L1: L2 load %d B, not above the compulsory %d B", prev, inf.Total.L2LoadBytes)
	}
}

func TestCompulsoryMatchesBruteForce(t *testing.T) {
	for _, c := range oracleCases(t) {
		g := c.launch.Grid()
		blocks := sim.WaveBlocks(g[0]*g[1]*g[2], 5, 1) // the second wave of 5 blocks
		bl, st, wl, ws := compulsoryOracle(c.k, c.launch, c.dev, blocks)
		blockLoad, err := sim.BlockL2Load(c.k, c.launch, c.dev, blocks)
		if err != nil {
			t.Fatal(err)
		}
		blockStore, err := sim.BlockL2Store(c.k, c.launch, c.dev, blocks)
		if err != nil {
			t.Fatal(err)
		}
		waveLoad, waveStore, err := sim.WaveDRAMFootprint(c.k, c.launch, c.dev, blocks)
		if err != nil {
			t.Fatal(err)
		}
		n := float64(len(blocks))
		for i, f := range c.k.Fields {
			checks := []struct {
				name      string
				got, want float64
			}{
				{"block L2 load", blockLoad.Fields[i].Bytes, float64(bl[i]) / n},
				{"block L2 store", blockStore.Fields[i].Bytes, float64(st[i]) / n},
				{"wave DRAM load", waveLoad.Fields[i].Bytes, float64(wl[i])},
				{"wave DRAM store", waveStore.Fields[i].Bytes, float64(ws[i])},
			}
			for _, ch := range checks {
				if ch.got != ch.want {
					t.Errorf("%s field %s: %s %g B, brute force %g B", c.name, f.Name, ch.name, ch.got, ch.want)
				}
			}
		}
		for _, b := range []sim.Breakdown{blockLoad, blockStore, waveLoad, waveStore} {
			sum := 0.0
			for _, f := range b.Fields {
				sum += f.Bytes
			}
			if sum != b.Total || b.Total == 0 {
				t.Errorf("%s: total %g, fields sum to %g", c.name, b.Total, sum)
			}
		}
	}
}

// TestOneBlockPerSMIsBlockL2Load: when every SM runs a single block, the
// infinite L1s see exactly the per-block footprints.
func TestOneBlockPerSMIsBlockL2Load(t *testing.T) {
	c := oracleCases(t)[0]
	g := c.launch.Grid()
	blocks := g[0] * g[1] * g[2]
	dev := c.dev.Clone()
	dev.SMs = int(blocks)
	r, err := sim.Run(c.k, c.launch, sim.Config{Device: dev, Infinite: true, BlocksPerSM: 1})
	if err != nil {
		t.Fatal(err)
	}
	b, err := sim.BlockL2Load(c.k, c.launch, dev, sim.WaveBlocks(blocks, blocks, 0))
	if err != nil {
		t.Fatal(err)
	}
	if got := float64(r.Total.L2LoadBytes) / float64(blocks); got != b.Total {
		t.Errorf("run: %g B per block, BlockL2Load %g B", got, b.Total)
	}
}

// TestWriteThrough: stores go to L2 per instruction in 32 B units, leave L1
// alone, and reach DRAM once at the flush; a partially written sector reads
// its 64 B fetch chunk first. Warps of 4 lanes, blocks of 4 threads.
func TestWriteThrough(t *testing.T) {
	k := parse(t, "name: st\ndomain: [6]\nfields:\n  - name: B\n    element: 8\n    store: [[x], [x + 1]]\n")
	d := lookup(t, "A100-40GB", 1)
	d.WarpSize = 4
	r, err := sim.Run(k, kernel.Launch{Block: [3]int64{4, 1, 1}, Fold: kernel.NoFold, Domain: k.Domain}, sim.Config{Device: d, BlocksPerSM: 1})
	if err != nil {
		t.Fatal(err)
	}
	// Block 0: [x] writes bytes 0..31 (one unit), [x+1] bytes 8..39 (two).
	// Block 1 (x = 4, 5): [x] bytes 32..47, [x+1] bytes 40..55 (one each).
	// Written: sector 0 complete, sector 1 bytes 32..55 only.
	want := sim.Volumes{Field: "B", L2StoreBytes: 5 * 32, DRAMStoreBytes: 64, DRAMLoadBytes: 64, DRAMStoreReadBytes: 64}
	got := r.Fields[0]
	got.L1Load, got.L2Load, got.L2Store, got.MemLoad, got.MemStore = 0, 0, 0, 0, 0
	if got != want {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
	if r.Total.L2Store != 160.0/6 || r.Accesses != 12 {
		t.Errorf("L2Store %g B/Lup (want 160/6), %d accesses (want 12)", r.Total.L2Store, r.Accesses)
	}
}

// recorder is a Scheduler wrapper that logs the order of issue calls.
type recorder struct {
	inner sim.Scheduler
	log   [][3]int
}

func (r *recorder) Schedule(blocks, warps, instructions int, issue func(block, warp, instr int)) {
	r.inner.Schedule(blocks, warps, instructions, func(b, w, i int) {
		r.log = append(r.log, [3]int{b, w, i})
		issue(b, w, i)
	})
}

// TestScheduleOrder: two resident blocks, each a row of a 16-double-wide
// array in its own 128 B line, load [x, y] then [x + 1, y] through a
// one-line L1. Lockstep alternates the blocks, so every request misses
// (6 sectors); warp by warp, each block's second load finds sector 0 of its
// line again (4 misses, 2 hits).
func TestScheduleOrder(t *testing.T) {
	k := parse(t, "name: rows\ndomain: [4, 2]\nfields:\n  - name: A\n    element: 8\n    extent: [16, 2]\n    load: [[x, y], [x + 1, y]]\n")
	d := lookup(t, "A100-40GB", 1)
	d.WarpSize = 4
	l := kernel.Launch{Block: [3]int64{4, 1, 1}, Fold: kernel.NoFold, Domain: k.Domain}
	cases := []struct {
		sched        sim.Scheduler
		order        [][3]int
		hits, misses int64
	}{
		{sim.Lockstep{}, [][3]int{{0, 0, 0}, {1, 0, 0}, {0, 0, 1}, {1, 0, 1}}, 0, 6},
		{sim.WarpByWarp{}, [][3]int{{0, 0, 0}, {0, 0, 1}, {1, 0, 0}, {1, 0, 1}}, 2, 4},
		{sim.BlockByBlock{}, [][3]int{{0, 0, 0}, {0, 0, 1}, {1, 0, 0}, {1, 0, 1}}, 2, 4},
	}
	for _, c := range cases {
		rec := &recorder{inner: c.sched}
		r, err := sim.Run(k, l, sim.Config{Device: d, L1Bytes: 128, BlocksPerSM: 2, Schedule: rec})
		if err != nil {
			t.Fatal(err)
		}
		if len(rec.log) != len(c.order) {
			t.Fatalf("%T: order %v, want %v", c.sched, rec.log, c.order)
		}
		for i := range rec.log {
			if rec.log[i] != c.order[i] {
				t.Fatalf("%T: order %v, want %v", c.sched, rec.log, c.order)
			}
		}
		if r.Total.L1Hits != c.hits || r.Total.L1Misses != c.misses || r.Total.L2LoadBytes != 32*c.misses {
			t.Errorf("%T: %d hits, %d misses, L2 load %d B; want %d, %d", c.sched, r.Total.L1Hits, r.Total.L1Misses, r.Total.L2LoadBytes, c.hits, c.misses)
		}
	}
}

// TestBlockByBlockVersusWarps: with two warps per block, BlockByBlock keeps
// a block's warps in lockstep while WarpByWarp runs each warp alone.
func TestBlockByBlockVersusWarps(t *testing.T) {
	for _, c := range []struct {
		sched sim.Scheduler
		want  [][3]int
	}{
		{sim.BlockByBlock{}, [][3]int{{0, 0, 0}, {0, 1, 0}, {0, 0, 1}, {0, 1, 1}}},
		{sim.WarpByWarp{}, [][3]int{{0, 0, 0}, {0, 0, 1}, {0, 1, 0}, {0, 1, 1}}},
		{sim.Lockstep{}, [][3]int{{0, 0, 0}, {0, 1, 0}, {0, 0, 1}, {0, 1, 1}}},
	} {
		var got [][3]int
		c.sched.Schedule(1, 2, 2, func(b, w, i int) { got = append(got, [3]int{b, w, i}) })
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%T: %v, want %v", c.sched, got, c.want)
				break
			}
		}
	}
}

func TestWavesAndSMs(t *testing.T) {
	if got := sim.WaveBlocks(10, 4, 2); len(got) != 2 || got[0] != 8 || got[1] != 9 {
		t.Errorf("WaveBlocks(10, 4, 2) = %v, want [8 9]", got)
	}
	// 12 blocks, W = 2·3 = 6: two waves; occupancy from the device when
	// BlocksPerSM is 0 (A100: 48-thread blocks, 32 registers → 32 blocks).
	c := oracleCases(t)[0]
	r, err := sim.Run(c.k, c.launch, sim.Config{Device: c.dev, BlocksPerSM: 2})
	if err != nil {
		t.Fatal(err)
	}
	if r.Waves != 2 || r.BlocksPerWave != 6 || r.Grid != [3]int64{3, 4, 1} || r.Lups != 37*23 {
		t.Errorf("waves %d, W %d, grid %v, lups %d", r.Waves, r.BlocksPerWave, r.Grid, r.Lups)
	}
	r, err = sim.Run(c.k, c.launch, sim.Config{Device: c.dev})
	if err != nil {
		t.Fatal(err)
	}
	occ, _ := c.dev.Occupancy(48, c.k.Registers, c.k.SharedBytes)
	if r.BlocksPerSM != occ.BlocksPerSM || r.Waves != 1 {
		t.Errorf("blocks per SM %d (occupancy %d), waves %d", r.BlocksPerSM, occ.BlocksPerSM, r.Waves)
	}
}

func TestErrors(t *testing.T) {
	c := oracleCases(t)[0]
	cases := []struct {
		name string
		k    *kernel.Kernel
		cfg  sim.Config
		want string
	}{
		{"no device", c.k, sim.Config{}, "no device"},
		{"trace limit", c.k, sim.Config{Device: c.dev, MaxAccesses: 1000}, "Config.MaxAccesses"},
		{"line limit", c.k, sim.Config{Device: c.dev, Infinite: true, MaxTrackedLines: 10}, "Config.MaxTrackedLines"},
		{"odd L1", c.k, sim.Config{Device: c.dev, L1Bytes: 1000}, "L1 capacity 1000 B"},
		{"associativity", c.k, sim.Config{Device: c.dev, L1Bytes: 1280, L1Assoc: 3}, "L1 associativity 3"},
	}
	for _, tc := range cases {
		_, err := sim.Run(tc.k, c.launch, tc.cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to mention %q", tc.name, err, tc.want)
		}
	}
	if _, err := sim.BlockL2Store(c.k, c.launch, c.dev, []int64{99}); err == nil || !strings.Contains(err.Error(), "block 99 outside") {
		t.Errorf("block outside the grid: %v", err)
	}
}

// TestAccessesIsTheBound checks that Accesses is the count Run's bound
// applies to: Run succeeds with MaxAccesses equal to it and fails one below
// with an *AccessLimitError whose factors multiply to it; where every lane
// of every instruction is inside the domain, it is also the lanes Run
// traces.
func TestAccessesIsTheBound(t *testing.T) {
	for _, c := range oracleCases(t) {
		n, ok, err := sim.Accesses(c.k, c.launch, c.dev)
		if err != nil || !ok || n == 0 {
			t.Fatalf("%s: Accesses = %d, %v, %v", c.name, n, ok, err)
		}
		r, err := sim.Run(c.k, c.launch, sim.Config{Device: c.dev, MaxAccesses: int64(n)})
		if err != nil {
			t.Fatalf("%s: Run with MaxAccesses = Accesses: %v", c.name, err)
		}
		if uint64(r.Accesses) > n {
			t.Errorf("%s: Run traced %d lanes, more than Accesses %d", c.name, r.Accesses, n)
		}
		_, err = sim.Run(c.k, c.launch, sim.Config{Device: c.dev, MaxAccesses: int64(n) - 1})
		var tooMany *sim.AccessLimitError
		if !errors.As(err, &tooMany) || uint64(tooMany.Blocks)*uint64(tooMany.Threads)*uint64(tooMany.Instructions) != n || tooMany.Limit != int64(n)-1 {
			t.Errorf("%s: Run with MaxAccesses = Accesses - 1: %v (%+v)", c.name, err, tooMany)
		}
		// Without partial blocks or folds every lane is active.
		l := c.launch
		for i := range l.Domain {
			l.Domain[i] = 2 * l.Block[i] * l.Fold[i]
		}
		full, _, err := sim.Accesses(c.k.WithDomain(l.Domain), l, c.dev)
		if err != nil {
			t.Fatal(err)
		}
		if r, err := sim.Run(c.k.WithDomain(l.Domain), l, sim.Config{Device: c.dev}); err != nil || uint64(r.Accesses) != full {
			t.Errorf("%s domain %v: Run traced %d lanes, Accesses says %d (%v)", c.name, l.Domain, r.Accesses, full, err)
		}
	}
}
