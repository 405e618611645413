package cudagen

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/examples"
	"github.com/polyvol/polyvol/kernel"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// testResidency is the occupancy of the tests that do not compare with a
// golden file.
var testResidency = Residency{Device: "A100-40GB", Arch: "sm_80", BlocksPerSM: 8}

// goldenResidency is the occupancy device.Occupancy gives the launch on
// A100-40GB with the launch's shared memory, staged tiles included.
func goldenResidency(t *testing.T, k *kernel.Kernel, l kernel.Launch) Residency {
	t.Helper()
	dev, err := device.Lookup("A100-40GB")
	if err != nil {
		t.Fatal(err)
	}
	shared, err := kernel.StagedSharedBytes(k, l)
	if err != nil {
		t.Fatal(err)
	}
	occ, err := dev.Occupancy(int(l.ThreadsPerBlock()), k.Registers, shared)
	if err != nil {
		t.Fatal(err)
	}
	return Residency{Device: dev.Name, Arch: dev.Arch, BlocksPerSM: occ.BlocksPerSM}
}

// goldenLaunch is the launch of each example's golden file: the paper's
// configurations where there is one, a folded case for the stencils, a
// strided tile for the convolution, several time steps for the hotspot
// (steps: the spec's where 0).
var goldenLaunch = map[string]struct {
	block, fold [3]int64
	tiling      kernel.Tiling
	steps       int64
}{
	"allen-cahn-d3q15":         {[3]int64{32, 4, 4}, [3]int64{1, 1, 1}, kernel.TileConsecutive, 0},
	"convolution-15x15":        {[3]int64{32, 8, 1}, [3]int64{2, 2, 1}, kernel.TileStrided, 0},
	"convolution-15x15-staged": {[3]int64{32, 8, 1}, [3]int64{2, 2, 1}, kernel.TileStrided, 0},
	"box3d-r1":                 {[3]int64{32, 4, 2}, [3]int64{1, 1, 2}, kernel.TileConsecutive, 0},
	"hotspot":                  {[3]int64{32, 8, 1}, [3]int64{2, 2, 1}, kernel.TileStrided, 3},
	"lbm-d3q19-pull":           {[3]int64{64, 1, 8}, [3]int64{1, 1, 1}, kernel.TileConsecutive, 0},
	"lbm-d3q19-aos":            {[3]int64{64, 4, 1}, [3]int64{1, 1, 1}, kernel.TileConsecutive, 0},
	"lbm-d3q27-aos":            {[3]int64{128, 2, 1}, [3]int64{1, 1, 2}, kernel.TileConsecutive, 0},
	"star2d-r1":                {[3]int64{256, 2, 1}, [3]int64{1, 2, 1}, kernel.TileConsecutive, 0},
	"star3d-r1":                {[3]int64{32, 8, 4}, [3]int64{1, 1, 1}, kernel.TileConsecutive, 0},
	"star3d-r1-staged":         {[3]int64{32, 4, 4}, [3]int64{1, 1, 1}, kernel.TileConsecutive, 0},
	"star3d-r4":                {[3]int64{64, 4, 4}, [3]int64{1, 1, 2}, kernel.TileConsecutive, 0},
	"transpose2d":              {[3]int64{32, 8, 1}, [3]int64{1, 1, 1}, kernel.TileConsecutive, 0},
	"vec-copy":                 {[3]int64{1024, 1, 1}, [3]int64{1, 1, 1}, kernel.TileConsecutive, 0},
	"vec3-scale":               {[3]int64{1024, 1, 1}, [3]int64{1, 1, 1}, kernel.TileConsecutive, 0},
}

func loadExample(t *testing.T, name string) *kernel.Kernel {
	t.Helper()
	data, err := examples.Read(name)
	if err != nil {
		t.Fatal(err)
	}
	k, err := kernel.Parse(data, "examples/"+name+".yaml")
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// TestGolden compares the generated program of every example with its
// golden file; go test ./cudagen -update rewrites them.
func TestGolden(t *testing.T) {
	for _, name := range examples.Names() {
		t.Run(name, func(t *testing.T) {
			cfg, ok := goldenLaunch[name]
			if !ok {
				t.Fatalf("example %s has no golden launch; add one to goldenLaunch", name)
			}
			k := loadExample(t, name)
			l := k.NewLaunch(cfg.block, cfg.fold)
			l.Tiling = cfg.tiling
			if cfg.steps > 0 {
				l.Steps = cfg.steps
			}
			prog, err := Generate(k, l, goldenResidency(t, k, l))
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, filepath.Join("testdata", "golden", name+".cu"), prog.Source)
		})
	}
}

