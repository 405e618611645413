package cli

import (
	"fmt"
	"io"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/model"
	ucli "github.com/urfave/cli/v2"
)

// Defaults of predict and explore.
const (
	defaultSpec   = "star3d-r4" // the spec predict runs when given none
	defaultDevice = "A100-40GB"
)

// defaultBlock returns the block predict uses without --block: 256 threads
// along x, doubled along the spec's last dimension for 2-D and 3-D domains
// (256,2,1 and 256,1,2, the paper's star3d-r4 configuration).
func defaultBlock(k *kernel.Kernel) [3]int64 {
	switch k.Dims {
	case 1:
		return [3]int64{256, 1, 1}
	case 2:
		return [3]int64{256, 2, 1}
	}
	return [3]int64{256, 1, 2}
}

func init() {
	register(func() *ucli.Command {
		return &ucli.Command{
			Name:      "predict",
			Usage:     "predict volumes, L1 cycles, limiters and performance of one configuration",
			ArgsUsage: "[SPEC]",
			UsageText: `polyvol predict [SPEC] [--device NAME] [--block X,Y,Z] [--fold X,Y,Z] [options]

` + specArgHelp + `
Without SPEC it predicts star3d-r4 on A100-40GB with block 256,1,2.
Without --block the block is 256,1,1 for 1-D, 256,2,1 for 2-D and 256,1,2
for 3-D domains.

Examples:
   polyvol predict
   polyvol predict lbm-d3q19-pull --device H100-SXM --block 128,2,2
   polyvol predict my-kernel.yaml --block 64,4,4 --fold 1,1,2 --format json
   polyvol predict star3d-r4 --domain 256,256,256 --method reference --format csv`,
			Flags: append([]ucli.Flag{
				&ucli.StringFlag{Name: "device", Aliases: []string{"d"}, Value: defaultDevice, Usage: "GPU `NAME` (see 'polyvol devices')"},
				deviceFileFlag,
				&ucli.StringFlag{Name: "block", Aliases: []string{"b"}, Usage: "thread-block size `X,Y,Z` (default: by domain dimensions)"},
				&ucli.StringFlag{Name: "fold", Value: "1,1,1", Usage: "thread folding `X,Y,Z`: lattice points per thread and dimension"},
				formatFlag(formatTable, formatJSON, formatCSV),
			}, estimateFlags()...),
			Action:       runPredict,
			BashComplete: completeSpecs,
		}
	})
}

// runPredict is the action of the predict command.
func runPredict(c *ucli.Context) error {
	if c.NArg() > 1 {
		return usageErrorf("predict takes at most one SPEC, got %d arguments", c.NArg())
	}
	format, err := outputFormat(c, formatTable, formatJSON, formatCSV)
	if err != nil {
		return err
	}
	opt, err := estimateOptions(c)
	if err != nil {
		return err
	}
	k, dev, l, err := configurationFromFlags(c)
	if err != nil {
		return err
	}
	ctx, err := newISLCtx(c)
	if err != nil {
		return err
	}
	defer ctx.Close()
	opt.Ctx = ctx
	r, err := model.Estimate(k, l, dev, opt)
	if err != nil {
		return estimateError(l, err)
	}
	if note := l.GridNote(); note != "" {
		fmt.Fprintf(c.App.ErrWriter, "polyvol: note: %s\n", note)
	}
	if note := model.IdleNote(l, int64(dev.WarpSize)); note != "" {
		fmt.Fprintf(c.App.ErrWriter, "polyvol: note: %s\n", note)
	}
	w := c.App.Writer
	switch format {
	case formatJSON:
		return writeJSON(w, r)
	case formatCSV:
		return writeCSV(w, [][]string{csvHeader, csvRecord(r)})
	}
	return writeReport(w, r, dev)
}

