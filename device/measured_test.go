package device

import (
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// measuredDir holds the repository's copies of the published measurements,
// each with its provenance header.
const measuredDir = "../testdata/measured"

// Files of measuredDir that the database's bandwidths come from
// (docs/devices.md).
const (
	summaryFile   = "gpu_benches_device_summary.csv"
	vanLankerFile = "papers_vanlanker2024_table1.csv"
)

// bandwidthTolerance is the largest relative difference allowed between a
// database bandwidth and the measurement it cites: 1 %. The database copies
// the measured value, rounded to no coarser than three significant digits
// (at most 0.5 % off). Anything more is a different number, not a rounding:
// 1 % is already below the benchmarks' own scatter (the A100-80's L2 plateau
// varies by ±1.3 % between neighbouring data-set sizes in
// gpu_l2_cache_capacity.csv), whereas the values the measurements replaced
// were up to 52 % (DRAM, H200) and 41 % (L2, MI210) off.
const bandwidthTolerance = 0.01

// summaryDevices maps the device column of the gpu-benches summary to the
// database entry it measured; "" marks a GPU the database does not hold.
// The h100_pcie rows come from an H100 PCIe card (gpu_stream_occupancy.csv
// header), and v100 from an unnamed V100, taken as the database's V100.
var summaryDevices = map[string]string{
	"a100_40":   "A100-40GB",
	"a100_80":   "A100-80GB",
	"a40":       "A40",
	"gb200":     "",
	"gh200":     "GH200",
	"h100_pcie": "H100-PCIe",
	"h200":      "H200",
	"l40":       "L40",
	"mi100":     "MI100",
	"mi210":     "MI210",
	"mi300a":    "MI300A",
	"mi300x":    "MI300X",
	"rx6900xt":  "RX6900XT",
	"v100":      "V100",
}

// vanLankerDevices maps the rows of Van Lanker et al.'s Table 1 to database
// entries. The paper's "H100" is the PCIe card: its 1907 GB/s DRAM maximum
// is above the PCIe card's 1704 GB/s measured stream and far below the SXM's.
var vanLankerDevices = map[string]string{
	"V100":    "V100",
	"A100-40": "A100-40GB",
	"A100-80": "A100-80GB",
	"H100":    "H100-PCIe",
}

// readMeasured reads one CSV file of measuredDir: the header after the
// '#' provenance lines and the rows, as maps from column name to cell. A
// missing or malformed file fails the test: the data are part of the
// repository, and without them nothing is checked.
func readMeasured(t *testing.T, name string) []map[string]string {
	t.Helper()
	path := filepath.Join(measuredDir, name)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("measured data missing: %v", err)
	}
	var body []string
	for _, line := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(line, "#") {
			body = append(body, line)
		}
	}
	if len(body) == len(strings.Split(string(data), "\n")) {
		t.Fatalf("%s: no '#' provenance header", path)
	}
	records, err := csv.NewReader(strings.NewReader(strings.Join(body, "\n"))).ReadAll()
	if err != nil || len(records) < 2 {
		t.Fatalf("%s: want a header and rows: %d records, %v", path, len(records), err)
	}
	rows := make([]map[string]string, 0, len(records)-1)
	for _, rec := range records[1:] {
		row := map[string]string{}
		for i, col := range records[0] {
			row[col] = rec[i]
		}
		rows = append(rows, row)
	}
	return rows
}

// measuredValue is one published bandwidth and where it comes from.
type measuredValue struct {
	gbs            float64
	file, row, col string
}

// checkBandwidth compares the database value under key with m: within
// bandwidthTolerance, and with a source that cites m's file, row and column.
func checkBandwidth(t *testing.T, d *Device, key string, got float64, m measuredValue) {
	t.Helper()
	if rel := math.Abs(got-m.gbs) / m.gbs; !(rel <= bandwidthTolerance) {
		t.Errorf("%s %s = %v GB/s, measured %v GB/s (%s, row %s, column %s): %.1f %% off, tolerance %.0f %%",
			d.Name, key, got, m.gbs, m.file, m.row, m.col, 100*rel, 100*bandwidthTolerance)
	}
	src := d.Source(key)
	if class := d.SourceClass(key); class != SourceMeasured {
		t.Errorf("%s %s: source class %q, want %q", d.Name, key, class, SourceMeasured)
	}
	for _, cite := range []string{m.file, "row " + m.row, m.col} {
		if !strings.Contains(src, cite) {
			t.Errorf("%s %s: source %q does not cite %q", d.Name, key, src, cite)
		}
	}
}

