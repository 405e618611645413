package importer

import (
	"strconv"
	"testing"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/model"
	"github.com/polyvol/polyvol/relation"
)

// FuzzSpecMap puts a fuzzed raw ISL map into a spec's load_isl, loads it
// with the relation reader as the CLI does, and estimates what loads: ISL must
// answer every text with a map or an error, never a crash, a hang or
// unbounded memory. The seeds include the texts that made libisl divide by
// zero.
func FuzzSpecMap(f *testing.F) {
	for _, s := range []string{
		"{ [x, y, z] -> A[x, y, z] }",
		"{ [x, y] -> A[x + 1, 2y] : x >= 1 }",
		"{ [x] -> A[floor(x/4), x mod 4] }",
		"{ [x, y, z] -> A[x, y, z] : x < 5 // 0 }",
		"{ [i] -> A[i] : 0 <= i < 1//0 }",
		"[N] -> { [x] -> A[x] : x < N }",
		"{ [x, y, z] -> A[o0, y, z] : exists (e : o0 = 2e and x <= o0 <= x + 1) }",
	} {
		f.Add(s)
	}
	dev, err := device.Lookup("A100-40GB")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, src string) {
		spec := "name: fuzz\ndomain: [64, 16, 4]\nflops: 1\nfields:\n  - name: A\n    element: 8\n    load_isl:\n      - " + strconv.Quote(src) + "\n"
		k, err := kernel.Parse([]byte(spec), "fuzz.yaml", relation.Option())
		if err != nil {
			return
		}
		l := k.NewLaunch([3]int64{32, 2, 1}, kernel.NoFold)
		if rep, err := model.Estimate(k, l, dev, model.Options{WorkBound: 200_000}); err == nil && rep == nil {
			t.Fatalf("%q: no report and no error", src)
		}
	})
}
