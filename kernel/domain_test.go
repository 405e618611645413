package kernel

import "testing"

// TestWithDomainScalesLayouts checks how WithDomain grows extents, counted
// by hand: a halo-padded array keeps its halo, an array of structures of
// 19 components per point grows by 19 per point, a coefficient array
// indexed by z grows with z alone, a table read at a constant index keeps
// its size, and a dimension indexed through floor keeps the old rule.
func TestWithDomainScalesLayouts(t *testing.T) {
	k, err := Parse([]byte(`name: layouts
domain: [256, 64, 32]
fields:
  - name: halo
    element: 8
    extent: [260, 68, 36]
    offset: 2
    load: [[x - 2, y, z], [x + 2, y + 2, z + 2]]
  - name: aos
    element: 8
    extent: [4902, 64, 32]
    load: [[19*x + 18, y, z]]
  - name: coef
    element: 8
    extent: [32]
    load: [[z]]
  - name: table
    element: 8
    extent: [4096]
    load: [[7]]
  - name: half
    element: 8
    extent: [130, 64, 32]
    load: [[floor(x/2), y, z]]
  - name: out
    element: 8
    store: [[x, y, z]]
`), "layouts.yaml")
	if err != nil {
		t.Fatal(err)
	}
	n := k.WithDomain([3]int64{512, 128, 16})
	for name, want := range map[string][3]int64{
		"halo":  {516, 132, 20},
		"aos":   {4902 + 19*256, 128, 16},
		"coef":  {16, 1, 1},
		"table": {4096, 1, 1},
		"half":  {130, 128, 16}, // smaller than the domain in x: kept (the caller then refuses x ≥ 260)
		"out":   {512, 128, 16},
	} {
		if got := n.Field(name).Extent; got != want {
			t.Errorf("%s: extent %v, want %v", name, got, want)
		}
	}
	if k.Field("aos").Extent != [3]int64{4902, 64, 32} {
		t.Error("WithDomain changed the original kernel")
	}
}
