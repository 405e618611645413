package sim

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/kernel"
)

func TestGranules(t *testing.T) {
	seq := func(start, stride uint64, n int) []uint64 {
		var a []uint64
		for i := range n {
			a = append(a, start+uint64(i)*stride)
		}
		return a
	}
	rev := seq(0, 8, 32)
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	cases := []struct {
		name  string
		addrs []uint64
		width int64
		shift uint
		want  []uint64
	}{
		{"32 aligned doubles", seq(0, 8, 32), 8, 5, seq(0, 1, 8)},
		{"32 doubles shifted by one", seq(8, 8, 32), 8, 5, seq(0, 1, 9)},
		{"every other double", seq(0, 16, 32), 8, 5, seq(0, 1, 16)},
		{"descending lanes", rev, 8, 5, seq(0, 1, 8)},
		{"16 B access across a sector boundary", []uint64{24}, 16, 5, []uint64{0, 1}},
		{"same address in all lanes", seq(40, 0, 32), 4, 5, []uint64{1}},
		{"64 B granules", seq(0, 8, 32), 8, 6, seq(0, 1, 4)},
	}
	for _, c := range cases {
		got := granules(nil, c.addrs, c.width, c.shift)
		if len(got) != len(c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%s: %v, want %v", c.name, got, c.want)
				break
			}
		}
	}
}

func TestSectorWrites(t *testing.T) {
	got := sectorWrites(nil, []uint64{24}, 16)
	if len(got) != 2 || got[0] != (sectorWrite{0, 0xFF000000}) || got[1] != (sectorWrite{1, 0xFF}) {
		t.Errorf("16 B at 24: %v", got)
	}
	got = sectorWrites(nil, []uint64{40, 8, 0}, 8)
	if len(got) != 2 || got[0] != (sectorWrite{0, 0xFFFF}) || got[1] != (sectorWrite{1, 0xFF00}) {
		t.Errorf("unordered lanes: %v", got)
	}
}

