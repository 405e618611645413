// Package intmath holds the integer helpers that several layers need:
// division rounded toward negative or positive infinity, the non-negative
// remainder, greatest common divisors, and overflow-checked arithmetic. It is a leaf: it imports nothing
// of polyvol.
package intmath

import (
	"errors"
	"math"
	"math/bits"
)

// Signed are the integer types the helpers take.
type Signed interface{ ~int | ~int64 }

// FloorDiv returns ⌊a/b⌋ for b > 0.
func FloorDiv[T Signed](a, b T) T {
	if b > 0 && b&(b-1) == 0 { // a power of two, as granules are: an arithmetic shift floors
		return a >> bits.TrailingZeros64(uint64(b))
	}
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

// CeilDiv returns ⌈a/b⌉ for b > 0.
func CeilDiv[T Signed](a, b T) T { return -FloorDiv(-a, b) }

// FloorMod returns a mod m in [0, m) for m > 0.
func FloorMod[T Signed](a, m T) T { return a - m*FloorDiv(a, m) }

// GCD returns the greatest common divisor of |a| and |b| (0 when both are 0).
func GCD[T Signed](a, b T) T {
	if a < 0 {
		a = -a
	}
	if b < 0 {
		b = -b
	}
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// LCM returns the least common multiple of a > 0 and b > 0.
func LCM[T Signed](a, b T) T { return a / GCD(a, b) * b }

// ErrOverflow reports arithmetic outside the symmetric int64 range.
var ErrOverflow = errors.New("integer overflow (values must fit in 64 bits)")

// AddChecked returns a + b, or ErrOverflow when it leaves the symmetric
// range [−MaxInt64, MaxInt64], in which every value can be negated.
func AddChecked(a, b int64) (int64, error) {
	s := a + b
	if (a >= 0) == (b >= 0) && (s >= 0) != (a >= 0) || s == math.MinInt64 {
		return 0, ErrOverflow
	}
	return s, nil
}

// MulChecked returns a · b, or ErrOverflow when it leaves the symmetric
// range [−MaxInt64, MaxInt64].
func MulChecked(a, b int64) (int64, error) {
	if a == 0 || b == 0 {
		return 0, nil
	}
	if a == math.MinInt64 || b == math.MinInt64 {
		return 0, ErrOverflow
	}
	hi, lo := bits.Mul64(uint64(max(a, -a)), uint64(max(b, -b)))
	if hi != 0 || lo > math.MaxInt64 {
		return 0, ErrOverflow
	}
	if (a < 0) != (b < 0) {
		return -int64(lo), nil
	}
	return int64(lo), nil
}
