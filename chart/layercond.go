package chart

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"strconv"

	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/layercond"
	"github.com/polyvol/polyvol/request"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// BoundaryLabel is Layercond's legend entry of the points of a sweep of
// dims dimensions with fewer than three block layers in z (block rows in
// y for 2-D), where the representative wave may sit in a partial block
// layer (docs/layercond.md).
func BoundaryLabel(dims int) string {
	if dims == 2 {
		return "boundary case: fewer than 3 block rows in y"
	}
	return "boundary case: fewer than 3 block layers in z"
}

// BoundaryCase reports whether p of r has fewer than three blocks (times
// the fold) in the outermost dimension of its domain, z for 3-D and y for
// 2-D.
func BoundaryCase(r *layercond.Result, p layercond.Point) bool {
	d := r.Dims - 1
	return p.Domain[d] < 3*r.Block[d]*r.Fold[d]
}

// Layercond draws the volumes of rep against the swept extent s to w in
// format ("svg" or "png"), one curve per block, in two panels: above, the
// DRAM load volume memLoadV3 with each block's transition of the outermost
// layer (z for 3-D, the rows for 2-D; the engine's O_ov = 1), the points
// of fewer than three blocks in that dimension (boundary cases, see
// docs/layercond.md) marked and the sequential condition of that layer as
// a dashed vertical line; below, the L2→L1 load volume L2LoadV2 with each
// block's L1 transition (O_L1 = 1) marked. The legend of both stands to
// the right of the panels, clear of the curves.
func Layercond(w io.Writer, format string, size Size, rep *request.LayercondReport) error {
	se := rep.Series()
	outer, sequential := "z", "z-layer"
	if se.Dims == 2 {
		outer, sequential = "row", "row"
	}
	dram, l1 := volumePlot(), volumePlot()
	dram.Title.Text = fmt.Sprintf("%s on %s, method %s: DRAM and L2->L1 load volumes", rep.Kernel, rep.Device, rep.Method)
	dram.Title.Padding = vg.Points(6)
	dram.Y.Label.Text = "DRAM load memLoadV3 (B/Lup)"
	l1.Y.Label.Text = "L2->L1 load L2LoadV2 (B/Lup)"
	l1.X.Label.Text = fmt.Sprintf("%s (domains %s)", se.Swept(), se.Text())
	legend := plot.NewLegend()
	legend.TextStyle.Font.Size = vg.Points(9)
	legend.ThumbnailWidth = vg.Points(24)
	legend.Top, legend.Left = true, true
	lo, hi := math.Inf(1), math.Inf(-1)
	var tops [2]float64
	var rings [2]plotter.XYs
	var boundary plotter.XYs
	for i, r := range rep.Sweeps {
		var curves [2]plotter.XYs
		for _, pt := range r.Points {
			s := float64(pt.S)
			lo, hi = min(lo, s), max(hi, s)
			curves[0] = append(curves[0], plotter.XY{X: s, Y: pt.MemLoadV3})
			curves[1] = append(curves[1], plotter.XY{X: s, Y: pt.L2LoadV2})
			tops[0], tops[1] = max(tops[0], pt.MemLoadV3), max(tops[1], pt.L2LoadV2)
			if BoundaryCase(r, pt) {
				boundary = append(boundary, plotter.XY{X: s, Y: pt.MemLoadV3})
			}
		}
		label := "block " + request.Triple(r.Block)
		if r.Fold != kernel.NoFold {
			label += " fold " + request.Triple(r.Fold)
		}
		for panel, p := range []*plot.Plot{dram, l1} {
			line, points, err := plotter.NewLinePoints(curves[panel])
			if err != nil {
				return err
			}
			line.Color, points.Color = plotutil.Color(i), plotutil.Color(i)
			points.Shape = plotutil.Shape(i)
			p.Add(line, points)
			if panel == 0 {
				legend.Add(label, line, points)
			}
		}
		if t := r.Transitions[len(r.Transitions)-1]; t.Kind == layercond.TransitionFound {
			rings[0] = append(rings[0], plotter.XY{X: float64(t.S), Y: t.Last.MemLoadV3})
		}
		if t := r.L1Transition; t.Kind == layercond.TransitionFound {
			rings[1] = append(rings[1], plotter.XY{X: float64(t.S), Y: t.Last.L2LoadV2})
		}
	}
	dram.Y.Max, l1.Y.Max = tops[0]*1.1, tops[1]*1.1
	marks := []struct {
		p     *plot.Plot
		xys   plotter.XYs
		shape draw.GlyphDrawer
		label string
	}{
		{dram, rings[0], draw.RingGlyph{}, outer + " transition (O_ov = 1, bisection)"},
		{dram, boundary, draw.CrossGlyph{}, BoundaryLabel(se.Dims)},
		{l1, rings[1], draw.RingGlyph{}, "L1 transition (O_L1 = 1, bisection)"},
	}
	for _, m := range marks {
		if len(m.xys) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(m.xys)
		if err != nil {
			return err
		}
		sc.Shape, sc.Radius, sc.Color = m.shape, vg.Points(6), color.Black
		m.p.Add(sc)
		legend.Add(m.label, sc)
	}
	dram.X.Tick.Marker, l1.X.Tick.Marker = powerOfTwoTicks(lo, hi, false), powerOfTwoTicks(lo, hi, true)
	if seq := rep.Sequential; seq != nil {
		cond := seq.Conditions[len(seq.Conditions)-1]
		if s := float64(cond.MaxSwept(se)); s >= lo && s <= hi {
			vline, err := plotter.NewLine(plotter.XYs{{X: s, Y: 0}, {X: s, Y: dram.Y.Max}})
			if err != nil {
				return err
			}
			vline.Color = color.Gray{Y: 96}
			vline.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
			dram.Add(vline)
			legend.Add(fmt.Sprintf("sequential %s condition (s <= %d)", sequential, int64(s)), vline)
		}
	}
	return writeCanvas(w, format, size, func(dc draw.Canvas) {
		width := legend.Rectangle(dc).Size().X + vg.Points(12)
		panels := draw.Crop(dc, 0, -width, 0, -vg.Points(8))
		tiles := draw.Tiles{Rows: 2, Cols: 1, PadY: vg.Points(6), PadTop: vg.Points(8)}
		canvases := plot.Align([][]*plot.Plot{{dram}, {l1}}, tiles, panels)
		dram.Draw(canvases[0][0])
		l1.Draw(canvases[1][0])
		side := draw.Crop(dc, dc.Size().X-width+vg.Points(6), 0, 0, 0)
		side.Max.Y = canvases[0][0].Max.Y - vg.Points(28)
		legend.Draw(side)
	})
}

