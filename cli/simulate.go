package cli

import (
	"errors"
	"fmt"
	"io"
	"math/big"
	"strconv"

	"github.com/polyvol/polyvol/accuracy"
	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/model"
	"github.com/polyvol/polyvol/sim"
	ucli "github.com/urfave/cli/v2"
)

// Schedules of the --schedule flag.
const (
	scheduleLockstep = "lockstep"
	scheduleBlock    = "block"
	scheduleWarp     = "warp"
)

// schedules maps the --schedule values to the simulator's schedulers.
var schedules = map[string]sim.Scheduler{
	scheduleLockstep: sim.Lockstep{},
	scheduleBlock:    sim.BlockByBlock{},
	scheduleWarp:     sim.WarpByWarp{},
}

func init() {
	register(func() *ucli.Command {
		return &ucli.Command{
			Name:      "simulate",
			Usage:     "measure the volumes of one configuration with the trace-driven cache simulator",
			ArgsUsage: "[SPEC]",
			UsageText: `polyvol simulate [SPEC] [--device NAME] [--block X,Y,Z] [--fold X,Y,Z]
                 [--tile TILING] [--domain X,Y,Z] [options]

Runs every thread of the launch through coalescing, a sectored L1 per SM, a
shared write-back L2 and DRAM (package sim; go doc github.com/polyvol/polyvol/sim) and prints the
bytes per lattice update at each level, in total and per field. SPEC, the
defaults and --block, --fold, --tile and --domain are those of 'polyvol
predict'.

The JSON output uses predict's keys ("derived") where the quantities coincide:
   L1Load          L1 load: sectors requested by the load warp instructions
   L2LoadV2        L2→L1 load: L1 sector misses (simulated L2Load)
   L2Store         L1→L2 store: write-through units
   memLoadV4       DRAM load, reads of partially written chunks included
                   (simulated memLoad)
   memStoreV2      DRAM store: write-backs (simulated memStore)
   memStoreEvicts  DRAM reads of partially written chunks
and adds the raw counts of the simulator ("simulated"). --compare estimates
the same launch as predict does (method exact) and adds its volumes beside
the simulated ones ("predicted" in JSON; V1 with --infinite).

The simulation enumerates every thread, so its cost grows with the domain:
configurations over --max-accesses (threads × memory instructions) are
refused; simulate a smaller --domain.

Examples:
   polyvol simulate star3d-r4 --domain 160,128,128 --block 256,1,4
   polyvol simulate star3d-r1 --domain 256,256,64 --block 32,8,4 \
       --infinite --format json
   polyvol simulate star2d-r1 --domain 512,512 --compare
   polyvol simulate lbm-d3q19-pull --domain 64,64,64 --block 128,2,2 \
       --split-l2 --l1-policy plru`,
			Flags: []ucli.Flag{
				&ucli.StringFlag{Name: "device", Aliases: []string{"d"}, Value: defaultDevice, Usage: "GPU `NAME` (see 'polyvol devices')"},
				deviceFileFlag,
				&ucli.StringFlag{Name: "block", Aliases: []string{"b"}, Usage: "thread-block size `X,Y,Z` (default: by domain dimensions)"},
				&ucli.StringFlag{Name: "fold", Value: "1,1,1", Usage: "thread folding `X,Y,Z`: lattice points per thread and dimension"},
				tileFlag(),
				unstagedFlag,
				&ucli.StringFlag{Name: "domain", Usage: "override the spec's domain with `X,Y,Z` lattice points"},
				&ucli.BoolFlag{Name: "infinite", Usage: "unbounded caches: only compulsory traffic remains"},
				&choiceFlag{&ucli.StringFlag{Name: "l1-policy", Value: sim.LRU.String(), Usage: "L1 replacement `POLICY`: lru or plru (tree pseudo-LRU)"}, policyChoices},
				&choiceFlag{&ucli.StringFlag{Name: "l2-policy", Value: sim.LRU.String(), Usage: "L2 replacement `POLICY`: lru or plru"}, policyChoices},
				&ucli.BoolFlag{Name: "split-l2", Usage: "split the L2 into the device's partitions that duplicate lines (A100, H100)"},
				&choiceFlag{&ucli.StringFlag{Name: "schedule", Value: scheduleLockstep, Usage: "warp `ORDER` within a wave: lockstep (round-robin over all warps), block (block by block) or warp (warp by warp)"}, []string{scheduleLockstep, scheduleBlock, scheduleWarp}},
				&ucli.BoolFlag{Name: "compare", Usage: "add the volumes that predict estimates for the same launch (method exact), and their ratio to the simulated ones"},
				&ucli.Int64Flag{Name: "max-accesses", Value: sim.DefaultMaxAccesses, Usage: "refuse simulations of more than `N` thread memory accesses"},
				formatFlag(formatTable, formatJSON, formatCSV),
			},
			Action: runSimulate,
		}
	})
}

