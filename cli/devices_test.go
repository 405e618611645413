package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
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

// TestDevicesShow checks one device's parameters and L1 rules, their
// sources and lookup by alias.
func TestDevicesShow(t *testing.T) {
	d, err := device.Lookup("A100-40GB")
	if err != nil {
		t.Fatal(err)
	}
	out := mustRun(t, "devices", "a100") // an alias, any case
	for _, key := range []string{"sms", "l2_bytes", "limits.registers_per_sm", "latencies.dram_cycles", "l1_rules.issue"} {
		line := ""
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, key+" ") {
				line = l
			}
		}
		fields := strings.Fields(line)
		if len(fields) != 3 || !strings.Contains(out, "\n"+fields[2]+" "+d.Source(key)+"\n") {
			t.Errorf("line of %s %q does not refer to a footnote with its source %q", key, line, d.Source(key))
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

// TestDeviceTemplate checks the template trick of docs/guide.md: the JSON of
// devices NAME is a device file; with another name it loads as a device
// equal to NAME.
func TestDeviceTemplate(t *testing.T) {
	js := mustRun(t, "devices", "MI210", "--format", "json")
	path := filepath.Join(t.TempDir(), "copy.json")
	if err := os.WriteFile(path, []byte(strings.Replace(js, `"name": "MI210"`, `"name": "MI210-COPY"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	copied := mustRun(t, "devices", "--device-file", path, "MI210-COPY", "--format", "json")
	if strings.Replace(copied, "MI210-COPY", "MI210", 1) != js {
		t.Errorf("the copy differs from MI210:\n%s", firstDiff(js, copied))
	}
	out := mustRun(t, "devices", "MI210")
	if n, distinct := strings.Count(out, "\n["), len(uniqueLines(out, "[")); n != distinct || n == 0 {
		t.Errorf("%d footnotes, %d distinct", n, distinct)
	}
}

// uniqueLines returns the distinct lines of s that start with prefix.
func uniqueLines(s, prefix string) map[string]bool {
	seen := map[string]bool{}
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, prefix) {
			seen[strings.SplitN(l, " ", 2)[1]] = true
		}
	}
	return seen
}

// TestDeviceFileSelectsDevice checks that predict uses the device of a
// single --device-file when --device is not given.
func TestDeviceFileSelectsDevice(t *testing.T) {
	out := mustRun(t, "predict", "vec-copy", "--device-file", "../examples/devices/a100-80mb-l2.yaml", "--format", "csv")
	if !strings.Contains(out, ",A100-80MB-L2,") {
		t.Errorf("device file not used:\n%s", out)
	}
}

// TestDeviceNameChecks checks that every place that names a device refuses
// a name with a control character, invalid UTF-8 or more than 256 bytes
// with one line that starts with the flag or argument, as the server's
// error field expects, instead of resolving it; a name of 1 MB is refused
// before any device is suggested.
func TestDeviceNameChecks(t *testing.T) {
	profile := "../examples/profiles/star3d-r4-a100-illustrative.json"
	huge := strings.Repeat("n", 1<<20)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"predict", "vec-copy", "--device", "A100\x00"}, `--device: device name "A100\x00": control character U+0000 at byte offset 4`},
		{[]string{"predict", "vec-copy", "--device=A100-40GB\x00"}, `--device: device name "A100-40GB\x00": control character U+0000 at byte offset 9`},
		{[]string{"simulate", "vec-copy", "--domain", "1024", "--device", "\x00"}, `--device: device name "\x00": control character U+0000 at byte offset 0`},
		{[]string{"explore", "vec-copy", "--device", "A100\xc0"}, `--device: device name "A100\xc0": invalid UTF-8 at byte offset 4`},
		{[]string{"cuda", "vec-copy", "--block", "256", "--device", "A100\r"}, `--device: device name "A100\r": control character U+000D`},
		{[]string{"layercond", "star3d-r4", "--device", huge}, `--device: device name "nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn"… of 1048576 bytes: longer than the 256 bytes a device name may have`},
		{[]string{"devices", "A100\x00"}, `devices NAME: device name "A100\x00": control character U+0000`},
		{[]string{"devices", huge}, "devices NAME: device name"},
		{[]string{"project", "--profile", profile, "--from", "A100\x00", "--to", "H100-SXM"}, `--from: device name "A100\x00"`},
		{[]string{"project", "--profile", profile, "--from", "A100-40GB", "--to", huge}, "--to: device name"},
		{[]string{"accuracy", "--devices", "A100-40GB,H100\x00", "--kernels", "star3d-r1"}, `--devices: device name "H100\x00"`},
		{[]string{"predict", "vec-copy", "--device", "A100\u200b"}, `unknown device "A100\u200b"`},
	} {
		out, errOut, code := run(t, tc.args...)
		if code != ExitUsage || out != "" || strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, "polyvol: "+tc.want) {
			t.Errorf("%.80q: exit %d, stdout %d bytes, stderr %.300q; want exit 2 and one line starting %q", tc.args, code, len(out), errOut, tc.want)
		}
		if strings.Contains(errOut, "closest known devices") && strings.Contains(tc.want, "device name") {
			t.Errorf("%.80q: suggestions computed for a refused name", tc.args)
		}
	}
}
