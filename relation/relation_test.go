package relation

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/polyvol/polyvol/kernel"
)

// site1 and site3 are a 1D and a 3D lattice.
var (
	site1 = kernel.MapSite{Dims: 1, Domain: [3]int64{1000, 1, 1}}
	site3 = kernel.MapSite{Dims: 3, Domain: [3]int64{64, 32, 16}}
)

// tuples returns the accesses' index tuples, sorted.
func tuples(accs []kernel.Access) []string {
	var out []string
	for _, a := range accs {
		out = append(out, a.String())
	}
	slices.Sort(out)
	return out
}

// TestReadTuples checks maps against the index tuples they stand for,
// worked out by hand; among them ISL's own normal forms of modulo and
// floor accesses, which a reader of ISL notation must take back.
func TestReadTuples(t *testing.T) {
	cases := []struct {
		src  string
		site kernel.MapSite
		want []string
	}{
		{"{ [x, y, z] -> A[x, y + 1] }", site3, []string{"(x, y + 1, 0)"}},
		{"{ S[i, j, k] -> A[27i + 3, j - 1, k] }", site3, []string{"(27*x + 3, y - 1, z)"}},
		// 12*floor(x/4) + x mod 4 = 3*(x - x mod 4) + x mod 4.
		{"{ [x, y, z] -> A[12*floor(x/4) + x mod 4 + 8, y] }", site3, []string{"(3*x - 2*(x % 4) + 8, y, 0)"}},
		{"{ [x] -> A[x - 1]; [x] -> A[x + 1] }", site1, []string{"(x + 1, 0, 0)", "(x - 1, 0, 0)"}},
		// A point that touches a range of elements: one access per element.
		{"{ [x, y, z] -> A[i, y, z] : x <= i < x + 3 }", site3, []string{"(x + 1, y, z)", "(x + 2, y, z)", "(x, y, z)"}},
		{"{ [x] -> A[i] : 3 + 2x >= i > 2x }", site1, []string{"(2*x + 1, 0, 0)", "(2*x + 2, 0, 0)", "(2*x + 3, 0, 0)"}},
		{"{ [x, y] -> A[i, j] : i = x + 1 and y <= j <= y + 1 }", kernel.MapSite{Dims: 2, Domain: [3]int64{64, 64, 1}}, []string{"(x + 1, y + 1, 0)", "(x + 1, y, 0)"}},
		// Modulo and floor, as written and in the forms ISL prints them.
		{"{ [x] -> A[x % 127] }", site1, []string{"(x % 127, 0, 0)"}},
		{"{ [x] -> A[o0] : (-x + o0) mod 127 = 0 and 0 <= o0 <= 126 }", site1, []string{"(x % 127, 0, 0)"}},
		{"{ [x] -> B[floor(x/127)] }", site1, []string{"(floor(x/127), 0, 0)"}},
		{"{ [x] -> B[o0] : -126 + x <= 127o0 <= x }", site1, []string{"(floor(x/127), 0, 0)"}},
		// Two pieces that meet at one point of the domain: the second is
		// guarded to it.
		{"{ [x] -> A[x] : x <= 782; [x] -> A[0] : x = 783 }", site1, []string{"(0, 0, 0)", "(x, 0, 0)"}},
		// Duplicates collapse.
		{"{ [x] -> A[x]; [x] -> A[i] : x <= i <= x }", site1, []string{"(x, 0, 0)"}},
		// Parameters bound by the site.
		{"[N] -> { [x] -> A[x + N] }", kernel.MapSite{Dims: 1, Domain: [3]int64{64, 1, 1}, Params: map[string]int64{"N": 5}}, []string{"(x + 5, 0, 0)"}},
	}
	for _, c := range cases {
		accs, err := Read(c.src, c.site)
		if err != nil {
			t.Errorf("%s: %v", c.src, err)
			continue
		}
		for _, a := range accs {
			if a.Text != c.src {
				t.Errorf("%s: access text %q, want the map", c.src, a.Text)
			}
		}
		if got := tuples(accs); !slices.Equal(got, c.want) {
			t.Errorf("%s:\n got  %v\n want %v", c.src, got, c.want)
		}
	}
}

