package compiled

import (
	"os"
	"reflect"
	"strings"
	"testing"
)

// TestParsePTXByHand reads testdata/hand.ptx, counted by hand: parameter
// loads, the address conversion and ret issue nothing; %tid.x is a special
// register read (other); the loop's blocks are the latch before the header
// in the layout (4 + 6 instructions); registers live across the loop stay
// live through all of it.
func TestParsePTXByHand(t *testing.T) {
	text, err := os.ReadFile("testdata/hand.ptx")
	if err != nil {
		t.Fatal(err)
	}
	for _, entry := range []string{"", "axpy", "_Z4axpyPKfPfi"} {
		code, err := ParsePTX(string(text), entry, nil)
		if err != nil {
			t.Fatalf("entry %q: %v", entry, err)
		}
		want := Counts{FP32: 1, Integer: 3, GlobalLoads: 1, GlobalStores: 1, Compares: 2, Branches: 5, Barriers: 1, Other: 1}
		if code.Counts != want {
			t.Errorf("entry %q: counts %+v, want %+v", entry, code.Counts, want)
		}
		if want := []Loop{{Depth: 1, Instructions: 10}}; !reflect.DeepEqual(code.Loops, want) {
			t.Errorf("entry %q: loops %+v, want %+v", entry, code.Loops, want)
		}
		// In the loop: %r1, %rd3 (2), %r2, %rd4 (2), %f1 and %f2.
		if code.Registers != 8 || !code.RegistersEstimated {
			t.Errorf("entry %q: registers %d (estimated %v), want an estimate of 8", entry, code.Registers, code.RegistersEstimated)
		}
		if code.Entry != "_Z4axpyPKfPfi" || code.Format != FormatPTX {
			t.Errorf("entry %q: read %s %s", entry, code.Format, code.Entry)
		}
	}
	if _, err := ParsePTX(string(text), "scal", nil); err == nil || !strings.Contains(err.Error(), "_Z4axpyPKfPfi") {
		t.Errorf("a missing kernel: got %v, want an error listing the kernels", err)
	}
}

// TestParseAMDGPUByHand reads testdata/hand.s, counted by hand: waits and
// the program's end issue nothing; the exec-mask operations are scalar;
// the kernel has a private segment, so its scratch store (4 bytes a lane)
// and its buffer load (a GFX10 spill reload, 8 bytes) are spill accesses;
// the metadata's registers, scratch and wavefront size are the kernel
// entry's, not its argument's (whose .name is a decoy).
func TestParseAMDGPUByHand(t *testing.T) {
	text, err := os.ReadFile("testdata/hand.s")
	if err != nil {
		t.Fatal(err)
	}
	code, err := ParseAMDGPU(string(text), "scal", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := Counts{FP64: 1, Integer: 1, Scalar: 2, GlobalLoads: 1, GlobalStores: 1, Shared: 1, Constant: 1, Local: 2, LocalBytes: 12, Compares: 1, Branches: 1, Barriers: 1}
	if code.Counts != want {
		t.Errorf("counts %+v, want %+v", code.Counts, want)
	}
	if got := code.Counts.Vector(); got != 11 {
		t.Errorf("vector instructions %v, want 11 (all but the 2 scalar)", got)
	}
	// Without a private segment, a buffer load reads global memory.
	noScratch := strings.Replace(string(text), ".private_segment_fixed_size: 16", ".private_segment_fixed_size: 0", 1)
	if code, err := ParseAMDGPU(noScratch, "scal", nil); err != nil {
		t.Fatal(err)
	} else if code.Counts.GlobalLoads != 2 || code.Counts.Local != 1 || code.Counts.LocalBytes != 4 {
		t.Errorf("without scratch: %v global loads, %v spill accesses of %v bytes; want 2, 1 (the scratch_ store), 4", code.Counts.GlobalLoads, code.Counts.Local, code.Counts.LocalBytes)
	}
	if code.Registers != 9 || code.ScalarRegisters != 12 || code.WaveSize != 64 || code.SpillBytes != 16 || code.RegistersEstimated {
		t.Errorf("metadata: %d VGPRs, %d SGPRs, wave %d, scratch %d (estimated %v); want 9, 12, 64, 16, stated", code.Registers, code.ScalarRegisters, code.WaveSize, code.SpillBytes, code.RegistersEstimated)
	}
	if len(code.Loops) != 0 {
		t.Errorf("loops %+v: the forward branch closes none", code.Loops)
	}
	broken := strings.Replace(string(text), ".vgpr_count:     9", "", 1)
	if _, err := ParseAMDGPU(broken, "", nil); err == nil || !strings.Contains(err.Error(), "vgpr_count") {
		t.Errorf("metadata without vgpr_count: got %v", err)
	}
}

// TestAccessBytes checks the bytes a lane moves, read from opcodes by hand.
func TestAccessBytes(t *testing.T) {
	for op, want := range map[string]int{
		"ld.local.f32": 4, "st.local.v2.f32": 8, "ld.local.v4.u32": 16, "st.local.b64": 8, "ld.local.u8": 1, "ld.local.v2.b16": 4,
	} {
		if got := ptxAccessBytes(op); got != want {
			t.Errorf("PTX %s: %d bytes, want %d", op, got, want)
		}
	}
	for op, want := range map[string]int{
		"buffer_store_dword": 4, "buffer_load_dwordx2": 8, "buffer_load_dwordx3": 12, "scratch_store_dwordx4": 16,
		"buffer_load_ubyte": 1, "buffer_store_short": 2, "scratch_load_b32": 4, "scratch_store_b128": 16, "scratch_load_u16": 2,
	} {
		if got := amdgpuAccessBytes(op); got != want {
			t.Errorf("AMDGPU %s: %d bytes, want %d", op, got, want)
		}
	}
}
