package footprint

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"sync"

	"github.com/polyvol/polyvol/intmath"
	"github.com/polyvol/polyvol/procmem"
)

// ErrWorkBound reports that a count needed more work than its Budget allows.
var ErrWorkBound = errors.New("counting work bound exceeded")

// DefaultWorkBound is the work a Budget allows when none is set: 14 times
// what the heaviest configuration of the embedded examples needs (explore
// lbm-d3q27-aos, method exact: 344 000 units, the warps' lanes included).
// The worst inputs found, by hand and by fuzzing, reach it in about 1 s
// and under 100 MB.
const DefaultWorkBound = 5_000_000

// ErrMemoryBound reports that the memory of the process passed a Budget's
// MemoryLimit while counting.
var ErrMemoryBound = errors.New("memory bound exceeded")

// memoryCheckInterval is the work, in units, between two readings of the
// process's memory: about 0.2 ms of counting and, at about 100 bytes a
// unit, 0.1 MB of memory at most.
const memoryCheckInterval = 1024

// Budget bounds the counting work of one estimate. Work is measured in
// progressions handled (one unit each time the counter merges or splits
// one, pieceCost for each it builds from an access), which bounds both
// time (about 0.2 µs a unit) and memory. The zero value allows
// DefaultWorkBound units. A Budget belongs to one goroutine at a time.
type Budget struct {
	Limit int64 // units allowed; 0 means DefaultWorkBound
	// MemoryLimit bounds, in bytes, the memory of the estimate while it
	// counts: the growth of the process's resident memory (heldMemory)
	// since the estimates running at once began, MemoryLimit for each of
	// them that Track counts (at least one). It is read every
	// memoryCheckInterval units and before every large allocation
	// (reserve); 0 means none.
	MemoryLimit int64
	// Context stops the counting when it ends: spend then fails with its
	// error. nil means none.
	Context   context.Context
	used      int64
	nextCheck int64 // used at the next reading of the memory
}

// spend charges n units; it fails with ErrWorkBound once the limit is
// passed, and with ErrMemoryBound once the memory is.
func (b *Budget) spend(n int64) error {
	if b == nil {
		return nil
	}
	if b.Context != nil {
		select {
		case <-b.Context.Done():
			return fmt.Errorf("counting stopped: %w", b.Context.Err())
		default:
		}
	}
	b.used += n
	limit := b.Limit
	if limit == 0 {
		limit = DefaultWorkBound
	}
	if b.used > limit {
		return fmt.Errorf("%w: more than %d units of counting work", ErrWorkBound, limit)
	}
	if b.MemoryLimit > 0 && b.used >= b.nextCheck {
		b.nextCheck = b.used + memoryCheckInterval
		return checkMemory(b.MemoryLimit, 0)
	}
	return nil
}

// boundedRunning is the set of estimates with a memory bound that run now
// (Track): their number, and the process's memory when the first of them
// began, which the memory they hold is counted from.
var boundedRunning struct {
	sync.Mutex
	n, base int64
}

// Track counts the budget among the estimates running at once: from its
// start to the call of the function it returns, which the caller defers.
// The memory of these estimates is what the process holds beyond what it
// held when the first of them began; spend allows MemoryLimit of it for
// each.
func (b *Budget) Track() (done func()) {
	if b.MemoryLimit <= 0 {
		return func() {}
	}
	r := &boundedRunning
	r.Lock()
	if r.n == 0 {
		r.base = heldMemory()
	}
	r.n++
	r.Unlock()
	return func() {
		r.Lock()
		r.n--
		r.Unlock()
	}
}

// tracked returns the memory the process held when the estimates running
// began, and their number; for a budget that Track does not count, with no
// estimate tracked, none and one: its bound is on the whole process.
func tracked() (base, n int64) {
	r := &boundedRunning
	r.Lock()
	defer r.Unlock()
	if r.n == 0 {
		return 0, 1
	}
	return r.base, r.n
}

// reserve checks, before the counter allocates size bytes at once (a
// slice of pieces or progressions), that the process can hold them within
// the memory bound: the counting work between two readings of spend does
// not bound what one such allocation takes.
func (b *Budget) reserve(size int64) error {
	if b == nil || b.MemoryLimit <= 0 || size < memoryReserveMin {
		return nil
	}
	return checkMemory(b.MemoryLimit, size)
}

