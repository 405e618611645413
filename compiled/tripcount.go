package compiled

import (
	"math"
	"regexp"
	"strconv"
	"strings"
)

// TripCount is how often one loop's body runs per entry of the loop, as
// LLVM's scalar evolution computes it: Exact where the count is a
// constant, else Max where only a constant bound is known, else neither
// (0).
type TripCount struct {
	Exact int64
	Max   int64
}

// TripCounts are the trip counts of the loops of a compiled module by
// function symbol and by the LLVM name of each loop's header block (e.g.
// "for.body"), which the assembly names in the comment of a block's
// label.
type TripCounts map[string]map[string]TripCount

var (
	scevFunction = regexp.MustCompile(`^Determining loop execution counts for: @"?([^"\s]+)"?$`)
	scevExact    = regexp.MustCompile(`^Loop %(\S+): (?:<multiple exits> )?backedge-taken count is i([0-9]+) (-?[0-9]+)$`)
	scevMax      = regexp.MustCompile(`^Loop %(\S+): (?:<multiple exits> )?constant max backedge-taken count is i([0-9]+) (-?[0-9]+)$`)
)

// ParseTripCounts reads the loop execution counts that LLVM's opt prints
// with -passes='print<scalar-evolution>': per function, each loop's
// backedge-taken count where it is a constant and its constant maximum,
// plus one for the header's last run, which leaves the loop. A count that
// is no constant, or whose trip count exceeds an int64, is unknown.
func ParseTripCounts(text string) TripCounts {
	trips := TripCounts{}
	var function map[string]TripCount
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if m := scevFunction.FindStringSubmatch(line); m != nil {
			function = map[string]TripCount{}
			trips[m[1]] = function
			continue
		}
		if function == nil {
			continue
		}
		if m := scevExact.FindStringSubmatch(line); m != nil {
			t := function[m[1]]
			t.Exact = tripCount(m[2], m[3])
			function[m[1]] = t
		} else if m := scevMax.FindStringSubmatch(line); m != nil {
			t := function[m[1]]
			t.Max = tripCount(m[2], m[3])
			function[m[1]] = t
		}
	}
	for _, function := range trips {
		for header, t := range function {
			if t.Exact > 0 {
				t.Max = 0 // the exact count says it all
			}
			function[header] = t
		}
	}
	return trips
}

// tripCount returns the trip count of a loop whose backedge-taken count
// is the constant value of an integer of bits bits, which scalar
// evolution prints signed: the count read unsigned, plus one; 0 where it
// does not fit an int64.
func tripCount(bits, value string) int64 {
	width, werr := strconv.Atoi(bits)
	n, err := strconv.ParseInt(value, 10, 64)
	if werr != nil || err != nil || width < 1 || width > 64 {
		return 0
	}
	u := uint64(n)
	if width < 64 {
		u &= 1<<width - 1
	}
	if u >= math.MaxInt64 {
		return 0
	}
	return int64(u) + 1
}
