package sets

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/polyvol/polyvol/geometry"
	"github.com/polyvol/polyvol/intmath"
	"github.com/polyvol/polyvol/isl"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/lattice"
)

// randomExpr returns a random quasi-affine index expression over the
// coordinate v (x, y or z).
func randomExpr(r *rand.Rand, v string) string {
	o := r.IntN(7) - 3
	switch r.IntN(6) {
	case 0:
		return fmt.Sprintf("%d*%s + %d", 1+r.IntN(3), v, o)
	case 1:
		return fmt.Sprintf("floor(%s / %d) + %d", v, 2+r.IntN(3), o)
	case 2:
		return fmt.Sprintf("%s %% %d + %d", v, 2+r.IntN(4), o)
	default:
		return fmt.Sprintf("%s + %d", v, o)
	}
}

// randomKernel returns a random small kernel spec with one or two fields.
func randomKernel(t *testing.T, r *rand.Rand) *kernel.Kernel {
	t.Helper()
	dom := [3]int{1 + r.IntN(30), 1 + r.IntN(9), 1 + r.IntN(5)}
	var b strings.Builder
	fmt.Fprintf(&b, "name: rnd\ndomain: [%d, %d, %d]\nfields:\n", dom[0], dom[1], dom[2])
	elems := []int{1, 2, 4, 8, 16}
	for fi := 0; fi < 1+r.IntN(2); fi++ {
		ext := [3]int{dom[0] + r.IntN(9), dom[1] + r.IntN(4), dom[2] + r.IntN(3)}
		if r.IntN(3) == 0 { // rows whose byte length is a multiple of the granularity
			ext[0] = 64
		}
		fmt.Fprintf(&b, "  - name: F%d\n    element: %d\n    offset: %d\n    extent: [%d, %d, %d]\n    load:\n",
			fi, elems[r.IntN(len(elems))], r.IntN(6), ext[0], ext[1], ext[2])
		for a := 0; a < 1+r.IntN(4); a++ {
			vars := []string{"x", "y", "z"}
			if r.IntN(4) == 0 { // a transposed access
				vars[0], vars[1] = vars[1], vars[0]
			}
			fmt.Fprintf(&b, "      - [%s, %s, %s]\n", randomExpr(r, vars[0]), randomExpr(r, vars[1]), randomExpr(r, vars[2]))
		}
	}
	k, err := kernel.Parse([]byte(b.String()), "random.yaml")
	if err != nil {
		t.Fatalf("random kernel: %v\n%s", err, b.String())
	}
	return k
}

// visitAccesses calls visit for every load of field fi at every lattice
// point of the threads in boxes (inside the domain when m guards points).
func visitAccesses(m *geometry.AccessMapper, fi int, boxes []lattice.Box, visit func(a kernel.Access, p kernel.Point)) {
	for _, box := range boxes {
		for x := box.Lo[0]; x < box.Hi[0]; x++ {
			for y := box.Lo[1]; y < box.Hi[1]; y++ {
				for z := box.Lo[2]; z < box.Hi[2]; z++ {
					for _, j := range kernel.FoldOffsets(m.Geom.Fold) {
						p := kernel.Point{m.Geom.Fold[0]*x + j[0], m.Geom.Fold[1]*y + j[1], m.Geom.Fold[2]*z + j[2]}
						if m.PointGuard && (p[0] >= m.Geom.Domain[0] || p[1] >= m.Geom.Domain[1] || p[2] >= m.Geom.Domain[2]) {
							continue
						}
						for _, a := range m.Kernel.Fields[fi].Loads {
							visit(a, p)
						}
					}
				}
			}
		}
	}
}

