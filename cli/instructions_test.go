package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/polyvol/polyvol/model"
)

// predictMix runs predict --format json and returns its instruction mix.
func predictMix(t *testing.T, args ...string) *model.InstructionMix {
	t.Helper()
	out := mustRun(t, append([]string{"predict", "--format", "json"}, args...)...)
	var r model.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if r.Instructions == nil {
		t.Fatalf("polyvol predict %s: no instructions", strings.Join(args, " "))
	}
	return r.Instructions
}

// TestPredictSource compiles a user's kernel whose instructions are
// counted by hand: a thread of fold f loads f·2 inputs (tile_size_x of
// them, each with its right neighbour 64 elements on) and stores f
// outputs, one add each; per lattice update 2 loads, 1 store, 1 FP32
// instruction on the NVIDIA target (PTX keeps scalar accesses, their
// alignment unknown). RDNA3 accesses 4 consecutive floats in one
// instruction, aligned or not, and adds two pairs in one dual-issue
// instruction: at fold 4, 2 loads, 1 store and 2 adds per thread.
func TestPredictSource(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "pair.cu")
	code := `__global__ void pair(const float* __restrict__ a, float* __restrict__ b) {
	const int x = (blockIdx.x * block_size_x + threadIdx.x) * tile_size_x;
	for (int i = 0; i < tile_size_x; i++) b[x + i] = a[x + i] + a[x + i + OFFSET];
}
__global__ void other(float* b) { b[threadIdx.x] = 0; }
`
	if err := os.WriteFile(src, []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		dev, fold         string
		loads, stores, fp float64 // per lattice update
	}{
		{"A100-40GB", "1", 2, 1, 1},
		{"A100-40GB", "4", 2, 1, 1},
		{"PRO-W7800", "1", 2, 1, 1},
		{"PRO-W7800", "4", 0.5, 0.25, 0.5},
	} {
		mix := predictMix(t, "vec-copy", "--device", tc.dev, "--block", "128", "--fold", tc.fold, "--source", src, "--macro", "OFFSET=64", "--kernel-name", "pair")
		c := mix.Classes
		if mix.Source != model.SourceCompiled || c == nil || c.GlobalLoads != tc.loads || c.GlobalStores != tc.stores || c.FP32 != tc.fp {
			t.Errorf("%s, fold %s: mix %+v, classes %+v", tc.dev, tc.fold, *mix, c)
		}
	}
	for _, bad := range [][]string{
		{"--source", filepath.Join(dir, "absent.cu")},
		{"--source", src, "--macro", "1X=2", "--kernel-name", "pair"},
		{"--source", src},                          // two kernels, none named
		{"--source", src, "--kernel-name", "pair"}, // OFFSET undefined: clang refuses
		{"--macro", "OFFSET=1"},                    // a macro without a source
		{"--source", src, "--instructions", "counted"},
	} {
		_, errOut, code := run(t, append([]string{"predict", "vec-copy"}, bad...)...)
		if code != ExitUsage || !strings.HasPrefix(errOut, "polyvol: ") || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
			t.Errorf("predict %s: exit %d, stderr %q; want exit %d and one line", strings.Join(bad, " "), code, errOut, ExitUsage)
		}
	}
}

// TestPredictCompiledSpec: --instructions compiled reads the mix of the
// kernel polyvol cuda writes; star2d-r1 loads 5 neighbours and stores once
// per lattice point, as the counted mix says.
func TestPredictCompiledSpec(t *testing.T) {
	counted := predictMix(t, "star2d-r1", "--device", "A100-40GB")
	if counted.Source != model.SourceCounted || counted.Classes != nil {
		t.Errorf("the default mix: %+v", *counted)
	}
	mix := predictMix(t, "star2d-r1", "--device", "A100-40GB", "--instructions", "compiled")
	if mix.Source != model.SourceCompiled || mix.Target != "sm_80" || mix.Loads != counted.Loads || mix.Stores != counted.Stores {
		t.Errorf("compiled mix %+v, counted %+v", *mix, *counted)
	}
}
