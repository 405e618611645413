package explore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/model"
)

// dims formats a block or fold as "X,Y,Z".
func dims(t [3]int64) string { return fmt.Sprintf("%d,%d,%d", t[0], t[1], t[2]) }

// TestBlockShapes checks the enumeration: 56 shapes of 1024 threads (the
// paper's 168 configurations with three folds), every shape a power of two
// per side within the hardware limits, no duplicates.
func TestBlockShapes(t *testing.T) {
	for threads, want := range map[int]int{1024: 56, 256: 42, 1: 1, 2: 3} {
		shapes, err := BlockShapes(threads)
		if err != nil {
			t.Fatal(err)
		}
		if len(shapes) != want {
			t.Errorf("%d threads: %d shapes, want %d", threads, len(shapes), want)
		}
		seen := map[[3]int64]bool{}
		for _, b := range shapes {
			l := kernel.Launch{Block: b, Fold: kernel.NoFold, Domain: [3]int64{1 << 20, 1 << 20, 1 << 10}}
			if b[0]*b[1]*b[2] != int64(threads) || l.Validate() != nil || seen[b] {
				t.Errorf("%d threads: bad or repeated shape %v", threads, b)
			}
			for _, s := range b {
				if s&(s-1) != 0 {
					t.Errorf("%v: side %d is not a power of two", b, s)
				}
			}
			seen[b] = true
		}
	}
}

// TestRankIdle checks the idle rule of the ranking on a 1-D domain of 4096
// points, where block 1024,1,1 has no idle thread, 512,2,1 has half of its
// threads idle and 1024,1,1 on a domain of 1000 points 24/1024 (edge only).
// A faster prediction does not lift a configuration with more than a
// quarter of its threads idle above one without; among equal predictions
// fewer idle threads rank first.
func TestRankIdle(t *testing.T) {
	mk := func(g float64, b [3]int64, d int64) *model.Report {
		return &model.Report{Launch: model.LaunchInfo{Block: b, Fold: [3]int64{1, 1, 1}, Domain: [3]int64{d, 1, 1}}, Prediction: model.Prediction{GLups: g}}
	}
	rs := []*model.Report{
		mk(90, [3]int64{512, 2, 1}, 4096),  // half idle, fastest prediction
		mk(50, [3]int64{1024, 1, 1}, 1000), // 24 of 1024 idle
		mk(80, [3]int64{256, 4, 1}, 4096),  // three quarters idle
		mk(50, [3]int64{1024, 1, 1}, 4096), // none idle
		mk(60, [3]int64{1024, 1, 1}, 4096), // none idle, faster
	}
	Rank(rs)
	var got []string
	for _, r := range rs {
		got = append(got, fmt.Sprintf("%s@%d:%g", dims(r.Launch.Block), r.Launch.Domain[0], r.Prediction.GLups))
	}
	want := "1024,1,1@4096:60 1024,1,1@4096:50 1024,1,1@1000:50 512,2,1@4096:90 256,4,1@4096:80"
	if strings.Join(got, " ") != want {
		t.Errorf("order %v, want %s", got, want)
	}
}

// TestRankTies checks the deterministic tie-break: equal predictions are
// ordered by block, then fold, each compared x, y, z.
func TestRankTies(t *testing.T) {
	mk := func(g float64, b, f [3]int64) *model.Report {
		return &model.Report{Launch: model.LaunchInfo{Block: b, Fold: f}, Prediction: model.Prediction{GLups: g}}
	}
	rs := []*model.Report{
		mk(10, [3]int64{32, 4, 8}, [3]int64{1, 1, 2}),
		mk(10, [3]int64{32, 4, 8}, [3]int64{1, 1, 1}),
		mk(20, [3]int64{64, 4, 4}, [3]int64{1, 1, 1}),
		mk(10, [3]int64{16, 8, 8}, [3]int64{1, 2, 1}),
	}
	Rank(rs)
	var got []string
	for _, r := range rs {
		got = append(got, dims(r.Launch.Block)+"/"+dims(r.Launch.Fold))
	}
	want := "64,4,4/1,1,1 16,8,8/1,2,1 32,4,8/1,1,1 32,4,8/1,1,2"
	if strings.Join(got, " ") != want {
		t.Errorf("order %v, want %s", got, want)
	}
}

