package cli

import (
	"encoding/json"
	"fmt"
	"github.com/polyvol/polyvol/request"
	"strings"
	"testing"

	"github.com/polyvol/polyvol/explore"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/model"
)

// predictReport runs predict --format json and decodes the report.
func predictReport(t *testing.T, args ...string) *model.Report {
	t.Helper()
	var r model.Report
	if err := json.Unmarshal([]byte(mustRun(t, append(append([]string{"predict"}, args...), "--format", "json")...)), &r); err != nil {
		t.Fatal(err)
	}
	return &r
}

// TestPredictTileStrided predicts star2d-r1 (five loads of doubles, one
// store; offset 1, so a row of 32 doubles starts 8 bytes into a sector)
// with block 32,8 and fold 2 in x, under both tilings. A warp is one row
// of 32 threads.
//
// Strided, lane i computes x0 + i and x0 + 32 + i: each of the thread's
// 10 distinct loads (3 in x around each point, 2 in y for each) and each
// of its 2 stores covers 32 consecutive doubles, 256 bytes over 8 or 9
// sectors, for 32 points: between 5·8·32/32 = 40 and 45 B/Lup of L1 load
// and between 8 and 9 B/Lup of store.
//
// Consecutive, lane i computes x0 + 2i and x0 + 2i + 1: each of the 8
// distinct loads (x − 1 to x + 2, and y ± 1 of both points) and the 2
// stores spreads its lanes 16 bytes apart over 512 bytes, 16 or 17
// sectors, for 64 points per 8 loads: between 8·16·32/64 = 64 and 68 B/Lup
// of load, between 16 and 17 B/Lup of store.
//
// The warps of the domain's last blocks, partly outside it, add a little
// (up to a percent). Whole blocks cover the same points under both
// tilings, so the block and wave footprints (L2 load V1, DRAM load V1) are
// equal.
func TestPredictTileStrided(t *testing.T) {
	args := []string{"star2d-r1", "--block", "32,8", "--fold", "2,1"}
	cons := predictReport(t, append(args, "--tile", "consecutive")...)
	str := predictReport(t, append(args, "--tile", "strided")...)
	if cons.Launch.Tiling != kernel.TileConsecutive || str.Launch.Tiling != kernel.TileStrided {
		t.Fatalf("tilings %v and %v in the reports", cons.Launch.Tiling, str.Launch.Tiling)
	}
	within := func(what string, v, lo, hi float64) {
		t.Helper()
		if v < lo || v > 1.01*hi {
			t.Errorf("%s = %v, want %v to %v", what, v, lo, hi)
		}
	}
	within("strided L1 load", str.Derived.L1Load, 40, 45)
	within("consecutive L1 load", cons.Derived.L1Load, 64, 68)
	within("strided L2 store", str.Derived.L2Store, 8, 9)
	within("consecutive L2 store", cons.Derived.L2Store, 16, 17)
	if str.Derived.L1CyclesPerLup >= cons.Derived.L1CyclesPerLup {
		t.Errorf("L1 cycles per Lup %v strided, %v consecutive; want fewer strided", str.Derived.L1CyclesPerLup, cons.Derived.L1CyclesPerLup)
	}
	if str.Derived.L2LoadV1 != cons.Derived.L2LoadV1 || str.Derived.MemLoadV1 != cons.Derived.MemLoadV1 {
		t.Errorf("block footprints differ: L2 load V1 %v and %v, DRAM load V1 %v and %v",
			str.Derived.L2LoadV1, cons.Derived.L2LoadV1, str.Derived.MemLoadV1, cons.Derived.MemLoadV1)
	}

	// The table names a strided tiling after the fold; consecutive is the
	// output without --tile, byte for byte, in every format.
	table := mustRun(t, append([]string{"predict"}, append(args, "--tile", "strided")...)...)
	if !strings.Contains(table, "block 32,8,1  fold 2,1,1 strided  domain 15000,15000,1") {
		t.Errorf("the table does not name the strided tiling:\n%.300s", table)
	}
	for _, format := range []string{"table", "json", "csv"} {
		plain := mustRun(t, append([]string{"predict", "--format", format}, args...)...)
		if got := mustRun(t, append([]string{"predict", "--format", format, "--tile", "consecutive"}, args...)...); got != plain {
			t.Errorf("--format %s: --tile consecutive differs from no --tile:\n%s", format, firstDiff(plain, got))
		}
		if format == "json" && strings.Contains(plain, `"tiling"`) {
			t.Errorf("the JSON of thread folding has a tiling key")
		}
	}
	csv := strings.Split(mustRun(t, append([]string{"predict", "--format", "csv", "--tile", "strided"}, args...)...), "\n")
	if !strings.HasPrefix(csv[0], "kernel,device,method,model,block,fold,tiling,domain,registers,blocksPerSM,") ||
		!strings.Contains(csv[1], ",32x8x1,2x1x1,strided,15000x15000x1,32,") {
		t.Errorf("CSV:\n%s", strings.Join(csv, "\n"))
	}
}

