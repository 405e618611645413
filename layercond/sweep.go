package layercond

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"
)

// PaperTotal is the lattice-point count X·Y·Z that the paper's §5.7 series
// keeps constant: z = 512·1024·1024/(x·y).
const PaperTotal = 512 * 1024 * 1024

// TotalText writes a series total as 2^k when it is a power of two, as
// PaperTotal = 2^29 is, else in decimal.
func TotalText(total int64) string {
	if total > 0 && total&(total-1) == 0 {
		return fmt.Sprintf("2^%d", bits.TrailingZeros64(uint64(total)))
	}
	return strconv.FormatInt(total, 10)
}

// DefaultSweep is the default list of plane sizes: 25 sizes from 64 to 13553,
// each 1.25 times the one before.
const DefaultSweep = "64:16384:x1.25"

// DefaultRowSweep is the default list of row lengths of a 2-D kernel: 11
// lengths from 4096 to 4194304, each twice the one before. A 2-D stencil's
// rows are a few dozen bytes per point, so the row condition of an L2 of
// tens of MiB lies between 10^5 and 10^6 points.
const DefaultRowSweep = "4096:4194304:x2"

// DefaultSweepOf returns the default sweep of a kernel of dims dimensions:
// DefaultRowSweep for 2-D kernels, DefaultSweep for the others.
func DefaultSweepOf(dims int) string {
	if dims == 2 {
		return DefaultRowSweep
	}
	return DefaultSweep
}

// MaxSweepSizes is the default bound on the plane sizes a sweep may ask
// for, so that a typing slip such as 1:100000:+1 or 64:16384:x1.0000001 is
// an error rather than hours of work.
const MaxSweepSizes = 1000

// Series is how a sweep forms its domains from the swept extent s, so that
// every domain has about Total lattice points (rounded down, at least one
// row or layer):
//
//	2-D kernel:             rows of s points, s × y with y = Total/s
//	3-D kernel, Inner = 0:  square planes, s × s × z with z = Total/s²
//	3-D kernel, Inner = X:  planes of X × s points, X × s × z with z = Total/(X·s)
//
// A 2-D kernel's row condition depends on the row length s; a 3-D kernel's
// y layer on the row length and its z layer on the plane, so a fixed inner
// extent sweeps the z layer condition at constant row reuse.
type Series struct {
	Dims  int   // the kernel's dimensions, 2 or 3
	Total int64 // the lattice points X·Y·Z the series keeps
	Inner int64 // 3-D only: the fixed X extent; 0 for square planes
}

// Domain returns the domain of the series at swept extent s.
func (se Series) Domain(s int64) [3]int64 {
	switch {
	case se.Dims == 2:
		return [3]int64{s, max(1, se.Total/s), 1}
	case se.Inner > 0:
		return [3]int64{se.Inner, s, max(1, se.Total/se.Inner/s)}
	}
	return [3]int64{s, s, max(1, se.Total/s/s)}
}

// Text describes the domains of the series, e.g. "s x s x z with z =
// 2^29/s^2".
func (se Series) Text() string {
	t := TotalText(se.Total)
	switch {
	case se.Dims == 2:
		return fmt.Sprintf("s x y with y = %s/s", t)
	case se.Inner > 0:
		return fmt.Sprintf("%d x s x z with z = %s/(%d s)", se.Inner, t, se.Inner)
	}
	return fmt.Sprintf("s x s x z with z = %s/s^2", t)
}

// Swept names the extent s of the series: the row length of a 2-D series,
// the plane size of square planes, the plane height Y of a fixed inner
// extent.
func (se Series) Swept() string {
	switch {
	case se.Dims == 2:
		return "row length s"
	case se.Inner > 0:
		return "plane height s"
	}
	return "XY plane size s"
}

