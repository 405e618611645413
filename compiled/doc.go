// Package compiled reads the instruction mix of a kernel from the code the
// GPU would run: it compiles the kernel with LLVM's clang for the device's
// architecture (CUDA to PTX for sm_NN, HIP to AMDGPU machine code for
// gfxNNNN, device-only, with no CUDA or ROCm installed: a prelude maps the
// CUDA dialect onto clang's builtins) and counts, per thread, the
// instructions by class (Counts), the loops left and their trip counts
// (LLVM's scalar evolution of the optimized IR, which llc compiles to the
// code and opt analyses), spills, and the registers: stated by the target
// for AMDGPU, estimated from the live values of the virtual code for PTX.
//
// Two sources of code: the kernel that polyvol cuda writes for a spec and
// launch (package cudagen), and a user's own CUDA or HIP source whose
// tunable parameters are preprocessor macros, as Kernel Tuner passes them
// (Provider, LaunchMacros). A Compiler compiles each distinct source,
// macros and architecture once, and keeps what it read in memory and on
// disk.
//
// The model (package model) turns the counts into the issue bound and the
// registers into occupancy; where no clang is installed the model counts
// the mix from the spec instead (model.CountInstructions) and says so.
//
// Layer: compiled sits above kernel, device and cudagen, below model.
package compiled
