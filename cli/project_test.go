package cli

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/model"
	"go.yaml.in/yaml/v3"
)

// TestProjectDRAMOnly checks the pure projection of a profile that only
// moves DRAM bytes from V100 to H100: every level's time scales by the
// measured DRAM bandwidths, 846/1907 (Van Lanker et al. 2024, Table 1). The
// paper's maxima enter as device files: the V100 and H100-PCIe entries (the
// paper's H100 is the PCIe card) with the table's FMA peak, DRAM and L2
// bandwidths, read from testdata/measured.
func TestProjectDRAMOnly(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for _, paper := range []struct{ row, entry string }{{"V100", "V100"}, {"H100", "H100-PCIe"}} {
		files = append(files, "--device-file", paperDeviceFile(t, dir, paper.row, paper.entry))
	}
	args := append([]string{"project", "--profile", "testdata/profiles/dram-only.json", "--from", "V100-Table1", "--to", "H100-Table1"}, files...)
	out := mustRun(t, append(args, "--format", "json")...)
	var p ProjectOutput
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatal(err)
	}
	const timeS = 0.001182033096926714 // the profile's
	want := timeS * 846 / 1907
	if len(p.Projection.Levels) != 3 || math.Abs(p.Projection.MinTimeS-want) > 1e-15 || math.Abs(p.Projection.MaxTimeS-want) > 1e-15 {
		t.Errorf("levels %d, time %v..%v, want %v (ratio 1907/846)", len(p.Projection.Levels), p.Projection.MinTimeS, p.Projection.MaxTimeS, want)
	}
	if p.Mode != "pure" || p.TargetBytes.DRAM != 1e9 {
		t.Errorf("mode %q target DRAM bytes %v", p.Mode, p.TargetBytes.DRAM)
	}
	if table := mustRun(t, args...); !strings.Contains(table, "speed-up 2.25 to 2.25") {
		t.Errorf("table lacks the speed-up 1907/846 = 2.25:\n%s", table)
	}
}

// paperDeviceFile writes a device file to dir: the database entry with the
// name row+"-Table1" and the FMA peak (as FP64 lanes), DRAM and L2
// bandwidths of row of Van Lanker et al. 2024, Table 1.
func paperDeviceFile(t *testing.T, dir, row, entry string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "testdata", "measured", "papers_vanlanker2024_table1.csv"))
	if err != nil {
		t.Fatalf("measured data missing: %v", err)
	}
	var cols, cells []string
	for _, line := range strings.Split(string(data), "\n") {
		switch f := strings.Split(line, ","); {
		case strings.HasPrefix(line, "#") || line == "":
		case cols == nil:
			cols = f
		case f[0] == row:
			cells = f
		}
	}
	if cells == nil {
		t.Fatalf("Table 1 has no row %s", row)
	}
	num := func(col string) float64 {
		i := slices.Index(cols, col)
		if i < 0 {
			t.Fatalf("Table 1 has no column %s", col)
		}
		v, err := strconv.ParseFloat(cells[i], 64)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	d, err := device.Lookup(entry)
	if err != nil {
		t.Fatal(err)
	}
	d.Name, d.DisplayName, d.Aliases = row+"-Table1", row+" of Van Lanker et al. 2024, Table 1", nil
	d.FP64PerCycleSM = num("perf_max_gflops") / (2 * d.ClockGHz * float64(d.SMs))
	d.DRAMBandwidthGBs, d.L2BandwidthGBs = num("bw_dram_max_gbs"), num("bw_l2_max_gbs")
	src := "measured: Van Lanker et al. 2024, Table 1, row " + row
	for k := range d.Sources { // the three keys get a source of their own
		var keep []string
		for n := range strings.SplitSeq(k, ",") {
			if n = strings.TrimSpace(n); n != "fp64_per_cycle_sm" && n != "dram_bandwidth_gbs" && n != "l2_bandwidth_gbs" {
				keep = append(keep, n)
			}
		}
		if v := d.Sources[k]; len(keep) > 0 {
			delete(d.Sources, k)
			d.Sources[strings.Join(keep, ", ")] = v
		} else {
			delete(d.Sources, k)
		}
	}
	d.Sources["fp64_per_cycle_sm, dram_bandwidth_gbs, l2_bandwidth_gbs"] = src
	out, err := yaml.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, row+".yaml")
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestProjectUsesPredictDevices checks, for every device of the database,
// that project's ceilings are the device numbers predict uses: the DRAM,
// L2 and L1 bandwidths behind predict's limiters (limiter in GLup/s times
// bytes or cycles per Lup) and, as a ratio to the A100-40GB, its flop
// bound.
func TestProjectUsesPredictDevices(t *testing.T) {
	type rates struct{ dram, l2, l1, flops float64 }
	predicted := func(name string) rates {
		var r model.Report
		out := mustRun(t, "predict", "star2d-r1", "--device", name, "--block", "256,1,1", "--format", "json")
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		d := r.Derived
		if d.PerfFlops == nil {
			t.Fatalf("%s: no flop bound", name)
		}
		dev, err := device.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		return rates{d.PerfMemV3 * (d.MemLoadV3 + d.MemStoreV2), d.PerfL2V2 * d.L2TotalV2,
			d.PerfL1 * d.L1CyclesPerLup * float64(dev.L1BankWidth), *d.PerfFlops}
	}
	projected := func(name string) model.Ceilings {
		var p ProjectOutput
		out := mustRun(t, "project", "--profile", "testdata/profiles/dram-only.json", "--from", name, "--to", "A100-40GB", "--format", "json")
		if err := json.Unmarshal([]byte(out), &p); err != nil {
			t.Fatal(err)
		}
		return p.Projection.Source
	}
	base, baseCeil := predicted("A100-40GB"), projected("A100-40GB")
	for _, d := range device.All() {
		pr, c := predicted(d.Name), projected(d.Name)
		for _, x := range []struct {
			what             string
			project, predict float64
		}{
			{"DRAM GB/s", c.DRAMGBs, pr.dram},
			{"L2 GB/s", c.L2GBs, pr.l2},
			{"L1 GB/s", c.L1GBs, pr.l1},
			{"flops relative to A100-40GB", c.PerfGFlops / baseCeil.PerfGFlops, pr.flops / base.flops},
		} {
			if math.Abs(x.project-x.predict) > 1e-9*x.predict {
				t.Errorf("%s %s: project %v, predict %v", d.Name, x.what, x.project, x.predict)
			}
		}
		if c.DRAMGBs != d.DRAMBandwidthGBs || c.L2GBs != d.L2BandwidthGBs {
			t.Errorf("%s: project DRAM %v L2 %v, database %v %v", d.Name, c.DRAMGBs, c.L2GBs, d.DRAMBandwidthGBs, d.L2BandwidthGBs)
		}
	}
}

