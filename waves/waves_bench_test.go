package waves

import (
	"fmt"
	"testing"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/footprint"
	"github.com/polyvol/polyvol/geometry"
	"github.com/polyvol/polyvol/kernel"
)

// BenchmarkWaveVolumesSizeIndependence evaluates all wave volumes of
// star3d-r4 (A100-40GB, block (256,1,2)) on the paper's 640×512×512 domain
// and on a 100×100-times larger 64000×51200×512 one, for both methods. The
// two domain sizes should cost about the same: footprints are counted from
// their boxes, whatever their extent.
func BenchmarkWaveVolumesSizeIndependence(b *testing.B) {
	k, err := kernel.ParseExample("star3d-r4")
	if err != nil {
		b.Fatal(err)
	}
	dev, err := device.Lookup("A100-40GB")
	if err != nil {
		b.Fatal(err)
	}
	for _, dom := range [][3]int64{{640, 512, 512}, {64000, 51200, 512}} {
		big := *k
		big.Fields = nil
		for _, f := range k.Fields { // arrays as large as the domain
			g := *f
			g.Extent = dom
			big.Fields = append(big.Fields, &g)
		}
		for _, exact := range []bool{false, true} {
			name := map[bool]string{false: "reference", true: "exact"}[exact]
			b.Run(fmt.Sprintf("%dx%dx%d/%s", dom[0], dom[1], dom[2], name), func(b *testing.B) {
				l := kernel.Launch{Block: [3]int64{256, 1, 2}, Fold: kernel.NoFold, Domain: dom}
				g := geometry.NewGeometry(l)
				rule := RegisterOnly
				if exact {
					rule = OccupancyCalculator
				}
				beta, _, err := BlocksPerSM(rule, dev, g.ThreadsPerBlock(), big.Registers, big.SharedBytes)
				if err != nil {
					b.Fatal(err)
				}
				W := beta * int64(dev.SMs)
				space, shapeOf := geometry.MultiDimSpace, ReferenceShape
				if exact {
					space, shapeOf = geometry.LinearSpace, ExactShape
				}
				e := &footprint.Engine{Mapper: &geometry.AccessMapper{Kernel: &big, Geom: g, PointGuard: exact}}
				for b.Loop() {
					shape := shapeOf(g, W)
					if _, err := CountVolumes(e, shape, space, func(bool) int64 { return dev.DRAMFetchBytes }); err != nil {
						b.Fatal(err)
					}
					if _, err := TLBPages(e, shape.Current, dev.TLBPageBytes); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