// memoryReserveMin is the smallest allocation reserve checks: smaller ones
// are left to the readings of spend.
const memoryReserveMin = 1 << 20

// checkMemory fails with ErrMemoryBound when the estimates running hold
// more than limit bytes each (Track), planned bytes about to be allocated
// included, even after a collection has returned what it could to the
// operating system. The collection runs only when the memory is over.
func checkMemory(limit, planned int64) error {
	base, n := tracked()
	if heldMemory()+planned <= base+limit*n {
		return nil
	}
	debug.FreeOSMemory()
	if held := heldMemory(); held+planned > base+limit*n {
		what := fmt.Sprintf("%d estimates hold", n)
		if n == 1 {
			what = "the estimate holds"
		}
		return fmt.Errorf("%w: %s %d MB and %d MB more are needed, more than %d MB each", ErrMemoryBound, what, max(0, held-base)>>20, planned>>20, limit>>20)
	}
	return nil
}

// heldMemory returns the resident memory of the process (procmem), or
// where that cannot be read the bytes the Go runtime holds from the
// operating system: all it mapped, less what it returned.
func heldMemory() int64 {
	if rss, ok := procmem.Resident(); ok {
		return rss
	}
	samples := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(samples)
	return int64(samples[0].Value.Uint64()) - int64(samples[1].Value.Uint64())
}

// budgetOrDefault returns b, or where b is nil a new Budget that allows
// DefaultWorkBound.
func budgetOrDefault(b *Budget) *Budget {
	if b == nil {
		return &Budget{}
	}
	return b
}

// Used returns the units spent so far.
func (b *Budget) Used() int64 { return b.used }

// progression is a generalised arithmetic progression of byte ranges: the
// bytes [base + Σ_i axes[i].step·q_i, … + width) for 0 ≤ q_i < axes[i].count.
// Every footprint polyvol counts is a union of progressions: one access over
// one box of lattice points (and one residue class of its floor and modulo
// terms) is one.
type progression struct {
	base, width int64
	axes        []axis
}

// axis is one dimension of a progression: count translates step bytes apart.
type axis struct {
	step, count int64
}

// span returns the distance from the first to the last byte of p.
func (p progression) span() int64 {
	s := p.width - 1
	for _, a := range p.axes {
		s += a.step * (a.count - 1)
	}
	return s
}

// normalize returns p in the canonical form the counter works on, for
// granules of gran bytes: positive steps in ascending order, no axis of one
// translate, axes whose translates form a contiguous run folded into one,
// and the innermost axes folded into the width while the gap between two
// translates is smaller than a granule (such a gap cannot hold a whole
// granule, so the granules are those of the run's hull). ok is false for an
// empty progression.
func normalize(p progression, gran int64) (progression, bool) {
	if p.width <= 0 {
		return p, false
	}
	if normalized(p, gran) {
		return p, true
	}
	axes := make([]axis, 0, len(p.axes))
	for _, a := range p.axes {
		switch {
		case a.count <= 0:
			return p, false
		case a.count == 1 || a.step == 0:
			continue
		case a.step < 0:
			p.base += a.step * (a.count - 1)
			a.step = -a.step
		}
		axes = append(axes, a)
	}
	slices.SortFunc(axes, func(a, b axis) int { return cmp.Compare(a.step, b.step) })
	// An axis whose step is a multiple m of a smaller one's, with m no more
	// than that axis's count, continues it: {a·i + m·a·j} is the run
	// 0 … a·(count−1 + m·(count'−1)).
	for i := 0; i < len(axes); i++ {
		for j := i + 1; j < len(axes); j++ {
			if axes[j].step%axes[i].step == 0 && axes[j].step/axes[i].step <= axes[i].count {
				axes[i].count += axes[j].step / axes[i].step * (axes[j].count - 1)
				axes = slices.Delete(axes, j, j+1)
				j = i
			}
		}
	}
	for len(axes) > 0 && axes[0].step-p.width < gran {
		p.width += axes[0].step * (axes[0].count - 1)
		axes = axes[1:]
	}
	p.axes = axes
	return p, true
}

// normalized reports whether normalize would leave p as it is, so that the
// common case allocates nothing.
func normalized(p progression, gran int64) bool {
	for i, a := range p.axes {
		if a.count < 2 || a.step <= 0 || i == 0 && a.step-p.width < gran {
			return false
		}
		for _, b := range p.axes[:i] {
			if b.step > a.step || a.step%b.step == 0 && a.step/b.step <= b.count {
				return false
			}
		}
	}
	return true
}

