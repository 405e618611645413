//go:build race

package serve_test

// raceMemoryFactor is what the race detector multiplies memory use by at
// most (5 to 10, Go's race detector documentation): the bound on the
// server's resident memory is scaled by it when the tests run under the
// detector, and holds unscaled in the run without it.
const raceMemoryFactor = 10
