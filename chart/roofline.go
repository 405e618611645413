package chart

import (
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
	"gonum.org/v1/plot/plotter"
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
}

// rooflinePoint is one memory level's point.
type rooflinePoint struct {
	Level       string  // L1, L2 or DRAM
	BytesPerLup float64 // the bytes the level moves per lattice update
	Intensity   float64 // work per byte: WorkPerLup / BytesPerLup
}

// rooflineCeiling is one bound: a bandwidth roof of a memory level, or a
// flat one (flops, issue, latency, shared memory) that no volume sets.
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

// memoryLevels are the levels with a point, in the order drawn.
var memoryLevels = []string{"L1", "L2", "DRAM"}

// rooflineOf collects the chart of report r on dev. The bounds are the
// model's list, or, for a model without one, the four bounds of the
// report's derived section; a level's volume is its bound's own where the
// bound states one, else the derived volume (L1 loaded, L2 loaded and
// stored, DRAM loaded and stored).
func rooflineOf(r *model.Report, dev *device.Device) rooflineChart {
	ch := rooflineChart{Work: "flop", WorkPerLup: r.Launch.FlopsPerLup, Limiter: r.Prediction.Limiter}
	if !(ch.WorkPerLup > 0) {
		ch.Work, ch.WorkPerLup = "Lup", 1
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

// flatDashes tell the flat ceilings apart, in their order in the report.
var flatDashes = [][]vg.Length{nil, {vg.Points(6), vg.Points(3)}, {vg.Points(2), vg.Points(2)}, {vg.Points(8), vg.Points(2), vg.Points(2), vg.Points(2)}}

// Roofline draws the hierarchical roofline of report r on dev to w in
// format ("svg" or "png"): one point per memory level at the kernel's
// intensity there and its predicted performance, and one ceiling per bound
// the model combines, on log-log axes, the limiter's ceiling under a
// highlight.
func Roofline(w io.Writer, format string, size Size, r *model.Report, dev *device.Device) error {
	ch := rooflineOf(r, dev)
	p := plot.New()
	l := r.Launch
	p.Title.Text = fmt.Sprintf("Hierarchical roofline: %s on %s, block %s fold %s%s\npredicted %s GLup/s, limited by %s",
		r.Kernel, r.Device, request.Triple(l.Block), request.Triple(l.Fold), l.Tiling.Suffix(), sig(r.Prediction.GLups), ch.Limiter)
	p.Title.Padding = vg.Points(6)
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
	if err := addCeilings(p, ch); err != nil {
		return err
	}
	if err := addPoints(p, ch); err != nil {
		return err
	}
	p.Legend.Top = false
	p.Legend.Left = false
	p.Legend.ThumbnailWidth = vg.Points(24)
	p.Legend.XOffs, p.Legend.YOffs = -vg.Points(4), vg.Points(4)
	return writePlot(w, format, size, p)
}

// addCeilings draws the ceilings within the axes of p, each in the legend
// with its bandwidth or performance: flat ones across, bandwidths from the
// left edge up to the highest flat ceiling, implied ones dashed.
func addCeilings(p *plot.Plot, ch rooflineChart) error {
	top := p.Y.Max
	if y, ok := ch.highestFlat(); ok {
		top = min(top, y)
	}
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
			label = fmt.Sprintf("%s %s", c.Name, rateText(y, ch.Work))
		} else {
			a, b := max(p.X.Min, p.Y.Min/c.GBs), min(p.X.Max, top/c.GBs)
			if a >= b {
				continue
			}
			xys = plotter.XYs{{X: a, Y: c.GBs * a}, {X: b, Y: c.GBs * b}}
			label = fmt.Sprintf("%s %s", c.Name, rateText(c.GBs, "B"))
			if c.Implied {
				label += " (implied by the bound)"
			}
		}
		line, err := plotter.NewLine(xys)
		if err != nil {
			return err
		}
		line.Width = vg.Points(1.5)
		if col, ok := levelColors[c.Name]; ok {
			line.Color = col
			if c.Implied {
				line.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
			}
		} else {
			line.Color = color.RGBA{0x5b, 0x64, 0x75, 0xff}
			line.Dashes = flatDashes[flat%len(flatDashes)]
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
		p.Legend.Add(label, line)
	}
	return nil
}

// addPoints draws each level's point, labelled below it (one line lower
// per level, since the points share one height), with a dotted line up to
// its own level's ceiling: the room left at that level.
func addPoints(p *plot.Plot, ch rooflineChart) error {
	for i, pt := range ch.Points {
		xy := plotter.XY{X: pt.Intensity, Y: ch.Perf}
		col := levelColors[pt.Level]
		if j := slices.IndexFunc(ch.Ceilings, func(c rooflineCeiling) bool { return c.Name == pt.Level && c.GBs > 0 }); j >= 0 {
			roof := min(ch.Ceilings[j].GBs*pt.Intensity, p.Y.Max)
			drop, err := plotter.NewLine(plotter.XYs{xy, {X: pt.Intensity, Y: roof}})
			if err != nil {
				return err
			}
			drop.Color, drop.Dashes = col, []vg.Length{vg.Points(1), vg.Points(2)}
			p.Add(drop)
		}
		sc, err := plotter.NewScatter(plotter.XYs{xy})
		if err != nil {
			return err
		}
		sc.Shape, sc.Radius, sc.Color = draw.CircleGlyph{}, vg.Points(4), col
		lb, err := plotter.NewLabels(plotter.XYLabels{XYs: plotter.XYs{xy}, Labels: []string{fmt.Sprintf("%s %s %s/B", pt.Level, sig(pt.Intensity), ch.Work)}})
		if err != nil {
			return err
		}
		lb.TextStyle[0].Color = col
		lb.TextStyle[0].XAlign, lb.TextStyle[0].YAlign = draw.XCenter, draw.YTop
		lb.Offset = vg.Point{Y: -vg.Points(7 + 12*float64(i))}
		p.Add(sc, lb)
	}
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
