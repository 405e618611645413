package footprint

import (
	"encoding/binary"
	"slices"

	"github.com/polyvol/polyvol/intmath"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/lattice"
)

// translationClassifier sorts origins (a warp's base thread, a block's
// first thread) into classes on which a list of addresses see the same
// values up to one shift, a multiple of modulus: from two origins o, o′
// of one class every address a_j takes a_j(o′ + q) = a_j(o + q) + s for
// every offset q, with s ≡ 0 mod modulus. The class of an origin is
// the first address there modulo modulus, the distances of the other
// addresses from the first there (translationKeyer), and, unless every
// address is affine, the origin's phase modulo the addresses' common
// period (kernel.Expr.Period), which makes every address drift alike. The
// block classes of the sample (blockClasses), the translated block
// footprints of a request (blockClassifier), the memo of a warp measure
// (warpMeasure.on) and the groups of equivalent warps (warpSet.grouped)
// all sort by it.
type translationClassifier struct {
	keyer   translationKeyer
	modulus int64
	// period is the addresses' common period per coordinate; phased is
	// false where every address is affine, and the phase is left out.
	period [3]int64
	phased bool
	// distances numbers the distinct distance vectors seen; nil where the
	// class leaves them out: with fewer than two addresses, or where the
	// addresses are rigid (rigid), so that the phase fixes them.
	distances map[string]int
	scratch   []byte
}

// translationClass is the class of an origin (translationClassifier).
type translationClass struct {
	residue   int64    // the first address modulo the modulus
	phase     [3]int64 // the origin modulo the period; zero for affine addresses
	distances int      // the number of the distance vector
}

// newTranslationClassifier returns the classifier of addrs for shifts by
// multiples of modulus (1 for any shift); period is their common period
// per coordinate (all ones where every address is affine).
func newTranslationClassifier(addrs []laneAddress, modulus int64, period [3]int64) *translationClassifier {
	c := &translationClassifier{keyer: newTranslationKeyer(addrs), modulus: modulus, period: period}
	c.phased = !c.keyer.affine
	if len(addrs) > 1 && !c.rigid() {
		c.distances = map[string]int{}
	}
	return c
}

// rigid reports whether every address drifts like the first over one
// period in each coordinate, a_j(p + L_i·u_i) − a_j(p) = a_0(p + L_i·u_i) −
// a_0(p): the distances of the addresses from the first then repeat with
// the period, so the phase fixes them (affine addresses: they are
// constant). By the period's property the drift is the same from every
// point, so it is taken from 0.
func (c *translationClassifier) rigid() bool {
	addrs := c.keyer.addrs
	var zero kernel.Point
	for i := range 3 {
		var step kernel.Point
		step[i] = c.period[i]
		drift := addrs[0].at(step) - addrs[0].at(zero)
		for _, a := range addrs[1:] {
			if a.at(step)-a.at(zero) != drift {
				return false
			}
		}
	}
	return true
}

// classify returns the class of origin and the first address there (0
// without addresses).
func (c *translationClassifier) classify(origin kernel.Point) (translationClass, int64) {
	var class translationClass
	if len(c.keyer.addrs) == 0 {
		return class, 0
	}
	first := c.keyer.addrs[0].at(origin)
	class.residue = c.residue(first)
	if c.phased {
		for i := range 3 {
			class.phase[i] = intmath.FloorMod(origin[i], c.period[i])
		}
	}
	if c.distances != nil {
		c.scratch = c.keyer.appendDistances(c.scratch[:0], origin, first)
		id, ok := c.distances[string(c.scratch)]
		if !ok {
			id = len(c.distances)
			c.distances[string(c.scratch)] = id
		}
		class.distances = id
	}
	return class, first
}

// residue returns a modulo the modulus, with a mask where it is a power of
// two.
func (c *translationClassifier) residue(a int64) int64 {
	if c.modulus&(c.modulus-1) == 0 {
		return a & (c.modulus - 1) // also for negative a
	}
	return intmath.FloorMod(a, c.modulus)
}

