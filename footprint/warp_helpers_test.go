package footprint

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"testing"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/intmath"
	"github.com/polyvol/polyvol/kernel"
)

// vec3Spec is check case C1's kernel (docs/metrics.md §7.3): N = (10⁶,1,1),
// α = 0, loads A{3x,3x+1,3x+2}, B{x}; stores D{3x,3x+1,3x+2}, B{x}.
const vec3Spec = `
name: c1
domain: [1000000]
flops: 13
fields:
  - {name: A, element: 8, load: [[3*x], [3*x + 1], [3*x + 2]]}
  - {name: B, element: 8, load: [[x]], store: [[x]]}
  - {name: D, element: 8, store: [[3*x], [3*x + 1], [3*x + 2]]}
`

func parseKernel(t testing.TB, spec string) *kernel.Kernel {
	t.Helper()
	k, err := kernel.Parse([]byte(spec), "inline.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func exampleKernel(t testing.TB, name string) *kernel.Kernel {
	t.Helper()
	k, err := kernel.ParseExample(name)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func lookupDevice(t testing.TB, name string) *device.Device {
	t.Helper()
	d, err := device.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// bruteAllocLines is the oracle for the allocation footprint: it enumerates
// every thread of every block and counts the distinct L1 allocation lines of
// a field list's instructions per block, by rules m (start address only and
// no clipping for ReferenceWarpRules; full byte range of the lanes inside the
// domain for ExactWarpRules). Lines are marked in a bitmap over the block's address
// bounds; affine addresses are evaluated from their coefficients and lines
// found by an arithmetic shift (allocation lines are powers of two), for
// speed.
func bruteAllocLines(l kernel.Launch, d *device.Device, m WarpRules) AllocLines {
	shift := bits.TrailingZeros64(uint64(d.L1AllocBytes))
	return func(fi FieldInstructions, blocks [][3]int64) (float64, error) {
		guard := newPointGuard(l, m.ClipLanes, []FieldInstructions{fi})
		if d.L1AllocBytes != 1<<shift {
			return 0, fmt.Errorf("allocation line %d B is not a power of two", d.L1AllocBytes)
		}
		type linear struct {
			coef [3]int64
			c0   int64
			ok   bool
		}
		linears := make([]linear, len(fi.Instructions))
		for i, in := range fi.Instructions {
			linears[i].coef, linears[i].c0, linears[i].ok = in.Address.Linear()
		}
		address := func(i int, p kernel.Point) int64 {
			if a := linears[i]; a.ok {
				return a.c0 + a.coef[0]*p[0] + a.coef[1]*p[1] + a.coef[2]*p[2]
			}
			return fi.Instructions[i].Address.Eval(p)
		}
		var total int64
		var seen []bool
		for _, b := range blocks {
			lo := kernel.Point{b[0] * l.Block[0], b[1] * l.Block[1], b[2] * l.Block[2]}
			hi := kernel.Point{lo[0] + l.Block[0] - 1, lo[1] + l.Block[1] - 1, lo[2] + l.Block[2] - 1}
			first, last := int64(math.MaxInt64), int64(math.MinInt64)
			for _, in := range fi.Instructions {
				minA, maxA, ok := in.Address.Bounds(lo, hi)
				if !ok {
					return 0, fmt.Errorf("address bounds of %v overflow", in.Address)
				}
				first, last = min(first, intmath.FloorDiv(minA, d.L1AllocBytes)), max(last, intmath.FloorDiv(maxA+in.Width-1, d.L1AllocBytes))
			}
			// some lattice point of the block outside the domain, or a guard
			clipped := guard != nil && slices.ContainsFunc(fi.Instructions, func(in Instruction) bool { return len(in.Guarded) > 0 })
			for i := range 3 {
				clipped = clipped || l.PointCoord(i, hi[i], l.Fold[i]-1) >= l.Domain[i]
			}
			if n := int(last - first + 1); n > cap(seen) {
				seen = make([]bool, n)
			} else {
				seen = seen[:n]
				clear(seen)
			}
			for p := lo; p[2] <= hi[2]; p[2]++ {
				for p[1] = lo[1]; p[1] <= hi[1]; p[1]++ {
					for p[0] = lo[0]; p[0] <= hi[0]; p[0]++ {
						for i := range fi.Instructions {
							in := &fi.Instructions[i]
							if guard != nil && clipped && !guard.executes(p, in) {
								continue
							}
							a := address(i, p)
							end := a
							if m.FusedByteRange {
								end = a + in.Width - 1
							}
							for line := a >> shift; line <= end>>shift; line++ {
								if !seen[line-first] {
									seen[line-first] = true
									total++
								}
							}
						}
					}
				}
			}
		}
		return float64(total) / float64(len(blocks)), nil
	}
}

// methodRules are the warp rules of the two estimation methods, named for
// test messages.
var methodRules = []struct {
	name  string
	rules WarpRules
}{{"reference", ReferenceWarpRules}, {"exact", ExactWarpRules}}