// counter counts the granules of unions of progressions at one granularity.
// It remembers the counts of the unions it has seen, up to a shift by whole
// granules, which leaves a count unchanged, and where shared is not nil
// looks up and records them there too (CountMemo).
type counter struct {
	gran   int64
	budget *Budget
	memo   map[string]int64
	shared *CountMemo
}

// newCounter returns a counter of granules of gran bytes charging budget.
func newCounter(gran int64, budget *Budget) *counter {
	return &counter{gran: gran, budget: budget, memo: map[string]int64{}}
}

// maxMemo bounds the unions a counter remembers.
const maxMemo = 1 << 16

// count returns the number of granules that the union of ps touches.
//
// The method, exact for any progressions and independent of their counts:
// let P be the largest step. Cut every progression with an axis of step P
// into planes, one per translate, and call plane v the progressions' parts
// that start in [v·P, (v+1)·P). Planes more than w = ⌊(hull + G − 1)/P⌋
// apart cannot share a granule, where hull is the byte span of one plane.
// Between two planes where a progression starts or ends ("breakpoints")
// every plane is the previous one shifted by P bytes, so the granules that
// plane v adds to those of all earlier planes, new(v), depend only on the
// window v−w … v and repeat with period T = G/intmath.GCD(P, G), after which the
// window is shifted by whole granules. The total Σ_v new(v) is then summed
// segment by segment: the first w planes after a breakpoint and one period
// are counted as unions of lower-dimensional progressions (recursively,
// with the next smaller step), and the rest of the segment is whole periods.
// The cost depends on the number of progressions, breakpoints, w and T,
// never on the number of planes.
func (c *counter) count(ps []progression) (int64, error) {
	if err := c.budget.spend(int64(len(ps)) + 1); err != nil {
		return 0, err
	}
	if len(ps) == 0 {
		return 0, nil
	}
	if flat(ps) {
		return c.countRanges(ps), nil
	}
	key := c.key(ps)
	if n, ok := c.memo[string(key)]; ok {
		return n, nil
	}
	if found, ok := c.shared.lookup(c.gran, key); ok {
		c.remember(key, found.granules)
		return found.granules, c.budget.spend(found.work)
	}
	before := c.budget.Used()
	ps = c.prepare(ps)
	var n int64
	if flat(ps) {
		n = c.countRanges(ps)
	} else {
		var err error
		if n, err = c.countPlanes(ps); err != nil {
			return 0, err
		}
	}
	c.remember(key, n)
	c.shared.record(c.gran, key, sharedCount{granules: n, work: c.budget.Used() - before})
	return n, nil
}

// remember keeps the count n of the union of key in the counter's own
// memory while it has room.
func (c *counter) remember(key []byte, n int64) {
	if len(c.memo) < maxMemo {
		c.memo[string(key)] = n
	}
}

// flat reports whether every progression of ps is a byte range (has no
// axis).
func flat(ps []progression) bool {
	for _, p := range ps {
		if len(p.axes) > 0 {
			return false
		}
	}
	return true
}

// prepare normalises ps and merges progressions whose union is one.
func (c *counter) prepare(ps []progression) []progression {
	out := make([]progression, 0, len(ps))
	for _, p := range ps {
		if q, ok := normalize(p, c.gran); ok {
			out = append(out, q)
		}
	}
	return c.merge(out)
}

// merge joins progressions with the same axes whose ranges overlap or lie
// less than a granule apart, and progressions that continue each other along
// one axis, until nothing changes. Both keep the union's granules.
func (c *counter) merge(ps []progression) []progression {
	for changed := true; changed && len(ps) > 1; {
		changed = false
		n := len(ps)
		ps = c.mergeRanges(ps)
		for j := 0; j < 3; j++ {
			ps = mergeAlongAxis(ps, j)
		}
		changed = len(ps) < n
	}
	return ps
}

