package chart

import (
	"cmp"
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"
	"strconv"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/model"
	"github.com/polyvol/polyvol/request"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// rooflineChart is the hierarchical roofline of one predict report, as
// Roofline draws it and as the web calculator does: one point per
// memory level at the kernel's intensity there and its predicted
// performance, and one ceiling per bound the model combines. The work is
// the flops, or, for a kernel without flops, the lattice updates.
type rooflineChart struct {
	Work       string  // "flop" or "Lup"
	WorkPerLup float64 // the flops per lattice update, or 1
	Perf       float64 // the predicted work per second, 10^9
	Points     []rooflinePoint
	Ceilings   []rooflineCeiling
	Limiter    string // the model's limiter, which may have no ceiling (latency)
	Precision  string // FP32 or FP64: the floating-point type of the device peak
}

// rooflinePoint is one memory level's point.
type rooflinePoint struct {
	Level       string  // L1, L2 or DRAM
	BytesPerLup float64 // the bytes the level moves per lattice update
	Intensity   float64 // work per byte: WorkPerLup / BytesPerLup
}

// rooflineCeiling is one bound: a bandwidth roof of a memory level, or a
// flat one (flops, issue, latency, shared memory) that no volume sets; or
// the device peak (peakName), which bounds no kernel alone: the flops
// bound is its share that the kernel's instruction mix reaches.
type rooflineCeiling struct {
	Name  string
	GLups float64 // the bound alone, lattice updates per second, 10^9
	// GBs is a memory level's bandwidth, 0 for a flat ceiling. Implied
	// says that neither the report nor the device gives it: it is GLups
	// times the level's volume (always so for L1, whose bound comes from
	// its cycles).
	GBs     float64
	Implied bool
	Limiter bool
}

// peakName names the ceiling of the device's peak flops: every lane's
// fused multiply-add (2 flops) in every cycle.
const peakName = "device peak"

// memoryLevels are the levels with a point, in the order drawn.
var memoryLevels = []string{"L1", "L2", "DRAM"}

// rooflineOf collects the chart of report r on dev, for a kernel whose
// floating-point numbers have fpBytes (4 or 8). The bounds are the
// model's list, or, for a model without one, the four bounds of the
// report's derived section; a level's volume is its bound's own where the
// bound states one, else the derived volume (L1 loaded, L2 loaded and
// stored, DRAM loaded and stored).
func rooflineOf(r *model.Report, dev *device.Device, fpBytes int) rooflineChart {
	ch := rooflineChart{Work: "flop", WorkPerLup: r.Launch.FlopsPerLup, Limiter: r.Prediction.Limiter, Precision: "FP64"}
	lanes := dev.FP64PerCycleSM
	if fpBytes == 4 {
		ch.Precision, lanes = "FP32", dev.FP32PerCycleSM
	}
	if !(ch.WorkPerLup > 0) {
		ch.Work, ch.WorkPerLup = "Lup", 1
	} else if peak := 2 * lanes * dev.ClockGHz * float64(dev.SMs); peak > 0 {
		ch.Ceilings = append(ch.Ceilings, rooflineCeiling{Name: peakName, GLups: peak / ch.WorkPerLup})
	}
	ch.Perf = r.Prediction.GLups * ch.WorkPerLup
	bounds := r.Prediction.Bounds
	if len(bounds) == 0 {
		bounds = derivedBounds(r.Derived)
	}
	d := r.Derived
	bytes := map[string]float64{"L1": d.L1Load, "L2": d.L2TotalV2, "DRAM": d.MemLoadV3 + d.MemStoreV2}
	for _, b := range bounds {
		if _, ok := bytes[b.Name]; ok && b.BytesPerLup > 0 {
			bytes[b.Name] = b.BytesPerLup
		}
	}
	for _, lvl := range memoryLevels {
		if bytes[lvl] > 0 && ch.Perf > 0 {
			ch.Points = append(ch.Points, rooflinePoint{Level: lvl, BytesPerLup: bytes[lvl], Intensity: ch.WorkPerLup / bytes[lvl]})
		}
	}
	for _, b := range bounds {
		if !(b.GLups > 0) {
			continue
		}
		c := rooflineCeiling{Name: b.Name, GLups: b.GLups, Limiter: b.Name == ch.Limiter}
		if v, ok := bytes[b.Name]; ok {
			if !(v > 0) {
				continue // no volume to turn into a bandwidth
			}
			c.GBs = b.GBs
			if !(c.GBs > 0) {
				c.GBs = deviceBandwidth(dev, b.Name, b.GLups*v)
			}
			if !(c.GBs > 0) {
				c.GBs, c.Implied = b.GLups*v, true
			}
		}
		ch.Ceilings = append(ch.Ceilings, c)
	}
	return ch
}

// derivedBounds are the roofline's four bounds of the derived section, for
// a model that lists none.
func derivedBounds(d model.Derived) []model.Bound {
	flops := 0.0
	if d.PerfFlops != nil {
		flops = *d.PerfFlops
	}
	return []model.Bound{{Name: "flops", GLups: flops}, {Name: "L1", GLups: d.PerfL1}, {Name: "L2", GLups: d.PerfL2V2}, {Name: "DRAM", GLups: d.PerfMemV3}}
}

// deviceBandwidth returns dev's bandwidth of level where it is the one that
// implied (GB/s) gives, to a thousandth; 0 otherwise.
func deviceBandwidth(dev *device.Device, level string, implied float64) float64 {
	bw := map[string]float64{"L2": dev.L2BandwidthGBs, "DRAM": dev.DRAMBandwidthGBs}[level]
	if bw > 0 && math.Abs(bw-implied) <= 1e-3*bw {
		return bw
	}
	return 0
}

// flatName returns the name of flat ceiling c in the chart: the flops
// bound says that the kernel's instructions set it.
func (ch rooflineChart) flatName(c rooflineCeiling) string {
	switch c.Name {
	case peakName:
		return peakName + " " + ch.Precision
	case "flops":
		return "flops of the kernel's FP mix"
	}
	return c.Name
}

// flatPerf returns a flat ceiling's work per second, 10^9.
func (ch rooflineChart) flatPerf(c rooflineCeiling) float64 { return c.GLups * ch.WorkPerLup }

// highestFlat returns the highest flat ceiling's work per second, and
// false where the chart has none.
func (ch rooflineChart) highestFlat() (float64, bool) {
	top, ok := 0.0, false
	for _, c := range ch.Ceilings {
		if c.GBs == 0 {
			top, ok = max(top, ch.flatPerf(c)), true
		}
	}
	return top, ok
}

// ranges returns the decades the chart spans: the points, the ceilings at
// the points' intensities and the ridge points, with room for the labels.
func (ch rooflineChart) ranges() (x0, x1, y0, y1 float64) {
	var xs, ys []float64
	for _, c := range ch.Ceilings {
		if c.GBs == 0 {
			ys = append(ys, ch.flatPerf(c))
		}
	}
	top, hasTop := ch.highestFlat()
	for _, p := range ch.Points {
		xs, ys = append(xs, p.Intensity), append(ys, ch.Perf)
	}
	for _, c := range ch.Ceilings {
		if c.GBs == 0 {
			continue
		}
		if i := slices.IndexFunc(ch.Points, func(p rooflinePoint) bool { return p.Level == c.Name }); i >= 0 {
			ys = append(ys, c.GBs*ch.Points[i].Intensity)
		}
		if hasTop {
			xs = append(xs, top/c.GBs) // the ridge point
		}
	}
	if len(xs) == 0 {
		xs = []float64{1}
	}
	if len(ys) == 0 {
		ys = []float64{1}
	}
	decade := func(v float64, up bool) float64 {
		if up {
			return math.Pow(10, math.Ceil(math.Log10(v)))
		}
		return math.Pow(10, math.Floor(math.Log10(v)))
	}
	return decade(slices.Min(xs)/2, false), decade(slices.Max(xs)*2, true), decade(slices.Min(ys)/2, false), decade(slices.Max(ys)*1.6, true)
}

// levelColors are the colours of the memory levels, as on the web page.
var levelColors = map[string]color.Color{
	"L1":   color.RGBA{0x1f, 0x5f, 0xbf, 0xff},
	"L2":   color.RGBA{0xd9, 0x82, 0x2b, 0xff},
	"DRAM": color.RGBA{0x2e, 0x8b, 0x57, 0xff},
}

// flatStyles tell the flat ceilings apart, in their order in the report:
// a colour and a dash pattern each, so that two ceilings of nearly one
// height still read as two.
var flatStyles = []struct {
	color  color.Color
	dashes []vg.Length
}{
	{color.RGBA{0x5b, 0x64, 0x75, 0xff}, []vg.Length{vg.Points(6), vg.Points(3)}},
	{color.RGBA{0x6b, 0x5c, 0xa5, 0xff}, []vg.Length{vg.Points(2), vg.Points(2)}},
	{color.RGBA{0xa2, 0x3b, 0x72, 0xff}, []vg.Length{vg.Points(8), vg.Points(2), vg.Points(2), vg.Points(2)}},
	{color.RGBA{0x8c, 0x56, 0x4b, 0xff}, []vg.Length{vg.Points(4), vg.Points(4)}},
	{color.RGBA{0x3c, 0x9d, 0xbd, 0xff}, []vg.Length{vg.Points(10), vg.Points(3)}},
}

// dropDashes are the dashes of a point's line up to its level's ceiling.
var dropDashes = []vg.Length{vg.Points(1), vg.Points(2)}

// Colours of the legend's box and of the boxes behind labels in the plot.
var (
	legendFill   = color.RGBA{0xf6, 0xf7, 0xf9, 0xff}
	legendStroke = color.RGBA{0xd5, 0xda, 0xe3, 0xff}
	labelFill    = color.White
)

// labelFont is the size of the labels in the plot and of the legend.
const labelFont = 9

// labelStyle returns the style of a label in the plot in col.
func labelStyle(col color.Color) text.Style {
	return text.Style{Color: col, Font: font.From(plot.DefaultFont, vg.Points(labelFont)), Handler: plot.DefaultTextHandler}
}

// Roofline draws the hierarchical roofline of report r on dev to w in
// format ("svg" or "png"): one point per memory level at the kernel's
// intensity there and its predicted performance, and one ceiling per bound
// the model combines, on log-log axes, the limiter's ceiling under a
// highlight. A kernel with flops also gets dev's peak for its
// floating-point type (fpBytes 4 or 8), drawn apart from the kernel's own
// flops ceiling, which its instruction mix sets. The legend stands in a
// box right of the axes, or under them where the image is narrow.
func Roofline(w io.Writer, format string, size Size, r *model.Report, dev *device.Device, fpBytes int) error {
	ch := rooflineOf(r, dev, fpBytes)
	p := plot.New()
	l := r.Launch
	p.Title.Text = fmt.Sprintf("Hierarchical roofline: %s on %s, block %s fold %s%s\npredicted %s GLup/s, limited by %s",
		r.Kernel, r.Device, request.Triple(l.Block), request.Triple(l.Fold), l.Tiling.Suffix(), sig(r.Prediction.GLups), ch.Limiter)
	perfUnit := "GFlop/s"
	p.X.Label.Text = "arithmetic intensity at each level (flop/B)"
	if ch.Work == "Lup" {
		perfUnit = "GLup/s"
		p.X.Label.Text = "lattice updates per byte at each level (Lup/B)"
	}
	p.Y.Label.Text = "performance (" + perfUnit + ")"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = ch.ranges()
	p.Add(plotter.NewGrid())
	legend := boxedLegend{style: labelStyle(color.Black)}
	if err := addCeilings(p, &legend, ch); err != nil {
		return err
	}
	if err := addPoints(p, &legend, ch); err != nil {
		return err
	}
	// The title spans the whole image, above the axes and the legend.
	title := p.Title.TextStyle
	title.XAlign, title.YAlign = draw.XCenter, draw.YTop
	titleText := p.Title.Text
	p.Title.Text = ""
	return writeCanvas(w, format, size, func(dc draw.Canvas) {
		const margin = 6
		dc.FillText(title, vg.Point{X: (dc.Min.X + dc.Max.X) / 2, Y: dc.Max.Y - vg.Points(margin)}, titleText)
		body := draw.Crop(dc, 0, 0, 0, -(title.Height(titleText) + vg.Points(2*margin)))
		// The legend right of the axes, or, where that leaves the axes
		// less than two thirds of the width, under them in two columns.
		cols := 1
		box := legend.size(cols)
		if box.X > (dc.Max.X-dc.Min.X)/3 {
			cols = 2
			box = legend.size(cols)
			frame := vg.Rectangle{Min: vg.Point{X: (dc.Min.X + dc.Max.X - box.X) / 2, Y: dc.Min.Y + vg.Points(margin)}}
			frame.Max = frame.Min.Add(box)
			p.Draw(draw.Crop(body, 0, 0, box.Y+vg.Points(2*margin), 0))
			legend.draw(draw.Canvas{Canvas: dc.Canvas, Rectangle: frame}, cols)
			return
		}
		p.Draw(draw.Crop(body, 0, -(box.X + vg.Points(2*margin)), 0, 0))
		frame := vg.Rectangle{Min: vg.Point{X: dc.Max.X - vg.Points(margin) - box.X, Y: body.Max.Y - vg.Points(margin) - box.Y}}
		frame.Max = frame.Min.Add(box)
		legend.draw(draw.Canvas{Canvas: dc.Canvas, Rectangle: frame}, cols)
	})
}

// legendEntry is one line of a legend: a thumbnail and its text.
type legendEntry struct {
	name  string
	thumb plot.Thumbnailer
}

// boxedLegend is a legend drawn in columns on a box of its own colour.
type boxedLegend struct {
	style   text.Style
	entries []legendEntry
}

// The legend's sizes: its padding inside the box, the width of a
// thumbnail, and the room between two lines and between two columns.
var (
	legendPad       = vg.Points(5)
	legendThumb     = vg.Points(22)
	legendLineGap   = vg.Points(3)
	legendColumnGap = vg.Points(12)
)

// Add adds an entry to the legend.
func (l *boxedLegend) Add(name string, thumb plot.Thumbnailer) {
	l.entries = append(l.entries, legendEntry{name, thumb})
}

// column returns the entries of column i of cols, consecutive entries
// down each column.
func (l *boxedLegend) column(i, cols int) []legendEntry {
	per := (len(l.entries) + cols - 1) / cols
	return l.entries[min(len(l.entries), i*per):min(len(l.entries), (i+1)*per)]
}

// lineHeight returns the height of one entry.
func (l *boxedLegend) lineHeight() vg.Length { return l.style.Height("Mg") }

// columnWidth returns the width of entries: a thumbnail, a space and the
// longest text.
func (l *boxedLegend) columnWidth(entries []legendEntry) vg.Length {
	var w vg.Length
	for _, e := range entries {
		w = max(w, legendThumb+l.style.Width(" "+e.name))
	}
	return w
}

// size returns the size of the legend's box in cols columns.
func (l *boxedLegend) size(cols int) vg.Point {
	var size vg.Point
	rows := 0
	for i := range cols {
		c := l.column(i, cols)
		size.X += l.columnWidth(c)
		rows = max(rows, len(c))
	}
	size.X += vg.Length(cols-1)*legendColumnGap + 2*legendPad
	size.Y = vg.Length(rows)*l.lineHeight() + vg.Length(max(0, rows-1))*legendLineGap + 2*legendPad
	return size
}

// draw fills c with the legend's box and draws its entries in cols
// columns inside it.
func (l *boxedLegend) draw(c draw.Canvas, cols int) {
	c.FillPolygon(legendFill, corners(c.Rectangle))
	c.StrokeLines(draw.LineStyle{Color: legendStroke, Width: vg.Points(0.8)}, append(corners(c.Rectangle), c.Min))
	x := c.Min.X + legendPad
	h := l.lineHeight()
	for i := range cols {
		entries := l.column(i, cols)
		y := c.Max.Y - legendPad
		for _, e := range entries {
			line := draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{Min: vg.Point{X: x, Y: y - h}, Max: vg.Point{X: x + legendThumb, Y: y}}}
			e.thumb.Thumbnail(&line)
			sty := l.style
			sty.YAlign = draw.YTop
			c.FillText(sty, vg.Point{X: x + legendThumb + l.style.Width(" "), Y: y}, e.name)
			y -= h + legendLineGap
		}
		x += l.columnWidth(entries) + legendColumnGap
	}
}

