package cli

import (
	"os"
	"strings"
	"testing"
)

// TestCompletion checks the scripts and the completion of SPEC arguments.
func TestCompletion(t *testing.T) {
	for _, sh := range []string{"bash", "zsh"} {
		if out := mustRun(t, "completion", sh); !strings.Contains(out, "--generate-bash-completion") || !strings.Contains(out, "polyvol") {
			t.Errorf("%s script:\n%s", sh, out)
		}
	}
	// Completion reads the word being completed from os.Args, as urfave/cli
	// does; set it as the completion scripts would.
	complete := func(args ...string) string {
		saved := os.Args
		defer func() { os.Args = saved }()
		os.Args = append([]string{"polyvol"}, args...)
		return mustRun(t, args...)
	}
	if out := complete("predict", "--generate-bash-completion"); !strings.Contains(out, "star3d-r4\n") || strings.Contains(out, "--device") {
		t.Errorf("SPEC completion should list the examples only:\n%s", out)
	}
	if out := complete("explore", "--dev", "--generate-bash-completion"); !strings.Contains(out, "--device\n") || strings.Contains(out, "star3d-r4") {
		t.Errorf("flag completion should list the flags only:\n%s", out)
	}
}