// mergeRanges joins progressions with equal axes whose ranges at the same
// translate overlap or are less than a granule apart.
func (c *counter) mergeRanges(ps []progression) []progression {
	slices.SortFunc(ps, func(a, b progression) int {
		if d := compareAxes(a.axes, b.axes); d != 0 {
			return d
		}
		return cmp.Compare(a.base, b.base)
	})
	out := ps[:0]
	for _, p := range ps {
		if k := len(out) - 1; k >= 0 && compareAxes(out[k].axes, p.axes) == 0 && p.base-(out[k].base+out[k].width) < c.gran {
			out[k].width = max(out[k].width, p.base+p.width-out[k].base)
			continue
		}
		out = append(out, p)
	}
	for i := range out { // a wider range may now fold an axis
		out[i], _ = normalize(out[i], c.gran)
	}
	return out
}

// mergeAlongAxis joins progressions that agree in width and in every axis
// but the j-th one's count, and whose bases differ by k steps of that axis
// with k no more than the first one's count: together they are one longer
// progression. It sorts ps so that such progressions come together, in
// the order of their bases (compareAlongAxis).
func mergeAlongAxis(ps []progression, j int) []progression {
	if !slices.ContainsFunc(ps, func(p progression) bool { return j < len(p.axes) }) {
		return ps
	}
	slices.SortFunc(ps, func(a, b progression) int { return compareAlongAxis(a, b, j) })
	out := ps[:0]
	for _, p := range ps {
		if n := len(out) - 1; n >= 0 && j < len(p.axes) && sameBesidesAxis(out[n], p, j) {
			prev := &out[n]
			if steps := (p.base - prev.base) / p.axes[j].step; steps <= prev.axes[j].count {
				axes := slices.Clone(prev.axes)
				axes[j].count = max(axes[j].count, steps+p.axes[j].count)
				prev.axes = axes
				continue
			}
		}
		out = append(out, p)
	}
	return out
}

// compareAlongAxis orders progressions for mergeAlongAxis: those without a
// j-th axis first, then by width, by the steps and the counts of the
// other axes, by the base modulo the j-th step, and by the base.
func compareAlongAxis(a, b progression, j int) int {
	if ha, hb := j < len(a.axes), j < len(b.axes); ha != hb || !ha {
		if ha == hb {
			return 0
		}
		if ha {
			return 1
		}
		return -1
	}
	if d := cmp.Compare(len(a.axes), len(b.axes)); d != 0 {
		return d
	}
	if d := cmp.Compare(a.width, b.width); d != 0 {
		return d
	}
	for i := range a.axes {
		if d := cmp.Compare(a.axes[i].step, b.axes[i].step); d != 0 {
			return d
		}
		if d := cmp.Compare(a.axes[i].count, b.axes[i].count); i != j && d != 0 {
			return d
		}
	}
	if d := cmp.Compare(intmath.FloorMod(a.base, a.axes[j].step), intmath.FloorMod(b.base, b.axes[j].step)); d != 0 {
		return d
	}
	return cmp.Compare(a.base, b.base)
}

// sameBesidesAxis reports whether a and b, both with a j-th axis, agree
// in width, in every step, in the counts of the other axes and in their
// bases modulo the j-th step: whether mergeAlongAxis may join them.
func sameBesidesAxis(a, b progression, j int) bool {
	if len(a.axes) != len(b.axes) || a.width != b.width {
		return false
	}
	for i := range a.axes {
		if a.axes[i].step != b.axes[i].step || i != j && a.axes[i].count != b.axes[i].count {
			return false
		}
	}
	return intmath.FloorMod(a.base, a.axes[j].step) == intmath.FloorMod(b.base, b.axes[j].step)
}

// compareAxes orders axis lists.
func compareAxes(a, b []axis) int {
	if d := cmp.Compare(len(a), len(b)); d != 0 {
		return d
	}
	for i := range a {
		if d := cmp.Compare(a[i].step, b[i].step); d != 0 {
			return d
		}
		if d := cmp.Compare(a[i].count, b[i].count); d != 0 {
			return d
		}
	}
	return 0
}

// countRanges counts the granules of progressions without axes: byte ranges.
func (c *counter) countRanges(ps []progression) int64 {
	type span struct{ lo, hi int64 } // granules lo … hi
	spans := make([]span, len(ps))
	for i, p := range ps {
		spans[i] = span{intmath.FloorDiv(p.base, c.gran), intmath.FloorDiv(p.base+p.width-1, c.gran)}
	}
	slices.SortFunc(spans, func(a, b span) int { return cmp.Compare(a.lo, b.lo) })
	var n int64
	next := int64(math.MinInt64) // first granule not yet counted
	for _, s := range spans {
		lo := max(s.lo, next)
		if s.hi >= lo {
			n += s.hi - lo + 1
			next = s.hi + 1
		}
	}
	return n
}

