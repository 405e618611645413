package device

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const (
	kib = 1 << 10
	mib = 1 << 20
)

func TestAllValidAndSorted(t *testing.T) {
	want := []string{"A100-40GB", "A100-80GB", "A40", "B200", "GH200", "H100-PCIe", "H100-SXM", "H200",
		"L40", "L40S", "MI100", "MI210", "MI250X", "MI300A", "MI300A-CPX", "MI300X", "MI300X-CPX",
		"PRO-W6600", "PRO-W7800", "RTX-4090", "RTX-5090", "RTX-A4000", "RTX-A6000", "RX6900XT", "V100"}
	var got []string
	for _, d := range All() {
		got = append(got, d.Name)
		if err := d.Validate(); err != nil {
			t.Errorf("%s: %v", d.Name, err)
		}
		if d.TLBPageBytes != 2*mib || d.L1TLBPageBytes != 512*kib {
			t.Errorf("%s: TLB pages %d / %d, want 2 MiB / 512 KiB (spec §3.6)", d.Name, d.TLBPageBytes, d.L1TLBPageBytes)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("All() names %v, want %v", got, want)
	}
}

// The rows are copied from the device table of the paper's reference
// implementation (Warpspeed; Ernst et al. 2023, docs/references.md).
func TestSpecTable(t *testing.T) {
	type row struct {
		name                                     string
		model                                    L1Model
		warp, sub, lsus, sms                     int
		clock                                    float64
		l1, l2                                   int64
		bank, alloc, fetch, write, dfetch, dwrit int64
		fp32, fp64, l2bw, membw                  float64
	}
	rows := []row{
		{"V100", L1NV, 32, 32, 32, 80, 1.38, 128 * kib, 6 * mib, 128, 128, 32, 32, 64, 32, 64, 32, 2300, 790},
		{"A100-40GB", L1NV, 32, 32, 32, 108, 1.41, 192 * kib, 20 * mib, 128, 128, 32, 32, 64, 32, 64, 32, 4000, 1400},
		{"A100-80GB", L1NV, 32, 32, 32, 108, 1.41, 192 * kib, 20 * mib, 128, 128, 32, 32, 64, 32, 64, 32, 4000, 1600},
		{"A40", L1NV, 32, 32, 16, 84, 1.74, 128 * kib, 6 * mib, 128, 128, 32, 32, 32, 32, 128, 2, 2900, 670},
		{"L40", L1NV, 32, 32, 16, 142, 2.49, 128 * kib, 96 * mib, 128, 128, 32, 32, 32, 32, 128, 2, 4300, 800},
		{"L40S", L1NV, 32, 32, 16, 142, 2.52, 128 * kib, 96 * mib, 128, 128, 32, 32, 64, 32, 128, 2, 4300, 780},
		{"GH200", L1NV, 32, 32, 32, 132, 1.98, 256 * kib, 30 * mib, 128, 128, 32, 32, 64, 32, 128, 64, 8400, 3200},
		{"MI100", L1CDNA, 64, 16, 0, 110, 1.2, 16 * kib, 8 * mib, 64, 64, 64, 64, 64, 64, 64, 32, 2500, 1200},
		{"MI210", L1CDNA, 64, 16, 0, 104, 1.7, 16 * kib, 6 * mib, 64, 64, 64, 64, 64, 64, 64, 64, 2900, 1400},
		{"MI300X", L1CDNA, 64, 16, 0, 304, 2.1, 32 * kib, 4 * mib, 64, 128, 128, 64, 64, 64, 64, 64, 13700, 4000},
		{"MI300X-CPX", L1CDNA, 64, 16, 0, 38, 2.1, 32 * kib, 4 * mib, 64, 128, 128, 64, 64, 64, 64, 64, 13700, 4000},
		{"MI300A", L1CDNA, 64, 16, 0, 228, 2.1, 32 * kib, 4 * mib, 64, 128, 128, 64, 64, 64, 64, 64, 10100, 3000},
		{"MI300A-CPX", L1CDNA, 64, 16, 0, 38, 2.1, 32 * kib, 4 * mib, 64, 128, 128, 64, 64, 64, 64, 64, 10100, 3000},
		{"RX6900XT", L1RDNA, 32, 32, 0, 80, 2.56, 32 * kib, 4 * mib, 128, 128, 128, 64, 64, 64, 64, 4, 2800, 520},
	}
	for _, r := range rows {
		d, err := Lookup(r.name)
		if err != nil {
			t.Fatal(err)
		}
		got := row{d.Name, d.L1Model, d.WarpSize, d.SubWarpSize, d.LSUs, d.SMs, d.ClockGHz, d.L1Bytes, d.L2Bytes,
			d.L1BankWidth, d.L1AllocBytes, d.L1FetchBytes, d.L1WriteBytes, d.DRAMFetchBytes, d.DRAMWriteBytes,
			d.FP32PerCycleSM, d.FP64PerCycleSM, d.L2BandwidthGBs, d.DRAMBandwidthGBs}
		// A bandwidth keeps the table's value unless a measurement of the
		// device replaced it (docs/devices.md); TestBandwidthsMatchMeasurements
		// checks those against the measured files.
		for _, bw := range []struct {
			key       string
			got, want *float64
		}{{"l2_bandwidth_gbs", &got.l2bw, &r.l2bw}, {"dram_bandwidth_gbs", &got.membw, &r.membw}} {
			switch class := d.SourceClass(bw.key); class {
			case SourceMeasured:
				*bw.got = *bw.want
			case SourceReference:
			default:
				t.Errorf("%s %s: source class %q, want a measurement or the table", r.name, bw.key, class)
			}
		}
		if got != r {
			t.Errorf("%s:\n got %+v\nwant %+v", r.name, got, r)
		}
	}
}

// Hopper entries outside the spec table: public spec-sheet numbers. A
// measured DRAM bandwidth replaces the spec sheet's peak where one exists
// (docs/devices.md) and cannot exceed it; the H100-SXM's L2 bandwidth, which
// no spec sheet states, is estimated from the H200, its GH100 twin.
func TestHopperSpecSheets(t *testing.T) {
	tests := []struct {
		name        string
		sms         int
		clock, dram float64 // dram: the spec sheet's peak
	}{
		{"H100-SXM", 132, 1.98, 3350},
		{"H100-PCIe", 114, 1.755, 2000},
		{"H200", 132, 1.98, 4800},
	}
	h200, err := Lookup("H200")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range tests {
		d, err := Lookup(tc.name)
		if err != nil {
			t.Fatal(err)
		}
		if d.SMs != tc.sms || d.ClockGHz != tc.clock {
			t.Errorf("%s: sms %d clock %v", d.Name, d.SMs, d.ClockGHz)
		}
		switch class := d.SourceClass("dram_bandwidth_gbs"); class {
		case SourceSpecSheet:
			if d.DRAMBandwidthGBs != tc.dram {
				t.Errorf("%s: spec-sheet DRAM bandwidth %v, want %v", d.Name, d.DRAMBandwidthGBs, tc.dram)
			}
		case SourceMeasured:
			if !(d.DRAMBandwidthGBs < tc.dram) {
				t.Errorf("%s: measured DRAM bandwidth %v not below the spec sheet's peak %v", d.Name, d.DRAMBandwidthGBs, tc.dram)
			}
		default:
			t.Errorf("%s: DRAM bandwidth source class %q, want a spec sheet or a measurement", d.Name, class)
		}
		if d.L1Bytes != 256*kib || d.L2Bytes != 25*mib || d.L2Partitions != 2 || d.Arch != "sm_90" {
			t.Errorf("%s: L1 %d L2 %d partitions %d arch %s", d.Name, d.L1Bytes, d.L2Bytes, d.L2Partitions, d.Arch)
		}
	}
	sxm, err := Lookup("H100-SXM")
	if err != nil {
		t.Fatal(err)
	}
	if src := sxm.Source("l2_bandwidth_gbs"); sxm.L2BandwidthGBs != h200.L2BandwidthGBs ||
		sxm.SourceClass("l2_bandwidth_gbs") != SourceEstimate || !strings.Contains(src, "H200") {
		t.Errorf("H100-SXM L2 bandwidth %v (%q), want the H200's %v marked as an estimate from it",
			sxm.L2BandwidthGBs, src, h200.L2BandwidthGBs)
	}
}

// Occupancy limits per architecture from the CUDA programming guide's
// compute-capability table.
func TestNVIDIALimits(t *testing.T) {
	tests := []struct {
		name                                  string
		threads, warps, blocks                int
		sharedSM, sharedBlock, reserved, unit int64
	}{
		{"V100", 2048, 64, 32, 96 * kib, 96 * kib, 0, 256},
		{"A100-40GB", 2048, 64, 32, 164 * kib, 163 * kib, kib, 128},
		{"A40", 1536, 48, 16, 100 * kib, 99 * kib, kib, 128},
		{"L40", 1536, 48, 24, 100 * kib, 99 * kib, kib, 128},
		{"RTX-A4000", 1536, 48, 16, 100 * kib, 99 * kib, kib, 128},
		{"RTX-A6000", 1536, 48, 16, 100 * kib, 99 * kib, kib, 128},
		{"H100-SXM", 2048, 64, 32, 228 * kib, 227 * kib, kib, 128},
		{"B200", 2048, 64, 32, 228 * kib, 227 * kib, kib, 128},
		{"RTX-4090", 1536, 48, 24, 100 * kib, 99 * kib, kib, 128},
		{"RTX-5090", 1536, 48, 32, 100 * kib, 99 * kib, kib, 128},
	}
	for _, tc := range tests {
		d, err := Lookup(tc.name)
		if err != nil {
			t.Fatal(err)
		}
		l := d.Limits
		if l.RegistersPerSM != 65536 || l.MaxRegistersPerThread != 255 || l.RegisterAllocUnit != 256 ||
			l.WarpAllocGranularity != 4 || l.MaxThreadsPerBlock != 1024 {
			t.Errorf("%s: register limits %+v", d.Name, l)
		}
		if l.MaxThreadsPerSM != tc.threads || l.MaxWarpsPerSM != tc.warps || l.MaxBlocksPerSM != tc.blocks ||
			l.SharedPerSM != tc.sharedSM || l.SharedPerBlock != tc.sharedBlock ||
			l.SharedReservedPerBlock != tc.reserved || l.SharedAllocUnit != tc.unit {
			t.Errorf("%s: limits %+v", d.Name, l)
		}
	}
}

func TestLookupNames(t *testing.T) {
	tests := map[string]string{
		"A100-40GB":               "A100-40GB",
		"a100-40gb":               "A100-40GB",
		"NVIDIA A100-SXM4-40GB":   "A100-40GB",
		"nvidia a100 sxm4 80gb":   "A100-80GB",
		"A100":                    "A100-40GB",
		"Tesla V100-PCIE-32GB":    "V100",
		"AMD Radeon RX 6900 XT":   "RX6900XT",
		"rx 6900 xt":              "RX6900XT",
		"l40s":                    "L40S",
		"NVIDIA H100 80GB HBM3":   "H100-SXM",
		"NVIDIA H100 PCIe":        "H100-PCIe",
		"AMD Instinct MI300X":     "MI300X",
		"mi300x-cpx":              "MI300X-CPX",
		"NVIDIA GH200 480GB":      "GH200",
		"  h200  ":                "H200",
		"AMD Instinct MI300A-CPX": "MI300A-CPX",
		"A4000":                   "RTX-A4000",
		"RTX A4000":               "RTX-A4000",
		"NVIDIA RTX A4000":        "RTX-A4000",
		"a6000":                   "RTX-A6000",
		"NVIDIA RTX A6000":        "RTX-A6000",
		"W6600":                   "PRO-W6600",
		"Radeon PRO W6600":        "PRO-W6600",
		"AMD Radeon Pro W6600":    "PRO-W6600",
		"w7800":                   "PRO-W7800",
		"AMD Radeon PRO W7800":    "PRO-W7800",
		"RTX4090":                 "RTX-4090",
		"NVIDIA GeForce RTX 4090": "RTX-4090",
		"rtx 5090":                "RTX-5090",
		"NVIDIA B200":             "B200",
		"HGX B200":                "B200",
		"mi250x":                  "MI250X",
		"AMD Instinct MI250X":     "MI250X",
	}
	for in, want := range tests {
		d, err := Lookup(in)
		if err != nil {
			t.Errorf("Lookup(%q): %v", in, err)
			continue
		}
		if d.Name != want {
			t.Errorf("Lookup(%q) = %s, want %s", in, d.Name, want)
		}
	}
}

func TestLookupReturnsCopy(t *testing.T) {
	d, _ := Lookup("A100-40GB")
	d.SMs = 1
	d.Aliases[0] = "changed"
	d.Sources["sms"] = "changed"
	again, _ := Lookup("A100-40GB")
	if again.SMs != 108 || again.Aliases[0] == "changed" || again.Sources["sms"] == "changed" {
		t.Errorf("Lookup result shares state with the database: %+v", again)
	}
	all := All()
	all[0].L2Bytes = 0
	if All()[0].L2Bytes == 0 {
		t.Error("All result shares state with the database")
	}
}

func TestLookupUnknownSuggests(t *testing.T) {
	tests := map[string][]string{
		"H100 NVL":  {"H100-SXM", "H100-PCIe"},
		"a100-40":   {"A100-40GB"},
		"MI300":     {"MI300X", "MI300A"},
		"Tesla V10": {"V100"},
		"RTX 6090":  nil,
	}
	for in, want := range tests {
		_, err := Lookup(in)
		if err == nil {
			t.Errorf("Lookup(%q) succeeded", in)
			continue
		}
		msg := err.Error()
		closest, _, _ := strings.Cut(strings.SplitN(msg, "closest known devices: ", 2)[1], " (all")
		for _, w := range want {
			if !strings.Contains(closest, w) {
				t.Errorf("Lookup(%q): suggestions %q lack %s", in, closest, w)
			}
		}
		if !strings.Contains(msg, in) || !strings.Contains(msg, "all: A100-40GB") {
			t.Errorf("Lookup(%q): error %q does not name the query and the known devices", in, msg)
		}
	}
}

func TestSourcePrefersOwnEntry(t *testing.T) {
	d := &Device{Sources: map[string]string{"limits": "group", "limits.max_warps_per_sm, sms": "own"}}
	if got := d.Source("limits.max_warps_per_sm"); got != "own" {
		t.Errorf("own key: %q", got)
	}
	if got := d.Source("limits.registers_per_sm"); got != "group" {
		t.Errorf("group key: %q", got)
	}
	if got := d.Source("clock_ghz"); got != "" {
		t.Errorf("absent key: %q", got)
	}
}

func TestExampleHypotheticalDevice(t *testing.T) {
	d, err := LoadFile(filepath.Join("..", "examples", "devices", "a100-80mb-l2.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	base, _ := Lookup("A100-40GB")
	if d.Name != "A100-80MB-L2" || d.L2Bytes != 40*mib {
		t.Errorf("name %s, L2 %d", d.Name, d.L2Bytes)
	}
	// Apart from names, L2 size and sources it is the A100-40GB.
	d.Name, d.DisplayName, d.Aliases, d.L2Bytes, d.Sources = base.Name, base.DisplayName, base.Aliases, base.L2Bytes, base.Sources
	if !slices.Equal(d.Aliases, base.Aliases) || d.Limits != base.Limits || d.Latencies != base.Latencies || d.SMs != base.SMs ||
		d.L1Bytes != base.L1Bytes || d.DRAMBandwidthGBs != base.DRAMBandwidthGBs || d.L2BandwidthGBs != base.L2BandwidthGBs {
		t.Errorf("example differs from the A100-40GB beyond its L2")
	}
}

// a100YAML is the embedded A100-40GB file, the base of the error cases.
func a100YAML(t *testing.T) string {
	data, err := dbFiles.ReadFile("db/a100-40gb.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// lineOf returns the 1-based line of the first line of text starting with prefix.
func lineOf(t *testing.T, text, prefix string) int {
	for i, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, prefix) {
			return i + 1
		}
	}
	t.Fatalf("no line starts with %q", prefix)
	return 0
}

func TestParseErrors(t *testing.T) {
	base := a100YAML(t)
	tests := []struct {
		name     string
		old, new string // replace old by new in the A100 file
		line     string // prefix of the line the error must name ("" for none)
		want     []string
	}{
		{"unknown key", "sms: 108", "sms: 108\nsmz: 3", "smz:", []string{`key "smz"`, `unknown key "smz"`}},
		{"unknown nested key", "  max_blocks_per_sm: 32", "  max_blocks_per_sm: 32\n  max_cookies: 1", "  max_cookies:", []string{`key "limits.max_cookies"`, "unknown key"}},
		{"negative size", "l1_bytes: 196608", "l1_bytes: -5", "l1_bytes:", []string{`key "l1_bytes"`, "non-negative", "-5"}},
		{"zero size", "  shared_per_sm: 167936", "  shared_per_sm: 0", "  shared_per_sm:", []string{`key "limits.shared_per_sm"`, "positive"}},
		{"missing number", "sms: 108\n", "", "", []string{`key "sms"`, "missing", "positive"}},
		{"missing issue rate", "issue_per_cycle_sm: 4\n", "", "", []string{`key "issue_per_cycle_sm"`, "missing", "positive"}},
		{"zero issue rate", "issue_per_cycle_sm: 4", "issue_per_cycle_sm: 0", "issue_per_cycle_sm:", []string{`key "issue_per_cycle_sm"`, "positive"}},
		{"wrong type", "sms: 108", "sms: many", "sms:", []string{`key "sms"`, "cannot unmarshal"}},
		{"not a power of two", "l1_alloc_bytes: 128", "l1_alloc_bytes: 96", "l1_alloc_bytes:", []string{`key "l1_alloc_bytes"`, "power of two", "96"}},
		{"sub-warp too wide", "sub_warp_size: 32", "sub_warp_size: 64", "sub_warp_size:", []string{`key "sub_warp_size"`, "warp_size (32)"}},
		{"bad l1 model", "l1_model: NV", "l1_model: Volta", "l1_model:", []string{`key "l1_model"`, "NV, CDNA or RDNA", "Volta"}},
		{"bad vendor", "vendor: nvidia", "vendor: intel", "vendor:", []string{`key "vendor"`, "intel"}},
		{"missing source", "  latencies.fp_cycles:", "  # latencies.fp_cycles:", "sources:", []string{`key "sources"`, `no source for "latencies.fp_cycles"`}},
		{"unknown source key", "  l2_partitions:", "  l2_partitionz:", "  l2_partitionz:", []string{"l2_partitionz", "not a numeric key"}},
		{"source given twice", "  l2_partitions:", "  sms: \"again\"\n  l2_partitions:", "  sms, clock_ghz", []string{`"sms" already has a source`}},
		{"shared per block above SM", "  shared_per_block: 166912", "  shared_per_block: 200000", "  shared_per_block:", []string{"must not exceed limits.shared_per_sm"}},
		{"syntax error", "sms: 108", "sms: [108", "", []string{"a100.yaml"}},
	}
	for _, tc := range tests {
		text := strings.Replace(base, tc.old, tc.new, 1)
		if text == base {
			t.Fatalf("%s: %q not found in the A100 file", tc.name, tc.old)
		}
		_, err := Parse([]byte(text), "a100.yaml")
		if err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		msg := err.Error()
		want := tc.want
		if tc.line != "" {
			want = append(want, "a100.yaml:"+strconv.Itoa(lineOf(t, text, tc.line))+": ")
		}
		for _, w := range want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: error %q lacks %q", tc.name, msg, w)
			}
		}
	}
}

// TestParseSyntaxErrorColumn checks that a YAML syntax error of a device
// file names the line and column of the problem, counted by hand.
func TestParseSyntaxErrorColumn(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		// The flow sequence opened at line 2 ends with the text.
		{"name: a\nsms: [1, 2\n", "x.yaml:3:1: did not find expected ',' or ']' while parsing a flow sequence that starts at line 2, column 6"},
		// "  sms: 3" under a scalar: the ':' is character 6.
		{"name: a\n  sms: 3\n", "x.yaml:2:6: mapping values are not allowed in this context"},
		// The tab continues the plain scalar "a" of line 1, column 7.
		{"name: a\n\tsms: 3\n", "x.yaml:2:1: found a tab character that violates indentation while scanning a plain scalar that starts at line 1, column 7"},
		// name: "a then U+0001, the ninth character.
		{"name: \"a\x01\"\n", "x.yaml:1:9: control characters are not allowed"},
		{"name: a\n---\nname: b\n", "x.yaml:2:1: a device file is one YAML or JSON document, but another starts here"},
	} {
		_, err := Parse([]byte(tc.text), "x.yaml")
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("Parse(%q): %v, want %q", tc.text, err, tc.want)
		}
	}
}

