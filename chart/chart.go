// Package chart draws the images of polyvol's reports — the hierarchical
// roofline and the occupancy of a prediction, the heat map, best
// configurations and spread of an exploration's ranking, the
// layer-condition curves — with gonum/plot as SVG or PNG.
package chart

import (
	"fmt"
	"io"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Size is an image's size in inches.
type Size struct{ Width, Height float64 }

// DefaultSize is the size of an image without --plot-size: 9 x 5.5 inches.
var DefaultSize = Size{Width: 9, Height: 5.5}

// The formats an image is written in.
const (
	formatSVG = "svg"
	formatPNG = "png"
)

// writeCanvas writes what paint draws on a canvas of the given size to w,
// in format: "svg" or "png".
func writeCanvas(w io.Writer, format string, size Size, paint func(draw.Canvas)) error {
	if format != formatSVG && format != formatPNG {
		return fmt.Errorf("image format %q: expected %s or %s", format, formatSVG, formatPNG)
	}
	c, err := draw.NewFormattedCanvas(vg.Length(size.Width)*vg.Inch, vg.Length(size.Height)*vg.Inch, format)
	if err != nil {
		return err
	}
	paint(draw.New(c))
	_, err = c.WriteTo(w)
	return err
}
