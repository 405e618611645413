package device

import (
	"errors"
	"strings"
	"testing"
)

// Expected values are computed by hand with the CUDA occupancy calculator's
// rules; the comment of each case shows the arithmetic.
func TestOccupancy(t *testing.T) {
	tests := []struct {
		dev           string
		threads, regs int
		shared        int64
		blocks, warps int
		threadsPerSM  int
		fraction      float64
		limiter       Limiter
		limiterName   string
	}{
		// sm_80: 1024 regs/warp → 64 warps; 8 warps/block → 8 blocks on warps, threads and registers alike.
		{"A100-40GB", 256, 32, 0, 8, 64, 2048, 1, LimitWarps, "warps"},
		// sm_80: 2048 regs/warp → ⌊65536/2048/4⌋·4 = 32 warps → 4 blocks.
		{"A100-40GB", 256, 64, 0, 4, 32, 1024, 0.5, LimitRegisters, "registers"},
		// sm_80: 72·32 = 2304 regs/warp → ⌊28.4/4⌋·4 = 28 warps → 7 blocks of 4 warps.
		{"A100-40GB", 128, 72, 0, 7, 28, 896, 28.0 / 64, LimitRegisters, "registers"},
		// sm_80, 100 threads = 4 warps; 40 regs → 1280/warp → ⌊51.2/4⌋·4 = 48 warps → 12 blocks.
		{"A100-40GB", 100, 40, 0, 12, 48, 1200, 0.75, LimitRegisters, "registers"},
		// sm_80: 48 KiB + 1 KiB reserved = 50176 B → ⌊167936/50176⌋ = 3 blocks.
		{"A100-40GB", 256, 32, 48 << 10, 3, 24, 768, 0.375, LimitShared, "shared memory"},
		// sm_80: 20000 + 1024 → 21120 (unit 128) → ⌊167936/21120⌋ = 7 blocks.
		{"A100-40GB", 128, 32, 20000, 7, 28, 896, 28.0 / 64, LimitShared, "shared memory"},
		// sm_80: one-warp blocks hit the 32-block limit.
		{"A100-40GB", 32, 32, 0, 32, 32, 1024, 0.5, LimitBlocks, "blocks"},
		// sm_80: 32-warp blocks, 16 regs → 128 warps by registers, but 64/32 = 2 by warps.
		{"A100-40GB", 1024, 16, 0, 2, 64, 2048, 1, LimitWarps, "warps"},
		// sm_70, 96 threads = 3 warps: ⌊64/3⌋ = 21 blocks; 2016 threads, 63 warps.
		{"V100", 96, 32, 0, 21, 63, 2016, 63.0 / 64, LimitWarps, "warps"},
		// sm_70: 20000 B → 20224 (unit 256, no reserve) → ⌊98304/20224⌋ = 4 blocks.
		{"V100", 256, 32, 20000, 4, 32, 1024, 0.5, LimitShared, "shared memory"},
		// sm_70: 4096 regs/warp → 16 warps → 2 blocks.
		{"V100", 256, 128, 0, 2, 16, 512, 0.25, LimitRegisters, "registers"},
		// sm_90: 100 KiB + 1 KiB = 103424 B → ⌊233472/103424⌋ = 2 blocks.
		{"H100-SXM", 128, 32, 100 << 10, 2, 8, 256, 0.125, LimitShared, "shared memory"},
		// sm_90: 227 KiB + 1 KiB reserve is exactly the 228 KiB of the SM.
		{"H100-SXM", 128, 32, 227 << 10, 1, 4, 128, 0.0625, LimitShared, "shared memory"},
		// sm_90: 168 regs → 5376/warp → ⌊12.2/4⌋·4 = 12 warps = one 384-thread block.
		{"H100-SXM", 384, 168, 0, 1, 12, 384, 0.1875, LimitRegisters, "registers"},
		// sm_86: 16 block slots bind before 24 by warps.
		{"A40", 64, 32, 0, 16, 32, 1024, 32.0 / 48, LimitBlocks, "blocks"},
		// gfx90a: 128 VGPRs → ⌊512/128⌋ = 4 waves per SIMD × 4 SIMDs = 16 waves → 4 workgroups of 4 waves.
		{"MI210", 256, 128, 0, 4, 16, 1024, 0.5, LimitRegisters, "registers"},
	}
	for _, tc := range tests {
		d, err := Lookup(tc.dev)
		if err != nil {
			t.Fatal(err)
		}
		got, err := d.Occupancy(tc.threads, tc.regs, tc.shared)
		if err != nil {
			t.Errorf("%s %d threads %d regs %d B: %v", tc.dev, tc.threads, tc.regs, tc.shared, err)
			continue
		}
		want := Occupancy{tc.blocks, tc.warps, tc.threadsPerSM, tc.fraction, tc.limiter}
		if got != want {
			t.Errorf("%s %d threads %d regs %d B: got %+v, want %+v", tc.dev, tc.threads, tc.regs, tc.shared, got, want)
		}
		if got.Limiter.String() != tc.limiterName {
			t.Errorf("limiter string %q, want %q", got.Limiter, tc.limiterName)
		}
	}
}

