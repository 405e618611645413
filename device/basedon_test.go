package device

import (
	"strings"
	"testing"
)

// TestBasedOn checks that a device file with based_on keeps every number
// and source of the base it does not set, takes the ones it sets with their
// own sources, and needs a source for each of them.
func TestBasedOn(t *testing.T) {
	base, err := Lookup("H100-SXM")
	if err != nil {
		t.Fatal(err)
	}
	d, err := Parse([]byte(`based_on: H100-SXM
name: H100-BIG
l2_bytes: 52428800
limits:
  shared_per_sm: 233472
sources:
  l2_bytes: "hypothetical: twice the L2"
  limits.shared_per_sm: "hypothetical: 228 KiB"
`), "big.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if d.Name != "H100-BIG" || d.BasedOn != "H100-SXM" || len(d.Aliases) != 0 || d.DisplayName != "based on "+base.DisplayName {
		t.Errorf("name %q based_on %q aliases %v display %q", d.Name, d.BasedOn, d.Aliases, d.DisplayName)
	}
	if d.L2Bytes != 52428800 || d.Limits.SharedPerSM != 233472 {
		t.Errorf("overrides not applied: l2 %d shared %d", d.L2Bytes, d.Limits.SharedPerSM)
	}
	if d.SMs != base.SMs || d.Limits.RegistersPerSM != base.Limits.RegistersPerSM || d.Latencies != base.Latencies || d.DRAMBandwidthGBs != base.DRAMBandwidthGBs {
		t.Error("numbers the file leaves out differ from the base's")
	}
	for key, want := range map[string]string{
		"l2_bytes": "hypothetical: twice the L2", "limits.shared_per_sm": "hypothetical: 228 KiB",
		"sms": base.Source("sms"), "limits.registers_per_sm": base.Source("limits.registers_per_sm"),
		"latencies.dram_cycles": base.Source("latencies.dram_cycles"),
	} {
		if got := d.Source(key); got != want {
			t.Errorf("source of %s = %q, want %q", key, got, want)
		}
	}
	if base2, _ := Lookup("H100-SXM"); base2.L2Bytes != base.L2Bytes || base2.Source("l2_bytes") != base.Source("l2_bytes") {
		t.Error("the database device changed")
	}
}

// TestBasedOnErrors checks the errors of based_on: each names the file, the
// line and the key.
func TestBasedOnErrors(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{"based_on: H100-SXM\nsms: 100\n", `big.yaml:1: key "based_on": a device based on H100-SXM needs its own name`},
		{"based_on: H999\nname: X\n", `big.yaml:1: key "based_on": unknown device "H999"`},
		{"name: X\nbased_on: H100-SXM\nsms: 100\n", `no source for "sms"`},
		{"name: X\nbased_on: H100-SXM\nlimits:\n  shared_per_sm: 1000\nsources:\n  limits.shared_per_sm: here\n", `key "limits.shared_per_block": inherited from H100-SXM; must not exceed limits.shared_per_sm (1000)`},
		{"name: X\nbased_on: H100-SXM\nlimits:\n  max_blocks_per_sm: 16\n", `no source for "limits.max_blocks_per_sm"`},
	} {
		_, err := Parse([]byte(tc.doc), "big.yaml")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want one containing %q", tc.doc, err, tc.want)
		}
	}
	if _, err := parse([]byte("name: X\nbased_on: H100-SXM\n"), "db/x.yaml", nil); err == nil || !strings.Contains(err.Error(), "not allowed in the embedded database") {
		t.Errorf("based_on in the database: %v", err)
	}
}
