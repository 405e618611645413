package request

// The simulate request: one configuration run through the trace-driven
// cache simulator (package sim).

import (
	"context"
	"errors"
	"math/big"

	"github.com/polyvol/polyvol/accuracy"
	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/model"
	"github.com/polyvol/polyvol/sim"
)

// Simulate is a request for the simulation of one configuration: the
// kernel (with the request's domain), the device and the launch as the
// front end loaded and checked them (LoadSpec, FindDevice, Launch.Of),
// and the simulated machine's keys in their string forms
// (DefaultSimulate for a request that names none).
type Simulate struct {
	Kernel *kernel.Kernel
	Device *device.Device
	Launch kernel.Launch
	// Infinite makes the caches unbounded; SplitL2 splits the L2 into the
	// device's partitions.
	Infinite, SplitL2 bool
	// L1Policy and L2Policy name the caches' replacement policies
	// (sim.ParsePolicy), Schedule the warp order (ScheduleLockstep, ...).
	L1Policy, L2Policy, Schedule string
	// MaxAccesses bounds the thread memory accesses of the run.
	MaxAccesses int64
}

// DefaultSimulate returns the simulate request that names none of the
// simulated machine's keys, without its kernel, device and launch: LRU
// caches of the device's sizes, shared by all partitions, lockstep warps,
// and at most sim.DefaultMaxAccesses thread memory accesses.
func DefaultSimulate() Simulate {
	return Simulate{L1Policy: sim.LRU.String(), L2Policy: sim.LRU.String(), Schedule: ScheduleLockstep, MaxAccesses: sim.DefaultMaxAccesses}
}

// Schedules of a simulate request (--schedule).
const (
	ScheduleLockstep = "lockstep"
	ScheduleBlock    = "block"
	ScheduleWarp     = "warp"
)

// schedules maps the schedules to the simulator's schedulers.
var schedules = map[string]sim.Scheduler{
	ScheduleLockstep: sim.Lockstep{},
	ScheduleBlock:    sim.BlockByBlock{},
	ScheduleWarp:     sim.WarpByWarp{},
}

// Simulation is the answer of a simulate request, and its JSON.
type Simulation struct {
	Kernel    string                    `json:"kernel"`
	Device    string                    `json:"device"`
	Launch    SimLaunch                 `json:"launch"`
	Config    SimConfig                 `json:"config"`
	Derived   accuracy.SimulatedDerived `json:"derived"`
	Simulated sim.Result                `json:"simulated"`
	// Predicted holds the estimate's volumes of the same launch (method
	// exact) with --compare: V1 with infinite caches, else the versions
	// the simulator counts (accuracy.Predicted).
	Predicted *accuracy.Volumes `json:"predicted,omitempty"`
}

// SimLaunch describes the launch under predict's launch keys.
type SimLaunch struct {
	Block         [3]int64      `json:"block"`
	Fold          [3]int64      `json:"fold"`
	Tiling        kernel.Tiling `json:"tiling,omitempty"`   // left out for thread folding
	Unstaged      bool          `json:"unstaged,omitempty"` // as predict's launch
	Domain        [3]int64      `json:"domain"`
	Grid          [3]int64      `json:"grid"`
	BlocksPerSM   int           `json:"blocksPerSM"`
	BlocksPerWave int64         `json:"blocksPerWave"`
	Waves         int64         `json:"waves"`
	LupCount      int64         `json:"lupCount"`
	Steps         int64         `json:"steps,omitempty"` // time steps of a launch of more than one
}

// SimConfig records the simulated machine.
type SimConfig struct {
	Infinite bool   `json:"infinite"`
	L1Bytes  int64  `json:"l1Bytes"`
	L2Bytes  int64  `json:"l2Bytes"`
	L1Policy string `json:"l1Policy"`
	L2Policy string `json:"l2Policy"`
	SplitL2  bool   `json:"splitL2"`
	Schedule string `json:"schedule"`
}

// PredictedVolumes estimates launch l of k on dev with method exact and
// returns the volumes the simulator counts: with infinite caches the
// compulsory ones (V1), whose reuse no capacity limits.
func PredictedVolumes(ctx context.Context, k *kernel.Kernel, l kernel.Launch, dev *device.Device, infinite bool) (*accuracy.Volumes, error) {
	r, err := model.Estimate(k, l, dev, model.Options{Method: model.MethodExact, Context: ctx})
	if err != nil {
		return nil, EstimateError(l, err)
	}
	v := accuracy.Predicted(r.Derived)
	if infinite {
		d := r.Derived
		v = accuracy.Volumes{L1Load: d.L1Load, L2LoadV2: d.L2LoadV1, L2Store: d.L2Store, MemLoadV4: d.MemLoadV1, MemStoreV2: d.MemStoreV1}
	}
	return &v, nil
}