// TestBandwidthsMatchMeasurements holds the L2 and DRAM bandwidths of every
// device that the gpu-benches summary measured to those measurements, and
// falls back to Van Lanker et al.'s Table 1 for a level the summary lacks
// (docs/devices.md). DRAM is the best scale-kernel stream (one load and one
// store stream, the traffic of a stencil), L2 the median bandwidth of
// L2-resident data sets of 2-8 MB. Every other bandwidth must say that it
// is a spec-sheet value, a reference-table value or an estimate
// (Device.SourceClass).
func TestBandwidthsMatchMeasurements(t *testing.T) {
	type level struct {
		key, summaryCol, vanLankerCol string
		value                         func(*Device) float64
	}
	levels := []level{
		{"dram_bandwidth_gbs", "dram_scale_max_gbs", "bw_dram_max_gbs", func(d *Device) float64 { return d.DRAMBandwidthGBs }},
		{"l2_bandwidth_gbs", "l2_bw_median_2to8MB_gbs", "bw_l2_max_gbs", func(d *Device) float64 { return d.L2BandwidthGBs }},
	}
	// measured[device][key] is the value the convention picks.
	measured := map[string]map[string]measuredValue{}
	pick := func(dev, key string, m measuredValue) {
		if measured[dev] == nil {
			measured[dev] = map[string]measuredValue{}
		}
		if _, ok := measured[dev][key]; !ok { // the summary comes first
			measured[dev][key] = m
		}
	}
	parse := func(file, row, col, cell string) (float64, bool) {
		if cell == "" {
			return 0, false
		}
		v, err := strconv.ParseFloat(cell, 64)
		if err != nil || !(v > 0) {
			t.Fatalf("%s, row %s, column %s: %q is not a positive number", file, row, col, cell)
		}
		return v, true
	}
	sources := []struct {
		file, nameCol string
		devices       map[string]string
		col           func(level) string
	}{
		{summaryFile, "device", summaryDevices, func(l level) string { return l.summaryCol }},
		{vanLankerFile, "device", vanLankerDevices, func(l level) string { return l.vanLankerCol }},
	}
	for _, s := range sources {
		rows := readMeasured(t, s.file)
		seen := map[string]bool{}
		for _, r := range rows {
			name := r[s.nameCol]
			dev, known := s.devices[name]
			if !known {
				t.Errorf("%s: row %q maps to no database entry; add it to the test's device map", s.file, name)
				continue
			}
			seen[name] = true
			if dev == "" {
				continue
			}
			for _, l := range levels {
				col := s.col(l)
				if _, ok := r[col]; !ok {
					t.Fatalf("%s has no column %s", s.file, col)
				}
				if v, ok := parse(s.file, name, col, r[col]); ok {
					pick(dev, l.key, measuredValue{v, s.file, name, col})
				}
			}
		}
		for name := range s.devices {
			if !seen[name] {
				t.Errorf("%s: no row %q", s.file, name)
			}
		}
	}

	checked := 0
	for _, d := range All() {
		for _, l := range levels {
			src := d.Source(l.key)
			if m, ok := measured[d.Name][l.key]; ok {
				checkBandwidth(t, d, l.key, l.value(d), m)
				checked++
				continue
			}
			switch class := d.SourceClass(l.key); class {
			case SourceMeasured:
				t.Errorf("%s %s: source %q claims a measurement, but neither %s nor %s has one", d.Name, l.key, src, summaryFile, vanLankerFile)
			case SourceSpecSheet, SourceReference, SourceEstimate:
			default:
				t.Errorf("%s %s: source %q is %s; it must start with its class (docs/devices.md)", d.Name, l.key, src, class)
			}
		}
	}
	// The summary measured 13 database entries, all of them with a DRAM and
	// 7 with an L2 value; Table 1 adds the L2 of the V100 and the A100-40GB.
	if want := 13 + 7 + 2; checked != want {
		t.Errorf("checked %d bandwidths against measurements, want %d", checked, want)
	}
}

// pointerChaseFile holds the gpu-latency pointer chase that the summary's
// latency columns come from, with the clock each run was timed at.
const pointerChaseFile = "gpu_latency_pointer_chase.csv"

