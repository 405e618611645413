package footprint

import (
	"encoding/binary"
	"slices"

	"github.com/polyvol/polyvol/geometry"
	"github.com/polyvol/polyvol/intmath"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/lattice"
)

// Engine counts footprints of one kernel under one launch, in plain Go.
// Like its counters' memories, it belongs to one goroutine at a time.
type Engine struct {
	Mapper *geometry.AccessMapper
	// Budget bounds the engine's counting work; a nil Budget is replaced by
	// one with the default bound on first use.
	Budget *Budget
	// Counts, when not nil, shares the granule counts of the engine's
	// counters with other engines (CountMemo); nil keeps them to this one.
	Counts *CountMemo

	counters map[int64]*counter // by granularity, with their memories
	pieces   map[pieceKey][]indexProgression
	prepared map[preparedKey][]progression
	// partitions are the classes of the blocks last summed (SumOverBlocks)
	// for each field and side.
	partitions map[partitionKey]*blockPartition
}

// Request names one footprint: the loads or stores of one field at one
// granularity in one address space.
type Request struct {
	Field int // index into the kernel's fields
	Store bool
	Gran  int64 // bytes per granule
	Space geometry.AddressSpace
}

// budget returns the engine's work budget.
func (e *Engine) budget() *Budget {
	e.Budget = budgetOrDefault(e.Budget)
	return e.Budget
}

// counter returns the engine's counter of granules of gran bytes.
func (e *Engine) counter(gran int64) *counter {
	if e.counters == nil {
		e.counters = map[int64]*counter{}
	}
	c := e.counters[gran]
	if c == nil {
		c = newCounter(gran, e.budget())
		c.shared = e.Counts
		e.counters[gran] = c
	}
	return c
}

// CountGranules returns the number of granules that the threads in boxes touch for
// request q. The footprint is a union of progressions (one per access and
// residue class of its floor and modulo terms, see progressions), counted
// exactly at a cost independent of the boxes' size (counter.count).
//
// In the linear space each box's progressions are prepared (normalised
// and merged, counter.prepare) once and kept: preparing keeps a union's
// granules, so the union of the boxes' prepared lists has the granules of
// their footprint, and the unions of a wave's thread sets, which share
// their boxes, merge a few progressions a box instead of one per access.
func (e *Engine) CountGranules(q Request, threads []lattice.Box) (int64, error) {
	if q.Space != geometry.LinearSpace {
		ps, gran, err := e.progressions(q, threads)
		if err != nil {
			return 0, err
		}
		return e.counter(gran).count(ps)
	}
	counter := e.counter(q.Gran)
	var ps []progression
	for _, t := range threads {
		pb := e.Mapper.PointBox(t)
		if pb.Empty() {
			continue
		}
		key := preparedKey{pieceKey{q.Field, q.Store, pb}, q.Gran}
		prepared, ok := e.prepared[key]
		if !ok {
			raw, _, err := e.progressions(q, []lattice.Box{t})
			if err != nil {
				return 0, err
			}
			prepared = counter.prepare(raw)
			if e.prepared == nil || len(e.prepared) >= maxCachedBoxes {
				e.prepared = map[preparedKey][]progression{}
			}
			e.prepared[key] = prepared
		}
		ps = append(ps, prepared...)
	}
	return counter.count(ps)
}

// preparedKey names the prepared progressions of one field's loads or
// stores over one box of lattice points at one granularity in the linear
// space (CountGranules).
type preparedKey struct {
	pieces pieceKey
	gran   int64
}

// CountCommonGranules returns the number of granules of request q that every
// one of the thread sets touches, by inclusion–exclusion over the counts of
// their unions: |∩ F(S_i)| = Σ_{∅≠J} (−1)^{|J|+1} |F(∪_{j∈J} S_j)|.
func (e *Engine) CountCommonGranules(q Request, threadSets ...[]lattice.Box) (int64, error) {
	var total int64
	for mask := 1; mask < 1<<len(threadSets); mask++ {
		var union []lattice.Box
		sign := int64(-1)
		for i, s := range threadSets {
			if mask&(1<<i) != 0 {
				union = append(union, s...)
				sign = -sign
			}
		}
		n, err := e.CountGranules(q, union)
		if err != nil {
			return 0, err
		}
		total += sign * n
	}
	return total, nil
}

