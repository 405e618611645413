package model

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/footprint"
	"github.com/polyvol/polyvol/geometry"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/kernel/kerneltest"
	"github.com/polyvol/polyvol/sim"
	"github.com/polyvol/polyvol/waves"
)

// crossKernel returns a random small kernel: one to three fields with random
// element sizes, offsets and extents, and loads and stores whose indices are
// affine (mostly stencil-like) or, now and then, quasi-affine, a quarter of
// them partial (guarded by a bound on one coordinate).
func crossKernel(t *testing.T, r *rand.Rand) *kernel.Kernel {
	lead := []kerneltest.Term{kerneltest.Stride, kerneltest.Floor, kerneltest.Mod, kerneltest.Constant, kerneltest.Constant}
	for range 12 {
		lead = append(lead, kerneltest.Offset)
	}
	return kerneltest.Kernel(t, r, kerneltest.Options{
		Name:         "cross",
		Domain:       [3]int64{2 + r.Int64N(40), 1 + r.Int64N(10), 1 + r.Int64N(5)},
		Flops:        4,
		Fields:       3,
		Loads:        4,
		Stores:       4,
		Elements:     []int64{2, 4, 8, 16},
		Lead:         lead,
		MaxDivisor:   2,
		Partial:      true,
		Multiplicity: true,
		MaxOffset:    8,
		Margin:       [3]int64{39, 3, 2},
	})
}

// TestEngineEqualsSimulatorCompulsory checks on random kernels and launches
// that the engine's method-exact compulsory volumes equal the simulator's
// exactly: the block L2→L1 load, the L2 store volume of the write-through
// store instructions, and the wave's DRAM footprint, per field. The
// simulator evaluates the expressions lane by lane without ISL, so any
// difference is a bug in one of them.
func TestEngineEqualsSimulatorCompulsory(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	devs := []string{"A100-40GB", "V100", "H100-SXM"}
	cases := 1000
	if testing.Short() {
		cases = 150
	}
	for c := range cases {
		k := crossKernel(t, r)
		d, err := device.Lookup(devs[r.IntN(len(devs))])
		if err != nil {
			t.Fatal(err)
		}
		l := k.NewLaunch([3]int64{int64(1 + r.IntN(40)), int64(1 + r.IntN(4)), int64(1 + r.IntN(2))},
			[3]int64{int64(1 + r.IntN(2)), int64(1 + r.IntN(2)), 1})
		if l.Validate() != nil {
			continue
		}
		g := geometry.NewGeometry(l)
		W := int64(1 + r.IntN(int(min(g.Blocks(), 12))))
		l.Tiling = kernel.Tiling(c % 2)
		where := fmt.Sprintf("case %d: %s block %v fold %v %s tile domain %v", c, d.Name, l.Block, l.Fold, l.Tiling, l.Domain)
		if testing.Verbose() {
			t.Log(where)
		}
		if msg := compareCompulsory(t, k, l, d, W); msg != "" {
			t.Fatalf("%s: %s", where, msg)
		}
	}
}

// compareCompulsory compares the engine's method-exact compulsory volumes
// of launch l with a wave of W blocks against the simulator's: the block
// L2→L1 load and the wave's DRAM footprint per field, and the L2 store of
// the write-through store instructions. It returns the first difference,
// or "".
func compareCompulsory(t *testing.T, k *kernel.Kernel, l kernel.Launch, d *device.Device, W int64) string {
	t.Helper()
	g := geometry.NewGeometry(l)
	e := &footprint.Engine{Mapper: &geometry.AccessMapper{Kernel: k, Geom: g, PointGuard: true}}
	shape := waves.ExactShape(g, W)
	var ids []int64
	var idx [][3]int64
	for _, b := range shape.Blocks {
		bi := [3]int64{b.Lo[0] / g.Block[0], b.Lo[1] / g.Block[1], b.Lo[2] / g.Block[2]}
		idx = append(idx, bi)
		ids = append(ids, g.LinearBlockID(bi))
	}
	simLoad, err := sim.BlockL2Load(k, l, d, ids)
	if err != nil {
		t.Fatal(err)
	}
	vols, err := e.BlockVolumes(d.Memory(), shape.Blocks)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vols {
		if v.Store {
			continue
		}
		f := k.Fields[v.Field]
		if got, want := v.Sectors*float64(d.L1FetchBytes*f.Multiplicity), simLoad.Fields[v.Field].Bytes; !closeTo(got, want) {
			return fmt.Sprintf("wave %v field %s block L2 load: engine %v, simulator %v", ids, f.Name, got, want)
		}
	}
	simStore, err := sim.BlockL2Store(k, l, d, ids)
	if err != nil {
		t.Fatal(err)
	}
	warp, err := footprint.WarpVolumes(k, l, d.Memory(), footprint.ExactWarpRules, idx)
	if err != nil {
		t.Fatal(err)
	}
	if !closeTo(warp.BlockL2Store, simStore.Total) {
		return fmt.Sprintf("wave %v block L2 store: engine %v, simulator %v", ids, warp.BlockL2Store, simStore.Total)
	}
	simWaveLoad, simWaveStore, err := sim.WaveDRAMFootprint(k, l, d, ids)
	if err != nil {
		t.Fatal(err)
	}
	gran := func(store bool) int64 {
		if store {
			return d.DRAMWriteBytes
		}
		return d.DRAMFetchBytes
	}
	wv, err := waves.CountVolumes(e, shape, geometry.LinearSpace, gran)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range wv {
		want := simWaveLoad.Fields[v.Field].Bytes
		if v.Store {
			want = simWaveStore.Fields[v.Field].Bytes
		}
		if got := float64(v.New * v.Gran * v.Multiplicity); !closeTo(got, want) {
			return fmt.Sprintf("wave %v field %s store=%v wave DRAM footprint: engine %v, simulator %v", ids, k.Fields[v.Field].Name, v.Store, got, want)
		}
	}
	return ""
}

// closeTo compares two volumes that should be equal up to floating-point
// averaging.
func closeTo(a, b float64) bool {
	d := a - b
	if d < 0 {
		d = -d
	}
	return d <= 1e-9*max(1, a, b)
}