// TestByteRangesMatchLanes compares the ranges byteRanges merges with the
// lanes' own addresses on random launches and linear instructions: both must
// give the same active lanes, granules and sector writes. Warps at the
// domain's edge, rows split across warps, strides outside [0, width] and
// several points per instruction exercise the fallback as well.
func TestByteRangesMatchLanes(t *testing.T) {
	k, err := kernel.Parse([]byte("name: t\ndomain: [8, 8, 8]\nfields:\n  - name: A\n    element: 8\n    load: [[x, y, z]]\n"), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	dim := func(hi int64) int64 { return 1 + rng.Int64N(hi) }
	merged := 0
	for range 2000 {
		l := kernel.Launch{
			Block:  [3]int64{dim(70), dim(4), dim(3)},
			Fold:   [3]int64{dim(2), dim(2), dim(2)},
			Tiling: kernel.Tiling(rng.IntN(2)),
		}
		for i := range 3 {
			l.Domain[i] = l.Fold[i] - 1 + dim(3*l.Block[i]*l.Fold[i])
		}
		warpSize := []int{4, 7, 32}[rng.IntN(3)]
		tr, err := newTracer(k, l, warpSize, true)
		if err != nil {
			t.Fatal(err)
		}
		width := int64(1) << rng.IntN(6)
		in := instruction{width: width, linear: true, base: regionBase(0) + rng.Int64N(1<<20)}
		in.laneCoef = [3]int64{rng.Int64N(2*width+3) - width - 1, rng.Int64N(1 << 12), rng.Int64N(1 << 16)}
		if rng.IntN(2) == 0 {
			in.laneCoef[0] = rng.Int64N(width + 1)
		}
		for i := range 3 {
			in.originCoef[i] = in.laneCoef[i] * l.Fold[i]
		}
		points := foldPoints(l.Fold)
		for _, j := range points {
			if len(in.uses) == 0 || rng.IntN(3) == 0 {
				u := use{j: j}
				if rng.IntN(4) == 0 { // a guard x ≥ c or x ≤ c on the lattice point
					c := rng.Int64N(2 * l.Block[0] * l.Fold[0])
					g := kernel.Var(0)
					if rng.IntN(2) == 0 {
						g, _ = g.Add(kernel.Const(-c))
					} else {
						g, _ = kernel.Const(c).Sub(g)
					}
					u.guards = []kernel.Expr{g}
				}
				in.uses = append(in.uses, u)
			}
		}
		in.point = in.uses[0].j
		origin := tr.blockOrigin(rng.Int64N(tr.blocks))
		w := rng.IntN(tr.warpsPerBlock)

		addrs := tr.addresses(nil, origin, w, &in)
		ranges, rangeWidth, lanes := tr.byteRanges(nil, origin, w, &in)
		if lanes != len(addrs) {
			t.Fatalf("launch %+v warp %d origin %v %+v: %d active lanes, want %d", l, w, origin, in, lanes, len(addrs))
		}
		if len(ranges) == 1 && lanes > 1 {
			merged++
		}
		for shift := range uint(8) {
			got, want := granules(nil, ranges, rangeWidth, shift), granules(nil, addrs, width, shift)
			if !slices.Equal(got, want) {
				t.Fatalf("launch %+v warp %d origin %v %+v: granules at shift %d %v, want %v", l, w, origin, in, shift, got, want)
			}
		}
		if got, want := sectorWrites(nil, ranges, rangeWidth), sectorWrites(nil, addrs, width); !slices.Equal(got, want) {
			t.Fatalf("launch %+v warp %d origin %v %+v: sector writes %v, want %v", l, w, origin, in, got, want)
		}
	}
	if merged < 200 {
		t.Errorf("only %d of 2000 cases merged the lanes into one range", merged)
	}
}

// testDevice is an A100 with the given SM count and a 4-lane warp, so that
// hand-computed cases stay small.
func testDevice(t *testing.T, sms int) *device.Device {
	t.Helper()
	d, err := device.Lookup("A100-40GB")
	if err != nil {
		t.Fatal(err)
	}
	d.SMs, d.WarpSize = sms, 4
	return d
}

// testMachine builds a machine for one field without a program, so that
// tests can drive the caches directly.
func testMachine(t *testing.T, cfg Config) *machine {
	t.Helper()
	geo, err := deviceGeometry(cfg.Device)
	if err != nil {
		t.Fatal(err)
	}
	tr := &tracer{k: &kernel.Kernel{Fields: []*kernel.Field{{Name: "A"}}}, regionField: []int{0}}
	m, err := newMachine(tr, geo, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// sector returns the 32 B sector of byte a of field 0.
func sector(a int64) uint64 { return uint64(regionBase(0)+a) >> sectorShift }

func TestL1SectorMissInPresentLine(t *testing.T) {
	m := testMachine(t, Config{Device: testDevice(t, 1), L1Bytes: 128, L2Bytes: 1 << 20})
	c := &m.counts[0]
	m.l1Load(0, sector(0), c)   // line 0 allocated, sector 0 fetched; L2 fetches bytes 0..63 from DRAM
	m.l1Load(0, sector(32), c)  // sector 1 missing in the present line: miss, no eviction; L2 hit
	m.l1Load(0, sector(0), c)   // still present: hit
	m.l1Load(0, sector(128), c) // line 1 evicts line 0 (one-line L1); L2 miss, DRAM 64 B
	m.l1Load(0, sector(32), c)  // line 0 again: L1 miss, L2 hit
	want := Volumes{L1Hits: 1, L1Misses: 4, L2LoadBytes: 4 * 32, L2Hits: 2, L2Misses: 2, DRAMLoadBytes: 128}
	if *c != want {
		t.Errorf("counts %+v\nwant   %+v", *c, want)
	}
}

func TestL2WriteBackPartialChunk(t *testing.T) {
	run := func(cfg Config, ops func(m *machine)) Volumes {
		m := testMachine(t, cfg)
		ops(m)
		m.flush()
		return m.counts[0]
	}
	partialThenReload := func(m *machine) {
		m.l2Store(0, sectorWrite{sector(0), 0xFF}) // 8 of 32 bytes: dirty, not valid
		m.l2Load(0, sector(128))                   // another line
		m.l2Load(0, sector(0))
	}
	// One-line L2: the load of line 1 evicts line 0, which writes back its
	// 32 B chunk after reading the 64 B fetch chunk around it; the reload
	// of line 0 fetches again. DRAM load 64 (read) + 64 (line 1) + 64.
	got := run(Config{Device: testDevice(t, 1), L2Bytes: 128}, partialThenReload)
	want := Volumes{DRAMLoadBytes: 192, DRAMStoreBytes: 32, DRAMStoreReadBytes: 64}
	if got != want {
		t.Errorf("one-line L2: %+v\nwant %+v", got, want)
	}
	// Infinite L2: the reload fetches the chunk (merging the partial
	// write), so the final flush writes a complete chunk without a read.
	got = run(Config{Device: testDevice(t, 1), Infinite: true}, partialThenReload)
	want = Volumes{DRAMLoadBytes: 128, DRAMStoreBytes: 32}
	if got != want {
		t.Errorf("infinite L2: %+v\nwant %+v", got, want)
	}
	// A fully written sector is valid; with 64 B DRAM write chunks the
	// untouched neighbour sector still forces a read of the chunk.
	d := testDevice(t, 1)
	d.DRAMWriteBytes = 64
	got = run(Config{Device: d, Infinite: true}, func(m *machine) { m.l2Store(0, sectorWrite{sector(0), 0xFFFFFFFF}) })
	want = Volumes{DRAMLoadBytes: 64, DRAMStoreBytes: 64, DRAMStoreReadBytes: 64}
	if got != want {
		t.Errorf("64 B write chunk: %+v\nwant %+v", got, want)
	}
	// Both sectors of the chunk fully written: no read.
	got = run(Config{Device: d, Infinite: true}, func(m *machine) {
		m.l2Store(0, sectorWrite{sector(0), 0xFFFFFFFF})
		m.l2Store(0, sectorWrite{sector(32), 0xFFFFFFFF})
		m.l2Load(0, sector(0)) // valid: hit, no DRAM traffic
	})
	want = Volumes{DRAMStoreBytes: 64}
	if got != want {
		t.Errorf("complete 64 B write chunk: %+v\nwant %+v", got, want)
	}
}

func TestL2PartitionDuplication(t *testing.T) {
	d := testDevice(t, 2) // SM 0 → partition 0, SM 1 → partition 1
	m := testMachine(t, Config{Device: d, SplitL2: true, L2Bytes: 128})
	if len(m.l2) != 2 || m.partition[0] != 0 || m.partition[1] != 1 {
		t.Fatalf("partitions %d, SM map %v", len(m.l2), m.partition)
	}
	if m.home(sector(128)) != 1 || m.home(sector(0)) != 0 {
		t.Fatal("line n must have its home in partition n mod 2")
	}
	steps := []struct {
		partition int
		byteAddr  int64
		hit       bool
		dram      int64 // DRAM load bytes so far
		cross     int64 // partition traffic so far
	}{
		{0, 128, false, 64, 32},  // copy partition misses; home fetches bytes 128..191
		{1, 128, true, 64, 32},   // home partition holds it
		{0, 128, true, 64, 32},   // the copy holds it
		{0, 160, false, 64, 64},  // sector 1 not in the copy; the home has it from the 64 B fetch
		{0, 0, false, 128, 64},   // line 0 (home 0) evicts the copy of line 1
		{0, 128, false, 128, 96}, // copy gone, but the home still has it: no DRAM traffic
	}
	for i, s := range steps {
		hit := m.l2Load(s.partition, sector(s.byteAddr))
		c := m.counts[0]
		if hit != s.hit || c.DRAMLoadBytes != s.dram || c.L2PartitionBytes != s.cross {
			t.Fatalf("step %d: hit %v, DRAM %d, cross %d; want %v, %d, %d", i, hit, c.DRAMLoadBytes, c.L2PartitionBytes, s.hit, s.dram, s.cross)
		}
	}
}
