package compiled

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

var (
	amdgpuFunction = regexp.MustCompile(`^([A-Za-z_.$][\w.$]*):`)
	// A key of a kernel's metadata entry: the entry's first key after
	// "  - ", the others indented by four spaces (deeper ones are its
	// arguments').
	amdgpuMetaKey = regexp.MustCompile(`^(?:  - |    )\.([a-z_]+):\s+(\S+)`)
)

// ParseAMDGPU reads the kernel entry of AMDGPU assembly (an entry's
// symbol, or its name as written in the source) into Code, with the
// registers, scratch and wavefront size of the code object's metadata and
// the trip counts of its loops from trips (nil: none known).
func ParseAMDGPU(asm, entry string, trips TripCounts) (*Code, error) {
	lines := strings.Split(asm, "\n")
	kernels := map[string]bool{}
	for _, line := range lines {
		if f := strings.Fields(line); len(f) == 2 && f[0] == ".amdhsa_kernel" {
			kernels[f[1]] = true
		}
	}
	start, symbol, err := findEntry(lines, entry, func(line string) string {
		if m := amdgpuFunction.FindStringSubmatch(line); m != nil && kernels[m[1]] {
			return m[1]
		}
		return ""
	})
	if err != nil {
		return nil, err
	}
	code := &Code{Format: FormatAMDGPU, Entry: symbol}
	if err := amdgpuMetadata(lines, symbol, code); err != nil {
		return nil, err
	}
	scratch := code.SpillBytes > 0
	b := &body{}
	for _, line := range lines[start+1:] {
		line, comment := cutComment(line, ";")
		if line == "" {
			b.comment(comment)
			continue
		}
		if strings.HasPrefix(line, ".Lfunc_end") || strings.HasPrefix(line, ".section") {
			break
		}
		if amdgpuFunction.MatchString(line) {
			b.label(line, comment)
			continue
		}
		if strings.HasPrefix(line, ".") {
			continue
		}
		op, rest, _ := strings.Cut(line, " ")
		in := instruction{op: op, operands: splitOperands(rest), class: classifyAMDGPU(op, scratch)}
		if in.class == classLocal {
			in.bytes = amdgpuAccessBytes(op)
		}
		b.add(in)
	}
	code.Counts, code.Loops = b.count(trips[symbol])
	return code, nil
}

// amdgpuAccessBytes returns the bytes one lane moves with an AMDGPU memory
// instruction, from its opcode's data size: byte, short, dword, dwordxN
// (GFX9, GFX10) or bN, uN, iN (GFX11).
func amdgpuAccessBytes(op string) int {
	suffix := op[strings.LastIndexByte(op, '_')+1:]
	switch {
	case strings.HasSuffix(suffix, "byte"):
		return 1
	case strings.HasSuffix(suffix, "short"):
		return 2
	case suffix == "dword":
		return 4
	case strings.HasPrefix(suffix, "dwordx"):
		if n, err := strconv.Atoi(suffix[len("dwordx"):]); err == nil {
			return 4 * n
		}
	case len(suffix) >= 2 && strings.ContainsRune("biu", rune(suffix[0])):
		if bits, err := strconv.Atoi(suffix[1:]); err == nil && bits >= 8 {
			return bits / 8
		}
	}
	return 0
}

// amdgpuMetadata sets code's registers, scratch and wavefront size from
// the amdhsa.kernels metadata entry of symbol.
func amdgpuMetadata(lines []string, symbol string, code *Code) error {
	entry := map[string]string{}
	var found map[string]string
	inKernels := false
	for _, line := range lines {
		trimmed := strings.TrimSpace(line)
		if trimmed == "amdhsa.kernels:" {
			inKernels = true
			continue
		}
		if !inKernels {
			continue
		}
		if strings.HasPrefix(line, "  - ") {
			entry = map[string]string{}
		}
		if m := amdgpuMetaKey.FindStringSubmatch(line); m != nil {
			entry[m[1]] = m[2]
			if m[1] == "name" && m[2] == symbol {
				found = entry
			}
		}
		if strings.HasPrefix(trimmed, "amdhsa.target:") || trimmed == "..." {
			break
		}
	}
	if found == nil {
		return fmt.Errorf("AMDGPU kernel %s: no metadata entry (amdhsa.kernels)", symbol)
	}
	for key, dst := range map[string]*int{"vgpr_count": &code.Registers, "sgpr_count": &code.ScalarRegisters, "wavefront_size": &code.WaveSize} {
		v, ok := found[key]
		if !ok {
			return fmt.Errorf("AMDGPU kernel %s: the metadata states no .%s", symbol, key)
		}
		*dst = int(parseInt(v))
	}
	code.SpillBytes = parseInt(found["private_segment_fixed_size"])
	return nil
}

// classifyAMDGPU returns the class of an AMDGPU instruction. Waits,
// no-ops, scheduling hints and the program's end issue no work. HIP code
// reaches global memory through global_ and flat_ instructions; in a
// kernel with a private segment (scratch), clang's buffer_ loads and
// stores on GFX9 and GFX10 are its spills and private arrays, as scratch_
// ones are on the targets with flat scratch.
func classifyAMDGPU(op string, scratch bool) instructionClass {
	switch {
	case op == "s_endpgm" || op == "s_nop" || op == "v_nop" || strings.HasPrefix(op, "s_waitcnt") ||
		op == "s_delay_alu" || op == "s_clause" || strings.HasPrefix(op, "s_set_inst_prefetch") || op == "s_inst_prefetch":
		return classNone
	case op == "s_barrier":
		return classBarrier
	case strings.HasPrefix(op, "s_cbranch") || op == "s_branch" || op == "s_setpc_b64" || op == "s_swappc_b64":
		return classBranch
	case strings.HasPrefix(op, "s_load") || strings.HasPrefix(op, "s_buffer_load"):
		return classConstant
	case strings.HasPrefix(op, "s_"):
		return classScalar
	case strings.HasPrefix(op, "v_cmp"):
		return classCompare
	case strings.HasPrefix(op, "v_"):
		switch {
		case strings.Contains(op, "_f64"):
			return classFP64
		case strings.Contains(op, "_f32") || strings.Contains(op, "_f16"):
			if strings.HasPrefix(op, "v_cvt") || strings.HasPrefix(op, "v_mov") {
				return classInteger
			}
			return classFP32
		}
		return classInteger
	case strings.HasPrefix(op, "ds_"):
		return classShared
	case strings.HasPrefix(op, "scratch_"):
		return classLocal
	case strings.HasPrefix(op, "buffer_gl") || strings.HasPrefix(op, "buffer_wbinv") || strings.HasPrefix(op, "buffer_inv"):
		return classOther
	case scratch && (strings.HasPrefix(op, "buffer_load") || strings.HasPrefix(op, "buffer_store")):
		return classLocal
	case strings.Contains(op, "_load"):
		return classGlobalLoad
	case strings.Contains(op, "_store") || strings.Contains(op, "_atomic"):
		return classGlobalStore
	}
	return classOther
}
