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
