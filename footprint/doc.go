// Package footprint counts, in plain Go: the unique sectors, lines and pages
// that a set of threads touches per field, overlaps between two thread sets,
// the block- and warp-level volumes of docs/metrics.md §3, and the L1
// wavefront and bank-conflict cycle model. An Engine counts the granules of
// a field's quasi-affine accesses as unions of arithmetic progressions, at a
// cost independent of the extent of the thread sets. It never uses ISL; the
// tests check its counts against ISL's (package sets).
package footprint
