package kernel

import (
	"errors"
	"fmt"
	"slices"
)

// Shared-memory staging.
//
// A field with a stage key is staged: each block first copies the tile of
// the field that its lattice points read (the block's points grown by the
// accesses' halo) from global into shared memory, synchronises, and then
// serves every load of the field from shared memory. Global memory sees the
// copy only: each element of the tile once per block, loaded by the block's
// threads in the order of the copy mapping. The loads written in the spec
// become reads of shared memory at the same index relative to the tile.
//
// The tile is stored row by row, x fastest, with a row pitch of the tile's
// width plus the padding, and rows of one plane after another.

// CopyMapping is how a block's threads share the copy of a tile.
type CopyMapping uint8

// The copy mappings.
const (
	// CopyRows: the block's threads, in linear order (x fastest), take
	// consecutive elements of the tile in row order, B at a time, as in a
	// loop "for (n = tid; n < tile; n += B)". A tile row whose width is not
	// a multiple of the warp size splits warps across rows.
	CopyRows CopyMapping = iota
	// CopyBlock: the block's thread box strides over the tile, thread
	// (tx, ty, tz) copying the elements (tx + i·bx, ty + j·by, tz + k·bz),
	// x innermost, as in nested loops "for (j = ty; j < ty_end; j += by)
	// for (i = tx; …)".
	CopyBlock
)

var copyMappingNames = [...]string{"rows", "block"}

func (c CopyMapping) String() string {
	if int(c) < len(copyMappingNames) {
		return copyMappingNames[c]
	}
	return fmt.Sprintf("CopyMapping(%d)", c)
}

// ParseCopyMapping reads "rows" or "block".
func ParseCopyMapping(s string) (CopyMapping, error) {
	for i, n := range copyMappingNames {
		if s == n {
			return CopyMapping(i), nil
		}
	}
	return 0, fmt.Errorf("copy mapping %q: expected rows or block", s)
}

// PadBanks is Staging.Pad's value for the bank rule: no padding where the
// block's x extent is a multiple of BankRuleElements or the tile's halo
// width is; otherwise the fewest elements that make the row pitch minus
// the block's x extent a multiple of BankRuleElements, so that the next row
// of a warp's threads starts where the bank sequence continues.
const PadBanks = -1

// BankRuleElements is the bank count the bank rule pads for: 32 banks of
// one 4-byte element each (the rule of the Kernel Tuner convolution's
// use_padding, written for single precision).
const BankRuleElements = 32

// MaxTileBytes bounds a staged field's tile, far above the shared memory
// of any GPU (228 KiB per block on the largest), so that a spec's halo
// cannot make the counting of a copy run away; the device's own limit
// rejects a launch whose tiles do not fit (device.NoFitError).
const MaxTileBytes = 16 << 20

// MaxCoverLoads bounds the loads of a staged field in GlobalView.
const MaxCoverLoads = 1 << 16

// ErrTileTooLarge is matched (errors.Is) by the error of a launch whose
// staged tile exceeds MaxTileBytes or needs more than MaxCoverLoads loads
// to cover: the launch (or the spec's halo) is at fault.
var ErrTileTooLarge = errors.New("the shared tile is too large")

// Staging is a staged field's copy mapping and row padding.
type Staging struct {
	Copy CopyMapping
	// Pad is the elements added to each row of the shared tile: a count
	// ≥ 0, or PadBanks.
	Pad int64
	// StepHalo is how far the tile grows, per lattice coordinate below and
	// above, for each time step of a launch beyond the first: the halo of
	// the kernel's state (Kernel.State, StepHalo); zero without one.
	StepHalo [3][2]int64
	// State marks the kernel's state, whose tile shared memory holds twice:
	// the values of one step and those of the next.
	State bool
}

// StageDim is how one array dimension of a staged field is indexed: by the
// lattice coordinate Coord plus the access's constant (Coord −1: by the
// constant only). Lo and Hi are the least and greatest constant over the
// field's loads.
type StageDim struct {
	Coord  int
	Lo, Hi int64
}

