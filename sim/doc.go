// Package sim is polyvol's reference trace-driven cache simulator and the
// independent oracle for the analytic engine. It enumerates the threads of a
// launch concretely, evaluates every address expression with package kernel
// (never through integer sets), coalesces warp instructions into sectors and
// runs them through a per-SM sectored L1, a shared sectored write-back L2
// (optionally split into partitions that duplicate lines) and DRAM, counting
// bytes per field at every level (docs/accuracy.md).
//
// Run simulates a launch with real capacities or, with Config.Infinite, with
// unbounded caches that leave only compulsory traffic. BlockL2Load,
// BlockL2Store and WaveDRAMFootprint compute the compulsory definitions of
// the exact method directly for a given list of blocks.
//
// Results use the analytic engine's names where they coincide: per field and
// in total, the byte counts l1LoadBytes, l2LoadBytes, l2StoreBytes,
// dramLoadBytes and dramStoreBytes and their per-lattice-update values
// L1Load, L2Load, L2Store, memLoad and memStore (JSON keys). With infinite
// caches L2Load is the compulsory traffic of per-SM L1s (reuse between the
// blocks of one SM included, so it matches the per-block L2LoadV1 only when
// every SM runs one block), and memLoad and memStore count every DRAM chunk
// of the whole run once (memLoad includes dramStoreReadBytes, the reads of
// partially written chunks). A field staged in shared memory
// (kernel.Staging) counts its tile copies' global loads in those volumes,
// and its shared-memory warp instructions and their bank wavefronts in
// copyLoadInstructions, sharedStoreInstructions, sharedLoadInstructions,
// sharedStoreWavefronts and sharedLoadWavefronts. A launch of several time
// steps (kernel.Launch.Steps) replays every step (Run).
//
// The package must not import isl, sets, footprint or waves: it takes
// caches, granularities and occupancy from package device only.
package sim
