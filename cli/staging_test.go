package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/polyvol/polyvol/explore"
	"github.com/polyvol/polyvol/request"
)

// stagedSweep explores the staged 7-point stencil on a small domain.
var stagedSweep = []string{"explore", "star3d-r1-staged", "--domain", "32,32,32", "--threads", "32", "--folds", "1,1,1", "--tiles", "consecutive"}

// TestExploreStaging checks explore --staging: on alone (the default)
// tries every configuration staged; on,off tries each twice, and the
// unstaged launches predict exactly what the same launches of star3d-r1,
// the spec without the stage key, predict; shards of a sweep over both
// merge into the unsharded output; a kernel without staged fields ignores
// the choice, and a choice given twice is a usage error.
func TestExploreStaging(t *testing.T) {
	decode := func(args ...string) *request.Exploration {
		t.Helper()
		var e request.Exploration
		if err := json.Unmarshal([]byte(mustRun(t, append(args, "--format", "json")...)), &e); err != nil {
			t.Fatal(err)
		}
		return &e
	}
	staged := decode(stagedSweep...)
	both := decode(append(stagedSweep, "--staging", "on,off")...)
	plain := decode(append([]string{"explore", "star3d-r1"}, stagedSweep[2:]...)...)
	if staged.Unstaged != nil || len(both.Unstaged) != 2 || both.Configurations != 2*staged.Configurations || both.Configurations != 2*plain.Configurations {
		t.Fatalf("configurations: staged %d (%v), on,off %d (%v), plain %d", staged.Configurations, staged.Unstaged, both.Configurations, both.Unstaged, plain.Configurations)
	}
	glups := map[explore.Configuration]float64{}
	for _, r := range plain.Rows {
		glups[explore.ReportConfiguration(r)] = r.Prediction.GLups
	}
	var on, off int
	for _, r := range both.Rows {
		c := explore.ReportConfiguration(r)
		if !c.Unstaged {
			on++
			continue
		}
		off++
		c.Unstaged = false
		if want, ok := glups[c]; !ok || r.Prediction.GLups != want {
			t.Errorf("%v unstaged: %v GLup/s; star3d-r1 predicts %v", c, r.Prediction.GLups, want)
		}
	}
	if on != len(staged.Rows) || off != len(plain.Rows) {
		t.Errorf("%d staged and %d unstaged rows; want %d and %d", on, off, len(staged.Rows), len(plain.Rows))
	}
	if table := mustRun(t, append(stagedSweep, "--staging", "on,off", "--top", "0")...); !strings.Contains(table, "consecutive unstaged") {
		t.Errorf("the table does not mark unstaged rows:\n%.600s", table)
	}

	dir := t.TempDir()
	want := mustRun(t, append(stagedSweep, "--staging", "on,off", "--format", "json")...)
	var files []string
	for _, k := range []string{"1/2", "2/2"} {
		path := filepath.Join(dir, strings.ReplaceAll(k, "/", "of")+".json")
		if err := os.WriteFile(path, []byte(mustRun(t, append(stagedSweep, "--staging", "on,off", "--format", "json", "--shard", k)...)), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, path)
	}
	if got := mustRun(t, append([]string{"merge"}, files...)...); got != want {
		t.Errorf("merged shards differ from the unsharded sweep:\n%s", firstDiff(want, got))
	}

	copyAll := decode("explore", "vec-copy", "--domain", "65536", "--threads", "256", "--folds", "1,1,1", "--staging", "on,off")
	copyOn := decode("explore", "vec-copy", "--domain", "65536", "--threads", "256", "--folds", "1,1,1")
	if copyAll.Unstaged != nil || copyAll.Configurations != copyOn.Configurations {
		t.Errorf("vec-copy with --staging on,off: %d configurations (%v); without: %d", copyAll.Configurations, copyAll.Unstaged, copyOn.Configurations)
	}
	if _, stderr, code := run(t, append(stagedSweep, "--staging", "off,off")...); code != 2 || !strings.HasPrefix(stderr, "polyvol: --staging") {
		t.Errorf("--staging off,off: exit %d, %q", code, stderr)
	}
	if _, stderr, code := run(t, append(stagedSweep, "--staging", "maybe")...); code != 2 || !strings.Contains(stderr, "staging") {
		t.Errorf("--staging maybe: exit %d, %q", code, stderr)
	}
}

// TestPredictUnstaged: predict --unstaged on a staged example gives the
// report of the same spec without the stage key, but for the unstaged flag
// of its launch; without --unstaged the staged report has a shared bound.
func TestPredictUnstaged(t *testing.T) {
	args := []string{"--block", "32,4,2", "--domain", "128,64,32", "--format", "json"}
	var staged, unstaged, plain struct {
		Kernel string
		Launch map[string]any
		Derived,
		Prediction map[string]any
	}
	for _, c := range []struct {
		v    any
		args []string
	}{
		{&staged, append([]string{"predict", "star3d-r1-staged"}, args...)},
		{&unstaged, append([]string{"predict", "star3d-r1-staged", "--unstaged"}, args...)},
		{&plain, append([]string{"predict", "star3d-r1"}, args...)},
	} {
		if err := json.Unmarshal([]byte(mustRun(t, c.args...)), c.v); err != nil {
			t.Fatal(err)
		}
	}
	if unstaged.Launch["unstaged"] != true || staged.Launch["unstaged"] != nil || staged.Derived["perfShared"] == nil {
		t.Errorf("launch unstaged %v and %v, staged shared bound %v", unstaged.Launch["unstaged"], staged.Launch["unstaged"], staged.Derived["perfShared"])
	}
	delete(unstaged.Launch, "unstaged")
	u, _ := json.Marshal([]any{unstaged.Launch, unstaged.Derived, unstaged.Prediction})
	p, _ := json.Marshal([]any{plain.Launch, plain.Derived, plain.Prediction})
	if string(u) != string(p) {
		t.Errorf("--unstaged differs from star3d-r1:\n%s", firstDiff(string(p), string(u)))
	}
}
