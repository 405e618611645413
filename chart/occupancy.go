package chart

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"strconv"

	"github.com/polyvol/polyvol/device"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Resources are what a launch asks of an SM: the threads per block, the
// registers per thread and the shared memory per block.
type Resources struct {
	Threads     int
	Registers   int
	SharedBytes int64
}

// occupancyPanel is one of the occupancy chart's curves: the blocks per SM
// against one resource, the others held at the launch's.
type occupancyPanel struct {
	Resource string    // the varied resource's axis label
	Unit     string    // the unit of its values
	Samples  []float64 // its values, ascending
	Blocks   []int     // the blocks per SM at each value
	Limiters []device.Limiter
	Launch   float64 // the launch's value
}

// occupancyPanels returns the curves of launch r on dev: blocks per SM
// against the threads per block (every warp multiple up to the device's
// maximum), the registers per thread (1 to the maximum) and the shared
// memory per block (every allocation unit up to the maximum), as the CUDA
// occupancy calculator draws them; 0 where no block fits.
func occupancyPanels(dev *device.Device, r Resources) ([]occupancyPanel, error) {
	lim := dev.Limits
	panels := []occupancyPanel{
		{Resource: "threads per block", Unit: "threads", Launch: float64(r.Threads)},
		{Resource: "registers per thread", Unit: "registers", Launch: float64(r.Registers)},
		{Resource: "shared memory per block (KiB)", Unit: "KiB", Launch: float64(r.SharedBytes) / 1024},
	}
	add := func(p *occupancyPanel, x float64, at Resources) error {
		occ, err := dev.Occupancy(at.Threads, at.Registers, at.SharedBytes)
		var noFit *device.NoFitError
		if errors.As(err, &noFit) {
			occ, err = device.Occupancy{Limiter: noFit.Limiter}, nil // no block fits: 0
		}
		if err != nil {
			return err
		}
		p.Samples, p.Blocks, p.Limiters = append(p.Samples, x), append(p.Blocks, occ.BlocksPerSM), append(p.Limiters, occ.Limiter)
		return nil
	}
	if _, err := dev.Occupancy(r.Threads, r.Registers, r.SharedBytes); err != nil {
		return nil, err
	}
	for t := dev.WarpSize; t <= lim.MaxThreadsPerBlock; t += dev.WarpSize {
		if err := add(&panels[0], float64(t), Resources{t, r.Registers, r.SharedBytes}); err != nil {
			return nil, err
		}
	}
	for n := 1; n <= lim.MaxRegistersPerThread; n++ {
		if err := add(&panels[1], float64(n), Resources{r.Threads, n, r.SharedBytes}); err != nil {
			return nil, err
		}
	}
	for s := int64(0); s <= lim.SharedPerBlock; s += lim.SharedAllocUnit {
		if err := add(&panels[2], float64(s)/1024, Resources{r.Threads, r.Registers, s}); err != nil {
			return nil, err
		}
	}
	return panels, nil
}

// occupancyColors are the colours of the limiters, indexed by
// device.Limiter.
var occupancyColors = []color.Color{
	color.RGBA{0x5b, 0x64, 0x75, 0xff}, // warps
	color.RGBA{0x6b, 0x5c, 0xa5, 0xff}, // threads
	color.RGBA{0x3c, 0x9d, 0xbd, 0xff}, // blocks
	color.RGBA{0xd9, 0x82, 0x2b, 0xff}, // registers
	color.RGBA{0x2e, 0x8b, 0x57, 0xff}, // shared memory
}

// plot returns the panel's plot: its curve, coloured by the limiter of
// each stretch, and the launch marked.
func (op occupancyPanel) plot(maxBlocks int) (*plot.Plot, error) {
	p := plot.New()
	p.Add(plotter.NewGrid())
	for start := 0; start < len(op.Samples); {
		end := start + 1
		for end < len(op.Samples) && op.Limiters[end] == op.Limiters[start] {
			end++
		}
		// A step curve: each value holds until the next one.
		var xys plotter.XYs
		for i := start; i < end; i++ {
			xys = append(xys, plotter.XY{X: op.Samples[i], Y: float64(op.Blocks[i])})
			if i+1 < len(op.Samples) {
				xys = append(xys, plotter.XY{X: op.Samples[i+1], Y: float64(op.Blocks[i])})
			}
		}
		line, err := plotter.NewLine(xys)
		if err != nil {
			return nil, err
		}
		line.Color, line.Width = occupancyColors[op.Limiters[start]], vg.Points(2)
		p.Add(line)
		start = end
	}
	at := 0
	for i, x := range op.Samples {
		if x <= op.Launch {
			at = i
		}
	}
	mark, err := plotter.NewLine(plotter.XYs{{X: op.Launch, Y: 0}, {X: op.Launch, Y: float64(maxBlocks) * 1.05}})
	if err != nil {
		return nil, err
	}
	mark.Color, mark.Dashes = color.RGBA{0xb3, 0x26, 0x1e, 0xff}, []vg.Length{vg.Points(4), vg.Points(3)}
	dot, err := plotter.NewScatter(plotter.XYs{{X: op.Launch, Y: float64(op.Blocks[at])}})
	if err != nil {
		return nil, err
	}
	dot.Shape, dot.Radius, dot.Color = draw.CircleGlyph{}, vg.Points(4), mark.Color
	p.Add(mark, dot)
	p.X.Label.Text, p.Y.Label.Text = op.Resource, "blocks per SM"
	p.X.Min, p.X.Max = 0, op.Samples[len(op.Samples)-1]
	p.Y.Min, p.Y.Max = 0, float64(maxBlocks)*1.05
	p.Title.Text = fmt.Sprintf("the launch, %s %s: %d blocks per SM", strconv.FormatFloat(op.Launch, 'g', 4, 64), op.Unit, op.Blocks[at])
	smallAxes(p)
	return p, nil
}

