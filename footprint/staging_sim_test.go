package footprint

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/kernel/kerneltest"
	"github.com/polyvol/polyvol/lattice"
	"github.com/polyvol/polyvol/sim"
)

// stagedCase is a random kernel whose first field is staged, and its
// launch.
type stagedCase struct {
	spec string
	l    kernel.Launch
}

// randomStagedCase draws a kernel of 1 to 3 dimensions whose first field
// (element 4 or 8, sometimes two instances) is staged (kerneltest.Stage)
// with loads at halo offsets up to 3, sometimes with a second field that
// loads and stores at every point, and a launch over a small domain with
// a random block (x not always a multiple of 32), fold and tiling.
func randomStagedCase(rng *rand.Rand) stagedCase {
	dims := 1 + rng.IntN(3)
	domain := [3]int64{1 + rng.Int64N(70), 1, 1}
	if dims >= 2 {
		domain[1] = 1 + rng.Int64N(12)
	}
	if dims == 3 {
		domain[2] = 1 + rng.Int64N(6)
	}
	spec := kerneltest.Spec(rng, kerneltest.Options{
		Name:         "staged-random",
		Domain:       domain,
		Flops:        1,
		Fields:       2,
		Loads:        5,
		StoreAtPoint: true,
		Elements:     []int64{4, 8},
		Multiplicity: true,
		MaxOffset:    7,
		Margin:       [3]int64{4, 4, 4},
		Stage:        &kerneltest.Stage{Dims: dims, Halo: 3},
	})
	l := kernel.Launch{Domain: domain, Fold: kernel.NoFold, Tiling: kernel.Tiling(rng.IntN(2))}
	l.Block = [3]int64{[]int64{1, 7, 16, 20, 32, 33, 48, 64, 96}[rng.IntN(9)], 1, 1}
	for i := 1; i < 3; i++ {
		if i < dims || rng.IntN(8) == 0 {
			l.Block[i] = 1 + rng.Int64N(4)
		}
	}
	l.Block[2] = min(l.Block[2], kernel.MaxThreadsPerBlock/(l.Block[0]*l.Block[1]))
	for i := range dims {
		if rng.IntN(3) == 0 {
			l.Fold[i] = min(domain[i], 1+rng.Int64N(3))
		}
	}
	return stagedCase{spec: spec, l: l}
}

// stagedCaseDevices are the devices the oracle draws from: NVIDIA with its
// 32 banks of 4 bytes, AMD with 64-lane wavefronts, and bank layouts of
// other widths and counts.
func stagedCaseDevices(t *testing.T) []*device.Device {
	a100 := lookupDevice(t, "A100-40GB")
	mi250 := lookupDevice(t, "MI250X")
	wide, many := *a100, *a100
	wide.Name, wide.SharedBanks, wide.SharedBankBytes = "A100-8-byte-banks", 32, 8
	many.Name, many.SharedBanks, many.SharedBankBytes = "A100-64-banks", 64, 4
	return []*device.Device{a100, mi250, &wide, &many}
}

// TestStagingOfMatchesSimulator checks StagingOf with ExactWarpRules over
// every block of the grid against the simulator's count of the whole grid,
// on the staged examples over small domains and on random staged kernels:
// the copy's L1 sectors and load instructions, the shared stores and
// loads, and their bank wavefronts.
func TestStagingOfMatchesSimulator(t *testing.T) {
	a100 := lookupDevice(t, "A100-40GB")
	for _, c := range []struct {
		example string
		l       kernel.Launch
	}{
		{"star3d-r1-staged", kernel.Launch{Block: [3]int64{32, 4, 4}, Fold: kernel.NoFold, Domain: [3]int64{70, 9, 6}}},
		{"star3d-r1-staged", kernel.Launch{Block: [3]int64{20, 3, 2}, Fold: [3]int64{2, 1, 2}, Domain: [3]int64{45, 7, 5}}},
		{"convolution-15x15-staged", kernel.Launch{Block: [3]int64{32, 8, 1}, Fold: [3]int64{2, 2, 1}, Domain: [3]int64{100, 40, 1}, Tiling: kernel.TileStrided}},
		{"convolution-15x15-staged", kernel.Launch{Block: [3]int64{24, 4, 1}, Fold: [3]int64{1, 3, 1}, Domain: [3]int64{50, 30, 1}}},
	} {
		k := exampleKernel(t, c.example)
		checkStagingAgainstSim(t, fmt.Sprintf("%s block %v fold %v %s domain %v", c.example, c.l.Block, c.l.Fold, c.l.Tiling, c.l.Domain), k, c.l, a100, "")
	}
	rng := rand.New(rand.NewPCG(2024, 7))
	devices := stagedCaseDevices(t)
	for n := range 250 {
		c := randomStagedCase(rng)
		d := devices[rng.IntN(len(devices))]
		k, err := kernel.Parse([]byte(c.spec), "inline.yaml")
		if err != nil {
			t.Fatalf("case %d: %v\n%s", n, err, c.spec)
		}
		checkStagingAgainstSim(t, fmt.Sprintf("case %d (%s, block %v fold %v %s domain %v)", n, d.Name, c.l.Block, c.l.Fold, c.l.Tiling, c.l.Domain), k, c.l, d, c.spec)
	}
}

