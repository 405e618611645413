package measured

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func readSample(t *testing.T) *Sweep {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "sample-synthetic.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := ReadCSV(f, "sample-synthetic.csv")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestReadCSVSample(t *testing.T) {
	s := readSample(t)
	if s.Name() != "sample-synthetic" || s.Get("clocks_mhz") != "sm=1980 mem=2619" || s.Get("runtime") != "none" {
		t.Errorf("meta: %+v", s.Meta)
	}
	if len(s.Rows) != 4 {
		t.Fatalf("%d rows, want 4", len(s.Rows))
	}
	r := s.Rows[3]
	if r.Kernel != "vec-copy" || r.Block != [3]int64{64, 1, 1} || r.Fold != [3]int64{2, 1, 1} ||
		r.Domain != [3]int64{65536, 1, 1} || r.Lups != 65536 || r.Reps != 10 || r.GLups != 90 || r.Line != 12 {
		t.Errorf("row 4: %+v", r)
	}
	if _, ok := r.Counters[CounterWavefronts]; ok {
		t.Errorf("row 4: the empty wavefront cell should be absent")
	}
	// Row 1 was built to convert to round numbers.
	want := map[string]float64{"L2→L1 load": 8, "L1→L2 store": 8, "DRAM load": 9, "DRAM store": 8, "L1 wavefronts": 4, "L1 load": 8}
	for _, l := range Levels {
		v, ok := s.Rows[0].PerLup(l)
		if !ok || v != want[l.Name] {
			t.Errorf("row 1 %s = %v (%v), want %v %s", l.Name, v, ok, want[l.Name], l.Unit)
		}
	}
	if _, ok := r.PerLup(Levels[4]); ok {
		t.Errorf("row 4 has no wavefront value")
	}
}

func TestReadCSVErrors(t *testing.T) {
	head := strings.Join(Header(), ",")
	good := "k,1,1,1,1,1,1,2,2,2,8,1,1,1,1,1,1,1,1,1,1,1"
	for _, tc := range []struct{ src, want string }{
		{"# only comments\n", "no header line"},
		{"kernel,block_x\n", `lacks the column "block_y"`},
		{head + "\n" + strings.Replace(good, ",8,", ",9,", 1) + "\n", "x.csv:2: column lups = 9, but the domain has 8"},
		{head + "\n" + strings.Replace(good, "k,1,", "k,0,", 1) + "\n", "column block_x"},
		{head + "\n" + good + ",\n# late\n", "x.csv:3: comment line after the header"},
		{head + "\n" + strings.Replace(good, ",1,1,1,1,1,1,1,1,1,1,1", ",1,1,1,-1,1,1,1,1,1,1,1", 1) + "\n", "expected a non-negative number"},
		{head + ",kernel\n", "appears twice"},
		// 4294967297² wraps around to the lups 8589934593 in int64.
		{head + "\n" + strings.Replace(good, ",2,2,2,8,", ",4294967297,4294967297,1,8589934593,", 1) + "\n", "x.csv:2: domain 4294967297×4294967297×1: more lattice points than an int64 holds"},
		{head + "\n" + strings.Replace(good, ",2,2,2,8,", ",3037000500,3037000500,3037000500,8,", 1) + "\n", "x.csv:2: domain 3037000500×3037000500×3037000500: more lattice points"},
	} {
		_, err := ReadCSV(strings.NewReader(tc.src), "x.csv")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ReadCSV(%q) = %v, want an error containing %q", tc.src, err, tc.want)
		}
	}
}

func TestLoadDir(t *testing.T) {
	sweeps, err := LoadDir(t.TempDir())
	if err != nil || len(sweeps) != 0 {
		t.Errorf("empty dir: %v, %v", sweeps, err)
	}
	if _, err := LoadDir(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Errorf("missing dir: no error")
	}
	sweeps, err = LoadDir("testdata")
	if err != nil || len(sweeps) != 1 || len(sweeps[0].Rows) != 4 {
		t.Errorf("testdata: %v, %v", sweeps, err)
	}
}

