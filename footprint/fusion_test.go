package footprint

import (
	"fmt"
	"testing"

	"github.com/polyvol/polyvol/kernel"
)

// fusedLayout returns an instruction list as "width@offset" items, the
// offset being the address at thread (0,0,0).
func fusedLayout(list []Instruction) []string {
	var out []string
	for _, in := range list {
		out = append(out, fmt.Sprintf("%d@%d", in.Width, in.Address.Eval(kernel.Point{})))
	}
	return out
}

// loadLayout returns the fused load list of the field named name.
func loadLayout(t *testing.T, k *kernel.Kernel, l kernel.Launch, dev string, m WarpRules, name string) []string {
	t.Helper()
	lists, err := Instructions(k, l, lookupDevice(t, dev).Memory(), m.Fusion)
	if err != nil {
		t.Fatal(err)
	}
	for _, fi := range lists {
		if fi.Field.Name == name && !fi.Store {
			return fusedLayout(fi.Instructions)
		}
	}
	t.Fatalf("no load list for field %s", name)
	return nil
}

// vec3Permuted is C1's kernel with A's and D's accesses in the order that
// makes the reference's fusion produce what §7.3 reports for C4.
const vec3Permuted = `
name: c1-permuted
domain: [1000000]
flops: 13
fields:
  - {name: A, element: 8, load: [[3*x + 2], [3*x + 1], [3*x]]}
  - {name: B, element: 8, load: [[x]], store: [[x]]}
  - {name: D, element: 8, store: [[3*x + 2], [3*x + 1], [3*x]]}
`

func TestFusionC4(t *testing.T) {
	// §3.9 on C1's kernel: the reference's procedure is order-dependent.
	// In the spec's order 3x, 3x+1 merge first; in the order 3x+2, 3x+1, 3x
	// the pair (3x+1, 3x+2) is found first, giving what §7.3 reports for C4
	// (16 B at byte offset 8 plus 8 B at offset 0). Both give C4's check
	// values. Method Exact merges in address order whatever the order.
	block := [3]int64{1024, 1, 1}
	for _, c := range []struct {
		spec           string
		reference, exa string
	}{
		{vec3Spec, "[16@0 8@16]", "[16@0 8@16]"},
		{vec3Permuted, "[16@8 8@0]", "[16@0 8@16]"},
	} {
		k := parseKernel(t, c.spec)
		l := k.NewLaunch(block, kernel.NoFold)
		if got := fmt.Sprint(loadLayout(t, k, l, "MI210", ReferenceWarpRules, "A")); got != c.reference {
			t.Errorf("%s: reference fusion of A = %s, want %s", k.Name, got, c.reference)
		}
		if got := fmt.Sprint(loadLayout(t, k, l, "MI210", ExactWarpRules, "A")); got != c.exa {
			t.Errorf("%s: exact fusion of A = %s, want %s", k.Name, got, c.exa)
		}
		d := lookupDevice(t, "MI210")
		r, err := L1Cycles(k, l, d.Memory(), ReferenceWarpRules, nil, bruteAllocLines(l, d, ReferenceWarpRules))
		if err != nil {
			t.Fatal(err)
		}
		if r.Cycles != 2.25 || r.DataPipe != 2.25 || r.Tag != 0.875 {
			t.Errorf("%s: C4 L1Cycles/DataPipe/Tag = %v/%v/%v, want 2.25/2.25/0.875", k.Name, r.Cycles, r.DataPipe, r.Tag)
		}
		// NVIDIA devices never fuse.
		if got := fmt.Sprint(loadLayout(t, k, l, "A100-40GB", ReferenceWarpRules, "A")); got != "[8@0 8@8 8@16]" && got != "[8@16 8@8 8@0]" {
			t.Errorf("%s: A on the A100 = %s, want three 8-byte accesses", k.Name, got)
		}
	}
}

