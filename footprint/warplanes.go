package footprint

import (
	"encoding/binary"
	"slices"

	"github.com/polyvol/polyvol/intmath"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/lattice"
)

// truncatedGrid returns the reference's sample grid t_i = min(8, g_i) in
// blocks (docs/metrics.md §2.5).
func truncatedGrid(l kernel.Launch) [3]int64 {
	g := l.Grid()
	for i := range g {
		g[i] = min(referenceSampleBlocks, g[i])
	}
	return g
}

// ReferenceSampleBlocks lists the block indices of the reference's sample,
// the truncated grid t_i = min(8, g_i) at the origin, x fastest
// (docs/metrics.md §2.5).
func ReferenceSampleBlocks(l kernel.Launch) [][3]int64 {
	return lattice.Box{Hi: truncatedGrid(l)}.Points()
}

// warpShape returns ω(S), the box of threads the reference takes as one warp
// of S threads in a block of size b (docs/metrics.md §2.6).
func warpShape(size int, b [3]int64) [3]int64 {
	s := int64(size)
	x := min(s, b[0])
	y := min(b[1], max(1, s/b[0]))
	z := min(b[2], max(1, s/b[0]/b[1]))
	return [3]int64{x, y, z}
}

// lanePattern is the lanes of one kind of warp: each lane's thread offset
// from the warp's base thread, in lane order.
type lanePattern struct {
	offsets []kernel.Point
	lo, hi  kernel.Point // smallest and largest offset in each dimension
}

func newLanePattern(offsets []kernel.Point) *lanePattern {
	p := &lanePattern{offsets: offsets, lo: offsets[0], hi: offsets[0]}
	for _, o := range offsets {
		for i := range o {
			p.lo[i] = min(p.lo[i], o[i])
			p.hi[i] = max(p.hi[i], o[i])
		}
	}
	return p
}

// warpTile is one warp: its lanes are the threads base + offset.
type warpTile struct {
	base  kernel.Point
	lanes *lanePattern
	// weight is the number of warps this tile stands for: 1, or the blocks
	// of a class of equivalent sample blocks (see blockClasses).
	weight int64
}

// boxTiles is the reference's Tiling(ω, n) (docs/metrics.md §2.7): tiles k
// in [0,n) of the box shape ω at thread k·ω, lanes listed with y outermost,
// x in the middle and z innermost.
func boxTiles(shape, n [3]int64) []warpTile {
	var offsets []kernel.Point
	for y := range shape[1] {
		for x := range shape[0] {
			for z := range shape[2] {
				offsets = append(offsets, kernel.Point{x, y, z})
			}
		}
	}
	lanes := newLanePattern(offsets)
	tiles := make([]warpTile, 0, n[0]*n[1]*n[2])
	for k2 := range n[2] {
		for k1 := range n[1] {
			for k0 := range n[0] {
				tiles = append(tiles, warpTile{kernel.Point{k0 * shape[0], k1 * shape[1], k2 * shape[2]}, lanes, 1})
			}
		}
	}
	return tiles
}

// hardwareWarps returns the warps of size threads of every block in blocks:
// consecutive linear thread ids, x fastest, the last warp of a block holding
// the remainder (docs/metrics.md §8 item 5). Lanes are in thread-id order.
// weights, when not nil, gives each block's weight.
func hardwareWarps(block [3]int64, size int, blocks [][3]int64, weights []int64) []warpTile {
	threads := block[0] * block[1] * block[2]
	// Warps whose lanes are translates of each other share one pattern of
	// offsets from their first lane, so that memoised measures carry over.
	type warpOf struct {
		first   kernel.Point
		pattern *lanePattern
	}
	shapes := map[string]*lanePattern{}
	var warps []warpOf
	for first := int64(0); first < threads; first += int64(size) {
		var offsets []kernel.Point
		var key []byte
		origin := kernel.Point{first % block[0], first / block[0] % block[1], first / (block[0] * block[1])}
		for tid := first; tid < min(threads, first+int64(size)); tid++ {
			o := kernel.Point{tid%block[0] - origin[0], tid/block[0]%block[1] - origin[1], tid/(block[0]*block[1]) - origin[2]}
			offsets = append(offsets, o)
			key = binary.AppendVarint(binary.AppendVarint(binary.AppendVarint(key, o[0]), o[1]), o[2])
		}
		p, ok := shapes[string(key)]
		if !ok {
			p = newLanePattern(offsets)
			shapes[string(key)] = p
		}
		warps = append(warps, warpOf{origin, p})
	}
	var tiles []warpTile
	for bi, b := range blocks {
		w := int64(1)
		if weights != nil {
			w = weights[bi]
		}
		for _, wp := range warps {
			base := kernel.Point{b[0]*block[0] + wp.first[0], b[1]*block[1] + wp.first[1], b[2]*block[2] + wp.first[2]}
			tiles = append(tiles, warpTile{base, wp.pattern, w})
		}
	}
	return tiles
}

