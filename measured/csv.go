package measured

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// The Nsight Compute counters of a measurement row, with the units the
// script stores them in.
const (
	CounterL2Read     = "lts__t_sectors_srcunit_tex_op_read.sum"            // sectors: L2 → L1 loads
	CounterL2Write    = "lts__t_sectors_srcunit_tex_op_write.sum"           // sectors: L1 → L2 stores
	CounterDRAMRead   = "dram__bytes_read.sum"                              // bytes
	CounterDRAMWrite  = "dram__bytes_write.sum"                             // bytes
	CounterWavefronts = "l1tex__data_pipe_lsu_wavefronts.sum"               // L1 data-pipe wavefronts
	CounterL1Sectors  = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"    // sectors requested from L1 by global loads
	CounterTime       = "gpu__time_duration.sum"                            // nanoseconds, profiled launch
	CounterWarps      = "sm__warps_active.avg.pct_of_peak_sustained_active" // percent
)

// Counters lists the counters the script collects, in column order.
var Counters = []string{CounterL2Read, CounterL2Write, CounterDRAMRead, CounterDRAMWrite,
	CounterWavefronts, CounterL1Sectors, CounterTime, CounterWarps}

// launchColumns are the leading columns of every row.
var launchColumns = []string{"kernel", "block_x", "block_y", "block_z", "fold_x", "fold_y", "fold_z",
	"domain_x", "domain_y", "domain_z", "lups", "reps", "time_ms", "glups"}

// Header returns the column names of a measurement file.
func Header() []string { return append(append([]string(nil), launchColumns...), Counters...) }

// Row is one measured configuration.
type Row struct {
	Kernel string   // spec as given to polyvol cuda: an example name or a file path
	Block  [3]int64 // thread-block size
	Fold   [3]int64 // thread folding
	Domain [3]int64 // lattice points per dimension
	Lups   int64    // lattice updates per launch, D0·D1·D2
	Reps   int64    // timed launches of the unprofiled run
	TimeMS float64  // milliseconds per launch, unprofiled
	GLups  float64  // lattice updates per second in 10^9, unprofiled
	// Counters holds the counter values of the profiled launch; a counter
	// the profiler did not deliver (an empty cell) is absent.
	Counters map[string]float64
	Line     int // line in the file, for messages
}

// Sweep is one measurement file.
type Sweep struct {
	Path string
	// Meta holds the header comment lines "# key: value" in file order.
	Meta []Meta
	Rows []Row
}

// Meta is one header comment line "# key: value".
type Meta struct{ Key, Value string }

// Get returns the value of the first header line with the given key.
func (s *Sweep) Get(key string) string {
	for _, m := range s.Meta {
		if m.Key == key {
			return m.Value
		}
	}
	return ""
}

// Name is the sweep's "sweep" header value, or the file name without ".csv".
func (s *Sweep) Name() string {
	if n := s.Get("sweep"); n != "" {
		return n
	}
	return strings.TrimSuffix(filepath.Base(s.Path), ".csv")
}

// MaxCSVBytes bounds the size of a measurement file; the largest sweep of
// testdata/measured is 0.3 MiB.
const MaxCSVBytes = 16 << 20

// ReadCSV parses a measurement file of at most MaxCSVBytes; name is used in
// messages. Comment lines
// start with "#"; the first other line is the header, which must contain
// every launch column and may contain any counters (unknown columns are
// ignored). Errors name the file, line and column.
func ReadCSV(r io.Reader, name string) (*Sweep, error) {
	s := &Sweep{Path: name}
	data, err := io.ReadAll(io.LimitReader(r, MaxCSVBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(data) > MaxCSVBytes {
		return nil, fmt.Errorf("%s: larger than %d MiB; not a measurement file", name, MaxCSVBytes>>20)
	}
	lines := strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	var col map[string]int
	for i, line := range lines {
		n := i + 1
		if strings.TrimSpace(line) == "" {
			continue
		}
		if strings.HasPrefix(line, "#") {
			if col != nil {
				return nil, fmt.Errorf("%s:%d: comment line after the header", name, n)
			}
			k, v, ok := strings.Cut(strings.TrimSpace(strings.TrimPrefix(line, "#")), ":")
			if ok && !strings.ContainsAny(k, " \t") && k != "" {
				s.Meta = append(s.Meta, Meta{k, strings.TrimSpace(v)})
			}
			continue
		}
		rec, err := csv.NewReader(strings.NewReader(line)).Read()
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, n, err)
		}
		if col == nil {
			if col, err = header(rec); err != nil {
				return nil, fmt.Errorf("%s:%d: %w", name, n, err)
			}
			continue
		}
		row, err := parseRow(rec, col)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, n, err)
		}
		row.Line = n
		s.Rows = append(s.Rows, row)
	}
	if col == nil {
		return nil, fmt.Errorf("%s: no header line (expected %s,...)", name, strings.Join(launchColumns[:3], ","))
	}
	return s, nil
}

