package accuracy

import (
	"context"
	_ "embed"
	"fmt"
	"math"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/model"
	"github.com/polyvol/polyvol/pool"
	"github.com/polyvol/polyvol/sim"
)

//go:embed devices/a100-2mb-l2.yaml
var smallL2YAML []byte

// SmallL2Device returns the hypothetical A100 with a 2 MiB effective L2 of
// devices/a100-2mb-l2.yaml: at the domains a thread-by-thread simulation can
// afford, the real 20 MiB L2 holds every layer set, so only this device
// exercises the L2 capacity curves.
func SmallL2Device() *device.Device {
	d, err := device.Parse(smallL2YAML, "accuracy/devices/a100-2mb-l2.yaml")
	if err != nil {
		panic(err) // the embedded file is tested
	}
	return d
}

// Case is one kernel at one domain over a sweep of launch configurations:
// every block with every fold.
type Case struct {
	Spec   string     // an embedded example name or a spec file
	Domain [3]int64   // lattice points
	Blocks [][3]int64 // thread-block sizes
	Folds  [][3]int64 // thread foldings; nil means none
	// Train puts the case into the training set of the curve refit; the
	// other cases are held out.
	Train bool
}

// launches returns the configurations of the case in sweep order.
func (c Case) launches() [][2][3]int64 {
	folds := c.Folds
	if len(folds) == 0 {
		folds = [][3]int64{kernel.NoFold}
	}
	var out [][2][3]int64
	for _, f := range folds {
		for _, b := range c.Blocks {
			out = append(out, [2][3]int64{b, f})
		}
	}
	return out
}

// Config describes an accuracy run.
type Config struct {
	Cases   []Case
	Devices []*device.Device
	// Load returns the kernel of a spec with its domain replaced.
	Load func(spec string, domain [3]int64) (*kernel.Kernel, error)
	// Sim is the simulator configuration; Device is set per device.
	Sim sim.Config
	// Workers is the number of goroutines;
	// 0 means GOMAXPROCS. The results do not depend on it.
	Workers int
	// Progress, when set, is called after every finished job with the
	// number done and the total; calls come from one goroutine at a time.
	Progress func(done, total int)
}

// Methods are the estimation methods every configuration is estimated with.
var Methods = []model.Method{model.MethodExact, model.MethodReference}

// Point is one configuration: its estimates and its simulation.
type Point struct {
	Launch kernel.Launch
	// Reports holds the estimate of each of Methods, in that order.
	Reports []*model.Report
	Sim     Volumes
}

// Sweep is one case on one device.
type Sweep struct {
	Case   Case
	Device *device.Device
	Kernel *kernel.Kernel
	Points []Point
}

// Run estimates and simulates every configuration of every case on every
// device. The jobs run on cfg.Workers goroutines; the result is ordered by
// device, case and configuration whatever the scheduling.
func Run(cfg Config) ([]*Sweep, error) {
	var sweeps []*Sweep
	for _, d := range cfg.Devices {
		for _, c := range cfg.Cases {
			k, err := cfg.Load(c.Spec, c.Domain)
			if err != nil {
				return nil, err
			}
			s := &Sweep{Case: c, Device: d, Kernel: k}
			for _, bf := range c.launches() {
				l := k.NewLaunch(bf[0], bf[1])
				if err := l.Validate(); err != nil {
					return nil, fmt.Errorf("%s block %v fold %v: %w", c.Spec, bf[0], bf[1], err)
				}
				s.Points = append(s.Points, Point{Launch: l, Reports: make([]*model.Report, len(Methods))})
			}
			sweeps = append(sweeps, s)
		}
	}
	// A job is (sweep, point, m): m < len(Methods) estimates with Methods[m],
	// m = len(Methods) simulates. Simulations go first: they take longest.
	type job struct{ s, p, m int }
	var jobs []job
	for m := len(Methods); m >= 0; m-- {
		for si, s := range sweeps {
			for pi := range s.Points {
				jobs = append(jobs, job{si, pi, m})
			}
		}
	}
	err := pool.Run(context.Background(), len(jobs), pool.Options{
		Workers: cfg.Workers, Progress: cfg.Progress,
	}, func(j int) error {
		jb := jobs[j]
		s := sweeps[jb.s]
		p := &s.Points[jb.p]
		if jb.m == len(Methods) {
			sc := cfg.Sim
			sc.Device = s.Device
			r, err := sim.Run(s.Kernel, p.Launch, sc)
			if err != nil {
				return fmt.Errorf("simulate %s block %v fold %v on %s: %w", s.Kernel.Name, p.Launch.Block, p.Launch.Fold, s.Device.Name, err)
			}
			p.Sim = Simulated(r.Total)
			return nil
		}
		r, err := model.Estimate(s.Kernel, p.Launch, s.Device, model.Options{Method: Methods[jb.m]})
		if err != nil {
			return fmt.Errorf("estimate %s block %v fold %v on %s with method %s: %w", s.Kernel.Name, p.Launch.Block, p.Launch.Fold, s.Device.Name, Methods[jb.m].Name, err)
		}
		p.Reports[jb.m] = r
		return nil
	})
	return sweeps, err
}

// Variant is a way to predict the volumes of a configuration: the basic
// metrics that the one of Methods named like Method estimated, turned into
// per-Lup volumes by Method's oversubscription rule and curves. The two
// methods themselves are variants; so is the exact method with another
// generation of curves.
type Variant struct {
	Name   string
	Method model.Method
}

// The variants of the two estimation methods as Estimate runs them.
var (
	Exact     = Variant{Name: "exact", Method: model.MethodExact}
	Reference = Variant{Name: "reference", Method: model.MethodReference}
)

// WithCurves returns the variant with another curve set, named after it.
func (v Variant) WithCurves(c model.CurveSet) Variant {
	v.Name = fmt.Sprintf("%s, %s curves", v.Method.Name, c.Name)
	v.Method.Curves = c
	return v
}

// Predict returns the variant's volumes for point p of sweep s.
func (v Variant) Predict(s *Sweep, p Point) (Volumes, error) {
	mi := -1
	for i, m := range Methods {
		if m.Name == v.Method.Name {
			mi = i
		}
	}
	if mi < 0 || p.Reports[mi] == nil {
		return Volumes{}, fmt.Errorf("accuracy: no estimate with method %s", v.Method.Name)
	}
	r := p.Reports[mi]
	l := r.Launch
	ml := model.Launch{
		ThreadsPerBlock: int(l.ThreadsPerBlock),
		LupsPerThread:   int(l.LupsPerThread),
		BlocksPerSM:     int(l.BlocksPerSM),
		BlocksPerWave:   int(l.BlocksPerWave),
		FlopsPerLup:     l.FlopsPerLup,
		FlinsPerLup:     math.Ceil(s.Kernel.FlopsPerThread(l.Fold)/2) / float64(l.LupsPerThread),
		FPBytes:         s.Kernel.FPType,
	}
	d, err := model.Derive(r.Basic, ml, *s.Device, v.Method)
	if err != nil {
		return Volumes{}, err
	}
	return Predicted(d), nil
}
