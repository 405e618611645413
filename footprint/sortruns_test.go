package footprint

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortRunsEqualsSort sorts random byte ranges, given as runs of
// random lengths, some in order and some not, with sortRuns and with one
// sort of the whole, and checks that the first bytes come in the same
// order and that joinRanges makes the same union of the two at several
// granularities.
func TestSortRunsEqualsSort(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 17))
	for c := range 2000 {
		var ranges []byteRange
		var ends []int
		for range 1 + r.IntN(9) {
			base := int64(r.IntN(400) - 200)
			for k := range r.IntN(30) {
				first := base + int64(k*r.IntN(12))
				if r.IntN(3) == 0 {
					first = int64(r.IntN(600) - 300)
				}
				ranges = append(ranges, byteRange{first, first + int64(r.IntN(20))})
			}
			ends = append(ends, len(ranges))
		}
		want := slices.Clone(ranges)
		slices.SortFunc(want, byFirst)
		got := sortRuns(slices.Clone(ranges), ends)
		if len(got) != len(want) {
			t.Fatalf("case %d: %d ranges, want %d", c, len(got), len(want))
		}
		for i := range got {
			if got[i].first != want[i].first {
				t.Fatalf("case %d: range %d starts at %d, want %d\n%v\nwant\n%v", c, i, got[i].first, want[i].first, got, want)
			}
		}
		for _, gran := range []int64{1, 4, 32} {
			if g, w := joinRanges(nil, got, gran), joinRanges(nil, want, gran); !slices.Equal(g, w) {
				t.Fatalf("case %d gran %d: joined %v, want %v", c, gran, g, w)
			}
		}
	}
}
