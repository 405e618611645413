package accuracy

import (
	"os"
	"testing"

	"github.com/polyvol/polyvol/procmem"
)

// TestMain runs the package's tests with the garbage-collection targets
// of a sweep (procmem.QuietGC), where the environment sets none: the tests
// estimate hundreds of configurations, whose short-lived counting state the
// default GOGC of 100 collects thousands of times. The targets take about
// a seventh off the tests' CPU time and change no result.
func TestMain(m *testing.M) {
	restore := procmem.QuietGC()
	code := m.Run()
	restore()
	os.Exit(code)
}
