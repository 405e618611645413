package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/polyvol/polyvol/request"
)

// TestVersion checks that --version, -v and the version command print the
// release and the commit (unknown in a test binary, which go test does not
// stamp with a revision).
func TestVersion(t *testing.T) {
	want := "polyvol version " + request.Version + " (commit unknown)\n"
	for _, args := range [][]string{{"--version"}, {"-v"}, {"version"}} {
		if out := mustRun(t, args...); out != want {
			t.Errorf("%v printed %q, want %q", args, out, want)
		}
	}
}

// TestHelpExitCodes checks that polyvol --help lists the exit codes and the
// meaning of "-", as docs/guide.md does.
func TestHelpExitCodes(t *testing.T) {
	out := mustRun(t, "--help")
	for _, want := range []string{"Exit codes: 0 success; 1 internal failure", "2 user error", `"polyvol: note:"`, `"-" marks a`} {
		if !strings.Contains(out, want) {
			t.Errorf("polyvol --help lacks %q", want)
		}
	}
}

// TestCountNoun checks the plurals of explore's summary line.
func TestCountNoun(t *testing.T) {
	if got := request.CountNoun(1, "fold") + ", " + request.CountNoun(3, "fold"); got != "1 fold, 3 folds" {
		t.Errorf("got %q", got)
	}
	if out := mustRun(t, "explore", "vec-copy", "--domain", "4096", "--folds", "1,1,1", "--top", "1"); !strings.Contains(out, "threads per block, 1 fold)") {
		t.Errorf("explore with one fold:\n%s", out)
	}
}

// TestJSONVersionKeys checks that report JSON starts with the schema and
// polyvol versions, that device JSON (a device file) has none, and that
// "<=" is not escaped.
func TestJSONVersionKeys(t *testing.T) {
	for _, args := range [][]string{
		{"predict", "vec-copy", "--format", "json"},
		{"layercond", "star3d-r4", "--format", "json"},
		{"simulate", "vec-copy", "--domain", "64,8,1", "--format", "json"},
	} {
		out := mustRun(t, args...)
		wantHead := "{\n  \"schemaVersion\": 3,\n  \"polyvolVersion\": \"" + request.Version + " (commit unknown)\",\n  \""
		if !strings.HasPrefix(out, wantHead) {
			t.Errorf("%v: JSON does not start with the version keys:\n%.200s", args, out)
		}
		if strings.Contains(out, `\u003c`) {
			t.Errorf("%v: JSON escapes <", args)
		}
	}
	var dev map[string]any
	if err := json.Unmarshal([]byte(mustRun(t, "devices", "V100", "--format", "json")), &dev); err != nil {
		t.Fatal(err)
	}
	if _, ok := dev["schemaVersion"]; ok {
		t.Error("device JSON, a device file, carries schemaVersion")
	}
}

// TestMergeSchemaVersion checks that merge refuses a shard of another JSON
// schema version.
func TestMergeSchemaVersion(t *testing.T) {
	shard := mustRun(t, "explore", "vec-copy", "--domain", "64,8,1", "--shard", "1/1", "--format", "json")
	path := filepath.Join(t.TempDir(), "shard.json")
	if err := os.WriteFile(path, []byte(strings.Replace(shard, `"schemaVersion": 3`, `"schemaVersion": 99`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := run(t, "merge", path)
	if code != ExitUsage || !strings.Contains(stderr, "schemaVersion 99") {
		t.Errorf("merge of a schema-99 shard: exit %d, %s", code, stderr)
	}
}
