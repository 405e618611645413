package procmem

import (
	"os"
	"runtime/debug"
	"testing"
)

// TestQuietGC checks that sweeps set the garbage-collection targets while
// any runs and that the last to finish restores the previous ones.
func TestQuietGC(t *testing.T) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		t.Log("GOGC or GOMEMLIMIT set: QuietGC leaves the targets alone")
		return
	}
	prevPercent := debug.SetGCPercent(150)
	prevLimit := debug.SetMemoryLimit(1 << 40)
	defer func() { debug.SetGCPercent(prevPercent); debug.SetMemoryLimit(prevLimit) }()
	first := QuietGC()
	second := QuietGC()
	first()
	if p := debug.SetGCPercent(-1); p != SweepGCPercent {
		t.Errorf("GC percent %d while a sweep runs, want %d", p, SweepGCPercent)
	}
	debug.SetGCPercent(SweepGCPercent)
	if l := debug.SetMemoryLimit(-1); l != SweepMemoryLimit {
		t.Errorf("memory limit %d while a sweep runs, want %d", l, SweepMemoryLimit)
	}
	second()
	if p := debug.SetGCPercent(-1); p != 150 {
		t.Errorf("GC percent %d after the sweeps, want 150", p)
	}
	debug.SetGCPercent(150)
	if l := debug.SetMemoryLimit(-1); l != 1<<40 {
		t.Errorf("memory limit %d after the sweeps, want 2^40", l)
	}
}
