package accuracy

import (
	"math"
	"sort"

	"github.com/polyvol/polyvol/model"
)

// nelderMead minimises f from x0 with the Nelder–Mead simplex method
// (reflection 1, expansion 2, contraction ½, shrink ½), starting from the
// simplex x0 + step·e_i, for at most iters iterations or until the values of
// the simplex differ by less than tol. It is deterministic.
func nelderMead(f func([]float64) float64, x0 []float64, step float64, iters int, tol float64) ([]float64, float64) {
	n := len(x0)
	type vertex struct {
		x []float64
		v float64
	}
	at := func(x []float64) vertex { return vertex{x, f(x)} }
	simplex := []vertex{at(append([]float64(nil), x0...))}
	for i := range n {
		x := append([]float64(nil), x0...)
		x[i] += step
		simplex = append(simplex, at(x))
	}
	// along returns c + t·(x − c).
	along := func(c, x []float64, t float64) []float64 {
		out := make([]float64, n)
		for i := range out {
			out[i] = c[i] + t*(x[i]-c[i])
		}
		return out
	}
	for range iters {
		sort.SliceStable(simplex, func(a, b int) bool { return simplex[a].v < simplex[b].v })
		if simplex[n].v-simplex[0].v < tol {
			break
		}
		c := make([]float64, n)
		for _, s := range simplex[:n] {
			for i := range c {
				c[i] += s.x[i] / float64(n)
			}
		}
		worst := simplex[n]
		r := at(along(c, worst.x, -1))
		switch {
		case r.v < simplex[0].v:
			if e := at(along(c, worst.x, -2)); e.v < r.v {
				r = e
			}
			simplex[n] = r
		case r.v < simplex[n-1].v:
			simplex[n] = r
		default:
			if k := at(along(c, worst.x, 0.5)); k.v < worst.v {
				simplex[n] = k
				continue
			}
			for i := 1; i <= n; i++ {
				simplex[i] = at(along(simplex[0].x, simplex[i].x, 0.5))
			}
		}
	}
	sort.SliceStable(simplex, func(a, b int) bool { return simplex[a].v < simplex[b].v })
	return simplex[0].x, simplex[0].v
}

// Curve parameters are fitted in an unconstrained space: a = 1/(1+e^−p0)
// keeps the miss fraction's ceiling in (0, 1), b = e^p1 and c = e^p2 keep
// the Gompertz curve increasing.
func toCurve(p []float64) model.Curve {
	return model.Curve{Form: model.MissGompertz, A: 1 / (1 + math.Exp(-p[0])), B: math.Exp(p[1]), C: math.Exp(p[2])}
}

func fromCurve(c model.Curve) []float64 {
	a := min(max(c.A, 1e-3), 1-1e-3)
	return []float64{math.Log(a / (1 - a)), math.Log(c.B), math.Log(c.C)}
}

// Fit is the result of a curve refit.
type Fit struct {
	Curves model.CurveSet
	// Before and After are the root mean square relative errors of the
	// training configurations at the fitted levels.
	Before, After float64
	Points        int
}

// gompertzStart is the starting point of every refit: a miss fraction that
// rises from about 0 to 1 around O = 1.
var gompertzStart = model.Curve{Form: model.MissGompertz, A: 0.9, B: 10, C: 2}

// Refit fits the Gompertz parameters R(O) = a·exp(−b·exp(−c·O)) of the
// exact method's L1 curve (to the L2→L1 load) and of its y-overlap, z-overlap
// and L2 curves together (to the DRAM load) by least squares on the
// relative errors against the simulation, over the sweeps for which train
// returns true. The other curves of base are kept. The fit starts from the
// same fixed curve for every parameter, so it is deterministic.
func Refit(sweeps []*Sweep, base Variant, name, provenance string, train func(*Sweep) bool) (Fit, error) {
	cs := base.Method.Curves
	cs.Name, cs.Provenance = name, provenance
	start := fromCurve(gompertzStart)
	variant := func(cs model.CurveSet) Variant { v := base; v.Method.Curves = cs; return v }

	// rms is the root mean square relative error at the given levels.
	var rmsErr error
	rms := func(cs model.CurveSet, levels ...Level) float64 {
		sum, n := 0.0, 0
		for _, lv := range levels {
			pred, simulated, err := Series(sweeps, variant(cs), lv, train)
			if err != nil {
				rmsErr = err
				return math.Inf(1)
			}
			for s := range pred {
				for i := range pred[s] {
					if simulated[s][i] > 0 {
						e := (pred[s][i] - simulated[s][i]) / simulated[s][i]
						sum += e * e
						n++
					}
				}
			}
		}
		return math.Sqrt(sum / float64(max(n, 1)))
	}
	l2, dram := Levels[0], Levels[1]
	fit := Fit{Before: math.Hypot(rms(cs, l2), rms(cs, dram))}

	p, _ := nelderMead(func(p []float64) float64 {
		c := cs
		c.L1 = toCurve(p)
		return rms(c, l2)
	}, start, 0.5, 2000, 1e-12)
	cs.L1 = toCurve(p)

	p, _ = nelderMead(func(p []float64) float64 {
		c := cs
		c.OverlapY, c.OverlapZ, c.L2 = toCurve(p[0:3]), toCurve(p[3:6]), toCurve(p[6:9])
		return rms(c, dram)
	}, append(append(append([]float64(nil), start...), start...), start...), 0.5, 6000, 1e-12)
	cs.OverlapY, cs.OverlapZ, cs.L2 = toCurve(p[0:3]), toCurve(p[3:6]), toCurve(p[6:9])
	if rmsErr != nil {
		return Fit{}, rmsErr
	}
	fit.Curves = cs
	fit.After = math.Hypot(rms(cs, l2), rms(cs, dram))
	for _, s := range sweeps {
		if train(s) {
			fit.Points += len(s.Points)
		}
	}
	return fit, nil
}