// TestConfigurations checks the enumeration of tilings: a strided tile
// where it differs from thread folding (a dimension with fold and block
// size above 1), after the consecutive ones of each fold; fold 1 and
// blocks of one thread along the folded dimension once, as consecutive,
// also when only strided tiles are asked for.
func TestConfigurations(t *testing.T) {
	blocks, err := BlockShapes(64)
	if err != nil {
		t.Fatal(err)
	}
	folds := [][3]int64{{1, 1, 1}, {2, 1, 1}, {1, 2, 2}}
	xWide, yzWide := 0, 0 // blocks with more than one thread in x; in y or z
	for _, b := range blocks {
		if b[0] > 1 {
			xWide++
		}
		if b[1] > 1 || b[2] > 1 {
			yzWide++
		}
	}
	both, err := Configurations([]int{64}, folds, nil, [3]int64{}, true)
	if err != nil {
		t.Fatal(err)
	}
	if want := 3*len(blocks) + xWide + yzWide; len(both) != want {
		t.Errorf("%d configurations, want %d block shapes × 3 folds + %d + %d strided", len(both), len(blocks), xWide, yzWide)
	}
	seen := map[Configuration]bool{}
	for i, c := range both {
		if seen[c] || c.Canonical() != c {
			t.Errorf("configuration %d, %v: repeated or not canonical", i, c)
		}
		seen[c] = true
		if c.Fold == kernel.NoFold && c.Tiling != kernel.TileConsecutive {
			t.Errorf("configuration %d, %v: fold 1 is strided", i, c)
		}
	}
	// Folds outermost, then tilings, then blocks; thread folding alone is
	// the enumeration of blocks × folds.
	if c := both[len(blocks)+len(blocks)]; c.Fold != folds[1] || c.Tiling != kernel.TileStrided || c.Block[0] == 1 {
		t.Errorf("configuration %d is %v, want the first strided one of fold %v", 2*len(blocks), c, folds[1])
	}
	consecutive, err := Configurations([]int{64}, folds, []kernel.Tiling{kernel.TileConsecutive}, [3]int64{}, true)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range consecutive {
		if want := (Configuration{Block: blocks[i%len(blocks)], Fold: folds[i/len(blocks)]}); c != want {
			t.Fatalf("consecutive configuration %d is %v, want %v", i, c, want)
		}
	}
	strided, err := Configurations([]int{64}, folds, []kernel.Tiling{kernel.TileStrided}, [3]int64{}, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(strided) != 3*len(blocks) {
		t.Errorf("strided only: %d configurations, want %d", len(strided), 3*len(blocks))
	}
	for _, c := range strided {
		if want := (Configuration{Block: c.Block, Fold: c.Fold, Tiling: kernel.TileStrided}).Canonical(); c != want {
			t.Errorf("strided only: %v, want %v", c, want)
		}
	}
	for _, bad := range [][]kernel.Tiling{{kernel.TileStrided, kernel.TileStrided}, {kernel.Tiling(7)}} {
		if _, err := Configurations([]int{64}, folds, bad, [3]int64{}, true); err == nil {
			t.Errorf("tilings %v: no error", bad)
		}
	}
}

// TestRankTilingTies checks that equal predictions of one block and fold
// rank thread folding before the strided tile, and that the idle fraction
// is the tiling's own: on a domain of 96 points in x, block 64 with fold 2
// has 48 of its 64 threads active as thread folding but all 64 as a
// strided tile, each of whose threads has its first point in the domain,
// so of equal predictions the strided tile ranks first.
func TestRankTilingTies(t *testing.T) {
	mk := func(g float64, tiling kernel.Tiling, d int64) *model.Report {
		return &model.Report{Launch: model.LaunchInfo{Block: [3]int64{64, 1, 1}, Fold: [3]int64{2, 1, 1}, Tiling: tiling, Domain: [3]int64{d, 1, 1}},
			Prediction: model.Prediction{GLups: g}}
	}
	rs := []*model.Report{mk(10, kernel.TileStrided, 128), mk(10, kernel.TileConsecutive, 128)}
	Rank(rs)
	if rs[0].Launch.Tiling != kernel.TileConsecutive {
		t.Errorf("equal predictions: %v first, want consecutive", rs[0].Launch.Tiling)
	}
	rs = []*model.Report{mk(10, kernel.TileConsecutive, 96), mk(10, kernel.TileStrided, 96)}
	Rank(rs)
	if rs[0].Launch.Tiling != kernel.TileStrided {
		t.Errorf("equal predictions, 16 of 64 threads idle against none: %v first, want strided", rs[0].Launch.Tiling)
	}
}

// TestRunRegisters checks Config.Registers: the registers it gives one
// configuration set that configuration's occupancy alone, and a count
// outside 1 to MaxRegisters stops the exploration with a ConfigError.
func TestRunRegisters(t *testing.T) {
	k, err := kernel.ParseExample("vec-copy")
	if err != nil {
		t.Fatal(err)
	}
	k = k.WithDomain([3]int64{1 << 16, 1, 1})
	dev, err := device.Lookup("A100-40GB")
	if err != nil {
		t.Fatal(err)
	}
	heavy := Configuration{Block: [3]int64{256, 1, 1}, Fold: [3]int64{2, 1, 1}, Tiling: kernel.TileStrided}
	cfg := Config{Kernel: k, Device: dev, Threads: []int{256}, Folds: [][3]int64{{2, 1, 1}},
		Registers: func(c Configuration) int {
			if c == heavy {
				return 128 // 2 blocks of 256 threads per SM
			}
			return 0
		}}
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, r := range res.Reports {
		c := ReportConfiguration(r)
		want := int64(8) // 32 registers: the warp slots allow 8 blocks
		if c == heavy {
			want = 2
			found++
		}
		if c.Block == heavy.Block && r.Launch.BlocksPerSM != want {
			t.Errorf("%v: %d blocks per SM, want %d", c, r.Launch.BlocksPerSM, want)
		}
	}
	if found != 1 {
		t.Errorf("%v ranked %d times, want once", heavy, found)
	}
	cfg.Registers = func(Configuration) int { return MaxRegisters + 1 }
	var ce *ConfigError
	if _, err := Run(context.Background(), cfg); !errors.As(err, &ce) || !strings.Contains(err.Error(), "registers 256") {
		t.Errorf("256 registers: error %v, want a ConfigError naming them", err)
	}
}

// TestIdleShapesLeftOut checks that a 2-D domain's sweep leaves out the
// block shapes with threads along z, and a 1-D domain's all but the row of
// threads, unless all shapes are asked for.
func TestIdleShapesLeftOut(t *testing.T) {
	all, err := BlockShapes(256)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		domain [3]int64
		want   int
	}{
		{[3]int64{4096, 4096, 512}, len(all)},
		{[3]int64{4096, 4096, 1}, 9}, // 1,256,1 … 256,1,1
		{[3]int64{1 << 20, 1, 1}, 1},
	} {
		got, err := Configurations([]int{256}, [][3]int64{kernel.NoFold}, []kernel.Tiling{kernel.TileConsecutive}, c.domain, false)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != c.want {
			t.Errorf("domain %v: %d configurations, want %d", c.domain, len(got), c.want)
		}
		for _, g := range got {
			for i := range 3 {
				if c.domain[i] == 1 && g.Block[i] > 1 {
					t.Errorf("domain %v: block %v has threads along dimension %d", c.domain, g.Block, i)
				}
			}
		}
		kept, err := Configurations([]int{256}, [][3]int64{kernel.NoFold}, []kernel.Tiling{kernel.TileConsecutive}, c.domain, true)
		if err != nil || len(kept) != len(all) {
			t.Errorf("domain %v, all shapes: %d configurations, want %d (%v)", c.domain, len(kept), len(all), err)
		}
	}
}

