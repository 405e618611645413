package footprint

import (
	"cmp"
	"fmt"
	"slices"
	"sync"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/lattice"
)

// maxFusedWidth is the widest vector access fusion may build, in bytes
// (docs/metrics.md §3.9).
const maxFusedWidth = 16

// Instruction is one warp-wide load or store of a field in thread
// coordinates: every lane accesses Width bytes starting at its byte address.
type Instruction struct {
	// Address is a lane's first byte, s·(α + e0 + e1·N0 + e2·N0·N1), over the
	// thread coordinates x, y and z (folding applied).
	Address kernel.Expr
	// Width is the bytes per lane: the element size, or the summed width of
	// a fused vector access.
	Width int64
	// Points are the point offsets j (0 ≤ j_i < f_i) of the folded lattice
	// points that need the instruction, in j order (x fastest). A lane at
	// thread t executes it iff some lattice point j of t lies in the domain
	// (kernel.Launch.Covers), or some point of Guarded lies in the domain
	// and in its guard's box.
	Points [][3]int64
	// Guarded are the points that need the instruction only where an
	// access's guards hold (kernel.Access.Partial).
	Guarded []GuardedPoint
}

// GuardedPoint is a point offset j whose access applies only at the lattice
// points of Box.
type GuardedPoint struct {
	J   [3]int64
	Box lattice.Box
}

// FieldInstructions is the instruction list of one field's loads or of its
// stores; loads and stores of one field are independent lists.
type FieldInstructions struct {
	Field *kernel.Field
	// Index is the field's index in the kernel's Fields, which per-field
	// results carry.
	Index        int
	Store        bool
	Instructions []Instruction
	// Shared: the loads of a staged field, which read the block's shared
	// tile; Field is the tile's view (kernel.SharedView) and the addresses
	// are shared-memory byte offsets.
	Shared bool
}

// Instructions returns the warp instructions of every field of k under
// launch l: the accesses of all folded points in thread coordinates, with
// canonical duplicates removed, fused into vector accesses by the given rule
// on a device whose fusion rule is adjacent (docs/metrics.md §3.9, §8 item
// 10).
// The load lists of all fields come first, then the store lists, each in the
// kernel's field order; empty lists are left out. A field staged under l
// has a Shared load list, unfused.
func Instructions(k *kernel.Kernel, l kernel.Launch, d device.Memory, rule FusionRule) ([]FieldInstructions, error) {
	fuse := fuses(d)
	var out []FieldInstructions
	for _, store := range []bool{false, true} {
		for fi, f := range k.Fields {
			if !store && l.Staged(f) {
				view, _, err := kernel.SharedView(f, l)
				if err != nil {
					return nil, fmt.Errorf("footprint: %w", err)
				}
				list, err := foldInstructions(view, view.Loads, l)
				if err != nil {
					return nil, fmt.Errorf("footprint: field %q in shared memory: %w", f.Name, err)
				}
				out = append(out, FieldInstructions{Field: view, Index: fi, Instructions: distinctReads(list), Shared: true})
				continue
			}
			list, err := foldInstructions(f, f.Accesses(store), l)
			if err != nil {
				return nil, fmt.Errorf("footprint: field %q: %w", f.Name, err)
			}
			if len(list) == 0 {
				continue
			}
			if fuse {
				if rule == FuseAsReference {
					list, err = fuseReference(list)
				} else {
					list, err = fuseInAddressOrder(list)
				}
				if err != nil {
					return nil, fmt.Errorf("footprint: field %q: fusion: %w", f.Name, err)
				}
			}
			out = append(out, FieldInstructions{Field: f, Index: fi, Store: store, Instructions: list})
		}
	}
	return out, nil
}

// InstructionCache memoises Instructions over the estimates of one
// sweep: a kernel's instructions depend on its fold, tiling and domain, on
// the block only where the tiling is strided, and on the device only
// through whether it fuses vector accesses, so the configurations of an
// exploration share them. The kernels it is asked about must not change
// while it is in use. It is safe for concurrent use; a nil cache computes
// every call afresh.
type InstructionCache struct {
	mu   sync.Mutex
	done map[instructionKey][]FieldInstructions
}

