package cli

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"io/fs"
	"math"
	"math/bits"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/layercond"
	"github.com/polyvol/polyvol/model"
	ucli "github.com/urfave/cli/v2"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

func init() {
	register(func() *ucli.Command {
		return &ucli.Command{
			Name:      "layercond",
			Usage:     "sweep the domain size and find where y- and z-layer reuse stops fitting in L2",
			ArgsUsage: "[SPEC]",
			UsageText: `polyvol layercond [SPEC] [--device NAME] [--block X,Y,Z ...] [--fold X,Y,Z] [--sweep SIZES] [options]

Sweeps square XY planes of s×s points with z = TOTAL/s² layers (the paper's
§5.7 series, TOTAL = 512·1024·1024) and reports per plane size the DRAM load
volumes per lattice update, the x+y and z overlaps and the footprints of the
y and z layer sets against the L2. The transition of a layer is the largest s
at which its reuse fits (layer set present and O_ov ≤ 1), found by bisection
on s. For comparison it prints the sequential layer condition (Kerncraft's
form) for --cache-fraction of the L2. See docs/layercond.md.

` + specArgHelp + ` Without SPEC: star3d-r4.

--block may be repeated or list several blocks separated by colons; the plot
draws one curve per block.

--sweep SIZES:  A:B:xF   A, A·F, A·F², … up to B (default 64:16384:x1.25)
                A:B:+S   A, A+S, … up to B
                A:B:N    N sizes evenly spaced on a log scale, A and B included
                s1,s2,…  an explicit list

Examples:
   polyvol layercond star3d-r4 --device A100-40GB --block 1024,1,1
   polyvol layercond star3d-r4 --block 1024,1,1:256,1,4:32,1,32 \
       --plot layers.png
   polyvol layercond star3d-r4 --block 512,2,1 --sweep 256:1024:+64 \
       --method reference --format csv`,
			Flags: append([]ucli.Flag{
				&ucli.StringFlag{Name: "device", Aliases: []string{"d"}, Value: defaultDevice, Usage: "GPU `NAME` (see 'polyvol devices')"},
				deviceFileFlag,
				&ucli.GenericFlag{Name: "block", Value: &repeatedFlag{}, Usage: "thread-block size `X,Y,Z`; repeatable, or several separated by ':' (default: 256,1,2 for 3-D domains)"},
				&ucli.StringFlag{Name: "fold", Value: "1,1,1", Usage: "thread folding `X,Y,Z`: lattice points per thread and dimension"},
				&ucli.StringFlag{Name: "sweep", Value: layercond.DefaultSweep, Usage: "XY plane sizes s: `A:B:xF`, A:B:+S, A:B:N or s1,s2,…"},
				&ucli.Int64Flag{Name: "total", Value: layercond.PaperTotal, Usage: "lattice points X·Y·Z kept constant by the series, z = `N`/s²"},
				&choiceFlag{&ucli.StringFlag{Name: "method", Value: "exact", Usage: "estimation `METHOD`: exact or reference (docs/method.md)"}, methodChoices},
				&ucli.Float64Flag{Name: "cache-fraction", Value: layercond.DefaultCacheFraction, Usage: "share `F` of the L2 the sequential layer condition may use"},
				&ucli.StringFlag{Name: "plot", Usage: "draw memLoadV3 against s, one curve per block, to `FILE` (.svg or .png)", TakesFile: true},
				&ucli.StringFlag{Name: "plot-size", Value: defaultPlotSize, Usage: "size of the --plot image, `WxH` in inches"},
				&ucli.IntFlag{Name: "workers", Value: runtime.NumCPU(), Usage: "`N` plane sizes estimated in parallel"},
				&ucli.IntFlag{Name: "max-points", Value: layercond.MaxSweepSizes, Usage: "bound `N` on the plane sizes of a sweep, checked before any is estimated"},
				formatFlag(formatTable, formatJSON, formatCSV),
			}, importSpecFlags()...),
			Action: runLayercond,
		}
	})
}