// syntheticLaunch lists the generator's own test specs under testdata and
// the launch of their golden files.
var syntheticLaunch = map[string]struct{ block, fold [3]int64 }{
	"mixed":    {[3]int64{32, 4, 1}, [3]int64{2, 1, 1}},
	"loadonly": {[3]int64{256, 1, 1}, [3]int64{1, 1, 1}},
	"staged":   {[3]int64{16, 4, 2}, [3]int64{1, 1, 1}},
}

func loadSynthetic(t *testing.T, name string) *kernel.Kernel {
	t.Helper()
	k, err := kernel.LoadFile(filepath.Join("testdata", name+".yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// TestGoldenSynthetic covers what the examples do not: all element sizes,
// single precision, multiplicity, floor and modulo, padding, x folding, a
// kernel without stores, and staged fields of several instances and types.
func TestGoldenSynthetic(t *testing.T) {
	for name, cfg := range syntheticLaunch {
		t.Run(name, func(t *testing.T) {
			k := loadSynthetic(t, name)
			l := k.NewLaunch(cfg.block, cfg.fold)
			prog, err := Generate(k, l, goldenResidency(t, k, l))
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, filepath.Join("testdata", "golden", "synthetic-"+name+".cu"), prog.Source)
		})
	}
}

// checkGolden compares got with the golden file at path, or rewrites it
// under -update.
func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./cudagen -update)", err)
	}
	if got != string(want) {
		t.Errorf("generated program differs from %s (review the change, then run go test ./cudagen -update)", path)
	}
}

// TestDistinctLoadsMatchFoldAccesses checks that the generator loads exactly
// the de-duplicated folded accesses the model counts, in the same order.
func TestDistinctLoadsMatchFoldAccesses(t *testing.T) {
	folds := [][3]int64{{1, 1, 1}, {2, 1, 1}, {1, 2, 1}, {1, 1, 2}, {2, 2, 2}, {1, 4, 1}}
	for _, name := range examples.Names() {
		k := loadExample(t, name)
		for _, fold := range folds {
			g := &gen{k: k, l: k.NewLaunch([3]int64{32, 2, 2}, fold), points: kernel.FoldOffsets(fold)}
			if err := g.plan(); err != nil {
				t.Fatalf("%s fold %v: %v", name, fold, err)
			}
			for _, fp := range g.fields {
				want, err := kernel.FoldAccesses(fp.f.Loads, g.l)
				if err != nil {
					t.Fatal(err)
				}
				if len(fp.loads) != len(want) {
					t.Fatalf("%s fold %v field %s: %d distinct loads, FoldAccesses has %d", name, fold, fp.f.Name, len(fp.loads), len(want))
				}
				for i, a := range want {
					idx, err := g.index(fp.f, a)
					if fp.tile != nil { // a staged load reads the shared tile
						idx, err = g.sharedIndex(fp, a)
					}
					if err != nil {
						t.Fatal(err)
					}
					if fp.loads[i].index != idx {
						t.Errorf("%s fold %v field %s load %d: %s, FoldAccesses gives %s", name, fold, fp.f.Name, i, fp.loads[i].index, idx)
					}
				}
				// Every point uses each of its spec loads, and a value is
				// marked for exactly the points that use it.
				for k, use := range fp.pointUse {
					if len(use) != len(fp.f.Loads) {
						t.Fatalf("%s point %d uses %d loads, want %d", name, k, len(use), len(fp.f.Loads))
					}
					for _, d := range use {
						if fp.loads[d].mask&(1<<k) == 0 {
							t.Errorf("%s field %s: load %d used by point %d but not marked", name, fp.f.Name, d, k)
						}
					}
				}
			}
		}
	}
}

// TestAllocationCoversEveryIndex enumerates every access at every point of
// small domains and checks that it lies inside the planned allocation, and
// that the pad keeps the 256-byte alignment of index 0.
func TestAllocationCoversEveryIndex(t *testing.T) {
	specs := map[string]*kernel.Kernel{}
	for _, name := range examples.Names() {
		specs[name] = loadExample(t, name)
	}
	for name := range syntheticLaunch {
		specs[name] = loadSynthetic(t, name)
	}
	for name, k := range specs {
		for _, dom := range [][3]int64{{7, 5, 3}, {33, 2, 1}} {
			l := kernel.Launch{Block: [3]int64{8, 2, 1}, Fold: [3]int64{1, 1, 1}, Domain: dom}
			g := &gen{k: k, l: l, points: kernel.FoldOffsets(l.Fold)}
			if err := g.plan(); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			for _, fp := range g.fields {
				pad := fp.offset - fp.f.Offset
				if pad < 0 || pad*fp.f.Element%256 != 0 {
					t.Errorf("%s field %s: pad %d elements is not a whole number of 256-byte units", name, fp.f.Name, pad)
				}
				hit := map[int64]bool{}
				for z := range dom[2] {
					for y := range dom[1] {
						for x := range dom[0] {
							for _, a := range append(append([]kernel.Access(nil), fp.f.Loads...), fp.f.Stores...) {
								i := pad + fp.f.ElementIndex(a, kernel.Point{x, y, z})
								if i < 0 || i >= fp.elements {
									t.Fatalf("%s field %s access %s at (%d,%d,%d): element %d outside [0, %d)", name, fp.f.Name, a, x, y, z, i, fp.elements)
								}
								hit[i] = true
							}
						}
					}
				}
				if !hit[fp.elements-1] && fp.f.Extent == dom {
					t.Errorf("%s field %s: the last allocated element is never touched (allocation larger than needed)", name, fp.f.Name)
				}
			}
		}
	}
}

