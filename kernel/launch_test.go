package kernel

import (
	"strings"
	"testing"
)

// TestGridCheckCases compares Grid with the grids of docs/metrics.md §7.3.
func TestGridCheckCases(t *testing.T) {
	tests := []struct {
		name                 string
		block, fold, domain  [3]int64
		grid, threadDomain   [3]int64
		threads, lupsPerThrd int64
		blocks               int64 // the grid's volume
	}{
		{"C1", [3]int64{1024, 1, 1}, NoFold, [3]int64{1000000, 1, 1}, [3]int64{977, 1, 1}, [3]int64{1000000, 1, 1}, 1024, 1, 977},
		{"C2", [3]int64{512, 1, 1}, NoFold, [3]int64{15000, 15000, 1}, [3]int64{30, 15000, 1}, [3]int64{15000, 15000, 1}, 512, 1, 450000},
		{"C3", [3]int64{256, 1, 2}, NoFold, [3]int64{640, 512, 512}, [3]int64{3, 512, 256}, [3]int64{640, 512, 512}, 512, 1, 393216},
		{"C5", [3]int64{64, 4, 4}, [3]int64{1, 1, 2}, [3]int64{640, 512, 512}, [3]int64{10, 128, 64}, [3]int64{640, 512, 256}, 1024, 2, 81920},
		{"odd fold", [3]int64{32, 1, 1}, [3]int64{3, 1, 1}, [3]int64{100, 1, 1}, [3]int64{2, 1, 1}, [3]int64{34, 1, 1}, 32, 3, 2},
	}
	for _, tc := range tests {
		l := Launch{Block: tc.block, Fold: tc.fold, Domain: tc.domain}
		if err := l.Validate(); err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
		if l.Grid() != tc.grid || l.ActiveThreads() != tc.threadDomain || l.ThreadsPerBlock() != tc.threads || l.LupsPerThread() != tc.lupsPerThrd || l.Blocks() != tc.blocks {
			t.Errorf("%s: grid %v, thread domain %v, %d threads, %d lups/thread, %d blocks", tc.name, l.Grid(), l.ActiveThreads(), l.ThreadsPerBlock(), l.LupsPerThread(), l.Blocks())
		}
	}
}

func TestLaunchValidateErrors(t *testing.T) {
	ok := Launch{Block: [3]int64{32, 4, 2}, Fold: NoFold, Domain: [3]int64{100, 100, 100}}
	tests := []struct {
		edit func(*Launch)
		want string
	}{
		{func(l *Launch) { l.Block[0] = 0 }, "block x = 0"},
		{func(l *Launch) { l.Block[1] = 2048 }, "block y = 2048: exceeds the hardware limit 1024"},
		{func(l *Launch) { l.Block[2] = 128 }, "block z = 128: exceeds the hardware limit 64"},
		{func(l *Launch) { l.Block = [3]int64{64, 8, 4} }, "2048 threads"},
		{func(l *Launch) { l.Fold[2] = 0 }, "fold z = 0"},
		{func(l *Launch) { l.Fold[1] = 101 }, "fold y = 101: larger than the domain"},
		{func(l *Launch) { l.Domain[0] = -1 }, "domain x = -1"},
		{func(l *Launch) { l.Fold = [3]int64{64, 32, 1} }, "fold 64×32×1 gives more than 1024 lattice points per thread"},
		{func(l *Launch) { l.Fold = [3]int64{2, 1 << 40, 1 << 40}; l.Domain = [3]int64{2, 1 << 40, 1 << 40} }, "lattice points per thread"},
		{func(l *Launch) { l.Domain = [3]int64{1 << 20, 1 << 20, 1 << 20} }, "2^50"},
	}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range tests {
		l := ok
		tc.edit(&l)
		if err := l.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("got %v, want an error containing %q", err, tc.want)
		}
	}
}

func TestParseTriple(t *testing.T) {
	good := map[string][3]int64{"256,1,2": {256, 1, 2}, "64": {64, 1, 1}, " 16, 2 ": {16, 2, 1}, "16x2x32": {16, 2, 32}, "64x4": {64, 4, 1}}
	for s, want := range good {
		if got, err := ParseTriple(s); err != nil || got != want {
			t.Errorf("ParseTriple(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	bad := map[string]string{"": "entry 1 (x)", "1,2,3,4": "got 4 entries", "8,a": `entry 2 (y): "a"`, "8,0": "entry 2 (y) = 0", "1,,2": "entry 2", "1x2x3x4": "got 4 entries", "16x2,4": `entry 1 (x): "16x2"`}
	for s, want := range bad {
		if _, err := ParseTriple(s); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseTriple(%q) error %v, want containing %q", s, err, want)
		}
	}
}

func TestFoldRelationISL(t *testing.T) {
	want := "{ [x, y, z] -> [px, py, pz] : 1x <= px < 1x + 1 and 1y <= py < 1y + 1 and 2z <= pz < 2z + 2 }"
	if got := FoldRelationISL([3]int64{1, 1, 2}); got != want {
		t.Errorf("got %s", got)
	}
}

func TestGridNote(t *testing.T) {
	l := Launch{Block: [3]int64{256, 2, 1}, Fold: NoFold, Domain: [3]int64{1 << 20, 2 * 65535, 1}}
	if n := l.GridNote(); n != "" {
		t.Errorf("grid %v: note %q, want none", l.Grid(), n)
	}
	l.Domain[1]++ // 65536 blocks in y
	if n := l.GridNote(); !strings.Contains(n, "grid y = 65536 blocks exceeds the 65535") {
		t.Errorf("grid %v: note %q", l.Grid(), n)
	}
}
