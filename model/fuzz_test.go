package model

import (
	"testing"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/examples"
	"github.com/polyvol/polyvol/kernel"
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
