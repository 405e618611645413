package kernel

import (
	"errors"
	"fmt"
	"slices"
)

// Time steps per launch (temporal blocking).
//
// A kernel whose spec names a state (the staged field that the kernel
// advances in time; its one store writes the state's next value at the
// lattice point) may perform T time steps per launch: each block copies
// the tiles of its staged fields, grown by T − 1 halos of the state beyond
// their one-step tiles, updates at step t = 1 … T the block's points grown
// by T − t halos into the second of two shared buffers of the state
// (recomputing what its neighbours compute too), synchronises after every
// step, and stores its own points once after the last. Loads of fields
// that are not staged repeat at every step over the points the step
// computes. The halo is the state's loads' least and greatest offset in
// each lattice coordinate.

// MaxSteps bounds the time steps of one launch.
const MaxSteps = 1024

// StepCount returns the time steps the launch performs: Steps, and 1 where
// it is 0.
func (l Launch) StepCount() int64 { return max(1, l.Steps) }

// StateField returns the state field (the spec's state key), or nil for a
// kernel without one.
func (k *Kernel) StateField() *Field {
	if k.State == "" {
		return nil
	}
	return k.Field(k.State)
}

// CheckSteps reports why k cannot perform launch l's time steps: more than
// one needs a state, staged under l.
func (k *Kernel) CheckSteps(l Launch) error {
	t := l.Steps
	switch {
	case t < 0 || t > MaxSteps:
		return fmt.Errorf("steps %d: expected 1 to %d time steps per launch", t, MaxSteps)
	case t <= 1:
		return nil
	case k.StateField() == nil:
		return fmt.Errorf("steps %d: the spec names no state (the staged field that each step advances), so it performs one step per launch", t)
	case !l.Staged(k.StateField()):
		return fmt.Errorf("steps %d: the state %q is read from global memory under this launch (unstaged); more than one step per launch advances it in shared memory", t, k.State)
	}
	return nil
}

// StepHalo returns the halo of field f's loads per lattice coordinate: how
// far below and above a point they read (0 where they do not reach out in
// that direction), or an error where an index is not a coordinate plus a
// constant (stageDims).
func StepHalo(f *Field) ([3][2]int64, error) {
	var halo [3][2]int64
	dims, err := stageDims(f.Loads)
	if err != nil {
		return halo, err
	}
	for _, d := range dims {
		if d.Coord >= 0 {
			halo[d.Coord] = [2]int64{max(-d.Lo, 0), max(d.Hi, 0)}
		}
	}
	return halo, nil
}

// StepWork is the lattice points one block updates in a launch of T time
// steps, counted on the block's full box of Block·Fold points (the
// domain's edge does not cut it).
type StepWork struct {
	Steps  int64 // T
	Points int64 // the block's lattice points, each useful once per step
	// Computed is Σ over t = 1 … T of the points of the block's region
	// grown by T − t halos: the updates the block computes.
	Computed int64

	launch Launch
	halo   [3][2]int64 // the state's (StepHalo)
}

// Useful returns the useful updates of a launch: T × Points.
func (w StepWork) Useful() int64 { return w.Steps * w.Points }

// ComputedPerUseful returns Computed / Useful: 1 for one step, more where
// the block recomputes its neighbours' points.
func (w StepWork) ComputedPerUseful() float64 {
	return float64(w.Computed) / float64(w.Useful())
}

// RedundantShare returns the share of the computed updates that are
// redundant: (Computed − Useful) / Computed.
func (w StepWork) RedundantShare() float64 {
	return float64(w.Computed-w.Useful()) / float64(w.Computed)
}

// Region returns the region that step t (1 ≤ t ≤ T) computes: the block's
// points grown by T − t halos.
func (w StepWork) Region(t int64) StepRegion {
	return StepRegionOf(w.launch, w.halo, w.Steps-t)
}

// IssuedPerUseful returns the lanes that the block's warps of warpSize
// threads issue over the launch's steps (StepRegion.IssuedLanes, summed
// over t = 1 … T) over T times the lanes that they issue for the block's
// own points: 1 for one step, ComputedPerUseful where every warp of every
// step has all its lanes at a point of the step's region, and more where
// a region that is not a multiple of the block leaves lanes idle in warps
// that issue for the others. A block whose threads are not a multiple of
// the warp size issues its last warp's idle lanes at every step alike, so
// they cancel: per update of the block's own points they cost what they
// cost at one step.
func (w StepWork) IssuedPerUseful(warpSize int64) float64 {
	var issued int64
	for t := int64(1); t <= w.Steps; t++ {
		issued += w.Region(t).IssuedLanes(w.launch.Block, w.launch.Tiling, warpSize)
	}
	own := w.Region(w.Steps).IssuedLanes(w.launch.Block, w.launch.Tiling, warpSize)
	return float64(issued) / float64(w.Steps*own)
}

