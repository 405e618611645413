package model

import (
	"errors"
	"fmt"
	"math"

	"github.com/polyvol/polyvol/compiled"
	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/footprint"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/waves"
)

// Instruction issue.
//
// Every warp instruction takes one issue slot of one of an SM's schedulers,
// which together issue device.IssuePerCycleSM warp instructions per cycle.
// A kernel whose every FMA comes with a load and its address arithmetic
// runs out of issue slots well before its floating-point pipes are full:
// on a GPU with 128 FP32 lanes per SM and four schedulers of 32 lanes, one
// load per FMA halves the flop rate. The issue bound counts one thread's
// warp instructions for all its λ lattice points (a warp issues each once
// for all its lanes):
//
//   - memory: the thread's load and store instructions after the compiler
//     removes what it removes (footprint.Instructions: one instruction per
//     distinct address of a thread, vector fusion on AMD), per field
//     instance;
//   - floating point: ⌈flops per thread / 2⌉, an FMA being one instruction;
//   - address arithmetic: AddressInstructionsPerBase per distinct address
//     base of a field instance, where addresses that differ by a constant
//     share a base (the constant is the load's immediate offset);
//   - thread index: IndexInstructionsPerDim per dimension of the domain,
//     once per thread;
//   - bounds checks (kernel.BoundsCheck): for point, a compare per
//     dimension and a branch per lattice point; for access, a compare per
//     distinct coordinate of the thread's accesses in each dimension and,
//     in two or three dimensions, dims − 1 predicate combinations per
//     memory instruction; for none, nothing;
//   - partial accesses (guards, kernel.Access.Partial): a compare per
//     distinct guard condition of the thread and a predicate per
//     instruction that only partial accesses need.
//
// The bound is SMs·clock·IssuePerCycleSM·lanes·λ / instructions, with
// lanes the active lanes per warp (idle lanes issue with their warp but
// update nothing).

// IndexInstructionsPerDim is the integer instructions a thread spends on its
// coordinate along one dimension: read threadIdx and blockIdx and combine
// them with one multiply-add (three; counted from the SASS of such index
// code, not fitted).
const IndexInstructionsPerDim = 3

// AddressInstructionsPerBase is the integer instructions that form one
// address base: the element offset's multiply-add and the 64-bit pointer
// addition (two, as above; not fitted). Further addresses at a constant
// distance are the base plus an immediate offset and cost nothing.
const AddressInstructionsPerBase = 2

// Sources of an instruction mix.
const (
	SourceCompiled = "compiled" // read from the code clang compiled (package compiled)
	SourceCounted  = "counted"  // counted from the spec (CountInstructions)
)

// InstructionMix is one thread's warp instructions per lattice update, by
// kind (see above), counted from the spec or read from the compiled code.
// A compiled mix fills the kinds from the compiled classes (Classes):
// loads and stores are the global ones, fp both precisions, shared the
// shared-memory instructions and barriers, guard the compares and
// branches, and address every other vector instruction (integer,
// constant, spills, others); index is then 0, and AMDGPU's scalar
// instructions, which take no vector issue slot, are in Classes only.
type InstructionMix struct {
	// Source is SourceCompiled or SourceCounted.
	Source string `json:"source"`
	// Compiler and Target name the compile of a compiled mix.
	Compiler string `json:"compiler,omitempty"`
	Target   string `json:"target,omitempty"`
	// Classes is a compiled mix's instructions by class per lattice
	// update.
	Classes *compiled.Counts `json:"classes,omitempty"`
	// Registers are the compiled code's registers per thread
	// (compiled.Code.Registers), estimated for PTX (RegistersEstimated).
	Registers          int  `json:"registers,omitempty"`
	RegistersEstimated bool `json:"registersEstimated,omitempty"`
	// SpillBytes is the compiled code's spill memory per thread.
	SpillBytes int64 `json:"spillBytes,omitempty"`
	// Loops is the loops the compiler left, with their trip counts: a
	// body counts once per iteration where the count is known, once per
	// entry where it is not (compiled.Counts).
	Loops []compiled.Loop `json:"loops,omitempty"`
	// Note says why a counted mix is not compiled, where a compile was
	// asked for.
	Note string `json:"note,omitempty"`
	// OccupancyNote says why the occupancy leaves a compiled mix's
	// registers out (blocksPerSM).
	OccupancyNote string `json:"occupancyNote,omitempty"`

	Loads   float64 `json:"loads"`
	Stores  float64 `json:"stores"`
	FP      float64 `json:"fp"`
	Address float64 `json:"address"`
	Index   float64 `json:"index"`
	Guard   float64 `json:"guard"`
	// Shared is the shared-memory instructions of staged fields: the
	// copy's stores, the reads, and the block's barrier.
	Shared float64 `json:"shared,omitempty"`
	Total  float64 `json:"total"`
}