// randomThreads returns an AccessMapper for a random launch of k (blocks up to
// 8×4×maxZ threads, folds up to 2×2×1, the point guard on or off) and one or
// two random boxes of its threads.
func randomThreads(r *rand.Rand, k *kernel.Kernel, maxZ int) (*geometry.AccessMapper, []lattice.Box) {
	l := k.NewLaunch([3]int64{1 + int64(r.IntN(8)), 1 + int64(r.IntN(4)), 1 + int64(r.IntN(maxZ))},
		[3]int64{1 + int64(r.IntN(2)), 1 + int64(r.IntN(2)), 1})
	m := &geometry.AccessMapper{Kernel: k, Geom: geometry.NewGeometry(l), PointGuard: r.IntN(2) == 0}
	grid := m.Geom.GridThreads()
	var boxes []lattice.Box
	for range 1 + r.IntN(2) {
		var b lattice.Box
		for i := range 3 {
			b.Lo[i] = int64(r.IntN(int(grid.Hi[i])))
			b.Hi[i] = b.Lo[i] + 1 + int64(r.IntN(int(grid.Hi[i]-b.Lo[i])))
		}
		boxes = append(boxes, b)
	}
	return m, boxes
}

// enumeratedFootprint evaluates the accesses point by point: the oracle.
func enumeratedFootprint(m *geometry.AccessMapper, fi int, gran int64, space geometry.AddressSpace, boxes []lattice.Box) []string {
	f := m.Kernel.Fields[fi]
	tuple := TupleName(m.Kernel, fi, false)
	seen := map[string]bool{}
	visitAccesses(m, fi, boxes, func(a kernel.Access, p kernel.Point) {
		var key string
		if space == geometry.MultiDimSpace {
			key = fmt.Sprintf("%s[%d, %d, %d]", tuple, intmath.FloorDiv(a.Index[0].Eval(p), gran/f.Element), a.Index[1].Eval(p), a.Index[2].Eval(p))
		} else {
			addr := f.ByteAddress(a, p)
			for g := intmath.FloorDiv(addr, gran); g <= intmath.FloorDiv(addr+f.Element-1, gran); g++ {
				seen[fmt.Sprintf("%s[%d]", tuple, g)] = true
			}
			return
		}
		seen[key] = true
	})
	out := make([]string, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestFootprintEqualsEnumeration checks, on random kernels, launches and
// thread boxes, that the ISL image of the threads under each access map is
// exactly the set of granules obtained by evaluating the expressions point by
// point, in both address spaces and with and without the point guard.
func TestFootprintEqualsEnumeration(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	ctx, err := isl.NewCtx()
	if err != nil {
		t.Fatal(err)
	}
	defer ctx.Close()
	cases := 150
	if testing.Short() {
		cases = 40
	}
	for c := range cases {
		k := randomKernel(t, r)
		m, boxes := randomThreads(r, k, 2)
		gran := []int64{4, 12, 32, 64, 128}[r.IntN(5)]
		space := geometry.AddressSpace(r.IntN(2))
		if space == geometry.MultiDimSpace {
			gran = 32 << r.IntN(3)
		}
		for fi := range k.Fields {
			func() {
				sc := ctx.NewScope()
				defer sc.Free()
				got, err := Footprint(sc, m, fi, false, gran, space, boxes)
				if err != nil {
					t.Fatalf("case %d: %v", c, err)
				}
				pts := enumeratedFootprint(m, fi, gran, space, boxes)
				tuple := TupleName(k, fi, false)
				wantStr := "{ " + strings.Join(pts, "; ") + " }"
				if len(pts) == 0 {
					wantStr = "{ " + tuple + "[g] : 1 = 0 }"
				}
				want, err := sc.ReadSet(wantStr)
				if err != nil {
					t.Fatalf("case %d: oracle set: %v", c, err)
				}
				if len(pts) == 0 {
					if empty, _ := got.IsEmpty(); !empty {
						t.Fatalf("case %d field %d: got %s, want empty", c, fi, got)
					}
					return
				}
				if eq, err := got.IsEqual(want); err != nil || !eq {
					t.Fatalf("case %d field %d gran %d space %d guard %v boxes %v:\n got  %s\n want %d points %s\n kernel %+v",
						c, fi, gran, space, m.PointGuard, boxes, got, len(pts), want, k.Fields[fi])
				}
			}()
		}
	}
	if n := ctx.LiveObjects(); n != 0 {
		t.Fatalf("%d ISL objects leaked", n)
	}
}
