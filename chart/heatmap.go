package chart

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"slices"
	"strconv"

	"github.com/polyvol/polyvol/request"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// heatMap is the ranking of an exploration as HeatMap draws it and
// as the web calculator does: per variant (fold, tiling and staging) and
// block z a panel of block x across and block y up, each cell a
// configuration coloured by its GLup/s on the scale of the whole
// exploration.
type heatMap struct {
	Xs, Ys, Zs []int64 // the block sizes of all configurations, ascending
	Lo, Hi     float64 // the slowest and fastest GLup/s ranked
	// Rows are the variants, ordered by their best configuration: the
	// exploration's best first.
	Rows []heatRow
}

// heatRow is one variant's configurations.
type heatRow struct {
	Variant         string
	Ranked, Skipped int
	Cells           []heatCell
}

// heatCell is one configuration: ranked (Rank from 1, the best) or skipped.
type heatCell struct {
	Block [3]int64
	Rank  int // 0: skipped
	GLups float64
}

// heatMapOf collects the heat map of e.
func heatMapOf(e *request.Exploration) heatMap {
	var m heatMap
	row := map[string]int{}
	add := func(variant string, c heatCell) {
		i, ok := row[variant]
		if !ok {
			i = len(m.Rows)
			row[variant] = i
			m.Rows = append(m.Rows, heatRow{Variant: variant})
		}
		r := &m.Rows[i]
		r.Cells = append(r.Cells, c)
		if c.Rank > 0 {
			r.Ranked++
		} else {
			r.Skipped++
		}
		for k, set := range []*[]int64{&m.Xs, &m.Ys, &m.Zs} {
			if !slices.Contains(*set, c.Block[k]) {
				*set = append(*set, c.Block[k])
			}
		}
	}
	for i, r := range e.Rows {
		l := r.Launch
		add(variantText(l.Fold, l.Tiling.String(), l.Unstaged, l.Steps), heatCell{Block: l.Block, Rank: i + 1, GLups: r.Prediction.GLups})
		if i == 0 || r.Prediction.GLups < m.Lo {
			m.Lo = r.Prediction.GLups
		}
		m.Hi = max(m.Hi, r.Prediction.GLups)
	}
	for _, s := range e.Skipped {
		add(variantText(s.Fold, s.Tiling.String(), s.Unstaged, s.Steps), heatCell{Block: s.Block})
	}
	slices.Sort(m.Xs)
	slices.Sort(m.Ys)
	slices.Sort(m.Zs)
	return m
}

// variantText names a fold, tiling, staging choice and time steps per
// launch (0: a kernel without a state) as the web page does:
// "fold 1,1,2 strided unstaged", "fold 2,2,1 strided steps 4".
func variantText(fold [3]int64, tiling string, unstaged bool, steps int64) string {
	s := "fold " + request.Triple(fold) + " " + tiling
	if unstaged {
		s += " unstaged"
	}
	if steps != 0 {
		s += " steps " + strconv.FormatInt(steps, 10)
	}
	return s
}

// viridisStops are the viridis colour map, a perceptually even scale
// readable in grey too, as on the web page.
var viridisStops = []color.RGBA{
	{0x44, 0x01, 0x54, 0xff}, {0x47, 0x2d, 0x7b, 0xff}, {0x3b, 0x52, 0x8b, 0xff},
	{0x2c, 0x72, 0x8e, 0xff}, {0x21, 0x91, 0x8c, 0xff}, {0x28, 0xae, 0x80, 0xff},
	{0x5e, 0xc9, 0x62, 0xff}, {0xad, 0xdc, 0x30, 0xff}, {0xfd, 0xe7, 0x25, 0xff},
}

// viridis returns the colour of t in [0, 1] (clamped).
func viridis(t float64) color.RGBA {
	u := max(0, min(1, t)) * float64(len(viridisStops)-1)
	i := min(len(viridisStops)-2, int(u))
	f := u - float64(i)
	a, b := viridisStops[i], viridisStops[i+1]
	mix := func(x, y uint8) uint8 { return uint8(float64(x)*(1-f) + float64(y)*f + 0.5) }
	return color.RGBA{mix(a.R, b.R), mix(a.G, b.G), mix(a.B, b.B), 0xff}
}

// color returns the colour of a ranked configuration's GLup/s.
func (m heatMap) color(glups float64) color.Color {
	if m.Hi > m.Lo {
		return viridis((glups - m.Lo) / (m.Hi - m.Lo))
	}
	return viridis(1)
}

// Colours of the cells that are no ranked configuration.
var (
	heatBackground = color.RGBA{0xee, 0xf0, 0xf4, 0xff} // not a shape of the sweep
	hatchColor     = color.RGBA{0x8a, 0x93, 0xa3, 0xff} // a skipped configuration
)