// instructionKey is everything Instructions depends on.
type instructionKey struct {
	k      *kernel.Kernel
	fold   [3]int64
	tiling kernel.Tiling
	block  [3]int64 // of a strided tiling only
	domain [3]int64
	fuse   bool
	rule   FusionRule
	// unstaged is the launch's; a staged field's tile also depends on the
	// block and on the launch's steps, whose halos it holds (block and
	// steps are then set).
	unstaged bool
	steps    int64
}

// NewInstructionCache returns an empty cache.
func NewInstructionCache() *InstructionCache {
	return &InstructionCache{done: map[instructionKey][]FieldInstructions{}}
}

// Instructions returns Instructions(k, l, d, rule), computed once per
// distinct key. The lists are shared: callers must not change them.
func (c *InstructionCache) Instructions(k *kernel.Kernel, l kernel.Launch, d device.Memory, rule FusionRule) ([]FieldInstructions, error) {
	if c == nil {
		return Instructions(k, l, d, rule)
	}
	key := instructionKey{k: k, fold: l.Fold, tiling: l.Tiling, domain: l.Domain, fuse: fuses(d), rule: rule, unstaged: l.Unstaged}
	if l.Tiling == kernel.TileStrided || l.StagedFields(k) {
		key.block = l.Block
	}
	if l.StagedFields(k) {
		key.steps = l.StepCount()
	}
	c.mu.Lock()
	lists, ok := c.done[key]
	c.mu.Unlock()
	if ok {
		return lists, nil
	}
	lists, err := Instructions(k, l, d, rule)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.done[key] = lists
	c.mu.Unlock()
	return lists, nil
}

// fuses reports whether d fuses a thread's accesses to adjacent addresses
// into vector accesses.
func fuses(d device.Memory) bool { return d.Rules.Fusion == device.FuseAdjacent }

// foldInstructions returns one instruction per distinct index tuple of the
// accesses of a thread's points under launch l's fold and tiling, ordered by
// point offset j (x fastest), then by access, and records for each which
// points j need it, which method Exact needs for its per-point validity
// guard.
func foldInstructions(f *kernel.Field, accesses []kernel.Access, l kernel.Launch) ([]Instruction, error) {
	// Each access's guard box, the same at every point offset.
	guards := make([]lattice.Box, len(accesses))
	isPartial := make([]bool, len(accesses))
	for i, a := range accesses {
		var err error
		if guards[i], isPartial[i], err = a.Partial(l.Domain); err != nil {
			return nil, fmt.Errorf("access %s: %w", a.Text, err)
		}
	}
	at := map[string]int{} // canonical index tuple (Expr.AppendKey) → instruction
	var tuple []byte
	var out []Instruction
	for _, j := range kernel.FoldOffsets(l.Fold) {
		point, err := l.ThreadAccesses(accesses, j)
		if err != nil {
			return nil, err
		}
		for ai, a := range accesses {
			b := point[ai]
			guard, partial := guards[ai], isPartial[ai]
			tuple = b.Index[2].AppendKey(b.Index[1].AppendKey(b.Index[0].AppendKey(tuple[:0])))
			key := string(tuple)
			if n, seen := at[key]; seen {
				if partial {
					out[n].Guarded = append(out[n].Guarded, GuardedPoint{j, guard})
				} else {
					out[n].Points = append(out[n].Points, j)
				}
				continue
			}
			index, err := f.ElementIndexExpr(b)
			if err != nil {
				return nil, fmt.Errorf("access %s: %w", a.Text, err)
			}
			addr, err := index.Scale(f.Element)
			if err != nil {
				return nil, fmt.Errorf("access %s: %w", a.Text, err)
			}
			at[key] = len(out)
			in := Instruction{Address: addr, Width: f.Element, Points: [][3]int64{j}}
			if partial {
				in.Points, in.Guarded = nil, []GuardedPoint{{j, guard}}
			}
			out = append(out, in)
		}
	}
	return out, nil
}

// constantOffset reports whether b's address is a's plus a constant, and
// which.
func constantOffset(a, b Instruction) (int64, bool, error) {
	diff, err := b.Address.Sub(a.Address)
	if err != nil {
		return 0, false, err
	}
	c, ok := diff.IsConst()
	return c, ok, nil
}

