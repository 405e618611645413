package request

import (
	"testing"

	"github.com/polyvol/polyvol/kernel"
)

// TestParseLaunch checks the launch of request keys against hand-written
// launches: absent keys, an empty block and empty steps keep the defaults,
// keys of anything else are ignored, and an empty fold or tile is an error
// of its key.
func TestParseLaunch(t *testing.T) {
	for _, c := range []struct {
		name string
		keys map[string]string
		want Launch
	}{
		{"none", nil, Launch{Fold: [3]int64{1, 1, 1}}},
		{"empty block and steps", map[string]string{"block": "", "steps": ""}, Launch{Fold: [3]int64{1, 1, 1}}},
		{"all", map[string]string{"block": "64x4x4", "fold": "1,1,2", "tile": "strided", "steps": "3", "domain": "not a launch key"},
			Launch{Block: [3]int64{64, 4, 4}, Fold: [3]int64{1, 1, 2}, Tiling: kernel.TileStrided, Steps: 3}},
		{"padded", map[string]string{"block": "32,8", "fold": "2"}, Launch{Block: [3]int64{32, 8, 1}, Fold: [3]int64{2, 1, 1}}},
	} {
		got, err := ParseLaunch(c.keys)
		if err != nil || got != c.want {
			t.Errorf("%s: ParseLaunch(%v) = %+v, %v; want %+v", c.name, c.keys, got, err, c.want)
		}
	}
	for _, c := range []struct{ key, msg string }{
		{"fold", `--fold "": entry 1 (x): "" is not an integer`},
		{"tile", `--tile "": expected one of consecutive, strided`},
		{"steps", `--steps "x": expected a whole number of time steps from 1 to 1024`},
	} {
		value := ""
		if c.key == "steps" {
			value = "x"
		}
		_, err := ParseLaunch(map[string]string{c.key: value})
		if err == nil || FieldOf(err) != c.key || KindOf(err) != KindInput || err.Error() != c.msg {
			t.Errorf("%s %q: error %v (field %q), want an input error of that field: %q", c.key, value, err, FieldOf(err), c.msg)
		}
	}
}

// TestLaunchOf checks the kernel launch of a request's launch: the kernel's
// domain and steps, DefaultBlock for a zero block, and the launch's limits.
func TestLaunchOf(t *testing.T) {
	k, err := kernel.ParseExample("star3d-r4")
	if err != nil {
		t.Fatal(err)
	}
	got, err := DefaultLaunch().Of(k)
	want := kernel.Launch{Block: [3]int64{256, 1, 2}, Fold: kernel.NoFold, Domain: k.Domain, Steps: k.Steps}
	if err != nil || got != want {
		t.Errorf("the default launch of star3d-r4: %+v, %v; want %+v", got, err, want)
	}
	l := Launch{Block: [3]int64{32, 4, 2}, Fold: [3]int64{1, 1, 4}, Tiling: kernel.TileStrided, Unstaged: true}
	got, err = l.Of(k)
	want = kernel.Launch{Block: l.Block, Fold: l.Fold, Domain: k.Domain, Tiling: kernel.TileStrided, Unstaged: true, Steps: k.Steps}
	if err != nil || got != want {
		t.Errorf("block 32,4,2 fold 1,1,4 strided, unstaged: %+v, %v; want %+v", got, err, want)
	}
	for _, c := range []struct {
		l   Launch
		msg string
	}{
		{Launch{Block: [3]int64{2048, 1, 1}, Fold: kernel.NoFold}, "block x = 2048: exceeds the hardware limit 1024"},
		{Launch{Block: [3]int64{256, 1, 1}}, "fold x = 0: must be at least 1"},
		{Launch{Fold: kernel.NoFold, Steps: -1}, "--steps: steps -1: expected 1 to 1024 time steps per launch"},
	} {
		if _, err := c.l.Of(k); err == nil || KindOf(err) != KindInput || err.Error() != c.msg {
			t.Errorf("%+v: %v, want the input error %q", c.l, err, c.msg)
		}
	}
}
