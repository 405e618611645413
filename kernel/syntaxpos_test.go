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
