// Package sets is the polyhedral view of a kernel under a launch
// configuration: it builds ISL thread sets (blocks, boxes of blocks, waves as
// ranges of linear block ids, warps, valid-domain guards) and access maps from
// thread coordinates to (field, granule) at a byte granularity, in the linear
// byte address space or in the paper's multi-dimensional address space, with
// thread folding applied. It never counts or models; package footprint does.
package sets