// latencyLevels are the database latencies that gpu-benches measures and
// the summary column each comes from (its header: DRAM the median over
// chains of 1 GB and more, L2 the median over chains of 1-4 MB, L1 the
// minimum over all chains).
var latencyLevels = []struct {
	key, col string
	value    func(*Device) float64
	minKB    float64 // the chains the summary's column summarises
	maxKB    float64
	median   bool // median over those chains (else the minimum)
}{
	{"latencies.dram_cycles", "lat_dram_ge1GB_cycles", func(d *Device) float64 { return d.Latencies.DRAMCycles }, 1 << 20, math.Inf(1), true},
	{"latencies.l2_cycles", "lat_l2_1to4MB_cycles", func(d *Device) float64 { return d.Latencies.L2Cycles }, 1 << 10, 4 << 10, true},
	{"latencies.l1_cycles", "lat_l1_min_cycles", func(d *Device) float64 { return d.Latencies.L1Cycles }, 0, math.Inf(1), false},
}

// TestLatenciesMatchMeasurements holds the DRAM, L2 and L1 latencies of
// every device that gpu-benches' pointer chase measured to that
// measurement: the summary's value, which the test first recomputes from
// the pointer-chase file itself, converted from the clock the benchmark ran
// at to the database's clock_ghz (the latency in nanoseconds is what the
// memory system fixes). The database rounds to whole cycles, so the
// tolerance is 1 % or half a cycle, whichever is larger. Every latency
// that no measurement backs must not claim one.
func TestLatenciesMatchMeasurements(t *testing.T) {
	type run struct{ device, date string }
	chase := map[run][]map[string]string{}
	for _, r := range readMeasured(t, pointerChaseFile) {
		k := run{r["device"], r["date"]}
		chase[k] = append(chase[k], r)
	}
	num := func(file, row, col, cell string) float64 {
		v, err := strconv.ParseFloat(cell, 64)
		if err != nil || !(v > 0) {
			t.Fatalf("%s, row %s, column %s: %q is not a positive number", file, row, col, cell)
		}
		return v
	}
	checked := map[string]bool{}
	for _, r := range readMeasured(t, summaryFile) {
		name := r["device"]
		dev := summaryDevices[name]
		if dev == "" || r["lat_dram_ge1GB_cycles"] == "" {
			continue
		}
		d, err := Lookup(dev)
		if err != nil {
			t.Fatal(err)
		}
		rows := chase[run{name, r["latency_file_date"]}]
		if len(rows) == 0 {
			t.Fatalf("%s: no pointer chase of %s dated %s", pointerChaseFile, name, r["latency_file_date"])
		}
		clockMHz := num(pointerChaseFile, name, "clock_mhz", rows[0]["clock_mhz"])
		for _, l := range latencyLevels {
			want := num(summaryFile, name, l.col, r[l.col])
			var lat []float64
			for _, c := range rows {
				if kb := num(pointerChaseFile, name, "chain_kb", c["chain_kb"]); kb >= l.minKB && kb <= l.maxKB {
					lat = append(lat, num(pointerChaseFile, name, "latency_cycles", c["latency_cycles"]))
				}
			}
			if got := summarise(lat, l.median); math.Abs(got-want) > 0.051 {
				t.Errorf("%s row %s, %s = %v, but %s gives %v", summaryFile, name, l.col, want, pointerChaseFile, got)
			}
			want *= d.ClockGHz * 1000 / clockMHz
			if got := l.value(d); math.Abs(got-want) > max(0.01*want, 0.5) {
				t.Errorf("%s %s = %v cycles, measured %.1f cycles at its clock_ghz (%s, row %s, column %s, at %v MHz)", d.Name, l.key, got, want, summaryFile, name, l.col, clockMHz)
			}
			if class := d.SourceClass(l.key); class != SourceMeasured {
				t.Errorf("%s %s: source class %q, want %q", d.Name, l.key, class, SourceMeasured)
			}
			for _, cite := range []string{summaryFile, "row " + name, l.col} {
				if src := d.Source(l.key); !strings.Contains(src, cite) {
					t.Errorf("%s %s: source %q does not cite %q", d.Name, l.key, src, cite)
				}
			}
			checked[d.Name] = true
		}
	}
	for _, d := range All() {
		for _, l := range latencyLevels {
			if !checked[d.Name] && d.SourceClass(l.key) == SourceMeasured {
				t.Errorf("%s %s: source %q claims a measurement, but %s has none", d.Name, l.key, d.Source(l.key), summaryFile)
			}
		}
	}
	if len(checked) != 12 {
		t.Errorf("checked the latencies of %d devices against measurements, want the summary's 12", len(checked))
	}
}

// summarise returns the median (median) or the minimum of v; NaN if v is
// empty.
func summarise(v []float64, median bool) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	v = slices.Clone(v)
	slices.Sort(v)
	if !median {
		return v[0]
	}
	if n := len(v); n%2 == 0 {
		return (v[n/2-1] + v[n/2]) / 2
	}
	return v[len(v)/2]
}
