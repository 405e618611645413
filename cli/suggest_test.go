package cli

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestDidYouMean checks the suggestions for mistyped commands, flags, flag
// values and examples:
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
		{[]string{"predict", "star3d-r5"}, `spec "star3d-r5": no such file and no embedded example of that name; did you mean star3d-r1 or star3d-r4? (examples: `, ""},
		{[]string{"predict", "matmul"}, `spec "matmul": no such file and no embedded example of that name (examples: `, "did you mean"},
		{[]string{"predict", "star3d-r4", "--format", "jsno"}, `--format "jsno": expected one of table, json, csv; did you mean json?`, ""},
		{[]string{"explore", "star3d-r4", "--staging", "offf"}, `--staging "offf": expected one of on, off; did you mean off?`, ""},
		{[]string{"predict", "star3d-r4", "--format", "yaml"}, `--format "yaml": expected one of table, json, csv`, "did you mean"},
	} {
		stdout, stderr, code := run(t, tc.args...)
		lines := strings.Split(strings.TrimSpace(stderr), "\n")
		if code != ExitUsage || stdout != "" || len(lines) != 1 || !strings.HasPrefix(lines[0], "polyvol: ") ||
			!strings.Contains(stderr, tc.want) || tc.not != "" && strings.Contains(stderr, tc.not) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want one line with %q", tc.args, code, stdout, stderr, tc.want)
		}
	}
}

// TestNotesInJSON checks that predict's JSON carries the notes it prints on
// stderr, with their codes.
func TestNotesInJSON(t *testing.T) {
	stdout, stderr, code := run(t, "predict", "star2d-r1", "--block", "4,1,4", "--format", "json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var r struct {
		Notes []struct{ Code, Text string } `json:"notes"`
	}
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, n := range r.Notes {
		if !strings.Contains(stderr, "polyvol: note: "+n.Text) {
			t.Errorf("note %s %q is not on stderr %q", n.Code, n.Text, stderr)
		}
		found = found || n.Code == "idle-threads"
	}
	if !found {
		t.Errorf("notes %+v: no idle-threads note", r.Notes)
	}
}

// TestNumDigits checks the CSV number format: float noise is rounded away,
// integers stay exact, small and large values keep six digits.
func TestNumDigits(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
	}{{205.99999999999997, "206"}, {1608, "1608"}, {42.54296875, "42.543"}, {0.000123456789, "0.000123457"}, {1.5e20, "1.5e+20"}, {1.41, "1.41"}, {-0.5, "-0.5"}} {
		if got := num(tc.v); got != tc.want {
			t.Errorf("num(%v) = %q, want %q", tc.v, got, tc.want)
		}
	}
}

// TestTieNote checks the note on tied ranks: star3d-r4's two best
// configurations on the A100 have the same volumes and prediction.
func TestTieNote(t *testing.T) {
	_, stderr, code := run(t, "explore", "star3d-r4", "--top", "3")
	if code != ExitOK || !strings.Contains(stderr, "polyvol: note: ranks 1 to 2 tie at ") {
		t.Errorf("exit %d, stderr %q: want a note that ranks 1 and 2 tie", code, stderr)
	}
	_, stderr, _ = run(t, "explore", "vec-copy", "--threads", "256", "--folds", "1,1,1")
	if strings.Contains(stderr, " tie at ") {
		t.Errorf("vec-copy, one fold: stderr %q, want no tie note", stderr)
	}
}

// TestSimulateCompare checks simulate --compare: the JSON carries the
// estimate's volumes, whose L1 load equals the simulated one (both count
// the sectors the warps request, exactly), the table shows both, and the
// CSV, which has no place for them, refuses the flag.
func TestSimulateCompare(t *testing.T) {
	stdout, stderr, code := run(t, "simulate", "star2d-r1", "--domain", "256,256", "--compare", "--format", "json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var s struct {
		Derived   struct{ L1Load float64 }
		Predicted *struct{ L1Load, L2LoadV2 float64 }
	}
	if err := json.Unmarshal([]byte(stdout), &s); err != nil {
		t.Fatal(err)
	}
	if s.Predicted == nil || s.Predicted.L1Load != s.Derived.L1Load || !(s.Predicted.L2LoadV2 > 0) {
		t.Errorf("predicted %+v, simulated L1 load %v", s.Predicted, s.Derived.L1Load)
	}
	table, _, _ := run(t, "simulate", "star2d-r1", "--domain", "256,256", "--compare")
	if !strings.Contains(table, "against predict (method exact") || !strings.Contains(table, "predicted/simulated") {
		t.Errorf("table without the comparison:\n%s", table)
	}
	if _, stderr, code := run(t, "simulate", "star2d-r1", "--domain", "256,256", "--compare", "--format", "csv"); code != ExitUsage || !strings.Contains(stderr, "--compare") {
		t.Errorf("csv with --compare: exit %d, %q", code, stderr)
	}
	if _, stderr, _ := run(t, "simulate", "star2d-r1", "--domain", "256,256", "--block", "4,1,4"); !strings.Contains(stderr, "polyvol: note: ") {
		t.Errorf("simulate with idle threads: no note in %q", stderr)
	}
}

// TestHelpFitsEightyColumns checks that the help of polyvol and of every
// command and subcommand fits a terminal of 80 columns.
func TestHelpFitsEightyColumns(t *testing.T) {
	pages := [][]string{{"--help"}}
	for _, c := range newApp(nil, nil, nil).Commands {
		pages = append(pages, []string{c.Name, "--help"})
		for _, sub := range c.Subcommands {
			pages = append(pages, []string{c.Name, sub.Name, "--help"})
		}
	}
	for _, args := range pages {
		stdout, _, _ := run(t, args...)
		if stdout == "" {
			t.Errorf("%v: no help", args)
		}
		for i, line := range strings.Split(stdout, "\n") {
			if n := utf8.RuneCountInString(line); n > helpWidth {
				t.Errorf("%v line %d: %d columns: %q", args, i+1, n, line)
			}
		}
	}
}
