package sets

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/polyvol/polyvol/isl"
)

// randomSetText returns a random union of boxes, strided and skewed pieces,
// the shapes the engine's footprints are made of plus shapes the box path
// must hand to ISL.
func randomSetText(r *rand.Rand) string {
	var parts []string
	for range 1 + r.IntN(6) {
		lo := [3]int{r.IntN(40) - 20, r.IntN(40) - 20, r.IntN(10) - 5}
		ext := [3]int{r.IntN(60), r.IntN(30), r.IntN(8)}
		c := fmt.Sprintf("%d <= a <= %d and %d <= b <= %d and %d <= c <= %d",
			lo[0], lo[0]+ext[0], lo[1], lo[1]+ext[1], lo[2], lo[2]+ext[2])
		switch r.IntN(5) {
		case 0:
			c += fmt.Sprintf(" and a mod %d = %d", 2+r.IntN(3), r.IntN(2))
		case 1:
			c += fmt.Sprintf(" and a + b <= %d", r.IntN(40))
		case 2:
			c += fmt.Sprintf(" and %d*b >= a - %d", 1+r.IntN(3), r.IntN(5))
		}
		parts = append(parts, "S[a, b, c] : "+c)
	}
	return "{ " + strings.Join(parts, "; ") + " }"
}

// TestCountEqualsCountVal checks on thousands of random sets that the
// box-splitting count equals isl_set_count_val exactly.
func TestCountEqualsCountVal(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	ctx, err := isl.NewCtx()
	if err != nil {
		t.Fatal(err)
	}
	defer ctx.Close()
	cases := 2000
	if testing.Short() {
		cases = 300
	}
	for c := range cases {
		sc := ctx.NewScope()
		text := randomSetText(r)
		s, err := sc.ReadSet(text)
		if err != nil {
			t.Fatalf("case %d: %v", c, err)
		}
		want, err := s.CountVal()
		if err != nil {
			t.Fatal(err)
		}
		got, err := CountPoints(s)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("case %d: Count = %d, CountVal = %d for %s", c, got, want, text)
		}
		sc.Free()
	}
	if n := ctx.LiveObjects(); n != 0 {
		t.Fatalf("%d ISL objects leaked", n)
	}
}

// TestCountHugeBox checks the count of a box whose extent is far beyond what
// enumeration could handle, against the product of its extents.
func TestCountHugeBox(t *testing.T) {
	ctx, err := isl.NewCtx()
	if err != nil {
		t.Fatal(err)
	}
	defer ctx.Close()
	sc := ctx.NewScope()
	defer sc.Free()
	s, err := sc.BoxSet("T", []int64{0, -5, 7}, []int64{63999, 51199, 518})
	if err != nil {
		t.Fatal(err)
	}
	got, err := CountPoints(s)
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(64000 * 51205 * 512); got != want {
		t.Fatalf("Count = %d, want %d", got, want)
	}
}
