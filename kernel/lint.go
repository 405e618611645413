package kernel

import "fmt"

// Note is a remark about valid input that is probably not meant, or about
// an estimate that counts differently from a naive reading: a stable Code
// for programs and the Text a person reads.
type Note struct {
	Code string `json:"code"`
	Text string `json:"text"`
}

// Codes of the notes that Lint gives.
const (
	NoteUnusedDimension = "unused-dimension"  // a dimension of the domain no access depends on
	NoteNarrowDomain    = "narrow-domain"     // a domain at most twice as wide as the accesses reach
	NoteIndexPastExtent = "index-past-extent" // an index a whole extent or more outside its field's array
)

// Lint returns the notes on kernel k as it runs on its domain: a dimension
// of the domain that no access depends on (a 2D spec on a 3D domain), a
// domain at most twice as wide as the stencil offsets reach in a dimension
// (most of what the kernel reads lies outside it), and per field an index
// that leaves the field's extent by a whole extent or more (it addresses
// another row, plane or array, not a halo).
func Lint(k *Kernel) []Note {
	last := Point{k.Domain[0] - 1, k.Domain[1] - 1, k.Domain[2] - 1}
	used, reach := k.dimensionUse(last)
	var notes []Note
	narrow := [3]bool{}
	for i, d := range k.Domain {
		switch {
		case d > 1 && !used[i]:
			notes = append(notes, Note{NoteUnusedDimension, fmt.Sprintf("no access depends on %s, but the domain's width in %s is %d: every %s layer reads and writes the same addresses",
				axisNames[i], axisNames[i], d, axisNames[i])})
		case reach[i] > 0 && d <= 2*reach[i]:
			narrow[i] = true
			notes = append(notes, Note{NoteNarrowDomain, fmt.Sprintf("the domain's width in %s is %d, but the accesses reach %d beyond each lattice point there: most of what the kernel reads lies outside the domain",
				axisNames[i], d, reach[i])})
		}
	}
	for _, f := range k.Fields {
		if text := f.pastExtent(last, narrow); text != "" {
			notes = append(notes, Note{NoteIndexPastExtent, text})
		}
	}
	return notes
}

// dimensionUse returns per coordinate of the domain box [0, last] whether
// an access depends on it, and how far the unit-stride indices of that
// array dimension (x + c in dimension x) reach beyond the lattice point.
func (k *Kernel) dimensionUse(last Point) (used [3]bool, reach [3]int64) {
	for _, f := range k.Fields {
		for _, a := range f.allAccesses() {
			for i, e := range a.Index {
				for j := range used {
					used[j] = used[j] || variesWith(e, j, last)
				}
				if coef, c, ok := e.Linear(); ok && coef == unitCoefficients(i) {
					reach[i] = max(reach[i], c, -c)
				}
			}
		}
	}
	return used, reach
}

// pastExtent describes the first access of f whose index leaves
// [0, extent) by at least the extent over the domain box [0, last], or
// returns "". A dimension marked narrow whose extent is the domain's width
// is left out: the note on the narrow domain covers it.
func (f *Field) pastExtent(last Point, narrow [3]bool) string {
	for _, a := range f.allAccesses() {
		for i, e := range a.Index {
			lo, hi, ok := e.Bounds(Point{}, last)
			ext := f.Extent[i]
			sameAsNarrow := narrow[i] && ext == last[i]+1 // the domain note says it
			if !ok || sameAsNarrow || (lo > -ext && hi < 2*ext-1) {
				continue
			}
			return fmt.Sprintf("field %q access %s: its %s index spans %d to %d, a whole extent (%d) or more outside the array; it addresses other rows, planes or arrays, not a halo",
				f.Name, a.Text, axisNames[i], lo, hi, ext)
		}
	}
	return ""
}

// allAccesses returns the field's loads, then its stores.
func (f *Field) allAccesses() []Access {
	return append(append([]Access{}, f.Loads...), f.Stores...)
}

// variesWith reports whether e varies with coordinate j over the box from
// the origin to last: its bounds differ when coordinate j is held at 0.
func variesWith(e Expr, j int, last Point) bool {
	fixed := last
	fixed[j] = 0
	lo0, hi0, ok0 := e.Bounds(Point{}, fixed)
	lo1, hi1, ok1 := e.Bounds(Point{}, last)
	return !ok0 || !ok1 || lo0 != lo1 || hi0 != hi1
}

// unitCoefficients returns the coefficient vector of coordinate i alone.
func unitCoefficients(i int) [3]int64 {
	var u [3]int64
	u[i] = 1
	return u
}
