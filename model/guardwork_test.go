package model

import (
	"errors"
	"testing"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/footprint"
	"github.com/polyvol/polyvol/kernel"
)

// matvec returns a matrix-vector product y = A·x over the lattice (x, y) =
// (row, column) whose store of y[x] happens where condition holds, at
// every point where it is empty, under block 256 and a fold of 256
// columns per thread.
func matvec(t testing.TB, condition string) (*kernel.Kernel, kernel.Launch) {
	t.Helper()
	store := "[x]"
	if condition != "" {
		store = `{at: [x], if: "` + condition + `"}`
	}
	k, err := kernel.Parse([]byte(`name: matvec
domain: [4096, 4096]
flops: 2
fields:
  - {name: A, element: 8, extent: [16777216], load: [[y + 4096*x]]}
  - {name: X, element: 8, extent: [4096], load: [[y]]}
  - {name: "Y", element: 8, extent: [4096], load: [[x]], store: [`+store+`]}
`), "matvec.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return k, k.NewLaunch([3]int64{256, 1, 1}, [3]int64{1, 256, 1})
}

// workUsed returns the counting work an estimate of k under l spends, in
// footprint.Budget units: the least work bound under which it succeeds,
// found by bisection (an estimate fails with ErrWorkBound exactly when
// its work passes the bound, and is deterministic).
func workUsed(t *testing.T, k *kernel.Kernel, l kernel.Launch, d *device.Device) int64 {
	t.Helper()
	lo, hi := int64(0), int64(footprint.DefaultWorkBound) // fails at lo, succeeds at hi
	if _, err := Estimate(k, l, d, Options{WorkBound: hi}); err != nil {
		t.Fatal(err)
	}
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		switch _, err := Estimate(k, l, d, Options{WorkBound: mid}); {
		case err == nil:
			hi = mid
		case errors.Is(err, footprint.ErrWorkBound):
			lo = mid
		default:
			t.Fatal(err)
		}
	}
	return hi
}

// TestGuardedStoreCostsUnguardedWork checks that the matvec whose store
// happens at the last column only ("y = 4095", a reduction's result)
// costs an estimate at most twice the work of the same kernel storing at
// every point: the guard's lanes are counted, not enumerated.
func TestGuardedStoreCostsUnguardedWork(t *testing.T) {
	d, err := device.Lookup("A100-40GB")
	if err != nil {
		t.Fatal(err)
	}
	k, l := matvec(t, "")
	plain := workUsed(t, k, l, d)
	k, l = matvec(t, "y = 4095")
	guarded := workUsed(t, k, l, d)
	t.Logf("work: %d units unguarded, %d guarded", plain, guarded)
	if guarded > 2*plain {
		t.Errorf("the guarded store takes %d units of work, the unguarded %d: more than twice", guarded, plain)
	}
}

// BenchmarkGuardedStore estimates the matvec on A100-40GB with its store
// at every point and guarded to the last column: the ratio of the two is
// what a guard costs.
func BenchmarkGuardedStore(b *testing.B) {
	d, err := device.Lookup("A100-40GB")
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct{ name, condition string }{{"unguarded", ""}, {"guarded", "y = 4095"}} {
		k, l := matvec(b, c.condition)
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := Estimate(k, l, d, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
