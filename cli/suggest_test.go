package cli

import (
	"strings"
	"testing"
)

// TestDidYouMean checks the suggestions for mistyped commands and flags:
// a typo finds its word, a word like nothing gets no suggestion, and each
// is a one-line user error.
func TestDidYouMean(t *testing.T) {
	for _, tc := range []struct {
		args      []string
		want, not string
	}{
		{[]string{"predct", "star3d-r4"}, `unknown command "predct"; did you mean predict?`, ""},
		{[]string{"explroe"}, "did you mean explore?", ""},
		{[]string{"banana"}, `unknown command "banana" (commands: `, "did you mean"},
		{[]string{"predict", "star3d-r4", "--devcie", "A100"}, "-devcie; did you mean --device?", ""},
		{[]string{"explore", "star3d-r4", "--thread", "512"}, "did you mean --threads?", ""},
		{[]string{"predict", "star3d-r4", "-X", "3"}, "flag provided but not defined: -X", "did you mean"},
	} {
		stdout, stderr, code := run(t, tc.args...)
		lines := strings.Split(strings.TrimSpace(stderr), "\n")
		if code != ExitUsage || stdout != "" || len(lines) != 1 || !strings.HasPrefix(lines[0], "polyvol: ") ||
			!strings.Contains(stderr, tc.want) || tc.not != "" && strings.Contains(stderr, tc.not) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want one line with %q", tc.args, code, stdout, stderr, tc.want)
		}
	}
}
