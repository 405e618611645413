package cli

import (
	"fmt"
	"github.com/polyvol/polyvol/request"
	"io"
	"math"
	"runtime"
	"strconv"
	"strings"

	"github.com/polyvol/polyvol/chart"
	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/layercond"
	"github.com/polyvol/polyvol/model"
	ucli "github.com/urfave/cli/v2"
)

func init() {
	register(func() *ucli.Command {
		defaults := request.DefaultLayercondKeys()
		return &ucli.Command{
			Name:      "layercond",
			Usage:     "sweep the row length (2-D) or plane size (3-D) and find where row and layer reuse stops fitting in L2, and the blocks in L1",
			ArgsUsage: "[SPEC]",
			UsageText: `polyvol layercond [SPEC] [--device NAME] [--block X,Y,Z ...] [--fold X,Y,Z] [--sweep SIZES] [--inner X] [options]

For a 3-D kernel, sweeps square XY planes of s×s points with z = TOTAL/s²
layers (the paper's §5.7 series, TOTAL = 512·1024·1024), or with --inner X
planes of X×s points with z = TOTAL/(X·s); for a 2-D kernel, rows of s
points with y = TOTAL/s rows. Reports per size s the DRAM and L2→L1 load
volumes per lattice update, whether the reuse of the rows (2-D: the row
condition) and of the y and z layers (3-D) fits in the L2 (layer set
present and O_ov ≤ 1) and whether the L1 lines of the blocks on one SM fit
in its L1 (O_L1 ≤ 1), and below the table why each "no" is one. --wide
adds every column: the overlaps, the footprints of the layer sets against
the L2, and the L1 volumes. The transition of a layer, and of L1, is the
largest s at which it fits, found by bisection on s. For comparison it
prints the sequential layer condition (Kerncraft's form) for
--cache-fraction of the L2. A 1-D kernel has no rows to sweep. See
docs/layercond.md.

` + specArgHelp + ` Without SPEC: star3d-r4.

--block may be repeated or list several blocks separated by colons; the plot
draws one curve per block.

--sweep SIZES:  A:B:xF   A, A·F, A·F², … up to B
                A:B:+S   A, A+S, … up to B
                A:B:N    N sizes log-spaced from A to B, both included
                s1,s2,…  an explicit list
                default: 64:16384:x1.25 for planes, 4096:4194304:x2 for rows

Examples:
   polyvol layercond star3d-r4 --device A100-40GB --block 1024,1,1
   polyvol layercond star3d-r4 --block 256,1,2 --wide
   polyvol layercond star2d-r1 --block 256,2,1:128,4,1
   polyvol layercond star3d-r4 --block 256,1,4 --inner 512
   polyvol layercond star3d-r4 --block 1024,1,1:256,1,4:32,1,32 \
       --plot layers.png
   polyvol layercond star3d-r4 --block 512,2,1 --sweep 256:1024:+64 \
       --method reference --format csv`,
			Flags: append([]ucli.Flag{
				&ucli.StringFlag{Name: "device", Aliases: []string{"d"}, Value: defaultDevice, Usage: "GPU `NAME` (see 'polyvol devices')"},
				deviceFileFlag,
				&ucli.GenericFlag{Name: "block", Value: &repeatedFlag{}, Usage: "thread-block size `X,Y,Z`; repeatable, or several separated by ':' (default: 256,1,2 for 3-D domains, 256,2,1 for 2-D)"},
				foldFlag(),
				&ucli.StringFlag{Name: "sweep", Usage: "plane sizes or row lengths s: `A:B:xF`, A:B:+S, A:B:N or s1,s2,… (default " + layercond.DefaultSweep + " for planes, " + layercond.DefaultRowSweep + " for rows)"},
				&ucli.Int64Flag{Name: "total", Value: defaults.Total, Usage: "lattice points X·Y·Z kept constant by the series, z = `N`/s² (2-D: y = N/s)"},
				&ucli.Int64Flag{Name: "inner", Usage: "3-D kernels: sweep planes of a fixed row length `X` and a height s, z = TOTAL/(X·s), instead of square planes"},
				&choiceFlag{&ucli.StringFlag{Name: "method", Value: defaults.Method, Usage: "estimation `METHOD`: exact or reference (docs/method.md)"}, methodChoices},
				&ucli.Float64Flag{Name: "cache-fraction", Value: defaults.CacheFraction, Usage: "share `F` of the L2 the sequential layer condition may use"},
				plotFlag("draw the DRAM (memLoadV3) and L2→L1 (L2LoadV2) volumes against s, one curve per block,"),
				plotSizeFlag(),
				&ucli.BoolFlag{Name: "wide", Usage: "print every column of the table: all DRAM volumes, layer footprints and oversubscriptions, and the L1 ones"},
				&ucli.IntFlag{Name: "workers", Value: runtime.NumCPU(), Usage: "`N` plane sizes estimated in parallel"},
				&ucli.IntFlag{Name: "max-points", Value: defaults.MaxPoints, Usage: "bound `N` on the plane sizes of the sweeps, all blocks together, checked before any is estimated"},
				&ucli.Int64Flag{Name: "max-work", Value: defaults.MaxWork, Usage: "bound `N` on the counting work of all the sweeps' estimates together, in the units of predict's --max-work"},
				formatFlag(formatTable, formatJSON, formatCSV),
			}, importSpecFlags()...),
			Action: runLayercond,
		}
	})
}

