package serve_test

import (
	"os"
	"testing"

	polyvolrequest "github.com/polyvol/polyvol/request"
	"github.com/polyvol/polyvol/supervise"
)

// TestMain serves jobs when the test binary runs as a worker (the tests
// that answer requests in worker processes). The tests count the
// instruction mix unless a request chooses one: a compile per distinct
// kernel would take minutes.
func TestMain(m *testing.M) {
	os.Setenv(polyvolrequest.InstructionsEnv, polyvolrequest.InstructionsCounted)
	os.Exit(supervise.MainTests(m))
}
