package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/model"
	"github.com/polyvol/polyvol/request"
)

// idleFraction is the share of r's launched threads that have no lattice
// point in the domain.
func idleFraction(r *model.Report) float64 {
	l := kernel.Launch{Block: r.Launch.Block, Fold: r.Launch.Fold, Domain: r.Launch.Domain, Tiling: r.Launch.Tiling}
	return model.CountIdleThreads(l, 32).Fraction()
}

// small is a fast exploration used by the tests below, with all block
// shapes (also those with threads along z, which a 2-D domain leaves idle): transpose2d on a
// 128 x 64 domain with the three folds of a 3-D kernel's default, whose
// fold 1,1,2 is invalid for the 2-D domain and skipped, as thread folding
// and as a strided tile.
var small = []string{"explore", "transpose2d", "--domain", "128,64", "--all-shapes", "--folds", "1,1,1:1,2,1:1,1,2"}

// TestExploreRanking checks that JSON rows are all evaluated configurations,
// ranked by GLup/s, and that the Validate-invalid ones are listed as skipped.
// Of the 56 block shapes of 1024 threads, 49 have more than one thread in
// y and 45 in z, so the three folds give 168 configurations as thread
// folding and 94 as strided tiles; the 56 + 45 of fold 1,1,2 are skipped.
func TestExploreRanking(t *testing.T) {
	out, errOut, code := run(t, append(small, "--format", "json")...)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var e request.Exploration
	if err := json.Unmarshal([]byte(out), &e); err != nil {
		t.Fatal(err)
	}
	if e.Configurations != 262 || len(e.Rows)+len(e.Skipped) != 262 || len(e.Skipped) != 101 {
		t.Fatalf("%d configurations, %d rows, %d skipped; want 262 = 161 + 101", e.Configurations, len(e.Rows), len(e.Skipped))
	}
	for _, s := range e.Skipped {
		if s.Fold != [3]int64{1, 1, 2} || !strings.Contains(s.Reason, "fold z = 2") {
			t.Errorf("skipped %+v", s)
		}
	}
	if !strings.Contains(errOut, "polyvol: note: skipped 101 configurations") {
		t.Errorf("no note on stderr: %q", errOut)
	}
	// Configurations with more than a quarter of their threads idle come
	// last; within each group the predictions fall.
	for i := 1; i < len(e.Rows); i++ {
		a, b := e.Rows[i-1], e.Rows[i]
		ia, ib := idleFraction(a) > model.IdleNoteThreshold, idleFraction(b) > model.IdleNoteThreshold
		if ia && !ib {
			t.Errorf("row %d (%.3f idle) ranked above row %d (%.3f idle)", i, idleFraction(a), i+1, idleFraction(b))
		}
		if ia == ib && a.Prediction.GLups < b.Prediction.GLups {
			t.Errorf("row %d (%v GLup/s) ranked above row %d (%v)", i, a.Prediction.GLups, i+1, b.Prediction.GLups)
		}
	}
}

// TestExploreIdleLast checks on vec-copy, a 1-D kernel, that no block with
// idle threads ranks above the 1024,1,1 block, which has none, and that the
// latency model predicts the 4,4,64 block (4 active threads per block) far
// slower than 1024,1,1.
func TestExploreIdleLast(t *testing.T) {
	for _, m := range []string{"roofline", "latency"} {
		out := mustRun(t, "explore", "vec-copy", "--domain", "1048576", "--folds", "1,1,1", "--model", m, "--format", "json")
		var e request.Exploration
		if err := json.Unmarshal([]byte(out), &e); err != nil {
			t.Fatal(err)
		}
		if b := e.Rows[0].Launch.Block; b != [3]int64{1024, 1, 1} {
			t.Errorf("--model %s: first row block %v, want 1024,1,1", m, b)
		}
		var full, idle float64
		for _, r := range e.Rows {
			switch r.Launch.Block {
			case [3]int64{1024, 1, 1}:
				full = r.Prediction.GLups
			case [3]int64{4, 4, 64}:
				idle = r.Prediction.GLups
			}
		}
		if m == "latency" && !(idle < full/10) {
			t.Errorf("latency model: 4,4,64 at %v GLup/s against 1024,1,1 at %v", idle, full)
		}
	}
}

// TestExploreWorkersDeterministic checks that the output is byte-identical
// whatever the number of workers, in every format.
func TestExploreWorkersDeterministic(t *testing.T) {
	for _, format := range []string{"json", "csv", "table"} {
		one := mustRun(t, append(small, "--format", format, "--workers", "1")...)
		for _, w := range []string{"2", "3"} {
			if got := mustRun(t, append(small, "--format", format, "--workers", w)...); got != one {
				t.Errorf("--format %s: --workers %s differs from --workers 1:\n%s", format, w, firstDiff(one, got))
			}
		}
	}
}