func TestMAPE(t *testing.T) {
	if got := MAPE([]float64{11, 18, 5}, []float64{10, 20, 0}); math.Abs(got-10) > 1e-12 {
		t.Errorf("MAPE = %v, want 10 (the zero measurement is skipped)", got)
	}
	if !math.IsNaN(MAPE(nil, nil)) {
		t.Errorf("MAPE of nothing should be NaN")
	}
}

func TestSpearman(t *testing.T) {
	for _, tc := range []struct {
		a, b []float64
		want float64
	}{
		{[]float64{1, 2, 3, 4}, []float64{10, 20, 30, 40}, 1},
		{[]float64{1, 2, 3, 4}, []float64{4, 3, 2, 1}, -1},
		// d = (0, 0, −2, 1, 1) with distinct ranks: 1 − 6·6/(5·24) = 0.7.
		{[]float64{1, 2, 3, 4, 5}, []float64{1, 2, 5, 3, 4}, 0.7},
		// ties: ranks of b are (1.5, 1.5, 3); Pearson of (1,2,3) and those.
		{[]float64{1, 2, 3}, []float64{7, 7, 9}, math.Sqrt(3) / 2},
	} {
		if got := Spearman(tc.a, tc.b); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("Spearman(%v, %v) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
	if !math.IsNaN(Spearman([]float64{1, 2}, []float64{3, 3})) || !math.IsNaN(Spearman([]float64{1}, []float64{1})) {
		t.Errorf("constant or single input should give NaN")
	}
}

func TestPredictedBest(t *testing.T) {
	// The paper's situation in miniature: the predicted best is measured
	// third, at 50.7/53 of the measured best.
	pred := []float64{40, 60, 55, 50}
	meas := []float64{53, 50.7, 51, 52}
	b := PredictedBest(pred, meas)
	if b.Index != 1 || b.MeasuredRank != 4 || math.Abs(b.Fraction-50.7/53) > 1e-12 {
		t.Errorf("PredictedBest = %+v", b)
	}
	// Tied predictions (within rounding) are credited with the slowest of
	// them, whatever their order.
	tied := PredictedBest([]float64{60, 60 * (1 + 1e-12), 55}, []float64{52, 50, 53})
	if tied.Index != 1 || tied.MeasuredRank != 3 || math.Abs(tied.Fraction-50.0/53) > 1e-12 {
		t.Errorf("PredictedBest with ties = %+v", tied)
	}
	if PredictedBest(nil, nil).Index != -1 {
		t.Errorf("empty input should give index -1")
	}
}

// FuzzReadCSV checks that no input crashes the parser and that accepted
// rows are consistent.
func FuzzReadCSV(f *testing.F) {
	data, err := os.ReadFile(filepath.Join("testdata", "sample-synthetic.csv"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(data))
	f.Add(strings.Join(Header(), ",") + "\nk,1,1,1,1,1,1,2,2,2,8,1,1,1,,,,,,,,\n")
	f.Fuzz(func(t *testing.T, src string) {
		s, err := ReadCSV(strings.NewReader(src), "fuzz.csv")
		if err != nil {
			return
		}
		for _, r := range s.Rows {
			if r.Lups != r.Domain[0]*r.Domain[1]*r.Domain[2] || r.Kernel == "" {
				t.Fatalf("inconsistent row %+v", r)
			}
		}
	})
}

func TestPearson(t *testing.T) {
	// means 2 and 13/3: cov 5, variances 2 and 38/3, r = 5/√(76/3).
	if got, want := Pearson([]float64{1, 2, 3}, []float64{2, 4, 7}), 5/math.Sqrt(76.0/3); math.Abs(got-want) > 1e-12 {
		t.Errorf("Pearson = %v, want %v", got, want)
	}
	if got := Pearson([]float64{1, 2, 3}, []float64{6, 4, 2}); math.Abs(got+1) > 1e-12 {
		t.Errorf("Pearson of a falling line = %v, want -1", got)
	}
	for _, c := range [][2][]float64{{{1}, {1}}, {{1, 1}, {1, 2}}, {{1, 2}, {1}}} {
		if got := Pearson(c[0], c[1]); !math.IsNaN(got) {
			t.Errorf("Pearson(%v, %v) = %v, want NaN", c[0], c[1], got)
		}
	}
}
