package compiled

import (
	"fmt"
	"strconv"
)

// Formats of the code a compile yields.
const (
	FormatPTX    = "PTX"    // NVIDIA's virtual ISA, what clang emits for sm_NN
	FormatAMDGPU = "AMDGPU" // AMD's machine code, what clang emits for gfxNNNN
)

// Counts are one thread's instructions by class: a warp or wavefront
// issues each once for all its lanes. An instruction inside loops counts
// once per iteration of each loop around it whose trip count the compiler
// knows (Loop.TripCount) and once per entry of each loop whose count it
// does not: there the counts are a lower bound.
type Counts struct {
	FP32 float64 `json:"fp32"` // single-precision arithmetic (FMA, add, mul, min, ...)
	FP64 float64 `json:"fp64"` // double-precision arithmetic
	// Integer is vector integer and address arithmetic, moves, conversions
	// and bit operations.
	Integer float64 `json:"integer"`
	// Scalar is AMDGPU's scalar-unit arithmetic (s_*), which runs beside
	// the vector instructions and takes none of their issue slots; 0 for
	// PTX.
	Scalar       float64 `json:"scalar,omitempty"`
	GlobalLoads  float64 `json:"globalLoads"`
	GlobalStores float64 `json:"globalStores"`
	Shared       float64 `json:"shared"`          // shared-memory (LDS) loads and stores
	Constant     float64 `json:"constant"`        // constant-bank or scalar-memory loads
	Local        float64 `json:"local,omitempty"` // spills: local (PTX) or scratch (AMDGPU) loads and stores
	// LocalBytes is the bytes one lane moves with the Local instructions:
	// the spill traffic, which is memory traffic, not issue.
	LocalBytes float64 `json:"localBytes,omitempty"`
	Compares   float64 `json:"compares"`           // compares that set predicates or masks
	Branches   float64 `json:"branches"`           // branches and jumps
	Barriers   float64 `json:"barriers,omitempty"` // block-wide barriers
	// Other is what fits no class above: cache invalidations, waits,
	// special-register reads.
	Other float64 `json:"other,omitempty"`
}

// Vector is the instructions that take the issue slots of a warp
// scheduler or a SIMD: every class but Scalar.
func (c Counts) Vector() float64 {
	return c.FP32 + c.FP64 + c.Integer + c.GlobalLoads + c.GlobalStores + c.Shared + c.Constant + c.Local +
		c.Compares + c.Branches + c.Barriers + c.Other
}

// Scaled returns c with every class multiplied by f.
func (c Counts) Scaled(f float64) Counts {
	return Counts{FP32: c.FP32 * f, FP64: c.FP64 * f, Integer: c.Integer * f, Scalar: c.Scalar * f,
		GlobalLoads: c.GlobalLoads * f, GlobalStores: c.GlobalStores * f, Shared: c.Shared * f,
		Constant: c.Constant * f, Local: c.Local * f, LocalBytes: c.LocalBytes * f, Compares: c.Compares * f, Branches: c.Branches * f,
		Barriers: c.Barriers * f, Other: c.Other * f}
}

// add adds n instructions of class to c.
func (c *Counts) add(class instructionClass, n float64) {
	switch class {
	case classFP32:
		c.FP32 += n
	case classFP64:
		c.FP64 += n
	case classInteger:
		c.Integer += n
	case classScalar:
		c.Scalar += n
	case classGlobalLoad:
		c.GlobalLoads += n
	case classGlobalStore:
		c.GlobalStores += n
	case classShared:
		c.Shared += n
	case classConstant:
		c.Constant += n
	case classLocal:
		c.Local += n
	case classCompare:
		c.Compares += n
	case classBranch:
		c.Branches += n
	case classBarrier:
		c.Barriers += n
	case classOther:
		c.Other += n
	}
}

// instructionClass is the class of one instruction (Counts); classNone
// marks what the hardware does not issue.
type instructionClass int

const (
	classNone instructionClass = iota
	classFP32
	classFP64
	classInteger
	classScalar
	classGlobalLoad
	classGlobalStore
	classShared
	classConstant
	classLocal
	classCompare
	classBranch
	classBarrier
	classOther
)

// Loop is a loop that the compiler left in the code, with its trip count
// as LLVM's scalar evolution computes it (ParseTripCounts).
type Loop struct {
	Depth int `json:"depth"` // 1 for an outermost loop
	// Instructions is the loop body's instructions, inner loops included,
	// each once.
	Instructions int `json:"instructions"`
	// Header is the loop's header block as the LLVM IR names it (e.g.
	// "for.body"), after the source's loop; "" where unnamed.
	Header string `json:"header,omitempty"`
	// TripCount is the iterations per entry of the loop where the
	// compiler knows them as a constant; 0 where it does not, and the
	// body then counts once per entry in Counts.
	TripCount int64 `json:"tripCount,omitempty"`
	// MaxTripCount is the most iterations per entry where TripCount is
	// unknown but a constant bounds it; 0 otherwise.
	MaxTripCount int64 `json:"maxTripCount,omitempty"`
}

// Code is what polyvol read from one compile of one kernel.
type Code struct {
	Compiler string `json:"compiler"` // the compiler and its version, e.g. "clang 19.1.7"
	Target   string `json:"target"`   // the architecture compiled for: sm_86, gfx1030
	Format   string `json:"format"`   // FormatPTX or FormatAMDGPU
	Entry    string `json:"entry"`    // the kernel's symbol
	// Counts is one thread's instructions (Counts), each loop's body
	// times its trip count where known.
	Counts Counts `json:"counts"`
	Loops  []Loop `json:"loops,omitempty"`
	// Registers is the 32-bit registers per thread: stated by the target
	// for AMDGPU (its VGPRs); for PTX, whose registers are virtual, the
	// largest number of values live at once (RegistersEstimated).
	Registers          int  `json:"registers"`
	RegistersEstimated bool `json:"registersEstimated,omitempty"`
	ScalarRegisters    int  `json:"scalarRegisters,omitempty"` // AMDGPU's SGPRs
	// SpillBytes is the local (PTX) or scratch (AMDGPU) memory per thread
	// that the kernel uses for values that did not fit in registers.
	SpillBytes int64 `json:"spillBytes,omitempty"`
	// WaveSize is AMDGPU's wavefront size the code was compiled for (32
	// or 64); 0 for PTX.
	WaveSize int `json:"waveSize,omitempty"`
}

// TripCountsKnown reports whether the compiler knows the trip count of
// every loop of the code: then Counts weighs every instruction by how
// often it runs (both paths of a branch counted), rather than counting
// the bodies of some loops once per entry.
func (c *Code) TripCountsKnown() bool {
	for _, l := range c.Loops {
		if l.TripCount == 0 {
			return false
		}
	}
	return true
}

// String summarises the code in one line.
func (c *Code) String() string {
	regs := fmt.Sprintf("%d registers", c.Registers)
	if c.RegistersEstimated {
		regs = fmt.Sprintf("about %d registers (live values of the virtual code)", c.Registers)
	}
	return fmt.Sprintf("%s for %s (%s): %.0f instructions per thread, %s", c.Compiler, c.Target, c.Format, c.Counts.Vector()+c.Counts.Scalar, regs)
}

// parseInt reads a decimal integer that the caller matched; 0 for
// anything else.
func parseInt(s string) int64 {
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}
