package kernel

import (
	"fmt"
	"strings"
	"testing"

	"github.com/polyvol/polyvol/lattice"
)

// TestGuardBoxByHand reads conditions and checks the boxes of lattice
// points where they hold, and which domains they leave partial.
func TestGuardBoxByHand(t *testing.T) {
	const u = unbounded
	tests := []struct {
		cond    string
		box     lattice.Box
		partial bool // on the domain 100 × 50 × 1
	}{
		{"x + 1 < 100", lattice.Box{Lo: [3]int64{-u, -u, -u}, Hi: [3]int64{99, u, u}}, true},
		{"0 <= x < 100", lattice.Box{Lo: [3]int64{0, -u, -u}, Hi: [3]int64{100, u, u}}, false},
		{"y >= 1 and y <= 48", lattice.Box{Lo: [3]int64{-u, 1, -u}, Hi: [3]int64{u, 49, u}}, true},
		{"2*x >= 7", lattice.Box{Lo: [3]int64{4, -u, -u}, Hi: [3]int64{u, u, u}}, true},
		{"3 = y", lattice.Box{Lo: [3]int64{-u, 3, -u}, Hi: [3]int64{u, 4, u}}, true},
		{"-2*z + 5 >= 0", lattice.Box{Lo: [3]int64{-u, -u, -u}, Hi: [3]int64{u, u, 3}}, false},
	}
	for _, tc := range tests {
		gs, err := ParseCondition(tc.cond)
		if err != nil {
			t.Fatalf("%q: %v", tc.cond, err)
		}
		a := Access{Guards: gs}
		box, ok := a.GuardBox()
		if !ok || box != tc.box {
			t.Errorf("%q: box %v (%v), want %v", tc.cond, box, ok, tc.box)
		}
		if _, partial, err := a.Partial([3]int64{100, 50, 1}); err != nil || partial != tc.partial {
			t.Errorf("%q: partial %v (%v), want %v", tc.cond, partial, err, tc.partial)
		}
	}
	for _, bad := range []string{"", "x", "x + y < 3 and", "x < < 3", "x < 3.5"} {
		if _, err := ParseCondition(bad); err == nil {
			t.Errorf("%q: accepted", bad)
		}
	}
	// A condition on two coordinates is no box: accepted where it holds on
	// the whole domain, an error where it leaves points out.
	gs, err := ParseCondition("x + y < 1000")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := (Access{Guards: gs}).GuardBox(); ok {
		t.Error("x + y < 1000 gave a box")
	}
	if _, _, err := (Access{Guards: gs}).Partial([3]int64{100, 50, 1}); err != nil {
		t.Errorf("x + y < 1000 holds on 100 × 50 but: %v", err)
	}
	if _, _, err := (Access{Guards: gs}).Partial([3]int64{900, 500, 1}); err == nil || !strings.Contains(err.Error(), "one coordinate") {
		t.Errorf("x + y < 1000 on 900 × 500: %v", err)
	}
}

// TestGuardedAccessSpec loads accesses with conditions and refuses
// conditions that are no box, with the position.
func TestGuardedAccessSpec(t *testing.T) {
	k, err := Parse([]byte("name: g\ndomain: [64, 8]\nfields:\n  - name: A\n    element: 8\n    load:\n      - [x, y]\n      - {at: [x + 1, y], if: \"x + 1 < 64\"}\n      - {at: [x + 1, y], if: \"x < 10\"}\n"), "g.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(k.Fields[0].Loads); n != 3 {
		t.Errorf("%d loads, want 3: one tuple under two conditions stays two accesses", n)
	}
	for _, bad := range []struct{ spec, want string }{
		{"{at: [x + 1, y], if: \"x + y < 64\"}", "g.yaml:7:30: field \"A\" load[0] if \"x + y < 64\": each comparison must bound one coordinate"},
		{"{if: \"x < 3\"}", "missing required key \"at\""},
		{"{at: [x], when: \"x < 3\"}", "unknown key \"when\""},
	} {
		_, err := Parse([]byte("name: g\ndomain: [64, 8]\nfields:\n  - name: A\n    element: 8\n    load:\n      - "+bad.spec+"\n"), "g.yaml")
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: got %v, want %q", bad.spec, err, bad.want)
		}
	}
}

// TestParamsInAccesses checks parameters in index expressions and
// conditions: the spec's params bind them, WithParams (-D) binds over
// the spec's and may name a parameter that only an access names, and an
// unbound name is an error at its file, line, field and column that says
// how to bind one.
func TestParamsInAccesses(t *testing.T) {
	const spec = `name: matvec
domain: [64, 32]
params: {N: 32, R: 64}
fields:
  - name: A
    element: 8
    extent: [2048]
    load: [[y + R*x]]
  - name: "Y"
    element: 8
    extent: [64]
    store: [{at: [x], if: "y = N - 1"}]
`
	check := func(k *Kernel, n, r int64) {
		t.Helper()
		want, err := ParseExpr(fmt.Sprintf("y + %d*x", r))
		if err != nil {
			t.Fatal(err)
		}
		if got := k.Fields[0].Loads[0].Index[0]; got.String() != want.String() {
			t.Errorf("load index %v, want %v", got, want)
		}
		box, ok := k.Fields[1].Stores[0].GuardBox()
		if !ok || box.Lo[1] != n-1 || box.Hi[1] != n {
			t.Errorf("store's guard box %v (%v), want the layer y = %d", box, ok, n-1)
		}
	}
	k, err := Parse([]byte(spec), "matvec.yaml")
	if err != nil {
		t.Fatal(err)
	}
	check(k, 32, 64)
	if k, err = Parse([]byte(spec), "matvec.yaml", WithParams(map[string]int64{"N": 16})); err != nil {
		t.Fatal(err)
	}
	check(k, 16, 64)
	if k, err = Parse([]byte(strings.Replace(spec, "params: {N: 32, R: 64}\n", "", 1)), "matvec.yaml", WithParams(map[string]int64{"N": 8, "R": 64})); err != nil {
		t.Fatal(err)
	}
	check(k, 8, 64)
	_, err = Parse([]byte(strings.Replace(spec, "N - 1", "M - 1", 1)), "matvec.yaml")
	wantError(t, err, "matvec.yaml:12:27:", `field "Y" store[0] if: column 5: unknown name "M"`, "a parameter (N, R)")
	_, err = Parse([]byte(strings.Replace(spec, "params: {N: 32, R: 64}\n", "", 1)), "matvec.yaml")
	wantError(t, err, "matvec.yaml:7:", `field "A" load[0] index 0, column 5`, `unknown name "R"`, "-D NAME=VALUE")
}