// LayercondReport is the JSON output of the layercond command: one sweep per
// block and the sequential layer condition, which depends on the kernel and
// the cache only.
type LayercondReport struct {
	Kernel  string `json:"kernel"`
	Device  string `json:"device"`
	Method  string `json:"method"`
	Total   int64  `json:"total"`
	L2Bytes int64  `json:"L2Bytes"`
	// Sequential is the classic layer condition; nil when the kernel has no
	// loaded field with offset accesses, SequentialNote then says why.
	Sequential     *layercond.SequentialLC `json:"sequential"`
	SequentialNote string                  `json:"sequentialNote,omitempty"`
	Sweeps         []*layercond.Result     `json:"sweeps"`
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

// parseBlocks parses the --block occurrences: X,Y,Z triples, several in one
// occurrence separated by colons.
func parseBlocks(values []string) ([][3]int64, error) {
	var blocks [][3]int64
	for _, v := range values {
		for _, part := range strings.Split(v, ":") {
			b, err := parseTriple("block", part)
			if err != nil {
				return nil, err
			}
			if slices.Contains(blocks, b) {
				return nil, usageErrorf("--block %s appears twice", triple(b))
			}
			blocks = append(blocks, b)
		}
	}
	return blocks, nil
}

// runLayercond is the action of the layercond command.
func runLayercond(c *ucli.Context) error {
	if c.NArg() > 1 {
		return usageErrorf("layercond takes at most one SPEC, got %d arguments", c.NArg())
	}
	format, err := outputFormat(c, formatTable, formatJSON, formatCSV)
	if err != nil {
		return err
	}
	method, err := model.MethodByName(c.String("method"))
	if err != nil {
		return usageErrorf("--method: %v", err)
	}
	maxPoints := c.Int("max-points")
	if maxPoints < 1 {
		return usageErrorf("--max-points %d: must be at least 1", maxPoints)
	}
	sizes, err := layercond.ParseSweep(c.String("sweep"), maxPoints)
	if err != nil {
		return usageErrorf("--sweep: %v (--max-points); take a coarser step, or raise --max-points", err)
	}
	total, workers, fraction := c.Int64("total"), c.Int("workers"), c.Float64("cache-fraction")
	if total < 1 {
		return usageErrorf("--total %d: expected a positive number of lattice points", total)
	}
	if workers < 1 {
		return usageErrorf("--workers %d: must be at least 1", workers)
	}
	if !(fraction > 0 && fraction <= 1) {
		return usageErrorf("--cache-fraction %v: expected a share in (0, 1]", fraction)
	}
	plotPath := c.String("plot")
	if ext := strings.ToLower(filepath.Ext(plotPath)); plotPath != "" && ext != ".svg" && ext != ".png" {
		return usageErrorf("--plot %q: expected a file name ending in .svg or .png", plotPath)
	}
	if err := checkOutputFlag(c, "plot"); err != nil {
		return err
	}
	size, err := parsePlotSize(c.String("plot-size"))
	if err != nil {
		return err
	}
	fold, err := parseTriple("fold", c.String("fold"))
	if err != nil {
		return err
	}
	spec := defaultSpec
	if c.NArg() == 1 {
		spec = c.Args().First()
	}
	k, err := loadKernel(c, spec)
	if err != nil {
		return err
	}
	dev, err := commandDevice(c)
	if err != nil {
		return err
	}
	blocks, err := parseBlocks(*c.Generic("block").(*repeatedFlag))
	if err != nil {
		return err
	}
	if len(blocks) == 0 {
		blocks = [][3]int64{defaultBlock(k)}
	}
	configs := make([]layercond.Config, len(blocks))
	for i, b := range blocks {
		configs[i] = layercond.Config{Kernel: k, Device: dev, Block: b, Fold: fold, Method: method, Sizes: sizes, Total: total, Workers: workers}
		if err := configs[i].Validate(); err != nil {
			return asUsage(err)
		}
	}

	rep := &LayercondReport{Kernel: k.Name, Device: dev.Name, Method: method.Name, Total: total, L2Bytes: dev.L2Bytes}
	if rep.Sequential, err = layercond.Sequential(k, int64(fraction*float64(dev.L2Bytes))); err != nil {
		rep.SequentialNote = err.Error()
	}
	for _, cfg := range configs {
		r, err := layercond.SweepContext(c.Context, cfg)
		if err != nil {
			return estimateError(k.NewLaunch(cfg.Block, cfg.Fold), err)
		}
		rep.Sweeps = append(rep.Sweeps, r)
	}
	if plotPath != "" {
		if err := plotLayercond(rep, plotPath, size); err != nil {
			if errors.As(err, new(*fs.PathError)) { // a missing directory, a directory, no permission
				return usageErrorf("--plot %s: %v", plotPath, err)
			}
			return fmt.Errorf("--plot %s: %w", plotPath, err)
		}
	}
	w := c.App.Writer
	switch format {
	case formatJSON:
		return writeJSON(w, rep)
	case formatCSV:
		return writeCSV(w, layercondCSV(rep))
	}
	return writeLayercond(w, rep, dev, fraction)
}

// yesNo renders whether a layer's reuse fits.
func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// mib formats a byte count in MiB.
func mib(v float64) string { return fixed(v/(1<<20), 2) }

// layercondLegend explains the columns of the layercond table.
const layercondLegend = `
columns: s, z       the domain s x s x z
         memLoadV1  compulsory DRAM load of a wave, no reuse from earlier waves
         V2, V3     DRAM load with the L2 capacity effects; V3 adds evicted partial stores
         ovl xy, z  part of V1 the x+y and the z layer sets hold: what each layer's reuse saves
         no z reuse V1 - ovl xy: x and y reuse hit, z reuse lost (the upper plateau)
         Old y, z   footprint of the y and z layer sets (the wave's block row and layer before it)
         /L2        that footprint over the L2 one SM sees
         O_ov       oversubscription of the layer's reuse: layer set (and, for method reference, new data) over the L2
         fits       the layer set is present and O_ov <= 1
`

// writeLayercond prints the sweeps as tables, then the transitions and the
// sequential layer condition.
func writeLayercond(w io.Writer, rep *LayercondReport, dev *device.Device, fraction float64) error {
	fmt.Fprintf(w, "%s on %s (%s), L2 %s MiB, method %s\n", rep.Kernel, dev.Name, dev.DisplayName, mib(float64(rep.L2Bytes)), rep.Method)
	fmt.Fprintf(w, "domains s x s x z with z = %s/s^2; volumes in B/Lup, footprints in MiB;\n", powerText(rep.Total))
	fmt.Fprintf(w, "a layer's reuse fits when its layer set is present and O_ov <= 1\n")
	fmt.Fprint(w, layercondLegend)
	for _, r := range rep.Sweeps {
		fmt.Fprintf(w, "\nblock %s  fold %s\n", triple(r.Block), triple(r.Fold))
		rows := [][]string{{"s", "z", "memLoadV1", "V2", "V3", "ovl xy", "ovl z", "no z reuse",
			"Old y", "/L2", "O_ov y", "fits", "Old z", "/L2", "O_ov z", "fits"}}
		for _, p := range r.Points {
			rows = append(rows, []string{
				strconv.FormatInt(p.S, 10), strconv.FormatInt(p.Domain[2], 10),
				fixed(p.MemLoadV1, 2), fixed(p.MemLoadV2, 2), fixed(p.MemLoadV3, 2),
				fixed(p.MemLoadOverlap[0], 2), fixed(p.MemLoadOverlap[1], 2), fixed(p.NoZReuse, 2),
				mib(p.WaveMemOld[0]), fixed(p.OldOverL2[0], 3), fixed(p.Oversubscription[0], 3), yesNo(p.Fits[0]),
				mib(p.WaveMemOld[1]), fixed(p.OldOverL2[1], 3), fixed(p.Oversubscription[1], 3), yesNo(p.Fits[1]),
			})
		}
		if err := writeTable(w, rows); err != nil {
			return err
		}
		fmt.Fprintln(w, "transitions (largest s at which the layer's reuse fits, by bisection on s):")
		for k, t := range r.Transitions {
			switch t.Kind {
			case layercond.TransitionFound:
				fmt.Fprintf(w, "  %s layer: s = %d  (O_ov %s at s = %d, %s at s = %d; %d bisection estimates)\n", t.Layer, t.S,
					fixed(t.Last.Oversubscription[k], 3), t.Last.S, fixed(t.First.Oversubscription[k], 3), t.First.S, t.Estimates)
			case layercond.FitsThroughout:
				fmt.Fprintf(w, "  %s layer: fits throughout the sweep (s <= %d)\n", t.Layer, t.S)
			default:
				fmt.Fprintf(w, "  %s layer: fits at no size of the sweep\n", t.Layer)
			}
		}
	}
	fmt.Fprintf(w, "\nsequential layer condition (Kerncraft form, loaded fields, %s x L2 = %s MiB):\n", num(fraction), mib(fraction*float64(rep.L2Bytes)))
	if rep.Sequential == nil {
		_, err := fmt.Fprintf(w, "  not available: %s\n", rep.SequentialNote)
		return err
	}
	for _, cond := range rep.Sequential.Conditions {
		fmt.Fprintf(w, "  %s layer: %-18s (square planes: s <= %d)\n", cond.Layer, cond.Text, cond.MaxSquare)
	}
	if len(rep.Sequential.Skipped) > 0 {
		fmt.Fprintf(w, "  fields left out (accesses not of the form x+a, y+b, z+c): %s\n", strings.Join(rep.Sequential.Skipped, ", "))
	}
	return nil
}

// layercondCSV returns one record per block and plane size; transitions and
// the sequential condition are in the table and JSON outputs.
func layercondCSV(rep *LayercondReport) [][]string {
	recs := [][]string{{"kernel", "device", "method", "block", "fold", "s", "domain",
		"memLoadV1", "memLoadV2", "memLoadV3", "memLoadOverlapXY", "memLoadOverlapZ", "noZReuse", "fullReuse",
		"waveMemLoadNew", "waveMemOldY", "waveMemOldZ", "oldOverL2Y", "oldOverL2Z", "OovY", "OovZ", "fitsY", "fitsZ"}}
	for _, r := range rep.Sweeps {
		for _, p := range r.Points {
			recs = append(recs, []string{r.Kernel, r.Device, r.Method, dims(r.Block), dims(r.Fold),
				strconv.FormatInt(p.S, 10), dims(p.Domain),
				num(p.MemLoadV1), num(p.MemLoadV2), num(p.MemLoadV3), num(p.MemLoadOverlap[0]), num(p.MemLoadOverlap[1]),
				num(p.NoZReuse), num(p.FullReuse), num(p.WaveMemLoadNew), num(p.WaveMemOld[0]), num(p.WaveMemOld[1]),
				num(p.OldOverL2[0]), num(p.OldOverL2[1]), num(p.Oversubscription[0]), num(p.Oversubscription[1]),
				strconv.FormatBool(p.Fits[0]), strconv.FormatBool(p.Fits[1])})
		}
	}
	return recs
}

// plotSize is the size of a --plot-size value, in inches.
type plotSize struct{ width, height float64 }

// defaultPlotSize is the --plot-size default.
const defaultPlotSize = "9x5.5"

// parsePlotSize parses --plot-size WxH, inches between 2 and 100.
func parsePlotSize(v string) (plotSize, error) {
	w, h, ok := strings.Cut(v, "x")
	width, errW := strconv.ParseFloat(w, 64)
	height, errH := strconv.ParseFloat(h, 64)
	if !ok || errW != nil || errH != nil || !(width >= 2 && width <= 100 && height >= 2 && height <= 100) {
		return plotSize{}, usageErrorf("--plot-size %q: expected WIDTHxHEIGHT in inches, each from 2 to 100, e.g. %s", v, defaultPlotSize)
	}
	return plotSize{width, height}, nil
}

// plotLayercond draws memLoadV3 against the plane size s, one curve per
// block, marks each block's z transition (the engine's O_ov = 1) and the
// points of fewer than three block layers in z (boundary cases, see
// docs/layercond.md), draws the sequential z-layer condition as a dashed
// vertical line below the legend, and saves it as SVG or PNG by the
// extension of path.
func plotLayercond(rep *LayercondReport, path string, size plotSize) error {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s on %s, method %s: DRAM load volume", rep.Kernel, rep.Device, rep.Method)
	p.Title.Padding = vg.Points(6)
	p.X.Label.Text = fmt.Sprintf("XY plane size s (domain s x s x z, z = %s / s^2)", powerText(rep.Total))
	p.Y.Label.Text = "DRAM load memLoadV3 (B/Lup)"
	p.X.Scale = plot.LogScale{}
	p.Y.Min = 0
	p.Y.Tick.Marker = shortTicks{}
	p.Legend.Top = true
	p.Legend.Left = true
	p.Add(plotter.NewGrid())
	lo, hi, top := math.Inf(1), math.Inf(-1), 0.0
	var transitions, boundary plotter.XYs
	for i, r := range rep.Sweeps {
		xys := make(plotter.XYs, len(r.Points))
		for j, pt := range r.Points {
			xys[j] = plotter.XY{X: float64(pt.S), Y: pt.MemLoadV3}
			lo, hi, top = min(lo, xys[j].X), max(hi, xys[j].X), max(top, pt.MemLoadV3)
			if pt.Domain[2] < 3*r.Block[2]*r.Fold[2] {
				boundary = append(boundary, xys[j])
			}
		}
		line, points, err := plotter.NewLinePoints(xys)
		if err != nil {
			return err
		}
		line.Color, points.Color = plotutil.Color(i), plotutil.Color(i)
		points.Shape = plotutil.Shape(i)
		p.Add(line, points)
		label := "block " + triple(r.Block)
		if r.Fold != kernel.NoFold {
			label += " fold " + triple(r.Fold)
		}
		p.Legend.Add(label, line, points)
		if t := r.Transitions[1]; t.Kind == layercond.TransitionFound {
			transitions = append(transitions, plotter.XY{X: float64(t.S), Y: t.Last.MemLoadV3})
		}
	}
	// The legend takes the space above the highest curve.
	p.Y.Max = top * (1.25 + 0.06*float64(len(rep.Sweeps)+3))
	for _, m := range []struct {
		xys   plotter.XYs
		shape draw.GlyphDrawer
		label string
	}{
		{transitions, draw.RingGlyph{}, "z transition (O_ov = 1, bisection)"},
		{boundary, draw.CrossGlyph{}, "boundary case: fewer than 3 block layers in z"},
	} {
		if len(m.xys) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(m.xys)
		if err != nil {
			return err
		}
		sc.Shape, sc.Radius, sc.Color = m.shape, vg.Points(6), color.Black
		p.Add(sc)
		p.Legend.Add(m.label, sc)
	}
	p.X.Tick.Marker = powerOfTwoTicks(lo, hi)
	if seq := rep.Sequential; seq != nil {
		s := float64(seq.Conditions[1].MaxSquare)
		if s >= lo && s <= hi {
			vline, err := plotter.NewLine(plotter.XYs{{X: s, Y: 0}, {X: s, Y: top * 1.05}})
			if err != nil {
				return err
			}
			vline.Color = color.Gray{Y: 96}
			vline.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
			p.Add(vline)
			p.Legend.Add(fmt.Sprintf("sequential z-layer condition (s <= %d)", seq.Conditions[1].MaxSquare), vline)
		}
	}
	p.Legend.ThumbnailWidth = vg.Points(24)
	p.Legend.YOffs = -vg.Points(4)
	p.Legend.XOffs = vg.Points(4)
	return savePlot(p, path, vg.Length(size.width)*vg.Inch, vg.Length(size.height)*vg.Inch)
}

// savePlot writes p to path in the format of its extension, with a margin
// above the title, which gonum/plot draws flush with the top edge.
func savePlot(p *plot.Plot, path string, width, height vg.Length) error {
	c, err := draw.NewFormattedCanvas(width, height, strings.TrimPrefix(strings.ToLower(filepath.Ext(path)), "."))
	if err != nil {
		return err
	}
	p.Draw(draw.Crop(draw.New(c), 0, 0, 0, -vg.Points(8)))
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := c.WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// powerText writes n as 2^k when it is a power of two, else in decimal.
func powerText(n int64) string {
	if n > 0 && n&(n-1) == 0 {
		return fmt.Sprintf("2^%d", bits.TrailingZeros64(uint64(n)))
	}
	return strconv.FormatInt(n, 10)
}

// shortTicks are gonum/plot's default ticks with labels in the shortest
// form ("25", not "25.00").
type shortTicks struct{}

// Ticks returns the default ticks between lo and hi, relabelled.
func (shortTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = strconv.FormatFloat(ticks[i].Value, 'g', -1, 64)
		}
	}
	return ticks
}

// powerOfTwoTicks labels the powers of two between lo and hi, which suit
// plane sizes better than the decades of plot.LogTicks.
func powerOfTwoTicks(lo, hi float64) plot.ConstantTicks {
	var ticks plot.ConstantTicks
	for v := math.Exp2(math.Floor(math.Log2(lo))); v <= hi*1.0001; v *= 2 {
		if v >= lo*0.9999 {
			ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', -1, 64)})
		}
	}
	return ticks
}
