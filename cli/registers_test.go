package cli

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/polyvol/polyvol/explore"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/request"
)

// csvColumn returns the cells of the named column of CSV output, the
// header left out.
func csvColumn(t *testing.T, out, name string) []string {
	t.Helper()
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil || len(recs) == 0 {
		t.Fatalf("not CSV: %v", err)
	}
	i := slices.Index(recs[0], name)
	if i < 0 {
		t.Fatalf("no column %s in %q", name, recs[0])
	}
	var cells []string
	for _, r := range recs[1:] {
		cells = append(cells, r[i])
	}
	return cells
}

// TestPredictRegisters checks --registers on the A100-40GB, whose SM has
// 65536 registers: 256 threads × 128 registers fill it with 2 blocks, and
// a note says so and that 80 registers would allow 3 (model's
// TestRegisterNoteHand has the arithmetic); 255 registers, the device's
// maximum, add that spilling is likely; the spec's 32 registers leave the
// warp slots the limit, without a note. Values outside 1 to 255 are usage
// errors naming the flag.
func TestPredictRegisters(t *testing.T) {
	args := []string{"predict", "star2d-r1", "--block", "256,1,1", "--format", "csv"}
	for _, tc := range []struct {
		registers string
		blocks    string
		note      string
	}{
		{"", "8", ""},
		{"128", "2", "polyvol: note: occupancy is limited by registers: 2 blocks of 256 threads per SM at 128 registers per thread; at most 80 registers per thread would allow 3\n"},
		{"255", "1", "polyvol: note: occupancy is limited by registers: 1 block of 256 threads per SM at 255 registers per thread; at most 128 registers per thread would allow 2; spilling likely: 255 registers per thread reach the 255 a thread may have on A100-40GB"},
	} {
		cmd := args
		if tc.registers != "" {
			cmd = append(slices.Clone(args), "--registers", tc.registers)
		}
		out, errOut, code := run(t, cmd...)
		if code != ExitOK {
			t.Fatalf("%q: exit %d: %s", cmd, code, errOut)
		}
		want := tc.registers
		if want == "" {
			want = strconv.Itoa(kernel.DefaultRegisters)
		}
		if got := csvColumn(t, out, "registers"); !slices.Equal(got, []string{want}) {
			t.Errorf("%q: registers column %q, want %s", cmd, got, want)
		}
		if got := csvColumn(t, out, "blocksPerSM"); !slices.Equal(got, []string{tc.blocks}) {
			t.Errorf("%q: blocksPerSM %q, want %s", cmd, got, tc.blocks)
		}
		if !strings.HasPrefix(errOut, tc.note) || (tc.note == "") != (errOut == "") {
			t.Errorf("%q: stderr %q, want it to start %q", cmd, errOut, tc.note)
		}
	}
	for _, bad := range []string{"0", "256", "-1", "many"} {
		for _, cmd := range []string{"predict", "explore"} {
			out, errOut, code := run(t, cmd, "vec-copy", "--registers", bad)
			if code != ExitUsage || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "registers") {
				t.Errorf("%s --registers %s: exit %d, stderr %q; want a one-line usage error naming the flag", cmd, bad, code, errOut)
			}
		}
	}
}

// TestExploreRegisters checks explore --registers: every row has the
// registers, and a note names the best ranks whose occupancy they limit.
func TestExploreRegisters(t *testing.T) {
	sweep := []string{"explore", "vec-copy", "--domain", "65536", "--threads", "256", "--folds", "1,1,1", "--registers", "128", "--all-shapes"}
	out, errOut, code := run(t, append(sweep, "--top", "3")...)
	want := "polyvol: note: ranks 1, 2, 3: occupancy is limited by registers: 2 blocks of 256 threads per SM at 128 registers per thread; at most 80 registers per thread would allow 3\n"
	if code != ExitOK || errOut != want {
		t.Errorf("exit %d, stderr %q; want %q", code, errOut, want)
	}
	if !strings.Contains(out, "1     256,1,1  1,1,1  consecutive") {
		t.Errorf("table:\n%s", out)
	}
	csvOut := mustRun(t, append(sweep, "--format", "csv")...)
	for i, r := range csvColumn(t, csvOut, "registers") {
		if r != "128" {
			t.Errorf("CSV row %d: registers %s, want 128", i+1, r)
		}
	}
}

