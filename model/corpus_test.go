package model

import (
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/geometry"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/relation"
)

// corpusKernel is one kernel of the general-counting corpus: accesses off
// the old fast paths (strides, AoS layouts, floor and modulo, linearised
// and coupled indices), written for a given domain.
type corpusKernel struct {
	name string
	spec func(d [3]int64) string
}

// field renders one field of a corpus spec; accesses are index tuples
// (raw false) or raw ISL maps { [x, y, z] -> F[...] } (raw true).
func field(name string, element int64, extent [3]int64, offset int64, raw bool, loads, stores []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "  - name: %s\n    element: %d\n    extent: [%d, %d, %d]\n    offset: %d\n", name, element, extent[0], extent[1], extent[2], offset)
	for _, l := range []struct {
		key  string
		list []string
	}{{"load", loads}, {"store", stores}} {
		if len(l.list) == 0 {
			continue
		}
		if raw {
			fmt.Fprintf(&b, "    %s_isl:\n", l.key)
			for _, a := range l.list {
				fmt.Fprintf(&b, "      - \"{ [x, y, z] -> %s[%s] }\"\n", name, a)
			}
			continue
		}
		fmt.Fprintf(&b, "    %s:\n", l.key)
		for _, a := range l.list {
			fmt.Fprintf(&b, "      - [%s]\n", a)
		}
	}
	return b.String()
}

// header renders the kernel keys of a corpus spec.
func header(name string, d [3]int64, flops int) string {
	return fmt.Sprintf("name: %s\ndomain: [%d, %d, %d]\nflops: %d\nfields:\n", name, d[0], d[1], d[2], flops)
}

// strided is a copy B(x, y, z) = A(s·x, y, z) with an odd row length.
func strided(s int64, raw bool) func(d [3]int64) string {
	return func(d [3]int64) string {
		return header(fmt.Sprintf("stride%d", s), d, 1) +
			field("A", 8, [3]int64{s*d[0] + 7, d[1] + 3, d[2] + 1}, 3, raw, []string{fmt.Sprintf("%d*x, y, z", s)}, nil) +
			field("B", 8, d, 0, raw, nil, []string{"x, y, z"})
	}
}

// lbmAoS is a D3Q19 or D3Q27 pull kernel in AoS layout with a one-cell halo.
func lbmAoS(q int64, raw bool) func(d [3]int64) string {
	return func(d [3]int64) string {
		vel := [][3]int64{{0, 0, 0}, {1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1},
			{1, 1, 0}, {1, -1, 0}, {-1, 1, 0}, {-1, -1, 0}, {1, 0, 1}, {1, 0, -1}, {-1, 0, 1}, {-1, 0, -1},
			{0, 1, 1}, {0, 1, -1}, {0, -1, 1}, {0, -1, -1},
			{1, 1, 1}, {1, 1, -1}, {1, -1, 1}, {1, -1, -1}, {-1, 1, 1}, {-1, 1, -1}, {-1, -1, 1}, {-1, -1, -1}}[:q]
		n := [3]int64{q * (d[0] + 2), d[1] + 2, d[2] + 2}
		off := q * (1 + (d[0] + 2) + (d[0]+2)*(d[1]+2))
		var loads, stores []string
		for i, c := range vel {
			loads = append(loads, fmt.Sprintf("%d*x + %d, y + %d, z + %d", q, int64(i)-q*c[0], -c[1], -c[2]))
			stores = append(stores, fmt.Sprintf("%d*x + %d, y, z", q, i))
		}
		return header(fmt.Sprintf("d3q%d-aos", q), d, 200) +
			field("src", 8, n, off, raw, loads, nil) + field("dst", 8, n, off, raw, nil, stores)
	}
}

// aosoa copies the three components of an AoSoA array with blocks of 4.
func aosoa(raw bool) func(d [3]int64) string {
	return func(d [3]int64) string {
		var loads []string
		for c := range 3 {
			loads = append(loads, fmt.Sprintf("12*floor(x/4) + (x mod 4) + %d, y, z", 4*c))
		}
		return header("aosoa", d, 3) + field("A", 8, [3]int64{3*d[0] + 12, d[1], d[2]}, 0, raw, loads, nil) +
			field("B", 8, d, 0, raw, nil, []string{"x, y, z"})
	}
}

