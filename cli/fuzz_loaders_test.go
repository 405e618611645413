package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/polyvol/polyvol/request"
)

// addCorpusFiles adds the hostile corpus files whose names start with
// prefix as seeds of f.
func addCorpusFiles(f *testing.F, prefix string) {
	paths, err := filepath.Glob(filepath.Join(hostileDir, prefix+"*"))
	if err != nil || len(paths) == 0 {
		f.Fatalf("no %s* files in %s: %v", prefix, hostileDir, err)
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
}

// writeFuzzFile writes data to a file named name in a scratch directory.
func writeFuzzFile(t *testing.T, name string, data []byte) string {
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// checkOneLineUsage fails unless err is a usage error whose message Run
// prints on one line.
func checkOneLineUsage(t *testing.T, what string, err error) {
	t.Helper()
	if _, ok := err.(*UsageError); !ok {
		t.Fatalf("%s: error %T is not a usage error: %v", what, err, err)
	}
	if line := request.Line(err); strings.Contains(line, "\n") || len(line) > request.MaxLine {
		t.Fatalf("%s: error is not one line of at most %d characters: %q", what, request.MaxLine, line)
	}
}

// FuzzProjectProfile runs project on an arbitrary profile file, as a
// table and as JSON (which has no infinities): exit 0 with output or 2
// with one line, never 1 or a panic.
func FuzzProjectProfile(f *testing.F) {
	addCorpusFiles(f, "profile-")
	data, err := os.ReadFile("../examples/profiles/star3d-r4-a100-illustrative.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Fuzz(func(t *testing.T, data []byte) {
		path := writeFuzzFile(t, "profile.json", data)
		out, errOut, code := run(t, "project", "--profile", path, "--from", "A100-40GB", "--to", "H100-SXM")
		checkFuzzRun(t, "project", code, out, errOut)
		out, errOut, code = run(t, "project", "--profile", path, "--from", "A100-40GB", "--to", "H100-SXM", "--format", "json")
		checkFuzzRun(t, "project --format json", code, out, errOut)
	})
}

// FuzzDeviceFile predicts vec-copy on an arbitrary device file: exit 0
// with output or 2 with one line, never 1 or a panic.
func FuzzDeviceFile(f *testing.F) {
	addCorpusFiles(f, "device-")
	f.Fuzz(func(t *testing.T, data []byte) {
		path := writeFuzzFile(t, "device.yaml", data)
		out, errOut, code := run(t, "predict", "vec-copy", "--device-file", path, "--format", "csv")
		checkFuzzRun(t, "predict --device-file", code, out, errOut)
	})
}

// checkFuzzRun checks the outcome of one fuzzed command line.
func checkFuzzRun(t *testing.T, what string, code int, out, errOut string) {
	t.Helper()
	switch code {
	case ExitOK:
		if out == "" {
			t.Fatalf("%s: exit 0 without output", what)
		}
	case ExitUsage:
		if out != "" || strings.Count(errOut, "\n") != 1 {
			t.Fatalf("%s: usage error is not one line after no output: stdout %d bytes, stderr %q", what, len(out), errOut)
		}
		if strings.Contains(what, "--format json") { // the error as one JSON object
			var e struct{ Kind, Message string }
			if err := json.Unmarshal([]byte(errOut), &e); err != nil || e.Kind == "" || e.Message == "" || len(e.Message) > request.MaxLine {
				t.Fatalf("%s: usage error is not a JSON object with a kind and a message of at most %d characters: %q", what, request.MaxLine, errOut)
			}
		} else if !strings.HasPrefix(errOut, "polyvol: ") || len(errOut) > request.MaxLine+1 {
			t.Fatalf("%s: usage error is not one line of at most %d characters: %q", what, request.MaxLine, errOut)
		}
	default:
		t.Fatalf("%s: exit %d, stderr %q", what, code, errOut)
	}
}