func TestParseNotAMapping(t *testing.T) {
	for _, in := range []string{"", "- 1\n- 2\n", "just text"} {
		if _, err := Parse([]byte(in), "x.yaml"); err == nil || !strings.Contains(err.Error(), "x.yaml") {
			t.Errorf("Parse(%q): %v", in, err)
		}
	}
}

func TestLoadFileMissing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nope.yaml")
	if _, err := LoadFile(path); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("LoadFile of a missing file: %v", err)
	}
}

func TestLoadFileRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mine.yaml")
	text := strings.Replace(a100YAML(t), `name: "A100-40GB"`, `name: "Mine"`, 1)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if d.Name != "Mine" || d.SMs != 108 || d.Limits.SharedReservedPerBlock != 1024 {
		t.Errorf("got %+v", d)
	}
}

func FuzzParse(f *testing.F) {
	entries, _ := dbFiles.ReadDir("db")
	for _, e := range entries {
		data, _ := dbFiles.ReadFile("db/" + e.Name())
		f.Add(data)
	}
	f.Add([]byte("sms: -1\nlimits: {warp_alloc_granularity: 3}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := Parse(data, "fuzz.yaml")
		if err == nil {
			if verr := d.Validate(); verr != nil {
				t.Fatalf("Parse accepted a device that Validate rejects: %v", verr)
			}
			d.Occupancy(128, 32, 0) // must not panic on any valid device

		}
	})
}

