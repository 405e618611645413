package request

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/explore"
	"github.com/polyvol/polyvol/footprint"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/model"
)

// smallSweep is the explore request of transpose2d on a 128×64 domain,
// every block shape of 64 threads with the folds 1,1,1 and 1,2,1 and
// both tilings: 77 configurations, estimated in a second.
func smallSweep(t testing.TB) Explore {
	t.Helper()
	domain := "128,64"
	k, _, err := LoadSpec(Spec{Example: "transpose2d"}, &domain)
	if err != nil {
		t.Fatal(err)
	}
	dev, err := device.Lookup(DefaultDevice)
	if err != nil {
		t.Fatal(err)
	}
	opt, err := Estimate{Method: "exact", Model: string(model.DefaultModel), MaxWork: footprint.DefaultWorkBound, MaxMemoryMB: DefaultMaxMemoryMB}.Options(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	sweep := Sweep{Threads: "64", Folds: "1,1,1:1,2,1", Tiles: defaultTiles, Staging: stagingOn, AllShapes: true}
	cfg, err := sweep.Apply(explore.Config{Kernel: k, Device: dev, Estimate: opt, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	return Explore{Config: cfg, MaxConfigurations: DefaultMaxConfigurations}
}

// runShards runs shards 1..n of x, as explore --shard K/N does with
// --format csv, and returns their JSON.
func runShards(t testing.TB, x Explore, n int) [][]byte {
	t.Helper()
	var out [][]byte
	for k := 1; k <= n; k++ {
		x.Config.Shard = explore.Shard{Index: k, Count: n, Format: "csv"}
		e, err := x.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := WriteJSON(&b, e); err != nil {
			t.Fatal(err)
		}
		out = append(out, b.Bytes())
	}
	return out
}

// readShards reads the shards' JSON (ReadShard), named shard-1 to shard-N.
func readShards(shards [][]byte) ([]*Exploration, []string, error) {
	var es []*Exploration
	var names []string
	for i, data := range shards {
		name := fmt.Sprintf("shard-%d", i+1)
		e, err := ReadShard(bytes.NewReader(data), name)
		if err != nil {
			return nil, nil, err
		}
		es, names = append(es, e), append(names, name)
	}
	return es, names, nil
}

// TestMergeEqualsUnsharded checks that the shards of a sweep, read back
// from their JSON in any order, merge into the exploration of the
// unsharded sweep: the same rows and skipped configurations, in the same
// order, in the same JSON.
func TestMergeEqualsUnsharded(t *testing.T) {
	x := smallSweep(t)
	whole, err := x.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := WriteJSON(&want, whole); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1, 3, 100} {
		shards := runShards(t, x, n)
		shards[0], shards[n-1] = shards[n-1], shards[0]
		es, names, err := readShards(shards)
		if err != nil {
			t.Fatalf("%d shards: %v", n, err)
		}
		merged, err := Merge(es, names)
		if err != nil {
			t.Fatalf("%d shards: %v", n, err)
		}
		if merged.Shard.Count != n || merged.Shard.Format != "csv" {
			t.Errorf("%d shards: merged shard %+v; want count %d and format csv", n, merged.Shard, n)
		}
		merged.Shard = nil
		var got bytes.Buffer
		if err := WriteJSON(&got, merged); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Errorf("%d shards: the merged JSON (%d bytes) differs from the unsharded sweep's (%d bytes)", n, got.Len(), want.Len())
		}
	}
}

// TestMergeTampered checks that Merge proves a set of shards is one sweep
// tiled exactly once: each tampering of a genuine 3-shard set, with the
// shard's digest left stale or recomputed to match, is a one-line input
// error that names the shard and what is wrong, while the untouched set
// merges.
func TestMergeTampered(t *testing.T) {
	genuine := runShards(t, smallSweep(t), 3)
	var shards [3]*Exploration
	for k, data := range genuine {
		var err error
		if shards[k], err = ReadShard(bytes.NewReader(data), "genuine"); err != nil {
			t.Fatal(err)
		}
	}
	if len(shards[0].Rows) < 2 || len(shards[1].Rows) < 1 {
		t.Fatalf("shards too small to tamper with: %d and %d rows", len(shards[0].Rows), len(shards[1].Rows))
	}
	// write returns the shards' JSON, the first after tamper; with redigest
	// the tampered shard's digest is recomputed, so that only the partition
	// and header checks can catch the change.
	write := func(tamper func(e *Exploration), redigest bool) [][]byte {
		var out [][]byte
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
			if err := WriteJSON(&b, &e); err != nil {
				t.Fatal(err)
			}
			out = append(out, b.Bytes())
		}
		return out
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
		{"dropped-row-redigest", func(e *Exploration) { e.Rows = e.Rows[1:] }, true, "shard 1/3 of 77 configurations holds 26"},
		{"edited-number", func(e *Exploration) { e.Rows[0].Prediction.GLups *= 2 }, false, "does not match"},
		{"duplicated-row", func(e *Exploration) {
			for range 1000 {
				e.Rows = append(e.Rows, row(e, 0))
			}
		}, true, "appears twice"},
		{"empty-row", func(e *Exploration) { e.Rows = append(e.Rows, &model.Report{}) }, true, "kernel \"\""},
		{"foreign-row", func(e *Exploration) {
			l, other := &e.Rows[0].Launch, shards[1].Rows[0].Launch
			l.Block, l.Fold, l.Tiling = other.Block, other.Fold, other.Tiling
		}, true, "belongs to shard 2/3"},
		{"retiled-row", func(e *Exploration) {
			for _, r := range e.Rows {
				if r.Launch.Fold == kernel.NoFold {
					r.Launch.Tiling = kernel.TileStrided
					return
				}
			}
			t.Fatal("no row of fold 1,1,1 in shard 1")
		}, true, "not a configuration of this sweep"},
		{"fake-row", func(e *Exploration) { e.Rows[0].Launch.Block = [3]int64{3, 3, 3} }, true, "not a configuration of this sweep"},
		{"other-domain-row", func(e *Exploration) { e.Rows[0].Launch.Domain[0]++ }, true, "differ from the shard's"},
		{"relabelled", func(e *Exploration) { e.Shard.Index = 2 }, false, "belongs to shard 1/3, not 2/3"},
		{"count", func(e *Exploration) { e.Configurations = 99 }, false, "configurations 99"},
		{"no-tilings", func(e *Exploration) { e.Tilings = nil }, false, "tilings: missing"},
		{"fewer-tilings", func(e *Exploration) { e.Tilings = e.Tilings[:1] }, false, "configurations 77: 64 threads per block, 2 folds and 1 tiling give 56"},
		{"no-registers", func(e *Exploration) { e.Registers = 0 }, false, "registers 0: expected 1 to 255"},
		{"other-registers", func(e *Exploration) { e.Registers = 64 }, false, "different exploration"},
		{"other-sweep", func(e *Exploration) { e.Shard.Sweep = strings.Repeat("0", 32) }, false, "different sweep"},
		{"no-sweep", func(e *Exploration) { e.Shard.Sweep = "" }, false, "shard.sweep: missing"},
		{"other-top", func(e *Exploration) { e.Shard.Top++ }, false, "different exploration"},
		{"other-format", func(e *Exploration) { e.Shard.Format = "table" }, false, "different exploration"},
		{"negative-top", func(e *Exploration) { e.Shard.Top = -5 }, false, "shard.top -5: expected 0 (all rows) to 1000000"},
		{"huge-top", func(e *Exploration) { e.Shard.Top = 1e12 }, false, "shard.top 1000000000000: expected 0 (all rows) to 1000000"},
		{"empty-format", func(e *Exploration) { e.Shard.Format = "" }, false, `shard.format "": expected table, json or csv`},
		{"yaml-format", func(e *Exploration) { e.Shard.Format = "yaml" }, false, `shard.format "yaml"`},
	} {
		es, names, err := readShards(write(tc.tamper, tc.redigest))
		if err == nil {
			_, err = Merge(es, names)
		}
		if tc.want == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		if err == nil || KindOf(err) != KindInput || strings.Contains(Line(err), "\n") || !strings.Contains(err.Error(), "shard-1") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v (kind %v); want an input error naming shard-1 and %q", tc.name, err, KindOf(err), tc.want)
		}
	}
}