// flatLabel is the text at the right end of a flat ceiling.
type flatLabel struct {
	Y     float64 // the ceiling's work per second
	Text  string
	Color color.Color
}

// flatLabels is the plotter of the flat ceilings' labels: right-aligned
// above their lines, on a white box each, and, from the lowest up, moved up
// where they would overlap the label below, so that ceilings of nearly one
// height keep a label each.
type flatLabels []flatLabel

// Plot draws the labels.
func (fl flatLabels) Plot(c draw.Canvas, p *plot.Plot) {
	_, trY := p.Transforms(&c)
	sorted := slices.SortedFunc(slices.Values(fl), func(a, b flatLabel) int { return cmp.Compare(a.Y, b.Y) })
	floor := c.Min.Y
	for _, l := range sorted {
		sty := labelStyle(l.Color)
		sty.XAlign = draw.XRight
		box := sty.Rectangle(l.Text)
		baseline := max(trY(l.Y)+vg.Points(3), floor-box.Min.Y+vg.Points(1))
		at := vg.Point{X: c.Max.X - vg.Points(4), Y: baseline}
		drawLabel(c, sty, at, l.Text)
		floor = baseline + box.Max.Y
	}
}

// drawLabel draws txt at pt in sty on a box that hides the lines behind it.
func drawLabel(c draw.Canvas, sty text.Style, pt vg.Point, txt string) {
	r := labelBox(sty, pt, txt)
	c.FillPolygon(labelFill, corners(r))
	c.FillText(sty, pt, txt)
}

