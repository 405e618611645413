package cli

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/polyvol/polyvol/model"
)

// TestWarpPerRowSpecByHand checks testdata/specs/matvec-warp-row.yaml
// (16384 rows of 1024 doubles), the guide's closest spec of a
// matrix-vector product with a warp per row, under the guide's launch (a
// block 32 wide, each lane's columns 32 apart) against hand counts: every
// load instruction reads 32 consecutive doubles, whole sectors, so A and X
// each load 8 B per update through L1; lane 0 stores each row's sum once,
// one 32-byte sector to L2 and 8 bytes to DRAM per row; DRAM loads each
// element of A once, while X (8 KiB) stays in L2 from wave to wave. These
// are the counted volumes (DRAM load V2, store V1); the higher versions add
// fitted eviction terms.
func TestWarpPerRowSpecByHand(t *testing.T) {
	out := mustRun(t, "predict", "testdata/specs/matvec-warp-row.yaml", "--block", "32,8", "--fold", "32,1", "--tile", "strided", "--format", "json")
	var r model.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	d := r.Derived
	const cols = 1024
	if len(d.LoadFields) != 2 {
		t.Fatalf("load fields %+v, want A and X", d.LoadFields)
	}
	for _, f := range d.LoadFields {
		if math.Abs(f.L1Load-8) > 1e-9 {
			t.Errorf("%s: L1 load %v B/Lup, want 8", f.Name, f.L1Load)
		}
	}
	if want := 32.0 / cols; math.Abs(d.L2Store-want) > 1e-12 {
		t.Errorf("L2 store %v B/Lup, want a sector per row, %v", d.L2Store, want)
	}
	if want := 8.0 / cols; math.Abs(d.MemStoreV1-want) > 1e-12 {
		t.Errorf("DRAM store V1 %v B/Lup, want a double per row, %v", d.MemStoreV1, want)
	}
	if math.Abs(d.MemLoadV2-8) > 1e-4 {
		t.Errorf("DRAM load V2 %v B/Lup, want A's 8 with X in L2", d.MemLoadV2)
	}
}
