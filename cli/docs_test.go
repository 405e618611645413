package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The documents whose numbers TestDocsNumbers checks.
var checkedDocs = []string{"README.md", "docs/guide.md", "docs/layercond.md", "docs/json.md", "docs/method.md", "docs/devices.md"}

// checkMarker matches the comment that marks checked output in a document:
//
//	<!-- check -->            the next fenced block starts with "$ polyvol
//	                          ARGS" (continued by a trailing \) and its other
//	                          lines are lines of the output, in order
//	<!-- check: ARGS => "t1" "t2" -->
//	                          the output of polyvol ARGS contains each text
var checkMarker = regexp.MustCompile(`^<!-- check(?:: (.+?) => (.+))? -->$`)

// quoted matches one Go-quoted string.
var quoted = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)

// docCheck is one marked command of a document and what its output holds.
type docCheck struct {
	where string   // file:line of the marker
	args  []string // the command line after "polyvol"
	lines []string // output lines, in order (a marked block)
	texts []string // substrings of the output (a marker with =>)
}

// TestDocsNumbers runs every command line that a document marks with a
// check comment, in-process, and compares the output the document shows or
// quotes with what polyvol prints now, so that a number in the docs cannot
// go stale silently. Timings are never marked: they are measured.
func TestDocsNumbers(t *testing.T) {
	t.Chdir("..") // the documents' paths are relative to the repository root
	total := 0
	for _, doc := range checkedDocs {
		checks, err := readDocChecks(doc)
		if err != nil {
			t.Fatal(err)
		}
		total += len(checks)
		for _, c := range checks {
			out, stderr, code := run(t, c.args...)
			if code != ExitOK {
				t.Errorf("%s: polyvol %s: exit %d: %s", c.where, strings.Join(c.args, " "), code, stderr)
				continue
			}
			for _, text := range c.texts {
				if !strings.Contains(out, text) {
					t.Errorf("%s: the output of polyvol %s no longer contains %q", c.where, strings.Join(c.args, " "), text)
				}
			}
			if missing := missingLine(c.lines, strings.Split(out, "\n")); missing != "" {
				t.Errorf("%s: the output of polyvol %s no longer has the line\n%s\nnow:\n%s", c.where, strings.Join(c.args, " "), missing, out)
			}
		}
	}
	if total < 5 {
		t.Errorf("only %d checked commands in the docs; the markers were lost", total)
	}
}

// missingLine returns the first of want (compared without trailing spaces)
// that is not in got after the lines matched before it, or "".
func missingLine(want, got []string) string {
	j := 0
	for _, w := range want {
		w = strings.TrimRight(w, " ")
		for j < len(got) && strings.TrimRight(got[j], " ") != w {
			j++
		}
		if j == len(got) {
			return w
		}
		j++
	}
	return ""
}

// readDocChecks returns the marked commands of the document at path.
func readDocChecks(path string) ([]docCheck, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(string(data), "\n")
	var checks []docCheck
	for i := 0; i < len(lines); i++ {
		m := checkMarker.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		c := docCheck{where: filepath.Base(path) + ":" + strconv.Itoa(i+1)}
		if m[1] != "" {
			c.args = strings.Fields(m[1])
			for _, q := range quoted.FindAllString(m[2], -1) {
				text, err := strconv.Unquote(q)
				if err != nil {
					return nil, err
				}
				c.texts = append(c.texts, text)
			}
			checks = append(checks, c)
			continue
		}
		j := i + 1
		for j < len(lines) && strings.TrimSpace(lines[j]) == "" {
			j++
		}
		if j+1 >= len(lines) || !strings.HasPrefix(lines[j], "```") || !strings.HasPrefix(lines[j+1], "$ polyvol ") {
			return nil, &os.PathError{Op: "check marker", Path: c.where, Err: os.ErrInvalid}
		}
		j++
		command := strings.TrimPrefix(lines[j], "$ polyvol ")
		for strings.HasSuffix(command, `\`) && j+1 < len(lines) {
			j++
			command = strings.TrimSuffix(command, `\`) + " " + strings.TrimSpace(lines[j])
		}
		// A pipe into head or tail shows an excerpt, which the in-order
		// comparison of lines covers.
		command, _, _ = strings.Cut(command, " | ")
		c.args = strings.Fields(command)
		for j++; j < len(lines) && !strings.HasPrefix(lines[j], "```"); j++ {
			c.lines = append(c.lines, lines[j])
		}
		checks = append(checks, c)
		i = j
	}
	return checks, nil
}

// TestMissingLine checks the in-order comparison of a shown excerpt with
// an output on hand-made cases.
func TestMissingLine(t *testing.T) {
	got := []string{"a", "b  ", "c", "d"}
	for _, tc := range []struct {
		want    []string
		missing string
	}{
		{[]string{"a", "c"}, ""},
		{[]string{"b", "d"}, ""}, // trailing spaces do not count
		{[]string{"c", "a"}, "a"},
		{[]string{"a", "x"}, "x"},
		{nil, ""},
	} {
		if m := missingLine(tc.want, got); m != tc.missing {
			t.Errorf("missingLine(%q) = %q, want %q", tc.want, m, tc.missing)
		}
	}
}