// checkStagingAgainstSim compares StagingOf's totals of k's staged field
// under l on d with the simulator's; spec, where given, is k's text for
// the failure's report.
func checkStagingAgainstSim(t *testing.T, name string, k *kernel.Kernel, l kernel.Launch, d *device.Device, spec string) {
	t.Helper()
	got, err := stagingTotals(k, l, d)
	if err != nil {
		t.Fatalf("%s: footprint: %v\n%s", name, err, spec)
	}
	want, err := simulatedStaging(k, l, d)
	if err != nil {
		t.Fatalf("%s: sim: %v\n%s", name, err, spec)
	}
	if got != want {
		t.Errorf("%s:\nStagingOf %+v\nsimulated %+v\n%s", name, got, want, spec)
	}
}

// stagingCounts are totals over the grid of one staged field.
type stagingCounts struct {
	L1Sectors, CopyLoads, SharedStores, SharedLoads, StoreWavefronts, LoadWavefronts int64
}

// stagingTotals returns StagingOf's counts of k's one staged field, its
// first, with ExactWarpRules over every block of l's grid, converted from
// its averages to totals.
func stagingTotals(k *kernel.Kernel, l kernel.Launch, d *device.Device) (stagingCounts, error) {
	var c stagingCounts
	lists, err := Instructions(k, l, d.Memory(), ExactWarpRules.Fusion)
	if err != nil {
		return c, err
	}
	_, shared := SplitShared(lists)
	g := l.Grid()
	var sample [][3]int64
	for z := range g[2] {
		for y := range g[1] {
			for x := range g[0] {
				sample = append(sample, [3]int64{x, y, z})
			}
		}
	}
	r, err := StagingOf(shared, k, l, d.Memory(), ExactWarpRules, sample)
	if err != nil {
		return c, err
	}
	if len(r.Fields) != 1 || r.Fields[0].Field != 0 {
		return c, fmt.Errorf("staged fields %+v, want %s alone", r.Fields, k.Fields[0].Name)
	}
	f := r.Fields[0]
	blocks := float64(len(sample))
	warps := blocks * float64((l.ThreadsPerBlock()+int64(d.WarpSize)-1)/int64(d.WarpSize))
	threads := r.Threads * blocks
	total := func(v float64) int64 { return int64(math.Round(v)) }
	return stagingCounts{
		L1Sectors:       total(f.L1Load * blocks / float64(d.L1FetchBytes)),
		CopyLoads:       total(f.CopyLoads * warps),
		SharedStores:    total(f.SharedStores * warps),
		SharedLoads:     total(f.SharedLoads * warps),
		StoreWavefronts: total(f.StoreWavefronts * threads),
		LoadWavefronts:  total(f.LoadWavefronts * threads),
	}, nil
}

// simulatedStaging returns the simulator's counts of k's first field, the
// staged one, over the whole grid (one block per SM: a random tile may exceed the shared memory
// that occupancy allows, and residency changes none of these counts).
func simulatedStaging(k *kernel.Kernel, l kernel.Launch, d *device.Device) (stagingCounts, error) {
	r, err := sim.Run(k, l, sim.Config{Device: d, Infinite: true, BlocksPerSM: 1})
	if err != nil {
		return stagingCounts{}, err
	}
	v := r.Fields[0]
	return stagingCounts{
		L1Sectors:       v.L1LoadBytes / d.L1FetchBytes,
		CopyLoads:       v.CopyLoadInstructions,
		SharedStores:    v.SharedStoreInstructions,
		SharedLoads:     v.SharedLoadInstructions,
		StoreWavefronts: v.SharedStoreWavefronts,
		LoadWavefronts:  v.SharedLoadWavefronts,
	}, nil
}

