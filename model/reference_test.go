package model

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/polyvol/polyvol/device"
)

// referenceDir holds the reference implementation's outputs
// (testdata/reference/README.md), relative to this package's directory.
const referenceDir = "../testdata/reference"

// referenceLine is the part of one reference output line that the derived
// metrics start from or are checked against.
type referenceLine struct {
	Kernel  string  `json:"kernel"`
	Block   []int   `json:"block"`
	Folding []int   `json:"blocking_factors"`
	Domain  []int64 `json:"domain"`
	LC      struct {
		ThreadsPerBlock int     `json:"threadsPerBlock"`
		LupsPerThread   int     `json:"lupsPerThread"`
		BlocksPerSM     int     `json:"blocksPerSM"`
		FlopsPerLup     float64 `json:"flopsPerLup"`
		FlinsPerLup     float64 `json:"flinsPerLup"`
	} `json:"lc"`
	DeviceKey  string `json:"device_key"`
	Basic      Basic  `json:"basic"`
	BasicExtra struct {
		L1DataPipeCycles        float64                       `json:"L1DataPipeCycles"`
		L1TagCycles             float64                       `json:"L1TagCycles"`
		BlockL1TLBPages         float64                       `json:"blockL1TLBPages"`
		FieldBlockL2Load        map[string]float64            `json:"fieldBlockL2Load"`
		FieldBlockL2LoadOverlap map[string]float64            `json:"fieldBlockL2LoadOverlap"`
		FieldBlockL2Store       map[string]float64            `json:"fieldBlockL2Store"`
		FieldWaveMemVolumes     map[string]map[string]float64 `json:"fieldWaveMemVolumes"`
	} `json:"basic_extra"`
	Derived      map[string]any `json:"derived"`
	DerivedExtra map[string]any `json:"derived_extra"`
}

// referenceKeysNotDerived are reference output keys that Derive does not
// produce, with the reason.
var referenceKeysNotDerived = map[string]string{
	"flopsPerLup":      "a launch input",
	"TLBpages":         "a basic metric",
	"fieldL1Cycles":    "basic per-field L1 cycles",
	"perfEPMV3":        "degenerate EPM model (spec §5.6), not implemented",
	"perfTFlopsEPMV3":  "degenerate EPM model (spec §5.6), not implemented",
	"perf2LimV4":       "the pure-memory variant, equal to perfMemV4 (checked below)",
	"lim2LimV4":        "the pure-memory variant's index, always 0",
	"perfTFlops2LimV4": "the pure-memory variant in TFlop/s",
}

func loadReferenceLines(t *testing.T) []referenceLine {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(referenceDir, "*.jsonl"))
	if len(files) == 0 {
		t.Fatalf("no reference outputs under %s: the test data is missing", referenceDir)
	}
	var lines []referenceLine
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<24)
		for n := 1; sc.Scan(); n++ {
			var l referenceLine
			if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
				t.Fatalf("%s:%d: %v", name, n, err)
			}
			lines = append(lines, l)
		}
		f.Close()
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
	}
	return lines
}

// basicFromReference completes the basic metrics with the reference's
// per-field values.
func basicFromReference(l referenceLine) Basic {
	b := l.Basic
	x := l.BasicExtra
	b.L1DataPipeCycles, b.L1TagCycles, b.BlockL1TLBPages = x.L1DataPipeCycles, x.L1TagCycles, x.BlockL1TLBPages
	b.BlockL2LoadOverlap = x.FieldBlockL2LoadOverlap["total"]
	for _, name := range sortedFieldNames(x.FieldBlockL2Load) {
		w := x.FieldWaveMemVolumes[name]
		b.LoadFields = append(b.LoadFields, FieldBasic{
			Name: name, BlockL2Load: x.FieldBlockL2Load[name], BlockL2LoadOverlap: x.FieldBlockL2LoadOverlap[name],
			WaveMemNew: w["VNew"], WaveMemOverlapY: w["VOverlapY"], WaveMemOverlapZ: w["VOverlapZ"],
		})
	}
	for _, name := range sortedFieldNames(x.FieldBlockL2Store) {
		b.StoreFields = append(b.StoreFields, FieldBasic{
			Name: name, BlockL2Store: x.FieldBlockL2Store[name], WaveMemNew: x.FieldWaveMemVolumes[name]["VNew"],
		})
	}
	return b
}

