package model

import (
	"fmt"
	"math"

	"github.com/polyvol/polyvol/footprint"
	"github.com/polyvol/polyvol/geometry"
	"github.com/polyvol/polyvol/waves"
)

// OversubscriptionRule selects how the oversubscription O of a cache is
// formed from the allocated volumes (docs/metrics.md §5.3, §5.4, §8 items 11,
// 18 and 22).
type OversubscriptionRule string

// The two oversubscription rules.
const (
	// ReferenceForms are the reference implementation's empirical forms:
	// O_L1 = blockL1LoadAlloc/√(sizeL1·128 KiB) for one block,
	// O_L1ov = blockL2Load/sizeL1 (curve argument 2·O_L1ov),
	// O_ov,k = (Old_k + waveMemLoadNew − Ov_k)/sizeL2 with Old unnormalised,
	// O_L2 = waveL2Alloc/√(sizeL2·4 MiB).
	ReferenceForms OversubscriptionRule = "reference-forms"
	// AllocationRatio is the paper's O = V_alloc/V_cache with V_alloc the
	// allocation of everything sharing the cache: β·blockL1LoadAlloc for L1
	// (also for the previous-block overlap), the wave's loads and stores for
	// L2, and for the layer overlaps the layer's Old volume plus the wave's
	// allocation minus the reused part, all as actually allocated (not
	// scaled by the wave's valid fraction).
	AllocationRatio OversubscriptionRule = "allocation-ratio"
)

