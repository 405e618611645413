package cli

// Shared output helpers: the --format flag, JSON, CSV and aligned tables.

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/polyvol/polyvol/model"
	"github.com/polyvol/polyvol/request"
	ucli "github.com/urfave/cli/v2"
)

// Output formats of the --format flag.
const (
	formatTable = "table"
	formatJSON  = "json"
	formatCSV   = "csv"
)

// formatFlag is a --format flag accepting the given formats, the first being
// the default.
func formatFlag(formats ...string) ucli.Flag {
	usage := "output `FORMAT`: " + strings.Join(formats, ", ")
	return &choiceFlag{&ucli.StringFlag{Name: "format", Value: formats[0], Usage: usage}, formats}
}

// outputFormat returns the validated --format value of c; allowed must match
// the formats given to formatFlag.
func outputFormat(c *ucli.Context, allowed ...string) (string, error) {
	return request.ParseChoice("format", c.String("format"), allowed...)
}

// csvHeader names the columns of csvRecord: the configuration (with the
// tiling and the registers per thread), the main volumes (B/Lup), L1 cycles
// per Lup, the five limiters (GLup/s; perfFlops is empty for a kernel
// without flops, perfIssue for a kernel without an instruction count), the
// prediction and the time steps per launch of a kernel with a state (empty
// for one without; last, so that the columns before keep their places).
var csvHeader = []string{
	"kernel", "device", "method", "model", "block", "fold", "tiling", "domain",
	"registers", "blocksPerSM", "blocksPerWave",
	"L1Load", "L2LoadV2", "L2Store", "memLoadV3", "memStoreV2", "L1Cycles",
	"perfFlops", "perfIssue", "perfL1", "perfL2V2", "perfMemV3", "GLups", "limiter", "steps",
}

// csvRecord returns the csvHeader columns of r, whose kernel has registers
// registers per thread, numbers at full precision.
func csvRecord(r *model.Report, registers int) []string {
	d, l := r.Derived, r.Launch
	flops, issue, steps := "", "", ""
	if d.PerfFlops != nil {
		flops = num(*d.PerfFlops)
	}
	if d.PerfIssue != nil {
		issue = num(*d.PerfIssue)
	}
	if l.Steps != 0 {
		steps = strconv.FormatInt(l.Steps, 10)
	}
	return []string{
		r.Kernel, r.Device, r.Method, string(r.Prediction.Model), dims(l.Block), dims(l.Fold), l.Tiling.String(), dims(l.Domain),
		strconv.Itoa(registers), strconv.FormatInt(l.BlocksPerSM, 10), strconv.FormatInt(l.BlocksPerWave, 10),
		num(d.L1Load), num(d.L2LoadV2), num(d.L2Store), num(d.MemLoadV3), num(d.MemStoreV2), num(d.L1CyclesPerLup),
		flops, issue, num(d.PerfL1), num(d.PerfL2V2), num(d.PerfMemV3), num(r.Prediction.GLups), r.Prediction.Limiter, steps,
	}
}

// writeCSV writes the records with encoding/csv.
func writeCSV(w io.Writer, records [][]string) error {
	cw := csv.NewWriter(w)
	if err := cw.WriteAll(records); err != nil {
		return err
	}
	return cw.Error()
}

// numDigits is the significant digits of the numbers in CSV and device
// tables: more than any input or constant of the models has (a bandwidth
// or a clock has 3 to 4), few enough to hide the float noise of sums
// (205.99999999999997 is 206). JSON keeps full precision.
const numDigits = 6

// num formats v for CSV and tables: an integer below 10^15 exactly,
// anything else to numDigits significant digits.
func num(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return strconv.FormatFloat(v, 'g', numDigits, 64)
}

// fixed formats v with prec decimals for tables.
func fixed(v float64, prec int) string { return strconv.FormatFloat(v, 'f', prec, 64) }

// dims formats a block, fold or domain as "XxYxZ".
func dims(t [3]int64) string { return fmt.Sprintf("%dx%dx%d", t[0], t[1], t[2]) }

// writeTable writes rows aligned in columns with text/tabwriter: the first
// column (labels) left-aligned, the others (numbers) right-aligned. An empty
// row is a blank line, which starts a new block of columns.
func writeTable(w io.Writer, rows [][]string) error { return writeColumns(w, rows, 1) }

// writeColumns is writeTable with the first left columns left-aligned.
func writeColumns(w io.Writer, rows [][]string, left int) error {
	width := make([]int, left)
	for _, r := range rows {
		for i := range min(left, len(r)) {
			width[i] = max(width[i], utf8.RuneCountInString(r[i]))
		}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	for _, r := range rows {
		var line strings.Builder
		for i, c := range r {
			if i < left {
				c = fmt.Sprintf("%-*s", width[i], c) // fmt pads by runes
			}
			line.WriteString(c + "\t") // AlignRight needs terminated cells
		}
		fmt.Fprintln(tw, line.String())
	}
	return tw.Flush()
}