// ParseSweep parses a list of swept extents s (plane sizes, row lengths) and returns them sorted
// ascending without duplicates. The syntax is one of
//
//	A:B:xF   geometric: A, A·F, A·F², … up to B (F > 1); each size is rounded
//	         to the nearest integer, so 64:16384:x1.25 gives 64 80 100 125 156 …
//	A:B:+S   arithmetic: A, A+S, A+2S, … up to B (S ≥ 1)
//	A:B:N    N sizes spaced evenly on a log scale from A to B, both included
//	s1,s2,…  an explicit list
//
// B is included when the progression reaches it. Sizes must be at least 1,
// and a sweep may ask for at most maxSizes of them (MaxSweepSizes by
// default), counted before sizes that round to the same integer are
// merged: the count is known before anything is listed.
func ParseSweep(spec string, maxSizes int) ([]int64, error) {
	spec = strings.TrimSpace(spec)
	if spec == "" {
		return nil, fmt.Errorf("sweep: empty; expected A:B:xF, A:B:+S, A:B:N or a list s1,s2,…")
	}
	var sizes []int64
	if parts := strings.Split(spec, ":"); len(parts) == 3 {
		var err error
		if sizes, err = parseRange(parts, int64(maxSizes)); err != nil {
			return nil, fmt.Errorf("sweep %q: %w", spec, err)
		}
	} else if len(parts) != 1 {
		return nil, fmt.Errorf("sweep %q: expected A:B:STEP with three parts or a comma-separated list", spec)
	} else {
		if n := strings.Count(spec, ",") + 1; n > maxSizes {
			return nil, fmt.Errorf("sweep %q: %w", spec, tooManySizes(int64(n), int64(maxSizes)))
		}
		for _, f := range strings.Split(spec, ",") {
			s, err := parseSize(f)
			if err != nil {
				return nil, fmt.Errorf("sweep %q: %w", spec, err)
			}
			sizes = append(sizes, s)
		}
	}
	slices.Sort(sizes)
	return slices.Compact(sizes), nil
}

// tooManySizes is the error of a sweep of n sizes where at most max are
// allowed.
func tooManySizes(n, max int64) error {
	return fmt.Errorf("%d sizes, more than the %d allowed", n, max)
}

// parseRange expands the A:B:STEP forms of ParseSweep, of at most maxSizes
// sizes.
func parseRange(parts []string, maxSizes int64) ([]int64, error) {
	a, err := parseSize(parts[0])
	if err != nil {
		return nil, err
	}
	b, err := parseSize(parts[1])
	if err != nil {
		return nil, err
	}
	if b < a {
		return nil, fmt.Errorf("end %d is below start %d", b, a)
	}
	step := strings.TrimSpace(parts[2])
	var out []int64
	switch {
	case strings.HasPrefix(step, "x"):
		f, err := strconv.ParseFloat(step[1:], 64)
		if err != nil || !(f > 1) || math.IsInf(f, 0) {
			return nil, fmt.Errorf("factor %q: expected xF with a number F > 1", step)
		}
		// The sizes a·f^k up to b·(1 + 1e-12), counted before they are listed.
		if n := math.Floor(math.Log(float64(b)*(1+1e-12)/float64(a))/math.Log(f)) + 1; n > float64(maxSizes) {
			return nil, tooManySizes(int64(min(n, math.MaxInt64/2)), maxSizes)
		}
		for v := float64(a); v <= float64(b)*(1+1e-12); v *= f {
			out = append(out, int64(math.Round(v)))
		}
	case strings.HasPrefix(step, "+"):
		d, err := strconv.ParseInt(step[1:], 10, 64)
		if err != nil || d < 1 {
			return nil, fmt.Errorf("step %q: expected +S with an integer S ≥ 1", step)
		}
		if n := (b-a)/d + 1; n > maxSizes {
			return nil, tooManySizes(n, maxSizes)
		}
		for v := a; v <= b; v += d {
			out = append(out, v)
		}
	default:
		n, err := strconv.Atoi(step)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("step %q: expected xF (factor), +S (step) or N (number of sizes)", step)
		}
		if int64(n) > maxSizes {
			return nil, tooManySizes(int64(n), maxSizes)
		}
		if n == 1 || a == b {
			return []int64{a}, nil
		}
		r := math.Log(float64(b) / float64(a))
		for i := range n {
			out = append(out, int64(math.Round(float64(a)*math.Exp(r*float64(i)/float64(n-1)))))
		}
	}
	return out, nil
}

// parseSize parses one plane size, a positive integer.
func parseSize(s string) (int64, error) {
	s = strings.TrimSpace(s)
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v < 1 {
		return 0, fmt.Errorf("size %q: expected a positive integer", s)
	}
	return v, nil
}
