package model

import (
	"math"
	"testing"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/kernel"
)

// TestStagedTileIsTheBoxFootprint: the convolution reads a full 15×15 box
// around each point, so a block's staged tile is exactly the footprint of
// its unstaged loads. The block and wave volumes that the engine counts
// from the staged tile's cover loads (kernel.GlobalView) must equal those
// it counts from the 225 loads, while the L1 load (the copy's requests
// instead of every tap's) and the shared-memory cycles differ.
func TestStagedTileIsTheBoxFootprint(t *testing.T) {
	staged := loadExample(t, "convolution-15x15-staged").WithDomain([3]int64{200, 120, 1})
	dev, err := device.Lookup("RTX-A4000")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ block, fold [3]int64 }{
		{[3]int64{32, 8, 1}, [3]int64{1, 1, 1}},
		{[3]int64{16, 4, 1}, [3]int64{2, 2, 1}},
		{[3]int64{48, 2, 1}, [3]int64{1, 3, 1}},
	} {
		l := staged.NewLaunch(c.block, c.fold)
		l.Tiling = kernel.TileStrided
		on, err := Estimate(staged, l, dev, Options{})
		if err != nil {
			t.Fatal(err)
		}
		l.Unstaged = true
		off, err := Estimate(staged, l, dev, Options{})
		if err != nil {
			t.Fatal(err)
		}
		a, b := on.Basic.LoadFields[0], off.Basic.LoadFields[0]
		if a.BlockL2Load != b.BlockL2Load || a.WaveMemNew != b.WaveMemNew || a.WaveMemOverlapY != b.WaveMemOverlapY {
			t.Errorf("%v fold %v: staged block L2 load %v, wave new %v, y overlap %v; unstaged %v, %v, %v", c.block, c.fold,
				a.BlockL2Load, a.WaveMemNew, a.WaveMemOverlapY, b.BlockL2Load, b.WaveMemNew, b.WaveMemOverlapY)
		}
		if !(a.BlockL1Load < b.BlockL1Load) || a.SharedCycles <= 0 || b.SharedCycles != 0 || on.Derived.PerfShared == nil || off.Derived.PerfShared != nil {
			t.Errorf("%v fold %v: staged L1 load %v (unstaged %v), shared cycles %v (unstaged %v)", c.block, c.fold, a.BlockL1Load, b.BlockL1Load, a.SharedCycles, b.SharedCycles)
		}
		tile, err := kernel.TileOf(staged.Fields[0], l)
		if err != nil {
			t.Fatal(err)
		}
		if a.SharedTileBytes != tile.Bytes {
			t.Errorf("%v fold %v: tile bytes %d, want %d", c.block, c.fold, a.SharedTileBytes, tile.Bytes)
		}
		if !off.Launch.Unstaged || on.Launch.Unstaged {
			t.Errorf("%v fold %v: launch unstaged %v and %v; want false and true", c.block, c.fold, on.Launch.Unstaged, off.Launch.Unstaged)
		}
	}
}

// TestSharedReadWavefrontsByHand: a warp of 32 threads reading 32
// consecutive floats of the tile takes one wavefront per read, and the 16
// load/store units of an RTX A4000's SM take it in 2 cycles (32 lanes × 4
// bytes / (16 × 4)), which bound it; the convolution's shared reads of one
// point are 225 such loads, so with block 32×8 (no fold, no conflicts: the
// tile's rows hold whole warps) the reads cost 2·225/32 cycles per thread,
// and the copy's stores of a (32+14)×(8+14) tile by 256 threads in the
// block mapping take 2 × 3 steps (x: 46 = 32 + 14 elements, y: 22 rows by
// 8), each one wavefront and 2 cycles per warp row.
func TestSharedReadWavefrontsByHand(t *testing.T) {
	k := loadExample(t, "convolution-15x15-staged").WithDomain([3]int64{256, 256, 1})
	dev, err := device.Lookup("RTX-A4000")
	if err != nil {
		t.Fatal(err)
	}
	l := k.NewLaunch([3]int64{32, 8, 1}, kernel.NoFold)
	r, err := Estimate(k, l, dev, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Copy steps: x 2 (tx, tx+32 < 46), y 3 (ty, ty+8, ty+16 < 22); each
	// warp is one row of 32 threads, so each step's store is one
	// wavefront per warp where any lane copies. Of the 8 warps (rows ty),
	// step y=2 has rows ty+16 < 22 only for ty < 6: 6 warps.
	// Stores: x step 0 (32 lanes) and 1 (14 lanes): 2 × (8 + 8 + 6) = 44
	// warp stores, one wavefront each, over 256 threads.
	wantStore := 2 * 44.0 / 256
	wantLoad := 2 * 225.0 / 32
	if got := r.Basic.SharedCycles; math.Abs(got-(wantStore+wantLoad)) > 1e-12 {
		t.Errorf("shared cycles per thread %v; want %v + %v", got, wantStore, wantLoad)
	}
	if got := r.Instructions.Shared; math.Abs(got-(225+44.0/8+1)) > 1e-12 {
		t.Errorf("shared instructions per Lup %v; want 225 reads, 44/8 stores per warp and the barrier", got)
	}
}