// field returns the kernel field of request q.
func (e *Engine) field(q Request) *kernel.Field { return e.Mapper.Kernel.Fields[q.Field] }

// blockClassifier sorts the blocks of one request into classes whose
// footprints are translates of each other in the linear address space.
// Affine accesses and quasi-affine ones (floor and modulo terms) alike:
// two blocks whose first points fall in one class of the accesses'
// addresses (translationClassifier, for any shift) see every address
// shifted by one amount, the shift of the first; with lattice points of
// the same extents, and the same parts of them kept by each guard, their
// footprints are translates. Merging the classes of different phases
// whose addresses are affine on the whole block (affineShape) is a
// concern of its own, which the translation classes cannot see.
type blockClassifier struct {
	mapper *geometry.AccessMapper
	addrs  []laneAddress // each access's byte address
	// guards are the distinct boxes of the accesses that apply on part of
	// the domain only (kernel.Access.Partial).
	guards []lattice.Box
	// translations classifies the blocks' first points.
	translations *translationClassifier
	// shapes maps the affine shapes of classes (affineShape) to their
	// indices in a blockPartition.
	shapes map[string]int
}

// blockKey is the class of a block up to translation: the class of its
// origin and the description of its points (pointsKey).
type blockKey struct {
	class  translationClass
	points blockPoints
}

// blockPoints describes a block's lattice points relative to its origin: their
// extents and, for each guard box, the part of them it keeps
// (appendGuardKey); guards is empty without guard boxes.
type blockPoints struct {
	extents [3]int64
	guards  string
}

// maxClassifierPeriod bounds the common period, per coordinate, of the
// addresses a translationClassifier of blocks takes.
const maxClassifierPeriod = 1 << 30

// newBlockClassifier returns the classifier of request q; ok is false when
// there is none (the multi-dimensional space, or periods
// above maxClassifierPeriod), and blocks must be counted one by one.
func newBlockClassifier(e *Engine, q Request) (c *blockClassifier, ok bool) {
	f := e.field(q)
	if q.Space != geometry.LinearSpace {
		return nil, false
	}
	c = &blockClassifier{mapper: e.Mapper, shapes: map[string]int{}}
	period := [3]int64{1, 1, 1}
	for _, a := range f.Accesses(q.Store) {
		if g, partial, _ := a.Partial(e.Mapper.Geom.Domain); partial && !slices.Contains(c.guards, g) {
			c.guards = append(c.guards, g)
		}
		idx, err := f.ElementIndexExpr(a)
		if err == nil {
			idx, err = idx.Scale(f.Element)
		}
		if err != nil {
			return nil, false
		}
		if period, ok = widenPeriod(period, idx); !ok {
			return nil, false
		}
		c.addrs = append(c.addrs, newLaneAddress(idx))
	}
	if len(c.addrs) == 0 {
		return nil, false
	}
	c.translations = newTranslationClassifier(c.addrs, 1, period)
	return c, true
}

// classify returns the class of the block with thread box blockThreads
// and base, the first access's byte address at the block's first point;
// two blocks of a class differ by the shift between their bases. The
// block's points are its lattice points, clipped to the domain where the
// mapper clips.
func (c *blockClassifier) classify(blockThreads lattice.Box) (key blockKey, base int64) {
	points := c.mapper.PointBox(blockThreads)
	var origin kernel.Point
	for i := range 3 {
		origin[i] = blockThreads.Lo[i] * c.mapper.Geom.Fold[i]
	}
	key.class, base = c.translations.classify(origin)
	key.points = pointsKey(c.guards, origin, points)
	return key, base
}