// TestSimulateTileStrided checks that the simulator follows --tile: on a
// small domain the strided tile of TestPredictTileStrided requests fewer
// L1 sectors than thread folding, and its output names the tiling.
func TestSimulateTileStrided(t *testing.T) {
	args := []string{"simulate", "star2d-r1", "--domain", "256,64", "--block", "32,8", "--fold", "2,1", "--format", "json"}
	var cons, str request.Simulation
	if err := json.Unmarshal([]byte(mustRun(t, args...)), &cons); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(mustRun(t, append(args, "--tile", "strided")...)), &str); err != nil {
		t.Fatal(err)
	}
	if str.Launch.Tiling != kernel.TileStrided || cons.Launch.Tiling != kernel.TileConsecutive {
		t.Errorf("tilings %v and %v", str.Launch.Tiling, cons.Launch.Tiling)
	}
	if s, c := str.Derived.Volumes.L1Load, cons.Derived.Volumes.L1Load; !(s < c) {
		t.Errorf("simulated L1 load %v strided, %v consecutive; want less strided", s, c)
	}
	table := mustRun(t, "simulate", "star2d-r1", "--domain", "256,64", "--block", "32,8", "--fold", "2,1", "--tile", "strided")
	if !strings.Contains(table, "fold 2,1,1 strided  domain 256,64,1") {
		t.Errorf("the table does not name the strided tiling:\n%.300s", table)
	}
}

// TestTileFlagErrors checks that a --tile or --tiles value other than the
// tilings is a one-line usage error naming the flag.
func TestTileFlagErrors(t *testing.T) {
	for _, args := range [][]string{
		{"predict", "vec-copy", "--tile", "diagonal"},
		{"simulate", "vec-copy", "--domain", "1024", "--tile", "Strided"},
		{"cuda", "vec-copy", "--block", "256", "--tile", ""},
		{"explore", "vec-copy", "--tiles", "strided,diagonal"},
		{"explore", "vec-copy", "--tiles", "strided,strided"},
		{"explore", "vec-copy", "--tiles", ""},
	} {
		flag := "--tile "
		if args[len(args)-2] == "--tiles" {
			flag = "--tiles "
		}
		out, errOut, code := run(t, args...)
		if code != ExitUsage || out != "" || strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, "polyvol: "+flag) {
			t.Errorf("%q: exit %d, stdout %d bytes, stderr %q; want exit 2 and one line naming %s", args, code, len(out), errOut, flag)
		}
	}
}

// TestCudaTile checks that polyvol cuda passes --tile to the generated
// program's launch.
func TestCudaTile(t *testing.T) {
	out := mustRun(t, "cuda", "star2d-r1", "--block", "32,8", "--fold", "2,1", "--tile", "strided")
	if !strings.Contains(out, "fold 2,1,1 (strided tile)") {
		t.Errorf("the program does not state the strided tile:\n%.400s", out)
	}
}

