package layercond

import (
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/footprint"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/model"
)

// DefaultSweepWork is the counting work that Work allows when its Limit is
// 0: six times footprint.DefaultWorkBound, enough for the default sweep of
// the heaviest example for four blocks (lbm-d3q27-aos, blocks 256,1,2,
// 128,2,2, 64,4,2 and 32,8,2: 155 estimates, 27 400 000 units), about
// 12 s of estimates on two cores.
const DefaultSweepWork = 6 * footprint.DefaultWorkBound

// Work is the counting work (footprint.Budget's units) that the estimates
// of one or more sweeps share, running in parallel. An estimate may spend
// what is left of Limit when it starts, within its own bound
// (footprint.DefaultWorkBound), and adds what it spent when it ends: the
// estimates together stop near Limit, passing it by at most what those
// running at once spend, and none starts once it is spent.
type Work struct {
	Limit int64 // units for all the estimates together; 0 means DefaultSweepWork
	used  atomic.Int64
}

// Used returns the units that the estimates ended so far spent.
func (w *Work) Used() int64 { return w.used.Load() }

// limit returns w's Limit, or DefaultSweepWork.
func (w *Work) limit() int64 {
	if w.Limit > 0 {
		return w.Limit
	}
	return DefaultSweepWork
}

// estimate runs model.Estimate of k under l on dev with opt, under a
// budget of what is left of w (without w, under opt's own), then charges w
// with what it spent.
func (w *Work) estimate(k *kernel.Kernel, l kernel.Launch, dev *device.Device, opt model.Options) (*model.Report, error) {
	if w == nil {
		return model.Estimate(k, l, dev, opt)
	}
	left := w.limit() - w.used.Load()
	if left <= 0 {
		return nil, w.spent()
	}
	b := &footprint.Budget{Limit: min(left, footprint.DefaultWorkBound), Context: opt.Context}
	opt.Budget = b
	r, err := model.Estimate(k, l, dev, opt)
	w.used.Add(b.Used())
	if errors.Is(err, footprint.ErrWorkBound) && left < footprint.DefaultWorkBound {
		return nil, w.spent()
	}
	return r, err
}

// spent returns the error of an estimate that finds w spent.
func (w *Work) spent() error {
	return fmt.Errorf("%w: the estimates of the sweeps need more than %d units of counting work together", footprint.ErrWorkBound, w.limit())
}