// TestReadGuards checks that the conditions a map states on the lattice
// point become guards g >= 0, whatever the domain, and that the access is
// partial exactly where they leave points of the domain out.
func TestReadGuards(t *testing.T) {
	for _, c := range []struct {
		src     string
		site    kernel.MapSite
		want    string
		partial bool
	}{
		{"{ S[i] -> A[i + 1] : 0 <= i < 16 }", site1, "-x + 15; x", true},
		{"{ S[i] -> A[i + 1] : 0 <= i < 16 }", kernel.MapSite{Dims: 1, Domain: [3]int64{16, 1, 1}}, "-x + 15; x", false},
		{"{ [x, y, z] -> A[x, y] : 2 <= y and z <= 9 }", site3, "-z + 9; y - 2", true},
		{"[N] -> { [x] -> A[x] : x < N - 1 }", kernel.MapSite{Dims: 1, Domain: [3]int64{64, 1, 1}, Params: map[string]int64{"N": 11}}, "-x + 9", true},
		{"{ [x] -> A[x] }", site1, "", false},
	} {
		accs, err := Read(c.src, c.site)
		if err != nil || len(accs) != 1 {
			t.Fatalf("%s: %v, %v", c.src, accs, err)
		}
		var got []string
		for _, g := range accs[0].Guards {
			got = append(got, g.String())
		}
		slices.Sort(got)
		if strings.Join(got, "; ") != c.want {
			t.Errorf("%s: guards %q, want %q", c.src, got, c.want)
		}
		if _, partial, err := accs[0].Partial(c.site.Domain); err != nil || partial != c.partial {
			t.Errorf("%s: partial %v (%v), want %v", c.src, partial, err, c.partial)
		}
	}
}

// TestReadErrors checks that invalid maps are errors that say what is
// wrong, and that valid maps with no index-expression form are
// UnmodelledMapErrors that say why, after binding the parameters.
func TestReadErrors(t *testing.T) {
	for _, c := range []struct {
		src, want string
		site      kernel.MapSite
	}{
		{"{ [x] -> A[x] ", "invalid ISL map", site1},
		{"{ [x] -> A[x*x] }", "invalid ISL map", site1},
		{"{ [x, y] -> A[x] }", "the map's input tuple has 2 coordinates, the domain 1; write one input per domain dimension, { [x] -> ... }", site1},
		{"{ [x] -> A[x, x, x, x] }", "output tuple has 4 entries", site1},
		{"[N, M] -> { [x] -> A[x + N + M] }", "parameters N, M are not bound; give their values in the spec (params: {N: ..., M: ...}) or with -D NAME=VALUE", site1},
	} {
		_, err := Read(c.src, c.site)
		var um *kernel.UnmodelledMapError
		if err == nil || errors.As(err, &um) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want an invalid-map error containing %q", c.src, err, c.want)
		}
	}
	for _, c := range []struct {
		src, want string
		site      kernel.MapSite
	}{
		{"{ [x] -> A[i] : x <= i < 2x }", "not the same offsets", site1},
		{"{ [x] -> A[i] }", "unbounded", site1},
		{"{ [x] -> A[i] : x <= i < x + 2000 }", "more than 1024", site1},
		{"[N] -> { [x] -> A[i] : x <= i < x + N }", "more than 1024", kernel.MapSite{Dims: 1, Domain: [3]int64{64, 1, 1}, Params: map[string]int64{"N": 4000}}},
	} {
		_, err := Read(c.src, c.site)
		var um *kernel.UnmodelledMapError
		if !errors.As(err, &um) || !strings.Contains(um.Reason, c.want) {
			t.Errorf("%s: error %v, want an unmodelled map because %q", c.src, err, c.want)
		}
	}
}

// FuzzRead checks that no map makes Read panic or leak ISL objects, and
// that every access it returns prints as a tuple the expression parser
// reads back to the same access.
func FuzzRead(f *testing.F) {
	for _, s := range []string{
		"{ [x, y, z] -> A[x, y + 1] }",
		"{ S[i, j, k] -> A[27i + 3, j - 1, k] }",
		"{ [x, y, z] -> A[12*floor(x/4) + x mod 4 + 8, y] }",
		"{ [x, y, z] -> A[i, y, z] : x <= i < x + 3 }",
		"[N] -> { [x, y, z] -> A[x + N] : x < N }",
		"{ [x, y, z] -> A[o0] : (-x + o0) mod 127 = 0 and 0 <= o0 <= 126 }",
		"{ [x, y, z] -> A[i] : x <= i < 2x }",
		// Comments, continuation lines, nesting and lists, as ISL reads them.
		"{ [x, y, z] -> A[x // #\n 2, y] }", "{ [x, y, z] -> A[x, y //\\\n2] }", "{ [x, y, z] -> A[((((x)))) + 1] # c\n }",
		"{ [x, y, z] -> A[x] : exists (#\n e0, e1 : x = 2e0 + e1 and 0 <= e1 < 2) }",
		"{ [x, y, z] -> A[x] : x < 3; [x, y, z] -> A[0] : x >= 3 }",
	} {
		f.Add(s)
	}
	site := kernel.MapSite{Dims: 3, Domain: [3]int64{64, 16, 4}, Params: map[string]int64{"N": 9}}
	f.Fuzz(func(t *testing.T, src string) {
		accs, err := Read(src, site)
		if err != nil {
			return
		}
		if len(accs) > MaxAccesses {
			t.Fatalf("%q: %d accesses", src, len(accs))
		}
		for _, a := range accs {
			for _, e := range append(a.Index[:], a.Guards...) {
				back, err := kernel.ParseExpr(e.String())
				if err != nil || !back.Equal(e) {
					t.Fatalf("%q: %s does not read back (%v)", src, e, err)
				}
			}
		}
	})
}