// key encodes the union of ps up to a shift by whole granules and the
// order of ps, which it sorts.
func (c *counter) key(ps []progression) []byte {
	slices.SortFunc(ps, func(a, b progression) int {
		if d := cmp.Compare(a.base, b.base); d != 0 {
			return d
		}
		if d := cmp.Compare(a.width, b.width); d != 0 {
			return d
		}
		return compareAxes(a.axes, b.axes)
	})
	shift := intmath.FloorDiv(ps[0].base, c.gran) * c.gran
	size := 0
	for _, p := range ps {
		size += 3*binary.MaxVarintLen64 + 2*binary.MaxVarintLen64*len(p.axes)
	}
	buf := make([]byte, 0, size)
	for _, p := range ps {
		buf = binary.AppendVarint(buf, p.base-shift)
		buf = binary.AppendVarint(buf, p.width)
		buf = binary.AppendUvarint(buf, uint64(len(p.axes)))
		for _, a := range p.axes {
			buf = binary.AppendVarint(buf, a.step)
			buf = binary.AppendVarint(buf, a.count)
		}
	}
	return buf
}

// maxInterleave bounds the progressions one is split into to align its
// outermost step with the planes' (alignToPlanes).
const maxInterleave = 64

// planeMember is one progression cut into planes: it occupies planes
// first … first+count−1, where its part is inner at offset bytes from the
// plane's start.
type planeMember struct {
	first, count int64
	offset       int64
	inner        progression // base 0
}

// countPlanes is count for progressions with axes; see count.
func (c *counter) countPlanes(ps []progression) (int64, error) {
	step := largestStep(ps)
	return newPlaneSum(c, alignToPlanes(ps, step), step).sum()
}

// largestStep returns P, the largest step of any axis of ps: the distance
// between two planes.
func largestStep(ps []progression) int64 {
	var step int64
	for _, p := range ps {
		if n := len(p.axes); n > 0 {
			step = max(step, p.axes[n-1].step)
		}
	}
	return step
}

// alignToPlanes cuts the progressions of ps that span two planes or more
// without an axis of step P, which would widen every plane's hull and
// with it the window w. A byte range is cut into whole planes and a rest;
// an outermost axis whose step S divides P is split into the m = P/S
// interleaved progressions of step P (strides that differ between
// accesses, such as [x, 2y, z] and [x, y, 2z]).
func alignToPlanes(ps []progression, P int64) []progression {
	for i, n := 0, len(ps); i < n; i++ {
		p := ps[i]
		k := len(p.axes) - 1
		switch {
		case k < 0 && p.width >= 2*P:
			planes := p.width / P
			ps[i] = progression{base: p.base, width: P, axes: []axis{{step: P, count: planes}}}
			if rest := p.width - planes*P; rest > 0 {
				ps = append(ps, progression{base: p.base + planes*P, width: rest})
			}
		case k >= 0 && p.axes[k].step < P && P%p.axes[k].step == 0 && p.span() >= 2*P && P/p.axes[k].step <= maxInterleave:
			S, count := p.axes[k].step, p.axes[k].count
			m := P / S
			for r := range min(m, count) {
				q := progression{base: p.base + r*S, width: p.width, axes: slices.Clone(p.axes)}
				q.axes[k] = axis{step: P, count: intmath.CeilDiv(count-r, m)}
				if r == 0 {
					ps[i] = q
				} else {
					ps = append(ps, q)
				}
			}
		}
	}
	return ps
}

// planeSum sums new(v), the granules plane v adds to those of all earlier
// planes, over every plane of a union of progressions cut into planes P
// bytes apart (count's method). Planes more than w apart share no
// granule, and within a segment between two breakpoints new(v) has period
// T from the segment's w-th plane on.
type planeSum struct {
	c       *counter
	P, w, T int64
	// members are sorted by their first plane; maxEnd is the running
	// maximum of their ends, so that two binary searches find the members
	// that meet a range of planes (members).
	members []planeMember
	maxEnd  []int64
	// breaks are the planes where a member starts or ends, in order, and
	// cover[i] the number of members on the planes from breaks[i] on.
	breaks []int64
	cover  []int
	// total is the sum so far; the run [runStart, runEnd) of short
	// segments, open when it holds any, waits to be counted together.
	total            int64
	runStart, runEnd int64
	open             bool
}

