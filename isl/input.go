package isl

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// maxLiteral is the largest integer literal the readers pass to ISL: 2^63,
// the magnitude of the most negative 64-bit integer, which Polly writes into
// its contexts. polyvol computes with 64-bit integers, so a larger constant
// could not describe a kernel it models; refusing it also keeps ISL's
// arbitrary-precision arithmetic from working on numbers of unbounded size.
const maxLiteral = "9223372036854775808"

// maxNesting bounds the depth of brackets, parentheses and braces: ISL's
// reader descends recursively on the C stack, which 60,000 nested
// parentheses overflow; a kernel's map nests a few levels.
const maxNesting = 64

// maxPieces bounds the pieces (separated by ";") of one text: ISL's reader
// and its simplifications grow faster than linearly with them (4,096
// pieces took the reader over 90 s). A kernel's map has a handful; the
// oracle tests' renderings of thread sets (package sets) have up to a few
// hundred.
const maxPieces = 1024

// maxTupleEntries bounds the entries of one tuple, parameter list or list of
// existential variables: ISL's cost grows with the dimensions of a space
// beyond any bound on its operations, and no kernel polyvol models (nor any
// Polly SCoP in practice) comes near it.
const maxTupleEntries = 64

// powerFits checks the power that ISL's reader makes of the literal
// str[start:end] when "^" and a literal exponent follow it, as often as
// they do (ISL reads "10^3" as 1000, "10^4000000000" as a number of four
// billion digits, and "11^1^4000000000" as 11^4000000000; it drops an
// exponent's sign). It returns the end of the power's text and false when
// the power exceeds 2^63 in magnitude.
func powerFits(str string, start, end int) (int, bool) {
	base, _ := strconv.ParseFloat(str[start:end], 64)
	bits := 0.0 // log2 of the power; 0 for a base of 0 or 1, whatever the exponents
	if base >= 2 {
		bits = math.Log2(base)
	}
	for {
		k := end
		for k < len(str) && isBlank(str[k]) {
			k++
		}
		if k == len(str) || str[k] != '^' {
			return end, true
		}
		k++
		for k < len(str) && (isBlank(str[k]) || str[k] == '-' || str[k] == '+') {
			k++
		}
		e := k
		for e < len(str) && isDigit(str[e]) {
			e++
		}
		if e == k {
			return e, true // no exponent: ISL's syntax error
		}
		if literalTooLarge(str[k:e]) {
			return e, false // an exponent ISL cannot hold, whatever the base
		}
		exp, _ := strconv.ParseFloat(str[k:e], 64) // digits of at most 2^63: no error
		if bits *= exp; bits > 63 {
			return e, false
		}
		end = e
	}
}

// isBlank reports whether c is white space to ISL's reader.
func isBlank(c byte) bool { return strings.IndexByte(" \t\r\n\v\f", c) >= 0 }

// literalTooLarge reports whether the decimal digits exceed maxLiteral.
func literalTooLarge(digits string) bool {
	digits = strings.TrimLeft(digits, "0")
	if len(digits) != len(maxLiteral) {
		return len(digits) > len(maxLiteral)
	}
	return digits > maxLiteral
}

// checkInput rejects, before ISL's reader op sees it, text that would make
// the reader fail in a way that is not an error return: libisl 0.25 folds
// "c // d" of two literals with an unchecked division, so "x < 5 // 0" kills
// the process with SIGFPE. It checks the text as ISL's reader sees it
// (logical: continuation lines joined, comments dropped), and refuses
//   - text that is not ISL notation ({ ... } or [params] -> { ... }): ISL
//     also reads PolyLib's matrix format, where "0 100000000" allocates a
//     space of 10^8 dimensions;
//   - lists (tuples, parameters, existential variables) of more than
//     maxTupleEntries entries, nesting deeper than maxNesting, and more
//     than maxPieces pieces;
//   - a literal zero divisor after "/", "//", "%" or "mod", even behind
//     signs and parentheses (ISL reports the other forms itself, but the
//     message here names the position);
//   - integer literals beyond 2^63 in magnitude, and powers ("10^4000")
//     beyond it, which ISL's reader computes in full;
//   - NUL bytes, at which the C string ISL reads would end early.
//
// The scan is lexical and deliberately conservative: it may refuse a zero
// divisor ISL would have rejected as a syntax error anyway, never the other
// way round. It is a fast path with positioned messages, not the defence:
// a program that reads untrusted text runs ISL in a worker process
// (package supervise).
func checkInput(str, op string) error {
	text, at := logical(str)
	refused := checkLogical(text)
	if refused == nil {
		return nil
	}
	off := refused.off
	switch {
	case at == nil:
	case off < len(at):
		off = at[off]
	default: // the end of the text
		off = len(str)
	}
	return inputError(op, str, off, refused.msg)
}

// inputErr is a refusal of checkLogical at byte offset off of the logical
// text.
type inputErr struct {
	off int
	msg string
}

