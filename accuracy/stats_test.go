package accuracy

import (
	"math"
	"testing"
)

func TestTop1(t *testing.T) {
	cases := []struct {
		pred, sim []float64
		index     int
		ratio     float64
	}{
		{[]float64{3, 1, 2}, []float64{10, 10.4, 10}, 1, 1.04},
		{[]float64{1, 2}, []float64{11, 10}, 0, 1.1},
		{[]float64{2, 1, 1}, []float64{5, 4, 3}, 1, 4.0 / 3}, // ties go to the first
		{[]float64{5}, []float64{7}, 0, 1},
	}
	for _, c := range cases {
		i, r := Top1(c.pred, c.sim)
		if i != c.index || math.Abs(r-c.ratio) > 1e-12 {
			t.Errorf("Top1(%v, %v) = %d, %v; want %d, %v", c.pred, c.sim, i, r, c.index, c.ratio)
		}
	}
}

func TestCompute(t *testing.T) {
	pred := [][]float64{{1, 2, 3}, {2, 1}, {4, 4}}
	sim := [][]float64{{1, 2, 4}, {1, 2}, {4, 4}}
	st := Compute(pred, sim)
	// Errors 0, 0, 25, 100, 50, 0, 0 %.
	if want := 175.0 / 7; math.Abs(st.MAPE-want) > 1e-12 {
		t.Errorf("MAPE = %v, want %v", st.MAPE, want)
	}
	// Pearson over all seven pairs, by hand: means 17/7 and 18/7.
	p := []float64{1, 2, 3, 2, 1, 4, 4}
	s := []float64{1, 2, 4, 1, 2, 4, 4}
	var cov, vp, vs float64
	for i := range p {
		cov += (p[i] - 17.0/7) * (s[i] - 18.0/7)
		vp += (p[i] - 17.0/7) * (p[i] - 17.0/7)
		vs += (s[i] - 18.0/7) * (s[i] - 18.0/7)
	}
	if want := cov / math.Sqrt(vp*vs); math.Abs(st.Pearson-want) > 1e-12 {
		t.Errorf("Pearson = %v, want %v", st.Pearson, want)
	}
	// ρ = 1 and −1; the constant third sweep has no ranking.
	if st.Spearman != 0 || st.RankedSweeps != 2 {
		t.Errorf("Spearman = %v over %d sweeps, want 0 over 2", st.Spearman, st.RankedSweeps)
	}
	// Hits: sweep 1 (the best), sweep 3 (ties); miss: sweep 2 (twice the best).
	if st.Top1 != 2.0/3 || st.Sweeps != 3 || st.N != 7 {
		t.Errorf("Top1 = %v of %d sweeps, N = %d; want 2/3 of 3, 7", st.Top1, st.Sweeps, st.N)
	}
}

func TestComputeTiesInRanks(t *testing.T) {
	// Ranks (1.5, 1.5, 3) against (1, 2, 3): ρ = 1.5/√(1.5·2) = √3/2.
	st := Compute([][]float64{{1, 1, 2}}, [][]float64{{1, 2, 3}})
	if want := math.Sqrt(3) / 2; math.Abs(st.Spearman-want) > 1e-12 {
		t.Errorf("Spearman with ties = %v, want %v", st.Spearman, want)
	}
}

func TestNelderMead(t *testing.T) {
	// Rosenbrock's valley, minimum 0 at (1, 1).
	f := func(x []float64) float64 { return 100*math.Pow(x[1]-x[0]*x[0], 2) + math.Pow(1-x[0], 2) }
	x, v := nelderMead(f, []float64{-1.2, 1}, 0.5, 5000, 1e-20)
	if math.Abs(x[0]-1) > 1e-4 || math.Abs(x[1]-1) > 1e-4 || v > 1e-8 {
		t.Errorf("nelderMead on Rosenbrock = %v (f = %v), want (1, 1)", x, v)
	}
}

func TestCurveParameters(t *testing.T) {
	c := toCurve(fromCurve(gompertzStart))
	if math.Abs(c.A-gompertzStart.A) > 1e-12 || math.Abs(c.B-gompertzStart.B) > 1e-9 || math.Abs(c.C-gompertzStart.C) > 1e-12 {
		t.Errorf("round trip of %+v gives %+v", gompertzStart, c)
	}
}
