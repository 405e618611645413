package model

import (
	"fmt"
	"slices"
	"strings"

	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/lattice"
)

// PartialNote describes the partial accesses of k (kernel.Access.Partial)
// for a note: the share of the domain where each applies, and that the
// volumes per lattice update come from a representative wave in the middle
// of the grid, which counts a partial access only where it reaches it. It
// returns "" for a kernel without partial accesses.
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
				share := float64(box.Intersect(dom).Size()) / float64(dom.Size())
				parts = append(parts, fmt.Sprintf("%s %s %s on %.3g %% of the domain", f.Name, kind, a.Text, 100*share))
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