// labelBox returns the box of txt drawn at pt in sty, with a point of room
// around it.
func labelBox(sty text.Style, pt vg.Point, txt string) vg.Rectangle {
	r := sty.Rectangle(txt).Add(pt)
	grow := vg.Point{X: vg.Points(1), Y: vg.Points(1)}
	return vg.Rectangle{Min: r.Min.Sub(grow), Max: r.Max.Add(grow)}
}

// addCeilings draws the ceilings within the axes of p: flat ones across,
// labelled with their performance at their right end; bandwidths from the
// left edge up to the highest flat ceiling, implied ones dashed, in legend
// with their bandwidth.
func addCeilings(p *plot.Plot, legend *boxedLegend, ch rooflineChart) error {
	top := p.Y.Max
	if y, ok := ch.highestFlat(); ok {
		top = min(top, y)
	}
	var labels flatLabels
	flat := 0
	for _, c := range ch.Ceilings {
		var xys plotter.XYs
		var label string
		if c.GBs == 0 {
			y := ch.flatPerf(c)
			if y < p.Y.Min || y > p.Y.Max {
				continue
			}
			xys = plotter.XYs{{X: p.X.Min, Y: y}, {X: p.X.Max, Y: y}}
			label = fmt.Sprintf("%s %s", ch.flatName(c), rateText(y, ch.Work))
		} else {
			a, b := max(p.X.Min, p.Y.Min/c.GBs), min(p.X.Max, top/c.GBs)
			if a >= b {
				continue
			}
			xys = plotter.XYs{{X: a, Y: c.GBs * a}, {X: b, Y: c.GBs * b}}
			label = fmt.Sprintf("%s %s", c.Name, rateText(c.GBs, "B"))
			if c.Implied {
				label += " (implied)"
			}
		}
		line, err := plotter.NewLine(xys)
		if err != nil {
			return err
		}
		line.Width = vg.Points(1.5)
		switch col, ok := levelColors[c.Name]; {
		case ok:
			line.Color = col
			if c.Implied {
				line.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
			}
		case c.Name == peakName:
			line.Color, line.Width = color.Black, vg.Points(2)
		default:
			style := flatStyles[flat%len(flatStyles)]
			line.Color, line.Dashes = style.color, style.dashes
			flat++
		}
		if c.Limiter {
			halo, err := plotter.NewLine(xys)
			if err != nil {
				return err
			}
			halo.Width, halo.Color = vg.Points(7), color.RGBA{0xff, 0xd7, 0x40, 0xff}
			p.Add(halo)
			label += " (limiter)"
		}
		p.Add(line)
		if c.GBs == 0 {
			labels = append(labels, flatLabel{Y: ch.flatPerf(c), Text: label, Color: line.Color})
		} else {
			legend.Add(label, line)
		}
	}
	p.Add(labels)
	return nil
}

