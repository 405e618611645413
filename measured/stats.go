package measured

import (
	"math"
	"sort"
)

// MAPE is the mean absolute percentage error of pred against meas, in
// percent, over the pairs with a non-zero measurement; NaN when there are
// none.
func MAPE(pred, meas []float64) float64 {
	sum, n := 0.0, 0
	for i := range meas {
		if meas[i] == 0 {
			continue
		}
		sum += math.Abs(pred[i]-meas[i]) / math.Abs(meas[i])
		n++
	}
	if n == 0 {
		return math.NaN()
	}
	return 100 * sum / float64(n)
}

// ranks returns the rank of every value, 1 for the smallest, with tied
// values given the mean of their ranks.
func ranks(v []float64) []float64 {
	idx := make([]int, len(v))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return v[idx[a]] < v[idx[b]] })
	r := make([]float64, len(v))
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && v[idx[j+1]] == v[idx[i]] {
			j++
		}
		mean := float64(i+j)/2 + 1
		for k := i; k <= j; k++ {
			r[idx[k]] = mean
		}
		i = j + 1
	}
	return r
}

// Spearman is the rank correlation ρ of a and b: the Pearson correlation of
// their ranks, ties averaged. NaN for fewer than two pairs or when either
// side is constant.
func Spearman(a, b []float64) float64 {
	if len(a) < 2 || len(a) != len(b) {
		return math.NaN()
	}
	return Pearson(ranks(a), ranks(b))
}

// Pearson is the linear correlation coefficient of a and b; NaN for fewer
// than two pairs or when either side is constant.
func Pearson(a, b []float64) float64 {
	if len(a) < 2 || len(a) != len(b) {
		return math.NaN()
	}
	var ma, mb float64
	for i := range a {
		ma += a[i]
		mb += b[i]
	}
	n := float64(len(a))
	ma, mb = ma/n, mb/n
	var cov, va, vb float64
	for i := range a {
		da, db := a[i]-ma, b[i]-mb
		cov += da * db
		va += da * da
		vb += db * db
	}
	if va == 0 || vb == 0 {
		return math.NaN()
	}
	return cov / math.Sqrt(va*vb)
}

// Best says where the configuration predicted fastest sits among the
// measured ones.
type Best struct {
	Index        int     // the configuration with the highest prediction (of ties, the slowest measured)
	MeasuredRank int     // 1 for the measured fastest; 1 + the number measured faster
	Fraction     float64 // its measured performance over the measured best
}

// tieTolerance is the relative difference below which two predictions are
// one value: a model that gives several configurations the same bound
// (a roofline's L1 bound, say) cannot tell them apart, and its float
// rounding must not choose among them.
const tieTolerance = 1e-9

// PredictedBest locates the highest value of pred among meas, where higher
// is better in both (GLup/s). Of predictions tied with the highest (within
// tieTolerance) it takes the slowest measured: a model that cannot tell
// configurations apart is credited with the worst of them. It returns Index
// −1 for empty input.
func PredictedBest(pred, meas []float64) Best {
	b := Best{Index: -1}
	if len(pred) == 0 || len(pred) != len(meas) {
		return b
	}
	top, best := math.Inf(-1), meas[0]
	for i := range pred {
		if pred[i] > top { // NaN never is
			top = pred[i]
		}
		best = max(best, meas[i])
	}
	for i := range pred {
		if (pred[i] == top || pred[i] >= top-math.Abs(top)*tieTolerance) && (b.Index < 0 || meas[i] < meas[b.Index]) {
			b.Index = i
		}
	}
	if b.Index < 0 { // no prediction is a number
		b.Index = 0
	}
	b.MeasuredRank = 1
	for _, m := range meas {
		if m > meas[b.Index] {
			b.MeasuredRank++
		}
	}
	if best > 0 {
		b.Fraction = meas[b.Index] / best
	}
	return b
}