func TestSourceClass(t *testing.T) {
	d := &Device{Sources: map[string]string{
		"sms":                "reference (Warpspeed) device table: somewhere",
		"l2_bandwidth_gbs":   "measured, achievable: somewhere",
		"dram_bandwidth_gbs": "spec sheet (peak): a data sheet",
		"clock_ghz":          "estimate: from a sibling",
		"l1_bytes":           "a vendor whitepaper",
	}}
	for key, want := range map[string]string{
		"sms": SourceReference, "l2_bandwidth_gbs": SourceMeasured, "dram_bandwidth_gbs": SourceSpecSheet,
		"clock_ghz": SourceEstimate, "l1_bytes": "unclassified", "l2_bytes": "no source",
	} {
		if got := d.SourceClass(key); got != want {
			t.Errorf("SourceClass(%q) = %q, want %q", key, got, want)
		}
	}
}

// TestLookupRefusesBadNames checks that a name with a control character or
// invalid UTF-8 is refused with the offset of the first bad byte instead of
// matching a device once normalisation drops the character, that other
// characters that are neither letters, digits, spaces nor punctuation do
// not vanish either, while Unicode spaces and punctuation do, and that a
// name too long to match is refused before any suggestion is computed (the
// error lists no closest devices).
func TestLookupRefusesBadNames(t *testing.T) {
	for in, want := range map[string]string{
		"A100\x00":         "control character U+0000 at byte offset 4",
		"\tA100":           "control character U+0009 at byte offset 0",
		"A100\n":           "control character U+000A at byte offset 4",
		"A1\x1b[31m00":     "control character U+001B at byte offset 2",
		"A100\x7f":         "control character U+007F at byte offset 4",
		"A100\u0085":       "control character U+0085 at byte offset 4",
		"A100\xff":         "invalid UTF-8 at byte offset 4",
		"H100\xc3":         "invalid UTF-8 at byte offset 4",
		"é\xe9A100":        "invalid UTF-8 at byte offset 2",
		"A100\u200b":       "unknown device",
		"A100\ufffd":       "unknown device",
		"A100\u2122":       "unknown device",
		"H100 \U0001F600 ": "unknown device",
	} {
		d, err := Lookup(in)
		if err == nil {
			t.Errorf("Lookup(%q) = %s, want an error", in, d.Name)
			continue
		}
		if !strings.Contains(err.Error(), want) || strings.Count(err.Error(), "\n") > 0 {
			t.Errorf("Lookup(%q): error %q, want one line with %q", in, err, want)
		}
		if CheckName(in) == nil != (want == "unknown device") {
			t.Errorf("CheckName(%q) = %v", in, CheckName(in))
		}
	}
	for in, want := range map[string]string{"A100\u00a0": "A100-40GB", "H100\u3000SXM": "H100-SXM", "mi300x\u2010cpx": "MI300X-CPX"} {
		if d, err := Lookup(in); err != nil || d.Name != want {
			t.Errorf("Lookup(%q) = %v, %v; want %s (Unicode spaces and punctuation do not count)", in, d, err, want)
		}
	}
	for _, n := range []int{MaxNameBytes + 1, 1 << 20} {
		_, err := Lookup(strings.Repeat("n", n))
		want := `device name "nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn"… of ` + strconv.Itoa(n) + " bytes: longer than the 256 bytes a device name may have"
		if err == nil || err.Error() != want {
			t.Errorf("Lookup of %d bytes: %v, want %q", n, err, want)
		}
	}
	_, err := Lookup(strings.Repeat("n", MaxNameBytes))
	if err == nil || !strings.Contains(err.Error(), "closest known devices: ") {
		t.Errorf("Lookup of %d bytes: %v, want an unknown device with suggestions", MaxNameBytes, err)
	}
}

