package request

import (
	"slices"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/explore"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/model"
)

// Predict is a request for the prediction of one configuration: the kernel
// (with the request's domain) and the device as the front end loaded them
// (LoadSpec, FindDevice), the launch (ParseLaunch), the registers per
// thread and the estimate's options (Estimate.Options), whose context the
// estimate stops at.
type Predict struct {
	Kernel *kernel.Kernel
	Device *device.Device
	Launch Launch
	// Registers replaces the spec's registers per thread; nil keeps them.
	Registers *int
	Options   model.Options
}

// Prediction is the answer of a predict request: the estimate's report,
// whose Notes the JSON lists (KernelNotes, then LaunchNotes), and the two
// kinds of notes apart, for a front end that says them at different
// places.
type Prediction struct {
	Report      *model.Report
	KernelNotes []model.Note // on the kernel (kernel.Lint)
	LaunchNotes []model.Note // on its launch and the report (model.LaunchNotes)
}

// Run checks the launch (Launch.Of) and the registers and estimates the
// configuration.
func (p Predict) Run() (*Prediction, error) {
	l, err := p.Launch.Of(p.Kernel)
	if err != nil {
		return nil, err
	}
	k := p.Kernel
	if p.Registers != nil {
		if k, err = WithRegisters(k, *p.Registers); err != nil {
			return nil, err
		}
	}
	r, err := model.Estimate(k, l, p.Device, p.Options)
	if err != nil {
		return nil, EstimateError(l, err)
	}
	return NewPrediction(r, k, l, p.Device), nil
}

// NewPrediction returns the prediction of report r of kernel k under
// launch l on dev, with the notes on k and on l, which it also sets as
// r.Notes.
func NewPrediction(r *model.Report, k *kernel.Kernel, l kernel.Launch, dev *device.Device) *Prediction {
	p := &Prediction{Report: r, KernelNotes: kernel.Lint(k), LaunchNotes: model.LaunchNotes(k, l, r, dev, k.Registers, k.SharedBytes)}
	r.Notes = append(slices.Clip(p.KernelNotes), p.LaunchNotes...)
	return p
}

// WithRegisters returns k with n registers per thread instead of the
// spec's, after checking that n is 1 to explore.MaxRegisters.
func WithRegisters(k *kernel.Kernel, n int) (*kernel.Kernel, error) {
	if n < 1 || n > explore.MaxRegisters {
		return nil, fieldErrorf("registers", "--registers %d: expected 1 to %d registers per thread", n, explore.MaxRegisters)
	}
	out := *k
	out.Registers, out.RegistersStated = n, true
	return &out, nil
}

// RegistersPerThread returns the registers per thread that p estimates
// with: Registers, or the spec's.
func (p Predict) RegistersPerThread() int {
	if p.Registers != nil {
		return *p.Registers
	}
	return p.Kernel.Registers
}
