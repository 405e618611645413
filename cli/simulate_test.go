package cli

import (
	"encoding/json"
	"strings"
	"testing"
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

func TestSimulateRefusesLargeRuns(t *testing.T) {
	// The paper's star3d-r4 domain: 167 M lattice points × 26 accesses.
	code, _, errOut := runCudaCLI("simulate", "star3d-r4", "--block", "256,1,2")
	if code != ExitUsage || !strings.Contains(errOut, "too large") || !strings.Contains(errOut, "smaller --domain, e.g. 320,256,256") {
		t.Errorf("exit %d, stderr %q; want a usage error suggesting --domain 320,256,256", code, errOut)
	}
	code, _, errOut = runCudaCLI("simulate", "vec-copy", "--schedule", "random")
	if code != ExitUsage || !strings.Contains(errOut, "--schedule") {
		t.Errorf("bad schedule: exit %d, stderr %q", code, errOut)
	}
}
