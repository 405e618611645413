package cli

import (
	"slices"
	"strings"
	"testing"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/examples"
	ucli "github.com/urfave/cli/v2"
)

// completions returns the candidates polyvol prints for a command line
// whose last word is the one being completed, as the scripts call it.
func completions(t *testing.T, words ...string) []string {
	t.Helper()
	out := mustRun(t, append(words, completionMarker)...)
	return strings.Fields(out)
}

// TestCompletionScripts checks that both scripts call polyvol with the marker.
func TestCompletionScripts(t *testing.T) {
	for _, sh := range []string{"bash", "zsh"} {
		if out := mustRun(t, "completion", sh); !strings.Contains(out, `"`+completionMarker) && !strings.Contains(out, " "+completionMarker) {
			t.Errorf("%s script does not call polyvol with %s:\n%s", sh, completionMarker, out)
		}
	}
}

// TestCompletion checks the candidates of each kind of word against the
// lists they come from: commands, flags, flag values and arguments.
func TestCompletion(t *testing.T) {
	var commandNames, deviceNames []string
	for _, c := range commands() {
		commandNames = append(commandNames, c.Name)
	}
	for _, d := range device.All() {
		deviceNames = append(deviceNames, d.Name)
	}
	cases := []struct {
		words []string
		want  []string
	}{
		{[]string{""}, commandNames},
		{[]string{"--"}, []string{"--cpuprofile", "--help", "--version"}},
		{[]string{"predict", "--device", ""}, deviceNames},
		{[]string{"explore", "star3d-r4", "--device", "A1"}, deviceNames},
		{[]string{"predict", "--format", ""}, []string{"table", "json", "csv"}},
		{[]string{"devices", "--format", ""}, []string{"table", "json"}},
		{[]string{"predict", "--method", ""}, []string{"exact", "reference"}},
		{[]string{"predict", "--model", ""}, modelNames()},
		{[]string{"devices", ""}, deviceNames},
		{[]string{"completion", ""}, []string{"bash", "zsh"}},
		{[]string{"predict", "--block", ""}, nil}, // no known values: the shell completes files
		{[]string{"merge", ""}, nil},
		{[]string{"nonsense", ""}, nil},
		{[]string{"import", ""}, []string{"jscop", "kerncraft"}},
		{[]string{"import", "jscop", ""}, nil}, // a file: the shell completes it
	}
	for _, spec := range []string{"predict", "explore", "layercond", "simulate", "cuda"} {
		cases = append(cases, struct {
			words []string
			want  []string
		}{[]string{spec, ""}, examples.Names()})
	}
	for _, tc := range cases {
		if got := completions(t, tc.words...); !slices.Equal(got, tc.want) {
			t.Errorf("completion of %q: got %v, want %v", tc.words, got, tc.want)
		}
	}
	flags := completions(t, "explore", "--dev")
	for _, want := range []string{"--device", "--device-file", "--format", "--help"} {
		if !slices.Contains(flags, want) {
			t.Errorf("flags of explore lack %s: %v", want, flags)
		}
	}
	if slices.Contains(flags, "star3d-r4") || slices.Contains(flags, "--version") {
		t.Errorf("flags of explore: %v", flags)
	}
	// A one-letter flag is offered as the command line takes it.
	if jscop := completions(t, "import", "jscop", "-"); !slices.Contains(jscop, "-D") || slices.Contains(jscop, "--D") || !slices.Contains(jscop, "--statement") {
		t.Errorf("flags of import jscop: %v", jscop)
	}
}

// TestFlagHelp checks that every flag taking a value names its value with a
// placeholder (urfave/cli prints "value" otherwise) and does not state a
// default that urfave/cli prints too.
func TestFlagHelp(t *testing.T) {
	for _, c := range commands() {
		for _, f := range c.Flags {
			df, ok := f.(ucli.DocGenerationFlag)
			if !ok || !df.TakesValue() {
				continue
			}
			usage := df.GetUsage()
			if strings.Count(usage, "`") < 2 {
				t.Errorf("%s --%s: usage %q names no `PLACEHOLDER`", c.Name, f.Names()[0], usage)
			}
			if strings.Contains(usage, "(default") && df.GetDefaultText() != "" {
				t.Errorf("%s --%s: usage %q states a default that urfave/cli prints again", c.Name, f.Names()[0], usage)
			}
		}
	}
	if got := completions(t, "simulate", "--l2-policy", ""); !slices.Equal(got, []string{"lru", "plru"}) {
		t.Errorf("simulate --l2-policy: %v", got)
	}
}
