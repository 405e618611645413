package request

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/footprint"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/layercond"
)

// TestLayercondBounds checks the bounds of a layercond request: the plane
// sizes of all blocks together within --max-points, refused before any
// estimate (here under a context that has ended, which any estimate would
// report), and the counting work of all the sweeps within --max-work.
func TestLayercondBounds(t *testing.T) {
	k, err := kernel.ParseExample("star3d-r4")
	if err != nil {
		t.Fatal(err)
	}
	dev, err := device.Lookup(DefaultDevice)
	if err != nil {
		t.Fatal(err)
	}
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	keys := DefaultLayercondKeys()
	keys.Sweep = "1:1000:+1"
	req, err := keys.Layercond()
	if err != nil {
		t.Fatal(err)
	}
	req.Kernel, req.Device = k, dev
	if _, err := req.Run(ended); err == nil || !strings.Contains(err.Error(), "canceled") {
		t.Errorf("1000 plane sizes of one block under an ended context: %v, want the context's error", err)
	}
	req.Blocks = [][3]int64{{256, 1, 2}, {128, 2, 2}, {64, 4, 2}, {32, 8, 2}}
	_, err = req.Run(ended)
	if want := "--sweep: 1000 sizes for each of 4 blocks are 4000 estimates, more than the 1000 that --max-points allows"; FieldOf(err) != "max-points" || KindOf(err) != KindInput || err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("1000 plane sizes of 4 blocks: %v (field %q, kind %v), want an input error of max-points: %q", err, FieldOf(err), KindOf(err), want)
	}

	keys.MaxWork = 0
	if _, err := keys.Layercond(); FieldOf(err) != "max-work" || err.Error() != "--max-work 0: expected a positive number" {
		t.Errorf("--max-work 0: %v (field %q)", err, FieldOf(err))
	}
	keys.Sweep, keys.MaxWork = "64:1024:4", 100_000
	if req, err = keys.Layercond(); err != nil {
		t.Fatal(err)
	}
	req.Kernel, req.Device, req.Blocks, req.Workers = k, dev, [][3]int64{{256, 1, 2}, {128, 2, 2}}, 2
	if _, err := req.Run(context.Background()); !errors.Is(err, footprint.ErrWorkBound) || KindOf(err) != KindWorkBound || !strings.Contains(err.Error(), "--max-work") {
		t.Errorf("two sweeps under --max-work 100000: %v (kind %v), want a work-bound error wrapping ErrWorkBound that names --max-work", err, KindOf(err))
	}
}

// TestLayercondSeries checks the series a request sweeps: without --sweep
// the rows of layercond.DefaultRowSweep for a 2-D kernel and the planes of
// layercond.DefaultSweep for a 3-D one, and --inner refused where it is
// negative or the kernel is not 3-D, naming the key.
func TestLayercondSeries(t *testing.T) {
	dev, err := device.Lookup(DefaultDevice)
	if err != nil {
		t.Fatal(err)
	}
	for name, sweep := range map[string]string{"star2d-r1": layercond.DefaultRowSweep, "star3d-r4": layercond.DefaultSweep} {
		k, err := kernel.ParseExample(name)
		if err != nil {
			t.Fatal(err)
		}
		req, err := DefaultLayercondKeys().Layercond()
		if err != nil {
			t.Fatal(err)
		}
		req.Kernel, req.Device = k, dev
		configs, err := req.configs()
		if err != nil {
			t.Fatal(err)
		}
		want, _ := layercond.ParseSweep(sweep, layercond.MaxSweepSizes)
		if len(configs) != 1 || !slices.Equal(configs[0].Sizes, want) {
			t.Errorf("%s: default sizes %v, want %s", name, configs[0].Sizes, sweep)
		}
		keys := DefaultLayercondKeys()
		keys.Inner = 512
		if req, err = keys.Layercond(); err != nil {
			t.Fatal(err)
		}
		req.Kernel, req.Device = k, dev
		_, err = req.configs()
		if name == "star2d-r1" && (FieldOf(err) != "inner" || !strings.HasPrefix(err.Error(), "--inner 512: a fixed row length sweeps the planes of a 3-D kernel; star2d-r1 is 2-D")) {
			t.Errorf("--inner 512 on %s: %v (field %q), want an error of key inner", name, err, FieldOf(err))
		}
		if name == "star3d-r4" && err != nil {
			t.Errorf("--inner 512 on %s: %v", name, err)
		}
	}
	keys := DefaultLayercondKeys()
	keys.Inner = -1
	if _, err := keys.Layercond(); FieldOf(err) != "inner" || err.Error() != "--inner -1: expected a positive row length, or 0 for square planes" {
		t.Errorf("--inner -1: %v (field %q)", err, FieldOf(err))
	}
}
