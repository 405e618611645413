package footprint

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/examples"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/kernel/kerneltest"
	"github.com/polyvol/polyvol/sim"
)

// stepRegionKernel returns the kernel and launch of unstaged field f's
// loads at one step of one block: a domain of the step's region, whose
// lattice point p is the case's p + first (the region's first point), one
// block of the case's block size covering it with the region's fold
// (kernel.StepRegion) in the case's tiling, and the points outside the
// case's domain left out by the loads' condition. ok is false where the
// region holds no point of the domain.
func stepRegionKernel(t *testing.T, c kerneltest.StepsCase, f kerneltest.StepsField, r kernel.StepRegion, block [3]int64) (*kernel.Kernel, kernel.Launch, bool) {
	t.Helper()
	var first [3]int64
	var conds []string
	for d := range 3 {
		first[d] = block[d]*c.L.Block[d]*c.L.Fold[d] + r.Lo[d]
		if first[d] >= c.Domain[d] || first[d]+r.Size[d] <= 0 {
			return nil, kernel.Launch{}, false
		}
		if first[d] < 0 {
			conds = append(conds, fmt.Sprintf("%s >= %d", kerneltest.CoordNames[d], -first[d]))
		}
		if end := c.Domain[d] - first[d]; end < r.Size[d] {
			conds = append(conds, fmt.Sprintf("%s < %d", kerneltest.CoordNames[d], end))
		}
	}
	domain := make([]string, c.Dims)
	for d := range c.Dims {
		domain[d] = fmt.Sprint(r.Size[d])
	}
	spec := fmt.Sprintf("name: step-region\ndomain: [%s]\nflops: 1\nfields:\n%s", strings.Join(domain, ", "),
		c.FieldText(f, first, strings.Join(conds, " and "), false))
	k, err := kernel.Parse([]byte(spec), "step-region.yaml")
	if err != nil {
		t.Fatalf("%v\n%s", err, spec)
	}
	return k, kernel.Launch{Block: c.L.Block, Fold: r.Fold, Domain: r.Size, Tiling: c.L.Tiling}, true
}

// stepsCounts are totals over the grid and the steps of one field.
type stepsCounts struct {
	L1Sectors, CopyLoads, L2StoreBytes int64
}

// countedSteps returns the counter's totals per field of case c's kernel k
// under c.L on d: the staged fields' copies of their grown tiles once
// (StagingOf over every block), the unstaged fields' loads over every
// step's region of every block (WarpVolumes of stepRegionKernel), and the
// store once (WarpVolumes over every block), all with ExactWarpRules.
func countedSteps(t *testing.T, c kerneltest.StepsCase, k *kernel.Kernel, d *device.Device) map[string]stepsCounts {
	t.Helper()
	out := map[string]stepsCounts{}
	round := func(v float64) int64 { return int64(math.Round(v)) }
	g := c.L.Grid()
	var blocks [][3]int64
	for z := range g[2] {
		for y := range g[1] {
			for x := range g[0] {
				blocks = append(blocks, [3]int64{x, y, z})
			}
		}
	}
	lists, err := Instructions(k, c.L, d.Memory(), ExactWarpRules.Fusion)
	if err != nil {
		t.Fatal(err)
	}
	_, shared := SplitShared(lists)
	staging, err := StagingOf(shared, k, c.L, d.Memory(), ExactWarpRules, blocks)
	if err != nil {
		t.Fatal(err)
	}
	warps := float64(len(blocks)) * float64((c.L.ThreadsPerBlock()+int64(d.WarpSize)-1)/int64(d.WarpSize))
	for _, sf := range staging.Fields {
		out[k.Fields[sf.Field].Name] = stepsCounts{
			L1Sectors: round(sf.L1Load * float64(len(blocks)) / float64(d.L1FetchBytes)),
			CopyLoads: round(sf.CopyLoads * warps),
		}
	}
	store, err := WarpVolumes(k, c.L, d.Memory(), ExactWarpRules, blocks)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range k.Fields {
		if len(f.Stores) > 0 {
			out[f.Name] = stepsCounts{L2StoreBytes: round(store.BlockL2Store * float64(len(blocks)))}
		}
	}
	halo, err := kernel.StepHalo(k.StateField())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range c.Global {
		var sectors float64
		for step := int64(1); step <= c.L.Steps; step++ {
			r := kernel.StepRegionOf(c.L, halo, c.L.Steps-step)
			for _, b := range blocks {
				kr, lr, ok := stepRegionKernel(t, c, f, r, b)
				if !ok {
					continue
				}
				w, err := WarpVolumes(kr, lr, d.Memory(), ExactWarpRules, [][3]int64{{}})
				if err != nil {
					t.Fatal(err)
				}
				sectors += w.BlockL1Load / float64(d.L1FetchBytes)
			}
		}
		out[f.Name] = stepsCounts{L1Sectors: round(sectors)}
	}
	return out
}

