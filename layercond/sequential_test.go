package layercond

import (
	"fmt"
	"strings"
	"testing"

	"github.com/polyvol/polyvol/kernel"
)

// loadExample parses one of the embedded example kernels.
func loadExample(t testing.TB, name string) *kernel.Kernel {
	t.Helper()
	k, err := kernel.ParseExample(name)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// parseSpec parses an inline kernel spec.
func parseSpec(t *testing.T, spec string) *kernel.Kernel {
	t.Helper()
	k, err := kernel.Parse([]byte(spec), "inline.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// The paper's check (§5.7, spec §7.1): the range-4 star stencil keeps 9
// layers of 8-byte elements, so the z-layer condition in half of the A100's
// 20 MiB L2 is 72·X·Y ≤ 10 MiB, X = Y < √(10 MiB/(9·8 B)) = 381.
func ExampleSequential() {
	k, _ := kernel.ParseExample("star3d-r4")
	lc, _ := Sequential(k, 10<<20)
	for _, c := range lc.Conditions {
		fmt.Printf("%s layer: %s (square planes: s <= %d)\n", c.Layer, c.Text, c.MaxSquare)
	}
	// Output:
	// y layer: X <= 77101 (square planes: s <= 77101)
	// z layer: X*Y <= 145635 (square planes: s <= 381)
}

// TestSequentialHandCases checks the cache need against hand derivations of
// Kerncraft's rule Σ_{δ ≤ t} δ + t·(#{δ > t} + 1) per field, in elements.
func TestSequentialHandCases(t *testing.T) {
	const MiB = 1 << 20
	cases := []struct {
		name  string
		k     *kernel.Kernel
		cache int64
		want  []Condition // Layer, XY, PerX, Const, MaxSquare, Text
		skip  string
	}{{
		// Offsets −4XY … −XY, −4X … −X, −4 … 4, X … 4X, XY … 4XY: every
		// neighbour distance is at most X·Y and they add up to the span 8XY,
		// plus one layer for the leading access: 9XY elements, 72·X·Y bytes.
		// For t = X the 8 z-offsets are farther apart: 8X (the centre rows)
		// + 9X = 17X elements, 136·X bytes; 10 MiB/136 = 77101.2.
		name: "star3d-r4", k: loadExample(t, "star3d-r4"), cache: 10 * MiB,
		want: []Condition{
			{Layer: "y", PerX: 136, MaxSquare: 77101, Text: "X <= 77101"},
			{Layer: "z", XY: 72, MaxSquare: 381, Text: "X*Y <= 145635"},
		},
	}, {
		// star3d-r1: 3 layers (the paper's "3·x·y·8 B") and 5 rows;
		// 660² = 435600 ≤ 436906 < 661² = 436921.
		name: "star3d-r1", k: loadExample(t, "star3d-r1"), cache: 10 * MiB,
		want: []Condition{
			{Layer: "y", PerX: 40, MaxSquare: 262144, Text: "X <= 262144"},
			{Layer: "z", XY: 24, MaxSquare: 660, Text: "X*Y <= 436906"},
		},
	}, {
		// star2d-r1 (domain padded to 15002, which the condition ignores):
		// offsets −X, −1, 0, 1, X with distances X−1, 1, 1, X−1. Both are at
		// most X: 2X + X = 3X elements, 24·X bytes. A 2-D kernel has no
		// layers: the row condition is its only one.
		name: "star2d-r1", k: loadExample(t, "star2d-r1"), cache: 1 * MiB,
		want: []Condition{
			{Layer: "y", PerX: 24, MaxSquare: 43690, Text: "X <= 43690"},
		},
	}, {
		// Only z±4: the distance 8XY exceeds both thresholds, so neither
		// reuse is covered and each condition is two streams of one layer
		// (row): 2·XY·8 and 2·X·8 bytes, times the multiplicity 3.
		name: "gap", cache: 1 * MiB,
		k: parseSpec(t, `name: gap
domain: [64, 64, 64]
fields:
  - {name: A, element: 8, multiplicity: 3, load: [[x, y, z - 4], [x, y, z + 4]]}
  - {name: B, element: 8, store: [[x, y, z]]}
`),
		want: []Condition{
			{Layer: "y", PerX: 48, MaxSquare: 21845, Text: "X <= 21845"},
			{Layer: "z", XY: 48, MaxSquare: 147, Text: "X*Y <= 21845"},
		},
	}, {
		// vec3-scale: A's 3x+k is not an offset access and is left out; B's
		// single access x needs one row (X) of 8 bytes. A 1-D kernel, like a
		// 2-D one, has the row condition only.
		name: "vec3-scale", k: loadExample(t, "vec3-scale"), cache: 1 * MiB, skip: "A",
		want: []Condition{
			{Layer: "y", PerX: 8, MaxSquare: 131072, Text: "X <= 131072"},
		},
	}}
	for _, c := range cases {
		lc, err := Sequential(c.k, c.cache)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if got := strings.Join(lc.Skipped, ","); got != c.skip {
			t.Errorf("%s: skipped %q, want %q", c.name, got, c.skip)
		}
		if len(lc.Conditions) != len(c.want) {
			t.Errorf("%s: %d conditions, want %d", c.name, len(lc.Conditions), len(c.want))
			continue
		}
		for i, w := range c.want {
			w.CacheBytes = c.cache
			if got := lc.Conditions[i]; got != w {
				t.Errorf("%s: condition %d = %+v, want %+v", c.name, i, got, w)
			}
		}
	}
}

func TestSequentialErrors(t *testing.T) {
	k := loadExample(t, "vec-copy")
	if _, err := Sequential(k, 0); err == nil {
		t.Error("a cache of 0 bytes: no error")
	}
	noOffsets := parseSpec(t, `name: strided
domain: [64]
fields:
  - {name: A, element: 8, load: [[2*x]]}
  - {name: B, element: 8, store: [[x]]}
`)
	if _, err := Sequential(noOffsets, 1<<20); err == nil || !strings.Contains(err.Error(), "no loaded field") {
		t.Errorf("kernel without offset loads: err = %v", err)
	}
}

// TestMaxSwept checks where the conditions of star3d-r4 in 10 MiB hold on
// the three series, by hand: 72·X·Y ≤ 10485760 and 136·X ≤ 10485760. On
// square planes s ≤ 381 and 77101; with X = 512 fixed, Y ≤ 10485760/(72·512)
// = 284.4 and the y condition at every Y (136·512 ≤ 10 MiB); with X =
// 100000 the y condition holds at no Y (136·100000 > 10 MiB) and the z
// condition at Y ≤ 1.45, one row. A 2-D kernel's row condition bounds X.
func TestMaxSwept(t *testing.T) {
	lc, err := Sequential(loadExample(t, "star3d-r4"), 10<<20)
	if err != nil {
		t.Fatal(err)
	}
	y, z := lc.Conditions[0], lc.Conditions[1]
	for _, c := range []struct {
		inner        int64
		wantY, wantZ int64
	}{{0, 77101, 381}, {512, EverySize, 284}, {100000, 0, 1}} {
		se := Series{Dims: 3, Total: PaperTotal, Inner: c.inner}
		if gy, gz := y.MaxSwept(se), z.MaxSwept(se); gy != c.wantY || gz != c.wantZ {
			t.Errorf("inner %d: y up to %d, z up to %d; want %d and %d", c.inner, gy, gz, c.wantY, c.wantZ)
		}
	}
	row, err := Sequential(loadExample(t, "star2d-r1"), 10<<20)
	if err != nil {
		t.Fatal(err)
	}
	if got := row.Conditions[0].MaxSwept(Series{Dims: 2, Total: PaperTotal}); got != 436906 { // 10485760/24
		t.Errorf("star2d-r1 row condition up to X = %d, want 436906", got)
	}
}
