package model

import "github.com/polyvol/polyvol/device"

// ModelRoofline is the roofline's name for --model.
const ModelRoofline ModelName = "roofline"

// rooflineModel is the paper's prediction: the lowest of the flop, L1, L2
// (load V2 + store) and DRAM (load V3 + store V2) limiters, as if every
// resource ran at its peak while the others run at theirs
// (docs/metrics.md §5.5).
type rooflineModel struct{}

func (rooflineModel) Name() ModelName { return ModelRoofline }

func (rooflineModel) Predict(r *Report, _ *device.Device, _ int) (Prediction, error) {
	d := r.Derived
	return Prediction{Model: ModelRoofline, GLups: d.PerfV3, Limiter: d.LimV3.String()}, nil
}