// stageDims returns, for the loads of a staged field, how each array
// dimension is indexed, or an error naming the first access that is not a
// lattice coordinate (with coefficient 1, each coordinate in one dimension
// at most, the same for every access) plus a constant.
func stageDims(loads []Access) ([3]StageDim, error) {
	var dims [3]StageDim
	for j := range dims {
		dims[j].Coord = -2 // unset
	}
	for _, a := range loads {
		if len(a.Guards) > 0 {
			return dims, fmt.Errorf("access %q has a condition; a staged field's loads apply at every point", a.Text)
		}
		var used [3]bool
		for j, e := range a.Index {
			coef, c, ok := e.Linear()
			if !ok {
				return dims, fmt.Errorf("access %q: index %d (%s) has floor or modulo terms; a staged field's index must be a coordinate plus a constant", a.Text, j, e)
			}
			coord := -1
			for i, v := range coef {
				switch {
				case v == 0:
				case v == 1 && coord < 0:
					coord = i
				default:
					return dims, fmt.Errorf("access %q: index %d (%s) is not a coordinate plus a constant", a.Text, j, e)
				}
			}
			if coord >= 0 {
				if used[coord] {
					return dims, fmt.Errorf("access %q indexes two dimensions by %s", a.Text, varNames[coord])
				}
				used[coord] = true
			}
			switch {
			case dims[j].Coord == -2:
				dims[j] = StageDim{Coord: coord, Lo: c, Hi: c}
			case dims[j].Coord != coord:
				return dims, fmt.Errorf("access %q: index %d (%s) depends on other coordinates than the field's other loads do", a.Text, j, e)
			default:
				dims[j].Lo, dims[j].Hi = min(dims[j].Lo, c), max(dims[j].Hi, c)
			}
		}
	}
	return dims, nil
}

// checkStaging validates a staged field: loads only, each a coordinate plus
// a constant per dimension.
func checkStaging(f *Field) error {
	if len(f.Loads) == 0 {
		return fmt.Errorf("a staged field needs loads")
	}
	if len(f.Stores) > 0 {
		return fmt.Errorf("a staged field is read only; its stores would bypass the shared tile")
	}
	if f.Scalar {
		return fmt.Errorf("a scalar field is not staged")
	}
	_, err := stageDims(f.Loads)
	return err
}

// Staged reports whether field f is staged under launch l: the spec stages
// it and the launch does not turn staging off.
func (l Launch) Staged(f *Field) bool { return f.Stage != nil && !l.Unstaged }

// StagedFields reports whether a field of k is staged under l.
func (l Launch) StagedFields(k *Kernel) bool {
	return slices.ContainsFunc(k.Fields, l.Staged)
}

// Tile is the shared-memory tile of a staged field under a launch.
type Tile struct {
	Dims  [3]StageDim
	Size  [3]int64 // elements per array dimension of a block's full tile
	Pitch int64    // elements per shared row: Size[0] plus the padding
	Bytes int64    // shared memory of the tile: Pitch·Size[1]·Size[2] elements
	// Extent is the lattice points per dimension of a block: Block·Fold.
	Extent [3]int64
}

