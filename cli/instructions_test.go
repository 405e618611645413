package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/polyvol/polyvol/model"
	"github.com/polyvol/polyvol/request"
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
	counted := predictMix(t, "star2d-r1", "--device", "A100-40GB", "--instructions", "counted")
	if counted.Source != model.SourceCounted || counted.Classes != nil {
		t.Errorf("the counted mix: %+v", *counted)
	}
	mix := predictMix(t, "star2d-r1", "--device", "A100-40GB", "--instructions", "compiled")
	if mix.Source != model.SourceCompiled || mix.Target != "sm_80" || mix.Loads != counted.Loads || mix.Stores != counted.Stores {
		t.Errorf("compiled mix %+v, counted %+v", *mix, *counted)
	}
}

// TestDefaultInstructions: a prediction that chooses no mix compiles where
// clang is installed, counts with a note that says why where none is
// (a process whose POLYVOL_CLANG names no compiler), and follows
// POLYVOL_INSTRUCTIONS where it is set.
func TestDefaultInstructions(t *testing.T) {
	t.Setenv(request.InstructionsEnv, "")
	args := []string{"convolution-15x15", "--device", "RTX-A4000", "--block", "16,16", "--fold", "2,2", "--tile", "strided"}
	if mix := predictMix(t, args...); mix.Source != model.SourceCompiled || mix.Target != "sm_86" || mix.Note != "" {
		t.Errorf("with clang: %+v", *mix)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		env  []string
		want string // the mix's source, or "" for a usage error
		note string
	}{
		{[]string{"POLYVOL_CLANG=" + filepath.Join(t.TempDir(), "no-clang")}, model.SourceCounted, "no clang of version 19 or later found"},
		{[]string{request.InstructionsEnv + "=counted"}, model.SourceCounted, ""},
		{[]string{request.InstructionsEnv + "=compiled"}, model.SourceCompiled, ""},
		{[]string{request.InstructionsEnv + "=fast"}, "", ""},
	} {
		cmd := exec.Command(exe, append([]string{"predict", "--format", "json"}, args...)...)
		cmd.Env = append(os.Environ(), append([]string{hostileChildEnv + "=1", request.InstructionsEnv + "="}, tc.env...)...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		if tc.want == "" { // --format json: the error as one JSON object
			var e struct{ Kind, Message, Field string }
			code := cmd.ProcessState.ExitCode()
			if json.Unmarshal(stderr.Bytes(), &e) != nil || code != ExitUsage || e.Kind != "input" || e.Field != "instructions" || !strings.HasPrefix(e.Message, request.InstructionsEnv+"=") {
				t.Errorf("%v: exit %d, stderr %q; want exit %d, an input error of the field instructions naming %s", tc.env, code, stderr.String(), ExitUsage, request.InstructionsEnv)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%v: %v: %s", tc.env, err, stderr.String())
		}
		var r model.Report
		if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		if mix := r.Instructions; mix == nil || mix.Source != tc.want || !strings.Contains(mix.Note, tc.note) || (tc.note == "") != (mix.Note == "") {
			t.Errorf("%v: mix %+v, want source %s and a note with %q", tc.env, mix, tc.want, tc.note)
		}
	}
}

// TestPredictTripCounts compiles a user's kernel whose loop of 8
// iterations clang keeps (#pragma unroll 1), one load and one add each:
// per lattice update 8 loads, 8 FP32 instructions and 1 store, the body
// weighed by the loop's trip count, which the JSON and --explain state.
// Where the count is a kernel argument, the body counts once and a note
// names the loop and the lower bound.
func TestPredictTripCounts(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "sum.cu")
	code := `__global__ void sum(const float* __restrict__ a, float* __restrict__ b, int n) {
	const int x = blockIdx.x * block_size_x + threadIdx.x;
	float s = 0;
#pragma unroll 1
	for (int j = 0; j < COUNT; j++) s += a[x + j * 64];
	b[x] = s;
}
`
	if err := os.WriteFile(src, []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, dev := range []string{"A100-40GB", "PRO-W7800"} {
		args := []string{"vec-copy", "--device", dev, "--block", "128", "--source", src, "--macro", "COUNT=8"}
		mix := predictMix(t, args...)
		c := mix.Classes
		if c == nil || c.GlobalLoads != 8 || c.FP32 != 8 || c.GlobalStores != 1 || len(mix.Loops) != 1 || mix.Loops[0].TripCount != 8 || mix.Loops[0].Header == "" {
			t.Fatalf("%s: classes %+v, loops %+v; want 8 loads, 8 FP32, 1 store, one named loop of 8 iterations", dev, c, mix.Loops)
		}
		l := mix.Loops[0]
		out := strings.Join(strings.Fields(mustRun(t, append([]string{"predict", "--explain"}, args...)...)), " ")
		if want := fmt.Sprintf("loop %s (depth 1, %d instructions, 8 iterations)", l.Header, l.Instructions); !strings.Contains(out, want) || strings.Contains(out, "lower bound") {
			t.Errorf("%s: --explain says no %q, or a lower bound:\n%s", dev, want, out)
		}
		_, notes, code := run(t, "predict", "vec-copy", "--device", dev, "--block", "128", "--source", src, "--macro", "COUNT=n")
		if code != ExitOK || !strings.Contains(notes, "whose trip count the compiler does not know: loop "+l.Header) || !strings.Contains(notes, "lower bounds") {
			t.Errorf("%s: a loop over the argument n: exit %d, no note naming it and the lower bound:\n%s", dev, code, notes)
		}
	}
}