// newPlaneSum cuts ps into the planes of step P and indexes them.
func newPlaneSum(c *counter, ps []progression, P int64) *planeSum {
	s := &planeSum{c: c, P: P, members: make([]planeMember, len(ps))}
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64) // hull of a plane, from its start
	for i, p := range ps {
		m := planeMember{count: 1, inner: progression{width: p.width, axes: p.axes}}
		if n := len(p.axes); n > 0 && p.axes[n-1].step == P {
			m.count = p.axes[n-1].count
			m.inner.axes = p.axes[:n-1]
		}
		m.first = intmath.FloorDiv(p.base, P)
		m.offset = p.base - m.first*P
		lo = min(lo, m.offset)
		hi = max(hi, m.offset+m.inner.span())
		s.members[i] = m
		s.breaks = append(s.breaks, m.first, m.first+m.count)
	}
	s.w = (hi - lo + c.gran - 1) / P
	s.T = c.gran / intmath.GCD(P, c.gran)
	slices.Sort(s.breaks)
	s.breaks = slices.Compact(s.breaks)
	s.indexMembers()
	s.coverBreaks()
	return s
}

// indexMembers sorts the members by their first plane and records the
// running maximum of their ends.
func (s *planeSum) indexMembers() {
	slices.SortFunc(s.members, func(a, b planeMember) int { return cmp.Compare(a.first, b.first) })
	s.maxEnd = make([]int64, len(s.members))
	for i, m := range s.members {
		s.maxEnd[i] = m.first + m.count
		if i > 0 {
			s.maxEnd[i] = max(s.maxEnd[i], s.maxEnd[i-1])
		}
	}
}

// coverBreaks counts the members on the planes from each breakpoint on.
func (s *planeSum) coverBreaks() {
	s.cover = make([]int, len(s.breaks))
	for _, m := range s.members {
		i, _ := slices.BinarySearch(s.breaks, m.first)
		j, _ := slices.BinarySearch(s.breaks, m.first+m.count)
		s.cover[i]++
		if j < len(s.cover) {
			s.cover[j]--
		}
	}
	for i := 1; i < len(s.cover); i++ {
		s.cover[i] += s.cover[i-1]
	}
}

// planes counts the union of planes [from, to) of every member.
func (s *planeSum) planes(from, to int64) (int64, error) {
	if to <= from {
		return 0, nil
	}
	i0, _ := slices.BinarySearch(s.maxEnd, from+1)
	i1, _ := slices.BinarySearchFunc(s.members, to, func(m planeMember, v int64) int { return cmp.Compare(m.first, v) })
	meeting := s.members[i0:max(i0, i1)]
	var n int64
	for _, m := range meeting {
		n += max(0, min(to, m.first+m.count)-max(from, m.first))
	}
	parts := make([]progression, 0, n)
	for _, m := range meeting {
		a, b := max(from, m.first), min(to, m.first+m.count)
		if b <= a {
			continue
		}
		if err := s.c.budget.spend(b - a); err != nil {
			return 0, err
		}
		for v := a; v < b; v++ {
			q := m.inner
			q.base = v*s.P + m.offset
			parts = append(parts, q)
		}
	}
	return s.c.count(parts)
}

// newIn returns Σ new(v) over v in [a, b): the planes [a−w, b) less the
// planes [a−w, a), because no plane before a−w meets one from a on.
func (s *planeSum) newIn(a, b int64) (int64, error) {
	all, err := s.planes(a-s.w, b)
	if err != nil {
		return 0, err
	}
	before, err := s.planes(a-s.w, a)
	return all - before, err
}

// sum returns Σ_v new(v) over every plane. The planes of short segments
// are counted together, as runs: a run ends before a long segment, whose
// planes from its w-th on are summed by periods, and at a gap of more than
// w empty planes, across which no two planes meet, so that separate
// clusters are counted apart.
func (s *planeSum) sum() (int64, error) {
	if s.w == 0 {
		return s.sumApart()
	}
	for i := 0; i+1 < len(s.breaks); i++ {
		s0, s1 := s.breaks[i], s.breaks[i+1]
		var err error
		switch {
		case s.cover[i] == 0:
			if s1-s0 > s.w {
				err = s.flush()
			}
		case s1-s0 <= s.w+2*s.T:
			s.extend(s0, s1)
		default:
			err = s.addLongSegment(s0, s1)
		}
		if err != nil {
			return 0, err
		}
	}
	if err := s.flush(); err != nil {
		return 0, err
	}
	return s.total, nil
}

