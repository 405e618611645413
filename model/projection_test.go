package model

import (
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/polyvol/polyvol/device"
)

// vanLankerTable1 reads the measured maxima of Van Lanker et al. 2024,
// Table 1 (docs/models.md §3) from the repository's copy, keyed by the
// paper's device names (V100, A100-40, A100-80, H100). A missing file fails
// the test.
func vanLankerTable1(t *testing.T) map[string]Ceilings {
	t.Helper()
	path := filepath.Join("..", "testdata", "measured", "papers_vanlanker2024_table1.csv")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("measured data missing: %v", err)
	}
	var body []string
	for _, line := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(line, "#") {
			body = append(body, line)
		}
	}
	records, err := csv.NewReader(strings.NewReader(strings.Join(body, "\n"))).ReadAll()
	if err != nil || len(records) < 2 {
		t.Fatalf("%s: %d records, %v", path, len(records), err)
	}
	col := map[string]int{}
	for i, name := range records[0] {
		col[name] = i
	}
	out := map[string]Ceilings{}
	for _, r := range records[1:] {
		num := func(name string) float64 {
			i, ok := col[name]
			if !ok {
				t.Fatalf("%s: no column %s", path, name)
			}
			v, err := strconv.ParseFloat(r[i], 64)
			if err != nil {
				t.Fatalf("%s: row %s, column %s: %v", path, r[col["device"]], name, err)
			}
			return v
		}
		name := r[col["device"]]
		out[name] = Ceilings{name, num("perf_max_gflops"), num("bw_dram_max_gbs"), num("bw_l2_max_gbs"), num("bw_l1_max_gbs"),
			"measured maxima, Van Lanker et al. 2024 Table 1"}
	}
	return out
}

func TestProjectPureDRAMV100ToH100(t *testing.T) {
	// docs/models.md §3: a pure-DRAM kernel projects V100 → H100 with the
	// time ratio 1907/846. 1 GB of DRAM traffic, 1 MFlop (OI = 0.001).
	table := vanLankerTable1(t)
	v100, h100 := table["V100"], table["H100"]
	for _, flops := range []float64{1e6, 0} {
		p := Profile{TimeS: 1e9 / 846e9, Flops: flops, Bytes: LevelBytes{DRAM: 1e9}, ActiveThreadsPerInstr: 32, FMAInstr: 1}
		proj, err := Project(p, v100, h100)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range proj.Levels {
			if ratio := p.TimeS / l.TimeS; math.Abs(ratio-1907.0/846) > 1e-12 {
				t.Errorf("flops %v, level %s: time ratio %v, want 1907/846 = %v", flops, l.Level, ratio, 1907.0/846)
			}
		}
	}
}

func TestProjectComputeBound(t *testing.T) {
	// 1 TFlop of FMAs over 1 MB of each level: compute-bound on both GPUs,
	// so the time ratio is the FMA peak ratio 24979/6890 at every level,
	// independent of the active-thread fraction and the mix.
	table := vanLankerTable1(t)
	v100, h100 := table["V100"], table["H100"]
	p := Profile{TimeS: 0.5, Flops: 1e12, Bytes: LevelBytes{L1: 1e6, L2: 1e6, DRAM: 1e6}, ActiveThreadsPerInstr: 16, FMAInstr: 3, AddMulInstr: 1}
	proj, err := Project(p, v100, h100)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range proj.Levels {
		if ratio := p.TimeS / l.TimeS; math.Abs(ratio-24979.0/6890) > 1e-12 {
			t.Errorf("level %s: time ratio %v, want %v", l.Level, ratio, 24979.0/6890)
		}
		// Perf_ceil = 16/32 · 6890 · (3/4 + 1/2·1/4) = 3014.375 GFlop/s on the V100.
		if l.SourceRoofGFlops != 3014.375 {
			t.Errorf("level %s: source roofline %v, want 3014.375", l.Level, l.SourceRoofGFlops)
		}
	}
}

func TestProjectWithVolumesChangesDRAMLevel(t *testing.T) {
	// The target's smaller cache doubles its DRAM traffic (the LULESH
	// failure mode): the DRAM-level prediction doubles, while the pure
	// projection keeps the source's bytes.
	table := vanLankerTable1(t)
	a100, v100 := table["A100-40"], table["V100"]
	p := Profile{TimeS: 1e-3, Flops: 1e6, Bytes: LevelBytes{L1: 4e9, L2: 2e9, DRAM: 1e9}, ActiveThreadsPerInstr: 32, FMAInstr: 1}
	pure, err := Project(p, a100, v100)
	if err != nil {
		t.Fatal(err)
	}
	target := p.Bytes
	target.DRAM *= 2
	aware, err := ProjectWithVolumes(p, a100, v100, target)
	if err != nil {
		t.Fatal(err)
	}
	dram := func(pr Projection) float64 { return pr.Levels[2].TimeS }
	if math.Abs(dram(aware)/dram(pure)-2) > 1e-12 {
		t.Errorf("DRAM-level time %v with doubled bytes, pure %v; want twice", dram(aware), dram(pure))
	}
	// The pure DRAM-level time is t·1375/846 (memory-bound on both).
	if want := 1e-3 * 1375 / 846; math.Abs(dram(pure)-want) > 1e-15 {
		t.Errorf("pure DRAM-level time %v, want %v", dram(pure), want)
	}
	if aware.MaxTimeS <= pure.MaxTimeS {
		t.Errorf("volume-aware interval [%v, %v] not above pure [%v, %v]", aware.MinTimeS, aware.MaxTimeS, pure.MinTimeS, pure.MaxTimeS)
	}
}

