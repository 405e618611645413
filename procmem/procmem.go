// Package procmem reads the resident memory of the running process, which
// the estimates' memory bound and the tests of repeated runs measure, and
// sets the garbage-collection targets of sweeps of many estimates.
package procmem

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
)

// Resident returns the resident set size of the process in bytes, from
// Linux's /proc/self/statm, and whether it could be read.
func Resident() (int64, bool) { return statm(1) }

// AddressSpace returns the size of the process's virtual address space in
// bytes, from Linux's /proc/self/statm, and whether it could be read.
func AddressSpace() (int64, bool) { return statm(0) }

// statmFile is /proc/self/statm, opened once: each read from its start
// returns the current figures, at a fraction of the cost of opening it
// again (the memory bound of the estimates reads it every fraction of a
// millisecond).
var statmFile = sync.OnceValues(func() (*os.File, error) { return os.Open("/proc/self/statm") })

// statm returns field i of /proc/self/statm, a count of pages, in bytes.
func statm(i int) (int64, bool) {
	file, err := statmFile()
	if err != nil {
		return 0, false
	}
	var buf [256]byte // seven numbers of at most 20 digits each
	n, err := file.ReadAt(buf[:], 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return 0, false
	}
	f := strings.Fields(string(buf[:n]))
	if len(f) <= i {
		return 0, false
	}
	pages, err := strconv.ParseInt(f[i], 10, 64)
	if err != nil {
		return 0, false
	}
	return pages * int64(os.Getpagesize()), true
}

// Run holds the resident sizes of a repeated run: at its start, after its
// first half and at its end, in bytes; 0 where they could not be read.
type Run struct {
	Start, Middle, End int64
}

// CheckFlat returns an error when the resident set grew by more than the
// share limit (0.1 for 10 %) over the run's second half: a run that leaks
// grows in both halves, one that warms up only in the first.
func (r Run) CheckFlat(limit float64) error {
	if r.Middle == 0 || r.End == 0 {
		return nil
	}
	if float64(r.End) > (1+limit)*float64(r.Middle) {
		return fmt.Errorf("resident set %d KiB after the second half, more than %.0f %% above the %d KiB after the first", r.End>>10, 100*limit, r.Middle>>10)
	}
	return nil
}

func (r Run) String() string {
	return fmt.Sprintf("resident set %d KiB at the start, %d KiB after the first half, %d KiB at the end", r.Start>>10, r.Middle>>10, r.End>>10)
}

// Settled returns the resident set size after a garbage collection has
// returned to the operating system what it could, or 0 where it cannot be
// read: the size to compare across a repeated run.
func Settled() int64 {
	debug.FreeOSMemory()
	rss, _ := Resident()
	return rss
}
