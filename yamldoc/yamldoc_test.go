package yamldoc

import (
	"errors"
	"testing"
)

// TestOne checks that one document decodes and that a second one, or text
// after a JSON object, is an error naming its line and column.
func TestOne(t *testing.T) {
	for _, tc := range []struct {
		data, err string
	}{
		{"a: 1\n", ""},
		{"", ""},
		{"# only a comment\n", ""},
		{"a: 1\n---\nb: 2\n", "yaml: line 2, column 1: a file is one YAML or JSON document, but another starts here"},
		{"a: 1\n---\n", "yaml: line 2, column 1: a file is one YAML or JSON document, but another starts here"},
		{`{"a": 1} garbage`, "yaml: line 1, column 10: did not find expected <document start>"},
		{"a: [1\n", "yaml: line 2, column 1: did not find expected ',' or ']' while parsing a flow sequence that starts at line 1, column 4"},
	} {
		doc, err := One([]byte(tc.data), "a file")
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%q: %v", tc.data, err)
		case tc.err != "" && (err == nil || err.Error() != tc.err):
			t.Errorf("%q: error %v, want %q", tc.data, err, tc.err)
		case tc.data == "a: 1\n" && (len(doc.Content) != 1 || len(doc.Content[0].Content) != 2 || doc.Content[0].Content[1].Value != "1"):
			t.Errorf("%q: decoded %+v", tc.data, doc)
		}
	}
}

// TestSyntaxErrorPosition checks the line and column of syntax errors of
// the scanner, the parser and the reader, counted by hand: the character
// the problem is at, the end of the text for a construct left open, and
// columns in characters (é is one, a tab is one).
func TestSyntaxErrorPosition(t *testing.T) {
	for _, tc := range []struct {
		name, data   string
		line, column int
		msg          string
	}{
		// Line 6 is "   element: 8": the key is indented by 3, under a
		// list item whose keys are indented by 4.
		{"mis-indented key", "name: x\ndomain: [10]\nflops: 1\nfields:\n  - name: A\n   element: 8\n", 6, 4,
			"did not find expected '-' indicator while parsing a block collection that starts at line 5, column 3"},
		{"tab indentation", "name: x\nfields:\n\t- name: A\n", 3, 1, "found character that cannot start any token while scanning for the next token"},
		// "b: c: d": the second ':' is the fifth character.
		{"nested mapping on one line", "a: 1\nb: c: d\n", 2, 5, "mapping values are not allowed in this context"},
		{"flow sequence left open", "name: x\ndomain: [1024\n", 3, 1, "did not find expected ',' or ']' while parsing a flow sequence that starts at line 2, column 9"},
		{"quoted scalar left open", "a: 'abc\n", 2, 1, "found unexpected end of stream while scanning a quoted scalar that starts at line 1, column 4"},
		// "      - [x]]": six blanks, "- [x]" at columns 7 to 11, the
		// extra ']' at 12.
		{"extra bracket", "fields:\n  - load:\n      - [x]]\n", 3, 12, "did not find expected '-' indicator while parsing a block collection that starts at line 3, column 7"},
		{"extra bracket after é", "é: [x]]\n", 1, 7, "did not find expected key while parsing a block mapping that starts at line 1, column 1"},
		{"tab before the problem", "a:\t[1]]\n", 1, 7, "did not find expected key while parsing a block mapping that starts at line 1, column 1"},
		{"NUL byte", "a: 1\nb: 2\x00\n", 2, 5, "control characters are not allowed"},
		{"control character after é", "é: \"x\x01\"\n", 1, 6, "control characters are not allowed"},
		{"invalid UTF-8", "a: 1\nbb: \xff\n", 2, 5, "invalid leading UTF-8 octet"},
	} {
		_, err := One([]byte(tc.data), "a file")
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("%s: error %v (%T), want a *SyntaxError", tc.name, err, err)
			continue
		}
		if se.Line != tc.line || se.Column != tc.column || se.Msg != tc.msg {
			t.Errorf("%s: %d:%d %q, want %d:%d %q", tc.name, se.Line, se.Column, se.Msg, tc.line, tc.column, tc.msg)
		}
		if _, err := First([]byte(tc.data)); err == nil || err.Error() != se.Error() {
			t.Errorf("%s: First gives %v, One %v", tc.name, err, se)
		}
	}
}

// TestFirst checks that First decodes the first document and ignores the
// text after it, like yaml.Unmarshal, and that its other errors stay the
// parser's.
func TestFirst(t *testing.T) {
	doc, err := First([]byte("a: 1\n---\nb: [\n"))
	if err != nil || len(doc.Content) != 1 || doc.Content[0].Content[0].Value != "a" {
		t.Errorf("First: %+v, %v", doc, err)
	}
	if doc, err := First(nil); err != nil || len(doc.Content) != 0 {
		t.Errorf("First(nil): %+v, %v", doc, err)
	}
	_, err = First([]byte("a: *x\n"))
	var se *SyntaxError
	if err == nil || errors.As(err, &se) || err.Error() != "yaml: unknown anchor 'x' referenced" {
		t.Errorf("unknown anchor: %v (%T), want the parser's error", err, err)
	}
}
