package model

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/polyvol/polyvol/compiled"
	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/waves"
)

// codeOf is a CodeProvider that answers every estimate with one code or
// one error, and records the launch it was asked for.
type codeOf struct {
	code   *compiled.Code
	err    error
	launch kernel.Launch
}

func (c *codeOf) Code(k *kernel.Kernel, l kernel.Launch, dev *device.Device) (*compiled.Code, error) {
	c.launch = l
	return c.code, c.err
}

// TestCompiledMix: a compiled mix sets the issue bound from its vector
// instructions per lattice update (AMDGPU's scalar ones left out), and
// its kinds from the compiled classes, by hand.
func TestCompiledMix(t *testing.T) {
	dev, err := device.Lookup("MI210")
	if err != nil {
		t.Fatal(err)
	}
	k := loadExample(t, "star2d-r1")
	code := &compiled.Code{Compiler: "clang 19.1.7", Target: "gfx90a", Format: compiled.FormatAMDGPU, Registers: 24, WaveSize: 64,
		Counts: compiled.Counts{FP32: 6, Integer: 4, Scalar: 10, GlobalLoads: 8, GlobalStores: 2, Compares: 1, Branches: 1, Constant: 2}}
	provider := &codeOf{code: code}
	l := k.NewLaunch([3]int64{64, 4, 1}, [3]int64{1, 2, 1})
	r, err := Estimate(k, l, dev, Options{Code: provider})
	if err != nil {
		t.Fatal(err)
	}
	if provider.launch.Fold != l.Fold || provider.launch.Block != l.Block {
		t.Errorf("the provider was asked for launch %v/%v, want %v/%v", provider.launch.Block, provider.launch.Fold, l.Block, l.Fold)
	}
	mix := r.Instructions
	// Per lattice update (λ = 2): 24 vector instructions / 2.
	if mix.Source != SourceCompiled || mix.Total != 12 || mix.Loads != 4 || mix.Stores != 1 || mix.FP != 3 || mix.Guard != 1 || mix.Address != 3 || mix.Index != 0 {
		t.Errorf("compiled mix %+v", *mix)
	}
	if mix.Classes == nil || mix.Classes.Scalar != 5 || mix.Target != "gfx90a" || mix.Registers != 24 {
		t.Errorf("compiled classes %+v, target %s, registers %d", mix.Classes, mix.Target, mix.Registers)
	}
	_, lanes := ActiveWarps(r, dev)
	want, _ := IssueBound(InstructionMix{Total: 12}, lanes, *dev)
	if r.Derived.PerfIssue == nil || *r.Derived.PerfIssue != want {
		t.Errorf("issue bound %v, want %v", r.Derived.PerfIssue, want)
	}
	if note := InstructionsNote(r); note != "" {
		t.Errorf("a compiled mix without loops has a note: %q", note)
	}
}

// TestCompiledMixSteps: the code of a launch of T time steps without
// loops, or whose loops' trip counts weigh their bodies, holds all T
// steps, so its mix per step and useful lattice update is its counts over
// λ·T; code that keeps a loop of unknown trip count counts its body once
// and is taken per launch, over λ alone, with a note naming the loop and
// saying that the counts are a lower bound.
func TestCompiledMixSteps(t *testing.T) {
	dev, err := device.Lookup("RTX-A4000")
	if err != nil {
		t.Fatal(err)
	}
	k := loadExample(t, "hotspot")
	l := k.NewLaunch([3]int64{32, 4, 1}, [3]int64{1, 2, 1})
	l.Tiling, l.Steps = kernel.TileStrided, 3
	counts := compiled.Counts{FP64: 120, Shared: 60, GlobalLoads: 12, GlobalStores: 2, Barriers: 4}
	for _, tc := range []struct {
		name        string
		loops       []compiled.Loop
		fp64, total float64 // per lattice update: 120 and 198 over λ = 2, and over T = 3 without loops
	}{
		{"straight-line", nil, 20, 33},
		{"a loop of known trip count", []compiled.Loop{{Depth: 1, Instructions: 40, Header: "for.body31", TripCount: 3}}, 20, 33},
		{"a loop of unknown trip count", []compiled.Loop{{Depth: 1, Instructions: 40, Header: "for.body31", MaxTripCount: 3}}, 60, 99},
	} {
		r, err := Estimate(k, l, dev, Options{Code: &codeOf{code: &compiled.Code{Format: compiled.FormatPTX, Counts: counts, Loops: tc.loops}}})
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Instructions.Classes.FP64; math.Abs(got-tc.fp64) > 1e-12 || math.Abs(r.Instructions.Total-tc.total) > 1e-12 {
			t.Errorf("%s: %v FP64 and %v in all per lattice update, want %v and %v", tc.name, got, r.Instructions.Total, tc.fp64, tc.total)
		}
		note := InstructionsNote(r)
		unknown := len(tc.loops) > 0 && tc.loops[0].TripCount == 0
		if named := strings.Contains(note, "loop for.body31 (depth 1, 40 instructions, at most 3 iterations)") && strings.Contains(note, "lower bounds"); named != unknown {
			t.Errorf("%s: note %q; want one naming the loop and the lower bound: %v", tc.name, note, unknown)
		}
	}
}

