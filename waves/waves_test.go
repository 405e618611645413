package waves

import (
	"math/rand/v2"
	"testing"

	"github.com/polyvol/polyvol/footprint"
	"github.com/polyvol/polyvol/geometry"
	"github.com/polyvol/polyvol/isl"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/kernel/kerneltest"
	"github.com/polyvol/polyvol/lattice"
	"github.com/polyvol/polyvol/sets"
)

// stencilKernel returns a random small stencil-like kernel: one or two
// fields whose loads are offsets of (x, y, z), now and then strided,
// constant or transposed, and a store at (x, y, z).
func stencilKernel(t *testing.T, r *rand.Rand) *kernel.Kernel {
	dom := [3]int64{4 + r.Int64N(40), 1 + r.Int64N(12), 1 + r.Int64N(6)}
	return kerneltest.Kernel(t, r, kerneltest.Options{
		Domain:       dom,
		Fields:       2,
		Loads:        5,
		StoreAtPoint: true,
		Elements:     []int64{2, 4, 8, 16},
		Lead:         []kerneltest.Term{kerneltest.Offset, kerneltest.Offset, kerneltest.Offset, kerneltest.Offset, kerneltest.Stride, kerneltest.Constant},
		Transpose:    true,
		MaxOffset:    8,
		Margin:       [3]int64{dom[0] + 5, 7, dom[2] + 5},
	})
}

// TestCountEqualsISLSequence checks on random stencil kernels, launches and
// wave sizes, for both methods' shapes, both address spaces and
// granularities from a sector to a 512 KiB page, that Count's volumes (from
// the engine's counts of unions, by inclusion–exclusion) equal the counting
// sequence of spec §4.6 run on ISL sets built from the access maps
// (sets.Footprint) exactly, |X ∪ Y| included.
func TestCountEqualsISLSequence(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 4))
	ctx, err := isl.NewCtx()
	if err != nil {
		t.Fatal(err)
	}
	defer ctx.Close()
	cases := 80
	if testing.Short() {
		cases = 30
	}
	for c := range cases {
		k := stencilKernel(t, r)
		var block, fold [3]int64
		for d, limit := range [3]int{16, 4, 2} {
			block[d] = int64(1 + r.IntN(limit))
			fold[d] = min(k.Domain[d], int64(1+r.IntN(2)))
		}
		l := k.NewLaunch(block, fold)
		g := geometry.NewGeometry(l)
		W := 1 + r.Int64N(g.Blocks())
		exact := r.IntN(2) == 1 // the exact wave with clipping, or the reference's
		shape := ReferenceShape(g, W)
		if exact {
			shape = ExactShape(g, W)
		}
		e := &footprint.Engine{Mapper: &geometry.AccessMapper{Kernel: k, Geom: g, PointGuard: exact}}
		space := geometry.AddressSpace(r.IntN(2))
		gran := []int64{32, 128, 4096, 512 << 10}[r.IntN(4)]
		if space == geometry.MultiDimSpace {
			gran = []int64{32, 128}[r.IntN(2)]
		}
		got, err := CountVolumes(e, shape, space, func(bool) int64 { return gran })
		if err != nil {
			t.Fatalf("case %d: %v", c, err)
		}
		for _, v := range got {
			q := footprint.Request{Field: v.Field, Store: v.Store, Gran: gran, Space: space}
			sc := ctx.NewScope()
			want, err := countFieldSets(q, shape, func(threads []lattice.Box) (*isl.Set, error) {
				return sets.Footprint(sc, e.Mapper, q.Field, q.Store, q.Gran, q.Space, threads)
			})
			sc.Free()
			if err != nil {
				t.Fatalf("case %d: %v", c, err)
			}
			want.Multiplicity = v.Multiplicity
			// |X ∪ Y| lies between the larger set and the sum, and the
			// exact shape's y set holds its x set (one block row before
			// the wave contains the wave row's blocks before it).
			if v.OldXY < max(v.OldX, v.OldY) || v.OldXY > v.OldX+v.OldY || (exact && len(shape.Y) > 0 && v.OldXY != v.OldY) {
				t.Fatalf("case %d (exact wave %v): |X ∪ Y| = %d with |X| = %d, |Y| = %d", c, exact, v.OldXY, v.OldX, v.OldY)
			}
			if v != want {
				t.Fatalf("case %d (exact wave %v, block %v, fold %v, W %d, space %d, gran %d) field %d store %v:\n got  %+v\n want %+v",
					c, exact, block, fold, W, space, gran, v.Field, v.Store, v, want)
			}
		}
	}
	if n := ctx.LiveObjects(); n != 0 {
		t.Errorf("%d ISL objects leaked", n)
	}
}

// countFieldSets runs the counting sequence on ISL sets, the oracle of
// countFieldUnions: New = |A|, then
// for each layer L in x, y, z, Old = |F(L)|, Ov = |A ∩ F(L)| and
// A = A ∖ F(L); OldXY = |F(X ∪ Y)|. footprintOf returns F of a union of
// thread boxes.
func countFieldSets(q footprint.Request, shape Shape, footprintOf func([]lattice.Box) (*isl.Set, error)) (FieldVolumes, error) {
	v := FieldVolumes{Field: q.Field, Store: q.Store, Gran: q.Gran}
	a, err := footprintOf(shape.Current)
	if err != nil {
		return v, err
	}
	if v.New, err = sets.CountPoints(a); err != nil {
		return v, err
	}
	if xy := append(append([]lattice.Box(nil), shape.X...), shape.Y...); len(xy) > 0 {
		l, err := footprintOf(xy)
		if err != nil {
			return v, err
		}
		if v.OldXY, err = sets.CountPoints(l); err != nil {
			return v, err
		}
	}
	for _, layer := range []struct {
		threads  []lattice.Box
		old, ovl *int64
	}{{shape.X, &v.OldX, &v.OvX}, {shape.Y, &v.OldY, &v.OvY}, {shape.Z, &v.OldZ, &v.OvZ}} {
		if len(layer.threads) == 0 {
			continue
		}
		l, err := footprintOf(layer.threads)
		if err != nil {
			return v, err
		}
		if *layer.old, err = sets.CountPoints(l); err != nil {
			return v, err
		}
		common, err := a.Intersect(l)
		if err != nil {
			return v, err
		}
		if *layer.ovl, err = sets.CountPoints(common); err != nil {
			return v, err
		}
		if a, err = a.Subtract(l); err != nil {
			return v, err
		}
	}
	return v, nil
}
