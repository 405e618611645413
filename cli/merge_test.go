package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/polyvol/polyvol/model"
)

// TestMergeTampered checks that merge proves a set of shards is one sweep
// tiled exactly once: each tampering of a genuine 3-shard set, with the
// shard's digest left stale or recomputed to match, is a one-line usage
// error that names the file and what is wrong, while the untouched set
// merges.
func TestMergeTampered(t *testing.T) {
	dir := t.TempDir()
	args := append(slices.Clone(small), "--threads", "64", "--folds", "1,1,1:1,2,1")
	var shards [3]*Exploration
	for k := range shards {
		out := mustRun(t, append(args, "--shard", strconv.Itoa(k+1)+"/3")...)
		if err := json.Unmarshal([]byte(out), &shards[k]); err != nil {
			t.Fatal(err)
		}
	}
	if len(shards[0].Rows) < 2 || len(shards[1].Rows) < 1 {
		t.Fatalf("shards too small to tamper with: %d and %d rows", len(shards[0].Rows), len(shards[1].Rows))
	}
	// write stores the shards, the first after tamper; with redigest the
	// tampered shard's digest is recomputed, so that only the partition and
	// header checks can catch the change.
	write := func(name string, tamper func(e *Exploration), redigest bool) []string {
		var paths []string
		for k, s := range shards {
			var e Exploration
			data, _ := json.Marshal(s)
			if err := json.Unmarshal(data, &e); err != nil { // a deep copy
				t.Fatal(err)
			}
			if k == 0 {
				tamper(&e)
				if redigest {
					var err error
					if e.Shard.Digest, err = shardDigest(&e); err != nil {
						t.Fatal(err)
					}
				}
			}
			var b bytes.Buffer
			if err := writeJSON(&b, &e); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, name+"-"+strconv.Itoa(k+1)+".json")
			if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			paths = append(paths, path)
		}
		return paths
	}
	row := func(e *Exploration, i int) *model.Report {
		var r model.Report
		data, _ := json.Marshal(e.Rows[i])
		if err := json.Unmarshal(data, &r); err != nil {
			t.Fatal(err)
		}
		return &r
	}
	for _, tc := range []struct {
		name     string
		tamper   func(e *Exploration)
		redigest bool
		want     string
	}{
		{"untouched", func(*Exploration) {}, false, ""},
		{"dropped-row", func(e *Exploration) { e.Rows = e.Rows[1:] }, false, "does not match"},
		{"dropped-row-redigest", func(e *Exploration) { e.Rows = e.Rows[1:] }, true, "shard 1/3 of 56 configurations holds 19"},
		{"edited-number", func(e *Exploration) { e.Rows[0].Prediction.GLups *= 2 }, false, "does not match"},
		{"duplicated-row", func(e *Exploration) {
			for range 1000 {
				e.Rows = append(e.Rows, row(e, 0))
			}
		}, true, "appears twice"},
		{"empty-row", func(e *Exploration) { e.Rows = append(e.Rows, &model.Report{}) }, true, "kernel \"\""},
		{"foreign-row", func(e *Exploration) {
			e.Rows[0].Launch.Block, e.Rows[0].Launch.Fold = shards[1].Rows[0].Launch.Block, shards[1].Rows[0].Launch.Fold
		}, true, "belongs to shard 2/3"},
		{"fake-row", func(e *Exploration) { e.Rows[0].Launch.Block = [3]int64{3, 3, 3} }, true, "not a configuration of this sweep"},
		{"other-domain-row", func(e *Exploration) { e.Rows[0].Launch.Domain[0]++ }, true, "differ from the shard's"},
		{"relabelled", func(e *Exploration) { e.Shard.Index = 2 }, false, "belongs to shard 1/3, not 2/3"},
		{"count", func(e *Exploration) { e.Configurations = 99 }, false, "configurations 99"},
		{"other-sweep", func(e *Exploration) { e.Shard.Sweep = strings.Repeat("0", 32) }, false, "different sweep"},
		{"no-sweep", func(e *Exploration) { e.Shard.Sweep = "" }, false, "shard.sweep: missing"},
		{"other-top", func(e *Exploration) { e.Shard.Top++ }, false, "different exploration"},
	} {
		paths := write(tc.name, tc.tamper, tc.redigest)
		out, errOut, code := run(t, append([]string{"merge", "--format", "csv"}, paths...)...)
		if tc.want == "" {
			if code != ExitOK || out == "" {
				t.Errorf("%s: exit %d, stderr %q", tc.name, code, errOut)
			}
			continue
		}
		if code != ExitUsage || out != "" || strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, "polyvol: ") ||
			!strings.Contains(errOut, tc.name+"-") || !strings.Contains(errOut, tc.want) {
			t.Errorf("%s: exit %d, stdout %d bytes, stderr %q; want exit 2, one line naming the file and %q", tc.name, code, len(out), errOut, tc.want)
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
		k, n, err := parseShard(slurmShard, env("SLURM_ARRAY_TASK_ID", tc.id, "SLURM_ARRAY_TASK_MIN", tc.lo, "SLURM_ARRAY_TASK_COUNT", tc.count, "SLURM_ARRAY_TASK_STEP", tc.step))
		if err != nil || k != tc.k || n != tc.n {
			t.Errorf("task %s of %s from %s step %q: %d/%d, %v; want %d/%d", tc.id, tc.count, tc.lo, tc.step, k, n, err, tc.k, tc.n)
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
		if k, n, err := parseShard(slurmShard, env(vars...)); err == nil {
			t.Errorf("%v: accepted as %d/%d", vars, k, n)
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