// TestDeviceFileNames checks that a device file whose name, display name
// or alias holds a control character is refused at that key, and a
// based_on of such a name too.
func TestDeviceFileNames(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"based_on: A100-40GB\nname: \"A100\\0\"\nsources: {sms: x}\nsms: 108\n", `key "name": device name "A100\x00": control character U+0000 at byte offset 4`},
		{"based_on: A100-40GB\nname: A100-copy\ndisplay_name: \"A\\e[1mB\"\n", `key "display_name": device name "A\x1b[1mB": control character U+001B`},
		{"based_on: A100-40GB\nname: A100-copy\naliases: [ok, \"x\\ty\"]\n", `key "aliases": aliases[1]: device name "x\ty": control character U+0009`},
		{"based_on: \"A100\\u007f\"\nname: A100-copy\n", `key "based_on": device name "A100\x7f": control character U+007F`},
	} {
		_, err := Parse([]byte(tc.text), "names.yaml")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v, want an error with %q", tc.text, err, tc.want)
		}
	}
}

// TestIssueRates checks every device's warp-instruction issue rate against
// its architecture, and that its source names the architecture's document:
// four SM sub-partitions, each with a scheduler issuing one warp
// instruction per cycle, on NVIDIA since Volta; one wave64 vector
// instruction per CU per cycle on CDNA (four SIMD16, each served every
// fourth cycle); two wave32 instructions per CU on RDNA (two SIMD32, RDNA 3
// dual issue not counted). Thread instructions per cycle are the rate times
// the warp size: 128 per SM on NVIDIA, 64 per CU on AMD.
func TestIssueRates(t *testing.T) {
	docs := map[string]string{ // arch → the document its source must name
		"sm_70": "Tesla V100 GPU Architecture", "sm_80": "A100 Tensor Core GPU Architecture",
		"sm_86": "Ampere GA102 GPU Architecture", "sm_89": "ADA GPU Architecture", "sm_90": "H100 Tensor Core GPU",
		"sm_100": "Blackwell Architecture Technical Brief", "sm_120": "RTX Blackwell GPU Architecture",
		"gfx908": "AMD CDNA Architecture", "gfx90a": "CDNA 2", "gfx942": "CDNA 3",
		"gfx1030": "RDNA Architecture", "gfx1032": "RDNA Architecture", "gfx1100": "RDNA 3",
	}
	want := map[L1Model]struct {
		issue   float64
		threads int
	}{L1NV: {4, 128}, L1CDNA: {1, 64}, L1RDNA: {2, 64}}
	for _, d := range All() {
		w := want[d.L1Model]
		if d.IssuePerCycleSM != w.issue || d.IssuePerCycleSM*float64(d.WarpSize) != float64(w.threads) {
			t.Errorf("%s (%s): issue_per_cycle_sm %v (%v thread instructions per cycle), want %v (%d)",
				d.Name, d.Arch, d.IssuePerCycleSM, d.IssuePerCycleSM*float64(d.WarpSize), w.issue, w.threads)
		}
		doc, ok := docs[d.Arch]
		if src := d.Source("issue_per_cycle_sm"); !ok || !strings.Contains(src, doc) {
			t.Errorf("%s (%s): issue_per_cycle_sm source %q does not name %q", d.Name, d.Arch, src, doc)
		}
		if d.Arch == "gfx1100" && !strings.Contains(d.Source("issue_per_cycle_sm"), "dual issue") {
			t.Errorf("%s: the issue rate's source does not say that RDNA 3 dual issue is not counted", d.Name)
		}
	}
}

