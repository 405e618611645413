package cli

// --statement all: a JSCoP region's statements imported as a sequence of
// kernels (importer.Region), which import prints as a stream of specs and
// predict predicts one by one and sums.

import (
	"encoding/json"
	"fmt"
	"github.com/polyvol/polyvol/request"
	"io"
	"os"
	"strings"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/importer"
	"github.com/polyvol/polyvol/model"
	ucli "github.com/urfave/cli/v2"
)

// wholeRegion reports whether c's command line asks for every statement
// of a region (--statement all).
func wholeRegion(c *ucli.Context) bool {
	return c.String("statement") == importer.AllStatements
}

// maxStatementsFlag bounds the statements of a region that --statement
// all imports (importer.Options.MaxStatements); import and predict have it.
var maxStatementsFlag = &ucli.IntFlag{Name: "max-statements", Value: importer.DefaultMaxStatements,
	Usage: "bound `N` on the statements of a region that --statement all imports and predicts: a JSCoP with more is refused before any is read"}

// importRegion imports every statement of the JSCoP data (named name in
// messages) with the import options opt and --max-statements, and records
// the notes of the import and one note per skipped statement. A region
// without a statement to model is a usage error.
func importRegion(c *ucli.Context, data []byte, name string, opt importer.Options) (*importer.Region, error) {
	if opt.MaxStatements = c.Int("max-statements"); opt.MaxStatements < 1 {
		return nil, flagErrorf("max-statements", "--max-statements %d: expected a positive number", opt.MaxStatements)
	}
	reg, err := request.ImportRegion(data, name, opt)
	if err != nil {
		return nil, asUsage(err)
	}
	for _, n := range reg.Notes {
		addNote(c, "%s", n)
	}
	for _, s := range reg.Statements {
		if s.Result == nil {
			addNote(c, "%s: statement %s skipped: %s", name, s.Name, s.Skip)
			continue
		}
		for _, n := range s.Result.Notes {
			addNote(c, "%s", n)
		}
	}
	if len(reg.Kernels()) == 0 {
		return nil, usageErrorf("%s: --statement all: no statement of the region is a kernel polyvol models (%s)", name, skippedList(reg))
	}
	return reg, nil
}

// skippedList lists the skipped statements of reg with their reasons.
func skippedList(reg *importer.Region) string {
	var parts []string
	for _, s := range reg.Statements {
		if s.Result == nil {
			parts = append(parts, s.Name+": "+s.Skip)
		}
	}
	return strings.Join(parts, "; ")
}

// writeRegionSpecs writes the specs of reg's kernels: YAML documents
// separated by "---" (a YAML stream), or a JSON list.
func writeRegionSpecs(reg *importer.Region, format string) []byte {
	var out []byte
	if format == formatJSON {
		var specs []*importer.Spec
		for _, s := range reg.Kernels() {
			specs = append(specs, s.Result.Spec)
		}
		data, err := json.MarshalIndent(specs, "", "  ")
		if err != nil { // a Spec always marshals
			panic(err)
		}
		return append(data, '\n')
	}
	for i, s := range reg.Kernels() {
		if i > 0 {
			out = append(out, "---\n"...)
		}
		out = append(out, s.Result.YAML()...)
	}
	return out
}

// loadRegionSpec imports the JSCoP SPEC arg (a file, or - for standard
// input) of a command with --statement all.
func loadRegionSpec(c *ucli.Context, arg string) (*importer.Region, error) {
	if arg != stdinSpec {
		if _, err := os.Stat(arg); err != nil {
			return nil, flagErrorf("statement", "--statement all: %s: %v; --statement all reads a JSCoP file", arg, err)
		}
	}
	data, name, err := readImportFile(c, arg)
	if err != nil {
		return nil, err
	}
	if request.InputFormat(arg, data) != request.FormatJSCoP {
		return nil, usageErrorf("%s: --statement all applies to a JSCoP (a file FILE.jscop or FILE.jscop.*, or JSON with \"statements\"), and this SPEC is not one", name)
	}
	opt, err := importOptions(c)
	if err != nil {
		return nil, err
	}
	return importRegion(c, data, name, opt)
}

// regionKernel is one statement of a region as predict --statement all
// reports it: its prediction, lattice updates, time and bytes per level.
type regionKernel struct {
	Statement string        `json:"statement"`
	LupCount  int64         `json:"lupCount"`
	Seconds   float64       `json:"seconds"` // lupCount / (GLups * 10^9)
	Bytes     volumeBytes   `json:"bytes"`   // each volume of the report times lupCount
	Report    *model.Report `json:"report"`
	registers int           // the kernel's registers per thread, for CSV
	// launchNotes are the report's notes on the launch, which the table
	// prints per statement (the kernel's notes follow the command).
	launchNotes []model.Note
}