// writeTableFile writes a file of the given text into dir.
func writeTableFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestExploreRegistersTable explores star2d-r1 with blocks of 64 threads
// and folds 1,1,1 and 2,1,1 with a registers table: the strided tile of
// block 64,1,1 fold 2,1,1 has 128 registers, 2 warps × 4096 of the 65536,
// 8 blocks per SM where the spec's 32 registers give 32; block 32,2,1 has
// 96 with both tilings, which for fold 1,1,1 are one configuration; block
// 16,4,1 fold 2,1,1 has 40 as thread folding only. A block of 128 threads
// is no configuration of the sweep, which a note says. Rows not in the
// table have the spec's 32 registers. Sharded and merged, the sweep gives
// the unsharded output.
func TestExploreRegistersTable(t *testing.T) {
	dir := t.TempDir()
	table := writeTableFile(t, dir, "regs.csv", "\uFEFFblock, fold ,tiling,registers\n"+
		"# compiled by hand\n"+
		`"64,1,1","2,1,1",strided,128`+"\n"+
		"32x2x1,1x1x1,,96\n"+
		`"16,4,1","2,1,1",consecutive,40`+"\n"+
		`"128,1,1",1,,64`+"\n")
	sweep := []string{"explore", "star2d-r1", "--domain", "256,256", "--threads", "64", "--folds", "1,1,1:2,1,1", "--registers-table", table}
	out, errOut, code := run(t, append(sweep, "--format", "json")...)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var e request.Exploration
	if err := json.Unmarshal([]byte(out), &e); err != nil {
		t.Fatal(err)
	}
	wantTable := []request.RegistersEntry{
		{Configuration: explore.Configuration{Block: [3]int64{16, 4, 1}, Fold: [3]int64{2, 1, 1}}, Registers: 40},
		{Configuration: explore.Configuration{Block: [3]int64{32, 2, 1}, Fold: [3]int64{1, 1, 1}}, Registers: 96},
		{Configuration: explore.Configuration{Block: [3]int64{64, 1, 1}, Fold: [3]int64{2, 1, 1}, Tiling: kernel.TileStrided}, Registers: 128},
		{Configuration: explore.Configuration{Block: [3]int64{128, 1, 1}, Fold: [3]int64{1, 1, 1}}, Registers: 64},
	}
	if !slices.Equal(e.RegistersTable, wantTable) || e.Registers != 32 {
		t.Errorf("registers %d, table %+v; want 32 and %+v", e.Registers, e.RegistersTable, wantTable)
	}
	if !strings.Contains(errOut, "regs.csv: 1 configuration of 4 match no configuration of the sweep") || !strings.Contains(errOut, "line 6, block 128,1,1 fold 1,1,1") {
		t.Errorf("stderr %q lacks the note on block 128,1,1", errOut)
	}
	blocks := map[explore.Configuration]int64{}
	for _, r := range e.Rows {
		blocks[explore.ReportConfiguration(r)] = r.Launch.BlocksPerSM
	}
	for c, want := range map[explore.Configuration]int64{
		{Block: [3]int64{64, 1, 1}, Fold: [3]int64{2, 1, 1}, Tiling: kernel.TileStrided}: 8,
		{Block: [3]int64{64, 1, 1}, Fold: [3]int64{2, 1, 1}}:                             32,
		{Block: [3]int64{32, 2, 1}, Fold: [3]int64{1, 1, 1}}:                             10, // 96 registers: 3072 per warp, 20 warps
	} {
		if blocks[c] != want {
			t.Errorf("%v: %d blocks per SM, want %d", c, blocks[c], want)
		}
	}
	csvOut := mustRun(t, append(sweep, "--format", "csv")...)
	configs, regs := csvColumn(t, csvOut, "block"), csvColumn(t, csvOut, "registers")
	folds, tilings := csvColumn(t, csvOut, "fold"), csvColumn(t, csvOut, "tiling")
	for i := range configs {
		want := "32"
		switch configs[i] + " " + folds[i] + " " + tilings[i] {
		case "64x1x1 2x1x1 strided":
			want = "128"
		case "32x2x1 1x1x1 consecutive":
			want = "96"
		case "16x4x1 2x1x1 consecutive":
			want = "40"
		}
		if regs[i] != want {
			t.Errorf("CSV %s %s %s: registers %s, want %s", configs[i], folds[i], tilings[i], regs[i], want)
		}
	}

	var shards []string
	for k := 1; k <= 2; k++ {
		shards = append(shards, writeTableFile(t, dir, fmt.Sprintf("shard%d.json", k), mustRun(t, append(sweep, "--format", "csv", "--shard", fmt.Sprintf("%d/2", k))...)))
	}
	if got := mustRun(t, append([]string{"merge"}, shards...)...); got != csvOut {
		t.Errorf("merge differs from the unsharded run:\n%s", firstDiff(csvOut, got))
	}
	// A shard run with another table is another sweep.
	other := writeTableFile(t, dir, "other.csv", "block,fold,registers\n\"64,1,1\",\"2,1,1\",200\n")
	alien := writeTableFile(t, dir, "alien.json", mustRun(t, "explore", "star2d-r1", "--domain", "256,256", "--threads", "64", "--folds", "1,1,1:2,1,1", "--registers-table", other, "--shard", "2/2"))
	if _, errOut, code := run(t, "merge", shards[0], alien); code != ExitUsage || !strings.Contains(errOut, "different exploration") {
		t.Errorf("merge of shards with different tables: exit %d, stderr %q", code, errOut)
	}
}