// simulation is the JSON output of simulate.
type simulation struct {
	Kernel    string                    `json:"kernel"`
	Device    string                    `json:"device"`
	Launch    simLaunch                 `json:"launch"`
	Config    simConfig                 `json:"config"`
	Derived   accuracy.SimulatedDerived `json:"derived"`
	Simulated sim.Result                `json:"simulated"`
	// Predicted holds the estimate's volumes of the same launch (method
	// exact) with --compare: V1 with infinite caches, else the versions
	// the simulator counts (accuracy.Predicted).
	Predicted *accuracy.Volumes `json:"predicted,omitempty"`
}

// simLaunch describes the launch under predict's launch keys.
type simLaunch struct {
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
}

// simConfig records the simulated machine.
type simConfig struct {
	Infinite bool   `json:"infinite"`
	L1Bytes  int64  `json:"l1Bytes"`
	L2Bytes  int64  `json:"l2Bytes"`
	L1Policy string `json:"l1Policy"`
	L2Policy string `json:"l2Policy"`
	SplitL2  bool   `json:"splitL2"`
	Schedule string `json:"schedule"`
}

// runSimulate is the action of the simulate command.
func runSimulate(c *ucli.Context) error {
	if c.NArg() > 1 {
		return usageErrorf("simulate takes at most one SPEC, got %d arguments", c.NArg())
	}
	format, err := outputFormat(c, formatTable, formatJSON, formatCSV)
	if err != nil {
		return err
	}
	k, dev, l, err := configurationFromFlags(c)
	if err != nil {
		return err
	}
	cfg, sc, err := simConfigFlags(c, dev)
	if err != nil {
		return err
	}
	r, err := sim.RunContext(c.Context, k, l, cfg)
	if err != nil {
		return simError(l, err)
	}
	out := simulation{
		Kernel: k.Name, Device: dev.Name,
		Launch: simLaunch{Block: r.Block, Fold: r.Fold, Tiling: l.Tiling, Unstaged: l.Unstaged && l.StagedFields(k), Domain: r.Domain, Grid: r.Grid,
			BlocksPerSM: r.BlocksPerSM, BlocksPerWave: r.BlocksPerWave, Waves: r.Waves, LupCount: r.Lups},
		Config:    sc,
		Derived:   accuracy.SimulatedFields(k, r),
		Simulated: r,
	}
	if c.Bool("compare") {
		if format == formatCSV {
			return flagErrorf("compare", "--compare: the CSV has no place for the predicted volumes; use --format table or json")
		}
		if out.Predicted, err = predictedVolumes(c, k, l, dev, cfg.Infinite); err != nil {
			return err
		}
	}
	// Notes once the run succeeded: a failing command prints one line.
	for _, note := range []string{l.GridNote(), model.IdleNote(l, int64(dev.WarpSize))} {
		if note != "" {
			fmt.Fprintf(c.App.ErrWriter, "polyvol: note: %s\n", note)
		}
	}
	w := c.App.Writer
	switch format {
	case formatJSON:
		return writeJSON(w, out)
	case formatCSV:
		return writeCSV(w, [][]string{simCSVHeader, simCSVRecord(out)})
	}
	return writeSimulation(w, out, dev)
}

// predictedVolumes estimates launch l of k on dev with method exact and
// returns the volumes the simulator counts: with infinite caches the
// compulsory ones (V1), whose reuse no capacity limits.
func predictedVolumes(c *ucli.Context, k *kernel.Kernel, l kernel.Launch, dev *device.Device, infinite bool) (*accuracy.Volumes, error) {
	r, err := model.Estimate(k, l, dev, model.Options{Method: model.MethodExact, Context: c.Context})
	if err != nil {
		return nil, estimateError(l, err)
	}
	v := accuracy.Predicted(r.Derived)
	if infinite {
		d := r.Derived
		v = accuracy.Volumes{L1Load: d.L1Load, L2LoadV2: d.L2LoadV1, L2Store: d.L2Store, MemLoadV4: d.MemLoadV1, MemStoreV2: d.MemStoreV1}
	}
	return &v, nil
}

