package cli

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// update rewrites the golden files under testdata/golden (go test ./cli
// -run Golden -update) and the outputs the docs show (go test ./cli -run
// TestDocs -update) from the current output. Review the diff before
// committing: golden files guard against regressions, they are not oracles.
var update = flag.Bool("update", false, "rewrite testdata/golden and the outputs the docs show from the current output")

// run executes the command line in-process and returns its stdout, stderr
// and exit code.
func run(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = Run(append([]string{"polyvol"}, args...), &out, &errOut)
	return out.String(), errOut.String(), code
}

// mustRun runs the command line and fails the test unless it exits 0.
func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	out, errOut, code := run(t, args...)
	if code != ExitOK {
		t.Fatalf("polyvol %s: exit %d, stderr %q", strings.Join(args, " "), code, errOut)
	}
	return out
}

// checkGolden compares got with testdata/golden/name, or rewrites the file
// with -update.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./cli -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (go test ./cli -update rewrites it; review the diff):\n%s", path, firstDiff(string(want), got))
	}
}

// firstDiff describes the first line where want and got differ.
func firstDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range max(len(wl), len(gl)) {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return "line " + strconv.Itoa(i+1) + ":\n  want " + w + "\n  got  " + g
		}
	}
	return "(no line differs)"
}