// blockClasses groups sample blocks whose warps see the same lane addresses
// up to a shift by a multiple of modulus: the same extents of the lattice
// points inside the domain, which fix the active threads of every point
// offset j, the same class of the block's first thread for every
// instruction's address (translationClassifier), and the same part of the
// block's points that each guard of a partial access keeps. Every per-warp
// measure of the package is periodic in modulus, so one block per class,
// weighted by the class size, gives the same sums as the whole sample.
// With a common period above maxClassifierPeriod every block is its own
// class.
func blockClasses(lists []FieldInstructions, l kernel.Launch, modulus int64, sample [][3]int64) (reps [][3]int64, weights []int64) {
	var addrs []laneAddress
	var guards []lattice.Box
	period := [3]int64{1, 1, 1}
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
			}
			addrs = append(addrs, a)
		}
	}
	classifier := newTranslationClassifier(addrs, modulus, period)
	index := map[blockKey]int{}
	var lastKey blockKey
	last := -1 // the class of the block before, tried before the map
	for _, b := range sample {
		var points lattice.Box
		for i := range 3 {
			points.Lo[i] = b[i] * l.Block[i] * l.Fold[i]
			points.Hi[i] = min(points.Lo[i]+l.Block[i]*l.Fold[i], l.Domain[i])
		}
		class, _ := classifier.classify(kernel.Point{b[0] * l.Block[0], b[1] * l.Block[1], b[2] * l.Block[2]})
		k := blockKey{class, pointsKey(guards, kernel.Point(points.Lo), points)}
		if last >= 0 && k == lastKey {
			weights[last]++
			continue
		}
		if i, ok := index[k]; ok {
			weights[i]++
			lastKey, last = k, i
			continue
		}
		lastKey, last = k, len(reps)
		index[k] = len(reps)
		reps = append(reps, b)
		weights = append(weights, 1)
	}
	return reps, weights
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

// translates sorts expressions into classes of translates, expressions
// that differ by a constant only (kernel.Expr.DistanceFrom), each class
// known by its first member.
type translates struct {
	firsts []kernel.Expr
	byCoef map[[3]int64][]int // the classes whose members have these coefficients
}

// of returns the class of e, a new one where e translates no expression
// seen before, and e's distance from the class's first member.
func (t *translates) of(e kernel.Expr) (class int, distance int64) {
	coef, _, _ := e.Linear()
	for _, c := range t.byCoef[coef] {
		if d, ok := e.DistanceFrom(t.firsts[c]); ok {
			return c, d
		}
	}
	if t.byCoef == nil {
		t.byCoef = map[[3]int64][]int{}
	}
	t.byCoef[coef] = append(t.byCoef[coef], len(t.firsts))
	t.firsts = append(t.firsts, e)
	return len(t.firsts) - 1, 0
}

// translationKeyer tells apart the distances of addresses from the first
// at an origin. Two addresses that are translates of one another
// (translates) lie a constant apart at every origin, so the distance of
// a_i from a_0 is a_i − a_r, a constant, plus a_r(o) − a_0(o) for the
// first address a_r of a_i's class: two origins give the same distances
// exactly when they give the same distances of the classes' first
// addresses. The classes are a few, one per field layout and tiling,
// where the instructions are hundreds.
type translationKeyer struct {
	addrs  []laneAddress
	firsts []int // the first address of each class but a_0's
	affine bool
}

// newTranslationKeyer returns the keyer of addrs.
func newTranslationKeyer(addrs []laneAddress) translationKeyer {
	t := translationKeyer{addrs: addrs, affine: true}
	var classes translates
	for i, a := range addrs {
		t.affine = t.affine && a.affine
		if c, _ := classes.of(a.expr); c > 0 && c == len(t.firsts)+1 {
			t.firsts = append(t.firsts, i)
		}
	}
	return t
}

// appendDistances appends to key what tells the distances of the
// addresses at origin from the first, first, apart: the distances of the
// classes' first addresses.
func (t translationKeyer) appendDistances(key []byte, origin kernel.Point, first int64) []byte {
	for _, i := range t.firsts {
		key = binary.AppendVarint(key, t.addrs[i].at(origin)-first)
	}
	return key
}
