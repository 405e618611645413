// Package sets is the polyhedral view of a kernel under a launch, in ISL:
// thread sets (boxes of threads, waves as ranges of linear block ids, warps)
// and access maps from thread coordinates to (field, granule) at a byte
// granularity, in the linear byte address space or in the paper's
// multi-dimensional address space, with thread folding applied, and
// CountPoints to count such sets. No estimate uses it: it is the
// independent oracle against which the tests check the plain-Go counts of
// packages geometry, footprint and waves.
package sets
