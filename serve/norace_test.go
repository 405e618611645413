//go:build !race

package serve_test

// raceMemoryFactor is 1 without the race detector: the bound on the
// server's resident memory holds as stated.
const raceMemoryFactor = 1