func TestFusionRules(t *testing.T) {
	cases := []struct {
		name, spec       string
		fold             [3]int64
		reference, exact string
	}{{
		// Repeated restarts: 4x, 4x+1 → 8 B, then + 4x+2 → 12 B, + 4x+3 → 16 B.
		name:      "four floats",
		spec:      "{name: A, element: 4, load: [[4*x], [4*x + 1], [4*x + 2], [4*x + 3]]}",
		fold:      kernel.NoFold,
		reference: "[16@0]", exact: "[16@0]",
	}, {
		// The 16-byte cap leaves the fifth float alone.
		name:      "five floats",
		spec:      "{name: A, element: 4, load: [[5*x], [5*x + 1], [5*x + 2], [5*x + 3], [5*x + 4]]}",
		fold:      kernel.NoFold,
		reference: "[16@0 4@16]", exact: "[16@0 4@16]",
	}, {
		// Sorting by width first: once 2x+1, 2x+2 form 16 B nothing else
		// fits; 2x and 2x+3 stay apart. Exact, in address order, pairs
		// (2x, 2x+1) and (2x+2, 2x+3).
		name:      "sort and restart",
		spec:      "{name: A, element: 8, load: [[2*x + 1], [2*x + 2], [2*x], [2*x + 3]]}",
		fold:      kernel.NoFold,
		reference: "[16@8 8@0 8@24]", exact: "[16@0 16@16]",
	}, {
		// Folding x by 2: 2x is needed by point 0, 2x+1 by point 1. The
		// reference fuses them; Exact does not, because the two points have
		// different predicates at the domain's edge.
		name:      "folded points",
		spec:      "{name: A, element: 8, load: [[x]]}",
		fold:      [3]int64{2, 1, 1},
		reference: "[16@0]", exact: "[8@0 8@8]",
	}, {
		// Accesses of different rows never differ by a constant width.
		name:      "no constant distance",
		spec:      "{name: A, element: 8, extent: [64, 64], load: [[x, y], [x, 2*y]]}",
		fold:      kernel.NoFold,
		reference: "[8@0 8@0]", exact: "[8@0 8@0]",
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			k := parseKernel(t, "name: f\ndomain: [64, 64]\nfields:\n  - "+c.spec+"\n")
			l := k.NewLaunch([3]int64{64, 1, 1}, c.fold)
			for _, dev := range []string{"MI210", "RX6900XT"} {
				if got := fmt.Sprint(loadLayout(t, k, l, dev, ReferenceWarpRules, "A")); got != c.reference {
					t.Errorf("%s reference: %s, want %s", dev, got, c.reference)
				}
				if got := fmt.Sprint(loadLayout(t, k, l, dev, ExactWarpRules, "A")); got != c.exact {
					t.Errorf("%s exact: %s, want %s", dev, got, c.exact)
				}
			}
		})
	}
}

func TestFusedAccessByteRange(t *testing.T) {
	// Loads 2x+1 and 2x+2 of doubles (α = 0) fuse into one 16-byte access
	// at byte 16x+8. On the MI210 (64 lanes, 64-byte sectors) the reference
	// counts start addresses 8..1016, sectors 0..15; Exact counts the full
	// ranges 8..1031, sectors 0..16 (§8 item 10).
	k := parseKernel(t, "name: f\ndomain: [1280]\nfields:\n  - {name: A, element: 8, extent: [4096], load: [[2*x + 1], [2*x + 2]]}\n")
	l := k.NewLaunch([3]int64{64, 1, 1}, kernel.NoFold)
	d := lookupDevice(t, "MI210")
	ref, err := WarpVolumes(k, l, d.Memory(), ReferenceWarpRules, nil)
	if err != nil {
		t.Fatal(err)
	}
	exact, err := WarpVolumes(k, l, d.Memory(), ExactWarpRules, [][3]int64{{10, 0, 0}})
	if err != nil {
		t.Fatal(err)
	}
	if ref.BlockL1Load != 16*64 || exact.BlockL1Load != 17*64 {
		t.Errorf("blockL1Load reference, exact = %v, %v, want %v, %v", ref.BlockL1Load, exact.BlockL1Load, 16*64, 17*64)
	}
}