// TestStagingWavefrontsByHand checks the bank wavefronts of one warp of 32
// lanes on 32 banks of 4 bytes, by hand: floats at a stride of 2 words
// meet two lanes per bank (2 wavefronts), at a stride of 32 words all 32 in
// one bank (32); one word read by every lane is a broadcast (1); consecutive
// doubles fill the banks twice (2). On 32 banks of 8 bytes, floats at a
// stride of 2 words from word 1 take one 8-byte unit each, in 32 banks (1;
// a float does not reach into the next unit). Each is checked on
// SharedWavefronts and on the simulator's count of a one-warp kernel that
// reads the tile so.
func TestStagingWavefrontsByHand(t *testing.T) {
	a100 := lookupDevice(t, "A100-40GB")
	wide := *a100
	wide.SharedBankBytes = 8
	cases := []struct {
		name    string
		d       *device.Device
		element int64
		first   int64 // the first lane's element
		stride  int64 // elements between consecutive lanes
		want    int64 // SharedWavefronts of the 32 lanes
		// spec is field A of a kernel over 32 points whose reads
		// simulate as instructions shared loads of wavefronts in all.
		spec                    string
		instructions, wavefront int64
	}{
		// A[y][x] read along x: the tile's rows are 1 element, pitch 2.
		{"float stride 2", a100, 4, 0, 2, 2, "{name: A, element: 4, extent: [1, 32], stage: {pad: 1}, load: [[y, x]]}", 1, 2},
		// pitch 32.
		{"float stride 32", a100, 4, 0, 32, 32, "{name: A, element: 4, extent: [1, 32], stage: {pad: 31}, load: [[y, x]]}", 1, 32},
		// every lane reads element 0 of a 1-element tile.
		{"float broadcast", a100, 4, 0, 0, 1, "{name: A, element: 4, extent: [1, 1], stage: {}, load: [[y, 0]]}", 1, 1},
		{"double consecutive", a100, 8, 0, 1, 2, "{name: A, element: 8, extent: [32], stage: {}, load: [[x]]}", 1, 2},
		// rows of 2 floats: [y, x] at words 2x, [y + 1, x] at 2x + 1.
		{"float stride 2 from word 1, 8-byte banks", &wide, 4, 1, 2, 1, "{name: A, element: 4, extent: [2, 32], stage: {}, load: [[y, x], [y + 1, x]]}", 2, 2},
	}
	for _, c := range cases {
		lanes := make([]int64, 32)
		for i := range lanes {
			lanes[i] = (c.first + int64(i)*c.stride) * c.element
		}
		banks, bankBytes := c.d.SharedBankLayout()
		if got := SharedWavefronts(lanes, c.element, banks, bankBytes); got != c.want {
			t.Errorf("%s: SharedWavefronts = %d, want %d", c.name, got, c.want)
		}
		k := parseKernel(t, "name: hand\ndomain: [32]\nflops: 1\nfields:\n  - "+c.spec+"\n  - {name: B, element: 4, extent: [32], store: [[x]]}\n")
		r, err := sim.Run(k, k.NewLaunch([3]int64{32, 1, 1}, kernel.NoFold), sim.Config{Device: c.d, Infinite: true})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if v := r.Fields[0]; v.SharedLoadInstructions != c.instructions || v.SharedLoadWavefronts != c.wavefront {
			t.Errorf("%s: simulated %d shared loads of %d wavefronts, want %d of %d", c.name, v.SharedLoadInstructions, v.SharedLoadWavefronts, c.instructions, c.wavefront)
		}
	}
}

// TestStagingCopyClassesEqualEveryBlock checks that counting the copy once
// per class of sample blocks (copyClasses) gives exactly the results of
// counting every sample block, L1 cycles and allocation lines included:
// on the staged examples over domains whose blocks are cut by the edge,
// and on random staged kernels, each under both rules, over the whole
// grid.
func TestStagingCopyClassesEqualEveryBlock(t *testing.T) {
	type stagedLaunch struct {
		k *kernel.Kernel
		l kernel.Launch
	}
	cases := []stagedLaunch{
		{exampleKernel(t, "star3d-r1-staged"), kernel.Launch{Block: [3]int64{32, 4, 4}, Fold: kernel.NoFold, Domain: [3]int64{140, 19, 26}}},
		{exampleKernel(t, "convolution-15x15-staged"), kernel.Launch{Block: [3]int64{32, 8, 1}, Fold: [3]int64{2, 2, 1}, Domain: [3]int64{300, 90, 1}, Tiling: kernel.TileStrided}},
		{exampleKernel(t, "hotspot"), kernel.Launch{Block: [3]int64{32, 8, 1}, Fold: [3]int64{2, 2, 1}, Domain: [3]int64{200, 70, 1}, Tiling: kernel.TileStrided}},
	}
	rng := rand.New(rand.NewPCG(2026, 11))
	for range 60 {
		c := randomStagedCase(rng)
		k, err := kernel.Parse([]byte(c.spec), "inline.yaml")
		if err != nil {
			t.Fatalf("%v\n%s", err, c.spec)
		}
		cases = append(cases, stagedLaunch{k, c.l})
	}
	devices := stagedCaseDevices(t)
	for n, c := range cases {
		d := devices[n%len(devices)]
		g := c.l.Grid()
		sample := lattice.Box{Hi: g}.Points()
		for _, mr := range methodRules {
			lists, err := Instructions(c.k, c.l, d.Memory(), mr.rules.Fusion)
			if err != nil {
				t.Fatal(err)
			}
			_, shared := SplitShared(lists)
			classes, err := stagingOf(shared, c.k, c.l, d.Memory(), mr.rules, sample, true)
			if err != nil {
				t.Fatal(err)
			}
			every, err := stagingOf(shared, c.k, c.l, d.Memory(), mr.rules, sample, false)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(classes, every) {
				t.Fatalf("case %d (%s, %s on %s, block %v fold %v %s domain %v): by classes %+v, every block %+v", n, c.k.Name, mr.name, d.Name, c.l.Block, c.l.Fold, c.l.Tiling, c.l.Domain, classes, every)
			}
		}
	}
}
