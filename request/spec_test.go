package request

import "testing"

// TestInputFormat checks how a SPEC's format is told from its name and its
// top-level keys.
func TestInputFormat(t *testing.T) {
	for _, c := range []struct {
		name, data, want string
	}{
		{"k.jscop", "", FormatJSCoP},
		{"dir/K.JSCOP", "", FormatJSCoP},
		{"kernel.jscop.interchanged", "not even JSON", FormatJSCoP},
		{"region", `{"context": "{ : }", "statements": [{"name": "S", "domain": "{ S[i] }"}]}`, FormatJSCoP},
		{"spec.json", `{"name": "s", "domain": [8], "fields": [{"name": "A", "statements": 1}]}`, ""},
		{"spec.json", `{"name": "s", "x": {"statements": [1, {"loops": 2}]}, "domain": [8]}`, ""},
		{"k.yml", "# a comment\ncode: |\n    for (i...)\narrays:\n    a: {type: double}\n\"data sources\":\n    a: [[i]]\n", FormatKerncraft},
		{"k.yml", "'loops':\n  - {index: i}\n", FormatKerncraft},
		{"spec.yaml", "name: s\ndomain: [8]\nfields:\n  - name: A\n    loops: 1\narrays: 2\n", ""},
		{"spec.yaml", "name: s\ndescription: |\n  loops: not a key\n", ""},
		{"empty", "", ""},
		{"", "name: s\nloops: 1\n", ""}, // an embedded example is never imported
	} {
		if got := InputFormat(c.name, []byte(c.data)); got != c.want {
			t.Errorf("InputFormat(%q, %.40q) = %q, want %q", c.name, c.data, got, c.want)
		}
	}
}