// repeatedFlag is the value of a repeatable flag: it keeps every occurrence
// verbatim (urfave's StringSliceFlag would split X,Y,Z at its commas), and
// the action parses them, so that a bad value is reported like other usage
// errors. A flag with this value must have no alias: urfave copies a set
// flag to its aliases by calling Set again with String.
type repeatedFlag []string

// Set records one occurrence of the flag.
func (r *repeatedFlag) Set(s string) error {
	*r = append(*r, s)
	return nil
}

// String returns the occurrences separated by colons.
func (r *repeatedFlag) String() string { return strings.Join(*r, ":") }

// runLayercond is the action of the layercond command.
func runLayercond(c *ucli.Context) error {
	if c.NArg() > 1 {
		return usageErrorf("layercond takes at most one SPEC, got %d arguments", c.NArg())
	}
	format, err := outputFormat(c, formatTable, formatJSON, formatCSV)
	if err != nil {
		return err
	}
	keys := request.LayercondKeys{Method: c.String("method"), Sweep: c.String("sweep"), Fold: c.String("fold"),
		MaxPoints: c.Int("max-points"), MaxWork: c.Int64("max-work"), Total: c.Int64("total"), Inner: c.Int64("inner"), CacheFraction: c.Float64("cache-fraction")}
	req, err := keys.Layercond()
	if err != nil {
		return err
	}
	if req.Workers = c.Int("workers"); req.Workers < 1 {
		return flagErrorf("workers", "--workers %d: must be at least 1", req.Workers)
	}
	plotPath, size, err := plotFlags(c)
	if err != nil {
		return err
	}
	if err := layercondInput(c, &req); err != nil {
		return err
	}
	rep, err := req.Run(c.Context)
	if err != nil {
		return err
	}
	if plotPath != "" {
		if err := writePlot(plotPath, func(w io.Writer, format string) error {
			return chart.Layercond(w, format, size, rep)
		}); err != nil {
			return err
		}
	}
	w := c.App.Writer
	switch format {
	case formatJSON:
		return request.WriteJSON(w, rep)
	case formatCSV:
		return writeCSV(w, layercondCSV(rep))
	}
	return writeLayercond(w, rep, req.Device, req.CacheFraction, c.Bool("wide"))
}

// layercondInput sets the kernel of the SPEC, or the default spec, the
// command's device and the --block values of req.
func layercondInput(c *ucli.Context, req *request.Layercond) error {
	spec := defaultSpec
	if c.NArg() == 1 {
		spec = c.Args().First()
	}
	var err error
	if req.Kernel, err = loadKernel(c, spec); err != nil {
		return err
	}
	if req.Device, err = commandDevice(c); err != nil {
		return err
	}
	req.Blocks, err = request.ParseBlocks(*c.Generic("block").(*repeatedFlag))
	return err
}

// yesNo renders whether a condition holds.
func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// mib formats a byte count in MiB.
func mib(v float64) string { return fixed(v/(1<<20), 2) }

// kib formats a byte count in KiB.
func kib(v float64) string { return fixed(v/(1<<10), 2) }

// legendLine is one column of a table's legend: its name and meaning.
type legendLine struct{ name, text string }