// TestGenerateErrors checks the errors a user can cause.
func TestGenerateErrors(t *testing.T) {
	star := loadExample(t, "star3d-r4")
	staged := loadExample(t, "star3d-r1-staged")
	for _, tc := range []struct {
		k    *kernel.Kernel
		l    kernel.Launch
		r    Residency
		want string
	}{
		{star, star.NewLaunch([3]int64{2048, 1, 1}, kernel.NoFold), testResidency, "block"},
		{star, kernel.Launch{Block: [3]int64{1024, 1, 1}, Fold: kernel.NoFold, Domain: [3]int64{64, 70000, 1}}, testResidency, "65535"},
		{star, star.NewLaunch([3]int64{4, 4, 4}, [3]int64{4, 4, 8}), testResidency, "at most 64 lattice points"},
		{staged, staged.NewLaunch([3]int64{1024, 1, 1}, [3]int64{1, 1, 4}), testResidency, "147744 bytes of shared memory per block, more than the 49152 bytes static __shared__ arrays allow"},
		{star, star.NewLaunch([3]int64{256, 1, 1}, kernel.NoFold), Residency{Device: "X"}, "resident blocks per SM on X = 0"},
		{star, star.NewLaunch([3]int64{256, 1, 1}, kernel.NoFold), Residency{Device: "X", BlocksPerSM: 1}, `architecture "" of X: want sm_NN`},
		{star, star.NewLaunch([3]int64{256, 1, 1}, kernel.NoFold), Residency{Device: "X", Arch: "ampere", BlocksPerSM: 1}, `architecture "ampere" of X`},
		{star, star.NewLaunch([3]int64{256, 1, 1}, kernel.NoFold), Residency{Device: "X", Arch: "sm_80 -o /tmp/x", BlocksPerSM: 1}, `architecture "sm_80 -o /tmp/x"`},
	} {
		_, err := Generate(tc.k, tc.l, tc.r)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Generate(%s, %+v) = %v, want an error containing %q", tc.k.Name, tc.l, err, tc.want)
		}
	}
}

// TestFlopsAndFunction checks the reported flops: the spec's, or one per
// loaded component per point where the spec states fewer.
func TestFlopsAndFunction(t *testing.T) {
	for _, tc := range []struct {
		name  string
		k     *kernel.Kernel
		fold  [3]int64
		flops float64
	}{
		{"star3d-r4", loadExample(t, "star3d-r4"), [3]int64{1, 1, 2}, 25},
		{"lbm-d3q19-pull", loadExample(t, "lbm-d3q19-pull"), kernel.NoFold, 200},
		// The spec states 3 flops; c, s, 2×2 f and the two components of v
		// are 1+1+4+2 operands, one addition each.
		{"mixed", loadSynthetic(t, "mixed"), [3]int64{2, 1, 1}, 8},
	} {
		prog, err := Generate(tc.k, tc.k.NewLaunch([3]int64{32, 2, 2}, tc.fold), testResidency)
		if err != nil {
			t.Fatal(err)
		}
		if prog.Flops != tc.flops {
			t.Errorf("%s: %v flops per Lup, want %v", tc.name, prog.Flops, tc.flops)
		}
		if !strings.Contains(prog.Function, "polyvol") || !strings.Contains(prog.Source, "__global__ void __launch_bounds__(BX * BY * BZ, MIN_BLOCKS_PER_SM)\n"+prog.Function+"(") ||
			!strings.Contains(prog.Source, "constexpr int MIN_BLOCKS_PER_SM = 8;") {
			t.Errorf("%s: function %q not declared as the polyvol kernel", tc.name, prog.Function)
		}
	}
}

