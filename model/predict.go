package model

import (
	"fmt"
	"strings"

	"github.com/polyvol/polyvol/device"
)

// A PerformanceModel turns the volumes, L1 cycles and limiters of an
// estimate into a predicted performance. The models are peers, one file
// each: perf_roofline.go, perf_latency.go, perf_overlap.go and
// perf_su2015.go.
type PerformanceModel interface {
	// Name is the model's name for --model and in the JSON.
	Name() ModelName
	// Predict predicts the performance of report r on dev for a kernel of
	// fpBytes-wide floating point.
	Predict(r *Report, dev *device.Device, fpBytes int) (Prediction, error)
}

// ModelName names a performance model.
type ModelName string

// performanceModels are the selectable models, in the order help lists them.
var performanceModels = []PerformanceModel{rooflineModel{}, latencyModel{}, su2015Model{}, overlapModel{DefaultOverlap}}

// ModelNames lists the selectable performance models.
var ModelNames = func() []ModelName {
	var names []ModelName
	for _, m := range performanceModels {
		names = append(names, m.Name())
	}
	return names
}()

// PerformanceModelByName returns the model called name.
func PerformanceModelByName(name ModelName) (PerformanceModel, error) {
	for _, m := range performanceModels {
		if m.Name() == name {
			return m, nil
		}
	}
	names := make([]string, len(ModelNames))
	for i, n := range ModelNames {
		names[i] = string(n)
	}
	return nil, fmt.Errorf("model: unknown performance model %q (expected one of %s)", name, strings.Join(names, ", "))
}

// ParseModelName parses the name of one of ModelNames.
func ParseModelName(s string) (ModelName, error) {
	m, err := PerformanceModelByName(ModelName(s))
	if err != nil {
		return "", err
	}
	return m.Name(), nil
}

// Predict evaluates performance model name on the volumes and launch of a
// report that Estimate computed on dev (with any model), for a kernel of
// fpBytes-wide floating point: the Prediction that Estimate with that
// model gives, without counting the volumes again.
func Predict(name ModelName, r *Report, dev *device.Device, fpBytes int) (Prediction, error) {
	m, err := PerformanceModelByName(name)
	if err != nil {
		return Prediction{}, err
	}
	return m.Predict(r, dev, fpBytes)
}
