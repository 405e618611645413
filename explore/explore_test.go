package explore

import (
	"fmt"
	"strings"
	"testing"

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
