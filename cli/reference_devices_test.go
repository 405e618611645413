package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReferenceDeviceFiles checks that the reference implementation's
// device table, as the device files of examples/devices/reference,
// reproduces the reference's printed performance: every sample of
// testdata/reference (the reference's own output for the A100-40GB) gives
// the same perf values and limiter with --method reference --model
// roofline, and every file of the table loads.
func TestReferenceDeviceFiles(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "examples", "devices", "reference", "*.yaml"))
	if err != nil || len(files) != 14 {
		t.Fatalf("%d reference device files (%v), want the 14 named entries of the reference's table", len(files), err)
	}
	for _, f := range files {
		if _, stderr, code := run(t, "predict", "vec-copy", "--device-file", f, "--quiet"); code != ExitOK {
			t.Errorf("%s: exit %d: %s", f, code, stderr)
		}
	}
	examples := map[string]string{"star3d_r4_25pt": "star3d-r4", "star2d_r1_5pt": "star2d-r1"}
	samples, err := filepath.Glob(filepath.Join("..", "testdata", "reference", "*.jsonl"))
	if err != nil || len(samples) == 0 {
		t.Fatalf("no reference samples: %v", err)
	}
	n := 0
	for _, path := range samples {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var s struct {
				Kernel    string             `json:"kernel"`
				Block     []int64            `json:"block"`
				Domain    []int64            `json:"domain"`
				Fold      []int64            `json:"blocking_factors"`
				DeviceKey string             `json:"device_key"`
				Derived   map[string]float64 `json:"derived"`
			}
			if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			if s.DeviceKey != "A100_40GB" {
				t.Fatalf("%s: device %s has no reference device file in this test", path, s.DeviceKey)
			}
			list := func(v []int64) string {
				return strings.Trim(strings.Join(strings.Fields(fmt.Sprint(v[:3])), ","), "[]")
			}
			args := []string{"predict", examples[s.Kernel], "--method", "reference", "--model", "roofline", "--format", "json",
				"--device-file", filepath.Join("..", "examples", "devices", "reference", "a100-40gb.yaml"),
				"--block", list(s.Block), "--fold", list(s.Fold), "--domain", list(s.Domain)}
			stdout, stderr, code := run(t, args...)
			if code != ExitOK {
				t.Fatalf("%v: exit %d: %s", args, code, stderr)
			}
			var r struct{ Derived map[string]any }
			if err := json.Unmarshal([]byte(stdout), &r); err != nil {
				t.Fatal(err)
			}
			for _, k := range []string{"perfL1", "perfL2V2", "perfMemV3", "perfV3", "limV3"} {
				got, ok := r.Derived[k].(float64)
				if want := s.Derived[k]; !ok || math.Abs(got-want) > 1e-12*math.Abs(want) {
					t.Errorf("%s block %v fold %v: %s = %v, the reference printed %v", s.Kernel, s.Block, s.Fold, k, r.Derived[k], want)
				}
			}
			n++
		}
		f.Close()
	}
	if n == 0 {
		t.Fatal("no samples")
	}
}
