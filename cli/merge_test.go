package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/polyvol/polyvol/request"
)

// TestMergeVersions checks that merge refuses a shard whose polyvolVersion
// is not the running polyvol's, also when the other shards agree with each
// other or when the key is missing, naming the file and both versions.
func TestMergeVersions(t *testing.T) {
	dir := t.TempDir()
	var shards [2][]byte
	for k := range shards {
		shards[k] = []byte(mustRun(t, append(small, "--threads", "64", "--folds", "1,1,1", "--shard", strconv.Itoa(k+1)+"/2")...))
	}
	this := `"polyvolVersion": ` + strconv.Quote(request.FullVersion())
	if !bytes.Contains(shards[0], []byte(this)) {
		t.Fatalf("shard lacks %s:\n%.300s", this, shards[0])
	}
	const other = `"polyvolVersion": "0.0.9 (commit 0123456789abcdef0123456789abcdef01234567)"`
	for _, tc := range []struct {
		name     string
		versions [2]string // the polyvolVersion key of each shard ("" leaves it out)
		bad      int       // the shard merge names, 0 for none
		want     string
	}{
		{"same", [2]string{this, this}, 0, ""},
		{"second-other", [2]string{this, other}, 2, `polyvolVersion "0.0.9 (commit 0123456789abcdef0123456789abcdef01234567)" differs from this polyvol's ` + strconv.Quote(request.FullVersion())},
		{"both-other", [2]string{other, other}, 1, `polyvolVersion "0.0.9`},
		{"first-missing", [2]string{"", this}, 1, "polyvolVersion: missing"},
	} {
		var paths []string
		for k, data := range shards {
			replaced := strings.Replace(string(data), this+",", tc.versions[k]+",", 1)
			if tc.versions[k] == "" {
				replaced = strings.Replace(string(data), "  "+this+",\n", "", 1)
			}
			if replaced == string(data) != (tc.versions[k] == this) {
				t.Fatalf("%s: the version of shard %d was not replaced", tc.name, k+1)
			}
			path := filepath.Join(dir, fmt.Sprintf("%s-%d.json", tc.name, k+1))
			if err := os.WriteFile(path, []byte(replaced), 0o644); err != nil {
				t.Fatal(err)
			}
			paths = append(paths, path)
		}
		out, errOut, code := run(t, append([]string{"merge"}, paths...)...)
		if tc.bad == 0 {
			if code != ExitOK || out == "" {
				t.Errorf("%s: exit %d, stderr %q", tc.name, code, errOut)
			}
			continue
		}
		if code != ExitUsage || out != "" || strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, "polyvol: "+paths[tc.bad-1]+": ") || !strings.Contains(errOut, tc.want) {
			t.Errorf("%s: exit %d, stdout %d bytes, stderr %q; want exit 2, one line naming %s and %q", tc.name, code, len(out), errOut, paths[tc.bad-1], tc.want)
		}
	}

}