// layercondLegend explains the columns of the default layercond table of
// the series.
func layercondLegend(se layercond.Series) []legendLine {
	lines := []legendLine{domainLegend(se),
		{"DRAM", "DRAM load memLoadV3 with the L2 capacity effects (B/Lup)"},
		{"L2->L1", "L2 to L1 load L2LoadV2 with the L1 capacity effects (B/Lup)"}}
	if se.Dims == 2 {
		lines = append(lines, legendLine{"rows", "yes: the rows before the wave fit in L2 (the row condition)"})
	} else {
		lines = append(lines, legendLine{"y layer", "yes: the reuse of the block row before the wave fits in L2"},
			legendLine{"z layer", "yes: the reuse of the block layer before the wave fits in L2"})
	}
	return append(lines, legendLine{"L1", "yes: the L1 lines of the blocks on one SM fit in L1"},
		legendLine{"", `every "no" is explained below its table; --wide shows all columns`})
}

// domainLegend explains the columns of the domain: the swept extent s and
// the outermost extent, y of a 2-D series, z of a 3-D one.
func domainLegend(se layercond.Series) legendLine {
	switch {
	case se.Dims == 2:
		return legendLine{"s, y", "the domain s x y: y rows of s points"}
	case se.Inner > 0:
		return legendLine{"s, z", fmt.Sprintf("the domain %d x s x z", se.Inner)}
	}
	return legendLine{"s, z", "the domain s x s x z"}
}

// layercondWideLegend explains the columns of the --wide table of the
// series.
func layercondWideLegend(se layercond.Series) []legendLine {
	lines := []legendLine{domainLegend(se),
		{"memLoadV1", "compulsory DRAM load of a wave, no reuse from earlier waves"},
		{"V2, V3", "DRAM load with the L2 capacity effects; V3 adds evicted partial stores"}}
	if se.Dims == 2 {
		lines = append(lines, legendLine{"ovl xy", "part of V1 the x+y layer set holds: what the row reuse saves"},
			legendLine{"Old y", "footprint of the y layer set (the wave's block row before it)"})
	} else {
		lines = append(lines, legendLine{"ovl xy, z", "part of V1 the x+y and the z layer sets hold: what each layer's reuse saves"},
			legendLine{"no z reuse", "V1 - ovl xy: x and y reuse hit, z reuse lost (the upper plateau)"},
			legendLine{"Old y, z", "footprint of the y and z layer sets (the wave's block row and layer before it)"})
	}
	return append(lines,
		legendLine{"/L2", "that footprint over the L2 one SM sees"},
		legendLine{"O_ov", "oversubscription of the layer's reuse: layer set (and, for method reference, new data) over the L2"},
		legendLine{"fits", "y, z: the layer set is present and O_ov <= 1; L1: O_L1 <= 1"},
		legendLine{"L1 KiB", "L1 lines the method counts on one SM (smL1Alloc): its blocks', one block's for method reference"},
		legendLine{"O_L1", "smL1Alloc over the L1 (for method reference over sqrt(L1 x 128 KiB))"},
		legendLine{"L1Load", "volume the warps request from L1"},
		legendLine{"L2->L1 V1", "compulsory L2 to L1 load of the blocks (L2LoadV1)"},
		legendLine{"evicts", "L1 capacity misses (L1LoadEvicts)"},
		legendLine{"V2", "L2 to L1 load with the L1 capacity effects (L2LoadV2)"})
}

// writeLegend prints a legend, its names in one column after "columns:".
func writeLegend(w io.Writer, lines []legendLine) {
	width := 8 // the default legend's column: one wider than its longest name
	for _, l := range lines {
		width = max(width, len(l.name))
	}
	fmt.Fprintln(w)
	for i, l := range lines {
		lead := "         "
		if i == 0 {
			lead = "columns: "
		}
		if l.name == "" {
			fmt.Fprintf(w, "%s%s\n", lead, l.text)
			continue
		}
		fmt.Fprintf(w, "%s%-*s %s\n", lead, width, l.name, l.text)
	}
}