// TileOf returns the tile of staged field f under launch l.
func TileOf(f *Field, l Launch) (Tile, error) {
	if f.Stage == nil {
		return Tile{}, fmt.Errorf("field %q is not staged", f.Name)
	}
	dims, err := stageDims(f.Loads)
	if err != nil {
		return Tile{}, fmt.Errorf("field %q: %w", f.Name, err)
	}
	if grow := l.StepCount() - 1; grow > 0 {
		for j, d := range dims {
			if d.Coord < 0 {
				continue
			}
			h := f.Stage.StepHalo[d.Coord]
			if h[0] > MaxTileBytes || h[1] > MaxTileBytes {
				return Tile{}, fmt.Errorf("field %q: %w: its halo %v grows it by more than %d elements per step", f.Name, ErrTileTooLarge, h, MaxTileBytes)
			}
			dims[j].Lo, dims[j].Hi = d.Lo-grow*h[0], d.Hi+grow*h[1]
		}
	}
	t := Tile{Dims: dims}
	for i := range 3 {
		t.Extent[i] = l.Block[i] * l.Fold[i]
	}
	elements := int64(1)
	for j, d := range dims {
		t.Size[j] = d.Hi - d.Lo + 1 // offsets bounded by the addresses' 2^60: no overflow
		if d.Coord >= 0 {
			t.Size[j] += t.Extent[d.Coord] - 1
		}
		elements = min(elements*min(t.Size[j], MaxTileBytes+1), MaxTileBytes+1)
	}
	if elements > MaxTileBytes {
		return Tile{}, fmt.Errorf("field %q: %w: block %v × fold %v spans %d × %d × %d elements, more than %d bytes", f.Name, ErrTileTooLarge, l.Block, l.Fold, t.Size[0], t.Size[1], t.Size[2], MaxTileBytes)
	}
	pad := f.Stage.Pad
	if pad == PadBanks {
		pad = 0
		width, bx := t.Size[0], l.Block[0]
		if bx%BankRuleElements != 0 && (width-bx)%BankRuleElements != 0 {
			pad = ((BankRuleElements-(width-bx))%BankRuleElements + BankRuleElements) % BankRuleElements
		}
	}
	t.Pitch = t.Size[0] + pad
	t.Bytes = t.Elements() * f.Element
	if t.Bytes > MaxTileBytes {
		return Tile{}, fmt.Errorf("field %q: %w: block %v × fold %v takes %d bytes, more than %d", f.Name, ErrTileTooLarge, l.Block, l.Fold, t.Bytes, MaxTileBytes)
	}
	return t, nil
}

// Box returns the tile of the block whose first lattice point is origin,
// clipped to the domain when clip is set: the array indices lo ≤ e < hi
// that the block's lattice points inside the domain read (each dimension
// at least one element wide where a point is inside).
func (t Tile) Box(origin Point, domain [3]int64, clip bool) (lo, hi [3]int64) {
	for j, d := range t.Dims {
		if d.Coord < 0 {
			lo[j], hi[j] = d.Lo, d.Hi+1
			continue
		}
		end := origin[d.Coord] + t.Extent[d.Coord]
		if clip {
			end = min(end, domain[d.Coord])
		}
		lo[j], hi[j] = origin[d.Coord]+d.Lo, end+d.Hi
	}
	return lo, hi
}

// Strides returns the shared-memory element strides of the tile's three
// dimensions: 1, the row pitch, and the pitch times the rows.
func (t Tile) Strides() [3]int64 { return [3]int64{1, t.Pitch, t.Pitch * t.Size[1]} }

// Elements returns the shared-memory elements of the tile, its rows padded
// to the pitch.
func (t Tile) Elements() int64 { return t.Pitch * t.Size[1] * t.Size[2] }

// Shared returns the shared-memory element offset of array index e in the
// tile of the block whose full tile starts at lo.
func (t Tile) Shared(e, lo [3]int64) int64 {
	return ((e[2]-lo[2])*t.Size[1]+(e[1]-lo[1]))*t.Pitch + (e[0] - lo[0])
}

