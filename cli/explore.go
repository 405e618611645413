package cli

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/polyvol/polyvol/chart"
	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/explore"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/model"
	"github.com/polyvol/polyvol/procmem"
	"github.com/polyvol/polyvol/request"
	ucli "github.com/urfave/cli/v2"
)

func init() {
	register(func() *ucli.Command {
		sweep := request.DefaultSweep()
		return &ucli.Command{
			Name:      "explore",
			Usage:     "rank block shapes, folds and tilings by predicted GLup/s",
			ArgsUsage: "SPEC",
			UsageText: `polyvol explore SPEC [--device NAME] [--threads N] [--folds F:F:...]
        [--tiles T,T] [--staging on,off] [--steps T:T] [--registers N]
        [--registers-table FILE] [options]

` + specArgHelp + `

explore evaluates every block shape of --threads threads (of each count of
a comma-separated list: --threads 128,256) whose sides are powers of two within the hardware limits (x, y <= 1024, z <= 64), with every
fold of --folds and tiling of --tiles, in parallel, and ranks them by
predicted GLup/s. A strided tile that places a thread's points as thread
folding does (fold 1, or block size 1, wherever it folds) is that
configuration and is evaluated once, as consecutive. Block shapes with
threads along a dimension in which the domain has one point are left out,
since all but one of those threads would be idle; --all-shapes keeps them.
A kernel with a state (temporal blocking) is tried at each of the time steps
per launch of --steps (the spec's steps without it), and its rows are per
step and useful update: ranked by GLup/s, they are ranked by time per step.
A configuration whose tiles at its steps do not fit the shared memory is
skipped. The table shows the
best --top rows; JSON and CSV give every row. Notes on stderr say which of
these rows have their occupancy limited by registers, or so many registers
that the compiler probably spills.

--registers-table FILE gives the registers per thread of the configurations
a code generator compiled, as a CSV file with the header
block,fold,tiling,registers; tiling may be left out, or left empty for both
tilings. For example:
   block,fold,registers
   "256,1,4","1,1,2",64
   64x4x4,1x2x1,72
The other configurations have the spec's registers, or --registers.

--plot FILE.svg or FILE.png draws the ranking: a heat map of block x
across and y up, each cell the best-ranked z, fold and tiling of that x
and y, coloured by GLup/s, the best ringed; the best 12 configurations as
bars and all of them against their rank, coloured by limiter. It comes
with any --format, not --shard.

With --shard K/N it evaluates the configurations i with i mod N = K-1 and
writes JSON for 'polyvol merge'; --shard slurm takes K and N from the
variables of a Slurm array job (SLURM_ARRAY_TASK_ID, _MIN, _STEP and
_COUNT), so --array may start at 0.

Examples:
   polyvol explore star3d-r4 --device A100-40GB
   polyvol explore lbm-d3q19-pull --device H100-SXM --threads 512 --top 5
   polyvol explore star3d-r4 --folds 1,1,1:1,1,2:1,1,4 \
       --format csv > sweep.csv
   polyvol explore star3d-r4 --tiles consecutive --registers 64
   polyvol explore hotspot --device RTX-A4000 --steps 1:10 --top 5
   polyvol explore star3d-r4 --registers-table compiled.csv
   polyvol explore star3d-r4 --plot ranking.png --plot-size 12x9
   polyvol explore star3d-r4 --shard 2/8 > shard-2.json
   polyvol explore star3d-r4 \
       --shard slurm > shard-$SLURM_ARRAY_TASK_ID.json`,
			Flags: append([]ucli.Flag{
				&ucli.StringFlag{Name: "device", Aliases: []string{"d"}, Value: defaultDevice, Usage: "GPU `NAME` (see 'polyvol devices')"},
				deviceFileFlag,
				&ucli.StringFlag{Name: "threads", Value: sweep.Threads, Usage: "`N` threads per block, a power of two; comma-separated counts sweep the block shapes of each (128,256)"},
				&ucli.StringFlag{Name: "folds", DefaultText: request.FoldsFlag(explore.DefaultFolds) + ", less the folds along a dimension in which the domain has one point", Usage: "colon-separated thread foldings `X,Y,Z:...`"},
				&ucli.StringFlag{Name: "tiles", Value: sweep.Tiles, Usage: "comma-separated `TILINGS` tried with every fold: consecutive (a thread's fold points are neighbours), strided (one block size apart)"},
				&ucli.StringFlag{Name: "staging", Value: sweep.Staging, Usage: "comma-separated `CHOICES` tried with every configuration of a kernel with staged fields: on (as the spec stages them), off (read from global memory)"},
				&ucli.StringFlag{Name: "steps", DefaultText: "the spec's", Usage: "time steps per launch `T` tried with every configuration of a kernel with a state: comma-separated, each T or a range A:B (1:10, 1,2,4)"},
				&ucli.BoolFlag{Name: "all-shapes", Usage: "keep the block shapes with threads along a dimension in which the domain has one point (left out by default: those threads are idle)"},
				registersFlag(),
				&ucli.StringFlag{Name: "registers-table", TakesFile: true, Usage: "registers per thread of compiled configurations from the CSV `FILE` (block,fold,tiling,registers)"},
				&ucli.IntFlag{Name: "top", Value: 10, Usage: "`N` rows of the table (0: all; at most " + strconv.Itoa(request.MaxTop) + ")"},
				&ucli.IntFlag{Name: "workers", Value: runtime.NumCPU(), Usage: "`N` configurations evaluated in parallel"},
				&ucli.IntFlag{Name: "max-configurations", Value: request.DefaultExplore().MaxConfigurations, Usage: "bound `N` on the configurations of a sweep (of a shard, with --shard), checked before any is estimated"},
				&ucli.StringFlag{Name: "shard", Usage: "evaluate slice `K/N` only (1 <= K <= N, or slurm: the Slurm array task) and write JSON for merge"},
				formatFlag(formatTable, formatJSON, formatCSV),
				plotFlag("draw the ranking (heat map of block x and y, best configurations, spread)"),
				plotSizeFlag(),
			}, estimateFlags()...),
			Action:       runExplore,
			BashComplete: completeSpecs,
		}
	})
}

