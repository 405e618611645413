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

// TestNear checks that typos find their word and unrelated words nothing.
func TestNear(t *testing.T) {
	cmds := []string{"predict", "explore", "simulate", "layercond", "devices", "import"}
	if got := Near("predct", cmds, 2); !slices.Equal(got, []string{"predict"}) {
		t.Errorf("Near(predct) = %v", got)
	}
	if got := Near("Explroe", cmds, 2); !slices.Equal(got, []string{"explore"}) {
		t.Errorf("Near(Explroe) = %v", got)
	}
	if got := Near("banana", cmds, 2); len(got) != 0 {
		t.Errorf("Near(banana) = %v, want none", got)
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