// writeReport prints one configuration as tables grouped by memory level.
func writeReport(w io.Writer, r *model.Report, dev *device.Device) error {
	l, d, p := r.Launch, r.Derived, r.Prediction
	fmt.Fprintf(w, "%s on %s (%s), method %s, model %s\n", r.Kernel, dev.Name, dev.DisplayName, r.Method, p.Model)
	fmt.Fprintf(w, "block %s  fold %s  domain %s  grid %s  (%d threads/block, %d Lups/thread)\n",
		triple(l.Block), triple(l.Fold), triple(l.Domain), triple(l.Grid), l.ThreadsPerBlock, l.LupsPerThread)
	limiter := ""
	if l.OccupancyLimiter != "" {
		limiter = ", limited by " + l.OccupancyLimiter
	}
	fmt.Fprintf(w, "occupancy: %d blocks/SM%s, %d blocks/wave, %s waves\n\n", l.BlocksPerSM, limiter, l.BlocksPerWave, fixed(l.WavesInGrid, 2))

	rows := volumeRows(d)
	rows = append(rows, nil,
		[]string{"L1 cycles per Lup", "total", "data pipe", "tag"},
		[]string{"", fixed(d.L1CyclesPerLup, 3), fixed(d.L1DataPipeCyclesPerLup, 3), fixed(d.L1TagCyclesPerLup, 3)},
		nil,
		[]string{"limiter", "GLup/s"},
		[]string{"flops", flopsBound(d)},
		[]string{"L1 (cycles)", fixed(d.PerfL1, 2)},
		[]string{"L2 (load V2 + store)", fixed(d.PerfL2V2, 2)},
		[]string{"DRAM (load V3 + store V2)", fixed(d.PerfMemV3, 2)},
	)
	if err := writeTable(w, rows); err != nil {
		return err
	}
	regime := ""
	if p.Regime != "" {
		regime = ", " + p.Regime
	}
	_, err := fmt.Fprintf(w, "\nprediction: %s GLup/s, limited by %s (%s model%s)\n", fixed(p.GLups, 2), p.Limiter, p.Model, regime)
	return err
}

// flopsBound is the flops limiter for the table, "none" without flops.
func flopsBound(d model.Derived) string {
	if d.PerfFlops == nil {
		return "none"
	}
	return fixed(*d.PerfFlops, 2)
}

// volumeRows are the table rows of the per-Lup volumes: the total and one
// column per field ("-" where a field has no share, e.g. a store field's
// loads, or where the model does not split a volume by field).
func volumeRows(d model.Derived) [][]string {
	head := []string{"volume (B/Lup)", "total"}
	for _, f := range d.LoadFields {
		head = append(head, f.Name)
	}
	for _, f := range d.StoreFields {
		head = append(head, f.Name+" (store)")
	}
	type lf = model.LoadFieldDerived
	type sf = model.StoreFieldDerived
	defs := []struct {
		label string
		total float64
		load  func(lf) float64 // nil: no per-field split of loads
		store func(sf) float64 // nil: no per-field split of stores
	}{
		{"L1 load", d.L1Load, func(f lf) float64 { return f.L1Load }, nil},
		{"L2 load V1", d.L2LoadV1, func(f lf) float64 { return f.L2LoadV1 }, nil},
		{"L2 load V2", d.L2LoadV2, func(f lf) float64 { return f.L2LoadV2 }, nil},
		{"L2 store", d.L2Store, nil, func(f sf) float64 { return f.L2Store }},
		{"DRAM load V1", d.MemLoadV1, func(f lf) float64 { return f.MemLoadV1 }, nil},
		{"DRAM load V2", d.MemLoadV2, func(f lf) float64 { return f.MemLoadV2 }, nil},
		{"DRAM load V3", d.MemLoadV3, nil, nil},
		{"DRAM load V4", d.MemLoadV4, nil, nil},
		{"DRAM store V1", d.MemStoreV1, nil, func(f sf) float64 { return f.MemStoreV1 }},
		{"DRAM store V2", d.MemStoreV2, nil, nil},
	}
	rows := [][]string{head}
	for _, def := range defs {
		cells := []string{def.label, fixed(def.total, 2)}
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

// cell formats one field's share of a volume, "-" when there is none.
func cell[F any](get func(F) float64, f F) string {
	if get == nil {
		return "-"
	}
	return fixed(get(f), 2)
}