// blockClasses groups sample blocks whose warps see the same lane addresses
// up to a shift by a multiple of modulus: the same translation key
// (appendTranslationKey: the lattice points inside the domain, which fix
// the active threads of every point offset j, and the distances between
// all instructions' addresses at the block's first thread), the part of
// the block's points that each guard of a partial access keeps, and the
// same first instruction address modulo modulus. Every per-warp measure of the package is periodic in modulus, so
// one block per class, weighted by the class size, gives the same sums as
// the whole sample. With floor or modulo terms the key also holds the
// phase of the block's first thread modulo the instructions' common period
// (kernel.Expr.Period): blocks of one phase see every address shifted by
// one amount, the shift of the first (see blockClassifier). With a period
// above maxClassifierPeriod every block is its own class.
func blockClasses(lists []FieldInstructions, l kernel.Launch, modulus int64, sample [][3]int64) (reps [][3]int64, weights []int64) {
	var addrs []laneAddress
	var guards []lattice.Box
	period, affine := [3]int64{1, 1, 1}, true
	for _, fi := range lists {
		for _, in := range fi.Instructions {
			for _, u := range in.Guarded {
				if !slices.Contains(guards, u.Box) {
					guards = append(guards, u.Box)
				}
			}
			a := newLaneAddress(in.Address)
			if !a.affine {
				var ok bool
				if period, ok = widenPeriod(period, in.Address); !ok {
					return sample, nil
				}
				affine = false
			}
			addrs = append(addrs, a)
		}
	}
	keyer := newTranslationKeyer(addrs)
	index := map[string]int{}
	var key []byte
	for _, b := range sample {
		var points lattice.Box
		for i := range 3 {
			points.Lo[i] = b[i] * l.Block[i] * l.Fold[i]
			points.Hi[i] = min(points.Lo[i]+l.Block[i]*l.Fold[i], l.Domain[i])
		}
		var first int64
		origin := kernel.Point{b[0] * l.Block[0], b[1] * l.Block[1], b[2] * l.Block[2]}
		key, first = keyer.appendKey(key[:0], origin, points)
		if len(addrs) > 0 {
			key = binary.AppendVarint(key, intmath.FloorMod(first, modulus))
		}
		if !affine {
			for i := range 3 {
				key = binary.AppendVarint(key, intmath.FloorMod(origin[i], period[i]))
			}
		}
		key = appendGuardKey(key, guards, kernel.Point(points.Lo), points)
		if i, ok := index[string(key)]; ok {
			weights[i]++
			continue
		}
		index[string(key)] = len(reps)
		reps = append(reps, b)
		weights = append(weights, 1)
	}
	return reps, weights
}

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

// laneAddress evaluates an instruction's byte address at a thread, with the
// coefficients of an affine address kept for speed.
type laneAddress struct {
	expr   kernel.Expr
	coef   [3]int64
	c0     int64
	affine bool
}

func newLaneAddress(e kernel.Expr) laneAddress {
	coef, c0, ok := e.Linear()
	return laneAddress{expr: e, coef: coef, c0: c0, affine: ok}
}

func (a *laneAddress) at(p kernel.Point) int64 {
	if a.affine {
		return a.c0 + a.coef[0]*p[0] + a.coef[1]*p[1] + a.coef[2]*p[2]
	}
	return a.expr.Eval(p)
}

