package kernel

import (
	"slices"
	"strconv"
	"strings"
)

// ExprToken is one token of an integer expression as ScanExpr splits it.
type ExprToken struct {
	Kind byte   // TokenInt, TokenName, TokenPair, TokenEnd, TokenOther, or the operator
	Text string // the token's characters ("end of expression" for TokenEnd)
	Col  int    // the 1-based column (in characters) of its first character
}

// The kinds of ExprToken besides the operators.
const (
	TokenEnd   = 0   // the end of the text
	TokenInt   = 'n' // a run of decimal digits
	TokenName  = 'i' // a letter or '_', then letters, digits and '_'
	TokenPair  = 'p' // one of ExprSyntax.Pairs, which Text names
	TokenOther = '?' // one character that starts no token
)

// ExprSyntax says how ScanExpr splits a text, where the dialects of
// expressions differ.
type ExprSyntax struct {
	Newlines bool     // '\n' and '\r' separate tokens as ' ' and '\t' do
	Pairs    []string // two-character operators such as "**", scanned as one token
}

// ScanExpr splits src into names, runs of digits, the operators of
// "+-*/%()" and syntax.Pairs, and single characters that start none of
// these (TokenOther, for the caller to report), ending with a TokenEnd at
// the column after the text. It never fails: what a dialect refuses, it
// refuses in the tokens.
func ScanExpr(src string, syntax ExprSyntax) []ExprToken {
	runes := []rune(src)
	var toks []ExprToken
	for i := 0; i < len(runes); {
		r, col := runes[i], i+1
		j := i + 1
		kind := byte(TokenOther)
		switch {
		case r == ' ' || r == '\t' || syntax.Newlines && (r == '\n' || r == '\r'):
			i++
			continue
		case isDigit(r):
			for kind = TokenInt; j < len(runes) && isDigit(runes[j]); j++ {
			}
		case isIdentRune(r):
			for kind = TokenName; j < len(runes) && (isIdentRune(runes[j]) || isDigit(runes[j])); j++ {
			}
		case j < len(runes) && slices.Contains(syntax.Pairs, string(runes[i:j+1])):
			kind, j = TokenPair, j+1
		case strings.ContainsRune("+-*/%()", r):
			kind = byte(r)
		}
		toks = append(toks, ExprToken{kind, string(runes[i:j]), col})
		i = j
	}
	return append(toks, ExprToken{TokenEnd, "end of expression", len(runes) + 1})
}

// Describe returns t as an error message names it: quoted, or "end of
// expression".
func (t ExprToken) Describe() string {
	if t.Kind == TokenEnd {
		return t.Text
	}
	return strconv.Quote(t.Text)
}

// FloatMark reports whether toks[i] is a run of digits directly followed
// by the '.' or the exponent of a floating-point number.
func FloatMark(toks []ExprToken, i int) bool {
	t := toks[i]
	if t.Kind != TokenInt || i+1 == len(toks) {
		return false
	}
	next := toks[i+1]
	adjacent := next.Col == t.Col+len(t.Text)
	return adjacent && (next.Kind == TokenOther && next.Text == "." || next.Kind == TokenName && strings.ContainsRune("eE", rune(next.Text[0])))
}

func isDigit(r rune) bool { return r >= '0' && r <= '9' }