// TestMergeSet checks the errors of a set of genuine shards that is not
// one sweep tiled once: a shard given twice, a shard missing, and no shard.
func TestMergeSet(t *testing.T) {
	shards := runShards(t, smallSweep(t), 3)
	for _, tc := range []struct {
		name   string
		shards [][]byte
		want   string
	}{
		{"twice", [][]byte{shards[0], shards[1], shards[2], shards[1]}, "shard-4: shard 2/3 was already given in shard-2"},
		{"missing", [][]byte{shards[2], shards[0]}, "shard 2/3 is missing"},
		{"none", nil, "no shards to merge"},
	} {
		es, names, err := readShards(tc.shards)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Merge(es, names)
		if err == nil || KindOf(err) != KindInput || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v; want an input error with %q", tc.name, err, tc.want)
		}
	}
}

// TestSweepFingerprintDependsOnVersionAndBounds checks that the sweep
// fingerprint differs between polyvol versions and memory bounds, and is
// the same when computed again.
func TestSweepFingerprintDependsOnVersionAndBounds(t *testing.T) {
	k, err := kernel.ParseExample("vec-copy")
	if err != nil {
		t.Fatal(err)
	}
	dev, err := device.Lookup("A100-40GB")
	if err != nil {
		t.Fatal(err)
	}
	e := &Exploration{Method: "exact", Model: "overlap", Domain: k.Domain, Threads: []int64{256}, Folds: [][3]int64{{1, 1, 1}}, Shard: &explore.Shard{Count: 2}}
	opt := model.Options{WorkBound: 1, MemoryBound: 1 << 20}
	a, b := sweepFingerprint(k, dev, e, "0.1.0 (commit a)", opt), sweepFingerprint(k, dev, e, "0.1.0 (commit b)", opt)
	if a == b || a != sweepFingerprint(k, dev, e, "0.1.0 (commit a)", opt) {
		t.Errorf("sweep fingerprints of versions a and b: %s and %s; want them to differ, and each to be reproducible", a, b)
	}
	opt.MemoryBound *= 2
	if c := sweepFingerprint(k, dev, e, "0.1.0 (commit a)", opt); c == a {
		t.Errorf("sweep fingerprints under memory bounds of 1 and 2 MB are both %s; want them to differ", a)
	}
}