// TestWorkstationGPUs checks the four workstation entries that no
// measurement covers: their spec-sheet numbers, and estimates derived from
// the measured device of their family (the A40 for GA10x, the RX6900XT for
// RDNA): DRAM the spec sheet's peak times that device's measured fraction of
// its own peak, latencies its nanoseconds at this clock, the L2 bandwidth
// named as taken from it; none may claim a measurement.
func TestWorkstationGPUs(t *testing.T) {
	tests := []struct {
		name, arch, base string
		sms              int
		clock            float64
		l2               int64
		peak, basePeak   float64 // DRAM GB/s: the spec sheet's peak, the base's peak
	}{
		{"RTX-A4000", "sm_86", "A40", 48, 1.56, 4 * mib, 448, 696},
		{"RTX-A6000", "sm_86", "A40", 84, 1.8, 6 * mib, 768, 696},
		{"PRO-W6600", "gfx1032", "RX6900XT", 28, 2.903, 2 * mib, 224, 512},
		{"PRO-W7800", "gfx1100", "RX6900XT", 70, 2.5, 6 * mib, 576, 512},
	}
	for _, tc := range tests {
		d, err := Lookup(tc.name)
		if err != nil {
			t.Fatal(err)
		}
		base, err := Lookup(tc.base)
		if err != nil {
			t.Fatal(err)
		}
		if d.Arch != tc.arch || d.SMs != tc.sms || d.ClockGHz != tc.clock || d.L2Bytes != tc.l2 ||
			d.L1Model != base.L1Model || d.WarpSize != base.WarpSize || d.L2Partitions != 1 {
			t.Errorf("%s: arch %s, %d SMs at %v GHz, L2 %d, model %s, warp %d, %d L2 partitions", d.Name, d.Arch, d.SMs, d.ClockGHz, d.L2Bytes, d.L1Model, d.WarpSize, d.L2Partitions)
		}
		if base.SourceClass("dram_bandwidth_gbs") != SourceMeasured {
			t.Fatalf("%s: the DRAM bandwidth of %s is not measured", d.Name, base.Name)
		}
		if want := tc.peak * base.DRAMBandwidthGBs / tc.basePeak; math.Abs(d.DRAMBandwidthGBs-want) > 0.5 {
			t.Errorf("%s: DRAM %v GB/s, want the peak %v x %v/%v = %.1f", d.Name, d.DRAMBandwidthGBs, tc.peak, base.DRAMBandwidthGBs, tc.basePeak, want)
		}
		for _, key := range []string{"dram_bandwidth_gbs", "l2_bandwidth_gbs", "latencies.dram_cycles", "latencies.l2_cycles", "latencies.l1_cycles"} {
			if src := d.Source(key); d.SourceClass(key) != SourceEstimate || !strings.Contains(src, tc.base) {
				t.Errorf("%s %s: source %q, want an estimate that names %s", d.Name, key, src, tc.base)
			}
		}
		if !(d.L2BandwidthGBs > 0) || d.L2BandwidthGBs > 2*base.L2BandwidthGBs {
			t.Errorf("%s: L2 bandwidth %v GB/s, more than twice the %s's %v", d.Name, d.L2BandwidthGBs, base.Name, base.L2BandwidthGBs)
		}
		// The base's latencies are whole cycles at its clock: one cycle of
		// slack, and 1 %.
		for _, l := range latencyLevels {
			want := l.value(base) * d.ClockGHz / base.ClockGHz
			if got := l.value(d); math.Abs(got-want) > 1+0.01*want {
				t.Errorf("%s %s = %v cycles, want the %s's nanoseconds at %v GHz: %.1f", d.Name, l.key, got, base.Name, d.ClockGHz, want)
			}
		}
		if d.Vendor == "amd" && !strings.Contains(string(mustReadDB(t, d.Name)), "Infinity Cache") {
			t.Errorf("%s: the device file does not say that the model sees the L2 only, not the Infinity Cache", d.Name)
		}
	}
}