// writeLayercond prints the sweeps as tables, each with the reasons of its
// "no"s and its transitions, then the sequential layer condition. The
// default table has a few columns; wide adds every volume and footprint.
func writeLayercond(w io.Writer, rep *request.LayercondReport, dev *device.Device, fraction float64, wide bool) error {
	m, err := model.MethodByName(rep.Method)
	if err != nil {
		return err
	}
	se := rep.Series()
	fmt.Fprintf(w, "%s on %s (%s), method %s\n", rep.Kernel, dev.Name, dev.DisplayName, rep.Method)
	fmt.Fprintf(w, "L2 %s MiB, L1 %s KiB per SM; domains %s\n", mib(float64(rep.L2Bytes)), kib(float64(dev.L1Bytes)), se.Text())
	legend := layercondLegend(se)
	if wide {
		fmt.Fprintln(w, "volumes in B/Lup, footprints in MiB (L1: KiB)")
		legend = layercondWideLegend(se)
	}
	writeLegend(w, legend)
	for _, r := range rep.Sweeps {
		fmt.Fprintf(w, "\nblock %s  fold %s\n", request.Triple(r.Block), request.Triple(r.Fold))
		rows := layercondRows(r)
		if wide {
			rows = layercondWideRows(r)
		}
		if err := writeColumns(w, rows, 0); err != nil {
			return err
		}
		writeWhyNo(w, r, m)
		writeTransitions(w, r)
	}
	fmt.Fprintf(w, "\nsequential layer condition (Kerncraft, loaded fields, %s x L2 = %s MiB):\n", num(fraction), mib(fraction*float64(rep.L2Bytes)))
	if rep.Sequential == nil {
		_, err := fmt.Fprintf(w, "  not available: %s\n", rep.SequentialNote)
		return err
	}
	for k, cond := range rep.Sequential.Conditions {
		if se.Dims == 2 {
			fmt.Fprintf(w, "  %s: %s\n", layerColumns(se.Dims)[k], cond.Text)
			continue
		}
		fmt.Fprintf(w, "  %s: %-18s (%s)\n", layerColumns(se.Dims)[k], cond.Text, sweptBound(cond, se))
	}
	if len(rep.Sequential.Skipped) > 0 {
		fmt.Fprintf(w, "  fields left out (accesses not of the form x+a, y+b, z+c): %s\n", strings.Join(rep.Sequential.Skipped, ", "))
	}
	return nil
}

// sweptBound states where a sequential condition holds on the planes of a
// 3-D series: "square planes: s <= N", or for a fixed row length X "X =
// 512: s <= N", "every s" or "no s".
func sweptBound(cond layercond.Condition, se layercond.Series) string {
	if se.Inner == 0 {
		return fmt.Sprintf("square planes: s <= %d", cond.MaxSquare)
	}
	bound := fmt.Sprintf("s <= %d", cond.MaxSwept(se))
	switch cond.MaxSwept(se) {
	case layercond.EverySize:
		bound = "every s"
	case 0:
		bound = "no s"
	}
	return fmt.Sprintf("X = %d: %s", se.Inner, bound)
}

// layerColumns names the columns of the layers of a series of dims
// dimensions: the rows of a 2-D one, the y and z layers of a 3-D one.
func layerColumns(dims int) []string {
	if dims == 2 {
		return []string{"rows"}
	}
	return []string{"y layer", "z layer"}
}

// outerDim is the index of the outermost dimension of r's domains, which
// the series sizes to keep the total: y for 2-D, z for 3-D.
func outerDim(r *layercond.Result) int { return r.Dims - 1 }

// outerName names the outermost dimension of r's domains.
func outerName(r *layercond.Result) string { return [3]string{"x", "y", "z"}[outerDim(r)] }

// layercondRows is the default table of a sweep: the domain, the DRAM and
// L2→L1 volumes and whether each layer's reuse and the L1 allocation fit.
func layercondRows(r *layercond.Result) [][]string {
	layers := len(r.Transitions)
	head := append([]string{"s", outerName(r), "DRAM", "L2->L1"}, layerColumns(r.Dims)...)
	rows := [][]string{append(head, "L1")}
	for _, p := range r.Points {
		row := []string{strconv.FormatInt(p.S, 10), strconv.FormatInt(p.Domain[outerDim(r)], 10), fixed(p.MemLoadV3, 2), fixed(p.L2LoadV2, 2)}
		for k := range layers {
			row = append(row, yesNo(p.Fits[k]))
		}
		rows = append(rows, append(row, yesNo(p.L1Fits)))
	}
	return rows
}

