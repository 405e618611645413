package yamldoc

import "testing"

// TestOne checks that one document decodes and that a second one, or text
// after a JSON object, is an error naming its line where the parser gives
// one.
func TestOne(t *testing.T) {
	for _, tc := range []struct {
		data, err string
	}{
		{"a: 1\n", ""},
		{"", ""},
		{"# only a comment\n", ""},
		{"a: 1\n---\nb: 2\n", "yaml: line 2: a file is one YAML or JSON document, but another starts here"},
		{"a: 1\n---\n", "yaml: line 2: a file is one YAML or JSON document, but another starts here"},
		{`{"a": 1} garbage`, "yaml: did not find expected <document start>"},
		{"a: [1\n", "yaml: line 1: did not find expected ',' or ']'"},
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
