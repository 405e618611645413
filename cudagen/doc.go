// Package cudagen writes CUDA programs that execute a kernel spec, so that the
// volumes polyvol predicts can be measured with hardware counters.
//
// Generate turns a kernel.Kernel and a kernel.Launch into one self-contained
// .cu file: a __global__ function that performs every load and store of the
// spec's address expressions for each lattice point of its thread (folding
// included), guarded by the valid domain, and a host main that allocates and
// initialises the fields, launches the kernel with the requested block size,
// times repeated launches with CUDA events and prints one machine-readable
// result line. The loaded values feed a dependent chain of fused
// multiply-adds and additions whose result is stored to every store target,
// so that the compiler keeps every load; the chain performs the spec's
// flops per lattice update, or one per loaded component where those are
// fewer.
//
// A field that the spec stages in shared memory (kernel.Staging; not with
// kernel.Launch.Unstaged) gets a __shared__ array of its tile per instance
// (kernel.TileOf): each block copies its tile, clipped to what its points
// in the domain read, in the field's copy mapping, passes a __syncthreads
// that all its threads reach, and serves the field's loads from the tile.
// The program's header states the shared memory per block
// (kernel.StagedSharedBytes, also Program.SharedBytes).
//
// A launch of several time steps (kernel.Launch.Steps, a kernel with a
// state) copies the tiles grown for its steps once, advances the state in
// two alternating shared buffers over the block's points grown by the
// steps left, with a barrier after each step and the loads of unstaged
// fields repeated at every step, and stores once after the last (steps.go).
//
// Index expressions are translated from their canonical kernel.Expr form
// (kernel.Expr.Terms);
// floor division and the non-negative modulo become the device functions
// floordiv and posmod on 64-bit integers. Raw ISL maps (load_isl, store_isl)
// arrive as the index expressions the spec loader turned them into
// (kernel.Field.Loads and Stores) and are translated like any other; a map
// the loader could not turn into expressions (kernel.Kernel.ExpressionsError)
// is an error.
//
// Layer: cudagen sits directly above kernel and imports nothing else of
// polyvol. It is pure Go and does not need a GPU or the CUDA toolkit; the
// command-line tool (package cli) calls it for `polyvol cuda`, and
// scripts/measure-gpu.sh compiles and profiles its output.
package cudagen