// layercondWideRows is the --wide table of a sweep: every DRAM volume,
// layer footprint and oversubscription, then the L1 columns. A 2-D sweep
// has no z columns.
func layercondWideRows(r *layercond.Result) [][]string {
	threeD := len(r.Transitions) == 2
	head := []string{"s", outerName(r), "memLoadV1", "V2", "V3", "ovl xy"}
	if threeD {
		head = append(head, "ovl z", "no z reuse")
	}
	head = append(head, "Old y", "/L2", "O_ov y", "fits")
	if threeD {
		head = append(head, "Old z", "/L2", "O_ov z", "fits")
	}
	rows := [][]string{append(head, "L1 KiB", "O_L1", "fits", "L1Load", "L2->L1 V1", "evicts", "V2")}
	for _, p := range r.Points {
		row := []string{strconv.FormatInt(p.S, 10), strconv.FormatInt(p.Domain[outerDim(r)], 10),
			fixed(p.MemLoadV1, 2), fixed(p.MemLoadV2, 2), fixed(p.MemLoadV3, 2), fixed(p.MemLoadOverlap[0], 2)}
		if threeD {
			row = append(row, fixed(p.MemLoadOverlap[1], 2), fixed(p.NoZReuse, 2))
		}
		for k := range r.Transitions {
			row = append(row, mib(p.WaveMemOld[k]), fixed(p.OldOverL2[k], 3), fixed(p.Oversubscription[k], 3), yesNo(p.Fits[k]))
		}
		rows = append(rows, append(row, kib(p.SmL1Alloc), fixed(p.L1Oversubscription, 3), yesNo(p.L1Fits),
			fixed(p.L1Load, 2), fixed(p.L2LoadV1, 2), fixed(p.L1LoadEvicts, 2), fixed(p.L2LoadV2, 2)))
	}
	return rows
}

// noCause is why a yes/no column of the tables says no at one point.
type noCause int

const (
	causeFits        noCause = iota // the column says yes
	causeOverFull                   // the oversubscription is above 1
	causeSingleBlock                // no layer set: the grid has one block row (y) or one block layer (z)
	causeWaveCovers                 // no layer set: the wave covers every block row (y) or block layer (z)
)

// causeOf returns why the yes/no column of layer c (of L1, where l1) says
// no at p, or causeFits.
func causeOf(p layercond.Point, c int, l1 bool) noCause {
	switch {
	case l1 && p.L1Fits, !l1 && p.Fits[c]:
		return causeFits
	case l1 || p.WaveMemOld[c] > 0:
		return causeOverFull
	case p.Grid[c+1] == 1:
		return causeSingleBlock
	}
	return causeWaveCovers
}

// writeWhyNo explains every "no" of r's table: one paragraph per column
// (its layers', then L1's) and cause, with the sizes where it occurs.
func writeWhyNo(w io.Writer, r *layercond.Result, m model.Method) {
	header := false
	for c, column := range append(layerColumns(r.Dims), "L1") {
		l1 := c == len(r.Transitions)
		var causes []noCause
		at := map[noCause][]int{}
		for i, p := range r.Points {
			if k := causeOf(p, c, l1); k != causeFits {
				if at[k] == nil {
					causes = append(causes, k)
				}
				at[k] = append(at[k], i)
			}
		}
		for _, k := range causes {
			if !header {
				fmt.Fprintln(w, `why "no":`)
				header = true
			}
			pts := make([]layercond.Point, len(at[k]))
			for j, i := range at[k] {
				pts[j] = r.Points[i]
			}
			writeWrapped(w, fmt.Sprintf("%s at s = %s: %s", column, sizeRuns(r.Points, at[k]), whyNo(r, m, c, l1, k, pts)), "  ", "    ")
		}
	}
}

// whyNo explains why the column of layer c (of L1, where l1) says no, for
// cause k, at the points pts.
func whyNo(r *layercond.Result, m model.Method, c int, l1 bool, k noCause, pts []layercond.Point) string {
	switch {
	case l1:
		return l1WhyNo(r, m, pts)
	case k == causeOverFull:
		return layerOverFull(r, m, c, pts)
	}
	name, unit := layercond.Layers[c], [2]string{"block row", "block layer"}[c]
	whole := "grid"
	if c == 0 && r.Dims == 3 {
		whole = "plane"
	}
	why := fmt.Sprintf("the method places the wave (%s blocks of %d threads) across every %s of the %s",
		span(pts, func(p layercond.Point) float64 { return float64(p.BlocksPerWave) }, 0), r.Block[0]*r.Block[1]*r.Block[2],
		unit, whole)
	if k == causeSingleBlock {
		why = fmt.Sprintf("the grid has a single %s (%s = %s <= block %s x fold %s = %d)", unit,
			name, span(pts, func(p layercond.Point) float64 { return float64(p.Domain[c+1]) }, 0), name, name, r.Block[c+1]*r.Fold[c+1])
	}
	text := fmt.Sprintf("no %s layer set: %s, so no %s runs before it: Old %s = 0", name, why, unit, name)
	if c == 0 {
		text += " and ovl xy holds the x part only"
	} else {
		text += " and ovl z = 0.00"
	}
	if c < outerDim(r)-1 {
		return text
	}
	for _, p := range pts {
		if !chart.BoundaryCase(r, p) {
			return text
		}
	}
	return text + `; the plot marks these points with a cross as "` + chart.BoundaryLabel(r.Dims) + `"`
}

