package model

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/examples"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/relation"
)

// specText writes k back as a spec, each access as an index tuple or, with
// raw, as a raw ISL map { [x, y, z] -> F[...] } under load_isl and
// store_isl.
func specText(k *kernel.Kernel, raw bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "name: %s\ndomain: [%d, %d, %d]\nflops: %g\nfp_type: %d\nregisters: %d\nshared_bytes: %d\nbounds_check: %s\n",
		k.Name, k.Domain[0], k.Domain[1], k.Domain[2], k.Flops, k.FPType, k.Registers, k.SharedBytes, k.BoundsCheck)
	if k.State != "" {
		fmt.Fprintf(&b, "state: %s\nsteps: %d\n", k.State, k.Steps)
	}
	b.WriteString("fields:\n")
	for _, f := range k.Fields {
		fmt.Fprintf(&b, "  - name: %s\n    element: %d\n    extent: [%d, %d, %d]\n    offset: %d\n    multiplicity: %d\n    scalar: %v\n",
			f.Name, f.Element, f.Extent[0], f.Extent[1], f.Extent[2], f.Offset, f.Multiplicity, f.Scalar)
		if f.Stage != nil {
			pad := fmt.Sprint(f.Stage.Pad)
			if f.Stage.Pad == kernel.PadBanks {
				pad = "banks"
			}
			fmt.Fprintf(&b, "    stage: {copy: %s, pad: %s}\n", f.Stage.Copy, pad)
		}
		for _, kind := range []string{"load", "store"} {
			accs := f.Accesses(kind == "store")
			if len(accs) == 0 {
				continue
			}
			if raw {
				fmt.Fprintf(&b, "    %s_isl:\n", kind)
				for _, a := range accs {
					fmt.Fprintf(&b, "      - \"{ [x, y, z] -> %s%s }\"\n", f.Name, a.ISL())
				}
				continue
			}
			fmt.Fprintf(&b, "    %s:\n", kind)
			for _, a := range accs {
				fmt.Fprintf(&b, "      - [\"%s\", \"%s\", \"%s\"]\n", a.Index[0], a.Index[1], a.Index[2])
			}
		}
	}
	return b.String()
}

// TestRawMapTwinsEqualExpressions checks that every embedded example,
// rewritten with raw ISL maps, estimates the same per-Lup volumes, byte for
// byte, as the same spec written with index expressions, for both methods,
// and that the expression rewrite equals the example itself.
func TestRawMapTwinsEqualExpressions(t *testing.T) {
	dev, err := device.Lookup("A100-40GB")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range examples.Names() {
		orig, err := kernel.ParseExample(name)
		if err != nil {
			t.Fatal(err)
		}
		block := defaultTestBlock(orig)
		derived := func(spec string, m Method) string {
			k, err := kernel.Parse([]byte(spec), name+".yaml", relation.Option())
			if err != nil {
				t.Fatalf("%s: %v\n%s", name, err, spec)
			}
			rep, err := Estimate(k, k.NewLaunch(block, kernel.NoFold), dev, Options{Method: m})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			out, err := json.Marshal(rep.Derived)
			if err != nil {
				t.Fatal(err)
			}
			return string(out)
		}
		for _, m := range []Method{MethodExact, MethodReference} {
			exprs, raw := derived(specText(orig, false), m), derived(specText(orig, true), m)
			if raw != exprs {
				t.Errorf("%s (%s): raw-map twin differs from the expression form:\n raw   %s\n exprs %s", name, m, raw, exprs)
			}
			k, err := kernel.ParseExample(name)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := Estimate(k, k.NewLaunch(block, kernel.NoFold), dev, Options{Method: m})
			if err != nil {
				t.Fatal(err)
			}
			if direct, _ := json.Marshal(rep.Derived); string(direct) != exprs {
				t.Errorf("%s (%s): the rewritten spec differs from the example", name, m)
			}
		}
	}
}

// defaultTestBlock is a block of 256 threads shaped for the kernel's
// dimensions.
func defaultTestBlock(k *kernel.Kernel) [3]int64 {
	switch k.Dims {
	case 1:
		return [3]int64{256, 1, 1}
	case 2:
		return [3]int64{32, 8, 1}
	}
	return [3]int64{32, 4, 2}
}
