package relation

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/polyvol/polyvol/isl"
	"github.com/polyvol/polyvol/kernel"
)

// randomISLMap returns a random access map in ISL notation: one or two
// pieces over inputs named i, j, k, each output an affine or quasi-affine
// expression in ISL syntax (implicit products, mod, floor) or a name bounded
// by a range of constant width or an equality, in one to three disjuncts.
func randomISLMap(r *rand.Rand) string {
	ins := []string{"i", "j", "k"}
	expr := func() string {
		v, w := ins[r.IntN(3)], ins[r.IntN(3)]
		switch r.IntN(6) {
		case 0:
			return fmt.Sprintf("%d%s + %d", 1+r.IntN(27), v, r.IntN(9)-4)
		case 1:
			return fmt.Sprintf("floor((%s + %s)/%d)", v, w, 2+r.IntN(4))
		case 2:
			return fmt.Sprintf("(%s) mod %d + 3%s", v, 2+r.IntN(5), w)
		case 3:
			return fmt.Sprintf("-%s + 2*%s", v, w)
		}
		return v
	}
	var pieces []string
	nout := 1 + r.IntN(3)
	for range 1 + r.IntN(2) {
		var outs, ranged []string
		for d := range nout {
			if r.IntN(2) == 0 {
				o := fmt.Sprintf("o%d", d)
				outs = append(outs, o)
				ranged = append(ranged, o)
				continue
			}
			outs = append(outs, expr())
		}
		// One to three disjuncts, each bounding every ranged output.
		var disjuncts []string
		for range 1 + r.IntN(3) {
			var cons []string
			for _, o := range ranged {
				if r.IntN(2) == 0 {
					lo := expr()
					cons = append(cons, fmt.Sprintf("%s <= %s < %s + %d", lo, o, lo, 1+r.IntN(4)))
				} else {
					cons = append(cons, fmt.Sprintf("%s = %s", o, expr()))
				}
			}
			if r.IntN(3) == 0 { // a constraint on the lattice point, as compilers state the domain
				cons = append(cons, fmt.Sprintf("%s <= %d", ins[r.IntN(3)], 40+r.IntN(9)), fmt.Sprintf("%d < %s + %s", -11-r.IntN(9), ins[r.IntN(3)], ins[r.IntN(3)]))
			}
			if len(cons) > 0 {
				disjuncts = append(disjuncts, strings.Join(cons, " and "))
			}
		}
		p := fmt.Sprintf("S[i, j, k] -> A[%s]", strings.Join(outs, ", "))
		if len(disjuncts) > 0 {
			p += " : " + strings.Join(disjuncts, " or ")
		}
		pieces = append(pieces, p)
	}
	return "{ " + strings.Join(pieces, "; ") + " }"
}

// TestReadEqualsISL checks the conversion of ISL's reading of a map into
// index expressions and guards against ISL itself: on random maps, the
// union of the accesses Read returns, each restricted by its guards and
// rendered as an ISL map, equals the map on the domain.
func TestReadEqualsISL(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 31))
	ctx, err := isl.NewCtx()
	if err != nil {
		t.Fatal(err)
	}
	defer ctx.Close()
	site := kernel.MapSite{Dims: 3, Domain: [3]int64{41, 8, 5}}
	box := "{ S[i, j, k] : 0 <= i <= 40 and 0 <= j <= 7 and 0 <= k <= 4 }"
	modelled := 0
	for c := range 300 {
		src := randomISLMap(r)
		accs, err := Read(src, site)
		var um *kernel.UnmodelledMapError
		if errors.As(err, &um) {
			continue // checked below: every random map has a modelled form
		}
		if err != nil {
			t.Fatalf("case %d: %s: %v", c, src, err)
		}
		modelled++
		nout := strings.Count(strings.SplitN(strings.SplitN(src, "A[", 2)[1], "]", 2)[0], ",") + 1
		var parts []string
		for _, a := range accs {
			idx := []string{a.Index[0].ISL(), a.Index[1].ISL(), a.Index[2].ISL()}[:nout]
			p := fmt.Sprintf("S[x, y, z] -> A[%s]", strings.Join(idx, ", "))
			var conds []string
			for _, g := range a.Guards {
				conds = append(conds, g.ISL()+" >= 0")
			}
			if len(conds) > 0 {
				p += " : " + strings.Join(conds, " and ")
			}
			parts = append(parts, p)
		}
		func() {
			sc := ctx.NewScope()
			defer sc.Free()
			want, err := sc.ReadMap(src)
			if err != nil {
				t.Fatalf("case %d: ISL cannot read %s: %v", c, src, err)
			}
			got, err := sc.ReadMap("{ " + strings.Join(parts, "; ") + " }")
			if err != nil {
				t.Fatalf("case %d: %v", c, err)
			}
			dom, err := sc.ReadSet(box)
			if err != nil {
				t.Fatal(err)
			}
			if want, err = want.IntersectDomain(dom); err != nil {
				t.Fatal(err)
			}
			if got, err = got.IntersectDomain(dom); err != nil {
				t.Fatal(err)
			}
			if eq, err := got.IsEqual(want); err != nil || !eq {
				t.Fatalf("case %d: %s\n converted to %v\n ISL: %s\n ours: %s", c, src, accs, want, got)
			}
		}()
	}
	if modelled < 250 {
		t.Errorf("only %d of 300 random maps were modelled", modelled)
	}
	if n := ctx.LiveObjects(); n != 0 {
		t.Errorf("%d ISL objects leaked", n)
	}
	if n := isl.LiveObjects(); n != 0 {
		t.Errorf("%d ISL objects live after Read", n)
	}
}
