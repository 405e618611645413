package accuracy

import (
	"bytes"
	"math"
	"sync"
	"testing"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/model"
)

// loadExample loads an embedded example and shrinks its domain, keeping
// the field extents (a padded array).
func loadExample(spec string, domain [3]int64) (*kernel.Kernel, error) {
	k, err := kernel.ParseExample(spec)
	if err != nil {
		return nil, err
	}
	k.Domain = domain
	return k, nil
}

// testCases hold more than one wave (the DRAM volumes of the exact method
// assume a full wave).
var testCases = []Case{
	{Spec: "vec-copy", Domain: [3]int64{1 << 20, 1, 1}, Blocks: [][3]int64{{256, 1, 1}, {1024, 1, 1}}},
	{Spec: "star2d-r1", Domain: [3]int64{1024, 512, 1}, Blocks: [][3]int64{{256, 1, 1}, {32, 8, 1}}, Folds: [][3]int64{{1, 1, 1}, {1, 2, 1}}, Train: true},
}

var shared struct {
	once   sync.Once
	sweeps []*Sweep
}

// sharedRun is one run of testCases with three workers, made once.
func sharedRun(t *testing.T) []*Sweep {
	shared.once.Do(func() { shared.sweeps = testRun(t, 3) })
	if shared.sweeps == nil {
		t.Fatal("the shared run failed")
	}
	return shared.sweeps
}

func testRun(t *testing.T, workers int) []*Sweep {
	t.Helper()
	a100, err := device.Lookup("A100-40GB")
	if err != nil {
		t.Fatal(err)
	}
	sweeps, err := Run(Config{Cases: testCases, Devices: []*device.Device{a100, SmallL2Device()}, Load: loadExample, Workers: workers})
	if err != nil {
		t.Fatal(err)
	}
	return sweeps
}

func TestRun(t *testing.T) {
	sweeps := sharedRun(t)
	if len(sweeps) != 4 || len(sweeps[1].Points) != 4 || sweeps[2].Device.Name != "A100-2MB-L2" {
		t.Fatalf("got %d sweeps, want 2 cases × 2 devices in device-major order with 4 star2d-r1 configurations", len(sweeps))
	}
	// The streaming copy moves 8 B/Lup at every level in both directions.
	for _, p := range sweeps[0].Points {
		want := Volumes{L1Load: 8, L2LoadV2: 8, L2Store: 8, MemLoadV4: 8, MemStoreV2: 8}
		if p.Sim != want {
			t.Errorf("vec-copy block %v simulated %+v, want %+v", p.Launch.Block, p.Sim, want)
		}
	}
	for _, s := range sweeps {
		for _, p := range s.Points {
			for i, v := range []Variant{Exact, Reference} {
				// Re-deriving from the basic metrics gives the estimate's numbers.
				got, err := v.Predict(s, p)
				if err != nil {
					t.Fatal(err)
				}
				if want := Predicted(p.Reports[i].Derived); got != want {
					t.Errorf("%s %s block %v: Predict = %+v, Estimate derived %+v", s.Kernel.Name, v.Name, p.Launch.Block, got, want)
				}
			}
		}
	}
	// Another curve generation changes the capacity volumes of the exact
	// method only through Derive.
	early := Exact.WithCurves(model.Early2025Curves)
	if early.Name != "exact, early-2025 curves" || early.Method.Name != Exact.Method.Name {
		t.Errorf("WithCurves gave %q", early.Name)
	}
}

func TestRunIsDeterministic(t *testing.T) {
	var out [2]bytes.Buffer
	for i, sweeps := range [][]*Sweep{testRun(t, 1), sharedRun(t)} {
		r := Report{Command: "test", Sweeps: sweeps, Variants: []Variant{Exact, Reference, Exact.WithCurves(model.Early2025Curves)}, SimNote: "test"}
		if err := WriteReport(&out[i], r); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(out[0].Bytes(), out[1].Bytes()) {
		t.Errorf("reports differ between 1 and 3 workers:\n%s\n---\n%s", out[0].String(), out[1].String())
	}
	for _, want := range []string{"| vec-copy | DRAM load | 0.0 | – | ✓ |", "## Curve refit", "## A100-2MB-L2: all kernels"} {
		if !bytes.Contains(out[0].Bytes(), []byte(want)) {
			t.Errorf("report lacks %q:\n%s", want, out[0].String())
		}
	}
}

func TestRefitImprovesTraining(t *testing.T) {
	sweeps := sharedRun(t)
	train := func(s *Sweep) bool { return s.Case.Train }
	f, err := Refit(sweeps, Exact.WithCurves(model.PaperEraCurves), "test", "test", train)
	if err != nil {
		t.Fatal(err)
	}
	if f.Points != 8 || !(f.After <= f.Before) || math.IsNaN(f.After) {
		t.Errorf("refit over %d points: error %v before, %v after; want 8 points and no increase", f.Points, f.Before, f.After)
	}
	if f.Curves.Name != "test" || f.Curves.Store != model.PaperEraCurves.Store {
		t.Errorf("refit curves %+v: want the name set and the store curve kept", f.Curves)
	}
}

func TestSmallL2Device(t *testing.T) {
	d := SmallL2Device()
	a100, _ := device.Lookup("A100-40GB")
	if d.L2Bytes != 2<<20 || d.L1Bytes != a100.L1Bytes || d.SMs != a100.SMs || d.L2Partitions != a100.L2Partitions {
		t.Errorf("small-L2 device %+v differs from the A100-40GB in more than the L2 size", d)
	}
}