// regionSkipped is a statement of a region that is no kernel, and why.
type regionSkipped struct {
	Statement string `json:"statement"`
	Reason    string `json:"reason"`
}

// regionTotal sums the kernels of a region, which run one after another.
type regionTotal struct {
	Kernels  int         `json:"kernels"`
	LupCount int64       `json:"lupCount"`
	Seconds  float64     `json:"seconds"`
	Bytes    volumeBytes `json:"bytes"`
}

// regionReport is predict's JSON output with --statement all.
type regionReport struct {
	File    string          `json:"file"`
	Region  string          `json:"region,omitempty"`
	Kernels []regionKernel  `json:"kernels"`
	Skipped []regionSkipped `json:"skipped"`
	Total   regionTotal     `json:"total"`
}

// volumeBytes are bytes per volume of volumeDefs, in its order; their JSON
// is an object with the volumes' keys (L1Load, ..., memStoreV2).
type volumeBytes []float64

// MarshalJSON writes the bytes as an object keyed by the volumes' JSON
// keys, in the order of volumeDefs.
func (b volumeBytes) MarshalJSON() ([]byte, error) {
	var sb strings.Builder
	sb.WriteByte('{')
	for i, v := range b {
		if i > 0 {
			sb.WriteByte(',')
		}
		val, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(&sb, "%q:%s", volumeDefs[i].key, val)
	}
	sb.WriteByte('}')
	return []byte(sb.String()), nil
}

// runPredictRegion is predict with --statement all: every statement of
// the JSCoP SPEC predicted as its own kernel, with predict's flags and
// the launch a single statement gets, then the sums.
func runPredictRegion(c *ucli.Context, format string, quiet bool, opt model.Options) error {
	if c.NArg() != 1 {
		return flagErrorf("statement", "--statement all needs a JSCoP SPEC")
	}
	if c.IsSet("domain") {
		return flagErrorf("domain", "--domain replaces one kernel's domain; with --statement all each statement keeps its own: size the region with -D")
	}
	reg, err := loadRegionSpec(c, c.Args().First())
	if err != nil {
		return err
	}
	dev, err := commandDevice(c)
	if err != nil {
		return err
	}
	out, err := predictRegion(c, reg, dev, opt)
	if err != nil {
		return err
	}
	if !quiet {
		for _, k := range out.Kernels {
			for _, n := range k.launchNotes {
				fmt.Fprintf(c.App.ErrWriter, "polyvol: note: statement %s: %s\n", k.Statement, n.Text)
			}
		}
	}
	switch format {
	case formatJSON:
		return request.WriteJSON(c.App.Writer, out)
	case formatCSV:
		records := [][]string{csvHeader}
		for _, k := range out.Kernels {
			records = append(records, csvRecord(k.Report, k.registers))
		}
		return writeCSV(c.App.Writer, records)
	}
	return writeRegionTables(c, out, dev, quiet)
}

// predictRegion predicts every kernel of reg on dev (predictStatement),
// under one budget for all (--max-work bounds the region's counting work),
// and sums their lattice updates, times and bytes.
func predictRegion(c *ucli.Context, reg *importer.Region, dev *device.Device, opt model.Options) (regionReport, error) {
	opt = opt.SharedBudget()
	out := regionReport{File: reg.File, Region: reg.Name, Skipped: []regionSkipped{}}
	out.Total.Bytes = make(volumeBytes, len(volumeDefs))
	for _, s := range reg.Statements {
		if s.Result == nil {
			out.Skipped = append(out.Skipped, regionSkipped{s.Name, s.Skip})
		}
	}
	for _, s := range reg.Kernels() {
		kr, err := predictStatement(c, s, dev, opt)
		if err != nil {
			return out, err
		}
		r := kr.Report
		if !(r.Prediction.GLups > 0) {
			return out, fmt.Errorf("statement %s: the prediction is %g GLup/s, which gives no time", s.Name, r.Prediction.GLups)
		}
		kr.LupCount = r.Launch.LupCount
		kr.Seconds = float64(r.Launch.LupCount) / (r.Prediction.GLups * 1e9)
		kr.Bytes = make(volumeBytes, len(volumeDefs))
		for i, def := range volumeDefs {
			kr.Bytes[i] = def.total(r.Derived) * float64(r.Launch.LupCount)
			out.Total.Bytes[i] += kr.Bytes[i]
		}
		out.Total.Kernels++
		out.Total.LupCount += kr.LupCount
		out.Total.Seconds += kr.Seconds
		out.Kernels = append(out.Kernels, kr)
	}
	return out, nil
}

