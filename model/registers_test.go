package model

import (
	"strings"
	"testing"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/kernel"
)

// TestRegisterNoteHand checks RegisterNote on the A100-40GB against cases
// worked out by hand. The SM has 65536 registers, allocated per warp in
// units of 256 and to warps in groups of 4, 64 warp slots, 2048 thread
// slots and 32 block slots.
//
//   - 256 threads (8 warps) × 128 registers: 4096 registers per warp, 16
//     warps, 2 blocks; the warp slots allow 8, so the registers limit.
//     3 blocks need 24 warps, at most 65536/24 = 2730 registers per warp,
//     2560 in units of 256: 80 per thread.
//   - 256 threads × 255 registers: ⌈255·32/256⌉·256 = 8192 per warp, 8
//     warps, 1 block; 128 registers give 2. 255 is the most a thread may
//     have: spilling likely.
//   - 256 threads × 32 registers: 1024 per warp, 64 warps, 8 blocks, as
//     many as the warp slots allow, which count first: no note.
//   - 256 threads × 128 registers and 60000 bytes of shared memory per
//     block: with the 1024 reserved, 61056 bytes allocated, 167936/61056 =
//     2 blocks, as many as the registers allow, which count first; fewer
//     registers do not help.
func TestRegisterNoteHand(t *testing.T) {
	dev, err := device.Lookup("A100-40GB")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		registers int
		shared    int64
		want      []string // parts of the note, in order; nil: no note
	}{
		{128, 0, []string{"occupancy is limited by registers: 2 blocks of 256 threads per SM at 128 registers per thread; at most 80 registers per thread would allow 3"}},
		{81, 0, []string{"2 blocks of 256 threads per SM at 81 registers per thread; at most 80 registers per thread would allow 3"}},
		{255, 0, []string{"1 block of 256 threads per SM at 255 registers per thread; at most 128 registers per thread would allow 2",
			"; spilling likely: 255 registers per thread reach the 255 a thread may have on A100-40GB"}},
		{32, 0, nil},
		{128, 60000, []string{"2 blocks of 256 threads per SM at 128 registers per thread; fewer registers would not allow more: the limit of shared memory is 2 blocks too"}},
	} {
		occ, err := dev.Occupancy(256, tc.registers, tc.shared)
		if err != nil {
			t.Fatal(err)
		}
		r := &Report{Launch: LaunchInfo{ThreadsPerBlock: 256, BlocksPerSM: int64(occ.BlocksPerSM), OccupancyLimiter: occ.Limiter.String()}}
		note := RegisterNote(r, dev, tc.registers, tc.shared)
		if tc.want == nil {
			if note != "" {
				t.Errorf("%d registers, %d B shared: note %q, want none", tc.registers, tc.shared, note)
			}
			continue
		}
		rest := note
		for _, part := range tc.want {
			i := strings.Index(rest, part)
			if i < 0 {
				t.Errorf("%d registers, %d B shared: note %q lacks %q (in order)", tc.registers, tc.shared, note, part)
				break
			}
			rest = rest[i+len(part):]
		}
	}
}

// TestRegisterNoteEstimate checks the note on a report of Estimate: the
// registers of the spec set the occupancy the note reads, and the
// reference method, whose occupancy rule names no limiter, gets only the
// spilling part.
func TestRegisterNoteEstimate(t *testing.T) {
	dev, err := device.Lookup("A100-40GB")
	if err != nil {
		t.Fatal(err)
	}
	k, err := kernel.ParseExample("vec-copy")
	if err != nil {
		t.Fatal(err)
	}
	k = k.WithDomain([3]int64{1 << 16, 1, 1})
	l := k.NewLaunch([3]int64{256, 1, 1}, kernel.NoFold)
	for _, tc := range []struct {
		registers int
		method    Method
		blocks    int64
		want      string
	}{
		{128, MethodExact, 2, "occupancy is limited by registers: 2 blocks of 256 threads per SM at 128 registers per thread; at most 80"},
		{32, MethodExact, 8, ""},
		{255, MethodReference, 1, "spilling likely: 255 registers per thread"},
	} {
		k.Registers = tc.registers
		r, err := Estimate(k, l, dev, Options{Method: tc.method})
		if err != nil {
			t.Fatal(err)
		}
		if r.Launch.BlocksPerSM != tc.blocks {
			t.Errorf("%d registers, method %s: %d blocks per SM, want %d", tc.registers, tc.method.Name, r.Launch.BlocksPerSM, tc.blocks)
		}
		note := RegisterNote(r, dev, tc.registers, k.SharedBytes)
		if !strings.HasPrefix(note, tc.want) || (tc.want == "") != (note == "") {
			t.Errorf("%d registers, method %s: note %q, want it to start %q", tc.registers, tc.method.Name, note, tc.want)
		}
	}
}
