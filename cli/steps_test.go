package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/polyvol/polyvol/explore"
	"github.com/polyvol/polyvol/request"
)

// stepsSweep explores the hotspot's time steps per launch on 256-thread
// blocks without folds.
var stepsSweep = []string{"explore", "hotspot", "--device", "RTX-A4000", "--threads", "256", "--folds", "1,1,1", "--tiles", "consecutive"}

// TestExploreSteps checks explore --steps: every configuration at each of
// the steps, which the JSON records; the best row predicts what predict
// predicts for its launch and steps, and the table shows its steps and
// time per step; the CSV's steps column follows the JSON's rows; shards
// merge into the unsharded output; a kernel without a state refuses
// steps above 1 with the flag's one-line error and records no steps at 1.
func TestExploreSteps(t *testing.T) {
	decode := func(args ...string) *request.Exploration {
		t.Helper()
		var e request.Exploration
		if err := json.Unmarshal([]byte(mustRun(t, append(args, "--format", "json")...)), &e); err != nil {
			t.Fatal(err)
		}
		return &e
	}
	one := decode(stepsSweep...)
	four := decode(append(stepsSweep, "--steps", "1:3,4")...)
	if !slices.Equal(one.Steps, []int64{1}) || !slices.Equal(four.Steps, []int64{1, 2, 3, 4}) || four.Configurations != 4*one.Configurations {
		t.Fatalf("steps %v with %d configurations, --steps 1:3,4: %v with %d", one.Steps, one.Configurations, four.Steps, four.Configurations)
	}
	seen := map[int64]int{}
	for _, r := range four.Rows {
		seen[r.Launch.Steps]++
	}
	for _, s := range four.Skipped {
		seen[s.Steps]++
	}
	for _, T := range four.Steps {
		if seen[T] != one.Configurations {
			t.Errorf("steps %d: %d configurations ranked or skipped, want %d", T, seen[T], one.Configurations)
		}
	}

	best := four.Rows[0]
	var predicted struct {
		Launch     struct{ Steps int64 }
		Prediction struct{ GLups float64 }
	}
	out := mustRun(t, "predict", "hotspot", "--device", "RTX-A4000", "--block", request.Triple(best.Launch.Block), "--fold", "1,1,1",
		"--steps", strconv.FormatInt(best.Launch.Steps, 10), "--format", "json")
	if err := json.Unmarshal([]byte(out), &predicted); err != nil {
		t.Fatal(err)
	}
	if predicted.Prediction.GLups != best.Prediction.GLups || predicted.Launch.Steps != best.Launch.Steps {
		t.Errorf("rank 1, %v: %v GLup/s; predict gives %v at %d steps", explore.ReportConfiguration(best), best.Prediction.GLups, predicted.Prediction.GLups, predicted.Launch.Steps)
	}
	table := mustRun(t, append(stepsSweep, "--steps", "1:3,4", "--top", "1")...)
	ms := float64(4096*4096) / predicted.Prediction.GLups * 1e-6
	wantRow := fmt.Sprintf("%s  1,1,1  consecutive      %d    %.3f", request.Triple(best.Launch.Block), best.Launch.Steps, ms)
	if !strings.Contains(table, "steps 1,2,3,4") || !strings.Contains(table, wantRow) {
		t.Errorf("the table lacks the steps or rank 1 as %q:\n%s", wantRow, table)
	}

	csvOut := mustRun(t, append(stepsSweep, "--steps", "1:3,4", "--format", "csv")...)
	var want []string
	for _, r := range four.Rows {
		want = append(want, strconv.FormatInt(r.Launch.Steps, 10))
	}
	if got := csvColumn(t, csvOut, "steps"); !slices.Equal(got, want) {
		t.Errorf("CSV steps %v, want the JSON rows' %v", got, want)
	}

	dir := t.TempDir()
	whole := mustRun(t, append(stepsSweep, "--steps", "1,4", "--format", "json")...)
	var files []string
	for _, k := range []string{"1/2", "2/2"} {
		path := filepath.Join(dir, strings.ReplaceAll(k, "/", "of")+".json")
		if err := os.WriteFile(path, []byte(mustRun(t, append(stepsSweep, "--steps", "1,4", "--format", "json", "--shard", k)...)), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, path)
	}
	if got := mustRun(t, append([]string{"merge"}, files...)...); got != whole {
		t.Errorf("merged shards differ from the unsharded sweep:\n%s", firstDiff(whole, got))
	}

	plain := []string{"explore", "vec-copy", "--domain", "65536", "--threads", "256", "--folds", "1,1,1"}
	if _, stderr, code := run(t, append(plain, "--steps", "1:2")...); code != 2 || stderr != "polyvol: --steps: steps 2: the spec names no state (the staged field that each step advances), so it performs one step per launch\n" {
		t.Errorf("vec-copy --steps 1:2: exit %d, %q", code, stderr)
	}
	if e := decode(append(plain, "--steps", "1")...); e.Steps != nil || e.Rows[0].Launch.Steps != 0 {
		t.Errorf("vec-copy --steps 1: steps %v, rank 1 at %d", e.Steps, e.Rows[0].Launch.Steps)
	}
	for _, bad := range []string{"0", "3:1", "1,1", "2:", "1025"} {
		if _, stderr, code := run(t, append(stepsSweep, "--steps", bad)...); code != 2 || !strings.HasPrefix(stderr, "polyvol: --steps \""+bad+"\":") {
			t.Errorf("--steps %s: exit %d, %q", bad, code, stderr)
		}
	}
}