// simConfigFlags builds the simulator configuration of the machine flags.
func simConfigFlags(c *ucli.Context, dev *device.Device) (sim.Config, simConfig, error) {
	var policies [2]sim.Policy
	for i, flag := range []string{"l1-policy", "l2-policy"} {
		p, err := sim.ParsePolicy(c.String(flag))
		if err != nil {
			return sim.Config{}, simConfig{}, flagErrorf(flag, "--%s: %v", flag, err)
		}
		policies[i] = p
	}
	schedule, err := parseChoice("schedule", c.String("schedule"), scheduleLockstep, scheduleBlock, scheduleWarp)
	if err != nil {
		return sim.Config{}, simConfig{}, err
	}
	if c.Int64("max-accesses") < 1 {
		return sim.Config{}, simConfig{}, flagErrorf("max-accesses", "--max-accesses %d: expected a positive number", c.Int64("max-accesses"))
	}
	cfg := sim.Config{
		Device: dev, Infinite: c.Bool("infinite"), SplitL2: c.Bool("split-l2"),
		L1Policy: policies[0], L2Policy: policies[1],
		Schedule: schedules[schedule], MaxAccesses: c.Int64("max-accesses"),
	}
	sc := simConfig{Infinite: cfg.Infinite, L1Bytes: dev.L1Bytes, L2Bytes: dev.L2Bytes,
		L1Policy: policies[0].String(), L2Policy: policies[1].String(), SplitL2: cfg.SplitL2, Schedule: schedule}
	return cfg, sc, nil
}

// simError classifies an error of sim.Run. The launch is valid by then, so
// what remains comes from the spec, the device or the size of the run, all
// of which the user chose. A trace over --max-accesses is told a smaller
// --domain whose trace fits (fittingDomain), or, when one block is already
// too many accesses, a smaller block or fold.
func simError(l kernel.Launch, err error) error {
	var tooMany *sim.AccessLimitError
	var tooWide *sim.LineLimitError
	where := launchName(l) + " domain " + triple(l.Domain)
	switch {
	case errors.As(err, &tooMany):
		perBlock := int64(tooMany.Threads) * int64(tooMany.Instructions)
		total := new(big.Int).Mul(big.NewInt(tooMany.Blocks), big.NewInt(perBlock))
		if perBlock > tooMany.Limit {
			return usageErrorf("%s: the simulation is too large: one block of %d threads × %d memory instructions is %d thread memory accesses, more than the --max-accesses bound of %d; choose a smaller --block or --fold",
				where, tooMany.Threads, tooMany.Instructions, perBlock, tooMany.Limit)
		}
		d := fittingDomain(l, tooMany.Limit/perBlock)
		fit := kernel.Launch{Block: l.Block, Fold: l.Fold, Domain: d, Tiling: l.Tiling, Unstaged: l.Unstaged}
		return usageErrorf("%s: the simulation is too large: %s thread memory accesses, more than the --max-accesses bound of %d; simulate a smaller --domain, e.g. %s (%d accesses)",
			where, total, tooMany.Limit, triple(d), launchBlocks(fit)*perBlock)
	case errors.As(err, &tooWide):
		return usageErrorf("%s: the simulation is too large: the infinite caches hold %d lines after wave %d, more than the simulator's bound of %d lines; simulate a smaller --domain, or leave out --infinite",
			where, tooWide.Lines, tooWide.Wave, tooWide.Limit)
	}
	return usageErrorf("%s: %v", launchName(l), err)
}

