// Package intmath holds the integer helpers that several layers need:
// division rounded toward negative or positive infinity, the non-negative
// remainder, and greatest common divisors. It is a leaf: it imports nothing
// of polyvol.
package intmath

// Signed are the integer types the helpers take.
type Signed interface{ ~int | ~int64 }

// FloorDiv returns ⌊a/b⌋ for b > 0.
func FloorDiv[T Signed](a, b T) T {
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