// TestRegistersTableErrors checks that a malformed --registers-table is a
// one-line usage error that names the file and line.
func TestRegistersTableErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, text, want string
	}{
		{"empty", "", "empty.csv: empty; expected the header block,fold,tiling,registers"},
		{"comment-only", "# nothing\n", "comment-only.csv: empty"},
		{"no-registers", "block,fold\n256,1\n", "no-registers.csv:1: the header has no column registers"},
		{"unknown-column", "block,fold,regs\n", `unknown-column.csv:1: column 3 "regs": expected a header of the columns block, fold, tiling, registers`},
		{"twice", "block,fold,block,registers\n", "twice.csv:1: column block appears twice"},
		{"bad-block", "block,fold,registers\n256,1,32\n16y4,1,32\n", `bad-block.csv:3: block "16y4": entry 1 (x): "16y4" is not an integer`},
		{"big-block", "block,fold,registers\n\n2048,1,32\n", "big-block.csv:3: block x = 2048: exceeds the hardware limit 1024"},
		{"too-many-threads", "block,fold,registers\n\"64,64\",1,32\n", "too-many-threads.csv:2: block 64×64×1 has 4096 threads"},
		{"bad-fold", "block,fold,registers\n256,0,32\n", `bad-fold.csv:2: fold "0": entry 1 (x) = 0: must be at least 1`},
		{"bad-tiling", "block,fold,tiling,registers\n256,2,diagonal,32\n", `bad-tiling.csv:2: tiling "diagonal": expected consecutive or strided`},
		{"zero-registers", "block,fold,registers\n256,1,0\n", `zero-registers.csv:2: registers "0": expected an integer from 1 to 255`},
		{"many-registers", "block,fold,registers\n256,1,256\n", `many-registers.csv:2: registers "256"`},
		{"text-registers", "block,fold,registers\n256,1,lots\n", `text-registers.csv:2: registers "lots"`},
		{"fields", "block,fold,registers\n256,1,1,32\n", "fields.csv:2: wrong number of fields"},
		{"quote", "block,fold,registers\n\"256,1,32\n", "quote.csv:2: extraneous or missing \" in quoted-field"},
		{"duplicate", "block,fold,tiling,registers\n256,2,strided,40\n256x1x1,2x1x1,,48\n", "duplicate.csv:3: block 256,1,1 fold 2,1,1 strided is given again (first on line 2)"},
		{"same-launch", "block,fold,tiling,registers\n\"1,256\",\"2,1\",strided,40\n\"1,256\",\"2,1\",consecutive,48\n", "same-launch.csv:3: block 1,256,1 fold 2,1,1 is given again (first on line 2)"},
	} {
		path := writeTableFile(t, dir, tc.name+".csv", tc.text)
		out, errOut, code := run(t, "explore", "vec-copy", "--registers-table", path)
		if code != ExitUsage || out != "" || strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, "polyvol: "+filepath.Join(dir, "")) || !strings.Contains(errOut, tc.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 and one line with %q", tc.name, code, errOut, tc.want)
		}
	}
	big := writeTableFile(t, dir, "big.csv", "block,fold,registers\n"+strings.Repeat("# padding\n", maxRegistersTableBytes/10+1))
	if _, errOut, code := run(t, "explore", "vec-copy", "--registers-table", big); code != ExitUsage || !strings.Contains(errOut, "larger than 1024 KiB") {
		t.Errorf("a table over the bound: exit %d, stderr %q", code, errOut)
	}
	for _, path := range []string{dir, "/dev/zero", filepath.Join(dir, "none.csv")} {
		if _, errOut, code := run(t, "explore", "vec-copy", "--registers-table", path); code != ExitUsage || !strings.HasPrefix(errOut, "polyvol: --registers-table") {
			t.Errorf("--registers-table %s: exit %d, stderr %q", path, code, errOut)
		}
	}
}