func sortedFieldNames(m map[string]float64) []string {
	var names []string
	for k := range m {
		if k != "total" {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	return names
}

// flatten writes a decoded JSON value into out with reference-style keys:
// key.sub for objects and key[i] for arrays.
func flatten(prefix string, v any, out map[string]float64) {
	switch v := v.(type) {
	case float64:
		out[prefix] = v
	case map[string]any:
		for k, sub := range v {
			flatten(joinKey(prefix, k), sub, out)
		}
	case []any:
		for i, sub := range v {
			flatten(prefix+"["+strconv.Itoa(i)+"]", sub, out)
		}
	}
}

func joinKey(prefix, k string) string {
	if prefix == "" {
		return k
	}
	return prefix + "." + k
}

// derivedAsReference flattens d under the reference's key names.
func derivedAsReference(t *testing.T, d Derived) map[string]float64 {
	t.Helper()
	out := flatJSON(t, d)
	for k, v := range out { // the reference writes perfTFlops.X as perfTFlopsX
		if rest, ok := strings.CutPrefix(k, "perfTFlops."); ok {
			delete(out, k)
			out["perfTFlops"+rest] = v
		}
	}
	sumV2 := 0.0
	for _, f := range d.LoadFields {
		out["fieldL2LoadV1."+f.Name] = f.L2LoadV1
		out["fieldL2LoadOverlap."+f.Name] = f.L2LoadOverlap
		// The reference leaves the L1 capacity evictions out of its
		// per-field V2; polyvol splits them by field.
		out["fieldL2LoadV2."+f.Name] = f.L2LoadV2 - f.L1LoadEvicts
		out["fieldMemLoadV1."+f.Name] = f.MemLoadV1
		out["fieldMemLoadOverlap."+f.Name+"[0]"] = f.MemLoadOverlap[0]
		out["fieldMemLoadOverlap."+f.Name+"[1]"] = f.MemLoadOverlap[1]
		out["fieldMemLoadV2."+f.Name] = f.MemLoadV2
		sumV2 += f.L2LoadV2 - f.L1LoadEvicts
	}
	// The reference lists store fields among the DRAM "load" fields; their
	// store overlaps are not used (spec §4.7), so their V2 equals V1.
	for _, f := range d.StoreFields {
		out["fieldL2Store."+f.Name] = f.L2Store
		out["fieldMemLoadV1."+f.Name] = f.MemStoreV1
		out["fieldMemLoadOverlap."+f.Name+"[0]"] = 0
		out["fieldMemLoadOverlap."+f.Name+"[1]"] = 0
		out["fieldMemLoadV2."+f.Name] = f.MemStoreV1
	}
	out["L1coverage"] = d.OL1 // the reference's name of L1Oversubscription
	out["fieldL2LoadV1.total"] = d.L2LoadV1
	out["fieldL2LoadOverlap.total"] = d.L2LoadOverlap
	out["fieldL2LoadV2.total"] = sumV2
	out["fieldL2Store.total"] = d.L2Store
	return out
}

func TestDeriveMatchesReferenceOutputs(t *testing.T) {
	devices := map[string]device.Device{"A100_40GB": a100x40, "A100_80GB": a100x80}
	for _, l := range loadReferenceLines(t) {
		dev, ok := devices[l.DeviceKey]
		if !ok {
			t.Errorf("%s: no test device for key %q", l.Kernel, l.DeviceKey)
			continue
		}
		launch := Launch{
			ThreadsPerBlock: l.LC.ThreadsPerBlock, LupsPerThread: l.LC.LupsPerThread, BlocksPerSM: l.LC.BlocksPerSM,
			BlocksPerWave: l.LC.BlocksPerSM * dev.SMs, FlopsPerLup: l.LC.FlopsPerLup, FlinsPerLup: l.LC.FlinsPerLup, FPBytes: 8,
		}
		d, err := Derive(basicFromReference(l), launch, dev, MethodReference)
		if err != nil {
			t.Fatalf("%s: %v", l.Kernel, err)
		}
		got := derivedAsReference(t, d)
		want := map[string]float64{}
		flatten("", l.Derived, want)
		flatten("", l.DerivedExtra, want)
		if want["perf2LimV4"] != got["perfMemV4"] {
			t.Errorf("%s: perf2LimV4 = %v, want perfMemV4 = %v", l.Kernel, want["perf2LimV4"], got["perfMemV4"])
		}
		label := fmt.Sprintf("%s block %v folding %v", l.Kernel, l.Block, l.Folding)
		checked := 0
		for key, w := range want {
			if _, skip := referenceKeysNotDerived[strings.SplitN(key, ".", 2)[0]]; skip {
				continue
			}
			g, ok := got[key]
			if !ok {
				t.Errorf("%s: reference key %s has no derived counterpart", label, key)
				continue
			}
			if math.Abs(g-w) > 1e-9*math.Max(1, math.Abs(w)) {
				t.Errorf("%s: %s = %.12g, reference %.12g", label, key, g, w)
			}
			checked++
		}
		t.Logf("%s: %d reference values match", label, checked)
		if checked < 60 {
			t.Errorf("%s: only %d reference values checked", label, checked)
		}
	}
}
