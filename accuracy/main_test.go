package accuracy

import (
	"os"
	"runtime/debug"
	"testing"
)

// TestMain runs the package's tests with the garbage-collection targets
// that polyvol explore sets for a sweep (sweepGCPercent and
// sweepMemoryLimit of cli/explore.go), where the environment sets none:
// the tests estimate hundreds of configurations, whose short-lived counting
// state the default GOGC of 100 collects thousands of times. The targets
// take about a seventh off the tests' CPU time and change no result.
func TestMain(m *testing.M) {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(200 << 20)
	}
	os.Exit(m.Run())
}
