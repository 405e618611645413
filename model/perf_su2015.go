package model

import (
	"fmt"
	"math"

	"github.com/polyvol/polyvol/device"
)

// ModelSu2015 is the su2015 model's name for --model.
const ModelSu2015 ModelName = "su2015"

// su2015Model is the time rule of Su et al.'s three-link stencil model
// (docs/models.md §2) applied to polyvol's own volumes: registers↔L1
// (L1 load + L2 store at the L1's bank width per cycle), L1↔L2 (L2 V1) and
// L2↔DRAM (DRAM V1), with instruction issue (IssueBound) as one more link
// where the kernel's instructions are counted, the slowest link's time, and
// the imbalance correction 1 + 1/groups for the partial last wave. su2015.go has Su et al.'s own
// volume formulas, checked against the paper's table.
type su2015Model struct{}

func (su2015Model) Name() ModelName { return ModelSu2015 }

func (su2015Model) Predict(r *Report, dev *device.Device, _ int) (Prediction, error) {
	d := r.Derived
	p := Prediction{Model: ModelSu2015}
	l1GBs := float64(dev.SMs) * dev.ClockGHz * float64(dev.L1BankWidth)
	p.Bounds = []Bound{
		{Name: "L1", BytesPerLup: d.L1Load + d.L2Store, GBs: l1GBs},
		{Name: "L2", BytesPerLup: d.L2TotalV1, GBs: dev.L2BandwidthGBs, Volume: "V1"},
		{Name: "DRAM", BytesPerLup: d.MemLoadV1 + d.MemStoreV1, GBs: dev.DRAMBandwidthGBs, Volume: "V1"},
	}
	for i := range p.Bounds {
		p.Bounds[i].GLups = p.Bounds[i].GBs / p.Bounds[i].BytesPerLup
	}
	if d.PerfIssue != nil {
		p.Bounds = append(p.Bounds, Bound{Name: "issue", GLups: *d.PerfIssue})
	}
	slowest := math.Inf(1)
	for i := range p.Bounds {
		b := &p.Bounds[i]
		if b.GLups < slowest {
			slowest, p.Limiter = b.GLups, b.Name
		}
	}
	groups := math.Ceil(r.Launch.WavesInGrid)
	p.GLups = slowest / (1 + 1/groups)
	if !(p.GLups > 0) || math.IsInf(p.GLups, 0) {
		return p, fmt.Errorf("su2015: the kernel moves no data")
	}
	p.Combination = fmt.Sprintf("the slowest link divided by 1 + 1/%g for the partial last of %g waves", groups, groups)
	if d.L1Load <= d.L2LoadV1 {
		p.Note = "su2015 models stencils, whose neighbour loads hit in cache; this kernel reuses no loaded data, so the model is outside its scope"
	}
	return p, nil
}