// formatRegistersTable writes entries as a --registers-table file, block
// and fold as XxYxZ, every tiling named.
func formatRegistersTable(entries []request.RegistersEntry) []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	_ = w.Write(registersTableHeader)
	for _, e := range entries {
		_ = w.Write([]string{dims(e.Block), dims(e.Fold), e.Tiling.String(), strconv.Itoa(e.Registers)})
	}
	w.Flush()
	return b.Bytes()
}

// FuzzRegistersTable feeds arbitrary bytes to the --registers-table
// parser: it must return a one-line usage error that names the file, or a
// table whose entries are canonical configurations in order, each once,
// with 1 to 255 registers, that reads back the same when written out, and
// whose lookup gives every entry's registers.
func FuzzRegistersTable(f *testing.F) {
	f.Add([]byte("block,fold,tiling,registers\n\"256,1,2\",\"1,1,2\",strided,64\n64x4x4,1x2x1,,72\n"))
	f.Add([]byte("registers,fold,block\n40,1,1024\n"))
	f.Add([]byte("\uFEFFblock,fold,registers\n# comment\n\"1,256\",2,40\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tab, err := parseRegistersTable("t.csv", data)
		if err != nil {
			checkOneLineUsage(t, "parseRegistersTable", err)
			if !strings.HasPrefix(err.Error(), "t.csv") && !strings.HasPrefix(err.Error(), "--registers-table t.csv") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		for i, e := range tab.entries {
			if e.Configuration != e.Canonical() || e.Registers < 1 || e.Registers > explore.MaxRegisters ||
				(i > 0 && explore.CompareConfigurations(tab.entries[i-1].Configuration, e.Configuration) >= 0) {
				t.Fatalf("entry %d: %+v", i, e)
			}
			if got := tab.lookup(e.Configuration); got != e.Registers {
				t.Fatalf("lookup(%v) = %d, want %d", e.Configuration, got, e.Registers)
			}
		}
		again, err := parseRegistersTable("t.csv", formatRegistersTable(tab.entries))
		if err != nil {
			t.Fatalf("the table written out does not read back: %v", err)
		}
		if !slices.Equal(again.entries, tab.entries) {
			t.Fatalf("read back %+v, want %+v", again.entries, tab.entries)
		}
	})
}