// writeRegionTables prints a region's prediction as predict's tables:
// each kernel's report (or prediction line with quiet, after the
// explanation of its bounds with --explain), the sums and the total line.
func writeRegionTables(c *ucli.Context, out regionReport, dev *device.Device, quiet bool) error {
	w := c.App.Writer
	for i, k := range out.Kernels {
		if quiet {
			if c.Bool("explain") {
				fmt.Fprint(w, explanation(k.Report))
			}
			fmt.Fprintf(w, "statement %s: ", k.Statement)
			if err := writePredictionLine(w, k.Report.Prediction); err != nil {
				return err
			}
			continue
		}
		fmt.Fprintf(w, "statement %s (kernel %d of %d)\n", k.Statement, i+1, len(out.Kernels))
		legend := c.Bool("explain") && i == len(out.Kernels)-1
		if err := writeReport(w, k.Report, dev, c.String("fields"), legend, c.Bool("explain")); err != nil {
			return err
		}
		fmt.Fprintln(w)
	}
	if !quiet {
		if err := writeRegionTable(w, out); err != nil {
			return err
		}
	}
	return writeRegionTotalLine(w, out.Total)
}

// predictStatement predicts one kernel of a region as predict predicts a
// spec: its notes recorded, --registers applied, the launch of the flags
// (the block by its dimensions without --block) and the notes of the
// kernel and the launch (request.NewPrediction). It returns the kernel's report,
// registers per thread and launch notes.
func predictStatement(c *ucli.Context, s importer.RegionStatement, dev *device.Device, opt model.Options) (regionKernel, error) {
	k := s.Result.Kernel
	noteKernel(c, k)
	k, err := applyRegisters(c, k)
	if err != nil {
		return regionKernel{}, err
	}
	launch, err := request.ParseLaunch(launchKeys(c, "block", "fold", "tile"))
	if err != nil {
		return regionKernel{}, err
	}
	l, err := launch.Of(k)
	if err != nil {
		return regionKernel{}, usageErrorf("statement %s: %v", s.Name, err)
	}
	r, err := model.Estimate(k, l, dev, opt)
	if err != nil {
		err = request.EstimateError(l, err)
		if isUsageError(err) {
			return regionKernel{}, usageErrorf("statement %s: %v", s.Name, err)
		}
		return regionKernel{}, fmt.Errorf("statement %s: %w", s.Name, err)
	}
	launchNotes := request.NewPrediction(r, k, l, dev).LaunchNotes
	return regionKernel{Statement: s.Name, Report: r, registers: k.Registers, launchNotes: launchNotes}, nil
}

// writeRegionTable prints the sums of a region: per kernel and in total,
// the lattice updates, the time and the bytes of each volume.
func writeRegionTable(w io.Writer, out regionReport) error {
	head := "region"
	if out.Region != "" {
		head += " " + out.Region
	}
	head += fmt.Sprintf(" of %s: %d kernels, one after another", out.File, len(out.Kernels))
	if len(out.Skipped) > 0 {
		var names []string
		for _, s := range out.Skipped {
			names = append(names, s.Statement)
		}
		head += fmt.Sprintf("; skipped %s (notes say why)", strings.Join(names, ", "))
	}
	fmt.Fprintln(w, wrapWords(head, 78))
	rows := [][]string{{"per kernel"}}
	for _, k := range out.Kernels {
		rows[0] = append(rows[0], k.Statement)
	}
	rows[0] = append(rows[0], "total")
	lups := []string{"lattice updates"}
	times := []string{"time (µs)"}
	for _, k := range out.Kernels {
		lups = append(lups, fmt.Sprint(k.LupCount))
		times = append(times, fixed(k.Seconds*1e6, 2))
	}
	rows = append(rows, append(lups, fmt.Sprint(out.Total.LupCount)), append(times, fixed(out.Total.Seconds*1e6, 2)))
	for i, def := range volumeDefs {
		row := []string{def.label + " (B)"}
		for _, k := range out.Kernels {
			row = append(row, fixed(k.Bytes[i], 0))
		}
		rows = append(rows, append(row, fixed(out.Total.Bytes[i], 0)))
	}
	if err := writeTable(w, rows); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w)
	return err
}

// writeRegionTotalLine prints the line that closes predict --statement
// all: the kernels, their summed time and DRAM bytes.
func writeRegionTotalLine(w io.Writer, t regionTotal) error {
	var load, store float64
	for i, def := range volumeDefs {
		switch def.key {
		case "memLoadV3":
			load = t.Bytes[i]
		case "memStoreV2":
			store = t.Bytes[i]
		}
	}
	_, err := fmt.Fprintf(w, "total: %d kernels, %s µs, DRAM %s B (load V3 %s + store V2 %s)\n",
		t.Kernels, fixed(t.Seconds*1e6, 2), fixed(load+store, 0), fixed(load, 0), fixed(store, 0))
	return err
}