// linearStar is the range-4 3D star stencil on a one-dimensional array,
// indexed by x + N0·y + N0·N1·z as code generators emit it.
func linearStar(raw bool) func(d [3]int64) string {
	return func(d [3]int64) string {
		n0, n1 := d[0]+8, d[1]+8
		off := 4 + 4*n0 + 4*n0*n1
		var loads []string
		for _, o := range [][3]int64{{0, 0, 0}, {1, 0, 0}, {-1, 0, 0}, {2, 0, 0}, {-2, 0, 0}, {3, 0, 0}, {-3, 0, 0}, {4, 0, 0}, {-4, 0, 0},
			{0, 1, 0}, {0, -1, 0}, {0, 2, 0}, {0, -2, 0}, {0, 3, 0}, {0, -3, 0}, {0, 4, 0}, {0, -4, 0},
			{0, 0, 1}, {0, 0, -1}, {0, 0, 2}, {0, 0, -2}, {0, 0, 3}, {0, 0, -3}, {0, 0, 4}, {0, 0, -4}} {
			loads = append(loads, fmt.Sprintf("x + %d*y + %d*z + %d", n0, n0*n1, o[0]+n0*o[1]+n0*n1*o[2]))
		}
		return header("linear-star3d-r4", d, 25) + field("A", 8, [3]int64{n0 * n1 * (d[2] + 8), 1, 1}, off, raw, loads, nil) +
			field("B", 8, [3]int64{n0 * n1 * (d[2] + 8), 1, 1}, off, raw, nil, []string{"x + " + fmt.Sprint(n0) + "*y + " + fmt.Sprint(n0*n1) + "*z"})
	}
}

// diagonal reads along a diagonal: A(x + y, y, z), a coupled index.
func diagonal(raw bool) func(d [3]int64) string {
	return func(d [3]int64) string {
		return header("diagonal", d, 1) + field("A", 8, [3]int64{d[0] + d[1] + 5, d[1], d[2]}, 1, raw,
			[]string{"x + y, y, z", "x + y + 1, y, z"}, nil) + field("B", 8, d, 0, raw, nil, []string{"x, y, z"})
	}
}

// checkerboard reads the red or black half of a row: A(2x + (y+z) mod 2, y, z).
func checkerboard(raw bool) func(d [3]int64) string {
	return func(d [3]int64) string {
		return header("checkerboard", d, 1) + field("A", 8, [3]int64{2*d[0] + 1, d[1], d[2]}, 0, raw,
			[]string{"2*x + ((y + z) mod 2), y, z"}, nil) + field("B", 8, d, 0, raw, nil, []string{"x, y, z"})
	}
}

// generalCorpus is the corpus of general kernels, with raw-map twins of three of
// its kernels.
var generalCorpus = []corpusKernel{
	{"stride9", strided(9, false)},
	{"stride12", strided(12, false)},
	{"stride27", strided(27, false)},
	{"d3q19-aos", lbmAoS(19, false)},
	{"d3q27-aos", lbmAoS(27, false)},
	{"aosoa", aosoa(false)},
	{"linear-star3d-r4", linearStar(false)},
	{"diagonal", diagonal(false)},
	{"checkerboard", checkerboard(false)},
	{"raw-stride27", strided(27, true)},
	{"raw-d3q19-aos", lbmAoS(19, true)},
	{"raw-aosoa", aosoa(true)},
}

// corpusKernelAt parses corpus kernel c on domain d.
func corpusKernelAt(tb testing.TB, c corpusKernel, d [3]int64) *kernel.Kernel {
	tb.Helper()
	k, err := kernel.Parse([]byte(c.spec(d)), c.name+".yaml", relation.Option())
	if err != nil {
		tb.Fatalf("%s: %v\n%s", c.name, err, c.spec(d))
	}
	return k
}

