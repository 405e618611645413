package accuracy

import (
	"errors"
	"math"
	"testing"

	"github.com/polyvol/polyvol/measured"
	"github.com/polyvol/polyvol/model"
)

// TestCompareMeasured checks CompareMeasured on a synthetic sweep of three
// configurations of 32 lattice updates each (so that a sector counter is
// its level's B/Lup and a byte counter 32 times it) against two made-up
// methods, with MAPE, ρ and the predicted best counted by hand.
func TestCompareMeasured(t *testing.T) {
	row := func(line int, glups float64, counters map[string]float64) measured.Row {
		return measured.Row{Kernel: "k", Block: [3]int64{int64(32 * line), 1, 1}, Fold: [3]int64{1, 1, 1}, Lups: 32, GLups: glups, Counters: counters, Line: line}
	}
	sweep := &measured.Sweep{Path: "synthetic.csv", Rows: []measured.Row{
		row(1, 100, map[string]float64{measured.CounterL2Read: 10, measured.CounterDRAMRead: 320, measured.CounterWavefronts: 4}),
		row(2, 50, map[string]float64{measured.CounterL2Read: 20, measured.CounterDRAMRead: 640}),
		row(3, 80, map[string]float64{measured.CounterL2Read: 40, measured.CounterWavefronts: 8}),
	}}
	exact, reference := model.MethodExact, model.MethodReference
	// Per method and row: L2LoadV2, memLoadV4, L1 data-pipe cycles per Lup,
	// GLup/s.
	pred := map[string][3][4]float64{
		exact.Name:     {{11, 10, 0.125, 90}, {18, 30, 1, 60}, {40, 1, 0.1875, 100}},
		reference.Name: {{40, 10, 0.125, 100}, {20, 20, 1, 50}, {10, 1, 0.25, 80}},
	}
	calls := 0
	cmp, err := CompareMeasured([]*measured.Sweep{{Path: "empty.csv"}, sweep}, []model.Method{exact, reference},
		func(si, i int, m model.Method) (*model.Report, error) {
			calls++
			if si != 1 {
				t.Fatalf("estimate of sweep %d, which has no rows", si)
			}
			p := pred[m.Name][i]
			return &model.Report{Derived: model.Derived{L2LoadV2: p[0], MemLoadV4: p[1], L1DataPipeCyclesPerLup: p[2]}, Prediction: model.Prediction{GLups: p[3]}}, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	if calls != 6 || len(cmp) != 1 || cmp[0].Sweep != sweep || len(cmp[0].Levels) != 2*len(measured.Levels) || len(cmp[0].Perf) != 2 {
		t.Fatalf("%d estimates, %d comparisons; want 6 estimates and one sweep with %d levels and 2 methods", calls, len(cmp), 2*len(measured.Levels))
	}
	nan := math.NaN()
	for _, want := range []LevelAccuracy{
		// 11, 18, 40 against 10, 20, 40: errors 10 %, 10 %, 0 %; same order.
		{Predicted: "L2LoadV2", Method: exact.Name, N: 3, MAPE: 20.0 / 3, Rho: 1},
		// 40, 20, 10 against 10, 20, 40: errors 300 %, 0 %, 75 %; reversed.
		{Predicted: "L2LoadV2", Method: reference.Name, N: 3, MAPE: 125, Rho: -1},
		// Rows 1 and 2 measured 10 and 20 B/Lup: 10, 30 give 0 %, 50 %.
		{Predicted: "memLoadV4", Method: exact.Name, N: 2, MAPE: 25, Rho: 1},
		// Rows 1 and 3 measured 4 and 8 per 32 Lup: 32·0.125 = 4 and
		// 32·0.1875 = 6 give 0 %, 25 %.
		{Predicted: "32·L1DataPipeCycles", Method: exact.Name, N: 2, MAPE: 12.5, Rho: 1},
		// No row measured the stores: nothing to compare.
		{Predicted: "L2Store", Method: exact.Name, N: 0, MAPE: nan, Rho: nan},
		{Predicted: "memStoreV2", Method: reference.Name, N: 0, MAPE: nan, Rho: nan},
	} {
		found := false
		for _, got := range cmp[0].Levels {
			if got.Predicted == want.Predicted && got.Method == want.Method {
				found = true
				if got.N != want.N || !agrees(got.MAPE, want.MAPE) || !agrees(got.Rho, want.Rho) {
					t.Errorf("%s %s: n %d, MAPE %v, ρ %v; want %d, %v, %v", want.Predicted, want.Method, got.N, got.MAPE, got.Rho, want.N, want.MAPE, want.Rho)
				}
			}
		}
		if !found {
			t.Errorf("no level %s for %s", want.Predicted, want.Method)
		}
	}
	// exact: 90, 60, 100 against 100, 50, 80: errors 10 %, 20 %, 25 %;
	// ranks 2, 1, 3 against 3, 1, 2 give ρ = 1 − 6·2/(3·8) = 0.5. It
	// predicts row 3 fastest, measured second at 80 % of the best.
	// reference predicts the measurements exactly.
	for i, want := range []BestAccuracy{
		{Method: exact.Name, N: 3, MAPE: 55.0 / 3, Rho: 0.5, Best: measured.Best{Index: 2, MeasuredRank: 2, Fraction: 0.8}, PredGLups: 100},
		{Method: reference.Name, N: 3, MAPE: 0, Rho: 1, Best: measured.Best{Index: 0, MeasuredRank: 1, Fraction: 1}, PredGLups: 100},
	} {
		got := cmp[0].Perf[i]
		if got.Method != want.Method || got.N != want.N || !agrees(got.MAPE, want.MAPE) || !agrees(got.Rho, want.Rho) ||
			got.Best.Index != want.Best.Index || got.Best.MeasuredRank != want.Best.MeasuredRank || !agrees(got.Best.Fraction, want.Best.Fraction) ||
			got.Row.Line != want.Best.Index+1 || got.PredGLups != want.PredGLups {
			t.Errorf("performance %d: %+v, want %+v (row line %d)", i, got, want, want.Best.Index+1)
		}
	}

	boom := errors.New("boom")
	if _, err := CompareMeasured([]*measured.Sweep{sweep}, []model.Method{exact}, func(int, int, model.Method) (*model.Report, error) { return nil, boom }); err != boom {
		t.Errorf("estimate error: got %v, want it returned as it is", err)
	}
}

// agrees reports whether a and b agree to 1e-12, both NaN included.
func agrees(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Abs(a-b) <= 1e-12*max(1, math.Abs(b))
}

// TestMeasuredQuantity checks the one mapping from counters to model
// quantities: every volume of Levels is found by its counter with its
// value in an estimate, the wavefronts are 32 data-pipe cycles per Lup, the
// timing counters have no model quantity, and every column of the published
// measurements names a level.
func TestMeasuredQuantity(t *testing.T) {
	d := model.Derived{L1Load: 1, L2LoadV2: 2, L2Store: 3, MemLoadV4: 4, MemStoreV2: 5, L1DataPipeCyclesPerLup: 0.5}
	for counter, want := range map[string]struct {
		key string
		v   float64
	}{
		measured.CounterL1Sectors:  {"L1Load", 1},
		measured.CounterL2Read:     {"L2LoadV2", 2},
		measured.CounterL2Write:    {"L2Store", 3},
		measured.CounterDRAMRead:   {"memLoadV4", 4},
		measured.CounterDRAMWrite:  {"memStoreV2", 5},
		measured.CounterWavefronts: {"32·L1DataPipeCycles", 16},
	} {
		q, ok := MeasuredQuantity(counter)
		if !ok {
			t.Errorf("%s: no model quantity, want %q", counter, want.key)
		} else if q.Key != want.key || q.Of(d) != want.v {
			t.Errorf("%s: %q = %v, want %q = %v", counter, q.Key, q.Of(d), want.key, want.v)
		}
	}
	for _, counter := range []string{measured.CounterTime, measured.CounterWarps} {
		if _, ok := MeasuredQuantity(counter); ok {
			t.Errorf("%s has a model quantity", counter)
		}
	}
	for _, col := range hardwareColumns {
		if _, ok := levelOf(col.counter); !ok {
			t.Errorf("column %s: counter %s names no level", col.column, col.counter)
		}
	}
}
