// Package footprint counts: the unique sectors, lines and pages that a set of
// threads touches per field, overlaps between two thread sets, the block- and
// warp-level volumes of docs/metrics.md §3, and the L1 wavefront and
// bank-conflict cycle model. Its CountPoints makes the cost of counting the sets the
// engine builds independent of their extent.
package footprint
