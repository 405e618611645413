package measured

// Level is one quantity compared between measurement and prediction.
type Level struct {
	Name    string  // e.g. "L2→L1 load"
	Unit    string  // unit after conversion
	Counter string  // the counter it is computed from
	Scale   float64 // counter · Scale / Lups gives the value in Unit
}

// Levels are the compared quantities: sectors are 32 bytes, and L1
// wavefronts are counted per 32 lattice updates (one warp-wide update, the
// scale of the paper's Figure 12).
var Levels = []Level{
	{"L2→L1 load", "B/Lup", CounterL2Read, 32},
	{"L1→L2 store", "B/Lup", CounterL2Write, 32},
	{"DRAM load", "B/Lup", CounterDRAMRead, 1},
	{"DRAM store", "B/Lup", CounterDRAMWrite, 1},
	{"L1 wavefronts", "per 32 Lup", CounterWavefronts, 32},
	{"L1 load", "B/Lup", CounterL1Sectors, 32},
}

// PerLup returns the row's value of level l per lattice update, and false
// when the counter is missing.
func (r Row) PerLup(l Level) (float64, bool) {
	v, ok := r.Counters[l.Counter]
	if !ok {
		return 0, false
	}
	return v * l.Scale / float64(r.Lups), true
}
