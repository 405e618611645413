package model

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestProjectPureDRAMV100ToH100(t *testing.T) {
	// spec/models.md §3: a pure-DRAM kernel projects V100 → H100 with the
	// time ratio 1907/846. 1 GB of DRAM traffic, 1 MFlop (OI = 0.001).
	v100, h100 := MeasuredCeilings["V100"], MeasuredCeilings["H100-SXM"]
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
	v100, h100 := MeasuredCeilings["V100"], MeasuredCeilings["H100-SXM"]
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
	a100, v100 := MeasuredCeilings["A100-40GB"], MeasuredCeilings["V100"]
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
	measured := a100x40
	c, err := CeilingsFor(measured, 8)
	if err != nil || c.PerfGFlops != 9476 || !strings.Contains(c.Provenance, "measured") {
		t.Errorf("A100-40GB ceilings %+v, %v; want the measured table", c, err)
	}
	// No measured maxima: spec sheet, FP64 peak 2·32·1.41·108 = 9745.92 GFlop/s,
	// L1 128 B·1.41 GHz·108 = 19491.84 GB/s.
	custom := a100x40
	custom.Name = "A100-custom"
	c, err = CeilingsFor(custom, 8)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(c.PerfGFlops-9745.92) > 1e-9 || math.Abs(c.L1GBs-19491.84) > 1e-9 || c.DRAMGBs != 1400 || c.L2GBs != 4000 ||
		!strings.Contains(c.Provenance, "spec sheet") {
		t.Errorf("spec-sheet ceilings %+v", c)
	}
	// Single precision has no measured maxima either.
	if c, err := CeilingsFor(measured, 4); err != nil || math.Abs(c.PerfGFlops-2*9745.92) > 1e-9 {
		t.Errorf("A100-40GB FP32 ceilings %+v, %v", c, err)
	}
	custom.DRAMBandwidthGBs = 0
	if _, err := CeilingsFor(custom, 8); err == nil {
		t.Error("device without bandwidth: no error")
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
		{"syntax.json", `{"timeS": `, "unexpected EOF"},
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