// TestDefaultFoldsOf checks the default folds of 3-D, 2-D and 1-D domains
// and of a domain one point wide in y: no fold along a dimension without
// points.
func TestDefaultFoldsOf(t *testing.T) {
	for _, tc := range []struct {
		domain [3]int64
		want   [][3]int64
	}{
		{[3]int64{64, 64, 64}, [][3]int64{{1, 1, 1}, {1, 2, 1}, {1, 1, 2}}},
		{[3]int64{64, 64, 1}, [][3]int64{{1, 1, 1}, {1, 2, 1}}},
		{[3]int64{64, 1, 1}, [][3]int64{{1, 1, 1}}},
		{[3]int64{64, 1, 64}, [][3]int64{{1, 1, 1}, {1, 1, 2}}},
	} {
		if got := DefaultFoldsOf(tc.domain); !slices.Equal(got, tc.want) {
			t.Errorf("DefaultFoldsOf(%v) = %v, want %v", tc.domain, got, tc.want)
		}
	}
	if len(DefaultFolds) != 3 {
		t.Errorf("DefaultFoldsOf changed DefaultFolds: %v", DefaultFolds)
	}
}

// TestConfigurationsOfThreadCounts checks a sweep of two thread counts:
// the shapes of 128 threads, then those of 256, within each fold, and a
// count given twice refused.
func TestConfigurationsOfThreadCounts(t *testing.T) {
	b128, _ := BlockShapes(128)
	b256, _ := BlockShapes(256)
	folds := [][3]int64{{1, 1, 1}, {1, 2, 1}}
	got, err := Configurations([]int{128, 256}, folds, []kernel.Tiling{kernel.TileConsecutive}, [3]int64{}, true)
	if err != nil {
		t.Fatal(err)
	}
	var want []Configuration
	for _, f := range folds {
		for _, b := range append(slices.Clone(b128), b256...) {
			want = append(want, Configuration{Block: b, Fold: f})
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("got %d configurations, want %d: the 128-thread shapes, then the 256-thread ones, per fold", len(got), len(want))
	}
	if _, err := Configurations([]int{128, 128}, folds, nil, [3]int64{}, true); err == nil || !strings.Contains(err.Error(), "128 appears twice") {
		t.Errorf("threads 128 twice: %v, want an error", err)
	}
}

// TestShardPartition checks that the shards 1..N of an exploration hold
// every configuration exactly once, against an enumeration: Holds names
// the one shard each index belongs to, the configurations K-1, K-1+N, ...,
// and Size counts the indices Holds gives the shard.
func TestShardPartition(t *testing.T) {
	for configurations := range 20 {
		if got := (Shard{}).Size(configurations); got != configurations {
			t.Errorf("the whole exploration of %d configurations has size %d", configurations, got)
		}
		for count := 1; count <= 7; count++ {
			owners := make([]int, configurations)
			for index := 1; index <= count; index++ {
				s := Shard{Index: index, Count: count}
				var held []int
				for i := range configurations {
					if s.Holds(i) {
						owners[i]++
						held = append(held, i)
					}
				}
				var want []int
				for i := index - 1; i < configurations; i += count {
					want = append(want, i)
				}
				if !slices.Equal(held, want) || s.Size(configurations) != len(want) {
					t.Errorf("shard %d/%d of %d configurations holds %v (size %d); want %v", index, count, configurations, held, s.Size(configurations), want)
				}
			}
			for i, n := range owners {
				if n != 1 {
					t.Errorf("configuration %d of %d is in %d of %d shards; want 1", i, configurations, n, count)
				}
			}
		}
	}
}
