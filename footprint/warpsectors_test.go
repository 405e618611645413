package footprint

import (
	"math/rand/v2"
	"testing"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/geometry"
	"github.com/polyvol/polyvol/intmath"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/lattice"
)

// guardedGranules returns the granules of gran bytes that the loads of
// field fi touch over the threads of box t, point by point, honouring the
// point guard and each load's guards.
func guardedGranules(e *Engine, fi int, gran int64, t lattice.Box) int64 {
	f := e.Mapper.Kernel.Fields[fi]
	pb := e.Mapper.PointBox(t)
	seen := map[int64]bool{}
	for x := pb.Lo[0]; x < pb.Hi[0]; x++ {
		for y := pb.Lo[1]; y < pb.Hi[1]; y++ {
			for z := pb.Lo[2]; z < pb.Hi[2]; z++ {
				p := kernel.Point{x, y, z}
				for _, a := range f.Loads {
					if !holds(a, p) {
						continue
					}
					addr := f.ByteAddress(a, p)
					for g := intmath.FloorDiv(addr, gran); g <= intmath.FloorDiv(addr+f.Element-1, gran); g++ {
						seen[g] = true
					}
				}
			}
		}
	}
	return int64(len(seen))
}

// TestWarpSectorsEqualsEnumeration checks WarpSectors, which counts the
// warps of one block per class of translated blocks and residue of their
// bases, against the sum over every warp of every block of its sectors,
// enumerated point by point: separable kernels with partial loads and
// wrapped ones, blocks inside and at the edge of the domain, the point
// guard on and off (on one engine, so that the blocks' classes are sorted
// anew for the other mapper), sectors of 4 B to 128 B.
func TestWarpSectorsEqualsEnumeration(t *testing.T) {
	r := rand.New(rand.NewPCG(42, 7))
	compared := 0
	for c := range 80 {
		var k *kernel.Kernel
		var l kernel.Launch
		if c%2 == 0 {
			domain := [3]int64{int64(8 + r.IntN(60)), int64(1 + r.IntN(12)), int64(1 + r.IntN(6))}
			k = parseKernel(t, separableSpec(r, domain))
			guardSome(r, k)
			l = k.NewLaunch([3]int64{int64([]int{8, 16, 32, 64}[r.IntN(4)]), int64(1 + r.IntN(4)), int64(1 + r.IntN(2))},
				[3]int64{1, min(k.Domain[1], int64(1+r.IntN(2))), 1})
		} else {
			domain := [3]int64{int64(20 + r.IntN(120)), int64(4 + r.IntN(40)), int64(1 + r.IntN(3))}
			k = parseKernel(t, wrappedSpec(r, domain))
			l = wrappedLaunch(r, k)
		}
		warps, ok := WarpThreadBoxes(l.Block, 32)
		if !ok {
			continue
		}
		e := &Engine{Mapper: &geometry.AccessMapper{Kernel: k, Geom: geometry.NewGeometry(l)}}
		var blocks []lattice.Box
		for _, b := range gridBlocks(l) {
			blocks = append(blocks, e.Mapper.Geom.BlockThreads(b))
		}
		dev := device.Memory{WarpSize: 32, L1FetchBytes: []int64{4, 8, 32, 128}[r.IntN(4)]}
		for _, guard := range []bool{false, true} {
			e.Mapper.PointGuard = guard
			got, ok, err := e.WarpSectors(dev, blocks)
			if err != nil || !ok {
				t.Fatalf("case %d: WarpSectors ok %v, %v", c, ok, err)
			}
			for fi, f := range k.Fields {
				if len(f.Loads) == 0 {
					continue
				}
				var want int64
				for _, b := range blocks {
					for _, w := range warps {
						want += guardedGranules(e, fi, dev.L1FetchBytes, w.Shift(b.Lo))
					}
				}
				if got[fi] != float64(want)/float64(len(blocks)) {
					t.Fatalf("case %d field %s sector %d block %v fold %v guard %v: WarpSectors %v, enumeration %v\n%s",
						c, f.Name, dev.L1FetchBytes, l.Block, l.Fold, guard, got[fi], float64(want)/float64(len(blocks)), generalSpecOf(k))
				}
				compared++
			}
		}
	}
	t.Logf("%d fields compared", compared)
}
