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
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// ranking is an exploration as HeatMap draws it: a heat map of the
// best-ranked configuration of each block x and y (over block z, fold,
// tiling, staging and time steps), the top configurations as bars, and the
// spread of all of them in rank order (explore.Rank puts the
// configurations with many idle threads last, whatever their GLup/s).
type ranking struct {
	Xs, Ys []int64 // the block x and y of all configurations, ascending
	Lo, Hi float64 // the slowest and fastest GLup/s ranked
	// Cells are the best-ranked configuration of each block x and y, and
	// the block x and y of which every configuration was skipped.
	Cells []rankCell
	// Ranked are all ranked configurations, best first.
	Ranked []rankedConfig
	// Limiters are the limiters of the ranked configurations, in the
	// order of their best configuration.
	Limiters []string
	Skipped  int
}

// rankCell is a block x and y: its best-ranked configuration (Rank from
// 1, the exploration's best), or Rank 0 where all were skipped.
type rankCell struct {
	X, Y  int64
	Rank  int
	GLups float64
}

// rankedConfig is one ranked configuration.
type rankedConfig struct {
	Block   [3]int64
	Variant string
	GLups   float64
	Limiter string
}

// topBars is how many of the best configurations get a bar.
const topBars = 12

// rankingOf collects the ranking of e.
func rankingOf(e *request.Exploration) ranking {
	var m ranking
	cell := map[[2]int64]int{}
	addSize := func(b [3]int64) {
		for k, set := range []*[]int64{&m.Xs, &m.Ys} {
			if !slices.Contains(*set, b[k]) {
				*set = append(*set, b[k])
			}
		}
	}
	for i, r := range e.Rows {
		l := r.Launch
		c := rankedConfig{Block: l.Block, Variant: variantText(l.Fold, l.Tiling.String(), l.Unstaged, l.Steps), GLups: r.Prediction.GLups, Limiter: r.Prediction.Limiter}
		m.Ranked = append(m.Ranked, c)
		if !slices.Contains(m.Limiters, c.Limiter) {
			m.Limiters = append(m.Limiters, c.Limiter)
		}
		if i == 0 || c.GLups < m.Lo {
			m.Lo = c.GLups
		}
		m.Hi = max(m.Hi, c.GLups)
		addSize(l.Block)
		xy := [2]int64{l.Block[0], l.Block[1]}
		if _, ok := cell[xy]; !ok { // the rows come best first
			cell[xy] = len(m.Cells)
			m.Cells = append(m.Cells, rankCell{X: xy[0], Y: xy[1], Rank: i + 1, GLups: c.GLups})
		}
	}
	for _, s := range e.Skipped {
		addSize(s.Block)
		xy := [2]int64{s.Block[0], s.Block[1]}
		if _, ok := cell[xy]; !ok {
			cell[xy] = len(m.Cells)
			m.Cells = append(m.Cells, rankCell{X: xy[0], Y: xy[1]})
		}
	}
	m.Skipped = len(e.Skipped)
	slices.Sort(m.Xs)
	slices.Sort(m.Ys)
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
func (m ranking) color(glups float64) color.Color {
	if m.Hi > m.Lo {
		return viridis((glups - m.Lo) / (m.Hi - m.Lo))
	}
	return viridis(1)
}

// limiterColor returns the colour of limiter: a memory level's as in the
// roofline, else one of the flat ceilings' colours, by its place among the
// ranking's limiters that are no memory level.
func (m ranking) limiterColor(limiter string) color.Color {
	if c, ok := levelColors[limiter]; ok {
		return c
	}
	i := 0
	for _, l := range m.Limiters {
		if l == limiter {
			break
		}
		if _, ok := levelColors[l]; !ok {
			i++
		}
	}
	return flatStyles[i%len(flatStyles)].color
}

// Colours of the cells that are no ranked configuration.
var (
	heatBackground = color.RGBA{0xee, 0xf0, 0xf4, 0xff} // not a shape of the sweep
	hatchColor     = color.RGBA{0x8a, 0x93, 0xa3, 0xff} // a skipped configuration
)

// heatCells is the plotter of the heat map: a cell per block x and y,
// coloured and labelled with its best GLup/s, hatched where all were
// skipped, the exploration's best ringed.
type heatCells struct{ m *ranking }

// Plot draws the cells.
func (hc heatCells) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	m := hc.m
	var ring *vg.Rectangle // the best's
	c.FillPolygon(heatBackground, corners(vg.Rectangle{
		Min: vg.Point{X: trX(-0.5), Y: trY(-0.5)},
		Max: vg.Point{X: trX(float64(len(m.Xs)) - 0.5), Y: trY(float64(len(m.Ys)) - 0.5)}}))
	for _, cell := range m.Cells {
		i, j := float64(slices.Index(m.Xs, cell.X)), float64(slices.Index(m.Ys, cell.Y))
		r := vg.Rectangle{Min: vg.Point{X: trX(i - 0.5), Y: trY(j - 0.5)}, Max: vg.Point{X: trX(i + 0.5), Y: trY(j + 0.5)}}
		if cell.Rank == 0 {
			hatch(c, r)
			continue
		}
		c.FillPolygon(m.color(cell.GLups), corners(r))
		c.StrokeLines(draw.LineStyle{Color: color.White, Width: vg.Points(0.5)}, append(corners(r), r.Min))
		if cell.Rank == 1 {
			grow := vg.Point{X: vg.Points(1), Y: vg.Points(1)}
			ring = &vg.Rectangle{Min: r.Min.Sub(grow), Max: r.Max.Add(grow)}
		}
		label := sig(cell.GLups)
		sty := text.Style{Color: color.White, Font: font.From(plot.DefaultFont, min(vg.Points(8), r.Size().Y*0.45)), Handler: plot.DefaultTextHandler, XAlign: draw.XCenter, YAlign: draw.YCenter}
		if m.Hi > m.Lo && (cell.GLups-m.Lo)/(m.Hi-m.Lo) > 0.6 {
			sty.Color = color.Black // on the light end of the scale
		}
		if sty.Width(label) < r.Size().X-vg.Points(2) {
			c.FillText(sty, r.Min.Add(r.Max).Scale(0.5), label)
		}
	}
	if ring != nil { // over the cells around it
		c.StrokeLines(draw.LineStyle{Color: color.RGBA{0xe4, 0x00, 0x2b, 0xff}, Width: vg.Points(2)}, append(corners(*ring), ring.Min))
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

// indexTicks labels the indices of sizes with the sizes.
func indexTicks(sizes []int64) plot.ConstantTicks {
	ticks := make(plot.ConstantTicks, len(sizes))
	for i, s := range sizes {
		ticks[i] = plot.Tick{Value: float64(i), Label: strconv.FormatInt(s, 10)}
	}
	return ticks
}

// smallAxes sets the fonts of p's axes and title to the sizes of a panel.
func smallAxes(p *plot.Plot) {
	p.Title.TextStyle.Font.Size = vg.Points(9)
	p.Title.Padding = vg.Points(4)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Tick.Label.Font.Size = vg.Points(7)
		a.Label.TextStyle.Font.Size = vg.Points(8)
		a.Padding = vg.Points(1)
	}
}

// heatPlot returns the heat map of block x across and block y up.
func (m *ranking) heatPlot() *plot.Plot {
	p := plot.New()
	p.Title.Text = "GLup/s by block x and y (best-ranked z, fold, tiling)"
	p.Add(heatCells{m: m})
	p.X.Min, p.X.Max = -0.5, float64(len(m.Xs))-0.5
	p.Y.Min, p.Y.Max = -0.5, float64(len(m.Ys))-0.5
	p.X.Tick.Marker, p.Y.Tick.Marker = indexTicks(m.Xs), indexTicks(m.Ys)
	p.X.Label.Text, p.Y.Label.Text = "block x", "block y"
	smallAxes(p)
	return p
}

// rankBars is the plotter of the best configurations as horizontal bars,
// the best at the top, coloured by their limiter and labelled with their
// GLup/s.
type rankBars struct {
	m    *ranking
	bars []rankedConfig
}

// Plot draws the bars.
func (rb rankBars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	sty := text.Style{Color: color.Black, Font: font.From(plot.DefaultFont, vg.Points(7)), Handler: plot.DefaultTextHandler, YAlign: draw.YCenter}
	for i, b := range rb.bars {
		y := float64(len(rb.bars) - 1 - i)
		r := vg.Rectangle{Min: vg.Point{X: trX(0), Y: trY(y - 0.38)}, Max: vg.Point{X: trX(b.GLups), Y: trY(y + 0.38)}}
		c.FillPolygon(rb.m.limiterColor(b.Limiter), corners(r))
		c.FillText(sty, vg.Point{X: r.Max.X + vg.Points(2), Y: trY(y)}, sig(b.GLups))
	}
}

// barsPlot returns the bars of the best configurations, each named by its
// rank, block and variant.
func (m *ranking) barsPlot() *plot.Plot {
	bars := m.Ranked[:min(topBars, len(m.Ranked))]
	p := plot.New()
	p.Title.Text = fmt.Sprintf("the best %d configurations (GLup/s), coloured by limiter", len(bars))
	p.Add(rankBars{m: m, bars: bars})
	p.X.Min, p.X.Max = 0, m.Hi*1.15
	p.Y.Min, p.Y.Max = -0.5, float64(len(bars))-0.5
	ticks := make(plot.ConstantTicks, len(bars))
	for i, b := range bars {
		ticks[i] = plot.Tick{Value: float64(len(bars) - 1 - i), Label: fmt.Sprintf("%d. block %s %s", i+1, request.Triple(b.Block), b.Variant)}
	}
	p.Y.Tick.Marker = ticks
	p.X.Label.Text = "GLup/s"
	smallAxes(p)
	p.Y.Tick.Label.Font.Size = vg.Points(6.5)
	return p
}

// spreadPlot returns the GLup/s of all ranked configurations against their
// rank, each a dot coloured by its limiter.
func (m *ranking) spreadPlot() (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("all %d ranked configurations, in rank order", len(m.Ranked))
	for _, lim := range m.Limiters {
		var xys plotter.XYs
		for i, r := range m.Ranked {
			if r.Limiter == lim {
				xys = append(xys, plotter.XY{X: float64(i + 1), Y: r.GLups})
			}
		}
		sc, err := plotter.NewScatter(xys)
		if err != nil {
			return nil, err
		}
		sc.Shape, sc.Radius, sc.Color = draw.CircleGlyph{}, vg.Points(1.8), m.limiterColor(lim)
		p.Add(sc)
	}
	p.X.Min, p.X.Max = 0, float64(len(m.Ranked))+1
	p.Y.Min, p.Y.Max = 0, m.Hi*1.05
	p.X.Label.Text, p.Y.Label.Text = "rank", "GLup/s"
	smallAxes(p)
	return p, nil
}

// HeatMap draws the ranking of exploration e to w in format ("svg" or
// "png"): left, a heat map of block x across and block y up, each cell
// the best-ranked configuration of that x and y, coloured and labelled by
// its GLup/s, the exploration's best ringed; right, the best
// configurations as bars and every ranked configuration's GLup/s against
// its rank, coloured by limiter.
func HeatMap(w io.Writer, format string, size Size, e *request.Exploration) error {
	if len(e.Rows) == 0 {
		return errors.New("the exploration ranks no configuration to draw")
	}
	m := rankingOf(e)
	heat, bars := m.heatPlot(), m.barsPlot()
	spread, err := m.spreadPlot()
	if err != nil {
		return err
	}
	best := e.Rows[0]
	title := fmt.Sprintf("%s on %s, %s threads per block: %d configurations ranked", e.Kernel, e.Device, request.ThreadsText(e.Threads), len(e.Rows))
	if m.Skipped > 0 {
		title += fmt.Sprintf(", %d skipped", m.Skipped)
	}
	key := fmt.Sprintf("ringed: the best, block %s %s, %s GLup/s, limited by %s; hatched: every configuration skipped",
		request.Triple(best.Launch.Block), variantText(best.Launch.Fold, best.Launch.Tiling.String(), best.Launch.Unstaged, best.Launch.Steps),
		strconv.FormatFloat(best.Prediction.GLups, 'f', 2, 64), best.Prediction.Limiter)
	return writeCanvas(w, format, size, func(dc draw.Canvas) {
		style := text.Style{Color: color.Black, Font: font.From(plot.DefaultFont, vg.Points(10)), Handler: plot.DefaultTextHandler, XAlign: draw.XCenter}
		mid := (dc.Min.X + dc.Max.X) / 2
		dc.FillText(style, vg.Point{X: mid, Y: dc.Max.Y - vg.Points(14)}, title)
		style.Font.Size = vg.Points(8)
		dc.FillText(style, vg.Point{X: mid, Y: dc.Max.Y - vg.Points(26)}, key)
		body := draw.Crop(dc, vg.Points(4), -vg.Points(6), vg.Points(4), -vg.Points(34))
		split := body.Min.X + (body.Max.X-body.Min.X)*0.45
		left, right := body, body
		left.Max.X, right.Min.X = split-vg.Points(6), split+vg.Points(6)
		scale := left
		scale.Max.Y = scale.Min.Y + vg.Points(34)
		scale = draw.Crop(scale, vg.Points(40), -vg.Points(20), 0, 0)
		m.drawScale(scale)
		heat.Draw(draw.Crop(left, 0, 0, vg.Points(40), 0))
		drawKey(right, "limiter:", len(m.Limiters), func(i int) (string, color.Color) {
			return m.Limiters[i], m.limiterColor(m.Limiters[i])
		})
		lower := draw.Crop(right, 0, 0, 0, -vg.Points(14))
		cut := lower.Min.Y + (lower.Max.Y-lower.Min.Y)*0.36
		top, bottom := lower, lower
		top.Min.Y, bottom.Max.Y = cut+vg.Points(4), cut-vg.Points(4)
		bars.Draw(top)
		spread.Draw(bottom)
	})
}

// drawScale draws the colour scale from the slowest to the fastest ranked
// configuration on c, labelled at both ends and the middle.
func (m ranking) drawScale(c draw.Canvas) {
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