// pointsKey describes the lattice points of a block with the given origin
// relative to it, with the parts of them that each guard box keeps.
func pointsKey(guards []lattice.Box, origin kernel.Point, box lattice.Box) blockPoints {
	var p blockPoints
	for i := range 3 {
		p.extents[i] = max(0, box.Hi[i]-box.Lo[i])
	}
	if len(guards) > 0 {
		p.guards = string(appendGuardKey(nil, guards, origin, box))
	}
	return p
}

// appendGuardKey appends to key, for each guard box, the part of the
// points it keeps relative to origin: blocks whose guarded accesses apply on
// translated points have translated footprints.
func appendGuardKey(key []byte, guards []lattice.Box, origin kernel.Point, points lattice.Box) []byte {
	for _, g := range guards {
		in := points.Intersect(g)
		if in.Empty() {
			key = append(key, 0)
			continue
		}
		key = append(key, 1)
		for i := range 3 {
			key = binary.AppendVarint(key, in.Lo[i]-origin[i])
			key = binary.AppendVarint(key, in.Hi[i]-origin[i])
		}
	}
	return key
}

// affineShape describes, for quasi-affine addresses, the block with thread
// box blockThreads up to translation when no floor or modulo term wraps
// inside its lattice points, so that every address is affine there
// (kernel.Expr.OnBox): the extents of the points, each address's
// coefficients, and the distances of the addresses from the first at the
// first point. Blocks of different phases with one shape have translated
// footprints too, as affine addresses do. ok is false when a term wraps,
// when the points are empty, or when the addresses are affine anyway
// (classify's key is then the shape).
func (c *blockClassifier) affineShape(blockThreads lattice.Box) (shape string, ok bool) {
	points := c.mapper.PointBox(blockThreads)
	if !c.translations.phased || points.Empty() || len(c.guards) > 0 {
		return "", false
	}
	lo, hi := kernel.Point(points.Lo), kernel.Point{points.Hi[0] - 1, points.Hi[1] - 1, points.Hi[2] - 1}
	var k []byte
	for i := range 3 {
		k = binary.AppendVarint(k, points.Hi[i]-points.Lo[i])
	}
	k, _, ok = appendAffineShape(k, c.addrs, lo, hi, lo)
	if !ok {
		return "", false
	}
	return string(k), true
}

// blockClass is one class of translated block footprints (blockClassifier):
// a representative block and its members, as runs (classMember) of blocks
// with their bases, the first access's byte address at a block's first
// point, and weights. A member's footprint is the representative's
// shifted by the difference of their bases.
type blockClass struct {
	rep     lattice.Box
	base    int64 // the representative's base
	members []classMember
	// ranges are the representative's footprint as listed by listRanges
	// at granules of rangesGran bytes; rangesGran is 0 before it is listed.
	ranges     []byteRange
	rangesGran int64
}

// finerRanges returns the representative's footprint as listRanges lists
// it at granules of gran bytes, from the ranges the class listed at a
// finer granularity joined at gran (joinRanges); ok is false when it has
// none listed at gran or finer.
func (c *blockClass) finerRanges(gran int64) (ranges []byteRange, ok bool) {
	if c.rangesGran == 0 || c.rangesGran > gran {
		return nil, false
	}
	return joinRanges(nil, c.ranges, gran), true
}

// classMember is a run of blocks of a blockClass, consecutive in the
// partitioned list, of one weight each, whose bases step by a constant
// stride: the k-th (k < count) is block + k, with base base + k·stride.
// The blocks of one row of a grid make one run.
type classMember struct {
	block         int // index into the partitioned blocks of the first
	base          int64
	weight        int64
	count, stride int64
}

// extends reports whether block i, with base and weight w, continues run m.
func (m *classMember) extends(i int, base, w int64) bool {
	return m.block+int(m.count) == i && m.weight == w && (m.count == 1 || base-m.base == m.count*m.stride)
}