// layerOverFull explains a layer whose reuse does not fit in the L2.
func layerOverFull(r *layercond.Result, m model.Method, c int, pts []layercond.Point) string {
	name := layercond.Layers[c]
	set := fmt.Sprintf("the %s layer set (Old %s = %s MiB)", name, name,
		span(pts, func(p layercond.Point) float64 { return p.WaveMemOld[c] / (1 << 20) }, 2))
	if m.LayerReuseDistance {
		set += ", what passes through the L2 between a use and its reuse, exceeds"
	} else {
		set += " and the wave's new data exceed"
	}
	lost := "its y reuse (part of ovl xy)"
	if c == 1 {
		lost = "its z reuse (ovl z) and DRAM rises towards the plateau without z reuse"
	}
	return fmt.Sprintf("O_ov %s = %s > 1: %s the %s MiB L2, so the wave misses %s", name,
		span(pts, func(p layercond.Point) float64 { return p.Oversubscription[c] }, 3), set, mib(float64(r.L2Bytes)), lost)
}

// l1WhyNo explains blocks whose L1 lines do not fit in L1.
func l1WhyNo(r *layercond.Result, m model.Method, pts []layercond.Point) string {
	alloc := span(pts, func(p layercond.Point) float64 { return p.SmL1Alloc / (1 << 10) }, 2) + " KiB"
	who := fmt.Sprintf("the %s blocks of an SM allocate %s of L1 lines (smL1Alloc), more than its %s KiB L1",
		span(pts, func(p layercond.Point) float64 { return float64(p.BlocksPerSM) }, 0), alloc, kib(float64(r.L1Bytes)))
	if m.Oversubscription == model.ReferenceForms {
		who = fmt.Sprintf("one block allocates %s of L1 lines (smL1Alloc), more than the %s KiB = sqrt(L1 x 128 KiB) that method reference compares it with",
			alloc, kib(math.Sqrt(float64(r.L1Bytes)*(128<<10))))
	}
	return fmt.Sprintf("O_L1 = %s > 1: %s, so lines are evicted before the warps reuse them: L1LoadEvicts = %s B/Lup of L2->L1",
		span(pts, func(p layercond.Point) float64 { return p.L1Oversubscription }, 3), who,
		span(pts, func(p layercond.Point) float64 { return p.L1LoadEvicts }, 2))
}

// span formats the range of f over pts with prec decimals: "a..b", or "a"
// when both ends print alike.
func span(pts []layercond.Point, f func(layercond.Point) float64, prec int) string {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range pts {
		lo, hi = min(lo, f(p)), max(hi, f(p))
	}
	if a, b := fixed(lo, prec), fixed(hi, prec); a != b {
		return a + ".." + b
	}
	return fixed(lo, prec)
}

// sizeRuns lists the plane sizes of points[idx], idx ascending: runs of
// neighbouring sweep points as "a..b", separated by commas.
func sizeRuns(points []layercond.Point, idx []int) string {
	var runs []string
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && idx[j+1] == idx[j]+1 {
			j++
		}
		run := strconv.FormatInt(points[idx[i]].S, 10)
		if j > i {
			run += ".." + strconv.FormatInt(points[idx[j]].S, 10)
		}
		runs = append(runs, run)
		i = j + 1
	}
	return strings.Join(runs, ", ")
}

// layercondWidth is the width of the text layercond wraps.
const layercondWidth = 80