// CountInstructions returns the instruction mix of kernel k under launch l
// on dev, per lattice update, with the vector-fusion rule of the method.
func CountInstructions(k *kernel.Kernel, l kernel.Launch, dev *device.Device, rule footprint.FusionRule) (InstructionMix, error) {
	lists, err := footprint.Instructions(k, l, dev.Memory(), rule)
	if err != nil {
		return InstructionMix{}, err
	}
	return countInstructions(lists, footprint.StagingResult{}, k, l, dev)
}

// compiledMix is the instruction mix per lattice update of code, the
// kernel of launch l. Code whose loops all have known trip counts (none,
// or all weighed by them) counts its instructions per launch: for a
// launch of T time steps its counts are those of all T, and the mix is
// per step and useful lattice update, as a counted one is. Code that keeps
// a loop of unknown trip count counts that body once, the steps' loop
// too, and is taken per launch.
func compiledMix(code *compiled.Code, l kernel.Launch) InstructionMix {
	c := compiledCounts(code, l)
	return InstructionMix{
		Source: SourceCompiled, Compiler: code.Compiler, Target: code.Target, Classes: &c,
		Registers: code.Registers, RegistersEstimated: code.RegistersEstimated, SpillBytes: code.SpillBytes, Loops: code.Loops,
		Loads: c.GlobalLoads, Stores: c.GlobalStores, FP: c.FP32 + c.FP64, Shared: c.Shared + c.Barriers,
		Guard: c.Compares + c.Branches, Address: c.Integer + c.Constant + c.Local + c.Other, Total: c.Vector(),
	}
}

// compiledCounts returns the counts of code, the kernel of launch l, per
// lattice update (compiledMix).
func compiledCounts(code *compiled.Code, l kernel.Launch) compiled.Counts {
	updates := float64(l.LupsPerThread())
	if code.TripCountsKnown() {
		updates *= float64(l.StepCount())
	}
	return code.Counts.Scaled(1 / updates)
}

// compiledPipe returns the floating-point instructions of code, the
// kernel of launch l, per lattice update at the pipe that bounds them on
// dev, and that pipe's precision in bytes (FlopsBound): the FP64
// instructions where they take longer on the FP64 lanes than the FP32
// ones on the FP32 lanes, else the FP32 ones. The two precisions run on
// pipes of their own, so the slower bounds; integer work, conversions
// included, is issue (IssueBound), not flops.
func compiledPipe(code *compiled.Code, l kernel.Launch, dev device.Device) (float64, int) {
	c := compiledCounts(code, l)
	fp32, fp64 := c.FP32, c.FP64
	if fp64 > 0 && fp64*dev.FP32PerCycleSM >= fp32*dev.FP64PerCycleSM {
		return fp64, 8
	}
	return fp32, 4
}

// compileKernel asks provider for the compiled code of k under l on dev:
// the code, or nil and why it is unavailable (the mix is then counted), or
// an error.
func compileKernel(k *kernel.Kernel, l kernel.Launch, dev *device.Device, provider CodeProvider) (*compiled.Code, string, error) {
	if provider == nil {
		return nil, "", nil
	}
	code, err := provider.Code(k, l, dev)
	if errors.Is(err, compiled.ErrUnavailable) {
		return nil, err.Error(), nil
	}
	return code, "", err
}

