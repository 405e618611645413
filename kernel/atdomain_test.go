package kernel

import (
	"errors"
	"strings"
	"testing"
)

// TestAtDomainChecksAccesses checks AtDomain on hand-made kernels: a domain
// on which every access holds gives WithDomain's kernel, a domain that
// leaves an access's guard box is a *SpecError naming the field and the
// access, and a domain whose byte addresses pass 2^63 is an
// *AddressRangeError naming them.
func TestAtDomainChecksAccesses(t *testing.T) {
	k, err := Parse([]byte(`name: checked
domain: [64, 8, 1]
fields:
  - name: a
    element: 8
    extent: [66, 8, 1]
    offset: 1
    load: [[x - 1, y, z], [x + 1, y, z]]
  - name: b
    element: 8
    store: [[x, y, z]]
`), "checked.yaml")
	if err != nil {
		t.Fatal(err)
	}
	d := [3]int64{128, 16, 4}
	got, err := k.AtDomain(d)
	if err != nil {
		t.Fatalf("AtDomain(%v): %v", d, err)
	}
	want := k.WithDomain(d)
	for i, f := range got.Fields {
		if f.Extent != want.Fields[i].Extent {
			t.Errorf("field %s: extent %v, want WithDomain's %v", f.Name, f.Extent, want.Fields[i].Extent)
		}
	}
	if got.Domain != d || k.Domain != [3]int64{64, 8, 1} {
		t.Errorf("domain %v (original %v), want %v (original unchanged)", got.Domain, k.Domain, d)
	}

	// 2^20 · 2^20 · 2^20 points of 8 bytes: 2^63 bytes, one more than fits.
	_, err = k.AtDomain([3]int64{1 << 20, 1 << 20, 1 << 20})
	var are *AddressRangeError
	if !errors.As(err, &are) || are.Field != "a" || are.Access != "[x - 1, y, z]" {
		t.Fatalf("huge domain: got %v, want an *AddressRangeError of field a access [x - 1, y, z]", err)
	}
	if want := `the byte addresses of field "a" access [x - 1, y, z] do not fit in 64 bits`; err.Error() != want {
		t.Errorf("message %q, want %q", err, want)
	}

	// A guard on x + y, as raw maps give, holds on the spec's domain but
	// not on a larger one.
	coupled := k.WithDomain(k.Domain)
	g, err := ParseExpr("100 - x - y")
	if err != nil {
		t.Fatal(err)
	}
	a := coupled.Fields[0].Loads[0]
	a.Guards, a.Text = []Expr{g}, "[x - 1, y, z] if x + y <= 100"
	coupled.Fields[0].Loads = append([]Access{a}, coupled.Fields[0].Loads[1:]...)
	if _, err := coupled.AtDomain(coupled.Domain); err != nil {
		t.Errorf("coupled guard on its own domain: %v", err)
	}
	_, err = coupled.AtDomain([3]int64{128, 8, 1})
	var se *SpecError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), `field "a" access "[x - 1, y, z] if x + y <= 100"`) {
		t.Errorf("coupled guard on a larger domain: got %v, want a *SpecError naming field a and its access", err)
	}
}
