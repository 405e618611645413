package request

import (
	"testing"

	"github.com/polyvol/polyvol/explore"
)

// FuzzSweepParsers checks that --folds and --tiles values either parse
// into what explore can use (folds of positive entries without repeats,
// tilings explore.Configurations accepts) or fail with an input error
// naming the key, never a panic.
func FuzzSweepParsers(f *testing.F) {
	for _, s := range []string{"1,1,1:1,2,1:1,1,2", "1,1,1:1,1,1", "2", "", ":", "consecutive,strided", "strided", "strided, consecutive", "strided,strided", "consecutive,"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if tilings, err := parseTilings(s); err == nil {
			if _, err := explore.Configurations([]int{2}, nil, tilings, [3]int64{}, true); err != nil || len(tilings) == 0 {
				t.Fatalf("--tiles %q: accepted %v, which explore refuses: %v", s, tilings, err)
			}
		} else if KindOf(err) != KindInput || FieldOf(err) != "tiles" {
			t.Fatalf("--tiles %q: error %v is not an input error of tiles", s, err)
		}
		if folds, err := parseFolds(s); err == nil {
			seen := map[[3]int64]bool{}
			for _, fo := range folds {
				if fo[0] < 1 || fo[1] < 1 || fo[2] < 1 || seen[fo] {
					t.Fatalf("--folds %q: accepted %v", s, folds)
				}
				seen[fo] = true
			}
		} else if KindOf(err) != KindInput || FieldOf(err) != "folds" {
			t.Fatalf("--folds %q: error %v is not an input error of folds", s, err)
		}
	})
}
