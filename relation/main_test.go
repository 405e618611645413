package relation

import (
	"os"
	"testing"

	"github.com/polyvol/polyvol/isl"
	"github.com/polyvol/polyvol/supervise"
)

// TestMain serves jobs when the test binary runs as a worker (the tests
// that read maps in worker processes), and otherwise makes a forgotten ISL
// object crash the test binary with its allocation site
// (isl.PanicOnLeak).
func TestMain(m *testing.M) {
	if !supervise.IsWorker() {
		isl.PanicOnLeak()
	}
	os.Exit(supervise.MainTests(m))
}
