package kernel

import (
	"fmt"
	"strings"

	"github.com/polyvol/polyvol/lattice"
)

// FoldAccesses rewrites accesses from lattice coordinates to thread
// coordinates for a thread that covers fold[i] points per dimension, placed
// by l's tiling: for every j with 0 ≤ j_i < fold[i] it substitutes the
// coordinates of point j (Launch.PointExprs; for thread folding
// x → fold[0]·x + j0, y → fold[1]·y + j1, z → fold[2]·z + j2,
// docs/method.md). The result holds the accesses of all points of a
// thread, with canonical duplicates removed, ordered by j (x fastest) and
// then by the input order.
func FoldAccesses(accesses []Access, l Launch) ([]Access, error) {
	fold := l.Fold
	for i, f := range fold {
		if f < 1 {
			return nil, fmt.Errorf("fold %s = %d: must be at least 1", axisNames[i], f)
		}
	}
	var out []Access
	for _, j := range FoldOffsets(fold) {
		for _, a := range accesses {
			b, err := l.ThreadAccess(a, j)
			if err != nil {
				return nil, err
			}
			b.Text = fmt.Sprintf("%s at point offset %v", a.Text, j)
			out = append(out, b)
		}
	}
	return Dedup(out), nil
}

// Fold returns a copy of k whose load and store accesses are in thread
// coordinates for l's fold and tiling (see FoldAccesses) and whose Flops are
// per thread (FlopsPerThread). Domain stays in lattice points. Raw ISL maps
// are copied unchanged: compose them with FoldRelationISL to fold them.
func (k *Kernel) Fold(l Launch) (*Kernel, error) {
	fold := l.Fold
	c := *k
	c.Flops = k.FlopsPerThread(fold)
	c.Fields = make([]*Field, len(k.Fields))
	for i, f := range k.Fields {
		g := *f
		var err error
		if g.Loads, err = FoldAccesses(f.Loads, l); err != nil {
			return nil, fmt.Errorf("field %q: %w", f.Name, err)
		}
		if g.Stores, err = FoldAccesses(f.Stores, l); err != nil {
			return nil, fmt.Errorf("field %q: %w", f.Name, err)
		}
		c.Fields[i] = &g
	}
	return &c, nil
}

// FoldRelationISL returns the ISL map from a thread [x, y, z] to the lattice
// points [px, py, pz] it covers under the given fold, i.e.
// fold[i]·t_i ≤ p_i < fold[i]·t_i + fold[i]. Applying a raw access map to its
// range folds that map.
func FoldRelationISL(fold [3]int64) string {
	var cs []string
	for i, f := range fold {
		cs = append(cs, fmt.Sprintf("%d%s <= p%s < %d%s + %d", f, axisNames[i], axisNames[i], f, axisNames[i], f))
	}
	return "{ [x, y, z] -> [px, py, pz] : " + strings.Join(cs, " and ") + " }"
}

// FoldAccess returns access a of the lattice point f·t + j in the thread
// coordinates t: x → f0·x + j0, y → f1·y + j1, z → f2·z + j2 (thread
// folding; Launch.ThreadAccess places the points by the launch's tiling).
func FoldAccess(a Access, fold, j [3]int64) (Access, error) {
	return Launch{Fold: fold}.ThreadAccess(a, j)
}

// FoldOffsets lists the point offsets j (0 ≤ j_i < fold[i]) of one
// thread's points, x fastest.
func FoldOffsets(fold [3]int64) [][3]int64 { return lattice.Box{Hi: fold}.Points() }