// onBox returns the address on the box lo ≤ p ≤ hi: its affine form where
// no floor or modulo term wraps there (kernel.Expr.OnBox), which is faster
// to evaluate lane by lane, else a itself.
func (a *laneAddress) onBox(lo, hi kernel.Point) laneAddress {
	if a.affine {
		return *a
	}
	s, err := a.expr.OnBox(lo, hi)
	if err != nil {
		return *a
	}
	if b := newLaneAddress(s); b.affine {
		return b
	}
	return *a
}

// widenPeriod returns the least common multiple, per coordinate, of period
// and the period of address e (kernel.Expr.Period); ok is false when e has
// none or a coordinate's exceeds maxClassifierPeriod.
func widenPeriod(period [3]int64, e kernel.Expr) (widened [3]int64, ok bool) {
	p, ok := e.Period()
	if !ok {
		return period, false
	}
	for i := range 3 {
		if period[i] = intmath.LCM(period[i], p[i]); period[i] > maxClassifierPeriod {
			return period, false
		}
	}
	return period, true
}

// appendAffineShape appends to k the affine shape of addrs on the box
// lo..hi when no floor or modulo term wraps there, so that every address
// is affine on it (kernel.Expr.OnBox): each address's coefficients and its
// distance from the first address, evaluated at the point at. first is the
// first address there; ok is false when a term wraps.
func appendAffineShape(k []byte, addrs []laneAddress, lo, hi, at kernel.Point) (shape []byte, first int64, ok bool) {
	for j, a := range addrs {
		on, err := a.expr.OnBox(lo, hi)
		if err != nil {
			return k, 0, false
		}
		coef, c0, affine := on.Linear()
		if !affine {
			return k, 0, false
		}
		v := c0 + coef[0]*at[0] + coef[1]*at[1] + coef[2]*at[2]
		if j == 0 {
			first = v
		}
		for i := range 3 {
			k = binary.AppendVarint(k, coef[i])
		}
		k = binary.AppendVarint(k, v-first)
	}
	return k, first, true
}

// warpMeasure evaluates a measure of the lane addresses of a group of
// instructions on many warps. The measure must not change when every address
// is shifted by a multiple of modulus. For affine addresses the lane
// addresses of a warp are base + δ(lane), with δ fixed by the lane pattern,
// so the measure depends only on the pattern, the first instruction's base
// address mod modulus and the other instructions' distances from it; results
// are memoised on that key and lanes are enumerated only on a miss. Warps
// with inactive lanes and non-affine addresses are always enumerated.
type warpMeasure[T any] struct {
	insts   []Instruction
	addrs   []laneAddress
	guard   *pointGuard
	modulus int64
	measure func(lanes [][]int64) T
	memo    map[memoKey]T // nil: no memoisation
	// rigid is true when all addresses are affine with the same
	// coefficients, so that their distances are the same on every warp.
	rigid bool
	// period is the addresses' period in each coordinate (1 for affine
	// ones): warps whose bases agree modulo it see translated addresses.
	period [3]int64
	// distances numbers the distinct vectors of the other instructions'
	// base addresses relative to the first's (groups of several only).
	distances map[string]int
	// shapes memoises quasi-affine instructions by the affine shape of
	// their addresses on a warp where no floor or modulo term wraps
	// (affineShape); nil when every address is affine or without memo.
	shapes map[shapeKey]T
	lanes  [][]int64 // scratch: the active lane addresses per instruction
	key    []byte    // scratch: the encoded distances
	// distinguish encodes the distances of affine addresses from the
	// first by the few products that fix them (translationKeyer).
	distinguish translationKeyer
}

// shapeKey is the memo key of a warp of quasi-affine instructions on which
// every address is affine (warpMeasure.affineShape).
type shapeKey struct {
	lanes   *lanePattern
	residue int64
	addrs   string // each address's coefficients and distance from the first
}

type memoKey struct {
	lanes     *lanePattern
	phase     [3]int64 // the warp's base modulo the period
	residue   int64
	distances int
}