// TestBuildLine checks that the program's build line targets the
// architecture of the device it is generated for: nvcc -arch=sm_NN for
// every NVIDIA device of the database, hipify-perl and hipcc
// --offload-arch=gfxNNN for every AMD one, and that nothing else in the
// program depends on it beyond the compiler named in the comments.
func TestBuildLine(t *testing.T) {
	k := loadExample(t, "star3d-r1")
	l := k.NewLaunch([3]int64{256, 1, 1}, kernel.NoFold)
	ref, err := Generate(k, l, testResidency)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range device.All() {
		prog, err := Generate(k, l, Residency{Device: d.Name, Arch: d.Arch, BlocksPerSM: testResidency.BlocksPerSM})
		if err != nil {
			t.Errorf("%s (%s): %v", d.Name, d.Arch, err)
			continue
		}
		fn := prog.Function
		var want []string
		switch d.Vendor {
		case "nvidia":
			want = []string{"// Build: nvcc -O3 -arch=" + d.Arch + " -o " + fn + " THIS_FILE.cu\n"}
		case "amd":
			want = []string{"// Build: hipify-perl THIS_FILE.cu > THIS_FILE.hip &&\n//        hipcc -O3 --offload-arch=" + d.Arch + " -o " + fn + " THIS_FILE.hip\n",
				"__launch_bounds__ asks hipcc\n"}
		}
		for _, w := range want {
			if !strings.Contains(prog.Source, w) {
				t.Errorf("%s (%s %s): program lacks %q", d.Name, d.Vendor, d.Arch, w)
			}
		}
		if strings.Contains(prog.Source, "sm_") != (d.Vendor == "nvidia") {
			t.Errorf("%s (%s): the program names an NVIDIA architecture: %v", d.Name, d.Arch, strings.Contains(prog.Source, "sm_"))
		}
		if d.Name == "A100-40GB" && prog.Source != ref.Source {
			t.Errorf("%s: the program differs from the one of testResidency (also sm_80)", d.Name)
		}
	}
}

// TestPlanChain checks hand-counted chains: as many operands as flops are
// all additions, up to twice as many flops turn the first operands into
// fused multiply-adds, more pad the chain, and fewer flops than operands
// still use every operand.
func TestPlanChain(t *testing.T) {
	for _, tc := range []struct {
		operands int64
		flops    float64
		want     chainPlan
		total    int64
	}{
		{25, 25, chainPlan{}, 25},
		{25, 30, chainPlan{fmas: 5}, 30},
		{25, 50, chainPlan{fmas: 25}, 50},
		{19, 200, chainPlan{fmas: 19, padFMAs: 81}, 200},
		{19, 201, chainPlan{fmas: 19, padFMAs: 81, padAdds: 1}, 201},
		{8, 3, chainPlan{}, 8},
		{0, 0, chainPlan{}, 0},
		{0, 5, chainPlan{padFMAs: 2, padAdds: 1}, 5},
		{4, 6.4, chainPlan{fmas: 2}, 6},
	} {
		got := planChain(tc.operands, tc.flops)
		if got != tc.want || got.flops(tc.operands) != tc.total {
			t.Errorf("planChain(%d, %v) = %+v with %d flops, want %+v with %d", tc.operands, tc.flops, got, got.flops(tc.operands), tc.want, tc.total)
		}
	}
}

// TestChainStatements checks that the generated chain of star3d-r4, 25
// loads and 25 flops per point, adds each loaded value once per point, and
// that of lbm-d3q19-pull, 19 loads and 200 flops, has 19 fused
// multiply-adds of loaded values and 81 of padding per point.
func TestChainStatements(t *testing.T) {
	for _, tc := range []struct {
		name                   string
		adds, fmas, paddingFMA int
	}{{"star3d-r4", 25, 0, 0}, {"lbm-d3q19-pull", 0, 19, 81}} {
		k := loadExample(t, tc.name)
		prog, err := Generate(k, k.NewLaunch([3]int64{32, 2, 2}, kernel.NoFold), testResidency)
		if err != nil {
			t.Fatal(err)
		}
		padding := strings.Count(prog.DeviceSource, "acc = fma(acc, 0.5, 0.5);") + strings.Count(prog.DeviceSource, "acc = fmaf(acc, 0.5f, 0.5f);")
		fmas := strings.Count(prog.DeviceSource, "acc = fma") - padding
		if adds := strings.Count(prog.DeviceSource, "acc += "); adds != tc.adds || fmas != tc.fmas || padding != tc.paddingFMA {
			t.Errorf("%s: %d additions, %d fused multiply-adds of loaded values and %d of padding, want %d, %d and %d",
				tc.name, adds, fmas, padding, tc.adds, tc.fmas, tc.paddingFMA)
		}
	}
}
