package cli

import (
	"fmt"
	"github.com/polyvol/polyvol/kernel"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/polyvol/polyvol/chart"
	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/model"
	"github.com/polyvol/polyvol/request"
	ucli "github.com/urfave/cli/v2"
)

// Defaults of predict and explore.
const (
	defaultSpec   = request.DefaultSpec
	defaultDevice = request.DefaultDevice
)

func init() {
	register(func() *ucli.Command {
		return &ucli.Command{
			Name:      "predict",
			Usage:     "predict volumes, L1 cycles, limiters and performance of one configuration",
			ArgsUsage: "[SPEC]",
			UsageText: `polyvol predict [SPEC] [--device NAME] [--block X,Y,Z] [--fold X,Y,Z]
                [--tile TILING] [--registers N] [options]

` + specArgHelp + `
Without SPEC it predicts star3d-r4 on A100-40GB with block 256,1,2.
Without --block the block is 256,1,1 for 1-D, 256,2,1 for 2-D and 256,1,2
for 3-D domains. --tile strided places a thread's fold points one block
size apart, x = blockIdx.x*blockDim.x*f + threadIdx.x + j*blockDim.x, as
hand-written CUDA tiles do; consecutive, the default, makes them
neighbours. --registers replaces the spec's registers per thread, which set
the occupancy; a note on stderr says when they limit it, and when they
reach the device's maximum, where the compiler spills. --explain adds a
legend of the table's rows and says which bound limits, by how much the
next one trails and what would move it; --quiet prints the prediction line
only (after that explanation with --explain), and no notes.

--plot FILE.svg or FILE.png draws the hierarchical roofline as the web
calculator does: the L1, L2 and DRAM points (flop/B, predicted GFlop/s)
against each level's bandwidth roof and the flat roofs, log-log, the
limiter's roof highlighted. The flat roofs are the device's peak (every
lane's FMA in every cycle) and the kernel's own bounds: flops (the share
of the peak its FP instruction mix reaches), issue, latency.

--plot-occupancy FILE.svg or FILE.png draws the occupancy as the CUDA
occupancy calculator does: the blocks per SM against the threads per
block, the registers per thread and the shared memory per block, each with
the other two at the launch's, coloured by the resource that limits, the
launch marked. Both plots come with any --format, but not with --statement
all; --plot-size sizes both.

With a JSCoP SPEC, --statement all predicts every statement of the region
as its own kernel, one after another, with the same flags: each
prediction under its statement's name, then per kernel and in total the
lattice updates, the time (lattice updates / GLup/s) and the bytes of each
volume (B/Lup x lattice updates), and a total line. --format json gives
the kernels as a list and the total, csv one record per kernel. A
statement with no loop or only scalars is skipped with a note. A region
of more than --max-statements statements (default 128) is refused before
any is read, and --max-work bounds the counting work of all statements
together.

Examples:
   polyvol predict
   polyvol predict lbm-d3q19-pull --device H100-SXM --block 128,2,2
   polyvol predict my-kernel.yaml --block 64,4,4 --fold 1,1,2 --format json
   polyvol predict star2d-r1 --block 32,8 --fold 2,1 --tile strided
   polyvol predict lbm-d3q19-pull --block 256,1,1 --registers 96
   polyvol predict star3d-r4 --plot roofline.svg
   polyvol predict star3d-r4 --domain 256,256,256 --method reference \
       --format csv`,
			Flags: append([]ucli.Flag{
				&ucli.StringFlag{Name: "device", Aliases: []string{"d"}, Value: defaultDevice, Usage: "GPU `NAME` (see 'polyvol devices')"},
				deviceFileFlag,
				&ucli.StringFlag{Name: "block", Aliases: []string{"b"}, Usage: "thread-block size `X,Y,Z` (default: by domain dimensions)"},
				foldFlag(),
				tileFlag(),
				unstagedFlag,
				stepsFlag,
				registersFlag(),
				formatFlag(formatTable, formatJSON, formatCSV),
				&choiceFlag{&ucli.StringFlag{Name: "fields", Value: fieldsAuto, Usage: "per-field `LAYOUT` of the table: auto (columns while the table fits in 100 characters, else rows), columns, rows or none"}, []string{fieldsAuto, fieldsColumns, fieldsRows, fieldsNone}},
				&ucli.BoolFlag{Name: "explain", Usage: "add a legend of the table's rows and say which bound limits and what would move it"},
				&ucli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "print the prediction line only, without notes (table format)"},
				plotFlag("draw the hierarchical roofline (L1, L2, DRAM)"),
				&ucli.StringFlag{Name: "plot-occupancy", Usage: "draw the blocks per SM against threads per block, registers and shared memory to `FILE` (.svg or .png)", TakesFile: true},
				plotSizeFlag(),
				maxStatementsFlag,
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
	quiet := c.Bool("quiet")
	if quiet && format != formatTable {
		return flagErrorf("quiet", "--quiet shortens the table; --format %s has no table", format)
	}
	opt, err := estimateOptions(c)
	if err != nil {
		return err
	}
	plotPath, size, err := plotFlags(c)
	if err != nil {
		return err
	}
	occupancyPath, err := imageFlag(c, "plot-occupancy")
	if err != nil {
		return err
	}
	if wholeRegion(c) {
		for _, f := range []struct{ flag, path string }{{"plot", plotPath}, {"plot-occupancy", occupancyPath}} {
			if f.path != "" {
				return flagErrorf(f.flag, "--%s %s: draws one configuration, but --statement all predicts each statement; choose one with --statement NAME", f.flag, f.path)
			}
		}
		return runPredictRegion(c, format, quiet, opt)
	}
	req, err := predictRequest(c, opt)
	if err != nil {
		return err
	}
	p, err := req.Run()
	if err != nil {
		return err
	}
	r := p.Report
	if !quiet { // the kernel's notes noteKernel prints after the command's output
		for _, n := range p.LaunchNotes {
			fmt.Fprintf(c.App.ErrWriter, "polyvol: note: %s\n", n.Text)
		}
	}
	if plotPath != "" {
		if err := writePlot(plotPath, func(w io.Writer, format string) error {
			return chart.Roofline(w, format, size, r, req.Device, req.Kernel.FPType)
		}); err != nil {
			return err
		}
	}
	if occupancyPath != "" {
		res, err := occupancyResources(req, r)
		if err != nil {
			return err
		}
		title := fmt.Sprintf("%s, block %s", r.Kernel, request.Triple(r.Launch.Block))
		if err := writeImage("plot-occupancy", occupancyPath, func(w io.Writer, format string) error {
			return chart.Occupancy(w, format, size, req.Device, res, title)
		}); err != nil {
			return err
		}
	}
	return writePrediction(c, r, req, format, quiet)
}

// occupancyResources returns the resources of the launch of req that set
// the occupancy of its report r: the threads per block, the registers per
// thread (--registers, else the compiled code's where the occupancy counts
// them, else the spec's) and the shared memory of the spec and its staged
// tiles.
func occupancyResources(req request.Predict, r *model.Report) (chart.Resources, error) {
	k := req.Kernel
	registers := k.Registers
	if mix := r.Instructions; req.Registers != nil {
		registers = *req.Registers
	} else if mix != nil && !k.RegistersStated && mix.Registers > 0 && !mix.RegistersEstimated && mix.OccupancyNote == "" {
		registers = mix.Registers
	}
	l, err := req.Launch.Of(k)
	if err != nil {
		return chart.Resources{}, err
	}
	shared, err := kernel.StagedSharedBytes(k, l)
	if err != nil {
		return chart.Resources{}, err
	}
	return chart.Resources{Threads: int(r.Launch.ThreadsPerBlock), Registers: registers, SharedBytes: shared}, nil
}

// predictRequest returns the request of predict's SPEC and flags, to be
// estimated with opt.
func predictRequest(c *ucli.Context, opt model.Options) (request.Predict, error) {
	k, dev, err := kernelAndDevice(c)
	if err != nil {
		return request.Predict{}, err
	}
	launch, err := launchFlags(c)
	if err != nil {
		return request.Predict{}, err
	}
	req := request.Predict{Kernel: k, Device: dev, Launch: launch, Options: opt}
	if c.IsSet("registers") {
		n := c.Int("registers")
		req.Registers = &n
	}
	return req, nil
}

// writePrediction writes the report r of req on standard output in format:
// JSON, CSV, the prediction line alone (quiet) or the table.
func writePrediction(c *ucli.Context, r *model.Report, req request.Predict, format string, quiet bool) error {
	w := c.App.Writer
	switch format {
	case formatJSON:
		return request.WriteJSON(w, r)
	case formatCSV:
		return writeCSV(w, [][]string{csvHeader, csvRecord(r, req.RegistersPerThread())})
	}
	if quiet {
		if c.Bool("explain") {
			fmt.Fprint(w, explanation(r))
		}
		return writePredictionLine(w, r.Prediction)
	}
	return writeReport(w, r, req.Device, c.String("fields"), c.Bool("explain"), c.Bool("explain"))
}

// The layouts of the per-field shares in the predict table (--fields).
const (
	fieldsAuto    = "auto"    // columns while the table is at most fieldsWidth wide, else rows
	fieldsColumns = "columns" // one column per field beside the total
	fieldsRows    = "rows"    // totals only, then one row per field
	fieldsNone    = "none"    // totals only
)

// fieldsWidth is the widest volume table that fieldsAuto lays out in
// columns, in characters.
const fieldsWidth = 100

// writeReport prints one configuration as tables grouped by memory level,
// with the legend of its rows if legend is set and the explanation of its
// bounds if explain is.
func writeReport(w io.Writer, r *model.Report, dev *device.Device, layout string, legend, explain bool) error {
	l, d, p := r.Launch, r.Derived, r.Prediction
	fmt.Fprintf(w, "%s on %s (%s), method %s, model %s\n", r.Kernel, dev.Name, dev.DisplayName, r.Method, p.Model)
	fmt.Fprintf(w, "block %s  fold %s%s  domain %s  grid %s  (%d threads/block, %d Lups/thread)\n",
		request.Triple(l.Block), request.Triple(l.Fold), l.Tiling.Suffix(), request.Triple(l.Domain), request.Triple(l.Grid), l.ThreadsPerBlock, l.LupsPerThread)
	limiter := ""
	if l.OccupancyLimiter != "" {
		limiter = ", limited by " + l.OccupancyLimiter
	}
	fmt.Fprintf(w, "occupancy: %d blocks/SM%s, %d blocks/wave, %s waves\n\n", l.BlocksPerSM, limiter, l.BlocksPerWave, fixed(l.WavesInGrid, 2))

	byField := append(volumeRows(d), l1CycleRows(d)...)
	if layout == fieldsAuto {
		layout = fieldsColumns
		if tableWidth(byField) > fieldsWidth {
			layout = fieldsRows
		}
	}
	rows := byField
	if layout != fieldsColumns {
		rows = totalsOnly(byField)
	}
	// The limiters once: in the model's own bounds table where it has one
	// (writeModelDetails), here otherwise.
	if len(p.Bounds) == 0 {
		issue := "none"
		if d.PerfIssue != nil {
			issue = fixed(*d.PerfIssue, 2)
		}
		rows = append(rows, nil,
			[]string{"limiter", "GLup/s"},
			[]string{"flops", flopsBound(d)},
			[]string{"issue (instructions)", issue},
			[]string{"L1 (cycles)", fixed(d.PerfL1, 2)},
			[]string{"L2 (load V2 + store)", fixed(d.PerfL2V2, 2)},
			[]string{"DRAM (load V3 + store V2)", fixed(d.PerfMemV3, 2)},
		)
	}
	if err := writeTable(w, rows); err != nil {
		return err
	}
	if layout == fieldsRows && len(d.LoadFields)+len(d.StoreFields) > 0 {
		fmt.Fprintln(w)
		if err := writeTable(w, fieldRows(byField)); err != nil {
			return err
		}
	}
	if legend {
		fmt.Fprint(w, tableLegend)
	}
	if err := writeModelDetails(w, r); err != nil {
		return err
	}
	fmt.Fprintln(w)
	if explain {
		fmt.Fprint(w, explanation(r))
	}
	return writePredictionLine(w, p)
}

// writePredictionLine prints the line that closes predict's table.
func writePredictionLine(w io.Writer, p model.Prediction) error {
	regime := ""
	if p.Regime != "" {
		regime = ", " + p.Regime
	}
	_, err := fmt.Fprintf(w, "prediction: %s GLup/s, limited by %s (%s model%s)\n", fixed(p.GLups, 2), p.Limiter, p.Model, regime)
	return err
}

// tableLegend explains the cells and rows of the predict table.
const tableLegend = `
The fields' shares add up to the total (--fields lays them out in columns
or rows). "-": the field has no share of that volume (a store field's
loads, a load field's stores). V1 counts each level's footprints; V2 takes
off the reuse found in cache (L2: the previous blocks' overlap; DRAM: the
y and z layers) and adds L1 evictions; DRAM load V3 adds the reloads that
store evictions cause, V4 also the L2 capacity evictions of loads. The
bounds use L2 V2 and DRAM V3, the paper's limiter volumes, with which the
overlap model was fitted; V4 adds to V3 the L2 capacity misses that a miss
fraction fitted per wave puts on the redundant L2 loads, and is what
docs/accuracy.md compares with measured DRAM reads (docs/metrics.md §5.4).
L1 cycles: "cycles" is
the field's issue, tag or data-pipe wavefronts, whichever is largest (per
instruction, summed, for method exact; of the field's averages for method
reference), plus "alloc", the L1 lines it allocates per Lup, which "data
pipe" includes too.
`

// writeModelDetails prints the bounds and parameters that the selected
// performance model combines into its prediction.
func writeModelDetails(w io.Writer, r *model.Report) error {
	p := r.Prediction
	if len(p.Bounds) == 0 && p.Latency == nil && p.Note == "" {
		return nil
	}
	head := string(p.Model) + " model"
	if p.Combination != "" {
		head += ": " + p.Combination
	}
	fmt.Fprintf(w, "\n%s\n", wrapWords(head, 78))
	if p.Note != "" {
		fmt.Fprintf(w, "%s\n", wrapWords("note: "+p.Note, 78))
	}
	var rows [][]string
	if len(p.Bounds) > 0 {
		rows = append(rows, []string{"bound", "B/Lup", "GB/s", "GLup/s"})
	}
	for _, b := range p.Bounds {
		bytes, bw := "-", "-"
		if b.BytesPerLup > 0 {
			bytes, bw = fixed(b.BytesPerLup, 2), fixed(b.GBs, 0)
		}
		name := b.Name
		if b.Volume != "" {
			name += " (" + b.Volume + ")"
		}
		rows = append(rows, []string{name, bytes, bw, fixed(b.GLups, 2)})
	}
	var latency [][]string
	if e := p.Latency; e != nil {
		latency = [][]string{
			{"warps per SM in flight", fixed(e.WarpsPerSM, 2)},
			{"warp latency (cycles)", fixed(e.LatencyCycles, 1)},
			{"warps needed to saturate " + e.Limiter, fixed(e.NeededWarps, 2)},
		}
	} else if p.NeededWarpsPerSM > 0 {
		latency = [][]string{{"warps per SM needed to hide latency", fixed(p.NeededWarpsPerSM, 2)}}
	}
	if len(rows) > 0 && len(latency) > 0 {
		rows = append(rows, nil)
	}
	return writeTable(w, append(rows, latency...))
}

// flopsBound is the flops limiter for the table, "none" without flops.
func flopsBound(d model.Derived) string {
	if d.PerfFlops == nil {
		return "none"
	}
	return fixed(*d.PerfFlops, 2)
}

// volumeDef is one of the per-Lup volumes that predict reports: its label
// in the table, its key in the JSON (model.Derived), its total and, where
// the model splits it by field, a load or store field's share.
type volumeDef struct {
	label string
	key   string
	total func(model.Derived) float64
	load  func(model.LoadFieldDerived) float64  // nil: no per-field split of loads
	store func(model.StoreFieldDerived) float64 // nil: no per-field split of stores
}

// volumeDefs are the volumes of predict's table, in its order.
var volumeDefs = []volumeDef{
	{"L1 load", "L1Load", func(d model.Derived) float64 { return d.L1Load }, func(f model.LoadFieldDerived) float64 { return f.L1Load }, nil},
	{"L2 load V1", "L2LoadV1", func(d model.Derived) float64 { return d.L2LoadV1 }, func(f model.LoadFieldDerived) float64 { return f.L2LoadV1 }, nil},
	{"L2 load V2", "L2LoadV2", func(d model.Derived) float64 { return d.L2LoadV2 }, func(f model.LoadFieldDerived) float64 { return f.L2LoadV2 }, nil},
	{"L2 store", "L2Store", func(d model.Derived) float64 { return d.L2Store }, nil, func(f model.StoreFieldDerived) float64 { return f.L2Store }},
	{"DRAM load V1", "memLoadV1", func(d model.Derived) float64 { return d.MemLoadV1 }, func(f model.LoadFieldDerived) float64 { return f.MemLoadV1 }, nil},
	{"DRAM load V2", "memLoadV2", func(d model.Derived) float64 { return d.MemLoadV2 }, func(f model.LoadFieldDerived) float64 { return f.MemLoadV2 }, nil},
	{"DRAM load V3", "memLoadV3", func(d model.Derived) float64 { return d.MemLoadV3 }, func(f model.LoadFieldDerived) float64 { return f.MemLoadV3 }, func(f model.StoreFieldDerived) float64 { return f.MemLoadV3 }},
	{"DRAM load V4", "memLoadV4", func(d model.Derived) float64 { return d.MemLoadV4 }, func(f model.LoadFieldDerived) float64 { return f.MemLoadV4 }, func(f model.StoreFieldDerived) float64 { return f.MemLoadV4 }},
	{"DRAM store V1", "memStoreV1", func(d model.Derived) float64 { return d.MemStoreV1 }, nil, func(f model.StoreFieldDerived) float64 { return f.MemStoreV1 }},
	{"DRAM store V2", "memStoreV2", func(d model.Derived) float64 { return d.MemStoreV2 }, nil, func(f model.StoreFieldDerived) float64 { return f.MemStoreV2 }},
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
	rows := [][]string{head}
	for _, def := range volumeDefs {
		cells := []string{def.label, fixed(def.total(d), 2)}
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

// l1CycleRows are the table rows of the L1 cycles per Lup: the total and
// one column per field list, in the columns of volumeRows.
func l1CycleRows(d model.Derived) [][]string {
	head := []string{"L1 cycles per Lup", "total"}
	for _, f := range d.LoadFields {
		head = append(head, f.Name)
	}
	for _, f := range d.StoreFields {
		head = append(head, f.Name+" (store)")
	}
	type part = func(model.L1FieldCycles) float64
	defs := []struct {
		label string
		total float64
		get   part
	}{
		{"cycles", d.L1CyclesPerLup, func(c model.L1FieldCycles) float64 { return c.L1Cycles }},
		{"data pipe", d.L1DataPipeCyclesPerLup, func(c model.L1FieldCycles) float64 { return c.L1DataPipeCycles }},
		{"tag", d.L1TagCyclesPerLup, func(c model.L1FieldCycles) float64 { return c.L1TagCycles }},
		{"alloc", d.L1AllocCyclesPerLup, func(c model.L1FieldCycles) float64 { return c.L1AllocCycles }},
	}
	rows := [][]string{nil, head}
	for _, def := range defs {
		cells := []string{def.label, fixed(def.total, 3)}
		for _, f := range d.LoadFields {
			cells = append(cells, fixed(def.get(f.L1FieldCycles), 3))
		}
		for _, f := range d.StoreFields {
			cells = append(cells, fixed(def.get(f.L1FieldCycles), 3))
		}
		rows = append(rows, cells)
	}
	return rows
}

// tableWidth is the width writeTable gives rows: the widest cell of each
// column plus two spaces between columns.
func tableWidth(rows [][]string) int {
	var widths []int
	for _, r := range rows {
		for i, c := range r {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	total := 0
	for _, w := range widths {
		total += w + 2
	}
	return total
}

// totalsOnly keeps the label and total columns of the volume and L1 cycle
// rows.
func totalsOnly(rows [][]string) [][]string {
	out := make([][]string, len(rows))
	for i, r := range rows {
		out[i] = r[:min(2, len(r))]
	}
	return out
}

// fieldRows transposes the per-field columns of the volume and L1 cycle
// rows (volumeRows, l1CycleRows): per section one table with a row per
// field and a column per quantity, under short labels.
func fieldRows(rows [][]string) [][]string {
	short := strings.NewReplacer("DRAM load ", "DRAM ", "DRAM store ", "DRAM st ", "L2 load ", "L2 ", "L2 store", "L2 st", "L1 load", "L1")
	var out [][]string
	var fields []string
	var cols [][]string // cols[q] are quantity q's field cells
	head := []string{}
	flush := func() {
		if len(cols) == 0 {
			return
		}
		if out != nil {
			out = append(out, nil)
		}
		out = append(out, head)
		for j, f := range fields {
			row := []string{f}
			for _, c := range cols {
				row = append(row, c[j])
			}
			out = append(out, row)
		}
		cols = nil
	}
	for _, r := range rows {
		switch {
		case r == nil:
		case r[1] == "total": // a section's header: its title and the field names
			flush()
			fields, head = r[2:], []string{r[0]}
		default:
			head = append(head, short.Replace(r[0]))
			cols = append(cols, r[2:])
		}
	}
	flush()
	return out
}

// cell formats one field's share of a volume, "-" when there is none.
func cell[F any](get func(F) float64, f F) string {
	if get == nil {
		return "-"
	}
	return fixed(get(f), 2)
}
