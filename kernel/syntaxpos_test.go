package kernel

import (
	"strconv"
	"strings"
	"testing"
)

// TestSyntaxErrorPosition checks the positions of the syntax errors the YAML
// parser reports without a line, counted by hand: the first bracket nested
// deeper than the parser allows, and the text after a JSON object.
func TestSyntaxErrorPosition(t *testing.T) {
	for _, tc := range []struct {
		name, data string
		line, col  int
	}{
		// "fields: " is 8 characters; bracket 10001 is at column 8 + 10001.
		{"deep YAML", "name: x\nfields: " + strings.Repeat("[", 20000), 2, 10009},
		// Quoted brackets do not count.
		{"quoted brackets", "name: \"[[[\"\nfields: '{{{'\nx: " + strings.Repeat("{", 10001), 3, 10004},
		// `{"name": "x"}` is 13 characters, then a space.
		{"JSON and garbage", `{"name": "x"} garbage`, 1, 15},
		{"JSON and garbage on the next line", "{\"name\": \"x\"}\n\n  ]", 3, 3},
		{"no position", "name: [x", 0, 0},
	} {
		line, col := syntaxErrorPosition([]byte(tc.data))
		if line != tc.line || col != tc.col {
			t.Errorf("%s: %d:%d, want %d:%d", tc.name, line, col, tc.line, tc.col)
		}
		if tc.line == 0 {
			continue
		}
		_, err := Parse([]byte(tc.data), "f.yaml")
		if want := "f.yaml:" + strconv.Itoa(tc.line) + ":" + strconv.Itoa(tc.col) + ": syntax error"; err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: Parse error %v, want the prefix %q", tc.name, err, want)
		}
	}
}

// TestYAMLSyntaxErrorColumn checks that a YAML syntax error of a spec names
// the line and column where the parser found the problem, counted by hand.
func TestYAMLSyntaxErrorColumn(t *testing.T) {
	head := "name: s\ndomain: [64]\nflops: 1\nfields:\n"
	for _, tc := range []struct{ name, body, want string }{
		// Line 6 "   element: 8" is indented by 3 under a list item whose
		// keys are indented by 4: the key is at column 4.
		{"mis-indented key", "  - name: A\n   element: 8\n", "s.yaml:6:4: syntax error: did not find expected '-' indicator while parsing a block collection that starts at line 5, column 3"},
		// Line 7 "    load: [[x]]]": "[[x]]" is at columns 11 to 15.
		{"extra bracket", "  - name: A\n    element: 8\n    load: [[x]]]\n", "s.yaml:7:16: syntax error: did not find expected key while parsing a block mapping that starts at line 5, column 5"},
		{"tab indentation", "\t- name: A\n", "s.yaml:5:1: syntax error: found character that cannot start any token while scanning for the next token"},
		// Line 7 "    load: [[x, y]" leaves the outer sequence of column
		// 11 open until the end of the text, line 8.
		{"open sequence", "  - name: A\n    element: 8\n    load: [[x, y]\n", "s.yaml:8:1: syntax error: did not find expected ',' or ']' while parsing a flow sequence that starts at line 7, column 11"},
		{"NUL byte", "  - name: A\x00\n", "s.yaml:5:12: syntax error: control characters are not allowed"},
	} {
		_, err := Parse([]byte(head+tc.body), "s.yaml")
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}