func TestCeilingsFor(t *testing.T) {
	// The spec table's A100-40GB (derived_test.go): FP64 peak
	// 2·32·1.41·108 = 9745.92 GFlop/s, L1 128 B·1.41 GHz·108 = 19491.84 GB/s,
	// and its bandwidths, whatever its name.
	for _, name := range []string{"A100-40GB", "A100-custom"} {
		dev := a100x40
		dev.Name = name
		dev.Sources = map[string]string{"dram_bandwidth_gbs": "measured: a file", "l2_bandwidth_gbs": "spec sheet: a sheet"}
		c, err := CeilingsFor(dev, 8)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(c.PerfGFlops-9745.92) > 1e-9 || math.Abs(c.L1GBs-19491.84) > 1e-9 || c.DRAMGBs != 1400 || c.L2GBs != 4000 ||
			c.Device != name || !strings.Contains(c.Provenance, "DRAM measured, L2 spec sheet") {
			t.Errorf("%s: ceilings %+v", name, c)
		}
	}
	// Single precision uses the FP32 lanes.
	if c, err := CeilingsFor(a100x40, 4); err != nil || math.Abs(c.PerfGFlops-2*9745.92) > 1e-9 {
		t.Errorf("A100-40GB FP32 ceilings %+v, %v", c, err)
	}
	custom := a100x40
	custom.DRAMBandwidthGBs = 0
	if _, err := CeilingsFor(custom, 8); err == nil {
		t.Error("device without bandwidth: no error")
	}
}

// TestCeilingsMatchPredict checks, for every device of the database and
// both precisions, that project's ceilings are the rates predict's limiters
// use: with one byte per Lup at L2 and DRAM, one L1 cycle and one
// floating-point instruction per Lup, the limiters in GLup/s are the L2
// and DRAM bandwidths in GB/s, the L1 cycle rate and the FMA instruction
// rate (half the flop rate).
func TestCeilingsMatchPredict(t *testing.T) {
	unit := Derived{L1CyclesPerLup: 1, L2TotalV1: 1, L2TotalV2: 1, MemLoadV1: 1, MemLoadV2: 1, MemLoadV3: 1, MemLoadV4: 1}
	for _, d := range device.All() {
		for _, fp := range []int{4, 8} {
			c, err := CeilingsFor(*d, fp)
			if err != nil {
				t.Fatalf("%s: %v", d.Name, err)
			}
			lim := computeLimiters(unit, Launch{FlinsPerLup: 1, FlopsPerLup: 2, FPBytes: fp}, *d)
			same := func(what string, project, predict float64) {
				if math.Abs(project-predict) > 1e-12*predict {
					t.Errorf("%s fp%d %s: project %v, predict %v", d.Name, fp, what, project, predict)
				}
			}
			same("DRAM GB/s", c.DRAMGBs, lim.PerfMemV3)
			same("DRAM GB/s (V1)", c.DRAMGBs, lim.PerfMemV1)
			same("L2 GB/s", c.L2GBs, lim.PerfL2V2)
			same("L1 GB/s", c.L1GBs, lim.PerfL1*float64(d.L1BankWidth))
			same("FMA GFlop/s", c.PerfGFlops, 2**lim.PerfFlops)
			if c.Device != d.Name || !strings.Contains(c.Provenance, d.SourceClass("dram_bandwidth_gbs")) {
				t.Errorf("%s: device %q provenance %q", d.Name, c.Device, c.Provenance)
			}
		}
	}
}