// maxMemoPeriod bounds the product of the periods for which the lane
// addresses of quasi-affine instructions are memoised; the memo holds at
// most one entry per warp measured, whatever the periods.
const maxMemoPeriod = 1 << 20

func newWarpMeasure[T any](insts []Instruction, guard *pointGuard, modulus int64, memoise bool, measure func([][]int64) T) *warpMeasure[T] {
	w := &warpMeasure[T]{insts: insts, guard: guard, modulus: modulus, measure: measure, lanes: make([][]int64, len(insts)), period: [3]int64{1, 1, 1}}
	affine, periodic := true, true
	for _, in := range insts {
		a := newLaneAddress(in.Address)
		affine = affine && a.affine
		w.addrs = append(w.addrs, a)
		p, ok := in.Address.Period()
		periodic = periodic && ok
		for i := range 3 {
			w.period[i] = min(intmath.LCM(w.period[i], p[i]), maxMemoPeriod+1) // capped: only ≤ maxMemoPeriod matters
		}
	}
	w.rigid = affine
	for _, a := range w.addrs {
		w.rigid = w.rigid && a.coef == w.addrs[0].coef
	}
	w.distinguish = newTranslationKeyer(w.addrs)
	// Warps whose bases agree modulo the period see every instruction's
	// addresses shifted by one amount each (the period's defining
	// property), so quasi-affine addresses are memoised like affine ones,
	// with the base's phase in the key.
	if memoise && (affine || periodic && w.period[0]*w.period[1]*w.period[2] <= maxMemoPeriod) {
		w.memo = make(map[memoKey]T)
		w.distances = make(map[string]int)
		if !affine {
			w.shapes = make(map[shapeKey]T)
		}
	}
	return w
}

// on returns the measure on warp t.
func (w *warpMeasure[T]) on(t warpTile) T {
	if w.guard != nil && w.guard.noneExecutes(t) {
		for i := range w.lanes {
			w.lanes[i] = w.lanes[i][:0]
		}
		return w.measure(w.lanes)
	}
	full := w.guard == nil || w.guard.allExecute(t)
	if w.memo == nil || !full {
		return w.enumerate(t, full)
	}
	first := w.addrs[0].at(t.base)
	key := memoKey{lanes: t.lanes, residue: intmath.FloorMod(first, w.modulus)}
	for i := range 3 {
		key.phase[i] = intmath.FloorMod(t.base[i], w.period[i])
	}
	if len(w.addrs) > 1 {
		w.key = w.distinguish.appendDistances(w.key[:0], t.base, first)
		id, ok := w.distances[string(w.key)]
		if !ok {
			id = len(w.distances)
			w.distances[string(w.key)] = id
		}
		key.distances = id
	}
	if v, ok := w.memo[key]; ok {
		return v
	}
	shape, affine := w.affineShape(t)
	if v, ok := w.shapes[shape]; ok && affine {
		w.memo[key] = v
		return v
	}
	v := w.enumerate(t, true)
	w.memo[key] = v
	if affine {
		w.shapes[shape] = v
	}
	return v
}

// affineShape describes warp t's lane addresses up to a shift by a
// multiple of the modulus when no floor or modulo term of the
// instructions wraps on the box of its lanes, so that every address is
// affine there (kernel.Expr.OnBox): the lane pattern, each address's
// coefficients, and the distances of the addresses from the first and the
// first modulo the modulus, all of the affine forms at the warp's base.
// Warps of different phases with one shape see the same lane addresses up
// to such a shift. ok is false when a term wraps, or without shape memo.
func (w *warpMeasure[T]) affineShape(t warpTile) (shape shapeKey, ok bool) {
	if w.shapes == nil {
		return shapeKey{}, false
	}
	var lo, hi kernel.Point
	for i := range 3 {
		lo[i], hi[i] = t.base[i]+t.lanes.lo[i], t.base[i]+t.lanes.hi[i]
	}
	k, first, ok := appendAffineShape(nil, w.addrs, lo, hi, t.base)
	if !ok {
		return shapeKey{}, false
	}
	return shapeKey{t.lanes, intmath.FloorMod(first, w.modulus), string(k)}, true
}

