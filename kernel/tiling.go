package kernel

import (
	"fmt"
	"strings"

	"github.com/polyvol/polyvol/intmath"
)

// Tiling says where the lattice points of a thread that computes several
// (a fold f with more than one point) lie.
//
// Along dimension i, with block size b and fold f, the thread with index
// tx in block bx, whose global thread coordinate is t = bx·b + tx, computes
// for 0 ≤ j < f the lattice point
//
//	consecutive: f·t + j                   (thread folding: f neighbours)
//	strided:     bx·b·f + tx + j·b         (a tile strided by the block size)
//
// In both, block bx covers the same lattice points, [bx·b·f, (bx+1)·b·f):
// footprints of whole blocks, waves and layers do not depend on the tiling.
// What differs is which points a warp's lanes touch in one instruction.
// A strided tile keeps the lanes of a warp on neighbouring points, as
// hand-written CUDA usually does (for x: x = blockIdx.x·blockDim.x·f +
// threadIdx.x + j·blockDim.x), where thread folding spreads them f apart.
// In thread coordinates the strided point is quasi-affine:
// b·f·⌊t/b⌋ + (t mod b) + j·b.
type Tiling uint8

// The tilings.
const (
	TileConsecutive Tiling = iota // thread folding: each thread's f points are neighbours
	TileStrided                   // each thread's f points lie one block size apart
)

var tilingNames = [...]string{"consecutive", "strided"}

// String returns "consecutive" or "strided".
func (t Tiling) String() string {
	if int(t) < len(tilingNames) {
		return tilingNames[t]
	}
	return fmt.Sprintf("Tiling(%d)", int(t))
}

// ParseTiling reads a tiling name: "consecutive" or "strided".
func ParseTiling(s string) (Tiling, error) {
	for i, n := range tilingNames {
		if s == n {
			return Tiling(i), nil
		}
	}
	return 0, fmt.Errorf("tiling %q: want %s", s, strings.Join(tilingNames[:], " or "))
}

// Suffix names a strided tiling after a fold in messages and tables, " strided";
// thread folding, the default, goes unnamed ("").
func (t Tiling) Suffix() string {
	if t == TileConsecutive {
		return ""
	}
	return " " + t.String()
}

// MarshalText writes the tiling's name (JSON and YAML).
func (t Tiling) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// UnmarshalText reads a tiling name.
func (t *Tiling) UnmarshalText(b []byte) error {
	v, err := ParseTiling(string(b))
	if err == nil {
		*t = v
	}
	return err
}

// strided reports whether dimension i places a thread's points a block
// size apart; with one point per thread, or one thread per block, both
// tilings coincide and the consecutive form is used.
func (l Launch) strided(i int) bool {
	return l.Tiling == TileStrided && l.Fold[i] > 1 && l.Block[i] > 1
}

// Canonical returns l, with a strided tiling that places every thread's
// points where thread folding does (no dimension with both a fold and a
// block size above 1) replaced by TileConsecutive: the two are one launch.
func (l Launch) Canonical() Launch {
	for i := range 3 {
		if l.strided(i) {
			return l
		}
	}
	l.Tiling = TileConsecutive
	return l
}

// PointCoord returns coordinate i of lattice point j of the thread with
// global thread coordinate t. It grows strictly with t under either tiling
// (a strided tile's next block starts b·f − b + 1 past the last thread's
// point), so over a range of threads it is least at the first and greatest
// at the last.
func (l Launch) PointCoord(i int, t, j int64) int64 {
	if !l.strided(i) {
		return l.Fold[i]*t + j
	}
	b := l.Block[i]
	return t/b*b*l.Fold[i] + t%b + j*b
}

// FirstThread returns the least thread coordinate t ≥ 0 along dimension
// i whose lattice point j has coordinate PointCoord(i, t, j) ≥ p. Since
// PointCoord grows strictly with t, the threads whose point j lies in
// [lo, hi) are exactly those in [FirstThread(i, j, lo), FirstThread(i, j,
// hi)): a box of lattice points is a box of threads for each point j.
func (l Launch) FirstThread(i int, j, p int64) int64 {
	if !l.strided(i) {
		return max(0, intmath.CeilDiv(p-j, l.Fold[i]))
	}
	// Block β holds the points [β·b·f, β·b·f + b) past j·b, one per thread.
	b, q := l.Block[i], p-j*l.Block[i]
	if q <= 0 {
		return 0
	}
	blk := q / (b * l.Fold[i])
	if r := q - blk*b*l.Fold[i]; r < b {
		return blk*b + r
	}
	return (blk + 1) * b
}

// Covers reports whether some point j of points, of the thread at global
// thread coordinates t, lies in the domain.
func (l Launch) Covers(t [3]int64, points [][3]int64) bool {
	for _, j := range points {
		if l.PointCoord(0, t[0], j[0]) < l.Domain[0] && l.PointCoord(1, t[1], j[1]) < l.Domain[1] && l.PointCoord(2, t[2], j[2]) < l.Domain[2] {
			return true
		}
	}
	return false
}