// writeWrapped writes text wrapped to layercondWidth columns, its first
// line indented by first, the others by rest.
func writeWrapped(w io.Writer, text, first, rest string) {
	for i, line := range strings.Split(wrapWords(text, layercondWidth-max(len(first), len(rest))), "\n") {
		indent := rest
		if i == 0 {
			indent = first
		}
		fmt.Fprintln(w, indent+line)
	}
}

// writeTransitions prints the layer (2-D: row) and L1 transitions of r, and
// the range of O_L1 when the L1 condition does not change within the sweep.
func writeTransitions(w io.Writer, r *layercond.Result) {
	fmt.Fprintln(w, "transitions (the largest s at which each still fits, by bisection on s):")
	for k, t := range r.Transitions {
		writeTransition(w, layerColumns(r.Dims)[k], "O_ov", t, func(p layercond.Point) float64 { return p.Oversubscription[k] })
	}
	ol1 := func(p layercond.Point) float64 { return p.L1Oversubscription }
	writeTransition(w, "L1", "O_L1", r.L1Transition, ol1)
	if r.L1Transition.Kind == layercond.TransitionFound {
		return
	}
	note := "O_L1 = " + span(r.Points, ol1, 3) + " across the sweep"
	if o := span(r.Points, ol1, 3); !strings.Contains(o, "..") {
		note = "O_L1 = " + o + " at every size: the blocks' L1 allocation depends on the block, not on the " + [3]string{"", "row length", "plane"}[outerDim(r)]
	}
	writeWrapped(w, note, "      ", "      ")
}

// writeTransition prints one transition; o names the oversubscription that
// of returns.
func writeTransition(w io.Writer, name, o string, t layercond.Transition, of func(layercond.Point) float64) {
	switch t.Kind {
	case layercond.TransitionFound:
		fmt.Fprintf(w, "  %s: s = %d  (%s %s at %d, %s at %d; %d estimates)\n", name, t.S,
			o, fixed(of(*t.Last), 3), t.Last.S, fixed(of(*t.First), 3), t.First.S, t.Estimates)
	case layercond.FitsThroughout:
		fmt.Fprintf(w, "  %s: fits throughout the sweep (s <= %d)\n", name, t.S)
	default:
		fmt.Fprintf(w, "  %s: fits at no size of the sweep\n", name)
	}
}

// layercondCSV returns one record per block and plane size; transitions and
// the sequential condition are in the table and JSON outputs.
func layercondCSV(rep *request.LayercondReport) [][]string {
	recs := [][]string{{"kernel", "device", "method", "block", "fold", "s", "domain",
		"memLoadV1", "memLoadV2", "memLoadV3", "memLoadOverlapXY", "memLoadOverlapZ", "noZReuse", "fullReuse",
		"waveMemLoadNew", "waveMemOldY", "waveMemOldZ", "oldOverL2Y", "oldOverL2Z", "OovY", "OovZ", "fitsY", "fitsZ",
		"grid", "blocksPerWave", "blocksPerSM", "blockL1LoadAlloc", "smL1Alloc", "L1Oversubscription",
		"L1Load", "L2LoadV1", "L1LoadEvicts", "L2LoadV2", "L1Fits"}}
	for _, r := range rep.Sweeps {
		for _, p := range r.Points {
			recs = append(recs, []string{r.Kernel, r.Device, r.Method, dims(r.Block), dims(r.Fold),
				strconv.FormatInt(p.S, 10), dims(p.Domain),
				num(p.MemLoadV1), num(p.MemLoadV2), num(p.MemLoadV3), num(p.MemLoadOverlap[0]), num(p.MemLoadOverlap[1]),
				num(p.NoZReuse), num(p.FullReuse), num(p.WaveMemLoadNew), num(p.WaveMemOld[0]), num(p.WaveMemOld[1]),
				num(p.OldOverL2[0]), num(p.OldOverL2[1]), num(p.Oversubscription[0]), num(p.Oversubscription[1]),
				strconv.FormatBool(p.Fits[0]), strconv.FormatBool(p.Fits[1]),
				dims(p.Grid), strconv.FormatInt(p.BlocksPerWave, 10), strconv.FormatInt(p.BlocksPerSM, 10),
				num(p.BlockL1LoadAlloc), num(p.SmL1Alloc), num(p.L1Oversubscription),
				num(p.L1Load), num(p.L2LoadV1), num(p.L1LoadEvicts), num(p.L2LoadV2), strconv.FormatBool(p.L1Fits)})
		}
	}
	return recs
}