// maxBucketModulus bounds the moduli for which warps are grouped by address
// residue (see warpSet).
const maxBucketModulus = 1 << 12

// warpSet is a list of warps together with its partitions into groups of
// equivalent warps, made on demand and kept for each address coefficient
// vector and modulus.
type warpSet struct {
	tiles  []warpTile
	guard  *pointGuard
	groups map[groupKey]*warpGroups
}

type groupKey struct {
	coef    [3]int64
	modulus int64
}

// warpGroups partitions the warps of a warpSet for affine addresses with one
// coefficient vector c: warps whose lanes all execute, that share a lane
// pattern and c·base modulo the modulus form a group. Every instruction
// with address c·t + c0 sees the lane addresses of a group's warps up to a
// shift by a multiple of the modulus. The warps with inactive lanes are
// loose.
type warpGroups struct {
	reps    []int   // index of each group's first warp
	weights []int64 // total weight of each group's warps
	loose   []int
}

func newWarpSet(tiles []warpTile, guard *pointGuard) *warpSet {
	return &warpSet{tiles: tiles, guard: guard, groups: map[groupKey]*warpGroups{}}
}

// grouped returns the partition for coefficients coef and the modulus,
// computing it with a few integer operations per warp on first use.
func (s *warpSet) grouped(coef [3]int64, modulus int64) *warpGroups {
	key := groupKey{coef, modulus}
	if g, ok := s.groups[key]; ok {
		return g
	}
	type bucket struct {
		weight int64
		rep    int
	}
	g := &warpGroups{}
	var patterns []*lanePattern
	var buckets [][]bucket
	mask, pow2 := modulus-1, modulus&(modulus-1) == 0
	for i, t := range s.tiles {
		if s.guard != nil && !s.guard.allExecute(t) {
			g.loose = append(g.loose, i)
			continue
		}
		k := slices.Index(patterns, t.lanes)
		if k < 0 {
			k = len(patterns)
			patterns = append(patterns, t.lanes)
			buckets = append(buckets, make([]bucket, modulus))
		}
		a := coef[0]*t.base[0] + coef[1]*t.base[1] + coef[2]*t.base[2]
		r := a & mask // a mod modulus, also for negative a
		if !pow2 {
			r = intmath.FloorMod(a, modulus)
		}
		b := &buckets[k][r]
		if b.weight == 0 {
			b.rep = i
		}
		b.weight += t.weight
	}
	for k := range patterns {
		for _, b := range buckets[k] {
			if b.weight > 0 {
				g.reps = append(g.reps, b.rep)
				g.weights = append(g.weights, b.weight)
			}
		}
	}
	s.groups[key] = g
	return g
}

// each calls visit with the measure and weight of every warp of ws. For
// rigid memoised instructions it measures each group of equivalent warps
// (warpSet.grouped) once and visits it with the group's total weight; all
// other warps are visited one by one.
func (w *warpMeasure[T]) each(ws *warpSet, visit func(v T, weight int64)) {
	if w.memo == nil || !w.rigid || w.modulus > maxBucketModulus {
		for _, t := range ws.tiles {
			visit(w.on(t), t.weight)
		}
		return
	}
	g := ws.grouped(w.addrs[0].coef, w.modulus)
	for _, i := range g.loose {
		visit(w.on(ws.tiles[i]), ws.tiles[i].weight)
	}
	for k, i := range g.reps {
		visit(w.enumerate(ws.tiles[i], true), g.weights[k])
	}
}

// enumerate evaluates the measure lane by lane; with full false it skips
// the lanes that do not execute an instruction.
func (w *warpMeasure[T]) enumerate(t warpTile, full bool) T {
	var lo, hi kernel.Point
	for i := range 3 {
		lo[i], hi[i] = t.base[i]+t.lanes.lo[i], t.base[i]+t.lanes.hi[i]
	}
	for i := range w.insts {
		lanes := w.lanes[i][:0]
		addr := w.addrs[i].onBox(lo, hi)
		for _, o := range t.lanes.offsets {
			p := kernel.Point{t.base[0] + o[0], t.base[1] + o[1], t.base[2] + o[2]}
			if full || w.guard.executes(p, &w.insts[i]) {
				lanes = append(lanes, addr.at(p))
			}
		}
		w.lanes[i] = lanes
	}
	return w.measure(w.lanes)
}

