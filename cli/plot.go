package cli

// The --plot and --plot-size flags of predict, explore and layercond, and
// predict's --plot-occupancy, which write the images of package chart to a
// file.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/polyvol/polyvol/chart"
	ucli "github.com/urfave/cli/v2"
)

// defaultPlotSize is the --plot-size default: chart.DefaultSize, "9x5.5".
var defaultPlotSize = fmt.Sprintf("%gx%g", chart.DefaultSize.Width, chart.DefaultSize.Height)

// plotFlag is the --plot flag of a command whose plot does what.
func plotFlag(what string) ucli.Flag {
	return &ucli.StringFlag{Name: "plot", Usage: what + " to `FILE` (.svg or .png)", TakesFile: true}
}

// plotSizeFlag returns the --plot-size flag of the commands with --plot.
func plotSizeFlag() ucli.Flag {
	return &ucli.StringFlag{Name: "plot-size", Value: defaultPlotSize, Usage: "size of the --plot image, `WxH` in inches"}
}

// plotFlags returns the --plot file, "" for none, and the --plot-size.
func plotFlags(c *ucli.Context) (string, chart.Size, error) {
	path, err := imageFlag(c, "plot")
	if err != nil {
		return "", chart.Size{}, err
	}
	size, err := parsePlotSize(c.String("plot-size"))
	return path, size, err
}

// imageFlag returns the image file of flag, "" for none, once its
// extension names an image format and its directory exists.
func imageFlag(c *ucli.Context, flag string) (string, error) {
	path := c.String(flag)
	if ext := plotFormat(path); path != "" && ext != "svg" && ext != "png" {
		return "", flagErrorf(flag, "--%s %q: expected a file name ending in .svg or .png", flag, path)
	}
	return path, checkOutputFlag(c, flag)
}

// parsePlotSize parses --plot-size WxH, inches between 2 and 100.
func parsePlotSize(v string) (chart.Size, error) {
	w, h, ok := strings.Cut(v, "x")
	width, errW := strconv.ParseFloat(w, 64)
	height, errH := strconv.ParseFloat(h, 64)
	if !ok || errW != nil || errH != nil || !(width >= 2 && width <= 100 && height >= 2 && height <= 100) {
		return chart.Size{}, flagErrorf("plot-size", "--plot-size %q: expected WIDTHxHEIGHT in inches, each from 2 to 100, e.g. %s", v, defaultPlotSize)
	}
	return chart.Size{Width: width, Height: height}, nil
}

// plotFormat returns the image format of a --plot file: its extension in
// lower case, without the dot.
func plotFormat(path string) string {
	return strings.TrimPrefix(strings.ToLower(filepath.Ext(path)), ".")
}

// writePlot writes the image of the --plot file path, as writeImage does.
func writePlot(path string, draw func(w io.Writer, format string) error) error {
	return writeImage("plot", path, draw)
}

// writeImage has draw draw the image in the format of the extension of the
// file path of flag and writes it to the file, which it creates, or
// truncates, only once the image is drawn.
func writeImage(flag, path string, draw func(w io.Writer, format string) error) error {
	var img bytes.Buffer
	if err := draw(&img, plotFormat(path)); err != nil {
		return imageError(flag, path, err)
	}
	if err := os.WriteFile(path, img.Bytes(), 0o666); err != nil {
		return imageError(flag, path, err)
	}
	return nil
}

// imageError is the error of the image file path of flag that could not
// be written: a usage error where the path is at fault (a missing
// directory, a directory, no permission).
func imageError(flag, path string, err error) error {
	if errors.As(err, new(*fs.PathError)) { // a missing directory, a directory, no permission
		return flagErrorf(flag, "--%s %s: %v", flag, path, err)
	}
	return fmt.Errorf("--%s %s: %w", flag, path, err)
}
