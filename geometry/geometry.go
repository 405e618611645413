// Package geometry lays the threads and blocks of a launch over the
// lattice: the grid of blocks, block indices and their launch-order ids,
// the thread boxes of blocks and of runs of blocks in launch order, the
// valid thread domain (exact, and the reference implementation's), and
// AccessMapper, which says which lattice points the threads of a box
// cover.
package geometry

import (
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/lattice"
)

// Geometry is the thread and block layout of a launch: the launch's block
// size b, folding f and lattice domain D, and its grid g
// (kernel.Launch.Grid), which NewGeometry derives once. Thread coordinates
// are global: x = blockIdx.x·b0 + threadIdx.x, and a thread covers the
// lattice points f·t + j with 0 ≤ j < f.
type Geometry struct {
	kernel.Launch
	Grid [3]int64 // the launch's grid in blocks
}

// NewGeometry returns the geometry of a launch.
func NewGeometry(l kernel.Launch) Geometry {
	return Geometry{Launch: l, Grid: l.Grid()}
}

// LinearBlockID returns the launch-order id of block index b (x fastest).
func (g Geometry) LinearBlockID(b [3]int64) int64 {
	return b[0] + b[1]*g.Grid[0] + b[2]*g.Grid[0]*g.Grid[1]
}

// BlockIndex returns the block index of launch-order id id.
func (g Geometry) BlockIndex(id int64) [3]int64 {
	return [3]int64{id % g.Grid[0], (id / g.Grid[0]) % g.Grid[1], id / (g.Grid[0] * g.Grid[1])}
}

// ThreadBox returns the thread box covered by the box of blocks bb
// (block indices), without any valid-domain clipping.
func (g Geometry) ThreadBox(bb lattice.Box) lattice.Box {
	var t lattice.Box
	for i := range 3 {
		t.Lo[i] = bb.Lo[i] * g.Block[i]
		t.Hi[i] = bb.Hi[i] * g.Block[i]
	}
	return t
}

// BlockThreads returns the thread box of the single block b.
func (g Geometry) BlockThreads(b [3]int64) lattice.Box {
	return g.ThreadBox(lattice.Box{Lo: b, Hi: [3]int64{b[0] + 1, b[1] + 1, b[2] + 1}})
}

// GridThreads returns the thread box of the whole grid.
func (g Geometry) GridThreads() lattice.Box {
	return lattice.Box{Hi: [3]int64{g.Grid[0] * g.Block[0], g.Grid[1] * g.Block[1], g.Grid[2] * g.Block[2]}}
}

// ThreadDomain returns the box of threads that cover at least one lattice
// point of the domain: t_i < ⌈D_i/f_i⌉ (the exact valid thread domain).
func (g Geometry) ThreadDomain() lattice.Box {
	var b lattice.Box
	for i := range 3 {
		b.Hi[i] = (g.Domain[i] + g.Fold[i] - 1) / g.Fold[i]
	}
	return b
}

// ReferenceValidBox returns the valid domain of the reference implementation
// (the paper's valid domain): thread coordinates compared with point counts, t_i < D_i,
// which ignores folding (an approximation of the reference implementation).
func (g Geometry) ReferenceValidBox() lattice.Box { return lattice.Box{Hi: g.Domain} }

// BlockRange returns the blocks whose linear id lies in [a, b) as at most five
// disjoint boxes of block indices, in launch order: the tail of a partial
// row, whole rows, whole layers, whole rows and the head of a row.
func (g Geometry) BlockRange(a, b int64) []lattice.Box {
	a = max(a, 0)
	b = min(b, g.Blocks())
	var out []lattice.Box
	for a < b {
		idx := g.BlockIndex(a)
		rowLeft := g.Grid[0] - idx[0]
		layerLeft := g.Grid[0]*g.Grid[1] - (idx[0] + idx[1]*g.Grid[0])
		n := b - a
		var box lattice.Box
		switch {
		case idx[0] != 0 || n < g.Grid[0]: // part of one row
			w := min(rowLeft, n)
			box = lattice.Box{Lo: idx, Hi: [3]int64{idx[0] + w, idx[1] + 1, idx[2] + 1}}
			a += w
		case idx[1] != 0 || n < layerLeft: // whole rows of one layer
			rows := min(g.Grid[1]-idx[1], n/g.Grid[0])
			box = lattice.Box{Lo: idx, Hi: [3]int64{g.Grid[0], idx[1] + rows, idx[2] + 1}}
			a += rows * g.Grid[0]
		default: // whole layers
			layers := n / (g.Grid[0] * g.Grid[1])
			box = lattice.Box{Lo: idx, Hi: [3]int64{g.Grid[0], g.Grid[1], idx[2] + layers}}
			a += layers * g.Grid[0] * g.Grid[1]
		}
		out = append(out, box)
	}
	return out
}
