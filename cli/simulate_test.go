package cli

import (
	"encoding/json"
	"fmt"
	"github.com/polyvol/polyvol/request"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/sim"
)

// decode parses the JSON output of a command.
func decode(t *testing.T, out string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	return m
}

// TestSimulateJSONMatchesPredict checks that simulate's derived volumes carry
// predict's keys and, for a streaming copy where nothing depends on cache
// capacity, predict's values.
func TestSimulateJSONMatchesPredict(t *testing.T) {
	args := []string{"vec-copy", "--domain", "1048576", "--block", "256,1,1", "--format", "json"}
	code, simOut, errOut := runCudaCLI(append([]string{"simulate"}, args...)...)
	if code != ExitOK {
		t.Fatalf("simulate: exit %d: %s", code, errOut)
	}
	code, predOut, errOut := runCudaCLI(append([]string{"predict"}, args...)...)
	if code != ExitOK {
		t.Fatalf("predict: exit %d: %s", code, errOut)
	}
	simD := decode(t, simOut)["derived"].(map[string]any)
	predD := decode(t, predOut)["derived"].(map[string]any)
	for _, key := range []string{"L1Load", "L2LoadV2", "L2Store", "memLoadV4", "memStoreV2", "memStoreEvicts"} {
		s, ok := simD[key].(float64)
		if !ok {
			t.Errorf("simulate derived lacks %q", key)
			continue
		}
		p, ok := predD[key].(float64)
		if !ok {
			t.Errorf("predict derived lacks simulate's key %q", key)
			continue
		}
		want := 8.0
		if key == "memStoreEvicts" {
			want = 0
		}
		if s != want || (key != "memLoadV4" && key != "memStoreV2" && key != "memStoreEvicts" && p != s) {
			t.Errorf("%s: simulated %v, predicted %v, want simulated %v and equal where compulsory", key, s, p, want)
		}
	}
	for _, list := range []string{"loadFields", "storeFields"} {
		sf := simD[list].([]any)[0].(map[string]any)
		pf := predD[list].([]any)[0].(map[string]any)
		if sf["name"] != pf["name"] {
			t.Errorf("%s: simulate names %v, predict %v", list, sf["name"], pf["name"])
		}
	}
	simL := decode(t, simOut)["launch"].(map[string]any)
	predL := decode(t, predOut)["launch"].(map[string]any)
	for key, v := range simL {
		if key == "waves" {
			continue
		}
		if pv, ok := predL[key]; !ok || !equalJSON(pv, v) {
			t.Errorf("launch %q: simulate %v, predict %v", key, v, pv)
		}
	}
}

func equalJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

