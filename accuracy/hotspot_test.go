package accuracy

import (
	"io"
	"math"
	"strings"
	"testing"

	"github.com/polyvol/polyvol/kernel"
)

// TestHotspot estimates a sample of each Kernel Tuner hotspot sweep and
// checks that every launch is estimated, that each sh_power has rows with
// and without T > 1 and groups of several T to decide, and that the
// report states them. The row counts are those the sweeps' source states
// (../shared/measured/README.md).
func TestHotspot(t *testing.T) {
	rows := map[string]int{
		"kernel_tuner_hotspot_a4000.csv":                12819,
		"kernel_tuner_hotspot_w7800_partial.csv":        2082,
		"kernel_tuner_hotspot_a4000_8192_clock1560.csv": 1660,
	}
	if len(HotspotSweeps) != len(rows) {
		t.Fatalf("%d sweeps, want %d", len(HotspotSweeps), len(rows))
	}
	for _, s := range HotspotSweeps {
		// Blocks 1 × 32 only: the W7800's ~200 groups alternate sh_power
		// in the file, the 8192² sweep has 14.
		every := map[string]int{"RTX-A4000": 60, "PRO-W7800": 15}[s.Device]
		if s.Grid == 8192 {
			every = 1
		}
		s.Every = every
		h, err := HotspotReport(hardwareDir, s, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		if len(h.Failures) > 0 {
			t.Errorf("%s: %d estimates failed, first: %s", s.File, len(h.Failures), h.Failures[0])
		}
		if h.Rows != rows[s.File] {
			t.Errorf("%s: %d rows, want the file's %d", s.File, h.Rows, rows[s.File])
		}
		for _, g := range h.Groups {
			if g.N == 0 || math.IsNaN(g.MAPE) || math.IsNaN(g.Rho) || !(g.Share > 0 && g.Share <= 1) {
				t.Errorf("%s: sh_power %v, %s: %+v", s.File, g.ShPower, g.Steps, g)
			}
		}
		for _, st := range h.Steps {
			if st.N == 0 || math.IsNaN(st.Right) {
				t.Errorf("%s: sh_power %v: no groups decided: %+v", s.File, st.ShPower, st)
			}
		}
		var b strings.Builder
		h.WriteMarkdown(&b)
		if !strings.Contains(b.String(), "Is T > 1 worth it?") || !strings.Contains(b.String(), s.File) {
			t.Errorf("%s: the report leaves out the time-steps decision or the file:\n%s", s.File, b.String())
		}
	}
}

// TestHotspotSpecGrid checks the hotspot at 8192²: the domain, the arrays
// of 8192 + 2·10 points a side, and the origin of the inputs at (10, 10):
// element 10·8212 + 10 = 82130.
func TestHotspotSpecGrid(t *testing.T) {
	spec, err := hotspotSpec(true, 8192)
	if err != nil {
		t.Fatal(err)
	}
	k, err := kernel.Parse([]byte(spec), "hotspot.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if k.Domain != [3]int64{8192, 8192, 1} {
		t.Errorf("domain %v, want 8192²", k.Domain)
	}
	for _, f := range k.Fields {
		want, offset := [3]int64{8212, 8212, 1}, int64(82130)
		if f.Name == "out" {
			want, offset = [3]int64{8192, 8192, 1}, 0
		}
		if f.Extent != want || f.Offset != offset {
			t.Errorf("field %s: extent %v, offset %d; want %v, %d", f.Name, f.Extent, f.Offset, want, offset)
		}
	}
}
