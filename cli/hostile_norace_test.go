//go:build !race

package cli

// raceDetector reports whether the test binary, and so every child of
// TestHostileInputs, runs under the race detector.
const raceDetector = false
