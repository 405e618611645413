package cli

// Registers per thread: the --registers flag of predict and explore, and
// explore's --registers-table, the registers of each compiled
// configuration as a code generator knows them after compiling it.

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/polyvol/polyvol/explore"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/request"
	ucli "github.com/urfave/cli/v2"
)

// registersFlag is the --registers flag of predict and explore.
func registersFlag() ucli.Flag {
	return &ucli.IntFlag{Name: "registers", DefaultText: "the spec's",
		Usage: "registers per thread `N` (1 to " + strconv.Itoa(explore.MaxRegisters) + "), replacing the spec's registers; they set the occupancy"}
}

// applyRegisters returns k with its registers per thread replaced by the
// --registers flag when it is set.
func applyRegisters(c *ucli.Context, k *kernel.Kernel) (*kernel.Kernel, error) {
	if !c.IsSet("registers") {
		return k, nil
	}
	return request.WithRegisters(k, c.Int("registers"))
}

// registersTable is a parsed --registers-table: the registers per thread of
// each configuration it lists, strided configurations that are the same
// launch as consecutive ones (explore.Configuration.Canonical) given as
// consecutive.
type registersTable struct {
	path      string
	entries   []request.RegistersEntry      // ordered by explore.CompareConfigurations
	lines     map[explore.Configuration]int // the line that gives each configuration
	registers map[explore.Configuration]int // the registers of each configuration
}

// lookup returns the registers per thread the table gives configuration c,
// or 0 when it does not list it (or t is nil).
func (t *registersTable) lookup(c explore.Configuration) int {
	if t == nil {
		return 0
	}
	return t.registers[tableKey(c)]
}

// tableKey returns the entry of a registers table that gives configuration
// c its registers: c canonical, without time steps, which the table does
// not name (its registers apply at every steps of a configuration).
func tableKey(c explore.Configuration) explore.Configuration {
	c = c.Canonical()
	c.Steps = 0
	return c
}

// maxRegistersTableBytes bounds the size of a --registers-table file: a
// line of about 40 bytes per configuration gives room for 25,000, more
// than a sweep holds (--max-configurations).
const maxRegistersTableBytes = 1 << 20

// The columns of a --registers-table file.
const (
	columnBlock     = "block"
	columnFold      = "fold"
	columnTiling    = "tiling"
	columnRegisters = "registers"
)

// registersTableHeader is the header of a --registers-table file.
var registersTableHeader = []string{columnBlock, columnFold, columnTiling, columnRegisters}

// readRegistersTable reads the --registers-table file at path: a regular
// file of at most maxRegistersTableBytes (parseRegistersTable).
func readRegistersTable(path string) (*registersTable, error) {
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return nil, flagErrorf("registers-table", "--registers-table: %v", err)
	case !fi.Mode().IsRegular():
		return nil, flagErrorf("registers-table", "--registers-table %s: not a regular file; the table is a CSV file with the header %s", path, strings.Join(registersTableHeader, ","))
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, flagErrorf("registers-table", "--registers-table: %v", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxRegistersTableBytes+1))
	if err != nil {
		return nil, flagErrorf("registers-table", "--registers-table %s: %v", path, err)
	}
	return parseRegistersTable(path, data)
}

// parseRegistersTable parses a --registers-table file named path: CSV with
// a header naming the columns block, fold and registers, and optionally
// tiling, in any order; then one configuration per line. Block and fold
// are triples as the flags take them ("256,1,2", quoted, or 256x1x2),
// tiling consecutive or strided, or empty or left out for both tilings,
// registers 1 to explore.MaxRegisters. Lines starting with # are comments.
// A configuration given twice, also through an entry for both tilings, is
// an error. Errors are usage errors that name the file and line.
func parseRegistersTable(path string, data []byte) (*registersTable, error) {
	if len(data) > maxRegistersTableBytes {
		return nil, flagErrorf("registers-table", "--registers-table %s: larger than %d KiB; a table holds one short line per configuration", path, maxRegistersTableBytes>>10)
	}
	data = bytes.TrimPrefix(data, []byte("\uFEFF")) // a spreadsheet's byte order mark
	r := csv.NewReader(bytes.NewReader(data))
	r.Comment = '#'
	r.TrimLeadingSpace = true
	tr := &registersTableReader{path: path, r: r, col: map[string]int{}}
	if err := tr.header(); err != nil {
		return nil, err
	}
	t := &registersTable{path: path, lines: map[explore.Configuration]int{}, registers: map[explore.Configuration]int{}}
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, tr.csvError(err)
		}
		line, _ := r.FieldPos(0)
		c, tilings, n, err := tr.entry(rec, line)
		if err != nil {
			return nil, err
		}
		for _, tiling := range tilings {
			c.Tiling = tiling
			cc := c.Canonical()
			if first, dup := t.lines[cc]; dup {
				if first == line { // both tilings of a configuration that has one
					continue
				}
				return nil, tr.fail(line, "%v is given again (first on line %d)", cc, first)
			}
			t.lines[cc], t.registers[cc] = line, n
			t.entries = append(t.entries, request.RegistersEntry{Configuration: cc, Registers: n})
		}
	}
	slices.SortFunc(t.entries, func(a, b request.RegistersEntry) int {
		return explore.CompareConfigurations(a.Configuration, b.Configuration)
	})
	return t, nil
}