// TestCompiledRegisters: the registers the target states set the
// occupancy, unless the spec or --registers states them or they are a PTX
// estimate.
func TestCompiledRegisters(t *testing.T) {
	dev, err := device.Lookup("MI210")
	if err != nil {
		t.Fatal(err)
	}
	k := loadExample(t, "star2d-r1")
	l := k.NewLaunch([3]int64{256, 1, 1}, kernel.NoFold)
	blocks := func(regs int) int64 {
		n, _, err := waves.BlocksPerSM(MethodExact.Occupancy, dev, 256, regs, 0)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if blocks(128) >= blocks(k.Registers) {
		t.Fatalf("128 registers allow %d blocks, %d as many as %d: no test", blocks(128), blocks(k.Registers), k.Registers)
	}
	stated := *k
	stated.RegistersStated = true
	for _, tc := range []struct {
		name      string
		k         *kernel.Kernel
		estimated bool
		want      int64
	}{
		{"stated by the target", k, false, blocks(128)},
		{"a PTX estimate", k, true, blocks(k.Registers)},
		{"stated by the spec", &stated, false, blocks(k.Registers)},
	} {
		code := &compiled.Code{Format: compiled.FormatAMDGPU, Registers: 128, RegistersEstimated: tc.estimated, Counts: compiled.Counts{FP32: 1, GlobalLoads: 5, GlobalStores: 1}}
		r, err := Estimate(tc.k, l, dev, Options{Code: &codeOf{code: code}})
		if err != nil {
			t.Fatal(err)
		}
		if r.Launch.BlocksPerSM != tc.want || r.Instructions.OccupancyNote != "" {
			t.Errorf("%s: %d blocks per SM (note %q), want %d", tc.name, r.Launch.BlocksPerSM, r.Instructions.OccupancyNote, tc.want)
		}
	}
	// 1024 threads of 128 registers exceed one CU's file: the hardware
	// runs the block on a work-group processor, the occupancy counts the
	// spec's registers and says so.
	rdna, err := device.Lookup("PRO-W6600")
	if err != nil {
		t.Fatal(err)
	}
	big := k.NewLaunch([3]int64{1024, 1, 1}, kernel.NoFold)
	code := &compiled.Code{Format: compiled.FormatAMDGPU, Target: "gfx1032", Registers: 128, Counts: compiled.Counts{FP32: 1, GlobalLoads: 5, GlobalStores: 1}}
	r, err := Estimate(k, big, rdna, Options{Code: &codeOf{code: code}})
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := waves.BlocksPerSM(MethodExact.Occupancy, rdna, 1024, k.Registers, 0)
	if err != nil || r.Launch.BlocksPerSM != want || !strings.Contains(InstructionsNote(r), "128 registers") {
		t.Errorf("a block that does not fit one CU: %d blocks per SM, want %d (%v); note %q", r.Launch.BlocksPerSM, want, err, InstructionsNote(r))
	}
}

// TestCompiledUnavailable: a compile that is not to be had counts the mix
// and says why; a compile that failed fails the estimate.
func TestCompiledUnavailable(t *testing.T) {
	dev, err := device.Lookup("A100-40GB")
	if err != nil {
		t.Fatal(err)
	}
	k := loadExample(t, "star2d-r1")
	l := k.NewLaunch([3]int64{64, 4, 1}, kernel.NoFold)
	r, err := Estimate(k, l, dev, Options{Code: &codeOf{err: fmt.Errorf("%w: no clang here", compiled.ErrUnavailable)}})
	if err != nil {
		t.Fatal(err)
	}
	counted, err := Estimate(k, l, dev, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Instructions.Source != SourceCounted || r.Instructions.Total != counted.Instructions.Total || !strings.Contains(InstructionsNote(r), "no clang here") {
		t.Errorf("unavailable: mix %+v, note %q", *r.Instructions, InstructionsNote(r))
	}
	if counted.Instructions.Note != "" || InstructionsNote(counted) != "" {
		t.Errorf("a counted mix that nobody asked to compile has a note: %q", InstructionsNote(counted))
	}
	failed := &compiled.CompileError{Source: "mine.cu", Arch: "sm_80", Message: "mine.cu:2:3: error: oops"}
	if _, err := Estimate(k, l, dev, Options{Code: &codeOf{err: failed}}); !errors.As(err, &failed) {
		t.Errorf("a failed compile: got %v", err)
	}
	looped := &compiled.Code{Target: "sm_80", Format: compiled.FormatPTX, Registers: 20, RegistersEstimated: true,
		Counts: compiled.Counts{FP32: 3, GlobalLoads: 5, GlobalStores: 1}, Loops: []compiled.Loop{{Depth: 1, Instructions: 7}}}
	r, err = Estimate(k, l, dev, Options{Code: &codeOf{code: looped}})
	if err != nil {
		t.Fatal(err)
	}
	if note := InstructionsNote(r); !strings.Contains(note, "1 loop") {
		t.Errorf("a compiled kernel with a loop: note %q", note)
	}
}

// TestCompiledSpills: a compiled code's spill traffic passes L1 and, where
// the resident threads' spill slots fit neither one SM's L1 nor the L2,
// adds its bytes per update to the L2 and DRAM bounds, by hand; with a
// memory-side cache that holds them, to the L2 bound only; the same code
// with slots that fit L1 leaves L2 and DRAM as they are.
func TestCompiledSpills(t *testing.T) {
	dev, err := device.Lookup("MI210")
	if err != nil {
		t.Fatal(err)
	}
	k := loadExample(t, "star2d-r1")
	l := k.NewLaunch([3]int64{256, 1, 1}, [3]int64{1, 2, 1})
	estimate := func(spillBytes int64) *Report {
		t.Helper()
		code := &compiled.Code{Compiler: "clang 19.1.7", Target: "gfx90a", Format: compiled.FormatAMDGPU, Registers: 64, WaveSize: 64, SpillBytes: spillBytes,
			Counts: compiled.Counts{FP32: 6, Integer: 4, GlobalLoads: 8, GlobalStores: 2, Local: 100, LocalBytes: 400}}
		r, err := Estimate(k, l, dev, Options{Code: &codeOf{code: code}})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	plain, err := Estimate(k, l, dev, Options{Code: &codeOf{code: &compiled.Code{Compiler: "clang 19.1.7", Target: "gfx90a", Format: compiled.FormatAMDGPU, Registers: 64, WaveSize: 64,
		Counts: compiled.Counts{FP32: 6, Integer: 4, GlobalLoads: 8, GlobalStores: 2, Local: 100}}}})
	if err != nil {
		t.Fatal(err)
	}
	d0 := plain.Derived
	// 400 bytes per thread over λ = 2 updates: 200 bytes per update.
	const perLup = 200.0
	clockSMs := dev.ClockGHz * float64(dev.SMs)

	big := estimate(dev.L2Bytes) // one thread's slots alone exceed L2
	d := big.Derived
	if d.Spill.Level != LimiterDRAM || d.Spill.BytesPerLup != perLup {
		t.Fatalf("spill %+v, want %v bytes per update held in DRAM", d.Spill, perLup)
	}
	if want := big.Launch.BlocksPerSM * 256 * dev.L2Bytes; d.Spill.ResidentBytesPerSM != want {
		t.Errorf("resident spill bytes per SM %d, want %d", d.Spill.ResidentBytesPerSM, want)
	}
	if want := clockSMs / (d0.L1CyclesPerLup + perLup/float64(dev.L1BankWidth)); !closeTo(d.PerfL1, want) {
		t.Errorf("L1 bound %v, want %v", d.PerfL1, want)
	}
	if want := dev.L2BandwidthGBs / (d0.L2TotalV2 + perLup); !closeTo(d.PerfL2V2, want) {
		t.Errorf("L2 bound %v, want %v", d.PerfL2V2, want)
	}
	if want := dev.DRAMBandwidthGBs / (d0.DRAMVolume() + perLup); !closeTo(d.PerfMemV3, want) {
		t.Errorf("DRAM bound %v, want %v", d.PerfMemV3, want)
	}
	if !strings.Contains(SpillNote(big), "DRAM holds them") {
		t.Errorf("note %q", SpillNote(big))
	}

	// A memory-side cache behind the L2 that holds every SM's slots: L2
	// carries the spills, DRAM does not.
	cached := *dev
	cached.MemoryCacheBytes = big.Derived.Spill.ResidentBytesPerSM * int64(dev.SMs)
	r, err := Estimate(k, l, &cached, Options{Code: &codeOf{code: &compiled.Code{Compiler: "clang 19.1.7", Target: "gfx90a", Format: compiled.FormatAMDGPU, Registers: 64, WaveSize: 64, SpillBytes: dev.L2Bytes,
		Counts: compiled.Counts{FP32: 6, Integer: 4, GlobalLoads: 8, GlobalStores: 2, Local: 100, LocalBytes: 400}}}})
	if err != nil {
		t.Fatal(err)
	}
	if c := r.Derived; c.Spill.Level != LimiterL2 || !closeTo(c.PerfL2V2, d.PerfL2V2) || c.PerfMemV3 != d0.PerfMemV3 {
		t.Errorf("slots in the memory cache: spill %+v, L2 bound %v (want %v), DRAM bound %v (want %v, as without spills)", c.Spill, c.PerfL2V2, d.PerfL2V2, c.PerfMemV3, d0.PerfMemV3)
	}

	small := estimate(4).Derived // 4 bytes a thread fit L1
	if small.Spill.Level != LimiterL1 || small.PerfL2V2 != d0.PerfL2V2 || small.PerfMemV3 != d0.PerfMemV3 || !(small.PerfL1 < d0.PerfL1) {
		t.Errorf("slots in L1: spill %+v, bounds L1 %v L2 %v DRAM %v; want L1 below %v and L2, DRAM as without spills (%v, %v)",
			small.Spill, small.PerfL1, small.PerfL2V2, small.PerfMemV3, d0.PerfL1, d0.PerfL2V2, d0.PerfMemV3)
	}
}

// TestCompiledPipe: a compiled mix bounds the floating-point pipes by its
// own FP32 and FP64 instructions, each precision on its own lanes, by
// hand: per lattice update (λ = 2) 50 FP32 and 5 FP64 instructions. The
// RTX A4000's SM has 128 FP32 and 2 FP64 lanes: 5/2 > 50/128 cycles, so
// the FP64 pipe bounds at 48 SMs · 1.56 GHz · 2 / 5 = 29.952 GLup/s. The
// A100's has 64 and 32: 50/64 > 5/32, the FP32 pipe at 108 · 1.41 · 64 /
// 50 = 194.9184 GLup/s. The spec's single-precision flops would bound
// both at the FP32 lanes.
func TestCompiledPipe(t *testing.T) {
	k := loadExample(t, "star2d-r1")
	l := k.NewLaunch([3]int64{64, 4, 1}, [3]int64{1, 2, 1})
	code := &compiled.Code{Compiler: "clang 19.1.7", Format: compiled.FormatPTX, Registers: 24, RegistersEstimated: true, WaveSize: 32,
		Counts: compiled.Counts{FP32: 100, FP64: 10, Integer: 20, GlobalLoads: 10, GlobalStores: 2}}
	for _, tc := range []struct {
		device string
		bytes  int
		flins  float64
		bound  float64
	}{
		{"RTX-A4000", 8, 5, 48 * 1.56 * 2 / 5.0},
		{"A100-40GB", 4, 50, 108 * 1.41 * 64 / 50.0},
	} {
		dev, err := device.Lookup(tc.device)
		if err != nil {
			t.Fatal(err)
		}
		r, err := Estimate(k, l, dev, Options{Code: &codeOf{code: code}})
		if err != nil {
			t.Fatal(err)
		}
		if f := r.Derived.PerfFlops; f == nil || math.Abs(*f-tc.bound) > 1e-9*tc.bound {
			t.Errorf("%s: flops bound %v, want %v", tc.device, f, tc.bound)
		}
		if r.Launch.FlopsPerLup != k.Flops {
			t.Errorf("%s: flops per update %v, want the spec's %v", tc.device, r.Launch.FlopsPerLup, k.Flops)
		}
	}
}

// TestCompiledPipeSteps: a launch of several time steps keeps the flops
// bound of the spec's flops (times the lanes issued per useful update),
// whatever the code's static FP64 count, which includes the guarded halo
// updates.
func TestCompiledPipeSteps(t *testing.T) {
	dev, err := device.Lookup("RTX-A4000")
	if err != nil {
		t.Fatal(err)
	}
	k := loadExample(t, "hotspot")
	l := k.NewLaunch([3]int64{32, 8, 1}, kernel.NoFold)
	l.Steps = 2
	counted, err := Estimate(k, l, dev, Options{})
	if err != nil {
		t.Fatal(err)
	}
	code := &compiled.Code{Compiler: "clang 19.1.7", Format: compiled.FormatPTX, Registers: 40, RegistersEstimated: true, WaveSize: 32,
		Counts: compiled.Counts{FP64: 60, Integer: 100, GlobalLoads: 10, GlobalStores: 2, Shared: 20, Barriers: 3}}
	r, err := Estimate(k, l, dev, Options{Code: &codeOf{code: code}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Derived.PerfFlops == nil || counted.Derived.PerfFlops == nil || *r.Derived.PerfFlops != *counted.Derived.PerfFlops {
		t.Errorf("flops bound %v with the compiled code, %v counted; want them equal", r.Derived.PerfFlops, counted.Derived.PerfFlops)
	}
	if r.Instructions.Source != SourceCompiled {
		t.Errorf("mix source %s, want compiled", r.Instructions.Source)
	}
}