// launchBlocks returns the thread blocks of launch l: its grid's volume.
func launchBlocks(l kernel.Launch) int64 {
	g := l.Grid()
	return g[0] * g[1] * g[2]
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

// simCSVHeader names the columns of simCSVRecord; the volume columns carry
// predict's names (csvHeader).
var simCSVHeader = []string{
	"kernel", "device", "block", "fold", "tiling", "domain", "blocksPerSM", "blocksPerWave",
	"infinite", "schedule", "l1Policy", "l2Policy", "splitL2",
	"L1Load", "L2LoadV2", "L2Store", "memLoadV4", "memStoreV2", "memStoreEvicts",
}

// simCSVRecord returns the simCSVHeader columns of s at full precision.
func simCSVRecord(s simulation) []string {
	l, v := s.Launch, s.Derived.Volumes
	return []string{
		s.Kernel, s.Device, dims(l.Block), dims(l.Fold), l.Tiling.String(), dims(l.Domain),
		strconv.Itoa(l.BlocksPerSM), strconv.FormatInt(l.BlocksPerWave, 10),
		strconv.FormatBool(s.Config.Infinite), s.Config.Schedule, s.Config.L1Policy, s.Config.L2Policy, strconv.FormatBool(s.Config.SplitL2),
		num(v.L1Load), num(v.L2LoadV2), num(v.L2Store), num(v.MemLoadV4), num(v.MemStoreV2), num(v.MemStoreEvicts),
	}
}

// writeSimulation prints a simulation as a table of volumes per field,
// labelled with predict's names.
func writeSimulation(w io.Writer, s simulation, dev *device.Device) error {
	l, cf := s.Launch, s.Config
	caches := fmt.Sprintf("L1 %d KiB %s, L2 %d KiB %s", cf.L1Bytes/1024, cf.L1Policy, cf.L2Bytes/1024, cf.L2Policy)
	if cf.SplitL2 {
		caches += fmt.Sprintf(" per partition (%d partitions)", dev.L2Partitions)
	}
	if cf.Infinite {
		caches = "infinite caches"
	}
	fmt.Fprintf(w, "%s on %s (%s), simulated: %s, schedule %s\n", s.Kernel, dev.Name, dev.DisplayName, caches, cf.Schedule)
	fmt.Fprintf(w, "block %s  fold %s%s  domain %s  grid %s  (%d Lups, %d accesses)\n",
		triple(l.Block), triple(l.Fold), l.Tiling.Suffix(), triple(l.Domain), triple(l.Grid), l.LupCount, s.Simulated.Accesses)
	fmt.Fprintf(w, "occupancy: %d blocks/SM, %d blocks/wave, %d waves\n\n", l.BlocksPerSM, l.BlocksPerWave, l.Waves)

	d := s.Derived
	if err := writeTable(w, simulationVolumes(d)); err != nil {
		return err
	}
	if _, err := fmt.Fprintf(w, "\nDRAM load includes %s B/Lup read for partially written chunks (memStoreEvicts).\n", fixed(d.MemStoreEvicts, 2)); err != nil {
		return err
	}
	if t := s.Simulated.Total; t.SharedLoadInstructions+t.SharedStoreInstructions > 0 {
		fmt.Fprintf(w, "shared memory (staged fields): %d warp loads in %d wavefronts, the copies' %d warp stores in %d wavefronts, %d warp loads from global memory\n",
			t.SharedLoadInstructions, t.SharedLoadWavefronts, t.SharedStoreInstructions, t.SharedStoreWavefronts, t.CopyLoadInstructions)
	}
	if s.Predicted == nil {
		return nil
	}
	return writeSimulationAgainstPredict(w, d, *s.Predicted, cf.Infinite)
}

// simulationVolumes returns the rows of the simulation's volume table:
// per volume its label, predict's name, the total and each load and store
// field's share.
func simulationVolumes(d accuracy.SimulatedDerived) [][]string {
	head := []string{"volume (B/Lup)", "predict name", "total"}
	for _, f := range d.LoadFields {
		head = append(head, f.Name)
	}
	for _, f := range d.StoreFields {
		head = append(head, f.Name+" (store)")
	}
	type lf = accuracy.LoadField
	type sf = accuracy.StoreField
	defs := []struct {
		label, name string
		total       float64
		load        func(lf) float64
		store       func(sf) float64
	}{
		{"L1 load", "L1Load", d.L1Load, func(f lf) float64 { return f.L1Load }, nil},
		{"L2 load", "L2LoadV2", d.L2LoadV2, func(f lf) float64 { return f.L2LoadV2 }, nil},
		{"L2 store", "L2Store", d.L2Store, nil, func(f sf) float64 { return f.L2Store }},
		{"DRAM load", "memLoadV4", d.MemLoadV4, func(f lf) float64 { return f.MemLoadV4 }, func(f sf) float64 { return f.MemStoreEvicts }},
		{"DRAM store", "memStoreV2", d.MemStoreV2, nil, func(f sf) float64 { return f.MemStoreV2 }},
	}
	rows := [][]string{head}
	for _, def := range defs {
		cells := []string{def.label, def.name, fixed(def.total, 2)}
		for _, f := range d.LoadFields {
			cells = append(cells, cell(def.load, f))
		}
		for _, f := range d.StoreFields {
			cells = append(cells, cell(def.store, f))
		}
		rows = append(rows, cells)
	}
	return rows
}

// writeSimulationAgainstPredict prints the simulated volumes d beside
// those predict gives, p; with infinite caches predict's are the
// compulsory volumes (V1).
func writeSimulationAgainstPredict(w io.Writer, d accuracy.SimulatedDerived, p accuracy.Volumes, infinite bool) error {
	version := "the versions above"
	if infinite {
		version = "V1, the compulsory volumes, as the caches are infinite"
	}
	fmt.Fprintf(w, "\nagainst predict (method exact, %s):\n", version)
	cmp := [][]string{{"volume (B/Lup)", "simulated", "predicted", "predicted/simulated"}}
	for _, v := range []struct {
		label      string
		simulated  float64
		prediction float64
	}{
		{"L1 load", d.L1Load, p.L1Load}, {"L2 load", d.L2LoadV2, p.L2LoadV2}, {"L2 store", d.L2Store, p.L2Store},
		{"DRAM load", d.MemLoadV4, p.MemLoadV4}, {"DRAM store", d.MemStoreV2, p.MemStoreV2},
	} {
		ratio := "-"
		if v.simulated > 0 {
			ratio = fixed(v.prediction/v.simulated, 3)
		}
		cmp = append(cmp, []string{v.label, fixed(v.simulated, 2), fixed(v.prediction, 2), ratio})
	}
	return writeTable(w, cmp)
}
