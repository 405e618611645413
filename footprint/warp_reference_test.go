package footprint

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/polyvol/polyvol/kernel"
)

// referenceRecord is the part of a reference/*.jsonl line these tests check
// (see reference/README.md).
type referenceRecord struct {
	Kernel    string   `json:"kernel"`
	Block     [3]int64 `json:"block"`
	Domain    []int64  `json:"domain"`
	Fold      [3]int64 `json:"blocking_factors"`
	DeviceKey string   `json:"device_key"`
	Error     *string  `json:"error"`
	Basic     struct {
		BlockL1Load  float64 `json:"blockL1Load"`
		BlockL2Store float64 `json:"blockL2Store"`
		L1Cycles     float64 `json:"L1Cycles"`
	} `json:"basic"`
	Extra struct {
		FieldL1Cycles map[string]struct {
			DataPipe float64 `json:"dataPipeCycles"`
			Tag      float64 `json:"tagCycles"`
			Total    float64 `json:"total"`
			CLCount  float64 `json:"CLCount"`
		} `json:"fieldL1Cycles"`
		DataPipe   float64 `json:"L1DataPipeCycles"`
		Tag        float64 `json:"L1TagCycles"`
		WarpL1Load float64 `json:"warpL1Load"`
	} `json:"basic_extra"`
}

// referenceExamples maps the reference's kernel names to the example specs
// that describe the same kernels.
var referenceExamples = map[string]string{
	"star3d_r4_25pt": "star3d-r4",
	"star2d_r1_5pt":  "star2d-r1",
}

func readReferenceRecords(t *testing.T) []referenceRecord {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "reference", "*.jsonl"))
	if len(files) == 0 {
		t.Fatal("no ../testdata/reference/*.jsonl: the reference outputs are missing")
	}
	var out []referenceRecord
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		s := bufio.NewScanner(f)
		s.Buffer(nil, 1<<20)
		for s.Scan() {
			var r referenceRecord
			if err := json.Unmarshal(s.Bytes(), &r); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if r.Error == nil {
				out = append(out, r)
			}
		}
		f.Close()
		if err := s.Err(); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func TestReferenceOutputs(t *testing.T) {
	// Every configuration of reference/*.jsonl, method Reference: the
	// per-instruction volumes, the L1 cycles per thread and, per field,
	// the data-pipe, tag and total cycles and the line count CLCount.
	for _, r := range readReferenceRecords(t) {
		name := fmt.Sprintf("%s/%v/%v", r.Kernel, r.Block, r.Fold)
		t.Run(name, func(t *testing.T) {
			example, ok := referenceExamples[r.Kernel]
			if !ok {
				t.Fatalf("no example spec for kernel %q of the reference outputs (referenceExamples)", r.Kernel)
			}
			k := exampleKernel(t, example)
			d := lookupDevice(t, strings.ReplaceAll(r.DeviceKey, "_", "-"))
			l := kernel.Launch{Block: r.Block, Fold: r.Fold, Domain: [3]int64{1, 1, 1}}
			copy(l.Domain[:], r.Domain)
			w, err := WarpVolumes(k, l, d.Memory(), ReferenceWarpRules, nil)
			if err != nil {
				t.Fatal(err)
			}
			if w.BlockL1Load != r.Basic.BlockL1Load || w.BlockL2Store != r.Basic.BlockL2Store || w.WarpL1Load != r.Extra.WarpL1Load {
				t.Errorf("blockL1Load, blockL2Store, warpL1Load = %v, %v, %v, want %v, %v, %v",
					w.BlockL1Load, w.BlockL2Store, w.WarpL1Load, r.Basic.BlockL1Load, r.Basic.BlockL2Store, r.Extra.WarpL1Load)
			}
			c, err := L1Cycles(k, l, d.Memory(), ReferenceWarpRules, nil, bruteAllocLines(l, d, ReferenceWarpRules))
			if err != nil {
				t.Fatal(err)
			}
			if !near(c.Cycles, r.Basic.L1Cycles, 1e-12) || !near(c.DataPipe, r.Extra.DataPipe, 1e-12) || !near(c.Tag, r.Extra.Tag, 1e-12) {
				t.Errorf("L1Cycles/DataPipe/Tag = %v/%v/%v, want %v/%v/%v", c.Cycles, c.DataPipe, c.Tag, r.Basic.L1Cycles, r.Extra.DataPipe, r.Extra.Tag)
			}
			for _, f := range c.Fields {
				name := k.Fields[f.Field].Name
				want, ok := r.Extra.FieldL1Cycles[name]
				if !ok {
					t.Errorf("field %s missing from the reference output", name)
					continue
				}
				if !near(f.DataPipe, want.DataPipe, 1e-12) || !near(f.Tag, want.Tag, 1e-12) || !near(f.Cycles, want.Total, 1e-12) || !near(f.Lines, want.CLCount, 1e-12) {
					t.Errorf("field %s: data pipe/tag/total/lines = %v/%v/%v/%v, want %v/%v/%v/%v",
						name, f.DataPipe, f.Tag, f.Cycles, f.Lines, want.DataPipe, want.Tag, want.Total, want.CLCount)
				}
			}
		})
	}
}