// sumApart is sum for planes of which no two share a granule (w = 0):
// new(v) is then the granules of plane v alone. Within a segment plane
// v+T is plane v shifted by T·P bytes, a multiple of the granule, so it
// has as many granules, and each of the segment's first T planes stands
// for every T-th plane from it on.
func (s *planeSum) sumApart() (int64, error) {
	for i := 0; i+1 < len(s.breaks); i++ {
		if s.cover[i] == 0 {
			continue
		}
		s0, s1 := s.breaks[i], s.breaks[i+1]
		for k := range min(s.T, s1-s0) {
			n, err := s.planes(s0+k, s0+k+1)
			if err != nil {
				return 0, err
			}
			s.total += n * ((s1 - s0 - k + s.T - 1) / s.T)
		}
	}
	return s.total, nil
}

// addLongSegment adds the planes of the segment [s0, s1), longer than
// w + 2T planes. The first w planes see the planes before the segment and
// close the run; from then on new(v) has period T, and the sum over n
// planes is the sum over n mod T planes plus ⌊n/T⌋ periods.
func (s *planeSum) addLongSegment(s0, s1 int64) error {
	s.extend(s0, s0+s.w)
	if err := s.flush(); err != nil {
		return err
	}
	e, length := s0+s.w, s1-s0-s.w
	period, err := s.newIn(e, e+s.T)
	if err != nil {
		return err
	}
	s.total += length / s.T * period
	if length%s.T == 0 { // no planes left over
		return nil
	}
	rest, err := s.newIn(e, e+length%s.T)
	s.total += rest
	return err
}

// extend adds the planes [from, to) to the run, opening it at from.
func (s *planeSum) extend(from, to int64) {
	if !s.open {
		s.runStart, s.open = from, true
	}
	s.runEnd = to
}

// flush adds the planes of the open run to the total and closes it.
func (s *planeSum) flush() error {
	if !s.open {
		return nil
	}
	s.open = false
	n, err := s.newIn(s.runStart, s.runEnd)
	s.total += n
	return err
}

// byteRange is the closed range [first, last] of bytes.
type byteRange struct{ first, last int64 }

// maxListedRanges bounds the byte ranges listRanges produces.
const maxListedRanges = 1 << 15

// listRanges returns the union of ps as sorted byte ranges, joined wherever
// the gap between two is smaller than a granule: no granule fits in such a
// gap under any shift, so the ranges have the granules of the union also
// after every byte is shifted by the same amount (shiftCounter). ok is false
// when more than maxListedRanges ranges would be listed.
func (c *counter) listRanges(ps []progression) (out []byteRange, ok bool) {
	ps = c.prepare(ps)
	n := 0
	for _, p := range ps {
		k := 1
		for _, a := range p.axes {
			k *= int(a.count)
			if k > maxListedRanges {
				return nil, false
			}
		}
		if n += k; n > maxListedRanges {
			return nil, false
		}
	}
	out = make([]byteRange, 0, n)
	ends := make([]int, 0, len(ps)) // where each progression's ranges end in out
	for _, p := range ps {
		var walk func(d int, base int64)
		walk = func(d int, base int64) {
			if d < 0 {
				out = append(out, byteRange{base, base + p.width - 1})
				return
			}
			for q := range p.axes[d].count {
				walk(d-1, base+q*p.axes[d].step)
			}
		}
		walk(len(p.axes)-1, p.base)
		ends = append(ends, len(out))
	}
	out = sortRuns(out, ends)
	return joinRanges(out[:0], out, c.gran), true
}

// byFirst orders byte ranges by their first byte.
func byFirst(a, b byteRange) int { return cmp.Compare(a.first, b.first) }