// blocksPerSM returns the resident blocks per SM of B threads and their
// limiter, with the registers of the compiled code where the target
// states them and the spec does not (nor --registers), else the spec's.
// Where the compiled registers leave no room for one block, which the
// hardware still runs (RDNA places a block of up to 1024 threads on a
// work-group processor of two CUs, beyond the per-CU limits of the device
// data), it counts the spec's and says so in the note.
func blocksPerSM(method Method, dev *device.Device, B int64, k *kernel.Kernel, code *compiled.Code, sharedBytes int64) (int64, string, string, error) {
	if k.RegistersStated || code == nil || code.RegistersEstimated || code.Registers < 1 {
		beta, limiter, err := waves.BlocksPerSM(method.Occupancy, dev, B, k.Registers, sharedBytes)
		return beta, limiter, "", err
	}
	beta, limiter, err := waves.BlocksPerSM(method.Occupancy, dev, B, code.Registers, sharedBytes)
	if err == nil && beta >= 1 {
		return beta, limiter, "", nil
	}
	beta, limiter, err = waves.BlocksPerSM(method.Occupancy, dev, B, k.Registers, sharedBytes)
	note := fmt.Sprintf("the compiled code's %d registers per thread leave no room on one %s SM for a block of %d threads, which %s fits to run (on AMD's RDNA a work-group processor of two CUs holds it, beyond the per-CU limits polyvol models): occupancy counts the spec's %d registers",
		code.Registers, dev.Name, B, code.Target, k.Registers)
	return beta, limiter, note, err
}

// countInstructions is CountInstructions of k's instructions under l on
// dev (footprint.Instructions).
func countInstructions(lists []footprint.FieldInstructions, staging footprint.StagingResult, k *kernel.Kernel, l kernel.Launch, dev *device.Device) (InstructionMix, error) {
	mix := InstructionMix{Source: SourceCounted}
	lambda := float64(l.LupsPerThread())
	// A launch of several time steps (applySteps): the copy and the store
	// once per launch, the rest at every computed point, issued by the
	// steps' warps for all their lanes.
	steps, err := stepScalesOf(k, l, dev)
	if err != nil {
		return mix, err
	}
	var memory float64
	for _, sf := range staging.Fields {
		// The copy: a global load and a shared store per step, one
		// address base, and the barrier.
		mix.Loads += sf.CopyLoads * steps.perLaunch
		memory += sf.CopyLoads * steps.perLaunch
		mix.Address += AddressInstructionsPerBase * steps.perLaunch
		mix.Shared += (sf.SharedStores + 1) * steps.perLaunch
	}
	if k.StateField() != nil {
		// Each step writes its points' next values to the second buffer
		// and ends with a barrier.
		mix.Shared += lambda*steps.perLane + 1
	}
	for _, fi := range lists {
		m := float64(max(fi.Field.Multiplicity, 1))
		n := m * float64(len(fi.Instructions))
		if fi.Shared {
			// Reads of the tile: one base, no bounds check.
			mix.Shared += n * steps.perLane
			mix.Address += m * AddressInstructionsPerBase * steps.perLane
			continue
		}
		scale := steps.perLane
		if fi.Store {
			scale = steps.perLaunch
			mix.Stores += n * scale
		} else {
			mix.Loads += n * scale
		}
		memory += n * scale
		mix.Address += m * AddressInstructionsPerBase * float64(addressBases(fi.Instructions)) * scale
		for _, in := range fi.Instructions {
			if len(in.Guarded) > 0 && len(in.Points) == 0 {
				mix.Guard += m * scale // the predicate of a partial access
			}
		}
	}
	compares, err := guardCompares(k, l)
	if err != nil {
		return mix, err
	}
	mix.Guard += float64(compares) * steps.perLane
	dims := spannedDims(k)
	mix.FP = math.Ceil(k.FlopsPerThread(l.Fold)/2) * steps.perLane
	mix.Index = IndexInstructionsPerDim * float64(len(dims)) * steps.perLane
	switch k.BoundsCheck {
	case kernel.BoundsPoint:
		mix.Guard = lambda * float64(len(dims)+1)
	case kernel.BoundsAccess:
		compares, err := distinctCoordinates(k, l, dims)
		if err != nil {
			return mix, err
		}
		for _, sf := range staging.Fields {
			compares += int(math.Ceil(sf.CopyLoads)) * len(dims) // each copied element's coordinates
		}
		mix.Guard = float64(compares) + memory*float64(max(len(dims)-1, 0))
	}
	for _, v := range []*float64{&mix.Loads, &mix.Stores, &mix.FP, &mix.Address, &mix.Index, &mix.Guard, &mix.Shared} {
		*v /= lambda
	}
	mix.Total = mix.Loads + mix.Stores + mix.FP + mix.Address + mix.Index + mix.Guard + mix.Shared
	return mix, nil
}