// runExplore is the action of the explore command.
func runExplore(c *ucli.Context) error {
	if c.NArg() != 1 {
		return usageErrorf("explore takes one SPEC, got %d arguments", c.NArg())
	}
	defer procmem.QuietGC()()
	sw, err := exploreFlags(c)
	if err != nil {
		return err
	}
	if sw.req.Config.Kernel, sw.req.Config.Device, err = exploreKernel(c); err != nil {
		return err
	}
	n, err := sw.checkSweep(c)
	if err != nil {
		return err
	}
	e, err := sw.run(c, n)
	if err != nil {
		return err
	}
	return sw.write(c, e)
}

// exploreSweep is an explore command line parsed: the sweep and how its
// result is written.
type exploreSweep struct {
	req      request.Explore
	format   string
	top      int
	table    *registersTable
	plotPath string
	size     chart.Size
}

// exploreFlags parses explore's flags into a sweep without its kernel and
// device.
func exploreFlags(c *ucli.Context) (*exploreSweep, error) {
	sw := &exploreSweep{top: c.Int("top"), req: request.Explore{MaxConfigurations: c.Int("max-configurations")}}
	cfg := &sw.req.Config
	var err error
	if sw.format, err = outputFormat(c, formatTable, formatJSON, formatCSV); err != nil {
		return nil, err
	}
	if cfg.Estimate, err = estimateOptions(c); err != nil {
		return nil, err
	}
	if *cfg, err = sweepFlags(c, *cfg); err != nil {
		return nil, err
	}
	*cfg = instructionsFlags(c).Explore(*cfg)
	if c.IsSet("registers-table") {
		if sw.table, err = readRegistersTable(c.String("registers-table")); err != nil {
			return nil, err
		}
		cfg.Registers, sw.req.RegistersTable = sw.table.lookup, sw.table.entries
	}
	if c.IsSet("shard") {
		if cfg.Shard, err = parseShard(c.String("shard"), os.Getenv); err != nil {
			return nil, err
		}
		cfg.Shard.Format, cfg.Shard.Top = sw.format, sw.top
	}
	if sw.plotPath, sw.size, err = plotFlags(c); err != nil {
		return nil, err
	}
	if sw.plotPath != "" && cfg.Shard.Count != 0 {
		return nil, flagErrorf("plot", "--plot %s: draws the whole ranking, but --shard evaluates a slice of it; plot the sweep without --shard", sw.plotPath)
	}
	return sw, nil
}

