package model

import (
	"math/rand/v2"
	"testing"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/examples"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/kernel/kerneltest"
)

// FuzzEstimate runs both methods on specs the fuzzer derives from the
// examples and the general corpus: whatever the accesses, layout and
// domain, an estimate returns a report or an error, never panics, and
// its counting stops at the work bound.
func FuzzEstimate(f *testing.F) {
	for _, name := range examples.Names() {
		data, err := examples.Read(name + ".yaml")
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, uint8(32), uint8(2))
	}
	for _, c := range generalCorpus {
		f.Add([]byte(c.spec([3]int64{40, 12, 6})), uint8(16), uint8(4))
	}
	dev, err := device.Lookup("A100-40GB")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, spec []byte, bx, by uint8) {
		k, err := kernel.Parse(spec, "fuzz.yaml")
		if err != nil || k.ExpressionsError() != nil {
			return
		}
		l := k.NewLaunch([3]int64{int64(bx%64) + 1, int64(by%8) + 1, 1}, kernel.NoFold)
		if l.Validate() != nil {
			return
		}
		for _, m := range []Method{MethodExact, MethodReference} {
			rep, err := Estimate(k, l, dev, Options{Method: m, WorkBound: 200_000})
			if err == nil && rep == nil {
				t.Fatalf("%s: no report and no error", m)
			}
		}
	})
}

// FuzzStagedEstimate estimates random kernels whose first field is staged
// in shared memory (kerneltest's Stage: copy mappings of rows or blocks,
// padding, the bank rule, permuted dimensions) under launches the fuzzer
// draws, staged and unstaged, with both methods: each returns a report or
// an error, never panics, and its counting stops at the work bound.
func FuzzStagedEstimate(f *testing.F) {
	for seed := range uint64(8) {
		f.Add(seed, uint8(seed%4), uint8(1+seed%3), uint8(31), uint8(3))
	}
	dev, err := device.Lookup("A100-40GB")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, seed uint64, halo, dims, bx, by uint8) {
		r := rand.New(rand.NewPCG(seed, 1))
		o := kerneltest.Options{Domain: [3]int64{48, 12, 6}, Fields: 3, Loads: 5, Stores: 1, MaxShift: 3,
			Stage: &kerneltest.Stage{Dims: 1 + int(dims%3), Halo: int64(halo % 4)}}
		k, err := kernel.Parse([]byte(kerneltest.Spec(r, o)), "fuzz.yaml")
		if err != nil || k.ExpressionsError() != nil {
			return
		}
		for _, unstaged := range []bool{false, true} {
			l := k.NewLaunch([3]int64{int64(bx%64) + 1, int64(by%8) + 1, 1}, kernel.NoFold)
			l.Unstaged = unstaged
			if l.Validate() != nil {
				return
			}
			for _, m := range []Method{MethodExact, MethodReference} {
				rep, err := Estimate(k, l, dev, Options{Method: m, WorkBound: 200_000})
				if err == nil && rep == nil {
					t.Fatalf("%s (unstaged %v): no report and no error", m, unstaged)
				}
			}
		}
	})
}
