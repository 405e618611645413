package kernel

import (
	"math/rand"
	"strings"
	"testing"
)

const stagedSpec = `name: s
domain: [64, 32, 8]
fields:
  - name: A
    element: 8
    extent: [70, 40, 12]
    offset: 2
    stage: {copy: rows, pad: 3}
    load: [[x, y, z], [x + 3, y - 1, z], [x - 2, y + 2, z + 1], [x, y, z - 2]]
  - name: B
    element: 8
    store: [[x, y, z]]
`

func TestStagingSpecErrors(t *testing.T) {
	for _, c := range []struct{ spec, want string }{
		{strings.Replace(stagedSpec, "pad: 3", "pad: -1", 1), "pad"},
		{strings.Replace(stagedSpec, "copy: rows", "copy: columns", 1), `copy mapping "columns": expected rows or block`},
		{strings.Replace(stagedSpec, "copy: rows", "width: 3", 1), "width"},
		{strings.Replace(stagedSpec, "[x + 3, y - 1, z]", "[2*x, y, z]", 1), "not a coordinate plus a constant"},
		{strings.Replace(stagedSpec, "[x + 3, y - 1, z]", "[floor(x / 2), y, z]", 1), "floor or modulo"},
		{strings.Replace(stagedSpec, "[x + 3, y - 1, z]", "[y, x, z]", 1), "depends on other coordinates"},
		{strings.Replace(stagedSpec, "[x + 3, y - 1, z]", "[x, x, z]", 1), "indexes two dimensions by x"},
		{strings.Replace(stagedSpec, "    load: [[x, y, z], [x + 3", "    store: [[x, y, z]]\n    load: [[x, y, z], [x + 3", 1), "read only"},
		{strings.Replace(stagedSpec, "    stage: {copy: rows, pad: 3}\n", "    stage: {copy: rows, pad: 3}\n    scalar: true\n", 1), "scalar"},
	} {
		_, err := Parse([]byte(c.spec), "s.yaml")
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "s.yaml:") {
			t.Errorf("want an error at s.yaml naming %q, got %v", c.want, err)
		}
	}
}

// TestTileByHand checks tile sizes and padding worked out by hand.
func TestTileByHand(t *testing.T) {
	k, err := Parse([]byte(stagedSpec), "s.yaml")
	if err != nil {
		t.Fatal(err)
	}
	l := k.NewLaunch([3]int64{16, 4, 2}, [3]int64{1, 2, 1})
	tile, err := TileOf(k.Fields[0], l)
	if err != nil {
		t.Fatal(err)
	}
	// x: 16 points + offsets -2..3; y: 8 points + -1..2; z: 2 points + -2..1.
	if tile.Size != [3]int64{21, 11, 5} || tile.Pitch != 24 || tile.Bytes != 24*11*5*8 {
		t.Errorf("tile %+v; want size 21,11,5, pitch 24, %d bytes", tile, 24*11*5*8)
	}
	if n, err := StagedSharedBytes(k, l); err != nil || n != 24*11*5*8 {
		t.Errorf("shared bytes %d, %v", n, err)
	}
	l.Unstaged = true
	if n, err := StagedSharedBytes(k, l); err != nil || n != 0 {
		t.Errorf("unstaged: shared bytes %d, %v; want 0", n, err)
	}
	// The bank rule of the Kernel Tuner convolution: block x 16, tile
	// width 16·2 + 14 = 46: pad (32 − (46 − 16)) mod 32 = 2; block x 32 or
	// a width minus block x that is a multiple of 32 needs none; width 30
	// with block x 16 pads 18.
	conv := strings.NewReplacer("pad: 3", "pad: banks", "[x - 2, y + 2, z + 1]", "[x + 14, y + 14, z]", "[x, y, z - 2]", "[x, y, z]", "[x + 3, y - 1, z]", "[x, y, z]").Replace(stagedSpec)
	k, err = Parse([]byte(conv), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ bx, fx, pitch int64 }{{16, 2, 48}, {32, 2, 78}, {16, 1, 48}, {18, 1, 50}, {48, 1, 80}} {
		tile, err := TileOf(k.Fields[0], k.NewLaunch([3]int64{c.bx, 1, 1}, [3]int64{c.fx, 1, 1}))
		if err != nil || tile.Pitch != c.pitch {
			t.Errorf("block x %d fold %d: pitch %d (%v); want %d", c.bx, c.fx, tile.Pitch, err, c.pitch)
		}
	}
}

// TestStagedViewsByEnumeration checks, on random launches and domains, that
// the union of GlobalView's cover loads over a block's points inside the
// domain is the block's clipped tile (Tile.Box), and that SharedView's loads
// evaluate to Tile.Shared of the original index, point by point.
func TestStagedViewsByEnumeration(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	base, err := Parse([]byte(stagedSpec), "s.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for trial := range 60 {
		var block, fold [3]int64
		var d [3]int64
		for i := range 3 {
			block[i] = int64(1 + rng.Intn(6))
			fold[i] = int64(1 + rng.Intn(3))
			d[i] = int64(1 + rng.Intn(20))
		}
		k := base.WithDomain(d)
		l := k.NewLaunch(block, fold)
		l.Tiling = Tiling(rng.Intn(2))
		g, err := GlobalView(k, l)
		if err != nil {
			t.Fatal(err)
		}
		view, tile, err := SharedView(k.Fields[0], l)
		if err != nil {
			t.Fatal(err)
		}
		grid := l.Grid()
		for b := range grid[0] * grid[1] * grid[2] {
			bi := [3]int64{b % grid[0], b / grid[0] % grid[1], b / (grid[0] * grid[1])}
			var origin, end Point
			for i := range 3 {
				origin[i] = bi[i] * tile.Extent[i]
				end[i] = min(origin[i]+tile.Extent[i], d[i])
			}
			lo, hi := tile.Box(origin, d, true)
			fullLo, _ := tile.Box(origin, d, false)
			covered := map[[3]int64]bool{}
			for z := origin[2]; z < end[2]; z++ {
				for y := origin[1]; y < end[1]; y++ {
					for x := origin[0]; x < end[0]; x++ {
						p := Point{x, y, z}
						for _, a := range g.Fields[0].Loads {
							covered[[3]int64{a.Index[0].Eval(p), a.Index[1].Eval(p), a.Index[2].Eval(p)}] = true
						}
						for ai, a := range k.Fields[0].Loads {
							e := [3]int64{a.Index[0].Eval(p), a.Index[1].Eval(p), a.Index[2].Eval(p)}
							if got, want := view.ElementIndex(view.Loads[ai], p), tile.Shared(e, fullLo); got != want {
								t.Fatalf("trial %d: point %v access %s: shared view %d, want %d", trial, p, a.Text, got, want)
							}
						}
					}
				}
			}
			want := (hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2])
			for e := range covered {
				for j := range 3 {
					if e[j] < lo[j] || e[j] >= hi[j] {
						t.Fatalf("trial %d block %v: cover reads %v outside the tile %v..%v", trial, bi, e, lo, hi)
					}
				}
			}
			if int64(len(covered)) != want {
				t.Fatalf("trial %d (block %v fold %v domain %v) block %v: cover holds %d elements, the tile %d", trial, block, fold, d, bi, len(covered), want)
			}
		}
	}
}