// TestProjectH100SXMFasterThanPCIe checks the pure projection of a
// DRAM-only profile from the A100-40GB: the H100-SXM, whose DRAM bandwidth
// is higher in the database, comes out faster than the H100-PCIe, by the
// ratio of the database's DRAM bandwidths.
func TestProjectH100SXMFasterThanPCIe(t *testing.T) {
	time := map[string]float64{}
	for _, to := range []string{"H100-SXM", "H100-PCIe"} {
		var p ProjectOutput
		out := mustRun(t, "project", "--profile", "testdata/profiles/dram-only.json", "--from", "A100-40GB", "--to", to, "--format", "json")
		if err := json.Unmarshal([]byte(out), &p); err != nil {
			t.Fatal(err)
		}
		time[to] = p.Projection.MaxTimeS
	}
	sxm, _ := device.Lookup("H100-SXM")
	pcie, _ := device.Lookup("H100-PCIe")
	if want := pcie.DRAMBandwidthGBs / sxm.DRAMBandwidthGBs; !(time["H100-SXM"] < time["H100-PCIe"]) ||
		math.Abs(time["H100-SXM"]/time["H100-PCIe"]-want) > 1e-12 {
		t.Errorf("projected times: H100-SXM %v, H100-PCIe %v; want the SXM faster by the DRAM ratio %v", time["H100-SXM"], time["H100-PCIe"], want)
	}
}

// TestProjectWithSpec checks the volume-aware mode: the bytes per level
// come from estimates on both GPUs, and the target's DRAM bytes are the
// target estimate's DRAM volume times the Lups.
func TestProjectWithSpec(t *testing.T) {
	out := mustRun(t, "project", "--profile", "../examples/profiles/star3d-r4-a100-illustrative.json",
		"--from", "A100-40GB", "--to", "H100-SXM", "--spec", "star3d-r4", "--format", "json")
	var p ProjectOutput
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatal(err)
	}
	if p.Mode != "volumes" || p.Source == nil || p.Target == nil || p.Source.Device != "A100-40GB" || p.Target.Device != "H100-SXM" {
		t.Fatalf("mode %q, estimates %v %v", p.Mode, p.Source != nil, p.Target != nil)
	}
	d := p.Target.Derived
	if want := (d.MemLoadV3 + d.MemStoreV2) * float64(p.Target.Launch.LupCount); p.TargetBytes.DRAM != want {
		t.Errorf("target DRAM bytes %v, want %v", p.TargetBytes.DRAM, want)
	}
	if !(p.Projection.MinTimeS > 0 && p.Projection.MinTimeS <= p.Projection.MaxTimeS) {
		t.Errorf("times %v..%v", p.Projection.MinTimeS, p.Projection.MaxTimeS)
	}
}
