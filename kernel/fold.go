package kernel

import (
	"fmt"
	"strings"
)

// FoldAccesses rewrites accesses from lattice coordinates to thread
// coordinates for a thread that covers fold[i] consecutive points per
// dimension: for every j with 0 ≤ j_i < fold[i] it substitutes
// x → fold[0]·x + j0, y → fold[1]·y + j1, z → fold[2]·z + j2
// (docs/method.md). The result holds the accesses of all points of a
// thread, with canonical duplicates removed, ordered by j (x fastest) and
// then by the input order.
func FoldAccesses(accesses []Access, fold [3]int64) ([]Access, error) {
	for i, f := range fold {
		if f < 1 {
			return nil, fmt.Errorf("fold %s = %d: must be at least 1", axisNames[i], f)
		}
	}
	var out []Access
	for jz := range fold[2] {
		for jy := range fold[1] {
			for jx := range fold[0] {
				j := [3]int64{jx, jy, jz}
				for _, a := range accesses {
					b, err := FoldAccess(a, fold, j)
					if err != nil {
						return nil, err
					}
					b.Text = fmt.Sprintf("%s at point offset %v", a.Text, j)
					out = append(out, b)
				}
			}
		}
	}
	return Dedup(out), nil
}

// Fold returns a copy of k whose load and store accesses are in thread
// coordinates for the given fold (see FoldAccesses) and whose Flops are per
// thread (FlopsPerThread). Domain stays in lattice points. Raw ISL maps are
// copied unchanged: compose them with FoldRelationISL to fold them.
func (k *Kernel) Fold(fold [3]int64) (*Kernel, error) {
	c := *k
	c.Flops = k.FlopsPerThread(fold)
	c.Fields = make([]*Field, len(k.Fields))
	for i, f := range k.Fields {
		g := *f
		var err error
		if g.Loads, err = FoldAccesses(f.Loads, fold); err != nil {
			return nil, fmt.Errorf("field %q: %w", f.Name, err)
		}
		if g.Stores, err = FoldAccesses(f.Stores, fold); err != nil {
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
// coordinates t: x → f0·x + j0, y → f1·y + j1, z → f2·z + j2.
func FoldAccess(a Access, fold, j [3]int64) (Access, error) {
	var sub [3]Expr
	for i := range sub {
		s, err := Var(i).Scale(fold[i])
		if err == nil {
			sub[i], err = s.Add(Const(j[i]))
		}
		if err != nil {
			return Access{}, err
		}
	}
	out := Access{Text: a.Text}
	for i, e := range a.Index {
		var err error
		if out.Index[i], err = e.Substitute(sub); err != nil {
			return Access{}, fmt.Errorf("access %s folded by %v at point offset %v: %w", a.Text, fold, j, err)
		}
	}
	return out, nil
}