// TestInstructionCache checks that the cache gives what Instructions
// computes for every launch it is asked about, sharing one computation
// between launches that differ only in what the instructions do not
// depend on (the block of a consecutive tiling, a device of the same L1
// family), and none between those that differ in the rest.
func TestInstructionCache(t *testing.T) {
	k := exampleKernel(t, "star3d-r4")
	a100, mi100 := lookupDevice(t, "A100-40GB"), lookupDevice(t, "MI100")
	cache := NewInstructionCache()
	layout := func(lists []FieldInstructions) string {
		var out []string
		for _, fi := range lists {
			out = append(out, fmt.Sprint(fi.Field.Name, fi.Store, fusedLayout(fi.Instructions)))
		}
		return fmt.Sprint(out)
	}
	launch := func(block, fold [3]int64, tiling kernel.Tiling) kernel.Launch {
		l := k.NewLaunch(block, fold)
		l.Tiling = tiling
		return l
	}
	first := map[string][]FieldInstructions{}
	for _, c := range []struct {
		l     kernel.Launch
		d     string
		group string // launches of one group share their instructions
	}{
		{launch([3]int64{256, 1, 1}, [3]int64{1, 1, 2}, kernel.TileConsecutive), "A100-40GB", "fold 1,1,2"},
		{launch([3]int64{32, 8, 1}, [3]int64{1, 1, 2}, kernel.TileConsecutive), "A100-40GB", "fold 1,1,2"},
		{launch([3]int64{32, 8, 1}, [3]int64{1, 1, 2}, kernel.TileConsecutive), "MI100", "fold 1,1,2 fused"},
		{launch([3]int64{32, 8, 1}, [3]int64{1, 1, 2}, kernel.TileStrided), "A100-40GB", "strided 32,8,1"},
		{launch([3]int64{64, 4, 1}, [3]int64{1, 1, 2}, kernel.TileStrided), "A100-40GB", "strided 64,4,1"},
		{launch([3]int64{256, 1, 1}, [3]int64{1, 1, 1}, kernel.TileConsecutive), "A100-40GB", "fold 1,1,1"},
	} {
		d := a100
		if c.d == "MI100" {
			d = mi100
		}
		got, err := cache.Instructions(k, c.l, d.Memory(), FuseInAddressOrder)
		if err != nil {
			t.Fatal(err)
		}
		want, err := Instructions(k, c.l, d.Memory(), FuseInAddressOrder)
		if err != nil {
			t.Fatal(err)
		}
		if layout(got) != layout(want) {
			t.Errorf("%s: cached %s, computed %s", c.group, layout(got), layout(want))
		}
		if prev, ok := first[c.group]; ok && &prev[0] != &got[0] {
			t.Errorf("%s: computed again", c.group)
		}
		for g, prev := range first {
			if g != c.group && &prev[0] == &got[0] {
				t.Errorf("%s: shares the instructions of %s", c.group, g)
			}
		}
		if _, ok := first[c.group]; !ok {
			first[c.group] = got
		}
	}
}

// TestFieldIndexCarried checks that every instruction list names its
// field's index in the kernel and that the warp volumes, L1 cycles and
// staging results carry the index of the list they come from, for a kernel
// of many fields and a staged one.
func TestFieldIndexCarried(t *testing.T) {
	d := lookupDevice(t, "A100-40GB")
	for _, name := range []string{"lbm-d3q19-pull", "star3d-r1-staged"} {
		k := exampleKernel(t, name)
		l := k.NewLaunch([3]int64{64, 2, 2}, kernel.NoFold)
		lists, err := Instructions(k, l, d.Memory(), FuseInAddressOrder)
		if err != nil {
			t.Fatal(err)
		}
		var want []int
		for _, fi := range lists {
			if fi.Index < 0 || fi.Index >= len(k.Fields) || k.Fields[fi.Index].Name != fi.Field.Name {
				t.Fatalf("%s: list of field %q has index %d", name, fi.Field.Name, fi.Index)
			}
			if !fi.Shared {
				want = append(want, fi.Index)
			}
		}
		sample := [][3]int64{{0, 0, 0}, {1, 1, 1}}
		w, err := WarpVolumesOf(lists, l, d.Memory(), ExactWarpRules, sample, nil)
		if err != nil {
			t.Fatal(err)
		}
		l1, err := L1CyclesOf(lists, l, d.Memory(), ExactWarpRules, sample, func(FieldInstructions, [][3]int64) (float64, error) { return 0, nil }, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(w.Fields) != len(want) || len(l1.Fields) != len(want) {
			t.Fatalf("%s: %d warp and %d L1 fields, want %d", name, len(w.Fields), len(l1.Fields), len(want))
		}
		for i, fi := range want {
			if w.Fields[i].Field != fi || l1.Fields[i].Field != fi {
				t.Errorf("%s: list %d: warp field %d, L1 field %d, want %d", name, i, w.Fields[i].Field, l1.Fields[i].Field, fi)
			}
		}
		_, shared := SplitShared(lists)
		s, err := StagingOf(shared, k, l, d.Memory(), ExactWarpRules, sample)
		if err != nil {
			t.Fatal(err)
		}
		for i, sf := range s.Fields {
			if sf.Field != shared[i].Index || sf.L1.Field != shared[i].Index {
				t.Errorf("%s: staged field %d has index %d (L1 %d), want %d", name, i, sf.Field, sf.L1.Field, shared[i].Index)
			}
		}
		if name == "star3d-r1-staged" && len(s.Fields) == 0 {
			t.Errorf("%s: nothing staged", name)
		}
	}
}
