package accuracy

// Level is one compared volume.
type Level struct {
	Name string // e.g. "L2→L1 load"
	Key  string // the predict name (JSON key of model.Derived)
	Get  func(Volumes) float64
}

// Levels are the volumes the report compares: the three that depend on
// cache capacities first, then the two compulsory ones as a check of the
// counting (equal up to edge and folding effects).
var Levels = []Level{
	{"L2→L1 load", "L2LoadV2", func(v Volumes) float64 { return v.L2LoadV2 }},
	{"DRAM load", "memLoadV4", func(v Volumes) float64 { return v.MemLoadV4 }},
	{"DRAM store", "memStoreV2", func(v Volumes) float64 { return v.MemStoreV2 }},
	{"L1 load", "L1Load", func(v Volumes) float64 { return v.L1Load }},
	{"L1→L2 store", "L2Store", func(v Volumes) float64 { return v.L2Store }},
}

// CapacityLevels is how many of Levels lead: the ones the capacity curves
// act on.
const CapacityLevels = 3

// Series returns, per sweep, the predicted and simulated values of level
// lv under variant v, for the sweeps that keep returns true for.
func Series(sweeps []*Sweep, v Variant, lv Level, keep func(*Sweep) bool) (pred, simulated [][]float64, err error) {
	for _, s := range sweeps {
		if keep != nil && !keep(s) {
			continue
		}
		var p, m []float64
		for _, pt := range s.Points {
			vol, err := v.Predict(s, pt)
			if err != nil {
				return nil, nil, err
			}
			p = append(p, lv.Get(vol))
			m = append(m, lv.Get(pt.Sim))
		}
		pred, simulated = append(pred, p), append(simulated, m)
	}
	return pred, simulated, nil
}