// Config returns the simulator's configuration of s, and its record in
// the answer.
func (s Simulate) Config() (sim.Config, SimConfig, error) {
	var policies [2]sim.Policy
	for i, p := range []struct{ flag, name string }{{"l1-policy", s.L1Policy}, {"l2-policy", s.L2Policy}} {
		policy, err := sim.ParsePolicy(p.name)
		if err != nil {
			return sim.Config{}, SimConfig{}, fieldErrorf(p.flag, "--%s: %v", p.flag, err)
		}
		policies[i] = policy
	}
	schedule, err := ParseChoice("schedule", s.Schedule, ScheduleLockstep, ScheduleBlock, ScheduleWarp)
	if err != nil {
		return sim.Config{}, SimConfig{}, err
	}
	if s.MaxAccesses < 1 {
		return sim.Config{}, SimConfig{}, fieldErrorf("max-accesses", "--max-accesses %d: expected a positive number", s.MaxAccesses)
	}
	dev := s.Device
	cfg := sim.Config{
		Device: dev, Infinite: s.Infinite, SplitL2: s.SplitL2,
		L1Policy: policies[0], L2Policy: policies[1],
		Schedule: schedules[schedule], MaxAccesses: s.MaxAccesses,
	}
	sc := SimConfig{Infinite: cfg.Infinite, L1Bytes: dev.L1Bytes, L2Bytes: dev.L2Bytes,
		L1Policy: policies[0].String(), L2Policy: policies[1].String(), SplitL2: cfg.SplitL2, Schedule: schedule}
	return cfg, sc, nil
}

// Run simulates the configuration of s under ctx (sim.RunContext); the
// predicted volumes are left to PredictedVolumes.
func (s Simulate) Run(ctx context.Context) (*Simulation, error) {
	cfg, sc, err := s.Config()
	if err != nil {
		return nil, err
	}
	k, l := s.Kernel, s.Launch
	r, err := sim.RunContext(ctx, k, l, cfg)
	if err != nil {
		return nil, SimError(l, err)
	}
	return &Simulation{
		Kernel: k.Name, Device: s.Device.Name,
		Launch: SimLaunch{Block: r.Block, Fold: r.Fold, Tiling: l.Tiling, Unstaged: l.Unstaged && l.StagedFields(k), Domain: r.Domain, Grid: r.Grid,
			BlocksPerSM: r.BlocksPerSM, BlocksPerWave: r.BlocksPerWave, Waves: r.Waves, LupCount: r.Lups, Steps: r.Steps},
		Config:    sc,
		Derived:   accuracy.SimulatedFields(k, r),
		Simulated: r,
	}, nil
}

// Notes returns the notes on the launch of s that a successful simulation
// prints: a grid that the domain does not fill, idle threads.
func (s Simulate) Notes() []string {
	var notes []string
	for _, note := range []string{s.Launch.GridNote(), model.IdleNote(s.Launch, int64(s.Device.WarpSize))} {
		if note != "" {
			notes = append(notes, note)
		}
	}
	return notes
}

// SimError classifies an error of sim.Run. The launch is valid by then, so
// what remains comes from the spec, the device or the size of the run, all
// of which the user chose. A trace over --max-accesses is told a smaller
// --domain whose trace fits (fittingDomain), or, when one block is already
// too many accesses, a smaller block or fold.
func SimError(l kernel.Launch, err error) error {
	var tooMany *sim.AccessLimitError
	var tooWide *sim.LineLimitError
	where := launchName(l) + " domain " + Triple(l.Domain)
	switch {
	case errors.As(err, &tooMany):
		perBlock := int64(tooMany.Threads) * int64(tooMany.Instructions)
		total := new(big.Int).Mul(big.NewInt(tooMany.Blocks), big.NewInt(perBlock))
		if perBlock > tooMany.Limit {
			return inputErrorf("%s: the simulation is too large: one block of %d threads × %d memory instructions is %d thread memory accesses, more than the --max-accesses bound of %d; choose a smaller --block or --fold",
				where, tooMany.Threads, tooMany.Instructions, perBlock, tooMany.Limit)
		}
		d := fittingDomain(l, tooMany.Limit/perBlock)
		fit := kernel.Launch{Block: l.Block, Fold: l.Fold, Domain: d, Tiling: l.Tiling, Unstaged: l.Unstaged}
		return inputErrorf("%s: the simulation is too large: %s thread memory accesses, more than the --max-accesses bound of %d; simulate a smaller --domain, e.g. %s (%d accesses)",
			where, total, tooMany.Limit, Triple(d), fit.Blocks()*perBlock)
	case errors.As(err, &tooWide):
		return inputErrorf("%s: the simulation is too large: the infinite caches hold %d lines after wave %d, more than the simulator's bound of %d lines; simulate a smaller --domain, or leave out --infinite",
			where, tooWide.Lines, tooWide.Wave, tooWide.Limit)
	}
	return inputErrorf("%s: %v", launchName(l), err)
}

// fittingDomain returns a domain within l's whose launch, with l's block
// and fold, has at most maxBlocks thread blocks (maxBlocks >= 1): the
// largest extent of l's grid is halved, rounding up, until the grid has at
// most maxBlocks blocks, and in each dimension where the grid shrank the
// domain becomes the lattice points the grid's blocks cover.
func fittingDomain(l kernel.Launch, maxBlocks int64) [3]int64 {
	g := l.Grid()
	for g[0]*g[1]*g[2] > maxBlocks {
		i := 0
		for j := range 3 {
			if g[j] > g[i] {
				i = j
			}
		}
		g[i] = (g[i] + 1) / 2 // the largest side is at least 2 while the product exceeds maxBlocks >= 1
	}
	d := l.Domain
	for i := range 3 {
		d[i] = min(d[i], g[i]*l.Block[i]*l.Fold[i])
	}
	return d
}