// registersTableReader reads the CSV of a --registers-table file named
// path, with the column of each header name.
type registersTableReader struct {
	path string
	r    *csv.Reader
	col  map[string]int // 1 + the column's index; 0: absent
}

// fail reports an error on line of the file.
func (tr *registersTableReader) fail(line int, format string, args ...any) error {
	return usageErrorf("%s:%d: %s", tr.path, line, fmt.Sprintf(format, args...))
}

// csvError reports an error of the CSV reader, on its line where it has
// one.
func (tr *registersTableReader) csvError(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return tr.fail(max(pe.StartLine, 1), "%v", pe.Err)
	}
	return usageErrorf("%s: %v", tr.path, err)
}

// header reads the header line into tr.col: each name one of the table's
// columns, once, block, fold and registers required.
func (tr *registersTableReader) header() error {
	header, err := tr.r.Read()
	if err == io.EOF {
		return usageErrorf("%s: empty; expected the header %s and a line per configuration", tr.path, strings.Join(registersTableHeader, ","))
	}
	if err != nil {
		return tr.csvError(err)
	}
	headerLine, _ := tr.r.FieldPos(0)
	for i, h := range header {
		h = strings.TrimSpace(h)
		switch {
		case !slices.Contains(registersTableHeader, h):
			return tr.fail(headerLine, "column %d %s: expected a header of the columns %s (tiling may be left out)", i+1, strconv.Quote(request.Excerpt(h)), strings.Join(registersTableHeader, ", "))
		case tr.col[h] > 0:
			return tr.fail(headerLine, "column %s appears twice in the header", h)
		}
		tr.col[h] = i + 1
	}
	for _, h := range []string{columnBlock, columnFold, columnRegisters} {
		if tr.col[h] == 0 {
			return tr.fail(headerLine, "the header has no column %s; expected %s (tiling may be left out)", h, strings.Join(registersTableHeader, ","))
		}
	}
	return nil
}

// cell returns the trimmed cell of column name in rec, or "" where the
// table has no such column.
func (tr *registersTableReader) cell(rec []string, name string) string {
	if tr.col[name] == 0 {
		return ""
	}
	return strings.TrimSpace(rec[tr.col[name]-1])
}

// entry parses the record rec on line: its configuration (block and fold
// checked as a launch), the tilings it stands for and its registers.
func (tr *registersTableReader) entry(rec []string, line int) (c explore.Configuration, tilings []kernel.Tiling, registers int, err error) {
	if c.Block, err = kernel.ParseTriple(tr.cell(rec, columnBlock)); err != nil {
		return c, nil, 0, tr.fail(line, "block %v", err)
	}
	if c.Fold, err = kernel.ParseTriple(tr.cell(rec, columnFold)); err != nil {
		return c, nil, 0, tr.fail(line, "fold %v", err)
	}
	// A domain as large as the fold, so that Validate checks the block
	// and fold alone.
	if err := (kernel.Launch{Block: c.Block, Fold: c.Fold, Domain: c.Fold}).Validate(); err != nil {
		return c, nil, 0, tr.fail(line, "%v", err)
	}
	tilings = explore.DefaultTilings
	if s := tr.cell(rec, columnTiling); s != "" {
		tiling, err := kernel.ParseTiling(s)
		if err != nil {
			return c, nil, 0, tr.fail(line, "tiling %s: expected consecutive or strided, or nothing for both", strconv.Quote(request.Excerpt(s)))
		}
		tilings = []kernel.Tiling{tiling}
	}
	s := tr.cell(rec, columnRegisters)
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > explore.MaxRegisters {
		return c, nil, 0, tr.fail(line, "registers %s: expected an integer from 1 to %d", strconv.Quote(request.Excerpt(s)), explore.MaxRegisters)
	}
	return c, tilings, n, nil
}

// unmatchedNote returns a note on the entries of t that are no
// configuration of the sweep, or "": a block of another thread count, a
// fold or tiling the sweep does not try, probably a mistake.
func (t *registersTable) unmatchedNote(sweep []explore.Configuration) string {
	if t == nil {
		return ""
	}
	in := make(map[explore.Configuration]bool, len(sweep))
	for _, c := range sweep {
		in[c] = true
	}
	n, first := 0, 0
	var firstConfig explore.Configuration
	for _, e := range t.entries {
		if in[e.Configuration] {
			continue
		}
		n++
		if line := t.lines[e.Configuration]; first == 0 || line < first {
			first, firstConfig = line, e.Configuration
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%s: %s of %d match no configuration of the sweep (threads, folds and tilings) and are not used; the first on line %d, %v",
		t.path, request.CountNoun(n, "configuration"), len(t.entries), first, firstConfig)
}
