package model

import "math"

// CurveForm names the functional shape of a fitted capacity curve.
type CurveForm string

// The curve shapes used by the reference implementation over time
// (docs/metrics.md §5.2). Every form is evaluated as a capacity-miss
// fraction of a redundant volume; the hit fraction is one minus it.
const (
	// MissGompertz is miss(O) = A·exp(−B·exp(−C·O)), increasing in O.
	MissGompertz CurveForm = "miss-gompertz"
	// HitDecay is hit(O) = exp(−B·exp(C·(min(O, MaxO) − Shift))), decreasing
	// in O; MaxO = 0 means no cap. miss(O) = 1 − hit(O).
	HitDecay CurveForm = "hit-decay"
)

// Curve is one fitted capacity curve: the fraction of a redundant volume
// that misses a cache as a function of the cache's oversubscription O.
type Curve struct {
	Form  CurveForm `json:"form"`
	A     float64   `json:"a,omitempty"`
	B     float64   `json:"b"`
	C     float64   `json:"c"`
	Shift float64   `json:"shift,omitempty"`
	MaxO  float64   `json:"maxO,omitempty"`
}

// Miss returns the capacity-miss fraction of the redundant volume at
// oversubscription o.
func (c Curve) Miss(o float64) float64 {
	switch c.Form {
	case HitDecay:
		if c.MaxO > 0 {
			o = math.Min(o, c.MaxO)
		}
		return 1 - math.Exp(-c.B*math.Exp(c.C*(o-c.Shift)))
	default:
		return c.A * math.Exp(-c.B*math.Exp(-c.C*o))
	}
}

// Hit returns the hit fraction of the redundant volume at oversubscription o.
func (c Curve) Hit(o float64) float64 { return 1 - c.Miss(o) }

// gompertz builds the reference's R(a, b, c; O) = a·exp(−b·exp(−c·O)).
func gompertz(a, b, c float64) Curve { return Curve{Form: MissGompertz, A: a, B: b, C: c} }

// CurveSet is one generation of the reference implementation's fitted
// capacity curves. PrevBlock is nil where that generation did not model
// L1 sharing with earlier blocks on the same SM.
type CurveSet struct {
	Name       string `json:"name"`
	Provenance string `json:"provenance"`
	// L1 is the miss fraction of redundant L1 loads (L1LoadEvicts).
	L1 Curve `json:"L1"`
	// PrevBlock is the miss fraction of the previous-block L1 overlap.
	PrevBlock *Curve `json:"prevBlock,omitempty"`
	// OverlapY and OverlapZ are the miss fractions of the y- and z-layer
	// DRAM overlaps (memLoadOverlapHit = overlap · (1 − miss)).
	OverlapY Curve `json:"overlapY"`
	OverlapZ Curve `json:"overlapZ"`
	// L2 is the miss fraction of redundant L2 loads (memLoadEvicts).
	L2 Curve `json:"L2"`
	// Store is the miss fraction of redundant partial stores (memStoreEvicts).
	Store Curve `json:"store"`
}

// The curve generations of docs/metrics.md §5.2. A refit from the simulator
// replaces or adds one of these values and nothing else.
var (
	// CurrentCurves is the reference implementation's early-2025 snapshot,
	// fitted together with the square-root oversubscription forms.
	CurrentCurves = CurveSet{
		Name:       "current",
		Provenance: "reference snapshot 2025-03 (Ernst et al. 2023, Warpspeed), fitted against O_L1 = V/√(sizeL1·128 KiB), O_L2 = V/√(sizeL2·4 MiB)",
		L1:         gompertz(0.66, 6.77, 1.45),
		PrevBlock:  ptr(gompertz(0.66, 6.77, 1.45)),
		OverlapY:   gompertz(1.0, 37.1, 3.2),
		OverlapZ:   gompertz(1.0, 37.1, 3.2),
		L2:         gompertz(0.2, 7.56, 0.67),
		Store:      gompertz(0.38, 3.79, 0.55),
	}
	// PaperEraCurves is the 2022–2023 set that produced the paper's figures,
	// fitted against plain ratios O = V_alloc/V_cache (L1: β·blockL1LoadAlloc).
	PaperEraCurves = CurveSet{
		Name:       "paper-era",
		Provenance: "paper-era reference 2022–2023 (Ernst et al. 2023, Warpspeed), fitted against plain ratios V_alloc/V_cache; no previous-block term",
		L1:         gompertz(0.73, 4.6, 0.34),
		OverlapY:   Curve{Form: HitDecay, B: 0.078, C: 1.03, Shift: 0.2},
		OverlapZ:   Curve{Form: HitDecay, B: 0.0036, C: 3.97},
		L2:         gompertz(0.5, 13, 1.8),
		Store:      Curve{Form: HitDecay, B: 0.044, C: 0.61},
	}
	// IntermediateCurves is the late-2023 to late-2024 set (the later of its
	// two L1 fits).
	IntermediateCurves = CurveSet{
		Name:       "intermediate",
		Provenance: "reference late 2023 – late 2024 (Warpspeed), plain-ratio arguments; previous-block O = blockL2Load/sizeL1",
		L1:         gompertz(0.73, 12, 2.34),
		PrevBlock:  &Curve{Form: HitDecay, B: 0.0036, C: 8, MaxO: 5},
		OverlapY:   PaperEraCurves.OverlapY,
		OverlapZ:   PaperEraCurves.OverlapZ,
		L2:         gompertz(0.386, 9, 0.639),
		Store:      PaperEraCurves.Store,
	}
	// Early2025Curves is the set in use just before the current one,
	// still with plain-ratio arguments.
	Early2025Curves = CurveSet{
		Name:       "early-2025",
		Provenance: "reference early 2025 before the square-root forms (Warpspeed), plain-ratio arguments",
		L1:         gompertz(1, 4.1, 0.9),
		PrevBlock:  ptr(gompertz(1, 4.1, 0.9)),
		OverlapY:   gompertz(1, 15.5, 2.2),
		OverlapZ:   gompertz(1, 15.5, 2.2),
		L2:         gompertz(1, 6.4, 0.8),
		Store:      gompertz(1, 3.2, 0.7),
	}
)

func ptr[T any](v T) *T { return &v }
