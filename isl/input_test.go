package isl

import (
	"errors"
	"strings"
	"testing"
)

// TestReadRefusesWhatCrashesISL feeds the readers text that, unchecked, makes
// libisl 0.25 divide by zero (SIGFPE, which kills the process): each must
// come back as an error naming the position of the divisor.
func TestReadRefusesWhatCrashesISL(t *testing.T) {
	ctx := newTestCtx(t)
	for _, tc := range []struct{ text, where string }{
		{"{ [x, y, z] -> A[x, y, z] : x < 5 // 0 }", "column 35"},
		{"{ [i] : 0 <= i < 1//0 }", "column 19"},
		{"{ [x] -> A[x] : x < (5 // 0) }", "column 24"},
		{"{ [x] -> A[x] : x < -5 // 0 }", "column 24"},
		{"{ [x] -> A[x] : x < 0 // 0 }", "column 23"},
		{"{ [x] -> A[x] : x < 2*(5 // 0) }", "column 26"},
		{"{ [x] -> A[x] : x < 0 * (5 // 0) }", "column 28"},
		{"{ [x] -> A[x] : x < 99999 // 0 }", "column 27"},
		{"{ [x] -> A[x] : exists (e = 5 // 0 : x = e) }", "column 31"},
		{"{ [x] -> A[x] : x < max(5 // 0, 1) }", "column 27"},
		{"{ [x] -> [(5 // 0)] }", "column 14"},
		{"{ [x] : x < 5 //0 and x > 1 }", "column 15"},
		{"{ [x] : x < 5//00 }", "column 14"},
		{"{ [x] : x < 5//0x0 }", "column 14"},
		{"{ [x] : x < 1 // 0 // 0 }", "column 15"},
		{"{ [x] : x < x + 5 // 0 }", "column 19"},
		{"[n = 5 // 0] -> { [x] : x < n }", "column 8"},
		{"{ [x = 5 // 0] }", "column 10"},
		{"{ [x] : x < 5 //\n 0 }", "line 1, column 15"},
		{"{ [x] : x < 5 // -0 }", "column 15"},
		{"{ [x] : x < 5 // (0) }", "column 15"},
		{"{ [x] -> A[x mod 0] }", "column 14"},
		{"{ [x] -> A[x % 0] }", "column 14"},
		{"{ [x] -> A[floor(x/0)] }", "column 19"},
	} {
		for _, read := range []func(string) error{
			func(s string) error { m, err := ctx.ReadMap(s); m.Free(); return err },
			func(s string) error { m, err := ctx.ReadSet(s); m.Free(); return err },
		} {
			err := read(tc.text)
			var islErr *Error
			if !errors.As(err, &islErr) || !strings.Contains(islErr.Msg, tc.where+": division by zero") {
				t.Errorf("%q: got %v, want an *Error at %s: division by zero", tc.text, err, tc.where)
			}
		}
	}
}

// TestReadKeepsValidText checks that the check before ISL lets through what
// ISL reads correctly, including divisors that only look like zero, the
// extreme literals of Polly's contexts and identifiers with digits.
func TestReadKeepsValidText(t *testing.T) {
	ctx := newTestCtx(t)
	for _, tc := range []struct{ text, want string }{
		{"{ [x] -> A[x] : x < 5 // 2 }", "{ [x] -> A[x] : x <= 1 }"},
		{"{ [x] -> A[x] : x < 5 // -2 }", "{ [x] -> A[x] : x <= -4 }"},
		{"{ [x] -> A[x] : x < 50 // 10 }", "{ [x] -> A[x] : x <= 4 }"},
		{"{ [x] -> A[x] : x < 2^3 }", "{ [x] -> A[x] : x <= 7 }"},
		{"{ [x] -> A[x] : x < 2^-3 }", "{ [x] -> A[x] : x <= 7 }"},
		{"{ [x] -> A[x] : x < 10^18 and x > 1^999999 }", "{ [x] -> A[x] : 1 < x < 1000000000000000000 }"},
		{"{ [x] -> A[x] : x < 2^63 and x > 0 }", "{ [x] -> A[x] : 0 < x < 9223372036854775808 }"},
		{"{ [x] -> A[floor(x/10)] : 0 <= x < 20 }", "{ [x] -> A[o0] : 0 <= x <= 19 and -9 + x <= 10o0 <= x }"},
		{"{ [i0] -> A[i0 mod 3] : 0 <= i0 < 3 }", "{ [i0] -> A[i0] : 0 <= i0 <= 2 }"},
		{"[p] -> { [x] -> A[x] : -9223372036854775808 <= p <= 9223372036854775807 and 0 <= x < 4 }",
			"[p] -> { [x] -> A[x] : -9223372036854775808 <= p <= 9223372036854775807 and 0 <= x <= 3 }"},
		{"{ [x] -> A[x] : x < 5 // 000000000000000000000000000002 }", "{ [x] -> A[x] : x <= 1 }"},
		{"{ [" + strings.Repeat("a, ", 63) + "x] -> A[x] : 0 <= x < 2 }", "{ [" + strings.Repeat("b, ", 63) + "x] -> A[x] : 0 <= x <= 1 }"},
	} {
		m, err := ctx.ReadMap(tc.text)
		if err != nil {
			t.Errorf("%q: %v", tc.text, err)
			continue
		}
		want, err := ctx.ReadMap(tc.want)
		if err != nil {
			t.Fatalf("%q: %v", tc.want, err)
		}
		if eq, err := m.IsEqual(want); err != nil || !eq {
			t.Errorf("%q read as %s, want %s", tc.text, m, tc.want)
		}
		m.Free()
		want.Free()
	}
}

