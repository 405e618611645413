package footprint

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/polyvol/polyvol/kernel"
)

// wideSpec returns a spec of fields load fields of 100 loads each, x + 0
// to x + 99 of 2-byte elements, and one store field, on 600³ points. The
// loads lie at 100 distinct distances modulo the L1 model's period (256
// bytes), so that no two loads of a field are measured as one
// (instructionClasses): 1000 fields make a spec of 2.4 MB whose warp
// measures need more work than the default budget allows.
func wideSpec(fields int) string {
	var b strings.Builder
	b.WriteString("name: wide\ndomain: [600, 600, 600]\nflops: 1\nfields:\n")
	for f := range fields {
		fmt.Fprintf(&b, "  - name: F%d\n    element: 2\n    extent: [720, 640, 640]\n    offset: 10\n    load:\n", f)
		for j := range 100 {
			fmt.Fprintf(&b, "      - [x + %d, y, z]\n", j)
		}
	}
	b.WriteString("  - name: OUT\n    element: 8\n    extent: [600, 600, 600]\n    store:\n      - [x, y, z]\n")
	return b.String()
}

// wideInputs returns the instruction lists, launch and interior wave of
// wideSpec(fields) on the A100.
func wideInputs(t *testing.T, fields int) ([]FieldInstructions, kernel.Launch, [][3]int64) {
	t.Helper()
	k := parseKernel(t, wideSpec(fields))
	l := k.NewLaunch([3]int64{256, 1, 2}, [3]int64{1, 1, 1})
	d := lookupDevice(t, "A100-40GB")
	lists, err := Instructions(k, l, d.Memory(), ExactWarpRules.Fusion)
	if err != nil {
		t.Fatal(err)
	}
	return lists, l, interiorWave(t, k, l, d)
}

// The warp measures of every field and load are charged to the budget:
// the work grows with the fields, a budget that covers one field's does
// not cover two, and the default budget stops the 1000-field spec with
// ErrWorkBound instead of counting for a minute.
func TestWarpMeasuresChargeBudget(t *testing.T) {
	d := lookupDevice(t, "A100-40GB")
	noAlloc := func(FieldInstructions, [][3]int64) (float64, error) { return 0, nil }
	type measure func(lists []FieldInstructions, l kernel.Launch, sample [][3]int64, b *Budget) error
	measures := map[string]measure{
		"WarpVolumesOf": func(lists []FieldInstructions, l kernel.Launch, sample [][3]int64, b *Budget) error {
			_, err := WarpVolumesOf(lists, l, d.Memory(), ExactWarpRules, sample, b)
			return err
		},
		"L1CyclesOf": func(lists []FieldInstructions, l kernel.Launch, sample [][3]int64, b *Budget) error {
			_, err := L1CyclesOf(lists, l, d.Memory(), ExactWarpRules, sample, noAlloc, b)
			return err
		},
	}
	one, lOne, sOne := wideInputs(t, 1)
	two, lTwo, sTwo := wideInputs(t, 2)
	wide, lWide, sWide := wideInputs(t, 1000)
	for name, m := range measures {
		var b1, b2 Budget
		if err := m(one, lOne, sOne, &b1); err != nil {
			t.Fatalf("%s, one field: %v", name, err)
		}
		if err := m(two, lTwo, sTwo, &b2); err != nil {
			t.Fatalf("%s, two fields: %v", name, err)
		}
		if b1.Used() < 1000 || b2.Used() < b1.Used()*3/2 {
			t.Errorf("%s charged %d units for one field of 100 loads and %d for two: want at least 1000, and half as much again for two", name, b1.Used(), b2.Used())
		}
		if err := m(two, lTwo, sTwo, &Budget{Limit: b1.Used()}); !errors.Is(err, ErrWorkBound) {
			t.Errorf("%s, two fields under one field's work: %v, want ErrWorkBound", name, err)
		}
		var b Budget
		if err := m(wide, lWide, sWide, &b); !errors.Is(err, ErrWorkBound) {
			t.Errorf("%s, 1000 fields of 100 loads under the default budget: %v, want ErrWorkBound", name, err)
		}
		if b.Used() > 2*DefaultWorkBound {
			t.Errorf("%s went on to %d units after passing the bound %d", name, b.Used(), DefaultWorkBound)
		}
	}
}