// simulatedSteps returns the simulator's totals per field of k under l on
// d, with infinite caches and one block per SM.
func simulatedSteps(t *testing.T, k *kernel.Kernel, l kernel.Launch, d *device.Device) map[string]stepsCounts {
	t.Helper()
	r, err := sim.Run(k, l, sim.Config{Device: d, Infinite: true, BlocksPerSM: 1})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]stepsCounts{}
	for _, v := range r.Fields {
		out[v.Field] = stepsCounts{L1Sectors: v.L1LoadBytes / d.L1FetchBytes, CopyLoads: v.CopyLoadInstructions, L2StoreBytes: v.L2StoreBytes}
	}
	return out
}

// TestStepsSimulatorMatchesCounts checks the simulator's replay of a
// launch of several time steps against the counts of footprint, exactly,
// on random kernels with a state: per field, the L1 sectors and global
// load instructions of the copies of the staged tiles grown for the steps
// (StagingOf), the L1 sectors of the unstaged fields' loads repeated at
// every step over the step's region (WarpVolumes of each step and block's
// region as a kernel of its own), and the L2 store of the one store after
// the last step.
func TestStepsSimulatorMatchesCounts(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 4))
	var devices []*device.Device
	for _, name := range []string{"A100-40GB", "V100", "H100-SXM", "MI250X"} {
		devices = append(devices, lookupDevice(t, name))
	}
	cases := 120
	if testing.Short() {
		cases = 30
	}
	for n := range cases {
		c := kerneltest.RandomStepsCase(rng)
		d := devices[rng.IntN(len(devices))]
		spec := c.Spec()
		k, err := kernel.Parse([]byte(spec), "inline.yaml")
		if err != nil {
			t.Fatalf("case %d: %v\n%s", n, err, spec)
		}
		name := fmt.Sprintf("case %d (%s, block %v fold %v %s domain %v steps %d)", n, d.Name, c.L.Block, c.L.Fold, c.L.Tiling, c.L.Domain, c.L.Steps)
		compareSteps(t, name, c, k, d, spec)
	}
}

// compareSteps compares the counter's totals of case c with the
// simulator's, field by field; spec is k's text for the report.
func compareSteps(t *testing.T, name string, c kerneltest.StepsCase, k *kernel.Kernel, d *device.Device, spec string) {
	t.Helper()
	got := countedSteps(t, c, k, d)
	want := simulatedSteps(t, k, c.L, d)
	for _, f := range k.Fields {
		if got[f.Name] != want[f.Name] {
			t.Errorf("%s: field %s: counted %+v, simulated %+v\n%s", name, f.Name, got[f.Name], want[f.Name], spec)
		}
	}
}

// TestStepsSimulatorMatchesCountsHotspot checks the hotspot example as
// TestStepsSimulatorMatchesCounts checks random kernels, on small domains
// whose edge blocks the domain clips, power read from global memory at
// every step (sh_power=0) and staged with the state (sh_power=1).
func TestStepsSimulatorMatchesCountsHotspot(t *testing.T) {
	a100 := lookupDevice(t, "A100-40GB")
	star := [][3]int64{{0, 0, 0}, {-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}}
	for _, tc := range []struct {
		domain, block, fold [3]int64
		tiling              kernel.Tiling
		steps               int64
		shPower             bool
	}{
		{[3]int64{100, 37, 1}, [3]int64{32, 8, 1}, [3]int64{2, 2, 1}, kernel.TileStrided, 3, false},
		{[3]int64{100, 37, 1}, [3]int64{32, 8, 1}, [3]int64{2, 2, 1}, kernel.TileStrided, 3, true},
		{[3]int64{70, 20, 1}, [3]int64{16, 4, 1}, [3]int64{1, 3, 1}, kernel.TileConsecutive, 4, false},
		{[3]int64{64, 32, 1}, [3]int64{32, 4, 1}, [3]int64{1, 1, 1}, kernel.TileStrided, 2, true},
	} {
		k := exampleKernel(t, "hotspot").WithDomain(tc.domain)
		power := k.Fields[1] // temp's arrays too
		c := kerneltest.StepsCase{Dims: 2, Domain: tc.domain, Element: 4, Extent: power.Extent[:2], Offset: power.Offset,
			State: kerneltest.StepsField{Name: "temp", Element: 4, Offsets: star},
			L:     kernel.Launch{Block: tc.block, Fold: tc.fold, Domain: tc.domain, Tiling: tc.tiling, Steps: tc.steps}}
		if tc.shPower {
			k = withPowerStaged(t, k)
		} else {
			c.Global = []kerneltest.StepsField{{Name: "power", Element: 4, Offsets: [][3]int64{{}}}}
		}
		name := fmt.Sprintf("hotspot block %v fold %v %s domain %v steps %d sh_power %v", tc.block, tc.fold, tc.tiling, tc.domain, tc.steps, tc.shPower)
		compareSteps(t, name, c, k, a100, "")
	}
}

// withPowerStaged returns the hotspot kernel k with its power staged as
// the example says for sh_power=1: stage: {copy: block}.
func withPowerStaged(t *testing.T, k *kernel.Kernel) *kernel.Kernel {
	t.Helper()
	src, err := examples.Read("hotspot.yaml")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(src), "load: [[x, y]]\n", "stage: {copy: block}\n    load: [[x, y]]\n", 1)
	staged, err := kernel.Parse([]byte(text), "hotspot.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if staged.Fields[1].Stage == nil {
		t.Fatal("power is not staged")
	}
	return staged.WithDomain(k.Domain)
}
