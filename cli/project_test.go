package cli

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// TestProjectDRAMOnly checks the pure projection of a profile that only
// moves DRAM bytes from V100 to H100: every level's time scales by the
// measured DRAM bandwidths, 846/1907 (Van Lanker et al. 2024, Table 1).
func TestProjectDRAMOnly(t *testing.T) {
	out := mustRun(t, "project", "--profile", "testdata/profiles/dram-only.json", "--from", "V100", "--to", "H100-SXM", "--format", "json")
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
	if table := mustRun(t, "project", "--profile", "testdata/profiles/dram-only.json", "--from", "V100", "--to", "H100-SXM"); !strings.Contains(table, "speed-up 2.25 to 2.25") {
		t.Errorf("table lacks the speed-up 1907/846 = 2.25:\n%s", table)
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
