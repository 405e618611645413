package kernel

import (
	"fmt"
	"strings"
)

// BoundsCheck says which domain checks a kernel's code makes, the guard
// that keeps threads off lattice points outside the domain. The checks
// cost integer and predicate instructions; which lanes run is the same
// under every kind, since polyvol never counts points outside the domain.
type BoundsCheck uint8

// The kinds of bounds check.
const (
	// BoundsPoint: one check of the lattice point per point (if (x < N)
	// around a point's body), the usual kernel and polyvol's generated
	// CUDA. The zero value.
	BoundsPoint BoundsCheck = iota
	// BoundsNone: no check; the launch covers the domain exactly.
	BoundsNone
	// BoundsAccess: every load and store checks its own element's
	// coordinates, as code does that guards each access of a halo.
	BoundsAccess
)

var boundsCheckNames = [...]string{"point", "none", "access"}

// String returns "point", "none" or "access".
func (b BoundsCheck) String() string {
	if int(b) < len(boundsCheckNames) {
		return boundsCheckNames[b]
	}
	return fmt.Sprintf("BoundsCheck(%d)", int(b))
}

// ParseBoundsCheck reads a bounds-check kind: "point", "none" or "access".
func ParseBoundsCheck(s string) (BoundsCheck, error) {
	for i, n := range boundsCheckNames {
		if s == n {
			return BoundsCheck(i), nil
		}
	}
	return 0, fmt.Errorf("bounds_check %q: want %s", s, strings.Join(boundsCheckNames[:], ", "))
}
