package isl

import (
	"os"
	"testing"
)

// TestMain makes a forgotten ISL object crash the test binary with its
// allocation site (isl.PanicOnLeak).
func TestMain(m *testing.M) {
	PanicOnLeak()
	os.Exit(m.Run())
}