// Method is an estimation strategy: every choice in which the estimation
// methods of docs/metrics.md differ, resolved once into concrete values.
// Estimate and Derive follow these values and the lower packages receive
// them as arguments; nothing branches on a method's name. A new method is a
// new value: copy one of MethodExact and MethodReference and change the
// choices that differ.
type Method struct {
	Name string `json:"name"`

	// SampleWave samples the blocks of one exact representative wave
	// (waves.ExactShape) and normalises by its lattice points: block
	// volumes are scaled to full blocks of B·λ points, wave volumes to the
	// W blocks it counted. Without it the sample is the reference's 8×8×8
	// blocks at the origin with its wave (waves.ReferenceShape), normalised
	// by valid threads and W = β·SMs (spec §2.3, §4.7; §8 items 4, 5).
	SampleWave bool `json:"sampleWave"`
	// ClipToDomain leaves out the lattice points outside the domain when
	// footprints are counted (§8 item 6).
	ClipToDomain bool `json:"clipToDomain"`
	// Occupancy finds the blocks per SM.
	Occupancy waves.OccupancyRule `json:"occupancy"`
	// Warp are the choices of the warp-level counts and the L1 cycles.
	Warp footprint.WarpRules `json:"warp"`
	// WaveSpace is the address space of the wave footprints: linear byte
	// addresses, or the reference's multi-dimensional index space (§8
	// item 13).
	WaveSpace geometry.AddressSpace `json:"waveSpace"`
	// StoresAtWriteGranularity counts DRAM store footprints in DRAM write
	// granules instead of fetch granules (§8 item 14).
	StoresAtWriteGranularity bool `json:"storesAtWriteGranularity"`
	// OldIncludesX counts the x layer in the y layer's reuse distance
	// (§8 item 20): Old_y is the footprint of T_x ∪ T_y, each line once.
	// The exact shape's T_y (one block row before the wave) holds its T_x,
	// so there Old_y is T_y's footprint; adding |T_x| to it would count
	// those blocks twice.
	OldIncludesX bool `json:"oldIncludesX"`
	// PreviousBlockOverlap counts the L2 load overlap with the previous
	// blocks on the same SM (§3.5; §8 item 12).
	PreviousBlockOverlap bool `json:"previousBlockOverlap"`
	// WarpReuseStays keeps a warp's reuse of its own lines out of the L1
	// capacity misses while the co-resident blocks' allocation fits in L1
	// (O_L1 <= 1): those lines are reused a few instructions after they
	// arrive, so only the reuse between warps (BlockWarpL2Load −
	// BlockL2Load) can be evicted first. Above O_L1 = 1 every redundant load
	// can miss. Without it every redundant load can miss at any O_L1.
	WarpReuseStays bool `json:"warpReuseStays"`
	// NoEvictionsWhileFits lets no redundant L1 load miss while the
	// co-resident blocks' allocation fits in L1 (O_L1 <= 1): a cache that
	// holds every line the blocks allocate evicts none of them before its
	// reuse, and lines of finished blocks, unused again, are the first to
	// go. The capacity curve applies above O_L1 = 1 only, to every
	// redundant load; it makes WarpReuseStays moot. Not a choice of the
	// named methods yet: with it, method exact matches the LRU simulator's
	// L2→L1 load and the V100 box2d range scan (no load above the
	// compulsory one) better, but the V100 star3d blocks do lose part of
	// their reuse between warps just below O_L1 = 1 with fold 2, which the
	// curve's tail stands in for (docs/accuracy-hardware.md has the
	// figures).
	NoEvictionsWhileFits bool `json:"noEvictionsWhileFits,omitempty"`
	// GridResidentL1 keeps lines in L1 from one block to the next where
	// every line the whole grid loads fits in one SM's L1 at once (the
	// grid's load footprint in L1AllocBytes lines is at most l1_bytes): no
	// line is evicted then, so an SM fetches each line at most once and
	// allocates it once, whichever of its blocks touches it. The L2→L1 load
	// is capped at SMs × the grid's load footprint over the lattice
	// updates (Basic.ResidentL2Load), each load field's allocation term at
	// SMs × its grid lines over the threads, and its DRAM load at one DRAM
	// fetch per L2→L1 sector, with no redundant L2 load left to evict; the
	// totals are the fields' sums. Evidence: the V100 block scan's
	// L1-resident variant (coordinates wrapped into a tile whose lines fit
	// in L1) runs the blocks of one width at about the same GFlop/s
	// whatever their height, where the per-block allocation term and L2
	// misses made one-row blocks slower; the rule improves the overlap
	// model's ranking of those blocks and its predicted best
	// (docs/accuracy-hardware.md has the figures). The load per SM is an
	// upper bound: an SM fetches only the lines its own blocks touch.
	GridResidentL1 bool `json:"gridResidentL1,omitempty"`
	// ClampOneByte clamps the block L2 load, L1 allocation and TLB pages
	// to at least one (§8 item 28).
	ClampOneByte bool `json:"clampOneByte"`
	// TLBPseudoBlock counts the wave's TLB pages over the reference's
	// unclipped pseudo-block at the origin instead of the wave itself
	// (§3.6).
	TLBPseudoBlock bool `json:"tlbPseudoBlock"`

	// LayerReuseDistance forms the layer overlaps' oversubscription from
	// the layer set alone, O_ov,k = Old_k/sizeL2 (with AllocationRatio),
	// and turns both into hit fractions with the z curve
	// (Curves.OverlapZ). The exact layer sets hold every block launched
	// between a line's use by the earlier layer and its reuse by the wave
	// (waves.ExactShape), so Old_k is the volume that passes through L2
	// between the two uses, its stack distance; the wave's own new data is
	// part of it where the wave overlaps that span and comes after the
	// reuse otherwise, so adding it (Old + New − Ov) counts data twice. The
	// paper-era overlap curves were fitted against this plain Old_k/sizeL2
	// (docs/metrics.md §5.2); its steep z fit belongs to a layer set one
	// reuse distance deep, which the exact y set is as well, whereas its
	// loose y fit (hit at most 94 % at O = 0) was made for a slab ŵ1 block
	// rows deep (§4.8). Evidence: the V100 box2d range scan reuses every
	// previous row with y-layer sets well below L2's size, which the rule
	// predicts and the loose y fit does not (docs/accuracy-hardware.md has
	// the figures, docs/accuracy.md the simulator's).
	LayerReuseDistance bool `json:"layerReuseDistance,omitempty"`

	// Oversubscription forms the caches' oversubscriptions and Curves turn
	// them into miss fractions (Derive).
	Oversubscription OversubscriptionRule `json:"oversubscription"`
	Curves           CurveSet             `json:"curves"`
}