// Occupancy draws to w in format ("svg" or "png") the blocks per SM of dev
// that a launch of resources r gets, as the CUDA occupancy calculator
// draws them: against the threads per block, the registers per thread and
// the shared memory per block, each with the other two at the launch's,
// coloured by the resource that limits, the launch marked. The title names
// the launch, say the kernel's and its block.
func Occupancy(w io.Writer, format string, size Size, dev *device.Device, r Resources, title string) error {
	panels, err := occupancyPanels(dev, r)
	if err != nil {
		return err
	}
	occ, err := dev.Occupancy(r.Threads, r.Registers, r.SharedBytes)
	if err != nil {
		return err
	}
	plots := make([][]*plot.Plot, 1)
	for _, op := range panels {
		p, err := op.plot(dev.Limits.MaxBlocksPerSM)
		if err != nil {
			return err
		}
		plots[0] = append(plots[0], p)
	}
	head := fmt.Sprintf("Occupancy of %s on %s: %d threads, %d registers per thread, %d B shared memory per block", title, dev.Name, r.Threads, r.Registers, r.SharedBytes)
	result := fmt.Sprintf("%d blocks per SM, %d of %d warps (%.0f %%), limited by %s", occ.BlocksPerSM, occ.WarpsPerSM, dev.Limits.MaxWarpsPerSM, 100*occ.Fraction, occ.Limiter)
	return writeCanvas(w, format, size, func(dc draw.Canvas) {
		style := text.Style{Color: color.Black, Font: font.From(plot.DefaultFont, vg.Points(10)), Handler: plot.DefaultTextHandler, XAlign: draw.XCenter}
		mid := (dc.Min.X + dc.Max.X) / 2
		dc.FillText(style, vg.Point{X: mid, Y: dc.Max.Y - vg.Points(14)}, head)
		dc.FillText(style, vg.Point{X: mid, Y: dc.Max.Y - vg.Points(27)}, result)
		key := draw.Crop(dc, vg.Points(8), 0, 0, -vg.Points(36))
		drawKey(key, "limiter:", len(occupancyColors), func(i int) (string, color.Color) {
			return device.Limiter(i).String(), occupancyColors[i]
		})
		tiles := draw.Tiles{Rows: 1, Cols: len(panels), PadX: vg.Points(12)}
		body := draw.Crop(dc, vg.Points(4), -vg.Points(8), vg.Points(4), -vg.Points(54))
		canvases := plot.Align(plots, tiles, body)
		for i, p := range plots[0] {
			p.Draw(canvases[0][i])
		}
	})
}

// drawKey writes a key of n coloured boxes and names along the top of c,
// after a heading; entry returns the name and colour of the i-th.
func drawKey(c draw.Canvas, heading string, n int, entry func(i int) (string, color.Color)) {
	sty := text.Style{Color: color.Black, Font: font.From(plot.DefaultFont, vg.Points(8)), Handler: plot.DefaultTextHandler, YAlign: draw.YTop}
	x, y := c.Min.X, c.Max.Y
	c.FillText(sty, vg.Point{X: x, Y: y}, heading)
	x += sty.Width(heading + " ")
	for i := range n {
		name, col := entry(i)
		box := vg.Rectangle{Min: vg.Point{X: x, Y: y - vg.Points(8)}, Max: vg.Point{X: x + vg.Points(8), Y: y}}
		c.FillPolygon(col, corners(box))
		c.FillText(sty, vg.Point{X: x + vg.Points(10), Y: y}, name)
		x += vg.Points(16) + sty.Width(name)
	}
}