// StepWorkOf returns the work of one block of l in k's launch of
// l.StepCount() time steps, grown by the state's halo (StepHalo; no growth
// without a state).
func (k *Kernel) StepWorkOf(l Launch) (StepWork, error) {
	w := StepWork{Steps: l.StepCount(), launch: l}
	if s := k.StateField(); s != nil {
		var err error
		if w.halo, err = StepHalo(s); err != nil {
			return w, fmt.Errorf("state %q: %w", s.Name, err)
		}
	}
	w.Points = w.Region(w.Steps).Points()
	for t := int64(1); t <= w.Steps; t++ {
		w.Computed += w.Region(t).Points()
	}
	return w, nil
}

// checkState validates the state of k: a staged field, and k's only store
// one access of one field with the state's element size at the lattice
// point (index (x, y, z) itself; an array with a halo states it with its
// offset), the state's next value. It marks the staged fields' tiles to
// grow by the state's halo per step and the state's tile as held twice.
// The error names what is wrong; the caller places it.
func checkState(k *Kernel) error {
	s := k.StateField()
	if s == nil {
		return fmt.Errorf("state %q: no field of that name", k.State)
	}
	if s.Stage == nil {
		return fmt.Errorf("state %q is not staged; the field that each time step advances in shared memory needs a stage key", k.State)
	}
	halo, err := StepHalo(s)
	if err != nil {
		return fmt.Errorf("state %q: %w", k.State, err)
	}
	if err := checkNextValue(k, s); err != nil {
		return err
	}
	for _, f := range k.Fields {
		if f.Stage != nil {
			st := *f.Stage
			st.StepHalo, st.State = halo, f == s
			f.Stage = &st
		}
	}
	return nil
}

// checkNextValue checks that k's only store writes the next value of state
// s: one access of one field whose elements are s's, at the lattice point.
func checkNextValue(k *Kernel, s *Field) error {
	i := slices.IndexFunc(k.Fields, func(f *Field) bool { return f.Name == storingField(k) })
	if i < 0 {
		return fmt.Errorf("state %q: the kernel stores nothing: %w", s.Name, errNextValue)
	}
	f := k.Fields[i]
	if n := slices.IndexFunc(k.Fields[i+1:], func(f *Field) bool { return len(f.Stores) > 0 }); n >= 0 {
		return fmt.Errorf("state %q: fields %q and %q both store: %w", s.Name, f.Name, k.Fields[i+1+n].Name, errNextValue)
	}
	if len(f.Stores) > 1 {
		return fmt.Errorf("state %q: field %q stores %d accesses: %w", s.Name, f.Name, len(f.Stores), errNextValue)
	}
	if f.Element != s.Element {
		return fmt.Errorf("state %q: field %q stores %d-byte elements, the state holds %d-byte ones: %w", s.Name, f.Name, f.Element, s.Element, errNextValue)
	}
	a := f.Stores[0]
	for j := range 3 {
		coef, c, ok := a.Index[j].Linear()
		atPoint := coef == unit(j) || k.Domain[j] == 1 && coef == [3]int64{} // a dimension of one point: its coordinate is 0
		if !ok || !atPoint || c != 0 || len(a.Guards) > 0 {
			return fmt.Errorf("state %q: field %q stores at %s, not at the lattice point: %w", s.Name, f.Name, a.Text, errNextValue)
		}
	}
	return nil
}

// errNextValue is wrapped by the errors of a kernel whose store is not its
// state's next value.
var errNextValue = errors.New("with a state, the kernel's one store is the state's next value: one access at the lattice point of one field with the state's element size")

// storingField returns the name of k's first field with stores, or "".
func storingField(k *Kernel) string {
	for _, f := range k.Fields {
		if len(f.Stores) > 0 {
			return f.Name
		}
	}
	return ""
}

// unit returns the coefficients of coordinate j alone.
func unit(j int) [3]int64 {
	var c [3]int64
	c[j] = 1
	return c
}

// PointIndex returns the array index of the state's element at lattice
// point p in tile t: p's coordinate in each dimension a coordinate
// indexes, the tile's least index in the others.
func (t Tile) PointIndex(p Point) [3]int64 {
	var e [3]int64
	for j, d := range t.Dims {
		e[j] = d.Lo
		if d.Coord >= 0 {
			e[j] = p[d.Coord]
		}
	}
	return e
}

