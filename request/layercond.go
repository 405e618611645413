package request

// The layercond request: sweeps of the plane size or row length for one or
// more blocks (package layercond), and the sequential layer condition.

import (
	"context"
	"slices"
	"strings"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/layercond"
	"github.com/polyvol/polyvol/model"
)

// LayercondReport is the JSON output of the layercond command: one sweep per
// block and the sequential layer condition, which depends on the kernel and
// the cache only.
type LayercondReport struct {
	Kernel  string `json:"kernel"`
	Device  string `json:"device"`
	Method  string `json:"method"`
	Total   int64  `json:"total"`
	Dims    int    `json:"dims"`            // the kernel's dimensions (layercond.Series)
	Inner   int64  `json:"inner,omitempty"` // the fixed row length of a 3-D series, 0 for square planes
	L2Bytes int64  `json:"L2Bytes"`
	// Sequential is the classic layer condition; nil when the kernel has no
	// loaded field with offset accesses, SequentialNote then says why.
	Sequential     *layercond.SequentialLC `json:"sequential"`
	SequentialNote string                  `json:"sequentialNote,omitempty"`
	Sweeps         []*layercond.Result     `json:"sweeps"`
}

// Series returns the domain series of the report's sweeps.
func (r *LayercondReport) Series() layercond.Series {
	return layercond.Series{Dims: r.Dims, Total: r.Total, Inner: r.Inner}
}

// LayercondKeys holds the keys of a layercond request that do not name
// the kernel, the device or the blocks, in their string forms. An empty
// Sweep is the kernel's default (layercond.DefaultSweepOf).
type LayercondKeys struct {
	Method, Sweep, Fold string
	// MaxPoints bounds the plane sizes of the sweeps, all blocks together.
	MaxPoints int
	// MaxWork bounds the counting work of all the sweeps' estimates
	// together (layercond.Work).
	MaxWork       int64
	Total         int64
	Inner         int64 // the fixed row length of a 3-D series; 0 for square planes
	CacheFraction float64
}

// DefaultLayercondKeys are the keys of a request that names none of them.
func DefaultLayercondKeys() LayercondKeys {
	return LayercondKeys{Method: model.MethodExact.Name, Fold: Triple(DefaultLaunch().Fold),
		MaxPoints: layercond.MaxSweepSizes, MaxWork: layercond.DefaultSweepWork, Total: layercond.PaperTotal, CacheFraction: layercond.DefaultCacheFraction}
}

// Layercond returns the request of the keys, without its kernel, device,
// blocks and workers; it checks the method, the sweep within MaxPoints,
// the work bound, the total, the inner extent, the cache fraction and the
// fold, in that order.
func (keys LayercondKeys) Layercond() (Layercond, error) {
	method, err := model.MethodByName(keys.Method)
	if err != nil {
		return Layercond{}, fieldErrorf("method", "--method: %v", err)
	}
	if keys.MaxPoints < 1 {
		return Layercond{}, fieldErrorf("max-points", "--max-points %d: must be at least 1", keys.MaxPoints)
	}
	sizes, err := parseSweep(keys.Sweep, keys.MaxPoints)
	if err != nil {
		return Layercond{}, err
	}
	if keys.MaxWork < 1 {
		return Layercond{}, fieldErrorf("max-work", "--max-work %d: expected a positive number", keys.MaxWork)
	}
	if keys.Total < 1 {
		return Layercond{}, fieldErrorf("total", "--total %d: expected a positive number of lattice points", keys.Total)
	}
	if keys.Inner < 0 {
		return Layercond{}, fieldErrorf("inner", "--inner %d: expected a positive row length, or 0 for square planes", keys.Inner)
	}
	if f := keys.CacheFraction; !(f > 0 && f <= 1) {
		return Layercond{}, fieldErrorf("cache-fraction", "--cache-fraction %v: expected a share in (0, 1]", f)
	}
	fold, err := ParseTriple("fold", keys.Fold)
	if err != nil {
		return Layercond{}, err
	}
	return Layercond{Method: method, Sizes: sizes, MaxPoints: keys.MaxPoints, MaxWork: keys.MaxWork, Total: keys.Total, Inner: keys.Inner, CacheFraction: keys.CacheFraction, Fold: fold, Workers: 1}, nil
}

// parseSweep parses the sweep key within maxPoints sizes; an empty one
// gives no sizes, the kernel's default.
func parseSweep(sweep string, maxPoints int) ([]int64, error) {
	if sweep == "" {
		return nil, nil
	}
	sizes, err := layercond.ParseSweep(sweep, maxPoints)
	if err != nil {
		return nil, fieldErrorf("sweep", "--sweep: %v (--max-points); take a coarser step, or raise --max-points", err)
	}
	return sizes, nil
}