// volumePlot returns an empty panel of Layercond: log x, volumes from 0.
func volumePlot() *plot.Plot {
	p := plot.New()
	p.X.Scale = plot.LogScale{}
	p.Y.Min = 0
	p.Y.Tick.Marker = shortTicks{}
	p.Add(plotter.NewGrid())
	return p
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

// powerOfTwoTicks marks the powers of two between lo and hi, which suit
// plane sizes and row lengths better than the decades of plot.LogTicks;
// where labelled, up to 65536 in full and above in binary multiples,
// 128Ki … 1Mi …, so that the labels of long rows stay short.
func powerOfTwoTicks(lo, hi float64, labelled bool) plot.ConstantTicks {
	var ticks plot.ConstantTicks
	for v := math.Exp2(math.Floor(math.Log2(lo))); v <= hi*1.0001; v *= 2 {
		if v < lo*0.9999 {
			continue
		}
		tick := plot.Tick{Value: v}
		switch {
		case !labelled:
		case v <= 1<<16:
			tick.Label = strconv.FormatFloat(v, 'f', -1, 64)
		case v < 1<<20:
			tick.Label = strconv.FormatFloat(v/(1<<10), 'f', -1, 64) + "Ki"
		default:
			tick.Label = strconv.FormatFloat(v/(1<<20), 'f', -1, 64) + "Mi"
		}
		ticks = append(ticks, tick)
	}
	return ticks
}