// TestExploreTilings checks the tilings of a sweep of 64 threads per block
// on star2d-r1 with folds 1,1,1 and 2,1,1: every block shape once with
// fold 1,1,1, as thread folding; with fold 2,1,1 as thread folding and, for
// the shapes with more than one thread in x, as a strided tile. --tiles
// consecutive gives the configurations of thread folding alone, and
// --tiles strided the strided tiles, fold 1,1,1 and the blocks one thread
// wide in x still as thread folding. The table and the CSV have a tiling
// column.
func TestExploreTilings(t *testing.T) {
	sweep := []string{"explore", "star2d-r1", "--domain", "256,256", "--threads", "64", "--folds", "1,1,1:2,1,1", "--all-shapes"}
	blocks, err := explore.BlockShapes(64)
	if err != nil {
		t.Fatal(err)
	}
	wide := 0
	for _, b := range blocks {
		if b[0] > 1 {
			wide++
		}
	}
	configs := func(args ...string) (*request.Exploration, map[explore.Configuration]int) {
		t.Helper()
		var e request.Exploration
		if err := json.Unmarshal([]byte(mustRun(t, append(append(sweep, args...), "--format", "json")...)), &e); err != nil {
			t.Fatal(err)
		}
		seen := map[explore.Configuration]int{}
		for _, r := range e.Rows {
			seen[explore.ReportConfiguration(r)]++
		}
		for _, s := range e.Skipped {
			seen[s.Configuration()]++
		}
		return &e, seen
	}
	e, seen := configs()
	if want := 2*len(blocks) + wide; e.Configurations != want || len(seen) != want {
		t.Errorf("%d configurations, %d distinct; want %d", e.Configurations, len(seen), want)
	}
	strided := 0
	for c, n := range seen {
		if n != 1 {
			t.Errorf("%v appears %d times", c, n)
		}
		if c.Tiling == kernel.TileStrided {
			strided++
			if c.Fold != [3]int64{2, 1, 1} || c.Block[0] == 1 {
				t.Errorf("%v is strided", c)
			}
		}
	}
	if strided != wide {
		t.Errorf("%d strided configurations, want %d", strided, wide)
	}
	if e.Tilings == nil || len(e.Tilings) != 2 {
		t.Errorf("tilings %v in the JSON", e.Tilings)
	}

	e, seen = configs("--tiles", "consecutive")
	if e.Configurations != 2*len(blocks) || len(seen) != 2*len(blocks) {
		t.Errorf("--tiles consecutive: %d configurations, %d distinct; want %d", e.Configurations, len(seen), 2*len(blocks))
	}
	for c := range seen {
		if c.Tiling != kernel.TileConsecutive {
			t.Errorf("--tiles consecutive: %v", c)
		}
	}
	e, seen = configs("--tiles", "strided")
	if e.Configurations != 2*len(blocks) || len(seen) != 2*len(blocks) {
		t.Errorf("--tiles strided: %d configurations, %d distinct; want %d", e.Configurations, len(seen), 2*len(blocks))
	}
	for c := range seen {
		if c != c.Canonical() || (c.Tiling == kernel.TileStrided) != (c.Fold[0] == 2 && c.Block[0] > 1) {
			t.Errorf("--tiles strided: %v", c)
		}
	}

	table := mustRun(t, append(sweep, "--top", "0")...)
	if !strings.Contains(table, fmt.Sprintf("(64 threads per block, 2 folds, %d strided tiles)", wide)) ||
		!strings.Contains(table, "fold       tiling  GLup/s") || !strings.Contains(table, " strided ") {
		t.Errorf("table:\n%.600s", table)
	}
	if got := mustRun(t, append(sweep, "--tiles", "consecutive")...); !strings.Contains(got, "(64 threads per block, 2 folds), 0 skipped") {
		t.Errorf("--tiles consecutive: the head names tilings:\n%.300s", got)
	}
	csv := strings.Split(mustRun(t, append(sweep, "--format", "csv")...), "\n")
	if !strings.HasPrefix(csv[0], "rank,kernel,device,method,model,block,fold,tiling,domain,registers,blocksPerSM,") {
		t.Errorf("CSV header %q", csv[0])
	}
	if n := strings.Count(strings.Join(csv, "\n"), ",strided,"); n != wide {
		t.Errorf("%d strided CSV rows, want %d", n, wide)
	}
}