// pointLabels is the plotter of the points' labels, each placed where it
// covers no point, no drop line and no other label, or where it covers
// the least of them.
type pointLabels struct {
	ch    rooflineChart
	drops []plotter.XYs // the drop lines, in data coordinates
	texts []string
	dot   vg.Length // the points' radius
}

// Plot places and draws the labels.
func (pl pointLabels) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	var taken []vg.Rectangle
	for _, pt := range pl.ch.Points {
		at := vg.Point{X: trX(pt.Intensity), Y: trY(pl.ch.Perf)}
		d := pl.dot + vg.Points(1)
		taken = append(taken, vg.Rectangle{Min: at.Sub(vg.Point{X: d, Y: d}), Max: at.Add(vg.Point{X: d, Y: d})})
	}
	for _, drop := range pl.drops {
		x := trX(drop[0].X)
		taken = append(taken, vg.Rectangle{Min: vg.Point{X: x - vg.Points(1), Y: trY(drop[0].Y)}, Max: vg.Point{X: x + vg.Points(1), Y: trY(drop[1].Y)}})
	}
	for i, pt := range pl.ch.Points {
		sty := labelStyle(levelColors[pt.Level])
		at := vg.Point{X: trX(pt.Intensity), Y: trY(pl.ch.Perf)}
		best, least := vg.Point{}, vg.Length(math.Inf(1))
		for _, s := range labelSpots(sty, pl.texts[i], at, pl.dot+vg.Points(3)) {
			r := labelBox(sty, s, pl.texts[i])
			covered := vg.Length(0)
			for _, q := range taken {
				covered += overlap(r, q)
			}
			if !(c.Contains(r.Min) && c.Contains(r.Max)) {
				covered += (r.Max.X - r.Min.X) * (r.Max.Y - r.Min.Y)
			}
			if covered < least {
				best, least = s, covered
			}
			if covered == 0 {
				break
			}
		}
		taken = append(taken, labelBox(sty, best, pl.texts[i]))
		drawLabel(c, sty, best, pl.texts[i])
	}
}

