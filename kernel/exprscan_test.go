package kernel

import (
	"fmt"
	"testing"
)

func TestScanExpr(t *testing.T) {
	powers := ExprSyntax{Newlines: true, Pairs: []string{"**", "//"}}
	for _, tc := range []struct {
		src    string
		syntax ExprSyntax
		want   string // kind:text@column, kinds as characters
	}{
		{"2*x1 + _y", ExprSyntax{}, `[n:2@1 *:*@2 i:x1@3 +:+@6 i:_y@8 \x00:end of expression@10]`},
		{"a**2//b", powers, `[i:a@1 p:**@2 n:2@4 p://@5 i:b@7 \x00:end of expression@8]`},
		{"a**2", ExprSyntax{}, `[i:a@1 *:*@2 *:*@3 n:2@4 \x00:end of expression@5]`},
		{"x\n+1", powers, `[i:x@1 +:+@3 n:1@4 \x00:end of expression@5]`},
		{"x\n+1", ExprSyntax{}, `[i:x@1 ?:` + "\n" + `@2 +:+@3 n:1@4 \x00:end of expression@5]`},
		{"é$.", ExprSyntax{}, `[?:é@1 ?:$@2 ?:.@3 \x00:end of expression@4]`},
		{"***", powers, `[p:**@1 *:*@3 \x00:end of expression@4]`},
		{"", ExprSyntax{}, `[\x00:end of expression@1]`},
	} {
		var got []string
		for _, tok := range ScanExpr(tc.src, tc.syntax) {
			kind := string(rune(tok.Kind))
			if tok.Kind == TokenEnd {
				kind = `\x00`
			}
			got = append(got, fmt.Sprintf("%s:%s@%d", kind, tok.Text, tok.Col))
		}
		if s := fmt.Sprint(got); s != tc.want {
			t.Errorf("ScanExpr(%q) = %s, want %s", tc.src, s, tc.want)
		}
	}
}

func TestFloatMark(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want []bool // FloatMark at each token but the end
	}{
		{"1.5", []bool{true, false, false}},
		{"1e5", []bool{true, false}},
		{"2E", []bool{true, false}},
		{"1 .5", []bool{false, false, false}},
		{"1 e", []bool{false, false}},
		{"1x", []bool{false, false}},
		{"x.", []bool{false, false}},
	} {
		toks := ScanExpr(tc.src, ExprSyntax{})
		for i, want := range tc.want {
			if got := FloatMark(toks, i); got != want {
				t.Errorf("%q: FloatMark at token %d (%q) = %v, want %v", tc.src, i, toks[i].Text, got, want)
			}
		}
		if FloatMark(toks, len(toks)-1) {
			t.Errorf("%q: the end of the expression is a float mark", tc.src)
		}
	}
}

func TestDescribe(t *testing.T) {
	toks := ScanExpr(`x"`, ExprSyntax{})
	for i, want := range []string{`"x"`, `"\""`, "end of expression"} {
		if got := toks[i].Describe(); got != want {
			t.Errorf("token %d: Describe = %s, want %s", i, got, want)
		}
	}
}