// heatPanel is the plotter of one panel: the cells of one row at block z.
type heatPanel struct {
	m     *heatMap
	cells []heatCell
}

// Plot draws the panel's cells, skipped ones hatched and the best ringed.
func (hp heatPanel) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	rect := func(b [3]int64) vg.Rectangle {
		i, j := float64(slices.Index(hp.m.Xs, b[0])), float64(slices.Index(hp.m.Ys, b[1]))
		return vg.Rectangle{Min: vg.Point{X: trX(i - 0.5), Y: trY(j - 0.5)}, Max: vg.Point{X: trX(i + 0.5), Y: trY(j + 0.5)}}
	}
	c.FillPolygon(heatBackground, corners(vg.Rectangle{
		Min: vg.Point{X: trX(-0.5), Y: trY(-0.5)},
		Max: vg.Point{X: trX(float64(len(hp.m.Xs)) - 0.5), Y: trY(float64(len(hp.m.Ys)) - 0.5)}}))
	for _, cell := range hp.cells {
		r := rect(cell.Block)
		if cell.Rank == 0 {
			hatch(c, r)
			continue
		}
		c.FillPolygon(hp.m.color(cell.GLups), corners(r))
		if cell.Rank == 1 {
			ring := draw.LineStyle{Color: color.Black, Width: vg.Points(2)}
			grow := vg.Points(1)
			c.StrokeLines(ring, append(corners(vg.Rectangle{Min: r.Min.Sub(vg.Point{X: grow, Y: grow}), Max: r.Max.Add(vg.Point{X: grow, Y: grow})}), r.Min.Sub(vg.Point{X: grow, Y: grow})))
			c.DrawGlyph(draw.GlyphStyle{Color: color.White, Radius: min(r.Size().X, r.Size().Y) / 4, Shape: draw.PyramidGlyph{}}, r.Min.Add(r.Max).Scale(0.5))
		}
	}
}

// corners returns the corners of r, counter-clockwise from its minimum.
func corners(r vg.Rectangle) []vg.Point {
	return []vg.Point{r.Min, {X: r.Max.X, Y: r.Min.Y}, r.Max, {X: r.Min.X, Y: r.Max.Y}}
}

// hatch fills r white with diagonal lines, the mark of a skipped
// configuration.
func hatch(c draw.Canvas, r vg.Rectangle) {
	c.FillPolygon(color.White, corners(r))
	style := draw.LineStyle{Color: hatchColor, Width: vg.Points(0.8)}
	w, h := r.Size().X, r.Size().Y
	step := vg.Points(3)
	// The lines x - y = d in the cell's coordinates, clipped to it.
	for d := -h + step/2; d < w; d += step {
		x0, x1 := max(0, d), min(w, h+d)
		c.StrokeLine2(style, r.Min.X+x0, r.Min.Y+x0-d, r.Min.X+x1, r.Min.Y+x1-d)
	}
	c.StrokeLines(style, append(corners(r), r.Min))
}

// indexTicks labels the indices of sizes with the sizes, every other one
// where there are more than six.
func indexTicks(sizes []int64, labelled bool) plot.ConstantTicks {
	ticks := make(plot.ConstantTicks, len(sizes))
	for i, s := range sizes {
		ticks[i].Value = float64(i)
		if labelled && (len(sizes) <= 6 || i%2 == 0) {
			ticks[i].Label = strconv.FormatInt(s, 10)
		}
	}
	return ticks
}

// heatPlot returns the panel of row at block z; the tick labels and axis
// names only at the left column and the bottom row.
func (m *heatMap) heatPlot(row heatRow, z int64, left, bottom bool) *plot.Plot {
	p := plot.New()
	p.Title.Text = "z = " + strconv.FormatInt(z, 10)
	p.Title.TextStyle.Font.Size = vg.Points(8)
	var cells []heatCell
	for _, c := range row.Cells {
		if c.Block[2] == z {
			cells = append(cells, c)
		}
	}
	p.Add(heatPanel{m: m, cells: cells})
	p.X.Min, p.X.Max = -0.5, float64(len(m.Xs))-0.5
	p.Y.Min, p.Y.Max = -0.5, float64(len(m.Ys))-0.5
	p.X.Tick.Marker, p.Y.Tick.Marker = indexTicks(m.Xs, bottom), indexTicks(m.Ys, left)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Tick.Label.Font.Size = vg.Points(6)
		a.Label.TextStyle.Font.Size = vg.Points(7)
		a.Padding = vg.Points(1)
	}
	if bottom {
		p.X.Label.Text = "block x"
	}
	if left {
		p.Y.Label.Text = "block y"
	}
	return p
}