func TestSimulateTable(t *testing.T) {
	code, out, errOut := runCudaCLI("simulate", "star2d-r1", "--domain", "512,256", "--block", "64,4", "--infinite")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// Warps are half rows of 32 doubles at an offset of one element (8 B)
	// plus a multiple of 16 B: every store instruction writes 9 sectors for
	// 32 Lups, 9 B/Lup.
	flat := strings.Join(strings.Fields(out), " ")
	for _, want := range []string{"infinite caches, schedule lockstep", "L2 store L2Store 9.00 - 9.00", "DRAM store memStoreV2", "A B (store)"} {
		if !strings.Contains(flat, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}

// TestSimulateRefusesLargeRuns checks that a simulation over --max-accesses
// is refused with a suggested --domain whose trace fits the bound: its
// access count, computed as the simulator's check computes it, is within
// the bound, is the count the message gives, and is not needlessly small;
// and that the suggestion then simulates under the same bound. One block
// over the bound asks for a smaller block or fold instead. No message names
// the simulator's Go configuration.
func TestSimulateRefusesLargeRuns(t *testing.T) {
	dev, err := device.Lookup(defaultDevice)
	if err != nil {
		t.Fatal(err)
	}
	suggestion := regexp.MustCompile(`smaller --domain, e\.g\. (\d+),(\d+),(\d+) \((\d+) accesses\)`)
	for _, tc := range []struct {
		spec, block, fold, domain string
		bound                     int64
	}{
		{"star3d-r4", "256,1,2", "1,1,1", "", 1 << 30}, // the paper's domain: 167 M lattice points × 26 accesses
		{"star3d-r4", "256,1,2", "1,1,1", "", 1_000_000},
		{"star3d-r4", "32,4,2", "1,2,2", "300,200,100", 2_000_000},
		{"star3d-r1", "64,4,4", "1,1,1", "1000,30,17", 123_457},
		{"lbm-d3q19-pull", "128,2,1", "1,1,2", "129,65,33", 1_500_000},
		{"vec-copy", "256,1,1", "1,1,1", "100000000", 1_000_000},
		{"vec-copy", "1024,1,1", "4,1,1", "99999999", 250_001},
		{"star2d-r1", "32,8,1", "1,1,1", "5000,5000", 1_000_000},
		{"transpose2d", "16,16,1", "2,2,1", "4097,3001", 777_777},
	} {
		name := fmt.Sprintf("%s block %s fold %s domain %s bound %d", tc.spec, tc.block, tc.fold, tc.domain, tc.bound)
		args := []string{"simulate", tc.spec, "--block", tc.block, "--fold", tc.fold, "--max-accesses", fmt.Sprint(tc.bound)}
		if tc.domain != "" {
			args = append(args, "--domain", tc.domain)
		}
		out, errOut, code := run(t, args...)
		m := suggestion.FindStringSubmatch(errOut)
		if code != ExitUsage || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "too large") ||
			!strings.Contains(errOut, fmt.Sprintf("--max-accesses bound of %d", tc.bound)) || strings.Contains(errOut, "Config.") || m == nil {
			t.Errorf("%s: exit %d, stderr %q; want one line naming --max-accesses and suggesting a domain", name, code, errOut)
			continue
		}
		k, err := kernel.ParseExample(tc.spec)
		if err != nil {
			t.Fatal(err)
		}
		var d [3]int64
		for i := range d {
			d[i], _ = strconv.ParseInt(m[i+1], 10, 64)
		}
		block, _ := kernel.ParseTriple(tc.block)
		fold, _ := kernel.ParseTriple(tc.fold)
		asked := k.Domain
		if tc.domain != "" {
			asked, _ = kernel.ParseTriple(tc.domain)
		}
		for i := range d {
			if d[i] < 1 || d[i] > asked[i] {
				t.Errorf("%s: suggested domain %v is not within %v", name, d, asked)
			}
		}
		n, ok, err := sim.Accesses(k.WithDomain(d), k.WithDomain(d).NewLaunch(block, fold), dev)
		if err != nil || !ok {
			t.Fatalf("%s: sim.Accesses of the suggestion: %d, %v, %v", name, n, ok, err)
		}
		if n > uint64(tc.bound) || n <= uint64(tc.bound)/4 || m[4] != fmt.Sprint(n) {
			t.Errorf("%s: suggested domain %v has %d accesses (message: %s); want at most %d and more than a quarter of it", name, d, n, m[4], tc.bound)
		}
		if tc.bound <= 2_000_000 {
			suggested := append(args[:len(args):len(args)], "--domain", request.Triple(d), "--format", "csv")
			if _, errOut, code := run(t, suggested...); code != ExitOK {
				t.Errorf("%s: the suggestion fails: exit %d, %s", name, code, errOut)
			}
		}
	}
	// One block of 512 threads × 26 instructions is over a bound of 13311.
	_, errOut, code := run(t, "simulate", "star3d-r4", "--block", "256,1,2", "--domain", "256,1,2", "--max-accesses", "13311")
	if code != ExitUsage || !strings.Contains(errOut, "one block of 512 threads × 26 memory instructions is 13312 thread memory accesses") ||
		!strings.Contains(errOut, "--max-accesses bound of 13311") || !strings.Contains(errOut, "smaller --block or --fold") {
		t.Errorf("one block over the bound: exit %d, stderr %q", code, errOut)
	}
	if out, errOut, code := run(t, "simulate", "star3d-r4", "--block", "256,1,2", "--domain", "256,1,2", "--max-accesses", "13312"); code != ExitOK || out == "" {
		t.Errorf("one block at the bound: exit %d, stderr %q", code, errOut)
	}
	k, err := kernel.ParseExample("star3d-r4")
	if err != nil {
		t.Fatal(err)
	}
	msg := request.SimError(k.NewLaunch([3]int64{256, 1, 2}, kernel.NoFold), &sim.LineLimitError{Lines: 20_000_000, Wave: 7, Limit: 1 << 24}).Error()
	if !strings.Contains(msg, "20000000 lines after wave 7") || !strings.Contains(msg, "--domain") || !strings.Contains(msg, "--infinite") || strings.Contains(msg, "Config.") {
		t.Errorf("line bound: %q", msg)
	}
	_, errOut, code = run(t, "simulate", "vec-copy", "--schedule", "random")
	if code != ExitUsage || !strings.Contains(errOut, "--schedule") {
		t.Errorf("bad schedule: exit %d, stderr %q", code, errOut)
	}
}