// TestReadRefusesUnboundedText checks the other refusals: text that is not
// ISL notation (PolyLib's matrix format, which allocates as many dimensions
// as it says), lists of more than 64 entries, a literal beyond 2^63, and a
// NUL byte, after which ISL would read less than the text.
func TestReadRefusesUnboundedText(t *testing.T) {
	ctx := newTestCtx(t)
	for _, tc := range []struct{ text, want string }{
		{"{ [x] : x < 9223372036854775809 }", "column 13: the number 9223372036854775809 is out of the 64-bit range"},
		{"{ [x] : x < 1" + strings.Repeat("0", 100000) + " }", "column 13: the number 1000000000…0000 (100001 digits) is out of the 64-bit range"},
		{"{ [x] : x < 3 }\x00 : x < 5 // 0", "column 16: NUL byte in the input"},
		{"[0000010^00000004000000000", "column 2: the power 0000010^00…0000 (25 characters) is out of the 64-bit range"},
		{"{ [x] : x < 2 ^ 64 }", "column 13: the power 2 ^ 64 is out of the 64-bit range"},
		{"{ [x] : x < 10^19 }", "column 13: the power 10^19 is out of the 64-bit range"},
		{"[0000010^-0000400000000000", "column 2: the power 0000010^-0…0000 (25 characters) is out of the 64-bit range"},
		{"{ [x] : x < 2^ - 64 }", "column 13: the power 2^ - 64 is out of the 64-bit range"},
		{"[0000011^0000001^0000004000000000", "column 2: the power 0000011^00…0000 (32 characters) is out of the 64-bit range"},
		{"{ [x] : x < 2^8^8 }", "column 13: the power 2^8^8 is out of the 64-bit range"},
		{"{ [x] : x < 1^99999999999999999999 }", "column 13: the power 1^99999999999999999999 is out of the 64-bit range"},
		{"{ [x] : x < 1000^-" + strings.Repeat("5", 400) + " }", "column 13: the power 1000^-5555…5555 (406 characters) is out of the 64-bit range"},
		{"00000000 0000000000000000100000000", "column 1: ISL notation starts with '{' or a parameter list '['"},
		{"  \n", "line 2, column 1: ISL notation starts with '{' or a parameter list '['"},
		{"{ [" + strings.Repeat("a, ", 64) + "b] }", "column 194: more than 64 entries in one list"},
		{"{ [x] : exists (" + strings.Repeat("e, ", 64) + "f: x = e) }", "column 207: more than 64 entries in one list"},
		// What ISL's reader sees behind comments and continuation lines.
		{"{ [i] : i < 5 // #\n 0 }", "line 1, column 15: division by zero in \"// 0\""},
		{"{ [i] : i < 5 //\\\n0 }", "line 1, column 15: division by zero in \"//0\""},
		{"{ [i] : i < 5 # a comment \\\n still the comment\n // 0 }", "line 3, column 2: division by zero in \"// 0\""},
		{"{ [i] : i < 2 ^ #\n 100000000000000 }", "line 1, column 13: the power 2 ^ 100000000000000 is out of the 64-bit range"},
		{"{ [i] : i < 3 ^\\\n4000000000 }", "line 1, column 13: the power 3 ^4000000000 is out of the 64-bit range"},
		{"{ [i] : i < 1\\\n0000000000000000000 }", "line 1, column 13: the number 10000000000000000000 is out of the 64-bit range"},
		{"{ [x] : exists (# a comment\n" + strings.Repeat("e, ", 300) + "f: x = e) }", "line 2, column 191: more than 64 entries in one list"},
		{"{ [x] : x = " + strings.Repeat("(", 60000) + "x" + strings.Repeat(")", 60000) + " }", "column 76: brackets nested more than 64 deep"},
		{"{ " + strings.Repeat("[x] : x = 1; ", 1100) + "[x] }", "column 13313: more than 1024 pieces separated by ';'"},
	} {
		s, err := ctx.ReadSet(tc.text)
		s.Free()
		if err == nil || !strings.HasSuffix(err.Error(), tc.want) {
			t.Errorf("%.40q: got %v, want an error ending %q", tc.text, err, tc.want)
		}
	}
}