// sortRuns sorts ranges by their first byte (byFirst), given as runs that
// end at ends, one for each progression, whose walk lists its ranges
// mostly in order already: each run is sorted where it is not, and the
// runs are merged pairwise, in about log2(len(ends)) passes. Ranges with
// one first byte may come in another order than a sort of the whole
// would give, which joinRanges does not see: it joins them all into one,
// whatever their order, to their largest last byte.
func sortRuns(ranges []byteRange, ends []int) []byteRange {
	start := 0
	for _, end := range ends {
		if run := ranges[start:end]; !slices.IsSortedFunc(run, byFirst) {
			slices.SortFunc(run, byFirst)
		}
		start = end
	}
	if len(ends) < 2 {
		return ranges
	}
	scratch := make([]byteRange, len(ranges))
	for len(ends) > 1 {
		merged := make([]int, 0, (len(ends)+1)/2)
		start := 0
		for i := 0; i < len(ends); i += 2 {
			if i+1 == len(ends) { // an odd run out waits for the next pass
				copy(scratch[start:ends[i]], ranges[start:ends[i]])
				merged = append(merged, ends[i])
				break
			}
			mergeByFirst(scratch[start:start], ranges[start:ends[i]], ranges[ends[i]:ends[i+1]])
			merged = append(merged, ends[i+1])
			start = ends[i+1]
		}
		ranges, scratch, ends = scratch, ranges, merged
	}
	return ranges
}

// mergeByFirst appends to dst the sorted (byFirst) ranges a and b merged
// in that order; dst has room for them all.
func mergeByFirst(dst, a, b []byteRange) []byteRange {
	for len(a) > 0 && len(b) > 0 {
		if b[0].first < a[0].first {
			dst, b = append(dst, b[0]), b[1:]
		} else {
			dst, a = append(dst, a[0]), a[1:]
		}
	}
	return append(append(dst, a...), b...)
}

// joinRanges appends to dst the byte ranges of sorted (by first byte),
// joined wherever the gap between two is smaller than a granule of gran
// bytes. The result is the union with every gap of fewer than gran bytes
// filled, which does not depend on gaps filled before: ranges joined at a
// finer granularity join at gran to the ranges listRanges lists at gran.
func joinRanges(dst, sorted []byteRange, gran int64) []byteRange {
	for _, r := range sorted {
		if k := len(dst) - 1; k >= 0 && r.first-dst[k].last <= gran {
			dst[k].last = max(dst[k].last, r.last)
			continue
		}
		dst = append(dst, r)
	}
	return dst
}

// shiftCounter counts the granules of byte ranges listed by listRanges
// after every byte is shifted by the same amount, in two binary searches a
// shift. Two listed ranges are more than a granule apart, so no granule
// holds bytes of both under any shift, and the count is the sum over the
// ranges of ⌊(last+s)/G⌋ − ⌊(first+s)/G⌋ + 1. With
// ⌊(x+s)/G⌋ = ⌊x/G⌋ + ⌊s/G⌋ + [x mod G + s mod G ≥ G], that is the count at
// shift 0 plus the ranges whose last byte's offset in its granule is at
// least G − (s mod G), less those whose first byte's offset is.
type shiftCounter struct {
	gran          int64
	unshifted     int64   // the count at shift 0
	firsts, lasts []int64 // the ranges' first and last bytes modulo the granule, sorted
}

// newShiftCounter returns the shiftCounter of ranges (from listRanges at
// granules of gran bytes).
func newShiftCounter(ranges []byteRange, gran int64) shiftCounter {
	s := shiftCounter{gran: gran, firsts: make([]int64, len(ranges)), lasts: make([]int64, len(ranges))}
	for i, r := range ranges {
		s.unshifted += intmath.FloorDiv(r.last, gran) - intmath.FloorDiv(r.first, gran) + 1
		s.firsts[i], s.lasts[i] = intmath.FloorMod(r.first, gran), intmath.FloorMod(r.last, gran)
	}
	slices.Sort(s.firsts)
	slices.Sort(s.lasts)
	return s
}

// count returns the granules of the ranges after every byte is shifted by
// shift.
func (s shiftCounter) count(shift int64) int64 {
	from := s.gran - intmath.FloorMod(shift, s.gran) // offsets from here on cross into the next granule
	atLeast := func(offsets []int64) int64 {
		i, _ := slices.BinarySearch(offsets, from)
		return int64(len(offsets) - i)
	}
	return s.unshifted + atLeast(s.lasts) - atLeast(s.firsts)
}