// PointExprs returns the coordinates of lattice point j as expressions in
// the thread coordinates x, y and z (see Tiling).
func (l Launch) PointExprs(j [3]int64) ([3]Expr, error) {
	var sub [3]Expr
	for i := range sub {
		var err error
		if sub[i], err = l.pointExpr(i, j[i]); err != nil {
			return sub, err
		}
	}
	return sub, nil
}

func (l Launch) pointExpr(i int, j int64) (Expr, error) {
	f, b := l.Fold[i], l.Block[i]
	if !l.strided(i) {
		s, err := Var(i).Scale(f)
		if err != nil {
			return Expr{}, err
		}
		return s.Add(Const(j))
	}
	q, err := Var(i).FloorDiv(b)
	if err == nil {
		q, err = q.Scale(b * f)
	}
	var r Expr
	if err == nil {
		r, err = Var(i).Mod(b)
	}
	if err == nil {
		q, err = q.Add(r)
	}
	if err == nil {
		q, err = q.Add(Const(j * b))
	}
	return q, err
}

// ThreadAccess returns access a of lattice point j in thread coordinates:
// every x, y and z of its index and guards replaced by the point's
// coordinates (PointExprs).
func (l Launch) ThreadAccess(a Access, j [3]int64) (Access, error) {
	out, err := l.ThreadAccesses([]Access{a}, j)
	if err != nil {
		return Access{}, err
	}
	return out[0], nil
}

// ThreadAccesses returns ThreadAccess of every access of lattice point j,
// in order, building the point's coordinate expressions once. An index
// e = v + k, with k its constant, becomes v[sub] + k, and v[sub] is
// substituted once for all indices with the variable part v: a stencil's
// indices differ in their constants only. Both orders of adding the
// terms give one canonical expression (Expr.Add).
func (l Launch) ThreadAccesses(accesses []Access, j [3]int64) ([]Access, error) {
	sub, err := l.PointExprs(j)
	if err != nil {
		return nil, err
	}
	variable := map[string]Expr{}
	var key []byte
	substitute := func(e Expr) (Expr, error) {
		k := e.konst
		e.konst = 0
		key = e.AppendKey(key[:0])
		v, seen := variable[string(key)]
		if !seen {
			if v, err = e.Substitute(sub); err != nil {
				return Expr{}, err
			}
			variable[string(key)] = v
		}
		return v.Add(Const(k))
	}
	out := make([]Access, len(accesses))
	for k, a := range accesses {
		out[k].Text = a.Text
		for i, e := range a.Index {
			if out[k].Index[i], err = substitute(e); err != nil {
				return nil, fmt.Errorf("access %s at point offset %v of a %s tile %v: %w", a.Text, j, l.Tiling, l.Fold, err)
			}
		}
		for _, g := range a.Guards {
			t, err := g.Substitute(sub)
			if err != nil {
				return nil, fmt.Errorf("access %s at point offset %v of a %s tile %v: %w", a.Text, j, l.Tiling, l.Fold, err)
			}
			out[k].Guards = append(out[k].Guards, t)
		}
	}
	return out, nil
}

// ActiveThreadsInBlock returns the threads of block b (block index along
// dimension i) that have at least one lattice point in the domain. A
// thread's first point grows with its coordinate, under either tiling, so
// these are the block's first threads: of the D − b·bs·f points left from
// the block's first one, a consecutive tile spreads them over ⌈left/f⌉
// threads and a strided one over min(bs, left).
func (l Launch) ActiveThreadsInBlock(i int, b int64) int64 {
	left := l.Domain[i] - b*l.Block[i]*l.Fold[i]
	if left <= 0 {
		return 0
	}
	if l.strided(i) {
		return min(l.Block[i], left)
	}
	return min(l.Block[i], (left+l.Fold[i]-1)/l.Fold[i])
}

// ActiveThreads returns, per dimension, the threads of the grid that have
// at least one lattice point in the domain: all blocks but the last along a
// dimension are full.
func (l Launch) ActiveThreads() [3]int64 {
	g := l.Grid()
	var a [3]int64
	for i := range a {
		a[i] = (g[i]-1)*l.Block[i] + l.ActiveThreadsInBlock(i, g[i]-1)
	}
	return a
}

// ActiveWarpsIn counts the warps of a block of shape b (warpSize
// consecutive linear thread indices threadIdx.x + b_0·threadIdx.y +
// b_0·b_1·threadIdx.z each) that hold a thread of the box [0, e) of active
// threads.
func ActiveWarpsIn(b, e [3]int64, warpSize int64) int64 {
	var n int64
	threads := b[0] * b[1] * b[2]
	for w := int64(0); w*warpSize < threads; w++ {
		for id := w * warpSize; id < min((w+1)*warpSize, threads); id++ {
			x, y, z := id%b[0], (id/b[0])%b[1], id/(b[0]*b[1])
			if x < e[0] && y < e[1] && z < e[2] {
				n++
				break
			}
		}
	}
	return n
}