// mustReadDB returns the embedded database file of the device name.
func mustReadDB(t *testing.T, name string) []byte {
	t.Helper()
	data, err := dbFiles.ReadFile("db/" + strings.ToLower(name) + ".yaml")
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestSiblingEstimates checks the entries whose bandwidths and latencies no
// measurement covers and that take them from the measured device of the
// same die or family: their spec-sheet numbers, the DRAM bandwidth (the
// spec sheet's peak times the sibling's measured fraction of its own peak,
// or the peak itself where no sibling's fraction applies), the latencies
// (the sibling's nanoseconds at this clock) and sources that name the
// sibling as an estimate.
func TestSiblingEstimates(t *testing.T) {
	tests := []struct {
		name, arch, sibling string // sibling: the measured device of the latencies
		l2From              string // the device the L2 bandwidth's source names
		sms                 int
		clock               float64
		l2                  int64
		partitions          int
		peak, siblingPeak   float64 // DRAM GB/s; siblingPeak 0: the peak itself, a spec-sheet value
	}{
		{"B200", "sm_100", "GH200", "GB200", 148, 1.965, 63 * mib, 2, 8000, 0},
		{"MI250X", "gfx90a", "MI210", "MI210", 110, 1.7, 8 * mib, 1, 1638.4, 1638.4},
		{"RTX-4090", "sm_89", "L40", "L40", 128, 2.52, 72 * mib, 1, 1008, 864},
		{"RTX-5090", "sm_120", "L40", "L40", 170, 2.407, 96 * mib, 1, 1792, 864},
	}
	for _, tc := range tests {
		d, err := Lookup(tc.name)
		if err != nil {
			t.Fatal(err)
		}
		sib, err := Lookup(tc.sibling)
		if err != nil {
			t.Fatal(err)
		}
		if d.Arch != tc.arch || d.SMs != tc.sms || d.ClockGHz != tc.clock || d.L2Bytes != tc.l2 ||
			d.L2Partitions != tc.partitions || d.L1Model != sib.L1Model || d.WarpSize != sib.WarpSize {
			t.Errorf("%s: arch %s, %d SMs at %v GHz, L2 %d in %d partitions, model %s, warp %d", d.Name, d.Arch, d.SMs, d.ClockGHz, d.L2Bytes, d.L2Partitions, d.L1Model, d.WarpSize)
		}
		if tc.siblingPeak == 0 {
			if d.DRAMBandwidthGBs != tc.peak || d.SourceClass("dram_bandwidth_gbs") != SourceSpecSheet {
				t.Errorf("%s: DRAM %v GB/s (%s), want the spec sheet's peak %v", d.Name, d.DRAMBandwidthGBs, d.SourceClass("dram_bandwidth_gbs"), tc.peak)
			}
		} else {
			if sib.SourceClass("dram_bandwidth_gbs") != SourceMeasured {
				t.Fatalf("%s: the DRAM bandwidth of %s is not measured", d.Name, sib.Name)
			}
			if want := tc.peak * sib.DRAMBandwidthGBs / tc.siblingPeak; math.Abs(d.DRAMBandwidthGBs-want) > 0.5 {
				t.Errorf("%s: DRAM %v GB/s, want the peak %v x %v/%v = %.1f", d.Name, d.DRAMBandwidthGBs, tc.peak, sib.DRAMBandwidthGBs, tc.siblingPeak, want)
			}
			if src := d.Source("dram_bandwidth_gbs"); d.SourceClass("dram_bandwidth_gbs") != SourceEstimate || !strings.Contains(src, tc.sibling) {
				t.Errorf("%s dram_bandwidth_gbs: source %q, want an estimate that names %s", d.Name, src, tc.sibling)
			}
		}
		if src := d.Source("l2_bandwidth_gbs"); d.SourceClass("l2_bandwidth_gbs") != SourceEstimate || !strings.Contains(src, tc.l2From) {
			t.Errorf("%s l2_bandwidth_gbs: source %q, want an estimate that names %s", d.Name, src, tc.l2From)
		}
		for _, l := range latencyLevels {
			want := l.value(sib) * d.ClockGHz / sib.ClockGHz
			if got := l.value(d); math.Abs(got-want) > 1+0.01*want {
				t.Errorf("%s %s = %v cycles, want the %s's nanoseconds at %v GHz: %.1f", d.Name, l.key, got, sib.Name, d.ClockGHz, want)
			}
			if src := d.Source(l.key); d.SourceClass(l.key) != SourceEstimate || !strings.Contains(src, tc.sibling) {
				t.Errorf("%s %s: source %q, want an estimate that names %s", d.Name, l.key, src, tc.sibling)
			}
		}
	}
}

// TestSuggestionOrder checks that the closest known devices of an unknown
// name come in order of similarity: names that contain the query first,
// then by edit distance relative to the names' lengths, and that a short
// name inside the query does not outrank a closer one.
func TestSuggestionOrder(t *testing.T) {
	tests := []struct {
		query string
		first []string // the first suggestions, in any order
	}{
		{"RTX 4080", []string{"RTX-4090"}},
		{"geforce-rtx-4080", []string{"RTX-4090"}},
		{"a100x", []string{"A100-40GB", "A100-80GB"}},
		{"mi250", []string{"MI250X"}},
		{"MI-250", []string{"MI250X"}},
		{"H100 NVL", []string{"H100-SXM", "H100-PCIe"}},
		{"MI300", []string{"MI300A", "MI300X"}},
		{"b200-sxm6", []string{"B200"}},
	}
	for _, tc := range tests {
		got := loadDatabase().closest(tc.query, 3)
		if len(got) != 3 {
			t.Errorf("closest(%q) = %v, want 3 names", tc.query, got)
			continue
		}
		if head := got[:len(tc.first)]; !sameSet(head, tc.first) {
			t.Errorf("closest(%q) = %v, want %v first", tc.query, got, tc.first)
		}
	}
	if _, err := Lookup("RTX 4080"); err == nil || !strings.Contains(err.Error(), "closest known devices: RTX-4090, ") {
		t.Errorf("Lookup(\"RTX 4080\"): %v, want RTX-4090 as the first suggestion", err)
	}
}

// sameSet reports whether a and b hold the same strings, in any order.
func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}