func TestOccupancyErrors(t *testing.T) {
	tests := []struct {
		dev     string
		threads int
		regs    int
		shared  int64
		want    string
	}{
		{"A100-40GB", 1025, 32, 0, "1025 threads per block; expected 1 to 1024"},
		{"A100-40GB", 0, 32, 0, "0 threads per block"},
		{"A100-40GB", 256, 256, 0, "256 registers per thread; expected 1 to 255"},
		{"A100-40GB", 256, 0, 0, "0 registers per thread"},
		// More shared memory than a block may use on this device: the block
		// fits on no SM of it (a kernel property, not an invalid value).
		{"A100-40GB", 256, 32, 163<<10 + 1, "no block of 256 threads fits on an SM: shared memory: 166913 bytes per block exceed the 166912"},
		{"A100-40GB", 256, 32, -1, "-1 bytes of shared memory"},
		// 8192 regs/warp → 8 warps by registers < 32 warps of one block.
		{"A100-40GB", 1024, 255, 0, "no block of 1024 threads fits on an SM: registers"},
		{"V100", 1024, 128, 0, "no block of 1024 threads fits on an SM: registers"},
	}
	for _, tc := range tests {
		d, err := Lookup(tc.dev)
		if err != nil {
			t.Fatal(err)
		}
		_, err = d.Occupancy(tc.threads, tc.regs, tc.shared)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %d/%d/%d: error %v, want it to contain %q", tc.dev, tc.threads, tc.regs, tc.shared, err, tc.want)
		}
		// Only a launch that fits nowhere is a NoFitError; out-of-range
		// inputs are not.
		var noFit *NoFitError
		if got, want := errors.As(err, &noFit), strings.Contains(tc.want, "fits on an SM"); got != want {
			t.Errorf("%s %d/%d/%d: error %v is a NoFitError: %v, want %v", tc.dev, tc.threads, tc.regs, tc.shared, err, got, want)
		}
	}
	if _, err := (&Device{Name: "empty"}).Occupancy(32, 32, 0); err == nil {
		t.Error("a device without limits gave no error")
	}
}

func TestReferenceBlocksPerSM(t *testing.T) {
	tests := []struct{ threads, regs, want int }{
		{1024, 32, 2}, {512, 32, 4}, {256, 32, 8},
		{1024, 64, 1}, {512, 64, 2}, {256, 64, 4},
		{256, 16, 8},   // fewer than 32 registers count as 32
		{256, 33, 6},   // 33 → 40 registers: ⌊65536/10240⌋
		{32, 32, 32},   // 64 by registers, capped at 32
		{1024, 255, 0}, // 256 registers: does not fit
		{0, 32, 0},
	}
	for _, tc := range tests {
		if got := ReferenceBlocksPerSM(tc.threads, tc.regs); got != tc.want {
			t.Errorf("ReferenceBlocksPerSM(%d, %d) = %d, want %d", tc.threads, tc.regs, got, tc.want)
		}
	}
}

func TestLimiterString(t *testing.T) {
	if got := Limiter(9).String(); got != "Limiter(9)" {
		t.Errorf("got %q", got)
	}
}