func TestLoadProfile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	good := write("good.json", `{"timeS": 0.002, "flops": 1e9, "bytes": {"L1": 8e9, "L2": 4e9, "DRAM": 1e9},
		"activeThreadsPerInstr": 32, "fmaInstr": 10, "addMulInstr": 2}`)
	p, err := LoadProfile(good)
	if err != nil {
		t.Fatal(err)
	}
	if p.TimeS != 0.002 || p.Bytes.L2 != 4e9 || p.AddMulInstr != 2 {
		t.Errorf("loaded %+v", p)
	}
	bad := []struct{ name, body, want string }{
		{"type.json", `{"timeS": "fast"}`, `key "timeS"`},
		{"unknown.json", `{"time": 1}`, `unknown field "time"`},
		{"invalid.json", `{"timeS": 1, "activeThreadsPerInstr": 40}`, "activeThreadsPerInstr"},
		{"syntax.json", `{"timeS": `, "ends early"},
		{"empty.json", "  \n", "empty"},
		{"array.json", `[1, 2]`, ":1:1: expected a JSON object, got JSON array"},
		{"garbage.json", "{\"timeS\": 1}\n  x", ":2:3: text after the profile's JSON object"},
		{"comma.json", "{\n \"timeS\": 1,,\n}", ":2:14: invalid character ','"},
		{"huge.json", "{\"timeS\": 1" + strings.Repeat(" ", MaxProfileBytes) + "}", "larger than 1 MiB"},
	}
	for _, b := range bad {
		path := write(b.name, b.body)
		_, err := LoadProfile(path)
		if err == nil || !strings.Contains(err.Error(), b.want) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: error %v, want one naming the file and %s", b.name, err, b.want)
		}
	}
	if _, err := LoadProfile(filepath.Join(dir, "missing.json")); err == nil || !strings.Contains(err.Error(), "missing.json") {
		t.Errorf("missing file: error %v", err)
	}
}

// TestLoadProfileOutOfRange checks that a number beyond the bounds of a
// profile's numbers, or beyond float64, is refused with the line and column
// of the number and its key.
func TestLoadProfileOutOfRange(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ name, body, want string }{
		{"bytes.json", "{\"timeS\": 0.002, \"flops\": 1e9,\n \"bytes\": {\"L1\": 8e9, \"DRAM\": 1e308}}", `:2:31: key "bytes.DRAM": 1e308 is out of range`},
		{"flops.json", "{\"timeS\": 0.002,\n\n   \"flops\": -2E31}", `:3:13: key "flops": -2E31 is out of range`},
		{"tiny.json", `{"timeS": 1e-31}`, `:1:11: key "timeS": 1e-31 is out of range`},
		{"float64.json", "{\"timeS\": 0.002,\n \"fmaInstr\": 1e400}", `:2:14: key "fmaInstr": expected float64, got JSON number 1e400`},
	} {
		path := filepath.Join(dir, tc.name)
		if err := os.WriteFile(path, []byte(tc.body), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := LoadProfile(path)
		if err == nil || !strings.HasPrefix(err.Error(), path+tc.want) {
			t.Errorf("%s: error %v, want %s%s…", tc.name, err, path, tc.want)
		}
	}
	// The bounds themselves are numbers of a profile.
	path := filepath.Join(dir, "bounds.json")
	body := `{"timeS": 1e-30, "flops": 1e30, "bytes": {"L1": 1e30, "shared": 1e-30}, "activeThreadsPerInstr": 32}`
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadProfile(path); err != nil {
		t.Errorf("profile at the bounds: %v", err)
	}
}

// TestProjectOutOfRange checks that a projection whose numbers overflow or
// underflow float64, or whose inputs are not finite, is an error instead of
// a result with an infinity or NaN.
func TestProjectOutOfRange(t *testing.T) {
	p := Profile{TimeS: 0.0062, Flops: 4e9, Bytes: LevelBytes{L1: 3.6e10, L2: 1.9e10, DRAM: 8e9}, ActiveThreadsPerInstr: 31.2, FMAInstr: 6e7}
	c := Ceilings{Device: "c", PerfGFlops: 9746, DRAMGBs: 1382, L2GBs: 4710, L1GBs: 19492}
	if _, err := Project(p, c, c); err != nil {
		t.Fatalf("ordinary ceilings: %v", err)
	}
	huge, tiny := c, c
	huge.PerfGFlops, huge.DRAMGBs, huge.L2GBs, huge.L1GBs = 1e300, 1e300, 1e300, 1e300
	tiny.PerfGFlops, tiny.DRAMGBs, tiny.L2GBs, tiny.L1GBs = 1e-300, 1e-300, 1e-300, 1e-300
	inf := c
	inf.DRAMGBs = math.Inf(1)
	zeroFlops := p
	zeroFlops.Flops = 0
	nan := p.Bytes
	nan.L2 = math.NaN()
	for _, tc := range []struct {
		name        string
		p           Profile
		source, tgt Ceilings
		targetBytes LevelBytes
		want        string
	}{
		{"huge to tiny", p, huge, tiny, p.Bytes, "projection out of range"},
		{"tiny to huge", p, tiny, huge, p.Bytes, "projection out of range"},
		{"no flops, huge to tiny", zeroFlops, huge, tiny, p.Bytes, "projection out of range"},
		{"infinite ceiling", p, c, inf, p.Bytes, "positive and finite"},
		{"NaN target bytes", p, c, c, nan, "finite"},
		{"profile beyond the bounds", Profile{TimeS: 1, Flops: 1e300, ActiveThreadsPerInstr: 32}, c, c, LevelBytes{}, "flops 1e+300: out of range"},
	} {
		proj, err := ProjectWithVolumes(tc.p, tc.source, tc.tgt, tc.targetBytes)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: projection %+v, error %v; want an error with %q", tc.name, proj, err, tc.want)
		}
	}
}
