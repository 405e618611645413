package accuracy

import (
	"github.com/polyvol/polyvol/measured"
	"github.com/polyvol/polyvol/model"
)

// Level is one compared volume: the model quantity, the simulator's count
// and the GPU counter that give it.
type Level struct {
	Name    string // e.g. "L2→L1 load"
	Key     string // the predict name (JSON key of model.Derived)
	Counter string // the Nsight Compute counter that measures it (measured.Counter*)
	Get     func(Volumes) float64
}

// Levels are the volumes the report compares: the three that depend on
// cache capacities first, then the two compulsory ones as a check of the
// counting (equal up to edge and folding effects).
var Levels = []Level{
	{"L2→L1 load", "L2LoadV2", measured.CounterL2Read, func(v Volumes) float64 { return v.L2LoadV2 }},
	{"DRAM load", "memLoadV4", measured.CounterDRAMRead, func(v Volumes) float64 { return v.MemLoadV4 }},
	{"DRAM store", "memStoreV2", measured.CounterDRAMWrite, func(v Volumes) float64 { return v.MemStoreV2 }},
	{"L1 load", "L1Load", measured.CounterL1Sectors, func(v Volumes) float64 { return v.L1Load }},
	{"L1→L2 store", "L2Store", measured.CounterL2Write, func(v Volumes) float64 { return v.L2Store }},
}

// levelOf returns the level of Levels that counter measures.
func levelOf(counter string) (Level, bool) {
	for _, lv := range Levels {
		if lv.Counter == counter {
			return lv, true
		}
	}
	return Level{}, false
}

// Quantity is the model quantity that a measured counter is compared with.
type Quantity struct {
	Key string                      // its name in reports: a JSON key of model.Derived, or 32·L1DataPipeCycles
	Of  func(model.Derived) float64 // its value in an estimate
}

// MeasuredQuantity returns the model quantity that counter
// (measured.Counter*) measures: the final variant of a volume of Levels
// (capacity misses included), or for the L1 wavefronts the L1 data-pipe
// cycles per 32 lattice updates, the scale of
// l1tex__data_pipe_lsu_wavefronts. It is false for a counter without a
// model counterpart.
func MeasuredQuantity(counter string) (Quantity, bool) {
	if counter == measured.CounterWavefronts {
		return Quantity{"32·L1DataPipeCycles", func(d model.Derived) float64 { return 32 * d.L1DataPipeCyclesPerLup }}, true
	}
	lv, ok := levelOf(counter)
	if !ok {
		return Quantity{}, false
	}
	return Quantity{lv.Key, func(d model.Derived) float64 { return lv.Get(Predicted(d)) }}, true
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
