package cli

// predict --explain: the bounds in words, as a profiler's guided analysis
// puts them: which bound limits, by how much the next one trails, and what
// would move the limiter.

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/polyvol/polyvol/model"
)

// explainedBounds returns the throughput bounds of r, slowest first: the
// model's own (overlap, su2015), else the derived bounds that predict's
// table lists (flops, issue, L1, L2, DRAM).
func explainedBounds(r *model.Report) []model.Bound {
	bounds := slices.Clone(r.Prediction.Bounds)
	if len(bounds) == 0 {
		d := r.Derived
		bounds = []model.Bound{
			{Name: "L1", GLups: d.PerfL1},
			{Name: "L2", BytesPerLup: d.L2LoadV2 + d.L2Store, GLups: d.PerfL2V2},
			{Name: "DRAM", BytesPerLup: d.MemLoadV3 + d.MemStoreV2, GLups: d.PerfMemV3},
		}
		if d.PerfFlops != nil {
			bounds = append(bounds, model.Bound{Name: "flops", GLups: *d.PerfFlops})
		}
		if d.PerfIssue != nil {
			bounds = append(bounds, model.Bound{Name: "issue", GLups: *d.PerfIssue})
		}
	}
	bounds = slices.DeleteFunc(bounds, func(b model.Bound) bool { return !(b.GLups > 0) })
	slices.SortStableFunc(bounds, func(a, b model.Bound) int { return cmp.Compare(a.GLups, b.GLups) })
	return bounds
}

// explanation writes why r's prediction is what it is: the limiting bound
// and its volume, the next bound and how far it trails, what would move
// the limiter, and the loops of a compiled instruction mix. It is empty
// for a report without bounds.
func explanation(r *model.Report) string {
	bounds := explainedBounds(r)
	if len(bounds) == 0 {
		return ""
	}
	limit := bounds[0]
	text := limit.Name + "-bound"
	if limit.BytesPerLup > 0 {
		text += fmt.Sprintf(" at %s B/Lup", fixed(limit.BytesPerLup, 2))
	}
	text += fmt.Sprintf(": the %s bound, %s GLup/s, is the slowest", limit.Name, fixed(limit.GLups, 2))
	if p := r.Prediction; p.Limiter != limit.Name {
		text += fmt.Sprintf(" (the prediction's limiter is %s)", p.Limiter)
	}
	if len(bounds) > 1 {
		next := bounds[1]
		text += fmt.Sprintf("; the next, %s at %s GLup/s, trails by %s %%, so relieving %s alone gains at most that much",
			next.Name, fixed(next.GLups, 2), fixed(100*(next.GLups/limit.GLups-1), 1), limit.Name)
	}
	return wrapWords(text+". "+boundLever(limit.Name, r.Derived)+dramV4Caveat(limit, r.Derived)+compiledLoops(r.Instructions), 78) + "\n"
}

// compiledLoops names the loops that the compiled code of mix keeps, each
// with its trip count, by which the instruction mix weighs its body, or
// says that the count is unknown; empty for a mix without loops.
func compiledLoops(mix *model.InstructionMix) string {
	if mix == nil || len(mix.Loops) == 0 {
		return ""
	}
	var loops []string
	for _, l := range mix.Loops {
		name := "an unnamed loop"
		if l.Header != "" {
			name = "loop " + l.Header
		}
		trips := "trip count unknown, counted once per entry"
		switch {
		case l.TripCount > 0:
			trips = fmt.Sprintf("%d iterations", l.TripCount)
		case l.MaxTripCount > 0:
			trips = fmt.Sprintf("trip count unknown, at most %d, counted once per entry", l.MaxTripCount)
		}
		loops = append(loops, fmt.Sprintf("%s (depth %d, %d instructions, %s)", name, l.Depth, l.Instructions, trips))
	}
	return fmt.Sprintf(" The compiled code (%s) keeps %d loop(s), whose bodies the instruction mix weighs by their trip counts: %s.", mix.Target, len(loops), strings.Join(loops, "; "))
}

// dramV4Caveat says, where it would change the verdict, what the DRAM
// bound would be with DRAM load V4 in place of the V3 it uses: below the
// limiting bound, a measured DRAM read volume near V4 would make DRAM the
// limiter. It is empty otherwise.
func dramV4Caveat(limit model.Bound, d model.Derived) string {
	if limit.Name == "DRAM" || !(d.PerfMemV4 < limit.GLups) {
		return ""
	}
	return fmt.Sprintf(" The DRAM bound uses DRAM load V3, %s B/Lup; load V4, %s B/Lup, adds the L2 capacity misses that a fitted miss fraction puts on the %s B/Lup of L2→L1 loads beyond DRAM load V2, and with it DRAM would bound at %s GLup/s, below %s: if a profiler measures a DRAM read volume near V4, DRAM limits.",
		fixed(d.MemLoadV3, 2), fixed(d.MemLoadV4, 2), fixed(d.L2LoadV2-d.MemLoadV2, 2), fixed(d.PerfMemV4, 2), limit.Name)
}

// boundLever says what moves the bound of the given name.
func boundLever(name string, d model.Derived) string {
	switch name {
	case "DRAM":
		return fmt.Sprintf("Only fewer DRAM bytes per update help (load V3 %s, store V2 %s B/Lup): a block whose layers fit in L2 keeps the y and z reuse (polyvol layercond shows which), and beyond each field's one load or store per update only a kernel that moves fewer bytes does.",
			fixed(d.MemLoadV3, 2), fixed(d.MemStoreV2, 2))
	case "L2":
		return "Fewer bytes from L2 help: a block shape or fold whose neighbours' lines stay in L1, or fields staged in shared memory."
	case "L1":
		return "Fewer L1 wavefronts per update help: accesses coalesced along x (block x a multiple of 32) and folds that share loads between a thread's points."
	case "flops":
		return "Only fewer flops per update, or fused multiply-adds in place of separate multiplies and adds, help."
	case "issue":
		return "Fewer instructions per update help: folding shares address arithmetic between a thread's points, and wider loads need fewer instructions."
	case "shared":
		return "Fewer shared-memory wavefronts help: accesses without bank conflicts, or less staging."
	case "latency":
		return "More memory accesses in flight help: a higher occupancy (fewer registers or smaller tiles per block) or more independent loads per thread (folding)."
	case "block launch", "launch":
		return "More work per block helps: larger blocks or folds, or a larger domain for the grid's launch cost."
	}
	return ""
}
