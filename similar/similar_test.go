package similar

import (
	"slices"
	"testing"
)

func TestInfixDistance(t *testing.T) {
	for _, tc := range []struct {
		q, m string
		want int
	}{
		{"", "abc", 0},
		{"abc", "", 3},
		{"mi250", "mi250x", 0},
		{"rtx4080", "nvidiageforcertx4090", 1},
		{"a100x", "a100", 1},
		{"h100nvl", "h100sxm", 3},
	} {
		if got := InfixDistance(tc.q, tc.m); got != tc.want {
			t.Errorf("InfixDistance(%q, %q) = %d, want %d", tc.q, tc.m, got, tc.want)
		}
	}
}

// TestEditDistance checks hand-counted Levenshtein distances.
func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"predct", "predict", 1}, {"devcie", "device", 2}, {"kitten", "sitting", 3}, {"abc", "", 3},
	} {
		if got := EditDistance(tc.a, tc.b); got != tc.want {
			t.Errorf("EditDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

// TestSwapEditDistance checks hand-counted distances in which an adjacent
// swap is one edit.
func TestSwapEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"jsno", "json", 1}, {"explroe", "explore", 1}, {"predct", "predict", 1}, {"ca", "abc", 3}, {"kitten", "sitting", 3},
	} {
		if got := SwapEditDistance(tc.a, tc.b); got != tc.want {
			t.Errorf("SwapEditDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

// TestTypos checks that typos find their word and unrelated words nothing.
func TestTypos(t *testing.T) {
	cmds := []string{"predict", "explore", "simulate", "layercond", "devices", "import"}
	if got := Typos("predct", cmds); !slices.Equal(got, []string{"predict"}) {
		t.Errorf("Typos(predct) = %v", got)
	}
	if got := Typos("Explroe", cmds); !slices.Equal(got, []string{"explore"}) {
		t.Errorf("Typos(Explroe) = %v", got)
	}
	if got := Typos("banana", cmds); len(got) != 0 {
		t.Errorf("Typos(banana) = %v, want none", got)
	}
	if got := Typos("jsno", []string{"table", "json", "csv"}); !slices.Equal(got, []string{"json"}) {
		t.Errorf("Typos(jsno) = %v, want json: a swap is one edit", got)
	}
	if got := Typos("cvs", []string{"table", "json", "csv"}); !slices.Equal(got, []string{"csv"}) {
		t.Errorf("Typos(cvs) = %v, want csv", got)
	}
	if got := Typos("ab", []string{"ac", "ba"}); len(got) != 0 {
		t.Errorf("Typos(ab) = %v, want none: a two-letter word is one edit from too much", got)
	}
}

// TestDidYouMean checks the message ending for a typo one edit from two
// names (and two from a third, which it leaves out) and for a word that
// resembles none.
func TestDidYouMean(t *testing.T) {
	names := []string{"star2d-r1", "star3d-r1", "star3d-r4", "hotspot"}
	if got, want := DidYouMean("star3d-r5", names), "; did you mean star3d-r1 or star3d-r4?"; got != want {
		t.Errorf("DidYouMean(star3d-r5) = %q, want %q", got, want)
	}
	if got := DidYouMean("lbm", names); got != "" {
		t.Errorf("DidYouMean(lbm) = %q, want none", got)
	}
}

// TestClosestOrder checks the ranking rules on names like the device
// database's.
func TestClosestOrder(t *testing.T) {
	cands := []Candidate{
		{"A100-40GB", []string{"A100-40GB", "A100"}}, {"A100-80GB", []string{"A100-80GB"}},
		{"H100-SXM", []string{"H100-SXM", "H100"}}, {"MI250X", []string{"MI250X"}}, {"MI210", []string{"MI210"}},
	}
	for _, tc := range []struct{ q, first string }{{"a100x", "A100-40GB"}, {"mi250", "MI250X"}, {"h100 sxm5", "H100-SXM"}} {
		if got := Closest(tc.q, cands, 3); len(got) != 3 || got[0] != tc.first {
			t.Errorf("Closest(%q) = %v, want %s first", tc.q, got, tc.first)
		}
	}
}
