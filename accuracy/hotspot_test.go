package accuracy

import (
	"io"
	"math"
	"strings"
	"testing"
)

// TestHotspot estimates a sample of the Kernel Tuner hotspot sweep and
// checks that every launch is estimated, that each sh_power has rows with
// and without T > 1 and groups of several T to decide, and that the
// report states them.
func TestHotspot(t *testing.T) {
	h, err := HotspotReport(hardwareDir, 60, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Failures) > 0 {
		t.Errorf("%d estimates failed, first: %s", len(h.Failures), h.Failures[0])
	}
	if h.Rows != 12819 {
		t.Errorf("%d rows, want the file's 12819", h.Rows)
	}
	for _, g := range h.Groups {
		if g.N == 0 || math.IsNaN(g.MAPE) || math.IsNaN(g.Rho) || !(g.Share > 0 && g.Share <= 1) {
			t.Errorf("sh_power %v, %s: %+v", g.ShPower, g.Steps, g)
		}
	}
	for _, s := range h.Steps {
		if s.N == 0 || math.IsNaN(s.Right) {
			t.Errorf("sh_power %v: no groups decided: %+v", s.ShPower, s)
		}
	}
	var b strings.Builder
	h.WriteMarkdown(&b)
	if !strings.Contains(b.String(), "Is T > 1 worth it?") {
		t.Errorf("the report leaves out the time-steps decision:\n%s", b.String())
	}
}