// The two named methods of docs/metrics.md (preface).
var (
	// MethodReference reproduces the reference implementation's current
	// state: its sampling, wave placement, clamps and fitted curves.
	MethodReference = Method{
		Name:                 "reference",
		Occupancy:            waves.RegisterOnly,
		Warp:                 footprint.ReferenceWarpRules,
		WaveSpace:            geometry.MultiDimSpace,
		PreviousBlockOverlap: true,
		ClampOneByte:         true,
		TLBPseudoBlock:       true,
		Oversubscription:     ReferenceForms,
		Curves:               CurrentCurves,
	}
	// MethodExact replaces each approximation of spec §8 by its exact
	// definition and uses O = V_alloc/V_cache throughout. It pairs that rule
	// with the paper-era curves because those were fitted against exactly
	// such plain allocation ratios (with β co-resident blocks for L1, and
	// Old_k/sizeL2 for the layer overlaps, of which it uses the steep z fit
	// for both layers: LayerReuseDistance); the current parameters were
	// fitted together with the square-root forms and do not belong to a
	// plain ratio (§5.2). The paper-era set has no previous-block term,
	// matching the paper's view that L1 sharing between blocks is unlikely
	// (§8 item 12).
	MethodExact = Method{
		Name:                     "exact",
		SampleWave:               true,
		ClipToDomain:             true,
		Occupancy:                waves.OccupancyCalculator,
		Warp:                     footprint.ExactWarpRules,
		WaveSpace:                geometry.LinearSpace,
		StoresAtWriteGranularity: true,
		OldIncludesX:             true,
		WarpReuseStays:           true,
		LayerReuseDistance:       true,
		GridResidentL1:           true,
		Oversubscription:         AllocationRatio,
		Curves:                   PaperEraCurves,
	}
)

// String returns the method's name.
func (m Method) String() string { return m.Name }

// MethodByName returns the method called "reference" or "exact".
func MethodByName(name string) (Method, error) {
	switch name {
	case MethodReference.Name:
		return MethodReference, nil
	case MethodExact.Name:
		return MethodExact, nil
	}
	return Method{}, fmt.Errorf("model: unknown method %q (expected %q or %q)", name, MethodReference.Name, MethodExact.Name)
}

// oversubscriptions are the cache oversubscriptions of one configuration
// under one method, plus the L1 allocation they were formed from.
type oversubscriptions struct {
	smL1Alloc    float64    // bytes allocated in one SM's L1
	l1           float64    // O_L1
	l1Overlap    float64    // O_L1ov as reported
	prevBlockArg float64    // argument of the previous-block curve
	layer        [2]float64 // O_ov,k for the y (incl. x) and z layer
	l2           float64    // O_L2
}

// kibi and mebi are the binary units of the reference's square-root forms.
const (
	kibi = 1024.0
	mebi = 1024.0 * 1024.0
)

func (m Method) oversubscriptions(b Basic, l Launch, sizeL1, sizeL2 float64) (oversubscriptions, error) {
	waveL2Alloc := b.WaveMemLoadNew + b.WaveMemStoreNew
	var o oversubscriptions
	switch m.Oversubscription {
	case ReferenceForms:
		o.smL1Alloc = b.BlockL1LoadAlloc
		o.l1 = o.smL1Alloc / math.Sqrt(sizeL1*128*kibi)
		o.l1Overlap = b.BlockL2Load / sizeL1
		o.prevBlockArg = 2 * o.l1Overlap
		for k := range o.layer {
			o.layer[k] = (b.WaveMemOld[k] + b.WaveMemLoadNew - b.WaveMemLoadOverlap[k]) / math.Max(1, sizeL2)
		}
		o.l2 = waveL2Alloc / math.Sqrt(sizeL2*4*mebi)
	case AllocationRatio:
		o.smL1Alloc = float64(l.BlocksPerSM) * b.BlockL1LoadAlloc
		o.l1 = o.smL1Alloc / sizeL1
		o.l1Overlap = o.l1
		o.prevBlockArg = o.l1
		// New and the overlaps arrive scaled by 1/q to a wave of W·B·λ
		// valid points; what occupies the cache is the wave's actual
		// footprint, so undo the scaling: a wave with idle threads
		// allocates less, it does not make the layer sets larger.
		q := b.waveScale()
		for k := range o.layer {
			if m.LayerReuseDistance {
				o.layer[k] = b.WaveMemOld[k] / sizeL2
			} else {
				o.layer[k] = (b.WaveMemOld[k] + q*(waveL2Alloc-b.WaveMemLoadOverlap[k])) / sizeL2
			}
		}
		o.l2 = q * waveL2Alloc / sizeL2
	default:
		return o, fmt.Errorf("model: method %q: unknown oversubscription rule %q", m.Name, m.Oversubscription)
	}
	return o, nil
}