// sweepFlags returns cfg with the sweep of --top (checked only), --workers,
// --threads, --folds, --tiles, --staging, --steps and --all-shapes.
func sweepFlags(c *ucli.Context, cfg explore.Config) (explore.Config, error) {
	top := c.Int("top")
	if err := request.CheckTop(top); err != nil {
		return cfg, flagErrorf("top", "--top %d: %v", top, err)
	}
	if cfg.Workers = c.Int("workers"); cfg.Workers < 1 {
		return cfg, flagErrorf("workers", "--workers %d: must be at least 1", cfg.Workers)
	}
	sweep := request.Sweep{Threads: c.String("threads"), Folds: c.String("folds"), Tiles: c.String("tiles"), Staging: c.String("staging"), Steps: c.String("steps"), AllShapes: c.Bool("all-shapes")}
	return sweep.Apply(cfg)
}

// exploreKernel loads explore's SPEC with --domain and --registers applied,
// and resolves its device.
func exploreKernel(c *ucli.Context) (*kernel.Kernel, *device.Device, error) {
	k, err := loadKernel(c, c.Args().First())
	if err != nil {
		return nil, nil, err
	}
	if k, err = applyDomain(c, k); err != nil {
		return nil, nil, err
	}
	if k, err = applyRegisters(c, k); err != nil {
		return nil, nil, err
	}
	dev, err := commandDevice(c)
	return k, dev, err
}

// checkSweep checks the sweep's size against --max-configurations, notes
// the --registers-table entries that match no configuration, and returns
// the number of configurations to estimate.
func (sw *exploreSweep) checkSweep(c *ucli.Context) (int, error) {
	n, err := sw.req.Size()
	if err != nil {
		return 0, err
	}
	if sw.table != nil {
		cfg := sw.req.Config
		sweep, err := explore.Configurations(cfg.Threads, cfg.Folds, cfg.Tilings, cfg.Kernel.Domain, cfg.AllShapes)
		if err != nil {
			return 0, err
		}
		if note := sw.table.unmatchedNote(sweep); note != "" {
			addNote(c, "%s", note)
		}
	}
	return n, nil
}

// run runs the sweep of n configurations with a progress bar on stderr and
// returns its exploration.
func (sw *exploreSweep) run(c *ucli.Context, n int) (*request.Exploration, error) {
	req := sw.req
	prog := newProgress(c.App.ErrWriter, n, "explore")
	if compiler := request.Compiler(); req.Config.Estimate.Code != nil && compiler != nil {
		prog.label = func() string { return fmt.Sprintf("explore (%d kernels compiled)", compiler.Compiles()) }
	}
	req.Config.Progress = func(int, int) { prog.add() }
	e, err := req.Run(c.Context)
	prog.finish()
	if err != nil {
		return nil, err
	}
	return e, nil
}

// write plots e (--plot) and writes it on standard output, a shard as
// JSON, and the register notes of an unsharded sweep.
func (sw *exploreSweep) write(c *ucli.Context, e *request.Exploration) error {
	if sw.plotPath != "" {
		if err := writePlot(sw.plotPath, func(w io.Writer, format string) error {
			return chart.HeatMap(w, format, sw.size, e)
		}); err != nil {
			return err
		}
	}
	format := sw.format
	if e.Shard != nil {
		format = formatJSON
	}
	if err := writeExploration(c.App.Writer, c.App.ErrWriter, e, format, sw.top); err != nil {
		return err
	}
	if e.Shard == nil {
		noteRegisters(c.App.ErrWriter, e, sw.req.Config.Device, sw.req.Config.Kernel.SharedBytes, sw.top)
	}
	return nil
}

// slurmShard is the --shard value that takes the shard from the
// environment of a Slurm array task.
const slurmShard = "slurm"

// parseShard parses the --shard value K/N (request.ParseShard), or
// slurmShard, which reads K and N from the Slurm array variables through
// getenv (slurmArrayShard).
func parseShard(s string, getenv func(string) string) (explore.Shard, error) {
	if s == slurmShard {
		k, n, err := slurmArrayShard(getenv)
		return explore.Shard{Index: k, Count: n}, err
	}
	shard, err := request.ParseShard(s)
	if err != nil {
		return shard, flagErrorf("shard", "%v, or %s", err, slurmShard)
	}
	return shard, nil
}

