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

// BoundaryLabel is Layercond's legend entry of the points with fewer than
// three block layers in z, where the representative wave may sit in a
// partial block layer (docs/layercond.md).
const BoundaryLabel = "boundary case: fewer than 3 block layers in z"

// Layercond draws the DRAM load volume memLoadV3 of rep against the plane
// size s to w in format ("svg" or "png"): one curve per block, each
// block's z transition (the engine's O_ov = 1) and the points of fewer
// than three block layers in z (boundary cases, see docs/layercond.md)
// marked, and the sequential z-layer condition as a dashed vertical line
// below the legend.
func Layercond(w io.Writer, format string, size Size, rep *request.LayercondReport) error {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s on %s, method %s: DRAM load volume", rep.Kernel, rep.Device, rep.Method)
	p.Title.Padding = vg.Points(6)
	p.X.Label.Text = fmt.Sprintf("XY plane size s (domain s x s x z, z = %s / s^2)", layercond.TotalText(rep.Total))
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
		label := "block " + request.Triple(r.Block)
		if r.Fold != kernel.NoFold {
			label += " fold " + request.Triple(r.Fold)
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
		{boundary, draw.CrossGlyph{}, BoundaryLabel},
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
	return writePlot(w, format, size, p)
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
