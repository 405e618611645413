package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/polyvol/polyvol/device"
)

// TestDevicesList checks that the list names every device of the database
// and the device of a --device-file.
func TestDevicesList(t *testing.T) {
	out := mustRun(t, "devices", "--device-file", "../examples/devices/a100-80mb-l2.yaml")
	for _, d := range append(device.All(), &device.Device{Name: "A100-80MB-L2", DisplayName: "Hypothetical A100 with 80 MB L2"}) {
		if !strings.Contains(out, d.Name) || !strings.Contains(out, d.DisplayName) {
			t.Errorf("list lacks %s (%s)", d.Name, d.DisplayName)
		}
	}
	// Each database device's row says where its two bandwidths come from.
	for _, d := range device.All() {
		from := d.SourceClass("l2_bandwidth_gbs") + " / " + d.SourceClass("dram_bandwidth_gbs")
		found := false
		for _, l := range strings.Split(out, "\n") {
			f := strings.Fields(l)
			found = found || len(f) > 0 && f[0] == d.Name && strings.HasSuffix(l, from)
		}
		if !found {
			t.Errorf("row of %s lacks the bandwidth sources %q:\n%s", d.Name, from, out)
		}
	}
	var list []map[string]any
	if err := json.Unmarshal([]byte(mustRun(t, "devices", "--format", "json")), &list); err != nil {
		t.Fatal(err)
	}
	if len(list) != len(device.All()) {
		t.Errorf("JSON lists %d devices, want %d", len(list), len(device.All()))
	}
}

// TestDevicesShow checks one device's parameters, their sources and lookup
// by alias.
func TestDevicesShow(t *testing.T) {
	d, err := device.Lookup("A100-40GB")
	if err != nil {
		t.Fatal(err)
	}
	out := mustRun(t, "devices", "a100") // an alias, any case
	for _, key := range []string{"sms", "l2_bytes", "limits.registers_per_sm", "latencies.dram_cycles"} {
		line := ""
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, key+" ") {
				line = l
			}
		}
		if line == "" || !strings.Contains(line, d.Source(key)) {
			t.Errorf("line of %s %q lacks its source %q", key, line, d.Source(key))
		}
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(mustRun(t, "devices", "A100-40GB", "--format", "json")), &m); err != nil {
		t.Fatal(err)
	}
	if m["sms"] != float64(d.SMs) || m["name"] != "A100-40GB" || m["sources"] == nil {
		t.Errorf("JSON sms %v name %v sources present %v", m["sms"], m["name"], m["sources"] != nil)
	}
}

// TestDeviceFileSelectsDevice checks that predict uses the device of a
// single --device-file when --device is not given.
func TestDeviceFileSelectsDevice(t *testing.T) {
	out := mustRun(t, "predict", "vec-copy", "--device-file", "../examples/devices/a100-80mb-l2.yaml", "--format", "csv")
	if !strings.Contains(out, ",A100-80MB-L2,") {
		t.Errorf("device file not used:\n%s", out)
	}
}