// slurmArrayShard returns the shard K/N of a Slurm array task: N is
// SLURM_ARRAY_TASK_COUNT and K counts from 1 at SLURM_ARRAY_TASK_MIN in
// steps of SLURM_ARRAY_TASK_STEP (1 when unset), so --array=0-7, 1-8 and
// 0-14:2 all give the shards 1/8 to 8/8.
func slurmArrayShard(getenv func(string) string) (k, n int, err error) {
	vars := map[string]int{"SLURM_ARRAY_TASK_STEP": 1}
	for _, name := range []string{"SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_COUNT", "SLURM_ARRAY_TASK_STEP"} {
		v := getenv(name)
		if v == "" && name == "SLURM_ARRAY_TASK_STEP" {
			continue
		}
		i, err := strconv.Atoi(v)
		if err != nil || i < 0 {
			return 0, 0, flagErrorf("shard", "--shard %s: %s=%q: expected a non-negative integer (run as a task of sbatch --array)", slurmShard, name, v)
		}
		vars[name] = i
	}
	id, lo, count, step := vars["SLURM_ARRAY_TASK_ID"], vars["SLURM_ARRAY_TASK_MIN"], vars["SLURM_ARRAY_TASK_COUNT"], vars["SLURM_ARRAY_TASK_STEP"]
	if step < 1 || id < lo || (id-lo)%step != 0 || (id-lo)/step >= count {
		return 0, 0, flagErrorf("shard", "--shard %s: task %d is not one of the %d tasks from %d in steps of %d; use an array of evenly spaced task ids such as --array=0-7",
			slurmShard, id, count, lo, step)
	}
	return (id-lo)/step + 1, count, nil
}

// noteSkipped prints one note on w per distinct reason in skipped, naming
// the first configurations it applies to.
func noteSkipped(w io.Writer, skipped []explore.Skipped) {
	const named = 3
	var reasons []string
	configs := map[string][]string{}
	for _, s := range skipped {
		if _, ok := configs[s.Reason]; !ok {
			reasons = append(reasons, s.Reason)
		}
		configs[s.Reason] = append(configs[s.Reason], s.Configuration().String())
	}
	for _, r := range reasons {
		list := configs[r]
		text := strings.Join(list[:min(named, len(list))], "; ")
		if len(list) > named {
			text += fmt.Sprintf("; and %d more", len(list)-named)
		}
		fmt.Fprintf(w, "polyvol: note: skipped %d configurations (%s): %s\n", len(list), text, r)
	}
}

// writeExploration notes the skipped configurations on stderr and writes e to
// stdout in the given format; the table shows the first top rows (0: all).
func writeExploration(stdout, stderr io.Writer, e *request.Exploration, format string, top int) error {
	explore.SortSkipped(e.Skipped)
	noteSkipped(stderr, e.Skipped)
	if note := tieNote(e.Rows); note != "" {
		fmt.Fprintf(stderr, "polyvol: note: %s\n", note)
	}
	switch format {
	case formatJSON:
		return request.WriteJSON(stdout, e)
	case formatCSV:
		registers := rowRegisters(e)
		records := [][]string{append([]string{"rank"}, csvHeader...)}
		for i, r := range e.Rows {
			records = append(records, append([]string{strconv.Itoa(i + 1)}, csvRecord(r, registers(r))...))
		}
		return writeCSV(stdout, records)
	}
	fmt.Fprintf(stdout, "%s on %s, method %s, model %s, domain %s\n", e.Kernel, e.Device, e.Method, e.Model, request.Triple(e.Domain))
	shown := len(e.Rows)
	if top > 0 {
		shown = min(top, shown)
	}
	by := "predicted GLup/s"
	if e.Steps != nil {
		by += " per useful update (time per step)"
	}
	fmt.Fprintf(stdout, "%d configurations (%s threads per block, %s%s%s), %d skipped; best %d by %s\n\n",
		e.Configurations, request.ThreadsText(e.Threads), request.CountNoun(len(e.Folds), "fold"), tilingsText(e), stepsText(e.Steps), len(e.Skipped), shown, by)
	head := []string{"rank", "block", "fold", "tiling", "GLup/s", "limiter", "blocks/SM", "L1 cycles/Lup", "L2 B/Lup", "DRAM B/Lup"}
	if e.Steps != nil {
		head = slices.Insert(head, 4, "steps", "ms/step")
	}
	rows := [][]string{head}
	for i, r := range e.Rows[:shown] {
		d := r.Derived
		row := []string{
			strconv.Itoa(i + 1), request.Triple(r.Launch.Block), request.Triple(r.Launch.Fold), tilingCell(r.Launch), fixed(r.Prediction.GLups, 2), r.Prediction.Limiter,
			strconv.FormatInt(r.Launch.BlocksPerSM, 10), fixed(d.L1CyclesPerLup, 3), fixed(d.L2TotalV2, 2), fixed(d.DRAMVolume(), 2),
		}
		if e.Steps != nil {
			row = slices.Insert(row, 4, strconv.FormatInt(r.Launch.Steps, 10), fixed(stepMilliseconds(r), 3))
		}
		rows = append(rows, row)
	}
	return writeTable(stdout, rows)
}