// period returns the blocks after which the bases of run m repeat modulo
// gran: gran / gcd(stride, gran).
func (m *classMember) period(gran int64) int64 {
	return gran / intmath.GCD(intmath.FloorMod(m.stride, gran), gran)
}

// each calls visit with the block index, the base and the number of
// blocks of run m that each of its first blocks up to its period modulo
// gran stands for: those every period later, whose bases agree with its
// modulo gran.
func (m *classMember) each(gran int64, visit func(block int, base, blocks int64)) {
	period := m.period(gran)
	for k := range min(m.count, period) {
		visit(m.block+int(k), m.base+k*m.stride, (m.count-1-k)/period+1)
	}
}

// blockPartition is a list of weighted blocks sorted into classes of
// translated footprints for one field's loads or stores in the linear
// space. The classes do not depend on the granularity, so one partition
// serves the counts at every granularity (sum); the engine keeps the
// partition of the blocks it was last asked about, with its sums.
type blockPartition struct {
	mapper  geometry.AccessMapper // the mapper the classes were sorted under
	blocks  []lattice.Box
	classes []blockClass
	sums    map[int64]int64 // the sums counted so far, by granularity
}

// partitionKey names the partitions an engine keeps: one per field and
// side (loads or stores).
type partitionKey struct {
	field int
	store bool
}

// partitionBlocks sorts the blocks, with their weights (nil: one each),
// into the classes of request q's footprints (blockClassifier), as runs
// of consecutive blocks (classMember); ok is false when q has no
// classifier, and blocks must be counted one by one.
// Blocks whose classes share an affine shape (blockClassifier.affineShape)
// join one class, their footprints being translates too.
func (e *Engine) partitionBlocks(q Request, blocks []lattice.Box, weights []int64) (p *blockPartition, ok bool) {
	classifier, ok := newBlockClassifier(e, q)
	if !ok {
		return nil, false
	}
	p = &blockPartition{mapper: *e.Mapper, blocks: blocks, sums: map[int64]int64{}}
	index := map[blockKey]int{}
	var lastKey blockKey
	last := -1 // the class of the block before
	for i, b := range blocks {
		key, base := classifier.classify(b)
		w := int64(1)
		if weights != nil {
			w = weights[i]
		}
		if last >= 0 && key == lastKey {
			members := p.classes[last].members
			if m := &members[len(members)-1]; m.extends(i, base, w) {
				if m.count == 1 {
					m.stride = base - m.base
				}
				m.count++
				continue
			}
		}
		c, seen := index[key]
		if !seen {
			shape, affine := classifier.affineShape(b)
			if c, seen = classifier.shapes[shape]; !seen || !affine {
				c = len(p.classes)
				p.classes = append(p.classes, blockClass{rep: b, base: base})
				if affine {
					classifier.shapes[shape] = c
				}
			}
			index[key] = c
		}
		p.classes[c].members = append(p.classes[c].members, classMember{block: i, base: base, weight: w, count: 1})
		lastKey, last = key, c
	}
	return p, true
}

// partition returns the engine's partition of blocks for request q,
// sorting them anew unless the partition of q's field and side holds the
// same blocks under the same mapper.
func (e *Engine) partition(q Request, blocks []lattice.Box) (*blockPartition, bool) {
	key := partitionKey{q.Field, q.Store}
	if p := e.partitions[key]; p != nil && p.mapper == *e.Mapper && slices.Equal(p.blocks, blocks) {
		return p, true
	}
	p, ok := e.partitionBlocks(q, slices.Clone(blocks), nil)
	if !ok {
		return nil, false
	}
	if e.partitions == nil {
		e.partitions = map[partitionKey]*blockPartition{}
	}
	e.partitions[key] = p
	return p, true
}

// residueGroup is the blocks of one class whose bases agree modulo a
// granularity: the first of them, its base, and their total weight.
type residueGroup struct {
	block  int
	base   int64
	weight int64
}

