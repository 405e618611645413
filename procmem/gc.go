package procmem

import (
	"os"
	"runtime/debug"
	"sync"
)

// Garbage collection during a sweep of estimates: the heap of a sweep is a
// few MB of short-lived counting state, which the default GOGC of 100
// collects hundreds of times. SweepGCPercent lets it grow further between
// collections (a fifth less CPU on the tuning benchmark), within a soft
// limit of SweepMemoryLimit on the process's memory.
const (
	SweepGCPercent   = 400
	SweepMemoryLimit = 200 << 20
)

// QuietGC sets the garbage-collection targets of a sweep, unless the GOGC or
// GOMEMLIMIT environment variables set them, and returns the function that
// restores the previous ones. Sweeps may run at once in one process: the
// first sets the targets, the last to finish restores them.
func QuietGC() (restore func()) {
	sweepGC.Lock()
	defer sweepGC.Unlock()
	if sweepGC.running == 0 {
		sweepGC.percent, sweepGC.limit = -2, -1
		if os.Getenv("GOGC") == "" {
			sweepGC.percent = debug.SetGCPercent(SweepGCPercent)
		}
		if os.Getenv("GOMEMLIMIT") == "" {
			sweepGC.limit = debug.SetMemoryLimit(SweepMemoryLimit)
		}
	}
	sweepGC.running++
	return func() {
		sweepGC.Lock()
		defer sweepGC.Unlock()
		if sweepGC.running--; sweepGC.running > 0 {
			return
		}
		if sweepGC.percent != -2 {
			debug.SetGCPercent(sweepGC.percent)
		}
		if sweepGC.limit >= 0 {
			debug.SetMemoryLimit(sweepGC.limit)
		}
	}
}

// sweepGC counts the sweeps running and keeps the targets they replaced.
var sweepGC struct {
	sync.Mutex
	running int
	percent int   // -2: left alone
	limit   int64 // -1: left alone
}
