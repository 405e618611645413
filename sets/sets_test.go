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
	"github.com/polyvol/polyvol/kernel/kerneltest"
	"github.com/polyvol/polyvol/lattice"
)

// randomKernel returns a random small kernel with one or two fields of
// loads whose indices are quasi-affine: neighbours, strides, floor and
// modulo terms, now and then transposed, some rows a multiple of the
// granularity long.
func randomKernel(t *testing.T, r *rand.Rand) *kernel.Kernel {
	return kerneltest.Kernel(t, r, kerneltest.Options{
		Domain:     [3]int64{1 + r.Int64N(30), 1 + r.Int64N(9), 1 + r.Int64N(5)},
		Fields:     2,
		Loads:      4,
		Lead:       []kerneltest.Term{kerneltest.Offset, kerneltest.Offset, kerneltest.Offset, kerneltest.Stride, kerneltest.Floor, kerneltest.Mod},
		MaxShift:   3,
		Strides:    []int64{1, 2, 3},
		MaxDivisor: 5,
		Transpose:  true,
		MaxOffset:  5,
		Margin:     [3]int64{8, 3, 2},
		Rows:       []int64{64},
	})
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