// sectorCounter counts the distinct granules of granule bytes that a group
// of instructions touches per warp: at each lane's start address only
// (method Reference, docs/metrics.md §3.1), or over each lane's full byte
// range (method Exact, §8 item 10).
func sectorCounter(insts []Instruction, guard *pointGuard, granule int64, fullRange, memoise bool) *warpMeasure[int64] {
	var ids []int64
	return newWarpMeasure(insts, guard, granule, memoise, func(lanes [][]int64) int64 {
		ids = ids[:0]
		for i, addrs := range lanes {
			last := int64(0)
			if fullRange {
				last = insts[i].Width - 1
			}
			for _, a := range addrs {
				for g := intmath.FloorDiv(a, granule); g <= intmath.FloorDiv(a+last, granule); g++ {
					ids = append(ids, g)
				}
			}
		}
		return int64(len(distinct(ids)))
	})
}

// translationKeyer tells blocks apart up to translation as
// appendTranslationKey does, faster where every address is affine. The
// distance a_i(o) − a_0(o) between two affine addresses is
// (c_i − c_0) + (g_i − g_0)·o for their constants c and gradients g, so
// two origins give the same distances exactly when they give the same
// products δ·o for the distinct non-zero gradient differences δ: a few,
// one per field layout, where the instructions are hundreds.
type translationKeyer struct {
	addrs  []laneAddress
	deltas [][3]int64 // the distinct non-zero g_i − g_0; nil unless affine
	affine bool
}

func newTranslationKeyer(addrs []laneAddress) translationKeyer {
	t := translationKeyer{addrs: addrs, affine: true}
	for _, a := range addrs {
		if !a.affine {
			return translationKeyer{addrs: addrs}
		}
		d := [3]int64{a.coef[0] - addrs[0].coef[0], a.coef[1] - addrs[0].coef[1], a.coef[2] - addrs[0].coef[2]}
		if d != [3]int64{} && !slices.Contains(t.deltas, d) {
			t.deltas = append(t.deltas, d)
		}
	}
	return t
}

// appendDistances appends to key what tells the distances of the
// addresses at origin from the first, first, apart: the distances
// themselves, or for affine addresses the products δ·origin.
func (t translationKeyer) appendDistances(key []byte, origin kernel.Point, first int64) []byte {
	if t.affine {
		for _, d := range t.deltas {
			key = binary.AppendVarint(key, d[0]*origin[0]+d[1]*origin[1]+d[2]*origin[2])
		}
		return key
	}
	for _, a := range t.addrs[1:] {
		key = binary.AppendVarint(key, a.at(origin)-first)
	}
	return key
}

// appendKey appends to key a description of the block with the given
// origin and points up to translation, and returns it with the first
// address at origin: appendTranslationKey's, or for affine addresses one
// that tells the same blocks apart.
func (t translationKeyer) appendKey(key []byte, origin kernel.Point, points lattice.Box) ([]byte, int64) {
	for i := range 3 {
		key = binary.AppendVarint(key, max(0, points.Hi[i]-points.Lo[i]))
	}
	if len(t.addrs) == 0 {
		return key, 0
	}
	first := t.addrs[0].at(origin)
	return t.appendDistances(key, origin, first), first
}

// appendTranslationKey appends to key a description of a block up to
// translation and returns it with the first address addrs[0] at origin,
// the block's first thread or point in the coordinates of addrs (0 without
// addresses). The description is the extent of points, the block's lattice
// points (clipped to the domain where the caller clips), relative to their
// first, and the distances between the addresses at origin. Two blocks
// with the same description have footprints that are translates of each
// other by the difference of their first addresses.
func appendTranslationKey(key []byte, addrs []laneAddress, origin kernel.Point, points lattice.Box) ([]byte, int64) {
	return translationKeyer{addrs: addrs}.appendKey(key, origin, points)
}