// StepRegion is the region of the points one block computes at a time
// step that grows the block's points by Grow halos, relative to the
// block's first point: Lo is its first point's offset (−Grow times the
// halo below), Size its points per coordinate, and Fold the points per
// thread and coordinate that cover it, ⌈Size / Block⌉. A thread takes the
// region's points as the launch's tiling takes the block's (Fold in place
// of the launch's fold), and none past Size; with no growth they are the
// launch's own points.
type StepRegion struct {
	Grow           int64
	Lo, Size, Fold [3]int64
}

// StepRegionOf returns the region of launch l's step that grows the
// block's points by grow halos of the state, whose halo is halo
// (StepHalo).
func StepRegionOf(l Launch, halo [3][2]int64, grow int64) StepRegion {
	r := StepRegion{Grow: grow}
	for c := range 3 {
		r.Lo[c] = -grow * halo[c][0]
		r.Size[c] = l.Block[c]*l.Fold[c] + grow*(halo[c][0]+halo[c][1])
		r.Fold[c] = (r.Size[c] + l.Block[c] - 1) / l.Block[c]
	}
	return r
}

// Offset returns the offset from the block's first point of point j
// (0 ≤ j < Fold) of the thread at index q in a block of the given size
// under tiling, and false where it lies past the region.
func (r StepRegion) Offset(q, j, block [3]int64, tiling Tiling) ([3]int64, bool) {
	var off [3]int64
	for c := range 3 {
		i := q[c]*r.Fold[c] + j[c]
		if tiling == TileStrided {
			i = q[c] + j[c]*block[c]
		}
		if i >= r.Size[c] {
			return off, false
		}
		off[c] = r.Lo[c] + i
	}
	return off, true
}

// Points returns the points of the region: the product of its sizes.
func (r StepRegion) Points() int64 { return r.Size[0] * r.Size[1] * r.Size[2] }

// IssuedLanes returns the lanes that the warps of a block of the given
// size (warpSize consecutive linear thread indices each, ActiveWarpsIn)
// issue to compute the region under tiling: for each of the region's fold
// points j (0 ≤ j < Fold), the warps with a thread whose point j lies in
// the region (Offset), times warpSize. A warp issues an instruction for
// all its lanes where one of them is active, and skips a point where none
// is.
func (r StepRegion) IssuedLanes(block [3]int64, tiling Tiling, warpSize int64) int64 {
	// Under either tiling a thread's point j grows with the thread's index
	// in each coordinate, so the threads whose point j lies in the region
	// are a box [0, e): e per coordinate, with the fold points that share it.
	var extents [3]map[int64]int64
	for c := range 3 {
		extents[c] = map[int64]int64{}
		for jc := range r.Fold[c] {
			var q, j [3]int64
			j[c] = jc
			for q[c] < block[c] {
				if _, ok := r.Offset(q, j, block, tiling); !ok {
					break
				}
				q[c]++
			}
			extents[c][q[c]]++
		}
	}
	var warps int64
	for ex, nx := range extents[0] {
		for ey, ny := range extents[1] {
			for ez, nz := range extents[2] {
				warps += nx * ny * nz * ActiveWarpsIn(block, [3]int64{ex, ey, ez}, warpSize)
			}
		}
	}
	return warps * warpSize
}

// ShiftAccess returns access a at the point p + delta in place of p, for
// points p of the box [0, over): its index and guards with each coordinate
// shifted, and the guards that keep p + delta in the domain d where the box
// shifted by delta leaves it, so that the access applies where the shifted
// point lies in d and a's own guards hold there.
func ShiftAccess(a Access, delta, over, d [3]int64) (Access, error) {
	var sub [3]Expr
	for c := range 3 {
		var err error
		if sub[c], err = Var(c).Add(Const(delta[c])); err != nil {
			return a, err
		}
	}
	out := Access{Text: fmt.Sprintf("%s at the point shifted by %v", a.Text, delta)}
	for j := range 3 {
		var err error
		if out.Index[j], err = a.Index[j].Substitute(sub); err != nil {
			return a, err
		}
	}
	for _, g := range a.Guards {
		s, err := g.Substitute(sub)
		if err != nil {
			return a, err
		}
		out.Guards = append(out.Guards, s)
	}
	for c := range 3 {
		if delta[c] < 0 { // x + δ ≥ 0
			out.Guards = append(out.Guards, sub[c])
		}
		if over[c]+delta[c] > d[c] { // d − 1 − δ − x ≥ 0
			g, err := Const(d[c] - 1 - delta[c]).Sub(Var(c))
			if err != nil {
				return a, err
			}
			out.Guards = append(out.Guards, g)
		}
	}
	return out, nil
}
