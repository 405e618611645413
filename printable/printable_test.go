package printable

import "testing"

// TestCheck checks printable names, each kind of refusal and its offset.
func TestCheck(t *testing.T) {
	for in, want := range map[string]string{
		"star3d-r4": "", "déjà vu ✓": "", "": "",
		"a\x00":     "control character U+0000 at byte offset 1",
		"A100\x7f":  "control character U+007F at byte offset 4",
		"\u009fa":   "control character U+009F at byte offset 0",
		"ab\xff":    "invalid UTF-8 at byte offset 2",
		"é\xe9A100": "invalid UTF-8 at byte offset 2",
	} {
		if err := Check(in); (err == nil) != (want == "") || err != nil && err.Error() != want {
			t.Errorf("Check(%q) = %v, want %q", in, err, want)
		}
	}
}

// TestCutLine checks that a long line is cut after its last separator that
// fits, keeping the separator, and inside a word only when the first word
// alone is too long.
func TestCutLine(t *testing.T) {
	for _, c := range []struct {
		in    string
		limit int
		want  string
	}{
		{"short enough", 12, "short enough"},
		{"a.jscop:3:4: context: violated; more", 30, "a.jscop:3:4: context: …"},
		{"part one; part two; part three", 24, "part one; part two; …"},
		{"x, y, zebra", 9, "x, y, …"},
		{"alpha beta gamma", 14, "alpha beta …"},
		// The cut never ends inside "gamma": the limit falls in it.
		{"alpha beta gamma", 15, "alpha beta …"},
		{"supercalifragilistic", 8, "super…"},
		{"ééééé", 8, "éé…"}, // 2 bytes each: cut at a character boundary
		{"abc", 2, ""},
	} {
		got := CutLine(c.in, c.limit)
		if got != c.want || len(got) > c.limit {
			t.Errorf("CutLine(%q, %d) = %q, want %q", c.in, c.limit, got, c.want)
		}
	}
}