// HeatMap draws the ranking of exploration e to w in format ("svg" or
// "png"): one row of panels per variant (fold, tiling and staging) and one
// column per block z, each cell a configuration coloured by its GLup/s,
// under a title and above the colour scale.
func HeatMap(w io.Writer, format string, size Size, e *request.Exploration) error {
	if len(e.Rows) == 0 {
		return errors.New("the exploration ranks no configuration to draw")
	}
	m := heatMapOf(e)
	plots := make([][]*plot.Plot, len(m.Rows))
	for i, row := range m.Rows {
		plots[i] = make([]*plot.Plot, len(m.Zs))
		for j, z := range m.Zs {
			plots[i][j] = m.heatPlot(row, z, j == 0, i == len(m.Rows)-1)
		}
	}
	best := e.Rows[0]
	title := fmt.Sprintf("%s on %s, %s threads per block: predicted GLup/s of %d ranked configurations",
		e.Kernel, e.Device, request.ThreadsText(e.Threads), len(e.Rows))
	key := fmt.Sprintf("ringed: the best, block %s %s, %s GLup/s; hatched: skipped; light grey: not a shape of the sweep",
		request.Triple(best.Launch.Block), variantText(best.Launch.Fold, best.Launch.Tiling.String(), best.Launch.Unstaged, best.Launch.Steps), strconv.FormatFloat(best.Prediction.GLups, 'f', 2, 64))
	return writeCanvas(w, format, size, func(dc draw.Canvas) {
		style := text.Style{Color: color.Black, Font: font.From(plot.DefaultFont, vg.Points(10)), Handler: plot.DefaultTextHandler, XAlign: draw.XCenter}
		mid := (dc.Min.X + dc.Max.X) / 2
		dc.FillText(style, vg.Point{X: mid, Y: dc.Max.Y - vg.Points(14)}, title)
		style.Font.Size = vg.Points(8)
		dc.FillText(style, vg.Point{X: mid, Y: dc.Max.Y - vg.Points(26)}, key)
		scale := draw.Crop(dc, vg.Points(40), -vg.Points(40), 0, 0)
		scale.Max.Y = scale.Min.Y + vg.Points(36)
		m.drawScale(scale)
		header := vg.Points(12)
		panels := draw.Crop(dc, vg.Points(4), -vg.Points(4), vg.Points(44), -vg.Points(32))
		tiles := draw.Tiles{Rows: len(m.Rows), Cols: len(m.Zs), PadX: vg.Points(4), PadY: header, PadTop: header}
		canvases := plot.Align(plots, tiles, panels)
		style.XAlign = draw.XLeft
		for i, row := range m.Rows {
			at := canvases[i][0]
			text := fmt.Sprintf("%s: %d ranked", row.Variant, row.Ranked)
			if row.Skipped > 0 {
				text += fmt.Sprintf(", %d skipped", row.Skipped)
			}
			panels.FillText(style, vg.Point{X: at.Min.X, Y: at.Max.Y + vg.Points(3)}, text)
			for j := range m.Zs {
				plots[i][j].Draw(canvases[i][j])
			}
		}
	})
}

// drawScale draws the colour scale from the slowest to the fastest ranked
// configuration on c, labelled at both ends and the middle.
func (m heatMap) drawScale(c draw.Canvas) {
	const steps = 60
	bar := c.Rectangle
	bar.Min.Y = bar.Max.Y - vg.Points(10)
	w := bar.Size().X
	for i := range steps {
		x0 := bar.Min.X + w*vg.Length(i)/steps
		x1 := bar.Min.X + w*vg.Length(i+1)/steps
		c.FillPolygon(m.color(m.Lo+(m.Hi-m.Lo)*(float64(i)+0.5)/steps), corners(vg.Rectangle{Min: vg.Point{X: x0, Y: bar.Min.Y}, Max: vg.Point{X: x1 + vg.Points(0.3), Y: bar.Max.Y}}))
	}
	style := text.Style{Color: color.Black, Font: font.From(plot.DefaultFont, vg.Points(8)), Handler: plot.DefaultTextHandler, YAlign: draw.YTop}
	for _, f := range []float64{0, 0.5, 1} {
		style.XAlign = draw.XAlignment(-f)
		c.FillText(style, vg.Point{X: bar.Min.X + w*vg.Length(f), Y: bar.Min.Y - vg.Points(2)}, strconv.FormatFloat(m.Lo+(m.Hi-m.Lo)*f, 'f', 2, 64))
	}
	style.XAlign = draw.XCenter
	c.FillText(style, vg.Point{X: bar.Min.X + w/2, Y: bar.Min.Y - vg.Points(13)}, "GLup/s")
}
