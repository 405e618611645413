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
	"github.com/polyvol/polyvol/sim"
)

// stepsCase is a random kernel with a state advanced over several time
// steps per launch, described by what the counts need: the coordinates
// its fields index, their load offsets, and the launch.
type stepsCase struct {
	dims    int
	domain  [3]int64
	state   stepsField   // staged, the state
	staged  *stepsField  // another staged field, or nil
	global  []stepsField // unstaged fields read at every step
	element int64        // the store's and the state's element size
	l       kernel.Launch
	// extent and offset are those of the loaded arrays; a zero extent
	// stands for stepsMargin elements beyond the domain on each side.
	extent []int64
	offset int64
}

// stepsField is one loaded field of a stepsCase: its name, element size,
// load offsets per coordinate and copy mapping where it is staged.
type stepsField struct {
	name    string
	element int64
	offsets [][3]int64
	copy    string
}

// stepsMargin is the elements every array holds beyond the domain on each
// side: more than a tile grows for the largest halo and steps drawn.
const stepsMargin = 16

// randomStepsCase draws a kernel of 1 to 3 dimensions over a small
// domain: a staged state whose loads (a star of random reach up to 2 per
// side) include the point, now and then another staged field of 1 to 3
// loads, none to three unstaged fields of one load within 2 of the point
// (stepRegionKernel's conditions keep the counter from merging loads of a
// thread's points as the simulator does where they coincide; one load per
// field never does), a store of the
// state's next value, and a launch of 2 to 4 steps with a random block
// (x not always a multiple of 32), fold and tiling.
func randomStepsCase(rng *rand.Rand) stepsCase {
	c := stepsCase{dims: 1 + rng.IntN(3), domain: [3]int64{1 + rng.Int64N(60), 1, 1}}
	if c.dims >= 2 {
		c.domain[1] = 1 + rng.Int64N(10)
	}
	if c.dims == 3 {
		c.domain[2] = 1 + rng.Int64N(4)
	}
	elements := []int64{4, 8}
	copies := []string{"rows", "block"}
	c.element = elements[rng.IntN(2)]
	c.state = stepsField{name: "s", element: c.element, offsets: [][3]int64{{}}, copy: copies[rng.IntN(2)]}
	for d := range c.dims {
		for _, side := range []int64{-1, 1} {
			if reach := rng.Int64N(3); reach > 0 {
				var o [3]int64
				o[d] = side * reach
				c.state.offsets = append(c.state.offsets, o)
			}
		}
	}
	randomLoads := func(name string, loads int) stepsField {
		f := stepsField{name: name, element: elements[rng.IntN(2)]}
		for range loads {
			var o [3]int64
			for d := range c.dims {
				o[d] = rng.Int64N(5) - 2
			}
			f.offsets = append(f.offsets, o)
		}
		return f
	}
	if rng.IntN(3) == 0 {
		f := randomLoads("v", 1+rng.IntN(3))
		f.copy = copies[rng.IntN(2)]
		c.staged = &f
	}
	for i := range rng.IntN(4) {
		c.global = append(c.global, randomLoads(fmt.Sprintf("u%d", i), 1))
	}
	c.l = kernel.Launch{Domain: c.domain, Fold: kernel.NoFold, Tiling: kernel.Tiling(rng.IntN(2)), Steps: 2 + rng.Int64N(3)}
	c.l.Block = [3]int64{[]int64{1, 7, 16, 32, 33}[rng.IntN(5)], 1, 1}
	for d := range c.dims {
		if d > 0 {
			c.l.Block[d] = 1 + rng.Int64N(4)
		}
		if rng.IntN(3) == 0 {
			c.l.Fold[d] = min(c.domain[d], 1+rng.Int64N(2))
		}
	}
	return c
}

// coordNames are the lattice coordinates' names in a spec.
var coordNames = [3]string{"x", "y", "z"}