// spannedDims lists the dimensions in which the domain has more than one
// point, the coordinates a thread computes and checks (at least x).
func spannedDims(k *kernel.Kernel) []int {
	dims := []int{0}
	for i := 1; i < 3; i++ {
		if k.Domain[i] > 1 {
			dims = append(dims, i)
		}
	}
	return dims
}

// addressBases counts the distinct addresses of the list up to a constant.
func addressBases(list []footprint.Instruction) int {
	seen := map[string]bool{}
	for _, in := range list {
		_, c, _ := in.Address.Terms()
		base, err := in.Address.Sub(kernel.Const(c))
		if err != nil {
			base = in.Address
		}
		seen[base.String()] = true
	}
	return len(seen)
}

// guardCompares counts the distinct guard conditions of the partial
// accesses of one thread (every field instance), in thread coordinates: a
// compare each.
func guardCompares(k *kernel.Kernel, l kernel.Launch) (int, error) {
	n := 0
	for _, f := range k.Fields {
		seen := map[string]bool{}
		for _, store := range []bool{false, true} {
			for _, a := range f.Accesses(store) {
				if _, partial, err := a.Partial(k.Domain); err != nil || !partial {
					continue
				}
				for _, j := range kernel.FoldOffsets(l.Fold) {
					t, err := l.ThreadAccess(a, j)
					if err != nil {
						return 0, fmt.Errorf("field %q: %w", f.Name, err)
					}
					for _, g := range t.Guards {
						seen[g.String()] = true
					}
				}
			}
		}
		n += len(seen) * int(max(f.Multiplicity, 1))
	}
	return n, nil
}

// distinctCoordinates counts, over every field instance's accesses of one
// thread, the distinct index expressions in each of dims: the compares a
// check of every access makes.
func distinctCoordinates(k *kernel.Kernel, l kernel.Launch, dims []int) (int, error) {
	n := 0
	for _, f := range k.Fields {
		if l.Staged(f) {
			continue // its reads are of the shared tile; the copy checks its own (countInstructions)
		}
		var seen [3]map[string]bool
		for i := range seen {
			seen[i] = map[string]bool{}
		}
		for _, store := range []bool{false, true} {
			folded, err := kernel.FoldAccesses(f.Accesses(store), l)
			if err != nil {
				return 0, fmt.Errorf("field %q: %w", f.Name, err)
			}
			for _, a := range folded {
				for _, i := range dims {
					seen[i][a.Index[i].String()] = true
				}
			}
		}
		for i := range seen {
			n += len(seen[i]) * int(max(f.Multiplicity, 1))
		}
	}
	return n, nil
}

// IssueBound returns the instruction-issue bound in GLup/s for mix on dev
// with lanes active lanes per warp, and false when the device gives no
// issue rate or the kernel no instructions.
func IssueBound(mix InstructionMix, lanes float64, dev device.Device) (float64, bool) {
	if !(dev.IssuePerCycleSM > 0) || !(mix.Total > 0) || !(lanes > 0) {
		return 0, false
	}
	return float64(dev.SMs) * dev.ClockGHz * dev.IssuePerCycleSM * lanes / mix.Total, true
}
