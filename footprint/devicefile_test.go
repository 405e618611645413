package footprint

import (
	"testing"

	"github.com/polyvol/polyvol/device"
)

// TestRulesFromDeviceFile checks that an architecture whose L1 differs from
// every family is a device file: the MI100's granularities (sub-warps of
// 16 lanes, 64-byte banks and lines) under NVIDIA's rules, and under CDNA's
// rules with fusion switched off, give the cycles a hand count predicts.
//
// The kernel loads a[2x] and a[2x+1], 4-byte elements, one block of 64
// threads: four sub-warps whose lane i reads the bytes at 8i (+4), 128
// bytes in two 64-byte lines.
//
//   - MI100 (CDNA): the two accesses fuse into one 8-byte access; issue cycles 4
//     (not 4-byte coalesced words), data pipe 16 units ⌊8i/8⌋ over 64/8 = 8
//     banks = 2, tag max(1 even, 1 odd line) = 1: c = 4 per sub-warp, 16
//     cycles over 64 threads = 0.25; data pipe 8/64, tag 4/64.
//   - NV rules: two 4-byte instructions; issue cycles 16·4/(16 LSUs·4) = 1, data
//     pipe units 2i (or 2i+1) over 64/4 = 16 banks, two per bank = 2, tag
//     ⌈(2+2)/4⌉ = 1: c = 2, 2·4·2 = 16 cycles over 64 threads = 0.25; data
//     pipe 16/64, tag 8/64.
//   - CDNA without fusion: two 4-byte instructions, each of issue cycles 4 (the
//     words at 8i are not consecutive), data pipe 2, tag 1: c = 4, 32 cycles
//     over 64 threads = 0.5; data pipe 16/64, tag 8/64.
func TestRulesFromDeviceFile(t *testing.T) {
	k := parseKernel(t, `
name: pairs
domain: [1024]
fields:
  - {name: a, element: 4, load: [[2*x], [2*x + 1]]}
`)
	l := k.NewLaunch([3]int64{64, 1, 1}, [3]int64{1, 1, 1})
	for _, c := range []struct {
		name, file            string
		instructions          int
		cycles, pipe, tag     float64
		wantIssue             device.L1Issue
		wantFusion            device.Fusion
		wantSharedIssueCycles float64
	}{
		{"MI100", "", 1, 0.25, 8.0 / 64, 4.0 / 64, device.IssueCoalescedDwords, device.FuseAdjacent, 0},
		{"MI100 with NV rules", `based_on: MI100
name: MI100-NV
l1_model: NV
lsus: 16
sources:
  lsus: "hypothetical: an SM of 16 load/store units"
`, 2, 0.25, 16.0 / 64, 8.0 / 64, device.IssueLSULanes, device.FuseNone, 1},
		{"MI100 without fusion", `based_on: MI100
name: MI100-UNFUSED
l1_rules:
  fusion: none
sources:
  l1_rules.fusion: "hypothetical: a compiler that emits no vector loads"
`, 2, 0.5, 16.0 / 64, 8.0 / 64, device.IssueCoalescedDwords, device.FuseNone, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := lookupDevice(t, "MI100")
			if c.file != "" {
				var err error
				if d, err = device.Parse([]byte(c.file), "new.yaml"); err != nil {
					t.Fatal(err)
				}
			}
			m := d.Memory()
			if m.Rules.Issue != c.wantIssue || m.Rules.Fusion != c.wantFusion {
				t.Errorf("rules %+v, want issue %s and fusion %s", m.Rules, c.wantIssue, c.wantFusion)
			}
			lists, err := Instructions(k, l, m, ExactWarpRules.Fusion)
			if err != nil {
				t.Fatal(err)
			}
			if len(lists) != 1 || len(lists[0].Instructions) != c.instructions {
				t.Fatalf("instruction lists %+v, want one list of %d", lists, c.instructions)
			}
			noFill := func(FieldInstructions, [][3]int64) (float64, error) { return 0, nil }
			r, err := L1CyclesOf(lists, l, m, ExactWarpRules, [][3]int64{{0, 0, 0}}, noFill, &Budget{})
			if err != nil {
				t.Fatal(err)
			}
			if !near(r.Cycles, c.cycles, 1e-12) || !near(r.DataPipe, c.pipe, 1e-12) || !near(r.Tag, c.tag, 1e-12) {
				t.Errorf("L1Cycles/DataPipe/Tag = %v/%v/%v, want %v/%v/%v", r.Cycles, r.DataPipe, r.Tag, c.cycles, c.pipe, c.tag)
			}
			// A 4-byte shared-memory load of 16 lanes through 16 LSUs takes
			// one cycle where shared memory passes the LSUs.
			if got := SharedIssueCycles(m, 4); got != c.wantSharedIssueCycles {
				t.Errorf("SharedIssueCycles = %v, want %v", got, c.wantSharedIssueCycles)
			}
		})
	}
}
