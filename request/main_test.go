package request

import (
	"os"
	"testing"

	"github.com/polyvol/polyvol/supervise"
)

// TestMain serves jobs when the test binary runs as a worker (the tests
// that import in worker processes).
func TestMain(m *testing.M) { os.Exit(supervise.MainTests(m)) }
