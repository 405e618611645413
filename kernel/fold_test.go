package kernel

import (
	"errors"
	"io/fs"
	"testing"
)

func loadExample(t *testing.T, name string) *Kernel {
	t.Helper()
	k, err := ParseExample(name)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// TestFoldStar3dR4 checks docs/metrics.md §1.5 and case C5: folding the
// range-4 star by 2 in z gives 42 distinct loads and 2 stores.
func TestFoldStar3dR4(t *testing.T) {
	k := loadExample(t, "star3d-r4")
	folded, err := k.Fold(Launch{Fold: [3]int64{1, 1, 2}})
	if err != nil {
		t.Fatal(err)
	}
	a, b := folded.Field("A"), folded.Field("B")
	if len(a.Loads) != 42 || len(b.Stores) != 2 {
		t.Fatalf("got %d loads and %d stores, want 42 and 2", len(a.Loads), len(b.Stores))
	}
	if folded.Flops != 50 {
		t.Errorf("flops per thread = %v, want 50 (case C5)", folded.Flops)
	}
	// Brute force: the folded tuples evaluated at thread t are exactly the
	// original tuples evaluated at the points 2t and 2t+1.
	thread := Point{5, 7, 3}
	want := map[[3]int64]bool{}
	for _, j := range []int64{0, 1} {
		p := Point{thread[0], thread[1], 2*thread[2] + j}
		for _, acc := range k.Field("A").Loads {
			want[[3]int64{acc.Index[0].Eval(p), acc.Index[1].Eval(p), acc.Index[2].Eval(p)}] = true
		}
	}
	got := map[[3]int64]bool{}
	for _, acc := range a.Loads {
		got[[3]int64{acc.Index[0].Eval(thread), acc.Index[1].Eval(thread), acc.Index[2].Eval(thread)}] = true
	}
	if len(got) != len(want) || len(want) != 42 {
		t.Fatalf("folded tuples give %d points, original %d, want 42", len(got), len(want))
	}
	for v := range want {
		if !got[v] {
			t.Errorf("folded accesses miss %v", v)
		}
	}
	if s := b.Stores[1].String(); s != "(x, y, 2*z + 1)" {
		t.Errorf("second store = %s, want (x, y, 2*z + 1)", s)
	}
}

func TestParseExample(t *testing.T) {
	k, err := ParseExample("star3d-r4.yaml")
	if err != nil || k.Name != "star3d-r4" {
		t.Fatalf("ParseExample(star3d-r4.yaml) = %v, %v", k, err)
	}
	if _, err := ParseExample("no-such-kernel"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("unknown example: error %v, want fs.ErrNotExist", err)
	}
}
