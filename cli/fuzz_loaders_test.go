package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/polyvol/polyvol/explore"
	"github.com/polyvol/polyvol/model"
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

// FuzzReadShard feeds arbitrary bytes to merge's shard loader: it must
// return a usage error, or a shard that names its slice (1 <= K <= N) and
// that checkShard accepts, whose rows merge renders.
func FuzzReadShard(f *testing.F) {
	addCorpusFiles(f, "shard-")
	f.Add([]byte(mustRunF(f, append(small, "--threads", "4", "--folds", "1,1,1:1,2,1", "--shard", "1/1")...)))
	f.Add([]byte(mustRunF(f, append(small, "--threads", "4", "--folds", "1,1,1:1,2,1", "--shard", "2/3")...)))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := writeFuzzFile(t, "shard.json", data)
		e, err := readShard(path)
		if err != nil {
			checkOneLineUsage(t, "readShard", err)
			return
		}
		if e.Shard == nil || e.Shard.Index < 1 || e.Shard.Index > e.Shard.Count {
			t.Fatalf("readShard accepted shard %+v", e.Shard)
		}
		if err := checkShard(e); err != nil {
			t.Fatalf("readShard accepted a shard checkShard rejects: %v", err)
		}
	})
}

// FuzzMergeShards merges two arbitrary files: merge must fail with a
// one-line usage error, or combine two shards of one sweep, each
// configuration once, into an exploration it can write.
func FuzzMergeShards(f *testing.F) {
	one, two := skippedShard(f, 1, 2), skippedShard(f, 2, 2)
	f.Add(one, two)
	f.Add([]byte("{}"), []byte("[]"))
	// The second shard of another polyvol version.
	f.Add(one, bytes.Replace(two, []byte(strconv.Quote(request.FullVersion())), []byte(`"0.0.9 (commit 0123456789abcdef0123456789abcdef01234567)"`), 1))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		pa, pb := writeFuzzFile(t, "a.json", a), writeFuzzFile(t, "b.json", b)
		e, err := mergeShards([]string{pa, pb})
		if err != nil {
			checkOneLineUsage(t, "mergeShards", err)
			return
		}
		if e.Shard.Count != 2 || len(e.Rows)+len(e.Skipped) != e.Configurations {
			t.Fatalf("merged shards of count %d into %d rows and %d skipped of %d configurations", e.Shard.Count, len(e.Rows), len(e.Skipped), e.Configurations)
		}
		var out, errOut strings.Builder
		if err := writeExploration(&out, &errOut, e, formatCSV, 0); err != nil {
			t.Fatalf("writeExploration: %v", err)
		}
	})
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

// skippedShard returns shard k of n of a sweep of vec-copy's three block
// shapes of two threads, every configuration skipped, so that the seeds
// do not depend on the model's numbers.
func skippedShard(f *testing.F, k, n int) []byte {
	blocks, err := explore.BlockShapes(2)
	if err != nil {
		f.Fatal(err)
	}
	e := &request.Exploration{Kernel: "vec-copy", Device: "A100-40GB", Method: "exact", Model: "overlap",
		Domain: [3]int64{64, 1, 1}, Threads: []int64{2}, Folds: [][3]int64{{1, 1, 1}}, Tilings: explore.DefaultTilings,
		Registers: 32, Configurations: len(blocks), Skipped: []explore.Skipped{}, Rows: []*model.Report{},
		Shard: &request.Shard{Index: k, Count: n, Format: formatCSV, Sweep: strings.Repeat("5", 32)}}
	for i, b := range blocks {
		if i%n == k-1 {
			e.Skipped = append(e.Skipped, explore.Skipped{Block: b, Fold: [3]int64{1, 1, 1}, Reason: "seed"})
		}
	}
	if e.Shard.Digest, err = shardDigest(e); err != nil {
		f.Fatal(err)
	}
	var b bytes.Buffer
	if err := request.WriteJSON(&b, e); err != nil {
		f.Fatal(err)
	}
	return b.Bytes()
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
		if out != "" || strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, "polyvol: ") || len(errOut) > request.MaxLine+1 {
			t.Fatalf("%s: usage error is not one line after no output: stdout %d bytes, stderr %q", what, len(out), errOut)
		}
	default:
		t.Fatalf("%s: exit %d, stderr %q", what, code, errOut)
	}
}

// mustRunF runs the command line for a fuzz target's seeds and fails
// unless it exits 0.
func mustRunF(f *testing.F, args ...string) string {
	f.Helper()
	var out, errOut strings.Builder
	if code := Run(append([]string{"polyvol"}, args...), &out, &errOut); code != ExitOK {
		f.Fatalf("polyvol %s: exit %d, stderr %q", strings.Join(args, " "), code, errOut.String())
	}
	return out.String()
}