// labelSpots returns where a label txt of a point at at may go, in order of
// preference: right of it, left of it, both ever further up and down, then
// ever lower below it, gap away from the point's centre.
func labelSpots(sty text.Style, txt string, at vg.Point, gap vg.Length) []vg.Point {
	r := sty.Rectangle(txt)
	w, h := r.Max.X-r.Min.X, r.Max.Y-r.Min.Y
	mid := at.Y - (r.Min.Y+r.Max.Y)/2 // the baseline that centres the label on the point
	var spots []vg.Point
	for _, k := range []float64{0, -1, 1, -2, 2, -3, 3} {
		y := mid + vg.Length(k)*(h+vg.Points(3))
		spots = append(spots, vg.Point{X: at.X + gap, Y: y}, vg.Point{X: at.X - gap - w, Y: y})
	}
	for k := range 6 {
		spots = append(spots, vg.Point{X: at.X - w/2, Y: at.Y - gap - r.Max.Y - vg.Length(k)*(h+vg.Points(3))})
	}
	return spots
}

// overlap returns the area that a and b share.
func overlap(a, b vg.Rectangle) vg.Length {
	w := min(a.Max.X, b.Max.X) - max(a.Min.X, b.Min.X)
	h := min(a.Max.Y, b.Max.Y) - max(a.Min.Y, b.Min.Y)
	return max(0, w) * max(0, h)
}