// logical returns the text that ISL's reader reads from str, and for each
// of its bytes the offset in str it comes from (nil when the text is str
// itself). ISL joins a line that ends in a backslash with the next, before
// anything else (so inside a comment too), and skips a "#" comment to the
// end of its line; the comment becomes one blank here.
func logical(str string) (string, []int) {
	if !strings.ContainsAny(str, "#\\") {
		return str, nil
	}
	b := make([]byte, 0, len(str))
	at := make([]int, 0, len(str))
	comment := false
	for i := 0; i < len(str); i++ {
		c := str[i]
		switch {
		case c == '\\' && i+1 < len(str) && str[i+1] == '\n':
			i++
		case comment && c != '\n':
		case c == '#':
			comment = true
			b, at = append(b, ' '), append(at, i)
		default:
			comment = false
			b, at = append(b, c), append(at, i)
		}
	}
	return string(b), at
}

// checkLogical is checkInput on the logical text; it returns its refusal
// with an offset into str, or nil.
func checkLogical(str string) *inputErr {
	if i := len(str) - len(strings.TrimLeft(str, " \t\r\n\v\f")); i == len(str) || str[i] != '{' && str[i] != '[' {
		return &inputErr{i, "ISL notation starts with '{' or a parameter list '['"}
	}
	var tuples []int // entries so far of each open tuple, innermost last
	depth, pieces := 0, 1
	for i := 0; i < len(str); {
		c := str[i]
		switch {
		case c == 0:
			return &inputErr{i, "NUL byte in the input"}
		case c == '[' || c == '(' || c == '{':
			if depth++; depth > maxNesting {
				return &inputErr{i, fmt.Sprintf("brackets nested more than %d deep", maxNesting)}
			}
			if c != '{' {
				tuples = append(tuples, 1)
			}
			i++
		case c == '}':
			depth = max(depth-1, 0)
			i++
		case c == ';':
			if pieces++; pieces > maxPieces {
				return &inputErr{i, fmt.Sprintf("more than %d pieces separated by ';'", maxPieces)}
			}
			i++
		case c == ',' && len(tuples) > 0:
			if tuples[len(tuples)-1]++; tuples[len(tuples)-1] > maxTupleEntries {
				return &inputErr{i, fmt.Sprintf("more than %d entries in one list", maxTupleEntries)}
			}
			i++
		case (c == ']' || c == ')') && len(tuples) > 0:
			tuples = tuples[:len(tuples)-1]
			depth = max(depth-1, 0)
			i++
		case isIdentStart(c):
			j := i + 1
			for j < len(str) && isIdentChar(str[j]) {
				j++
			}
			if str[i:j] == "mod" {
				if err := checkDivisor(str, i, j); err != nil {
					return err
				}
			}
			i = j
		case isDigit(c):
			j := i + 1
			for j < len(str) && isDigit(str[j]) {
				j++
			}
			if literalTooLarge(str[i:j]) {
				return &inputErr{i, fmt.Sprintf("the number %s is out of the 64-bit range", abbreviate(str[i:j], "digits"))}
			}
			end, ok := powerFits(str, i, j)
			if !ok {
				return &inputErr{i, fmt.Sprintf("the power %s is out of the 64-bit range", abbreviate(str[i:end], "characters"))}
			}
			i = end
		case c == '/' || c == '%':
			j := i + 1
			if c == '/' && j < len(str) && str[j] == '/' {
				j++
			}
			if err := checkDivisor(str, i, j); err != nil {
				return err
			}
			i = j
		default:
			i++
		}
	}
	return nil
}

// checkDivisor returns a refusal when the operand that starts at
// str[end:], behind blanks, signs and opening parentheses, is a literal
// zero: the divisor of the operator at str[start:end].
func checkDivisor(str string, start, end int) *inputErr {
	j := end
	for j < len(str) && (isBlank(str[j]) || strings.IndexByte("+-(", str[j]) >= 0) {
		j++
	}
	k := j
	for k < len(str) && str[k] == '0' {
		k++
	}
	if k == j || k < len(str) && isDigit(str[k]) {
		return nil
	}
	return &inputErr{start, fmt.Sprintf("division by zero in %q", oneLine(str[start:k]))}
}

// inputError is the error of the reader op for text refused at byte offset
// off of str; it
// names the position as a column (and a line, for text of several lines),
// counted from 1.
func inputError(op, str string, off int, msg string) error {
	line := 1 + strings.Count(str[:off], "\n")
	col := off - strings.LastIndexByte(str[:off], '\n')
	where := fmt.Sprintf("column %d", col)
	if strings.Contains(str, "\n") {
		where = fmt.Sprintf("line %d, column %d", line, col)
	}
	return &Error{Op: op, Msg: where + ": " + msg}
}

// abbreviate shortens a long literal for a message, counting its length in
// unit, on one line.
func abbreviate(s, unit string) string {
	s = oneLine(s)
	if len(s) <= 24 {
		return s
	}
	return fmt.Sprintf("%s…%s (%d %s)", s[:10], s[len(s)-4:], len(s), unit)
}

// oneLine puts the text of an excerpt on one line, its blanks as one space.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func isDigit(c byte) bool      { return '0' <= c && c <= '9' }
func isIdentStart(c byte) bool { return c == '_' || 'a' <= c|0x20 && c|0x20 <= 'z' }

// isIdentChar reports whether c continues an identifier in ISL's notation,
// which allows primes and dollar signs after the first character.
func isIdentChar(c byte) bool { return isIdentStart(c) || isDigit(c) || c == '\'' || c == '$' }