// fuseReference is the reference's fusion procedure (docs/metrics.md §3.9):
// until nothing changes, sort by width (largest first, stable), find the
// first ordered pair (c, o) — c outer, o inner, both in list order — whose
// addresses differ by exactly c's width and whose widths sum to at most 16
// bytes, widen c by o's width and delete o. The result depends on the input
// order; the fused access keeps c's start address.
func fuseReference(list []Instruction) ([]Instruction, error) {
	list = slices.Clone(list)
	for {
		slices.SortStableFunc(list, func(a, b Instruction) int { return cmp.Compare(b.Width, a.Width) })
		c, o, err := firstFusiblePair(list)
		if err != nil {
			return nil, err
		}
		if c < 0 {
			return list, nil
		}
		list[c].Width += list[o].Width
		list[c].Points = mergePoints(list[c].Points, list[o].Points)
		list[c].Guarded = mergeGuarded(list[c].Guarded, list[o].Guarded)
		list = slices.Delete(list, o, o+1)
	}
}

// firstFusiblePair returns the first pair (c, o) of fuseReference, or -1.
func firstFusiblePair(list []Instruction) (c, o int, err error) {
	for c := range list {
		for o := range list {
			if o == c || list[c].Width+list[o].Width > maxFusedWidth {
				continue
			}
			off, ok, err := constantOffset(list[c], list[o])
			if err != nil {
				return -1, -1, err
			}
			if ok && off == list[c].Width {
				return c, o, nil
			}
		}
	}
	return -1, -1, nil
}

// fuseInAddressOrder is method Exact's fusion (docs/metrics.md §8 item 10):
// instructions whose addresses differ by constants form a group; inside a
// group, in ascending address order, an instruction is merged into the
// preceding (possibly already fused) one when it starts exactly where that
// one ends, the summed width is at most 16 bytes, and both are needed by the
// same lattice points (a vector access has one predicate). Groups keep the
// order of their first instruction. Every fused access covers its full byte
// range in all counts.
func fuseInAddressOrder(list []Instruction) ([]Instruction, error) {
	type member struct {
		offset int64
		inst   Instruction
	}
	var groups [][]member
	for _, in := range list {
		placed := false
		for g := range groups {
			off, ok, err := constantOffset(groups[g][0].inst, in)
			if err != nil {
				return nil, err
			}
			if ok {
				groups[g] = append(groups[g], member{off, in})
				placed = true
				break
			}
		}
		if !placed {
			groups = append(groups, []member{{0, in}})
		}
	}
	var out []Instruction
	for _, g := range groups {
		slices.SortStableFunc(g, func(a, b member) int { return cmp.Compare(a.offset, b.offset) })
		cur := g[0]
		for _, next := range g[1:] {
			if next.offset == cur.offset+cur.inst.Width &&
				cur.inst.Width+next.inst.Width <= maxFusedWidth &&
				slices.Equal(cur.inst.Points, next.inst.Points) && slices.Equal(cur.inst.Guarded, next.inst.Guarded) {
				cur.inst.Width += next.inst.Width
				continue
			}
			out = append(out, cur.inst)
			cur = next
		}
		out = append(out, cur.inst)
	}
	return out, nil
}

// mergeGuarded returns the union of two guarded point lists.
func mergeGuarded(a, b []GuardedPoint) []GuardedPoint {
	out := slices.Clone(a)
	for _, g := range b {
		if !slices.Contains(out, g) {
			out = append(out, g)
		}
	}
	return out
}

// mergePoints returns the union of two point lists in j order (x fastest).
func mergePoints(a, b [][3]int64) [][3]int64 {
	out := slices.Clone(a)
	for _, j := range b {
		if !slices.Contains(out, j) {
			out = append(out, j)
		}
	}
	slices.SortFunc(out, func(p, q [3]int64) int {
		return cmp.Or(cmp.Compare(p[2], q[2]), cmp.Compare(p[1], q[1]), cmp.Compare(p[0], q[0]))
	})
	return out
}
