package footprint

import (
	"slices"

	"github.com/polyvol/polyvol/kernel"
)

// pointGuard decides which lanes execute an instruction under method Exact:
// a lane at thread t does iff some lattice point of t among the
// instruction's points j lies in the domain (docs/metrics.md §8 items 6,
// 19); the launch's tiling places the points (kernel.Tiling). A guarded
// point (an access that applies on part of the domain) counts only where
// the point also lies in its guard's box, under either method.
type pointGuard struct {
	launch kernel.Launch
	// clip: points outside the domain do not execute (method Exact).
	clip bool
	// guarded: some instruction has guarded points.
	guarded bool
	// guardedOnly holds, for each instruction whose points are all
	// guarded, its guarded points.
	guardedOnly [][]GuardedPoint
	// kept memoises, per warp, whether the guards keep all its lanes: the
	// measures ask about every warp once per instruction or coefficient.
	kept map[warpKey]bool
}

// warpKey identifies a warp tile.
type warpKey struct {
	base  kernel.Point
	lanes *lanePattern
}

// newPointGuard returns the lane guard of launch l for the instruction
// lists, nil when lanes are neither clipped to the domain (docs/metrics.md
// §8 item 6) nor guarded.
func newPointGuard(l kernel.Launch, clip bool, lists []FieldInstructions) *pointGuard {
	g := &pointGuard{launch: l, clip: clip}
	for _, fi := range lists {
		for _, in := range fi.Instructions {
			g.guarded = g.guarded || len(in.Guarded) > 0
			if len(in.Points) == 0 && len(in.Guarded) > 0 {
				g.guardedOnly = append(g.guardedOnly, in.Guarded)
			}
		}
	}
	if !clip && !g.guarded {
		return nil
	}
	return g
}

// executes reports whether the lane at thread t executes in.
func (g *pointGuard) executes(t kernel.Point, in *Instruction) bool {
	if !g.clip && len(in.Points) > 0 || g.clip && g.launch.Covers(t, in.Points) {
		return true
	}
	for _, u := range in.Guarded {
		var p [3]int64
		for i := range 3 {
			p[i] = g.launch.PointCoord(i, t[i], u.J[i])
		}
		if u.Box.Contains(p) && (!g.clip || p[0] < g.launch.Domain[0] && p[1] < g.launch.Domain[1] && p[2] < g.launch.Domain[2]) {
			return true
		}
	}
	return false
}

// allExecute reports whether every lane of w has all its lattice points in
// the domain (the last lane's last point is the greatest,
// kernel.Launch.PointCoord) and every instruction whose points are all
// guarded has one whose guard keeps every lane, so that every lane
// executes every instruction.
func (g *pointGuard) allExecute(w warpTile) bool {
	l := g.launch
	for i := range 3 {
		if l.PointCoord(i, w.base[i]+w.lanes.hi[i], l.Fold[i]-1) >= l.Domain[i] {
			return false
		}
	}
	if len(g.guardedOnly) == 0 {
		return true
	}
	// Every point of every lane lies in the domain, so an instruction with
	// a point that applies everywhere executes on every lane; one whose
	// points are all guarded does where one of them keeps every lane.
	key := warpKey{w.base, w.lanes}
	if all, ok := g.kept[key]; ok {
		return all
	}
	all := true
	for _, points := range g.guardedOnly {
		if !slices.ContainsFunc(points, func(u GuardedPoint) bool { return g.keepsAll(w, u) }) {
			all = false
			break
		}
	}
	if g.kept == nil {
		g.kept = map[warpKey]bool{}
	}
	g.kept[key] = all
	return all
}

// keepsAll reports whether the guard of point u holds for every lane of w:
// a lane's point grows with its thread coordinate under either tiling, so
// the points of the first and the last lane bound them all.
func (g *pointGuard) keepsAll(w warpTile, u GuardedPoint) bool {
	for i := range 3 {
		lo := g.launch.PointCoord(i, w.base[i]+w.lanes.lo[i], u.J[i])
		hi := g.launch.PointCoord(i, w.base[i]+w.lanes.hi[i], u.J[i])
		if lo < u.Box.Lo[i] || hi >= u.Box.Hi[i] {
			return false
		}
	}
	return true
}

// noneExecutes reports whether no lane of w has a lattice point in the
// domain, so that it executes no instruction.
func (g *pointGuard) noneExecutes(w warpTile) bool {
	if !g.clip {
		return false
	}
	l := g.launch
	for i := range 3 {
		if l.PointCoord(i, w.base[i]+w.lanes.lo[i], 0) >= l.Domain[i] {
			return true
		}
	}
	return false
}

// activeThreadsIn returns the threads of the given blocks that have at
// least one lattice point in the domain.
func (g *pointGuard) activeThreadsIn(blocks [][3]int64) int64 {
	var total int64
	for _, b := range blocks {
		n := int64(1)
		for i := range 3 {
			n *= g.launch.ActiveThreadsInBlock(i, b[i])
		}
		total += n
	}
	return total
}
