// Package model turns measured or estimated data volumes into performance
// predictions.
//
// It has two halves. The performance half, in this package today, is pure
// arithmetic on plain numbers and can be tested without ISL:
//
//   - [Derive] normalises block- and wave-level volumes ([Basic]) to bytes per
//     lattice update (Lup), applies the fitted capacity-miss curves of
//     docs/metrics.md §5.2 and computes the four limiters of §5.5 ([Derived]).
//     The two estimation methods, "reference" and "exact", are one [Method]
//     strategy value each, not two copies of the formulas.
//   - [EstimateLatency] and [SolveLoadedLatency] are the latency-aware
//     (Little's law) model of Volkov 2016 (docs/models.md §1).
//   - The Su2015 functions are the three-link stencil traffic model of
//     Su et al. 2015 (docs/models.md §2).
//   - [Project] and [ProjectWithVolumes] project a measured profile onto
//     another GPU through hierarchical rooflines (Van Lanker et al. 2024,
//     docs/models.md §3).
//
// The orchestration half, Estimate(kernel, launch, device, options), drives
// the footprint and waves engines and feeds their volumes into the functions
// above; it lives in estimate*.go. Like those engines it is plain Go: an
// estimate needs no ISL (and no cgo), since the spec loader has already
// turned raw ISL maps into index expressions (package relation).
package model