// indexText renders the index of a load at offset o from lattice point
// (x, y, z) shifted by shift, over dims coordinates.
func indexText(dims int, o, shift [3]int64) string {
	parts := make([]string, dims)
	for d := range dims {
		parts[d] = fmt.Sprintf("%s + %d", coordNames[d], o[d]+shift[d])
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// fieldText renders field f over the case's arrays, its loads shifted by
// shift and, where cond is not empty, under that condition; stage adds
// its stage key.
func (c stepsCase) fieldText(f stepsField, shift [3]int64, cond string, stage bool) string {
	var b strings.Builder
	extent := make([]string, c.dims)
	offset, stride := c.offset, int64(1)
	for d := range c.dims {
		n := c.domain[d] + 2*stepsMargin
		if c.extent != nil {
			n = c.extent[d]
		} else {
			offset += stepsMargin * stride
		}
		extent[d] = fmt.Sprint(n)
		stride *= n
	}
	fmt.Fprintf(&b, "  - name: %s\n    element: %d\n    extent: [%s]\n    offset: %d\n", f.name, f.element, strings.Join(extent, ", "), offset)
	if stage {
		fmt.Fprintf(&b, "    stage: {copy: %s}\n", f.copy)
	}
	b.WriteString("    load:\n")
	for _, o := range f.offsets {
		at := indexText(c.dims, o, shift)
		if cond != "" {
			fmt.Fprintf(&b, "      - {at: %s, if: %q}\n", at, cond)
		} else {
			fmt.Fprintf(&b, "      - %s\n", at)
		}
	}
	return b.String()
}

// spec renders the case's kernel.
func (c stepsCase) spec() string {
	var b strings.Builder
	domain := make([]string, c.dims)
	for d := range c.dims {
		domain[d] = fmt.Sprint(c.domain[d])
	}
	fmt.Fprintf(&b, "name: steps-random\ndomain: [%s]\nflops: 1\nstate: s\nfields:\n", strings.Join(domain, ", "))
	b.WriteString(c.fieldText(c.state, [3]int64{}, "", true))
	if c.staged != nil {
		b.WriteString(c.fieldText(*c.staged, [3]int64{}, "", true))
	}
	for _, f := range c.global {
		b.WriteString(c.fieldText(f, [3]int64{}, "", false))
	}
	fmt.Fprintf(&b, "  - name: o\n    element: %d\n    extent: [%s]\n    store: [%s]\n", c.element, strings.Join(domain, ", "), indexText(c.dims, [3]int64{}, [3]int64{}))
	return b.String()
}

// stepRegionKernel returns the kernel and launch of unstaged field f's
// loads at one step of one block: a domain of the step's region, whose
// lattice point p is the case's p + first (the region's first point), one
// block of the case's block size covering it with the region's fold
// (kernel.StepRegion) in the case's tiling, and the points outside the
// case's domain left out by the loads' condition. ok is false where the
// region holds no point of the domain.
func (c stepsCase) stepRegionKernel(t *testing.T, f stepsField, r kernel.StepRegion, block [3]int64) (*kernel.Kernel, kernel.Launch, bool) {
	t.Helper()
	var first [3]int64
	var conds []string
	for d := range 3 {
		first[d] = block[d]*c.l.Block[d]*c.l.Fold[d] + r.Lo[d]
		if first[d] >= c.domain[d] || first[d]+r.Size[d] <= 0 {
			return nil, kernel.Launch{}, false
		}
		if first[d] < 0 {
			conds = append(conds, fmt.Sprintf("%s >= %d", coordNames[d], -first[d]))
		}
		if end := c.domain[d] - first[d]; end < r.Size[d] {
			conds = append(conds, fmt.Sprintf("%s < %d", coordNames[d], end))
		}
	}
	domain := make([]string, c.dims)
	for d := range c.dims {
		domain[d] = fmt.Sprint(r.Size[d])
	}
	spec := fmt.Sprintf("name: step-region\ndomain: [%s]\nflops: 1\nfields:\n%s", strings.Join(domain, ", "),
		c.fieldText(f, first, strings.Join(conds, " and "), false))
	k, err := kernel.Parse([]byte(spec), "step-region.yaml")
	if err != nil {
		t.Fatalf("%v\n%s", err, spec)
	}
	return k, kernel.Launch{Block: c.l.Block, Fold: r.Fold, Domain: r.Size, Tiling: c.l.Tiling}, true
}

// stepsCounts are totals over the grid and the steps of one field.
type stepsCounts struct {
	L1Sectors, CopyLoads, L2StoreBytes int64
}

// countedSteps returns the counter's totals per field of case c's kernel k
// under c.l on d: the staged fields' copies of their grown tiles once
// (StagingOf over every block), the unstaged fields' loads over every
// step's region of every block (WarpVolumes of stepRegionKernel), and the
// store once (WarpVolumes over every block), all with ExactWarpRules.
func countedSteps(t *testing.T, c stepsCase, k *kernel.Kernel, d *device.Device) map[string]stepsCounts {
	t.Helper()
	out := map[string]stepsCounts{}
	round := func(v float64) int64 { return int64(math.Round(v)) }
	g := c.l.Grid()
	var blocks [][3]int64
	for z := range g[2] {
		for y := range g[1] {
			for x := range g[0] {
				blocks = append(blocks, [3]int64{x, y, z})
			}
		}
	}
	lists, err := Instructions(k, c.l, d, ExactWarpRules.Fusion)
	if err != nil {
		t.Fatal(err)
	}
	_, shared := SplitShared(lists)
	staging, err := StagingOf(shared, k, c.l, d, ExactWarpRules, blocks)
	if err != nil {
		t.Fatal(err)
	}
	warps := float64(len(blocks)) * float64((c.l.ThreadsPerBlock()+int64(d.WarpSize)-1)/int64(d.WarpSize))
	for _, sf := range staging.Fields {
		out[k.Fields[sf.Field].Name] = stepsCounts{
			L1Sectors: round(sf.L1Load * float64(len(blocks)) / float64(d.L1FetchBytes)),
			CopyLoads: round(sf.CopyLoads * warps),
		}
	}
	store, err := WarpVolumes(k, c.l, d, ExactWarpRules, blocks)
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
	for _, f := range c.global {
		var sectors float64
		for step := int64(1); step <= c.l.Steps; step++ {
			r := kernel.StepRegionOf(c.l, halo, c.l.Steps-step)
			for _, b := range blocks {
				kr, lr, ok := c.stepRegionKernel(t, f, r, b)
				if !ok {
					continue
				}
				w, err := WarpVolumes(kr, lr, d, ExactWarpRules, [][3]int64{{}})
				if err != nil {
					t.Fatal(err)
				}
				sectors += w.BlockL1Load / float64(d.L1FetchBytes)
			}
		}
		out[f.name] = stepsCounts{L1Sectors: round(sectors)}
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
		c := randomStepsCase(rng)
		d := devices[rng.IntN(len(devices))]
		spec := c.spec()
		k, err := kernel.Parse([]byte(spec), "inline.yaml")
		if err != nil {
			t.Fatalf("case %d: %v\n%s", n, err, spec)
		}
		name := fmt.Sprintf("case %d (%s, block %v fold %v %s domain %v steps %d)", n, d.Name, c.l.Block, c.l.Fold, c.l.Tiling, c.l.Domain, c.l.Steps)
		compareSteps(t, name, c, k, d, spec)
	}
}

// compareSteps compares the counter's totals of case c with the
// simulator's, field by field; spec is k's text for the report.
func compareSteps(t *testing.T, name string, c stepsCase, k *kernel.Kernel, d *device.Device, spec string) {
	t.Helper()
	got := countedSteps(t, c, k, d)
	want := simulatedSteps(t, k, c.l, d)
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
		c := stepsCase{dims: 2, domain: tc.domain, element: 4, extent: power.Extent[:2], offset: power.Offset,
			state: stepsField{name: "temp", element: 4, offsets: star},
			l:     kernel.Launch{Block: tc.block, Fold: tc.fold, Domain: tc.domain, Tiling: tc.tiling, Steps: tc.steps}}
		if tc.shPower {
			k = withPowerStaged(t, k)
		} else {
			c.global = []stepsField{{name: "power", element: 4, offsets: [][3]int64{{}}}}
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