// Layercond is a request for layer-condition sweeps: one per block (the
// kernel's default block when Blocks is empty) of the kernel on the
// device, with the fold, method, swept extents (the kernel's default sweep,
// layercond.DefaultSweepOf, when Sizes is empty), total of lattice points
// and inner extent (layercond.Series),
// run by Workers in parallel, and the sequential layer condition for
// CacheFraction of the L2. The plane sizes of all blocks together are at
// most MaxPoints (layercond.MaxSweepSizes when 0), checked before any is
// estimated, and the counting work of all their estimates together at
// most MaxWork (layercond.DefaultSweepWork when 0).
type Layercond struct {
	Kernel        *kernel.Kernel
	Device        *device.Device
	Blocks        [][3]int64
	Fold          [3]int64
	Method        model.Method
	Sizes         []int64
	MaxPoints     int
	MaxWork       int64
	Total         int64
	Inner         int64
	Workers       int
	CacheFraction float64
}

// ParseBlocks parses the --block values of a layercond request: X,Y,Z
// triples, several in one value separated by colons, none twice.
func ParseBlocks(values []string) ([][3]int64, error) {
	var blocks [][3]int64
	for _, v := range values {
		for _, part := range strings.Split(v, ":") {
			b, err := ParseTriple("block", part)
			if err != nil {
				return nil, err
			}
			if slices.Contains(blocks, b) {
				return nil, fieldErrorf("block", "--block %s appears twice", Triple(b))
			}
			blocks = append(blocks, b)
		}
	}
	return blocks, nil
}

// configs returns the sweep of every block, validated, sharing one bound
// on their work; the plane sizes of all must be within MaxPoints.
func (l Layercond) configs() ([]layercond.Config, error) {
	blocks := l.Blocks
	if len(blocks) == 0 {
		blocks = [][3]int64{DefaultBlock(l.Kernel)}
	}
	maxPoints := l.MaxPoints
	if maxPoints == 0 {
		maxPoints = layercond.MaxSweepSizes
	}
	if l.Inner > 0 && l.Kernel.Dims != 3 {
		return nil, fieldErrorf("inner", "--inner %d: a fixed row length sweeps the planes of a 3-D kernel; %s is %d-D, and its sweep varies the row length itself", l.Inner, l.Kernel.Name, l.Kernel.Dims)
	}
	sizes := l.Sizes
	if len(sizes) == 0 {
		var err error
		if sizes, err = parseSweep(layercond.DefaultSweepOf(l.Kernel.Dims), maxPoints); err != nil {
			return nil, err
		}
	}
	if n := len(sizes) * len(blocks); n > maxPoints {
		return nil, fieldErrorf("max-points", "--sweep: %d sizes for each of %d blocks are %d estimates, more than the %d that --max-points allows; take a coarser step or fewer blocks, or raise --max-points", len(sizes), len(blocks), n, maxPoints)
	}
	work := &layercond.Work{Limit: l.MaxWork}
	configs := make([]layercond.Config, len(blocks))
	for i, b := range blocks {
		configs[i] = layercond.Config{Kernel: l.Kernel, Device: l.Device, Block: b, Fold: l.Fold, Method: l.Method, Sizes: sizes, Total: l.Total, Inner: l.Inner, Workers: l.Workers, Work: work}
		if err := configs[i].Validate(); err != nil {
			return nil, &Error{Err: err}
		}
	}
	return configs, nil
}

// Run validates every block's sweep, then runs them under ctx and the
// sequential layer condition.
func (l Layercond) Run(ctx context.Context) (*LayercondReport, error) {
	configs, err := l.configs()
	if err != nil {
		return nil, err
	}
	k, dev := l.Kernel, l.Device
	rep := &LayercondReport{Kernel: k.Name, Device: dev.Name, Method: l.Method.Name, Total: l.Total, Dims: k.Dims, Inner: l.Inner, L2Bytes: dev.L2Bytes}
	if rep.Sequential, err = layercond.Sequential(k, int64(l.CacheFraction*float64(dev.L2Bytes))); err != nil {
		rep.SequentialNote = err.Error()
	}
	for _, cfg := range configs {
		r, err := layercond.SweepContext(ctx, cfg)
		if err != nil {
			return nil, EstimateError(k.NewLaunch(cfg.Block, cfg.Fold), err)
		}
		rep.Sweeps = append(rep.Sweeps, r)
	}
	return rep, nil
}