// TestCorpusRawTwinsEqualExpressions checks that the raw-map twins of the
// corpus estimate the same volumes as their expression forms.
func TestCorpusRawTwinsEqualExpressions(t *testing.T) {
	dev, err := device.Lookup("A100-40GB")
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]corpusKernel{}
	for _, c := range generalCorpus {
		byName[c.name] = c
	}
	d := [3]int64{64, 32, 16}
	for _, c := range generalCorpus {
		twin, ok := byName[strings.TrimPrefix(c.name, "raw-")]
		if !ok || twin.name == c.name {
			continue
		}
		for _, m := range []Method{MethodExact, MethodReference} {
			var derived [2]string
			for i, k := range []*kernel.Kernel{corpusKernelAt(t, c, d), corpusKernelAt(t, twin, d)} {
				rep, err := Estimate(k, k.NewLaunch([3]int64{64, 2, 2}, kernel.NoFold), dev, Options{Method: m})
				if err != nil {
					t.Fatalf("%s: %v", c.name, err)
				}
				out, err := json.Marshal(rep.Derived)
				if err != nil {
					t.Fatal(err)
				}
				derived[i] = string(out)
			}
			if derived[0] != derived[1] {
				t.Errorf("%s (%s): raw-map twin differs from the expression form:\n%v\n%v", c.name, m, derived[0], derived[1])
			}
		}
	}
}

// TestCorpusEqualsSimulator checks every corpus kernel, on small domains and
// several launches, against the simulator, which evaluates the accesses
// lane by lane without ISL or the counter: the block L2→L1 load, the L2
// store and the wave's DRAM footprint (the capacity-free volumes) are
// equal, field by field.
func TestCorpusEqualsSimulator(t *testing.T) {
	for _, c := range generalCorpus {
		for _, cfg := range []struct {
			dom, block, fold [3]int64
			dev              string
		}{
			{[3]int64{24, 6, 5}, [3]int64{16, 2, 1}, [3]int64{1, 1, 1}, "A100-40GB"},
			{[3]int64{17, 9, 4}, [3]int64{8, 4, 2}, [3]int64{2, 1, 1}, "V100"},
			{[3]int64{33, 5, 3}, [3]int64{32, 1, 1}, [3]int64{1, 2, 1}, "H100-SXM"},
		} {
			k := corpusKernelAt(t, c, cfg.dom)
			d, err := device.Lookup(cfg.dev)
			if err != nil {
				t.Fatal(err)
			}
			l := k.NewLaunch(cfg.block, cfg.fold)
			if msg := compareCompulsory(t, k, l, d, min(geometry.NewGeometry(l).Blocks(), 7)); msg != "" {
				t.Errorf("%s on %s, domain %v block %v fold %v: %s", c.name, cfg.dev, cfg.dom, cfg.block, cfg.fold, msg)
			}
		}
	}
}

// BenchmarkCorpus estimates every corpus kernel with both methods on a 64³
// domain and on domains 10³ and 10⁶ times larger (640³, 6400³), block
// 64,4,2 on the A100-40GB, and reports the bytes allocated per estimate.
// Compare the domains' ns/op: the cost of counting does not depend on the
// grid. (The reference method's sample of blocks, min(8, g_i) per
// dimension, grows until the grid holds 8 blocks in each dimension, so its
// cost rises from 64³ to 640³ and then stays.)
func BenchmarkCorpus(b *testing.B) {
	dev, err := device.Lookup("A100-40GB")
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range generalCorpus {
		for _, d := range [][3]int64{{64, 64, 64}, {640, 640, 640}, {6400, 6400, 6400}} {
			k := corpusKernelAt(b, c, d)
			for _, m := range []Method{MethodExact, MethodReference} {
				b.Run(fmt.Sprintf("%s/%d/%s", c.name, d[0], m), func(b *testing.B) {
					b.ReportAllocs()
					var before, after runtime.MemStats
					runtime.ReadMemStats(&before)
					for range b.N {
						if _, err := Estimate(k, k.NewLaunch([3]int64{64, 4, 2}, kernel.NoFold), dev, Options{Method: m}); err != nil {
							b.Fatal(err)
						}
					}
					runtime.ReadMemStats(&after)
					b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/1e6, "MB/op")
				})
			}
		}
	}
}
