package model

import (
	"fmt"
	"slices"
	"strings"

	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/lattice"
)

// PartialNoteLayers is the number of layers of the domain that a partial
// access must leave out along some dimension for PartialNote to name it:
// halo checks that leave out a layer or two stay silent.
const PartialNoteLayers = 4

// PartialNote describes the partial accesses of k (kernel.Access.Partial)
// that leave out more than PartialNoteLayers layers of the domain, such as
// a boundary condition on one layer or a map whose stated iteration domain
// is smaller than the kernel's, for a note: the share of the domain
// where each applies, and that the volumes per lattice update come from a
// representative wave in the middle of the grid, which counts a partial
// access only where it reaches it. It returns "" when there is none.
func PartialNote(k *kernel.Kernel) string {
	dom := lattice.Box{Hi: k.Domain}
	var parts []string
	for _, f := range k.Fields {
		for _, store := range []bool{false, true} {
			for _, a := range f.Accesses(store) {
				box, partial, err := a.Partial(k.Domain)
				if err != nil || !partial {
					continue
				}
				kind := "load"
				if store {
					kind = "store"
				}
				in := box.Intersect(dom)
				share := float64(in.Size()) / float64(dom.Size())
				if leftOut(in, dom) > PartialNoteLayers {
					parts = append(parts, fmt.Sprintf("%s %s %s on %.3g %% of the domain", f.Name, kind, a.Text, 100*share))
				}
			}
		}
	}
	if len(parts) == 0 {
		return ""
	}
	slices.Sort(parts)
	return "partial accesses: " + strings.Join(parts, "; ") +
		". The volumes per lattice update are those of a representative wave in the middle of the grid, which counts a partial access where it reaches it"
}

// leftOut returns the most layers that box in leaves out of dom along one
// dimension.
func leftOut(in, dom lattice.Box) int64 {
	if in.Empty() {
		return max(dom.Hi[0], dom.Hi[1], dom.Hi[2])
	}
	var n int64
	for i := range 3 {
		n = max(n, (dom.Hi[i]-dom.Lo[i])-(in.Hi[i]-in.Lo[i]))
	}
	return n
}