// checkOneLineInput fails unless err is an input error whose line has no
// line break and fits MaxLine.
func checkOneLineInput(t *testing.T, what string, err error) {
	t.Helper()
	if KindOf(err) != KindInput {
		t.Fatalf("%s: error %T is not an input error: %v", what, err, err)
	}
	if line := Line(err); strings.Contains(line, "\n") || len(line) > MaxLine {
		t.Fatalf("%s: error is not one line of at most %d characters: %q", what, MaxLine, line)
	}
}

// FuzzReadShard feeds arbitrary bytes to ReadShard: it must return an
// input error, or a shard that names its slice (1 <= K <= N), that
// checkShard accepts and whose JSON reads back the same.
func FuzzReadShard(f *testing.F) {
	x := smallSweep(f)
	x.Config.Threads, x.Config.Folds = []int{4}, [][3]int64{{1, 1, 1}, {1, 2, 1}}
	f.Add(runShards(f, x, 1)[0])
	f.Add(runShards(f, x, 3)[1])
	hostile, err := filepath.Glob("../testdata/hostile/shard-*")
	if err != nil || len(hostile) == 0 {
		f.Fatalf("no shard-* files in ../testdata/hostile: %v", err)
	}
	for _, path := range hostile {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := ReadShard(bytes.NewReader(data), "shard.json")
		if err != nil {
			checkOneLineInput(t, "ReadShard", err)
			return
		}
		if e.Shard == nil || e.Shard.Index < 1 || e.Shard.Index > e.Shard.Count {
			t.Fatalf("ReadShard accepted shard %+v", e.Shard)
		}
		if err := checkShard(e); err != nil {
			t.Fatalf("ReadShard accepted a shard checkShard rejects: %v", err)
		}
		var b bytes.Buffer
		if err := WriteJSON(&b, e); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadShard(&b, "again"); err != nil {
			t.Fatalf("the JSON of an accepted shard reads back as %v", err)
		}
	})
}

// FuzzMergeShards merges two arbitrary shards: Merge must fail with a
// one-line input error, or combine two shards of one sweep, each
// configuration once.
func FuzzMergeShards(f *testing.F) {
	one, two := skippedShard(f, 1, 2), skippedShard(f, 2, 2)
	f.Add(one, two)
	f.Add([]byte("{}"), []byte("[]"))
	// The second shard of another polyvol version.
	f.Add(one, bytes.Replace(two, []byte(strconv.Quote(FullVersion())), []byte(`"0.0.9 (commit 0123456789abcdef0123456789abcdef01234567)"`), 1))
	x := smallSweep(f)
	x.Config.Threads, x.Config.Folds = []int{4}, [][3]int64{{1, 1, 1}}
	ranked := runShards(f, x, 2)
	f.Add(ranked[0], ranked[1])
	f.Fuzz(func(t *testing.T, a, b []byte) {
		es, names, err := readShards([][]byte{a, b})
		if err == nil {
			var e *Exploration
			if e, err = Merge(es, names); err == nil {
				if e.Shard.Count != 2 || len(e.Rows) == 0 || len(e.Rows)+len(e.Skipped) != e.Configurations {
					t.Fatalf("merged shards of count %d into %d rows and %d skipped of %d configurations", e.Shard.Count, len(e.Rows), len(e.Skipped), e.Configurations)
				}
				return
			}
		}
		checkOneLineInput(t, "Merge", err)
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
	e := &Exploration{Kernel: "vec-copy", Device: "A100-40GB", Method: "exact", Model: "overlap",
		Domain: [3]int64{64, 1, 1}, Threads: []int64{2}, Folds: [][3]int64{{1, 1, 1}}, Tilings: explore.DefaultTilings,
		Registers: 32, Configurations: len(blocks), Skipped: []explore.Skipped{}, Rows: []*model.Report{},
		Shard: &explore.Shard{Index: k, Count: n, Format: "csv", Sweep: strings.Repeat("5", 32)}}
	for i, b := range blocks {
		if i%n == k-1 {
			e.Skipped = append(e.Skipped, explore.Skipped{Block: b, Fold: [3]int64{1, 1, 1}, Reason: "seed"})
		}
	}
	if e.Shard.Digest, err = shardDigest(e); err != nil {
		f.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteJSON(&b, e); err != nil {
		f.Fatal(err)
	}
	return b.Bytes()
}