// residueGroups returns the blocks of class c grouped by their bases
// modulo gran. Blocks whose bases agree modulo gran have footprints
// shifted by a multiple of gran, and so have the footprints of any sub-box
// of their threads taken at one offset from their first threads: the
// class fixes the points relative to the first thread and the guards'
// parts of them, and shifts every address by one amount, the difference
// of the bases.
func (c *blockClass) residueGroups(gran int64) []residueGroup {
	var groups []residueGroup
	index := map[int64]int{}
	for _, m := range c.members {
		m.each(gran, func(block int, base, blocks int64) {
			r := intmath.FloorMod(base, gran)
			if g, ok := index[r]; ok {
				groups[g].weight += blocks * m.weight
				return
			}
			index[r] = len(groups)
			groups = append(groups, residueGroup{block: block, base: base, weight: blocks * m.weight})
		})
	}
	return groups
}

// sum returns Σ weight·|F_q(b)| over p's blocks. Each class lists its
// representative's footprint once as byte ranges (listRanges; at a
// coarser granularity the ranges of a finer one, joined) and counts every
// member's granules from them (shiftCounter). A representative with
// too many ranges is counted as progressions shifted to one member per
// residue group: the count of a translate depends only on the shift
// modulo the granularity.
func (e *Engine) sum(q Request, p *blockPartition) (int64, error) {
	if n, ok := p.sums[q.Gran]; ok {
		return n, nil
	}
	var total int64
	counter := e.counter(q.Gran) // the linear space counts at q.Gran
	for i := range p.classes {
		c := &p.classes[i]
		var ps []progression
		ranges, listed := c.finerRanges(q.Gran)
		if !listed {
			var err error
			if ps, _, err = e.progressions(q, []lattice.Box{c.rep}); err != nil {
				return 0, err
			}
			if ranges, listed = counter.listRanges(ps); listed {
				c.ranges, c.rangesGran = ranges, q.Gran
			}
		}
		if listed {
			shifted := newShiftCounter(ranges, q.Gran)
			for _, m := range c.members {
				m.each(q.Gran, func(_ int, base, blocks int64) {
					total += shifted.count(base-c.base) * blocks * m.weight
				})
			}
			continue
		}
		for _, g := range c.residueGroups(q.Gran) {
			shifted := make([]progression, len(ps))
			for i, pr := range ps {
				pr.base += g.base - c.base
				shifted[i] = pr
			}
			n, err := counter.count(shifted)
			if err != nil {
				return 0, err
			}
			total += n * g.weight
		}
	}
	p.sums[q.Gran] = total
	return total, nil
}

// SumOverBlocks returns Σ_b |F_q(b)| over the given blocks (thread boxes,
// one per block). Blocks whose footprints are translates of each other form
// a class (blockClassifier, partitionBlocks), counted once per base address
// modulo the granularity (Engine.sum). With floor or modulo terms the
// classes are by phase modulo the addresses' period, and the classes of
// blocks on which no term wraps share one representative per affine shape
// (blockClassifier.affineShape), so the counting depends on the periods
// and the block shape, not on the number of blocks. The engine keeps the
// classes of the last blocks of each field and side, which the requests
// at other granularities share. Blocks with periods above
// maxClassifierPeriod, or outside the linear space, are counted one by one.
func (e *Engine) SumOverBlocks(q Request, blocks []lattice.Box) (int64, error) {
	if p, ok := e.partition(q, blocks); ok {
		return e.sum(q, p)
	}
	return e.sumOneByOne(q, blocks)
}

// sumOneByOne returns Σ_b |F_q(b)| over the blocks, counting each on its
// own.
func (e *Engine) sumOneByOne(q Request, blocks []lattice.Box) (int64, error) {
	var sum int64
	for _, b := range blocks {
		n, err := e.CountGranules(q, []lattice.Box{b})
		if err != nil {
			return 0, err
		}
		sum += n
	}
	return sum, nil
}
