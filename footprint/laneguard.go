package footprint

import (
	"encoding/binary"
	"slices"

	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/lattice"
)

// pointGuard decides which lanes execute an instruction under method Exact:
// a lane at thread t does iff some lattice point of t among the
// instruction's points j lies in the domain (docs/metrics.md §8 items 6,
// 19); the launch's tiling places the points (kernel.Tiling). A guarded
// point (an access that applies on part of the domain) counts only where
// the point also lies in its guard's box, under either method.
//
// executes is that definition, lane by lane. The measures ask threads
// instead: for one point j, the threads whose point lies in a box of
// lattice points (the domain, a guard's box) form a box of threads, so an
// instruction's threads are a union of a few boxes, computed once per
// instruction, and a warp's lanes are all inside, all outside or cut by
// them, which its lanes' bounding box tells at a cost that depends on
// neither the grid nor the fold.
type pointGuard struct {
	launch kernel.Launch
	// clip: points outside the domain do not execute (method Exact).
	clip bool
	// known holds the threads of each list of points and guarded points
	// met (appendPointsKey): instructions needed by the same points, as a
	// stencil's hundreds of loads are by a few, share them.
	known map[string]threadSet
	key   []byte // scratch of threads
}

// newPointGuard returns the lane guard of launch l for the instruction
// lists, nil when lanes are neither clipped to the domain (docs/metrics.md
// §8 item 6) nor guarded.
func newPointGuard(l kernel.Launch, clip bool, lists []FieldInstructions) *pointGuard {
	guarded := slices.ContainsFunc(lists, func(fi FieldInstructions) bool {
		return slices.ContainsFunc(fi.Instructions, func(in Instruction) bool { return len(in.Guarded) > 0 })
	})
	if !clip && !guarded {
		return nil
	}
	return &pointGuard{launch: l, clip: clip}
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

// threadSet is the set of threads that execute one instruction: every
// thread, or the threads in the union of boxes (thread coordinates).
type threadSet struct {
	every bool
	boxes []lattice.Box
}

// laneState says which lanes of a warp execute an instruction.
type laneState uint8

// The lane states.
const (
	noLane    laneState = iota // no lane executes it
	someLanes                  // some lanes do, some do not
	everyLane                  // every lane does
)

// threads returns the threads that execute in (executes), every thread
// for a nil guard. Each point j contributes the box of threads whose point
// j lies in the domain (with clipping) and, for a guarded point, in its
// guard's box (kernel.Launch.FirstThread); boxes that are empty or inside
// another are left out. The threads depend on the points alone, so they
// are kept for the next instruction with the same points. It takes one
// unit of work per point of each list it has not met.
func (g *pointGuard) threads(in *Instruction, budget *Budget) (threadSet, error) {
	if g == nil || !g.clip && len(in.Points) > 0 {
		return threadSet{every: true}, nil
	}
	g.key = appendPointsKey(g.key[:0], in)
	if s, ok := g.known[string(g.key)]; ok {
		return s, nil
	}
	if err := budget.spend(int64(len(in.Points) + len(in.Guarded))); err != nil {
		return threadSet{}, err
	}
	var boxes []lattice.Box
	add := func(b lattice.Box) {
		if !b.Empty() && !slices.Contains(boxes, b) {
			boxes = append(boxes, b)
		}
	}
	domain := lattice.Box{Hi: g.launch.Domain}
	for _, j := range in.Points {
		add(g.threadBox(j, domain))
	}
	for _, u := range in.Guarded {
		points := u.Box
		if g.clip {
			points = points.Intersect(domain)
		}
		add(g.threadBox(u.J, points))
	}
	s := threadSet{boxes: outerBoxes(boxes)}
	if g.known == nil {
		g.known = map[string]threadSet{}
	}
	g.known[string(g.key)] = s
	return s, nil
}

// appendPointsKey appends to key what tells the points and guarded points of in
// apart.
func appendPointsKey(key []byte, in *Instruction) []byte {
	key = binary.AppendUvarint(key, uint64(len(in.Points)))
	for _, j := range in.Points {
		for i := range 3 {
			key = binary.AppendVarint(key, j[i])
		}
	}
	for _, u := range in.Guarded {
		for i := range 3 {
			key = binary.AppendVarint(binary.AppendVarint(binary.AppendVarint(key, u.J[i]), u.Box.Lo[i]), u.Box.Hi[i])
		}
	}
	return key
}

// threadBox returns the box of threads whose point j lies in points.
func (g *pointGuard) threadBox(j [3]int64, points lattice.Box) lattice.Box {
	var b lattice.Box
	for i := range 3 {
		b.Lo[i] = g.launch.FirstThread(i, j[i], points.Lo[i])
		b.Hi[i] = g.launch.FirstThread(i, j[i], points.Hi[i])
	}
	return b
}

// outerBoxes returns the distinct non-empty boxes that lie inside no
// other: they have the same union.
func outerBoxes(boxes []lattice.Box) []lattice.Box {
	var out []lattice.Box
	for _, b := range boxes {
		if !slices.ContainsFunc(boxes, func(o lattice.Box) bool { return o != b && b.Intersect(o) == b }) {
			out = append(out, b)
		}
	}
	return out
}

// cover tells from the bounding box lo..hi (inclusive) of a warp's lanes
// whether all of them lie in s, none, or possibly some.
func (s threadSet) cover(lo, hi kernel.Point) laneState {
	if s.every {
		return everyLane
	}
	lanes := lattice.Box{Lo: lo, Hi: [3]int64{hi[0] + 1, hi[1] + 1, hi[2] + 1}}
	state := noLane
	for _, b := range s.boxes {
		switch in := lanes.Intersect(b); {
		case in == lanes:
			return everyLane
		case !in.Empty():
			state = someLanes
		}
	}
	return state
}

// contains reports whether thread t lies in s.
func (s threadSet) contains(t kernel.Point) bool {
	return s.every || slices.ContainsFunc(s.boxes, func(b lattice.Box) bool { return b.Contains(t) })
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
