package accuracy

import (
	"math"

	"github.com/polyvol/polyvol/measured"
	"github.com/polyvol/polyvol/model"
)

// LevelAccuracy is the accuracy of one method at one measured level over a
// sweep.
type LevelAccuracy struct {
	Level     measured.Level
	Predicted string // the model quantity compared (Quantity.Key), "" for none
	Method    string
	N         int     // configurations with a measured value
	MAPE      float64 // percent
	Rho       float64 // Spearman ρ of predicted and measured values
}

// BestAccuracy is how one method ranks the configurations of a sweep by
// performance.
type BestAccuracy struct {
	Method    string
	N         int
	Rho       float64 // Spearman ρ of predicted and measured GLup/s
	MAPE      float64 // percent, predicted against measured GLup/s
	Best      measured.Best
	Row       measured.Row // the configuration predicted fastest
	PredGLups float64
}

// MeasuredComparison holds the accuracy of every method on one measured
// sweep: Levels level-major (measured.Levels), then method; Perf per
// method.
type MeasuredComparison struct {
	Sweep  *measured.Sweep
	Levels []LevelAccuracy
	Perf   []BestAccuracy
}

// EstimateRow returns the estimate of row row of sweep sweep (indices into
// CompareMeasured's sweeps and their Rows) with method m.
type EstimateRow func(sweep, row int, m model.Method) (*model.Report, error)

// CompareMeasured estimates every row of sweeps with every method and
// compares the predictions with the measurements: per measured level the
// MAPE and Spearman ρ of the model quantity it measures (MeasuredQuantity)
// over the rows that measured it, and per method the MAPE and ρ of the
// predicted GLup/s and where the configuration predicted fastest ranks
// among the measured ones. Sweeps without rows are left out; the first
// error of estimate is returned as it is.
func CompareMeasured(sweeps []*measured.Sweep, methods []model.Method, estimate EstimateRow) ([]MeasuredComparison, error) {
	var out []MeasuredComparison
	for si, s := range sweeps {
		if len(s.Rows) == 0 {
			continue
		}
		// derived[m][i] is the estimate of method m for row i.
		derived := make([][]*model.Report, len(methods))
		for mi, m := range methods {
			for i := range s.Rows {
				rep, err := estimate(si, i, m)
				if err != nil {
					return nil, err
				}
				derived[mi] = append(derived[mi], rep)
			}
		}
		out = append(out, compareSweep(s, methods, derived))
	}
	return out, nil
}

// compareSweep compares the estimates derived[m][i] of sweep s's rows with
// the measurements.
func compareSweep(s *measured.Sweep, methods []model.Method, derived [][]*model.Report) MeasuredComparison {
	sc := MeasuredComparison{Sweep: s}
	for _, lv := range measured.Levels {
		q, modelled := MeasuredQuantity(lv.Counter)
		for mi, m := range methods {
			var pred, meas []float64
			for i, r := range s.Rows {
				if v, ok := r.PerLup(lv); ok {
					meas = append(meas, v)
					p := math.NaN() // a level without a model counterpart shows as undefined
					if modelled {
						p = q.Of(derived[mi][i].Derived)
					}
					pred = append(pred, p)
				}
			}
			sc.Levels = append(sc.Levels, LevelAccuracy{lv, q.Key, m.Name, len(meas), measured.MAPE(pred, meas), measured.Spearman(pred, meas)})
		}
	}
	for mi, m := range methods {
		var pred, meas []float64
		for i, r := range s.Rows {
			pred = append(pred, derived[mi][i].Prediction.GLups)
			meas = append(meas, r.GLups)
		}
		b := measured.PredictedBest(pred, meas)
		sc.Perf = append(sc.Perf, BestAccuracy{m.Name, len(meas), measured.Spearman(pred, meas), measured.MAPE(pred, meas), b, s.Rows[b.Index], pred[b.Index]})
	}
	return sc
}