// TestShardMerge checks that merging the shards of an exploration gives
// exactly the unsharded output, for every format and shard count.
func TestShardMerge(t *testing.T) {
	dir := t.TempDir()
	for _, format := range []string{"json", "csv", "table"} {
		want := mustRun(t, append(small, "--format", format, "--top", "5")...)
		for _, n := range []int{1, 3, 4} {
			var files []string
			for k := n; k >= 1; k-- { // any order
				path := filepath.Join(dir, format+"-"+strconv.Itoa(k)+"of"+strconv.Itoa(n)+".json")
				shard := mustRun(t, append(small, "--format", format, "--top", "5", "--shard", strconv.Itoa(k)+"/"+strconv.Itoa(n))...)
				if err := os.WriteFile(path, []byte(shard), 0o644); err != nil {
					t.Fatal(err)
				}
				files = append(files, path)
			}
			if got := mustRun(t, append([]string{"merge"}, files...)...); got != want {
				t.Errorf("--format %s, %d shards: merge differs from the unsharded run:\n%s", format, n, firstDiff(want, got))
			}
		}
	}
	// The format of the merged output can be changed at merge time.
	files, _ := filepath.Glob(filepath.Join(dir, "table-*of3.json"))
	if got, want := mustRun(t, append([]string{"merge", "--format", "csv"}, files...)...), mustRun(t, append(small, "--format", "csv")...); got != want {
		t.Errorf("merge --format csv differs from explore --format csv:\n%s", firstDiff(want, got))
	}
}

// TestMergeErrors checks that incomplete, repeated or mixed shard sets are
// usage errors.
func TestMergeErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, args ...string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(mustRun(t, args...)), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	s1 := write("s1.json", append(small, "--shard", "1/2")...)
	s2 := write("s2.json", append(small, "--shard", "2/2")...)
	other := write("other.json", "explore", "transpose2d", "--domain", "64,64", "--shard", "2/2")
	full := write("full.json", append(small, "--format", "json")...)
	for _, tc := range []struct {
		files []string
		want  string
	}{
		{[]string{s1}, "shard 2/2 is missing"},
		{[]string{s1, s1}, "already given"},
		{[]string{s1, other}, "different exploration"},
		{[]string{full}, "no \"shard\" key"},
		{[]string{s1, filepath.Join(dir, "none.json")}, "none.json"},
	} {
		_, errOut, code := run(t, append([]string{"merge"}, tc.files...)...)
		if code != ExitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("merge %v: exit %d, stderr %q, want %q", tc.files, code, errOut, tc.want)
		}
	}
	if _, errOut, code := run(t, "merge", s2, s1); code != ExitOK {
		t.Errorf("complete set: exit %d %s", code, errOut)
	}
}

// TestExploreDefaultFolds checks that the default folds follow the
// kernel's dimensions: a 2-D kernel is not folded in z, so none of its
// configurations is skipped, a 1-D kernel is not folded at all, and a 3-D
// kernel gets all three folds.
func TestExploreDefaultFolds(t *testing.T) {
	for _, tc := range []struct {
		spec, domain string
		folds        [][3]int64
	}{
		{"star2d-r1", "64,64", [][3]int64{{1, 1, 1}, {1, 2, 1}}},
		{"vec-copy", "4096", [][3]int64{{1, 1, 1}}},
		{"star3d-r1", "64,64,64", [][3]int64{{1, 1, 1}, {1, 2, 1}, {1, 1, 2}}},
	} {
		out, errOut, code := run(t, "explore", tc.spec, "--domain", tc.domain, "--threads", "64", "--tiles", "consecutive", "--format", "json")
		if code != ExitOK {
			t.Fatalf("%s: exit %d: %s", tc.spec, code, errOut)
		}
		var e request.Exploration
		if err := json.Unmarshal([]byte(out), &e); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(e.Folds, tc.folds) || len(e.Skipped) != 0 || strings.Contains(errOut, "skipped") {
			t.Errorf("%s: folds %v, %d skipped (%q); want folds %v and none skipped", tc.spec, e.Folds, len(e.Skipped), errOut, tc.folds)
		}
	}
}

// TestExploreThreadsList checks that --threads takes a list: the sweep has
// the block shapes of each count, the JSON records the counts, and a bad
// entry is a one-line user error naming the flag.
func TestExploreThreadsList(t *testing.T) {
	out, errOut, code := run(t, "explore", "star2d-r1", "--domain", "256,256", "--threads", "64,128", "--tiles", "consecutive", "--format", "json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var e request.Exploration
	if err := json.Unmarshal([]byte(out), &e); err != nil {
		t.Fatal(err)
	}
	counts := map[int64]int{}
	for _, r := range e.Rows {
		counts[r.Launch.Block[0]*r.Launch.Block[1]*r.Launch.Block[2]]++
	}
	// 7 shapes of 64 threads and 8 of 128 in x and y, each with two folds.
	if !slices.Equal(e.Threads, []int64{64, 128}) || counts[64] != 14 || counts[128] != 16 || len(counts) != 2 {
		t.Errorf("threads %v, rows per thread count %v; want [64 128] and 14 and 16 rows", e.Threads, counts)
	}
	table := mustRun(t, "explore", "star2d-r1", "--domain", "256,256", "--threads", "64,128", "--tiles", "consecutive", "--top", "1")
	if !strings.Contains(table, "30 configurations (64,128 threads per block, 2 folds), 0 skipped") {
		t.Errorf("table head does not name both thread counts:\n%s", table)
	}
	for _, tc := range []struct{ threads, want string }{
		{"64,100", `polyvol: --threads 100: expected a power of two from 1 to 1024`},
		{"64,64", `polyvol: --threads "64,64": 64 appears twice`},
		{"64;128", `polyvol: --threads "64;128": expected comma-separated powers of two from 1 to 1024, e.g. 128,256`},
	} {
		_, errOut, code := run(t, "explore", "star2d-r1", "--threads", tc.threads)
		if code != ExitUsage || strings.TrimSpace(errOut) != tc.want {
			t.Errorf("--threads %s: exit %d, stderr %q; want 2 and %q", tc.threads, code, errOut, tc.want)
		}
	}
}
