package cli

import (
	"fmt"
	"io"
	"strconv"

	"github.com/polyvol/polyvol/accuracy"
	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/request"
	ucli "github.com/urfave/cli/v2"
)

func init() {
	register(func() *ucli.Command {
		defaults := request.DefaultSimulate()
		return &ucli.Command{
			Name:      "simulate",
			Usage:     "measure the volumes of one configuration with the trace-driven cache simulator",
			ArgsUsage: "[SPEC]",
			UsageText: `polyvol simulate [SPEC] [--device NAME] [--block X,Y,Z] [--fold X,Y,Z]
                 [--tile TILING] [--domain X,Y,Z] [options]

Runs every thread of the launch through coalescing, a sectored L1 per SM, a
shared write-back L2 and DRAM (package sim; go doc github.com/polyvol/polyvol/sim) and prints the
bytes per lattice update at each level, in total and per field. SPEC, the
defaults and --block, --fold, --tile, --domain and --steps are those of
'polyvol predict'. A launch of several time steps (--steps, a kernel with a
state) is replayed step by step, and its volumes are per useful update.

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
				foldFlag(),
				tileFlag(),
				unstagedFlag,
				stepsFlag,
				&ucli.StringFlag{Name: "domain", Usage: "override the spec's domain with `X,Y,Z` lattice points"},
				&ucli.BoolFlag{Name: "infinite", Usage: "unbounded caches: only compulsory traffic remains"},
				&choiceFlag{&ucli.StringFlag{Name: "l1-policy", Value: defaults.L1Policy, Usage: "L1 replacement `POLICY`: lru or plru (tree pseudo-LRU)"}, policyChoices},
				&choiceFlag{&ucli.StringFlag{Name: "l2-policy", Value: defaults.L2Policy, Usage: "L2 replacement `POLICY`: lru or plru"}, policyChoices},
				&ucli.BoolFlag{Name: "split-l2", Usage: "split the L2 into the device's partitions that duplicate lines (A100, H100)"},
				&choiceFlag{&ucli.StringFlag{Name: "schedule", Value: defaults.Schedule, Usage: "warp `ORDER` within a wave: lockstep (round-robin over all warps), block (block by block) or warp (warp by warp)"}, []string{request.ScheduleLockstep, request.ScheduleBlock, request.ScheduleWarp}},
				&ucli.BoolFlag{Name: "compare", Usage: "add the volumes that predict estimates for the same launch (method exact), and their ratio to the simulated ones"},
				&ucli.Int64Flag{Name: "max-accesses", Value: defaults.MaxAccesses, Usage: "refuse simulations of more than `N` thread memory accesses"},
				formatFlag(formatTable, formatJSON, formatCSV),
			},
			Action: runSimulate,
		}
	})
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
	req := request.Simulate{Kernel: k, Device: dev, Launch: l, Infinite: c.Bool("infinite"), SplitL2: c.Bool("split-l2"),
		L1Policy: c.String("l1-policy"), L2Policy: c.String("l2-policy"), Schedule: c.String("schedule"), MaxAccesses: c.Int64("max-accesses")}
	out, err := req.Run(c.Context)
	if err != nil {
		return err
	}
	if c.Bool("compare") {
		if format == formatCSV {
			return flagErrorf("compare", "--compare: the CSV has no place for the predicted volumes; use --format table or json")
		}
		if out.Predicted, err = request.PredictedVolumes(c.Context, k, l, dev, req.Infinite); err != nil {
			return err
		}
	}
	// Notes once the run succeeded: a failing command prints one line.
	for _, note := range req.Notes() {
		fmt.Fprintf(c.App.ErrWriter, "polyvol: note: %s\n", note)
	}
	w := c.App.Writer
	switch format {
	case formatJSON:
		return request.WriteJSON(w, out)
	case formatCSV:
		return writeCSV(w, [][]string{simCSVHeader, simCSVRecord(*out)})
	}
	return writeSimulation(w, *out, dev)
}

// simCSVHeader names the columns of simCSVRecord; the volume columns carry
// predict's names (csvHeader).
var simCSVHeader = []string{
	"kernel", "device", "block", "fold", "tiling", "domain", "blocksPerSM", "blocksPerWave",
	"infinite", "schedule", "l1Policy", "l2Policy", "splitL2",
	"L1Load", "L2LoadV2", "L2Store", "memLoadV4", "memStoreV2", "memStoreEvicts",
}

// simCSVRecord returns the simCSVHeader columns of s at full precision.
func simCSVRecord(s request.Simulation) []string {
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
func writeSimulation(w io.Writer, s request.Simulation, dev *device.Device) error {
	l, cf := s.Launch, s.Config
	caches := fmt.Sprintf("L1 %d KiB %s, L2 %d KiB %s", cf.L1Bytes/1024, cf.L1Policy, cf.L2Bytes/1024, cf.L2Policy)
	if cf.SplitL2 {
		caches += fmt.Sprintf(" per partition (%d partitions)", dev.L2Partitions)
	}
	if cf.Infinite {
		caches = "infinite caches"
	}
	fmt.Fprintf(w, "%s on %s (%s), simulated: %s, schedule %s\n", s.Kernel, dev.Name, dev.DisplayName, caches, cf.Schedule)
	steps := ""
	if l.Steps > 1 {
		steps = fmt.Sprintf("  steps %d (volumes per useful update)", l.Steps)
	}
	fmt.Fprintf(w, "block %s  fold %s%s  domain %s  grid %s%s  (%d Lups, %d accesses)\n",
		request.Triple(l.Block), request.Triple(l.Fold), l.Tiling.Suffix(), request.Triple(l.Domain), request.Triple(l.Grid), steps, l.LupCount, s.Simulated.Accesses)
	fmt.Fprintf(w, "occupancy: %d blocks/SM, %d blocks/wave, %d waves\n\n", l.BlocksPerSM, l.BlocksPerWave, l.Waves)

	d := s.Derived
	if err := writeTable(w, simulationVolumes(d)); err != nil {
		return err
	}
	if _, err := fmt.Fprintf(w, "\nDRAM load includes %s B/Lup read for partially written chunks (memStoreEvicts).\n", fixed(d.MemStoreEvicts, 2)); err != nil {
		return err
	}
	if t := s.Simulated.Total; t.SharedLoadInstructions+t.SharedStoreInstructions > 0 {
		stores := "the copies'"
		if l.Steps > 1 {
			stores = "the copies' and the next values'"
		}
		fmt.Fprintf(w, "shared memory (staged fields): %d warp loads in %d wavefronts, %s %d warp stores in %d wavefronts, %d warp loads from global memory\n",
			t.SharedLoadInstructions, t.SharedLoadWavefronts, stores, t.SharedStoreInstructions, t.SharedStoreWavefronts, t.CopyLoadInstructions)
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