// tieTolerance is the relative difference in predicted GLup/s below which
// explore calls two ranks a tie: far below what the model can resolve.
const tieTolerance = 1e-3

// tieNote says how many of the best-ranked rows tie with the first
// (within tieTolerance), or returns "" when the first stands alone.
func tieNote(rows []*model.Report) string {
	if len(rows) < 2 {
		return ""
	}
	best := rows[0].Prediction.GLups
	n := 1
	for n < len(rows) && rows[n].Prediction.GLups >= best*(1-tieTolerance) {
		n++
	}
	if n == 1 {
		return ""
	}
	return fmt.Sprintf("ranks 1 to %d tie at %s GLup/s (within %g %%): the model cannot tell them apart, and their order (by block, then fold) means nothing; measure them, or rank by another criterion",
		n, fixed(best, 2), 100*tieTolerance)
}

// stepMilliseconds returns the predicted time of one time step of report
// r in milliseconds: the domain's lattice updates over the predicted
// GLup/s, which count useful updates.
func stepMilliseconds(r *model.Report) float64 {
	return float64(r.Launch.LupCount) / r.Prediction.GLups * 1e-6
}

// stepsText describes the time steps per launch of a sweep for the head of
// the table, ", steps 1,2,4", or nothing for a kernel without a state.
func stepsText(steps []int64) string {
	if steps == nil {
		return ""
	}
	s := make([]string, len(steps))
	for i, t := range steps {
		s[i] = strconv.FormatInt(t, 10)
	}
	return ", steps " + strings.Join(s, ",")
}

// tilingsText describes the strided tiles of e's sweep for the head of the
// table, ", N strided tiles", or nothing when it has none (thread folding
// alone, or folds that leave both tilings one launch).
func tilingsText(e *request.Exploration) string {
	all, err := e.SweepConfigurations()
	if err != nil {
		return ""
	}
	n := 0
	for _, c := range all {
		if c.Tiling == kernel.TileStrided {
			n++
		}
	}
	if n == 0 {
		return ""
	}
	if n == 1 {
		return ", 1 strided tile"
	}
	return fmt.Sprintf(", %d strided tiles", n)
}

// rowRegisters returns a function that gives the registers per thread of
// a row of e: those its registers table lists, else e.Registers.
func rowRegisters(e *request.Exploration) func(*model.Report) int {
	table := make(map[explore.Configuration]int, len(e.RegistersTable))
	for _, r := range e.RegistersTable {
		table[r.Configuration] = r.Registers
	}
	return func(r *model.Report) int {
		if n, ok := table[tableKey(explore.ReportConfiguration(r))]; ok {
			return n
		}
		return e.Registers
	}
}

// noteRegisters writes on w a note for the first top rows of e (0: all)
// whose registers limit their occupancy or reach the device's maximum
// (model.RegisterNote), one per distinct note, naming the ranks it applies
// to; sharedBytes is the spec's shared memory per block.
func noteRegisters(w io.Writer, e *request.Exploration, dev *device.Device, sharedBytes int64, top int) {
	const named = 5
	shown := len(e.Rows)
	if top > 0 {
		shown = min(top, shown)
	}
	registers := rowRegisters(e)
	var notes []string
	ranks := map[string][]string{}
	for i, r := range e.Rows[:shown] {
		note := model.RegisterNote(r, dev, registers(r), sharedBytes)
		if note == "" {
			continue
		}
		if _, ok := ranks[note]; !ok {
			notes = append(notes, note)
		}
		ranks[note] = append(ranks[note], strconv.Itoa(i+1))
	}
	for _, n := range notes {
		list := ranks[n]
		text := "rank " + list[0]
		if len(list) > 1 {
			text = "ranks " + strings.Join(list[:min(named, len(list))], ", ")
			if len(list) > named {
				text += fmt.Sprintf(" and %d more", len(list)-named)
			}
		}
		fmt.Fprintf(w, "polyvol: note: %s: %s\n", text, n)
	}
}

// tilingCell is the tiling column of a ranked configuration: its tiling,
// followed by " unstaged" where it reads the staged fields from global
// memory.
func tilingCell(l model.LaunchInfo) string {
	if l.Unstaged {
		return l.Tiling.String() + " unstaged"
	}
	return l.Tiling.String()
}
