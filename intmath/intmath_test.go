package intmath

import (
	"errors"
	"math"
	"math/big"
	"testing"
)

// TestAgainstDefinitions checks every helper on a grid of small values
// against its definition: floor and ceiling of the exact quotient (float64
// is exact for these magnitudes), the remainder's range and identity, and
// the gcd and lcm found by trying every candidate.
func TestAgainstDefinitions(t *testing.T) {
	for a := int64(-60); a <= 60; a++ {
		for b := int64(1); b <= 13; b++ {
			q := float64(a) / float64(b)
			if got := FloorDiv(a, b); got != int64(math.Floor(q)) {
				t.Errorf("FloorDiv(%d, %d) = %d, want %v", a, b, got, math.Floor(q))
			}
			if got := CeilDiv(int(a), int(b)); got != int(math.Ceil(q)) {
				t.Errorf("CeilDiv(%d, %d) = %d, want %v", a, b, got, math.Ceil(q))
			}
			if m := FloorMod(a, b); m < 0 || m >= b || (a-m)%b != 0 {
				t.Errorf("FloorMod(%d, %d) = %d", a, b, m)
			}
			want := int64(0)
			for d := int64(1); d <= max(a, -a, b); d++ {
				if a%d == 0 && b%d == 0 {
					want = d
				}
			}
			if got := GCD(a, b); got != want {
				t.Errorf("GCD(%d, %d) = %d, want %d", a, b, got, want)
			}
			if a > 0 {
				l := LCM(a, b)
				for c := max(a, b); c < l; c++ {
					if c%a == 0 && c%b == 0 {
						t.Fatalf("LCM(%d, %d) = %d, but %d is a common multiple", a, b, l, c)
					}
				}
				if l%a != 0 || l%b != 0 {
					t.Errorf("LCM(%d, %d) = %d is no common multiple", a, b, l)
				}
			}
		}
	}
	if GCD(0, 0) != 0 || GCD(0, -6) != 6 {
		t.Errorf("GCD(0, 0) = %d, GCD(0, -6) = %d", GCD(0, 0), GCD(0, -6))
	}
}

// TestCheckedArithmetic compares AddChecked and MulChecked with exact
// big-integer results: a result inside [−MaxInt64, MaxInt64] comes back,
// any other is ErrOverflow.
func TestCheckedArithmetic(t *testing.T) {
	values := []int64{0, 1, -1, 2, -2, 3, 1 << 31, -(1 << 31), 1 << 32, math.MaxInt64, -math.MaxInt64, math.MinInt64, math.MaxInt64 / 2, math.MaxInt64/2 + 1, 3037000499, 3037000500}
	limit := new(big.Int).SetInt64(math.MaxInt64)
	for _, a := range values {
		for _, b := range values {
			for _, c := range []struct {
				name string
				f    func(int64, int64) (int64, error)
				want *big.Int
			}{
				{"AddChecked", AddChecked, new(big.Int).Add(big.NewInt(a), big.NewInt(b))},
				{"MulChecked", MulChecked, new(big.Int).Mul(big.NewInt(a), big.NewInt(b))},
			} {
				got, err := c.f(a, b)
				fits := new(big.Int).Abs(c.want).Cmp(limit) <= 0
				if fits && (err != nil || got != c.want.Int64()) || !fits && !errors.Is(err, ErrOverflow) {
					t.Errorf("%s(%d, %d) = %d, %v; exact %v", c.name, a, b, got, err, c.want)
				}
			}
		}
	}
}

// TestFloorDivPowersOfTwo checks the shift that FloorDiv takes for a
// power-of-two divisor against big-integer floor division, on values up to
// the ends of int64.
func TestFloorDivPowersOfTwo(t *testing.T) {
	values := []int64{math.MinInt64, math.MinInt64 + 1, -1 << 40, -129, -128, -127, -1, 0, 1, 127, 128, 1 << 40, math.MaxInt64}
	for _, a := range values {
		for k := 0; k < 63; k++ {
			b := int64(1) << k
			var q, m big.Int
			q.DivMod(big.NewInt(a), big.NewInt(b), &m) // Euclidean: floor for b > 0
			if got := FloorDiv(a, b); got != q.Int64() {
				t.Errorf("FloorDiv(%d, %d) = %d, want %d", a, b, got, q.Int64())
			}
		}
	}
}
