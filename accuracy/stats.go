package accuracy

import (
	"math"

	"github.com/polyvol/polyvol/measured"
)

// Top1 judges a ranking where lower is better (a data volume): it returns
// the index of the smallest prediction (the first of ties) and the ratio of
// its simulated value to the smallest simulated value, which is 1 when the
// predicted best is also the simulated best. The ratio is NaN for empty
// input and +Inf when the simulated best is 0 but the chosen one is not.
func Top1(pred, simulated []float64) (index int, ratio float64) {
	if len(pred) == 0 || len(pred) != len(simulated) {
		return -1, math.NaN()
	}
	best := simulated[0]
	for i := range pred {
		if pred[i] < pred[index] {
			index = i
		}
		best = min(best, simulated[i])
	}
	if simulated[index] == best {
		return index, 1
	}
	return index, simulated[index] / best
}

// Top1Tolerance is how far above the simulated best the simulated volume of
// the predicted best may lie to count as a hit: 5 %.
const Top1Tolerance = 0.05

// Stats are the accuracy statistics of one method at one level.
type Stats struct {
	N       int     // configurations
	MAPE    float64 // mean absolute percentage error against the simulation, percent
	Pearson float64 // linear correlation of predicted and simulated values over all configurations
	// Spearman is Spearman's ρ (ties averaged) over the configurations of
	// each sweep, averaged over the sweeps where it is defined (both sides
	// vary); RankedSweeps counts those.
	Spearman     float64
	RankedSweeps int
	// Top1 is the fraction of sweeps whose predicted best (lowest volume)
	// configuration simulates within Top1Tolerance of the simulated best;
	// Sweeps counts all sweeps.
	Top1   float64
	Sweeps int
}

// Compute returns the statistics of predictions against simulations, given
// per sweep (pred[s][i] and simulated[s][i] belong to configuration i of
// sweep s).
func Compute(pred, simulated [][]float64) Stats {
	var st Stats
	var allP, allS []float64
	var rhoSum float64
	hits := 0
	for s := range pred {
		p, m := pred[s], simulated[s]
		allP = append(allP, p...)
		allS = append(allS, m...)
		if len(p) == 0 {
			continue
		}
		st.Sweeps++
		if rho := measured.Spearman(p, m); !math.IsNaN(rho) {
			rhoSum += rho
			st.RankedSweeps++
		}
		if _, r := Top1(p, m); r <= 1+Top1Tolerance {
			hits++
		}
	}
	st.N = len(allP)
	st.MAPE = measured.MAPE(allP, allS)
	st.Pearson = measured.Pearson(allP, allS)
	st.Spearman, st.Top1 = math.NaN(), math.NaN()
	if st.RankedSweeps > 0 {
		st.Spearman = rhoSum / float64(st.RankedSweeps)
	}
	if st.Sweeps > 0 {
		st.Top1 = float64(hits) / float64(st.Sweeps)
	}
	return st
}
