package footprint

import (
	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/lattice"
	"github.com/polyvol/polyvol/sets"
)

// FieldBlockVolumes are one field's block-level footprints (spec §3.2, §3.3,
// §3.6), averaged over the sample blocks, in granules per block (not bytes)
// and without multiplicity.
type FieldBlockVolumes struct {
	Field      int     // index into the kernel's fields
	Store      bool    // the field's stores (true) or loads (false)
	Sectors    float64 // |U_CLFetch(f, block)| for loads, |U_CLWrite| for stores
	AllocLines float64 // |U_CLAllocation(f, block)|
	Pages      float64 // |U_512KiB(f, block)|
}

// BlockVolumes averages the block-level footprints of every field over the
// sample blocks (one thread box per block; for method Exact clip them with a
// point-guarding Mapper). Load fields come first, then store fields, in
// kernel order.
func (e *Engine) BlockVolumes(dev *device.Device, sample []lattice.Box) ([]FieldBlockVolumes, error) {
	var out []FieldBlockVolumes
	n := float64(len(sample))
	for _, store := range []bool{false, true} {
		for fi, f := range e.Mapper.Kernel.Fields {
			if len(f.Accesses(store)) == 0 && !hasRaw(f.LoadMaps, f.StoreMaps, store) {
				continue
			}
			sectorGran := dev.L1FetchBytes
			if store {
				sectorGran = dev.L1WriteBytes
			}
			v := FieldBlockVolumes{Field: fi, Store: store}
			for _, c := range []struct {
				gran int64
				dst  *float64
			}{{sectorGran, &v.Sectors}, {dev.L1AllocBytes, &v.AllocLines}, {dev.L1TLBPageBytes, &v.Pages}} {
				sum, err := e.SumOverBlocks(Request{Field: fi, Store: store, Gran: c.gran, Space: sets.LinearSpace}, sample)
				if err != nil {
					return nil, err
				}
				*c.dst = float64(sum) / n
			}
			out = append(out, v)
		}
	}
	return out, nil
}

// hasRaw reports whether the field has raw ISL maps of the given kind.
func hasRaw(loads, stores []string, store bool) bool {
	if store {
		return len(stores) > 0
	}
	return len(loads) > 0
}