// addPoints draws each level's point with a dotted line up to its own
// level's ceiling (the room left at that level) and a label with its
// intensity, each in legend.
func addPoints(p *plot.Plot, legend *boxedLegend, ch rooflineChart) error {
	labels := pointLabels{ch: ch, dot: vg.Points(4)}
	for _, pt := range ch.Points {
		xy := plotter.XY{X: pt.Intensity, Y: ch.Perf}
		col := levelColors[pt.Level]
		if j := slices.IndexFunc(ch.Ceilings, func(c rooflineCeiling) bool { return c.Name == pt.Level && c.GBs > 0 }); j >= 0 {
			roof := min(ch.Ceilings[j].GBs*pt.Intensity, p.Y.Max)
			if top, ok := ch.highestFlat(); ok {
				roof = min(roof, top)
			}
			drop := plotter.XYs{xy, {X: pt.Intensity, Y: roof}}
			line, err := plotter.NewLine(drop)
			if err != nil {
				return err
			}
			line.Color, line.Dashes = col, dropDashes
			p.Add(line)
			labels.drops = append(labels.drops, drop)
		}
		sc, err := plotter.NewScatter(plotter.XYs{xy})
		if err != nil {
			return err
		}
		sc.Shape, sc.Radius, sc.Color = draw.CircleGlyph{}, labels.dot, col
		p.Add(sc)
		labels.texts = append(labels.texts, fmt.Sprintf("%s %s %s/B", pt.Level, sig(pt.Intensity), ch.Work))
		legend.Add(fmt.Sprintf("%s point: %s B/Lup", pt.Level, sig(pt.BytesPerLup)), sc)
	}
	p.Add(labels)
	return nil
}

// sig writes v with 3 significant digits, without exponent for the usual
// magnitudes.
func sig(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1000:
		return strconv.FormatFloat(math.Round(v), 'f', -1, 64)
	case a == 0:
		return "0"
	case a < 1e-3:
		return strconv.FormatFloat(v, 'e', 2, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// rateText writes a rate in G-units per second of unit (flop, B, Lup) as
// GFlop/s, GB/s or GLup/s, switching to T above 1000 except for lattice
// updates.
func rateText(g float64, unit string) string {
	if unit == "flop" {
		unit = "Flop"
	}
	if g >= 1000 && unit != "Lup" {
		return sig(g/1000) + " T" + unit + "/s"
	}
	return sig(g) + " G" + unit + "/s"
}