// TestTopRange checks that explore and merge accept --top from 0 to
// 1000000, the range merge accepts in a shard, and refuse the rest.
func TestTopRange(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shard.json")
	if err := os.WriteFile(path, []byte(mustRun(t, append(small, "--threads", "64", "--folds", "1,1,1", "--shard", "1/1")...)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		top string
		ok  bool
	}{{"0", true}, {"1000000", true}, {"-1", false}, {"-5", false}, {"1000001", false}, {"1000000000000", false}} {
		for _, args := range [][]string{
			append(slices.Clone(small), "--threads", "64", "--folds", "1,1,1", "--top", tc.top),
			{"merge", path, "--top", tc.top},
		} {
			out, errOut, code := run(t, args...)
			switch {
			case tc.ok && (code != ExitOK || out == ""):
				t.Errorf("%s --top %s: exit %d, stderr %q", args[0], tc.top, code, errOut)
			case !tc.ok && (code != ExitUsage || out != "" || !strings.HasPrefix(errOut, "polyvol: --top "+tc.top+": expected 0 (all rows) to 1000000\n")):
				t.Errorf("%s --top %s: exit %d, stderr %q; want exit 2 naming --top and its range", args[0], tc.top, code, errOut)
			}
		}
	}
}

// TestSlurmShard checks that --shard slurm numbers the tasks of an array
// from 1 whatever its first index and step, and rejects a task outside the
// array or a missing variable.
func TestSlurmShard(t *testing.T) {
	env := func(vars ...string) func(string) string {
		return func(name string) string {
			for i := 0; i+1 < len(vars); i += 2 {
				if vars[i] == name {
					return vars[i+1]
				}
			}
			return ""
		}
	}
	for _, tc := range []struct {
		id, lo, count, step string
		k, n                int
	}{
		{"0", "0", "8", "", 1, 8},
		{"7", "0", "8", "", 8, 8},
		{"1", "1", "16", "1", 1, 16},
		{"16", "1", "16", "1", 16, 16},
		{"6", "0", "4", "2", 4, 4},
		{"12", "10", "3", "2", 2, 3},
	} {
		shard, err := parseShard(slurmShard, env("SLURM_ARRAY_TASK_ID", tc.id, "SLURM_ARRAY_TASK_MIN", tc.lo, "SLURM_ARRAY_TASK_COUNT", tc.count, "SLURM_ARRAY_TASK_STEP", tc.step))
		if err != nil || shard.Index != tc.k || shard.Count != tc.n {
			t.Errorf("task %s of %s from %s step %q: %d/%d, %v; want %d/%d", tc.id, tc.count, tc.lo, tc.step, shard.Index, shard.Count, err, tc.k, tc.n)
		}
	}
	for _, vars := range [][]string{
		{},
		{"SLURM_ARRAY_TASK_ID", "3", "SLURM_ARRAY_TASK_MIN", "0"},
		{"SLURM_ARRAY_TASK_ID", "8", "SLURM_ARRAY_TASK_MIN", "0", "SLURM_ARRAY_TASK_COUNT", "8"},
		{"SLURM_ARRAY_TASK_ID", "3", "SLURM_ARRAY_TASK_MIN", "0", "SLURM_ARRAY_TASK_COUNT", "8", "SLURM_ARRAY_TASK_STEP", "2"},
		{"SLURM_ARRAY_TASK_ID", "0", "SLURM_ARRAY_TASK_MIN", "1", "SLURM_ARRAY_TASK_COUNT", "8"},
		{"SLURM_ARRAY_TASK_ID", "x", "SLURM_ARRAY_TASK_MIN", "0", "SLURM_ARRAY_TASK_COUNT", "8"},
		{"SLURM_ARRAY_TASK_ID", "0", "SLURM_ARRAY_TASK_MIN", "0", "SLURM_ARRAY_TASK_COUNT", "0"},
	} {
		if shard, err := parseShard(slurmShard, env(vars...)); err == nil {
			t.Errorf("%v: accepted as %d/%d", vars, shard.Index, shard.Count)
		} else if _, ok := err.(*UsageError); !ok || !strings.Contains(err.Error(), "--shard slurm") {
			t.Errorf("%v: error %v", vars, err)
		}
	}
	// The shards of a 0-based array merge into the unsharded exploration.
	dir := t.TempDir()
	var paths []string
	for id := range 3 {
		t.Setenv("SLURM_ARRAY_TASK_ID", strconv.Itoa(id))
		t.Setenv("SLURM_ARRAY_TASK_MIN", "0")
		t.Setenv("SLURM_ARRAY_TASK_COUNT", "3")
		path := filepath.Join(dir, "shard-"+strconv.Itoa(id)+".json")
		if err := os.WriteFile(path, []byte(mustRun(t, append(small, "--shard", "slurm", "--format", "csv")...)), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, path)
	}
	if got, want := mustRun(t, append([]string{"merge"}, paths...)...), mustRun(t, append(small, "--format", "csv")...); got != want {
		t.Errorf("merge of the Slurm shards differs from the unsharded run:\n%s", firstDiff(want, got))
	}
}

// TestMergeAllSkippedAgreesWithExplore runs a sweep whose every
// configuration is skipped (no block fits on an SM) whole and in shards:
// explore and merge of the shards both fail with the same usage error.
func TestMergeAllSkippedAgreesWithExplore(t *testing.T) {
	sweep := []string{"explore", "../testdata/hostile/spec-shared-huge.yaml", "--threads", "64", "--folds", "1,1,1:2,1,1"}
	_, whole, code := run(t, sweep...)
	if code != ExitUsage || !strings.Contains(whole, "every configuration was skipped") {
		t.Fatalf("explore: exit %d, %q; want a usage error", code, whole)
	}
	dir := t.TempDir()
	var paths []string
	for k := 1; k <= 3; k++ {
		path := filepath.Join(dir, fmt.Sprintf("shard%d.json", k))
		if err := os.WriteFile(path, []byte(mustRun(t, append(sweep, "--shard", fmt.Sprintf("%d/3", k))...)), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, path)
	}
	if _, merged, code := run(t, append([]string{"merge"}, paths...)...); code != ExitUsage || merged != whole {
		t.Errorf("merge of the shards: exit %d, %q; want exit 2 and explore's %q", code, merged, whole)
	}
}
