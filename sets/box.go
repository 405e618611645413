package sets

import (
	"fmt"
	"strings"

	"github.com/polyvol/polyvol/lattice"
)

// boxConstraint renders box b as ISL constraints over the variables x, y, z.
func boxConstraint(b lattice.Box) string {
	if b.Empty() {
		return "1 = 0"
	}
	return fmt.Sprintf("%d <= x < %d and %d <= y < %d and %d <= z < %d",
		b.Lo[0], b.Hi[0], b.Lo[1], b.Hi[1], b.Lo[2], b.Hi[2])
}

// ThreadSetISL renders a union of thread boxes as an ISL set over [x, y, z].
func ThreadSetISL(boxes []lattice.Box) string {
	var parts []string
	for _, b := range boxes {
		if !b.Empty() {
			parts = append(parts, "[x, y, z] : "+boxConstraint(b))
		}
	}
	if len(parts) == 0 {
		return "{ [x, y, z] : 1 = 0 }"
	}
	return "{ " + strings.Join(parts, "; ") + " }"
}
