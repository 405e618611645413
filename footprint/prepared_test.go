package footprint

import (
	"math/rand/v2"
	"testing"

	"github.com/polyvol/polyvol/geometry"
	"github.com/polyvol/polyvol/lattice"
)

// TestCountGranulesReusesPreparedBoxes checks the counts of one engine,
// which keeps every box's prepared progressions, against enumeration when
// the same boxes come back in other unions, at other granularities and
// for the other side of the field, as a wave's thread sets do: random
// general kernels, the point guard on and off, granularities from 4 B to
// 512 KiB.
func TestCountGranulesReusesPreparedBoxes(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 23))
	grans := []int64{4, 8, 12, 32, 128, 4096, 512 << 10}
	compared := 0
	for c := range 120 {
		domain := [3]int64{int64(3 + r.IntN(30)), int64(1 + r.IntN(9)), int64(1 + r.IntN(5))}
		k := parseKernel(t, generalSpec(r, domain))
		e := randomEngine(r, k)
		sets := [][]lattice.Box{randomThreads(r, e), randomThreads(r, e), randomThreads(r, e)}
		for range 12 {
			fi := r.IntN(len(k.Fields))
			store := r.IntN(2) == 0
			if len(k.Fields[fi].Accesses(store)) == 0 {
				continue
			}
			q := Request{Field: fi, Store: store, Gran: grans[r.IntN(len(grans))], Space: geometry.LinearSpace}
			var union []lattice.Box
			mask := 1 + r.IntN(7) // a non-empty union of the sets
			for i, s := range sets {
				if mask&(1<<i) != 0 {
					union = append(union, s...)
				}
			}
			got, err := e.CountGranules(q, union)
			if err != nil {
				t.Fatal(err)
			}
			if want := int64(len(enumerate(e, q, union))); got != want {
				t.Fatalf("case %d field %d store %v gran %d guard %v threads %v: CountGranules %d, enumeration %d\n%s",
					c, fi, store, q.Gran, e.Mapper.PointGuard, union, got, want, generalSpecOf(k))
			}
			compared++
		}
	}
	t.Logf("%d counts compared", compared)
}
