package kernel

import (
	"reflect"
	"testing"
)

// TestLint checks the notes on hand-made kernels: the codes in the order
// Lint gives them and the numbers in their texts, counted by hand.
func TestLint(t *testing.T) {
	for _, tc := range []struct {
		name, spec string
		want       []Note
	}{
		{"clean star", `name: star
domain: [64, 64]
fields:
  - name: a
    element: 8
    extent: [66, 66]
    offset: 67
    load: [[x - 1, y], [x + 1, y], [x, y - 1], [x, y + 1]]
  - name: b
    element: 8
    store: [[x, y]]
`, nil},
		// Wrapped indices depend on x and y although their bounds over the
		// whole box are the periods' (the V100 block scan's box stencil).
		{"wrapped", `name: wrapped
domain: [1024, 512]
fields:
  - name: B
    element: 8
    extent: [2048, 2048]
    load: [[(x mod 128) + 1023, (y mod 64) + 1024]]
  - name: A
    element: 8
    extent: [2048, 2048]
    store: [[(x mod 128) + 1024, (y mod 64) + 1024]]
`, nil},
		// A 1D copy on a 64×8 domain: y changes no address.
		{"unused y", `name: copy
domain: [64, 8]
fields:
  - name: a
    element: 8
    load: [[x]]
  - name: b
    element: 8
    store: [[x]]
`, []Note{{NoteUnusedDimension, "no access depends on y, but the domain's width in y is 8: every y layer reads and writes the same addresses"}}},
		// Reach 4 in x on a domain 8 wide: 8 ≤ 2·4. The x extent equals the
		// domain's width, so the index x + 4 (4 to 11 on extent 8) is the
		// narrow domain's note, not a second one.
		{"narrow x", `name: narrow
domain: [8, 32]
fields:
  - name: a
    element: 8
    extent: [8, 32]
    load: [[x + 4, y], [x - 4, y]]
  - name: b
    element: 8
    store: [[x, y]]
`, []Note{{NoteNarrowDomain, "the domain's width in x is 8, but the accesses reach 4 beyond each lattice point there: most of what the kernel reads lies outside the domain"}}},
		// x + 100 on 0 ≤ x < 64 spans 100 to 163: past 2·10 − 1 on extent 10.
		// x + 10 spans 10 to 73, which also leaves extent 10 by a whole
		// extent, but only the first such access of a field is noted. The
		// reach of 100 makes the domain (64 ≤ 2·100) narrow too; its note
		// does not cover A, whose extent is not the domain's width.
		{"past extent", `name: far
domain: [64]
fields:
  - name: A
    element: 8
    extent: [10]
    load: [[x + 100], [x + 10]]
  - name: B
    element: 8
    extent: [64]
    store: [[x]]
`, []Note{{NoteNarrowDomain, "the domain's width in x is 64, but the accesses reach 100 beyond each lattice point there: most of what the kernel reads lies outside the domain"},
			{NoteIndexPastExtent, `field "A" access [x + 100]: its x index spans 100 to 163, a whole extent (10) or more outside the array; it addresses other rows, planes or arrays, not a halo`}}},
	} {
		k, err := Parse([]byte(tc.spec), tc.name+".yaml")
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := Lint(k); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: notes\n%+v\nwant\n%+v", tc.name, got, tc.want)
		}
	}
}

// TestLintFollowsDomain checks that Lint judges the kernel's current
// domain: a 2D star is clean on its own domain and gets the unused z
// dimension on a 3D one.
func TestLintFollowsDomain(t *testing.T) {
	k, err := Parse([]byte("name: s\ndomain: [64, 64]\nfields:\n  - name: a\n    element: 8\n    load: [[x, y]]\n  - name: b\n    element: 8\n    store: [[x, y]]\n"), "s.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if n := Lint(k); n != nil {
		t.Errorf("own domain: %+v", n)
	}
	if n := Lint(k.WithDomain([3]int64{64, 64, 4})); len(n) != 1 || n[0].Code != NoteUnusedDimension {
		t.Errorf("64,64,4: %+v, want one %s note", n, NoteUnusedDimension)
	}
}
