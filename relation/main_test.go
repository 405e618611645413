package relation

import (
	"github.com/polyvol/polyvol/isl"
	"os"
	"testing"
)

// TestMain makes a forgotten ISL object crash the test binary with its
// allocation site (isl.PanicOnLeak).
func TestMain(m *testing.M) {
	isl.PanicOnLeak()
	os.Exit(m.Run())
}
