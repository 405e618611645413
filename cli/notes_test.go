package cli

import (
	"encoding/json"
	"github.com/polyvol/polyvol/request"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/polyvol/polyvol/examples"
	"github.com/polyvol/polyvol/kernel"
)

// TestNotes checks that each suspicious input gets its one-line note on
// stderr while the command still succeeds, and that the examples as shipped
// get none of these notes.
func TestNotes(t *testing.T) {
	far := filepath.Join(t.TempDir(), "far.yaml")
	spec := "name: far\ndomain: [64]\nfields:\n  - name: A\n    element: 8\n    extent: [10]\n    load: [[x + 100]]\n  - name: B\n    element: 8\n    extent: [64]\n    store: [[x]]\n"
	if err := os.WriteFile(far, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"predict", "star3d-r4", "--block", "32,1,1", "--block", "64,4,1"}, "--block given 2 times; the last value, 64,4,1, counts"},
		{[]string{"predict", "star3d-r4", "--block=32,1,1", "--format", "csv", "--block", "64"}, "--block given 2 times; the last value, 64, counts"},
		// Range 4 in z on a domain of width 1 there.
		{[]string{"predict", "star3d-r4", "--domain", "10,10", "--block", "16,16,1"}, "the domain's width in z is 1, but the accesses reach 4 beyond"},
		{[]string{"simulate", "star2d-r1", "--domain", "64,64,8", "--block", "64,1,1"}, "no access depends on z, but the domain's width in z is 8"},
		{[]string{"cuda", "vec-copy", "--domain", "64,8", "--block", "64"}, "no access depends on y"},
		// x + 100 on x < 64 spans 100..163, past the extent 10 by more than 10.
		{[]string{"predict", far, "--block", "64"}, `field "A" access [x + 100]: its x index spans 100 to 163, a whole extent (10) or more outside the array`},
	} {
		stdout, stderr, code := run(t, tc.args...)
		if code != ExitOK || stdout == "" {
			t.Errorf("%v: exit %d, stdout %q", tc.args, code, stdout)
		}
		if !strings.Contains(stderr, notePrefix+tc.want) {
			t.Errorf("%v: stderr lacks the note %q:\n%s", tc.args, tc.want, stderr)
		}
	}
	for _, name := range examples.Names() {
		k, _, err := request.Spec{Example: name}.Load()
		if err != nil {
			t.Fatal(err)
		}
		if notes := kernel.Lint(k); len(notes) > 0 {
			t.Errorf("example %s gets notes: %q", name, notes)
		}
	}
}

// TestKernelNotesInJSON checks that predict's JSON lists the notes on the kernel
// (kernel.Lint) with their codes before the launch's, and that stderr
// still gives each note once: the launch's at once, the kernel's after the
// command.
func TestKernelNotesInJSON(t *testing.T) {
	stdout, stderr, code := run(t, "predict", "star2d-r1", "--domain", "64,64,8", "--block", "64,1,1", "--format", "json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var r struct{ Notes []kernel.Note }
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Notes) == 0 || r.Notes[0].Code != kernel.NoteUnusedDimension || !strings.HasPrefix(r.Notes[0].Text, "no access depends on z, but the domain's width in z is 8") {
		t.Fatalf("notes %+v, want the unused z dimension first", r.Notes)
	}
	for _, n := range r.Notes {
		if c := strings.Count(stderr, notePrefix+n.Text+"\n"); c != 1 {
			t.Errorf("note %q on stderr %d times, want once:\n%s", n.Text, c, stderr)
		}
	}
	if !strings.HasSuffix(stderr, notePrefix+r.Notes[0].Text+"\n") {
		t.Errorf("the kernel's note does not close stderr:\n%s", stderr)
	}
}

// TestNotesRepeatableFlags checks that flags which collect every value get
// no note when repeated.
func TestNotesRepeatableFlags(t *testing.T) {
	_, stderr, code := run(t, "layercond", "--block", "1024,1,1", "--block", "256,1,4", "--sweep", "256")
	if code != ExitOK || strings.Contains(stderr, "given 2 times") {
		t.Errorf("layercond with two --block: exit %d, stderr %q", code, stderr)
	}
	_, stderr, code = run(t, "devices", "--device-file", "../examples/devices/a100-80mb-l2.yaml", "--device-file", "../examples/devices/a100-80mb-l2.yaml")
	if strings.Contains(stderr, "given 2 times") {
		t.Errorf("devices with two --device-file: exit %d, stderr %q", code, stderr)
	}
}

// TestNotesNotOnError checks that a failing command prints its error alone.
func TestNotesNotOnError(t *testing.T) {
	_, stderr, code := run(t, "predict", "star3d-r4", "--block", "32,1,1", "--block", "2048")
	if code != ExitUsage || strings.Count(stderr, "\n") != 1 || strings.Contains(stderr, "note") {
		t.Errorf("exit %d, stderr %q; want one error line", code, stderr)
	}
}