func header(rec []string) (map[string]int, error) {
	col := map[string]int{}
	for i, c := range rec {
		c = strings.TrimSpace(c)
		if _, dup := col[c]; dup {
			return nil, fmt.Errorf("column %q appears twice", c)
		}
		col[c] = i
	}
	for _, c := range launchColumns {
		if _, ok := col[c]; !ok {
			return nil, fmt.Errorf("header lacks the column %q", c)
		}
	}
	return col, nil
}

func parseRow(rec []string, col map[string]int) (Row, error) {
	r := Row{Counters: map[string]float64{}}
	cell := func(c string) string {
		if i := col[c]; i < len(rec) {
			return strings.TrimSpace(rec[i])
		}
		return ""
	}
	integer := func(c string, min int64) (int64, error) {
		v, err := strconv.ParseInt(cell(c), 10, 64)
		if err != nil || v < min {
			return 0, fmt.Errorf("column %s = %q: expected an integer of at least %d", c, cell(c), min)
		}
		return v, nil
	}
	number := func(c string) (float64, error) {
		v, err := strconv.ParseFloat(cell(c), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return 0, fmt.Errorf("column %s = %q: expected a non-negative number", c, cell(c))
		}
		return v, nil
	}
	if r.Kernel = cell("kernel"); r.Kernel == "" {
		return r, errors.New("column kernel is empty")
	}
	var err error
	for i, axis := range []string{"x", "y", "z"} {
		if r.Block[i], err = integer("block_"+axis, 1); err != nil {
			return r, err
		}
		if r.Fold[i], err = integer("fold_"+axis, 1); err != nil {
			return r, err
		}
		if r.Domain[i], err = integer("domain_"+axis, 1); err != nil {
			return r, err
		}
	}
	if r.Lups, err = integer("lups", 1); err != nil {
		return r, err
	}
	if r.Domain[0] > math.MaxInt64/r.Domain[1] || r.Domain[0]*r.Domain[1] > math.MaxInt64/r.Domain[2] {
		return r, fmt.Errorf("domain %d×%d×%d: more lattice points than an int64 holds", r.Domain[0], r.Domain[1], r.Domain[2])
	}
	if want := r.Domain[0] * r.Domain[1] * r.Domain[2]; r.Lups != want {
		return r, fmt.Errorf("column lups = %d, but the domain has %d lattice points", r.Lups, want)
	}
	if r.Reps, err = integer("reps", 1); err != nil {
		return r, err
	}
	if r.TimeMS, err = number("time_ms"); err != nil {
		return r, err
	}
	if r.GLups, err = number("glups"); err != nil {
		return r, err
	}
	for _, c := range Counters {
		if _, ok := col[c]; !ok || cell(c) == "" {
			continue
		}
		v, err := number(c)
		if err != nil {
			return r, err
		}
		r.Counters[c] = v
	}
	return r, nil
}

// LoadDir reads every *.csv file of dir, sorted by name. A directory without
// measurement files gives no sweeps and no error.
func LoadDir(dir string) ([]*Sweep, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.csv"))
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(dir); err != nil {
		return nil, err
	}
	sort.Strings(paths)
	var out []*Sweep
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return nil, err
		}
		s, err := ReadCSV(f, p)
		f.Close()
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}