// GlobalView returns k as global memory sees it under l: each staged
// field's loads replaced by loads whose union over a block's lattice points
// is the block's tile, so that footprints counted over blocks, waves and
// layers are the copies'. A field's cover is the tile's halo offsets in
// steps of at most the block's extent (less where the domain leaves a
// narrower block at its edge), so that the offsets leave no gap. k itself
// is returned when no field is staged.
func GlobalView(k *Kernel, l Launch) (*Kernel, error) {
	if !l.StagedFields(k) {
		return k, nil
	}
	out := *k
	out.Fields = slices.Clone(k.Fields)
	for fi, f := range k.Fields {
		if !l.Staged(f) {
			continue
		}
		t, err := TileOf(f, l)
		if err != nil {
			return nil, err
		}
		var steps [3]int64
		loads := int64(1)
		for j, d := range t.Dims {
			steps[j] = 1
			if d.Coord >= 0 {
				steps[j] = CoverStep(t.Extent[d.Coord], l.Domain[d.Coord])
			}
			loads *= (d.Hi-d.Lo+steps[j]-1)/steps[j] + 1 // each ≤ the tile's size
		}
		if loads > MaxCoverLoads {
			return nil, fmt.Errorf("field %q: %w: its halo under block %v × fold %v on domain %v needs %d loads to cover, more than %d: a wider block, or a domain that the block's points divide", f.Name, ErrTileTooLarge, l.Block, l.Fold, l.Domain, loads, MaxCoverLoads)
		}
		var offsets [3][]int64
		for j, d := range t.Dims {
			offsets[j] = CoverOffsets(d.Lo, d.Hi, steps[j])
		}
		nf := *f
		nf.Loads = nil
		for _, c2 := range offsets[2] {
			for _, c1 := range offsets[1] {
				for _, c0 := range offsets[0] {
					var a Access
					for j, c := range [3]int64{c0, c1, c2} {
						a.Index[j] = Const(c)
						if d := t.Dims[j]; d.Coord >= 0 {
							a.Index[j], _ = Var(d.Coord).Add(Const(c))
						}
					}
					a.Text = a.String()
					nf.Loads = append(nf.Loads, a)
				}
			}
		}
		out.Fields[fi] = &nf
	}
	return &out, nil
}

// CoverStep returns the step of the offsets that cover a halo from a
// block's points of the given extent along a dimension of the domain's
// size: the extent, or the narrower edge block's where the domain leaves
// one, so that no offset leaves a gap in any block.
func CoverStep(extent, domain int64) int64 {
	if r := domain % extent; r > 0 {
		return r
	}
	return extent
}

// CoverOffsets returns the offsets from lo to hi in steps of step, hi
// included: copies of a block's points at these offsets cover every point
// from lo to hi beyond them.
func CoverOffsets(lo, hi, step int64) []int64 {
	var offsets []int64
	for c := lo; c < hi; c += step {
		offsets = append(offsets, c)
	}
	return append(offsets, hi)
}

// StagedSharedBytes returns the shared memory per block of k under l: the
// spec's shared_bytes plus the tiles of the staged fields, each
// multiplicity times, and the state's (Staging.State) twice.
func StagedSharedBytes(k *Kernel, l Launch) (int64, error) {
	total := k.SharedBytes
	for _, f := range k.Fields {
		if !l.Staged(f) {
			continue
		}
		t, err := TileOf(f, l)
		if err != nil {
			return 0, err
		}
		buffers := int64(1)
		if f.Stage.State {
			buffers = 2
		}
		total += t.Bytes * f.Multiplicity * buffers
	}
	return total, nil
}

// SharedView returns the shared tile of staged field f under l as a field
// of its own: an array of extent (Pitch, Size[1], Size[2]) whose loads are
// f's loads relative to the tile of the block that holds the point, so
// that a load's element index is its shared-memory element offset (the
// tile of the block whose first point is b·Extent starts at array index
// b·Extent + Lo in each coordinate-indexed dimension).
func SharedView(f *Field, l Launch) (*Field, Tile, error) {
	t, err := TileOf(f, l)
	if err != nil {
		return nil, t, err
	}
	sf := &Field{Name: f.Name, Element: f.Element, Extent: [3]int64{t.Pitch, t.Size[1], t.Size[2]}, Multiplicity: f.Multiplicity}
	sf.Offset = -(t.Dims[0].Lo + t.Dims[1].Lo*t.Pitch + t.Dims[2].Lo*t.Pitch*t.Size[1])
	for _, a := range f.Loads {
		s := a
		for j, d := range t.Dims {
			if d.Coord < 0 {
				continue
			}
			// index − Extent·⌊x_c / Extent⌋: the block's origin removed.
			origin, err := Var(d.Coord).FloorDiv(t.Extent[d.Coord])
			if err == nil {
				origin, err = origin.Scale(t.Extent[d.Coord])
			}
			if err == nil {
				s.Index[j], err = a.Index[j].Sub(origin)
			}
			if err != nil {
				return nil, t, fmt.Errorf("field %q access %q: %w", f.Name, a.Text, err)
			}
		}
		sf.Loads = append(sf.Loads, s)
	}
	return sf, t, nil
}
