//go:build race

package cli

// raceDetector reports whether the test binary, and so every child of
// TestHostileInputs, runs under the race detector, which multiplies memory
// use by 5 to 10 (Go's race detector documentation).
const raceDetector = true
