package sim

import (
	"fmt"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/kernel"
)

// FieldBytes is one field's share of a volume.
type FieldBytes struct {
	Field string  `json:"field"`
	Bytes float64 `json:"bytes"`
}

// Breakdown is a volume in bytes per field (in Kernel.Fields order, every
// field listed) and in total. Multiplicity is included.
type Breakdown struct {
	Fields []FieldBytes `json:"fields"`
	Total  float64      `json:"total"`
}

func newBreakdown(k *kernel.Kernel, counts []int64, unitBytes int64, divisor int) Breakdown {
	b := Breakdown{Fields: make([]FieldBytes, len(k.Fields))}
	for i, f := range k.Fields {
		v := float64(counts[i]*unitBytes*max(f.Multiplicity, 1)) / float64(divisor)
		b.Fields[i] = FieldBytes{Field: f.Name, Bytes: v}
		b.Total += v
	}
	return b
}

// compulsoryWalk traces the given blocks (linear ids in launch order) with
// the warp size of device d and calls visit for every warp instruction with active lanes,
// with the block's position in the list and the lanes' start addresses.
// Only the first instance of each field is traced.
func compulsoryWalk(k *kernel.Kernel, l kernel.Launch, d *device.Device, blocks []int64,
	visit func(block int, in *instruction, addrs []uint64)) error {
	tr, err := newTracer(k, l, d.WarpSize, false)
	if err != nil {
		return err
	}
	if len(blocks) == 0 {
		return fmt.Errorf("sim: no blocks given")
	}
	for _, b := range blocks {
		if b < 0 || b >= tr.blocks {
			return fmt.Errorf("sim: block %d outside the grid of %d blocks", b, tr.blocks)
		}
	}
	var addrs []uint64
	for i, b := range blocks {
		origin := tr.blockOrigin(b)
		for w := range tr.warpsPerBlock {
			for j := range tr.program {
				in := &tr.program[j]
				if addrs = tr.addresses(addrs[:0], origin, w, in); len(addrs) > 0 {
					visit(i, in, addrs)
				}
			}
		}
	}
	return nil
}

// BlockL2Load returns the compulsory L2→L1 load volume per block, averaged
// over the given blocks: for each block, the distinct L1FetchBytes sectors
// its threads load (its L1 is shared by its threads and by no other block),
// times L1FetchBytes (the paper's block-level L2 load volume with the valid domain applied).
func BlockL2Load(k *kernel.Kernel, l kernel.Launch, d *device.Device, blocks []int64) (Breakdown, error) {
	counts := make([]int64, len(k.Fields))
	seen := newGranuleSet()
	current := -1
	geo, err := deviceGeometry(d)
	if err != nil {
		return Breakdown{}, err
	}
	var buf []uint64
	err = compulsoryWalk(k, l, d, blocks, func(block int, in *instruction, addrs []uint64) {
		if block != current {
			seen.clear()
			current = block
		}
		if in.store {
			return
		}
		buf = granules(buf[:0], addrs, in.width, geo.l1Fetch)
		for _, s := range buf {
			if seen.add(s) {
				counts[in.field]++
			}
		}
	})
	if err != nil {
		return Breakdown{}, err
	}
	return newBreakdown(k, counts, 1<<geo.l1Fetch, len(blocks)), nil
}

// BlockL2Store returns the L1→L2 store volume per block, averaged over the
// given blocks: every store warp instruction writes through its distinct
// L1WriteBytes units, so repeated stores count again (the paper's block-level L2 store volume
// with hardware warps and the valid domain).
func BlockL2Store(k *kernel.Kernel, l kernel.Launch, d *device.Device, blocks []int64) (Breakdown, error) {
	counts := make([]int64, len(k.Fields))
	geo, err := deviceGeometry(d)
	if err != nil {
		return Breakdown{}, err
	}
	var buf []uint64
	err = compulsoryWalk(k, l, d, blocks, func(_ int, in *instruction, addrs []uint64) {
		if in.store {
			buf = granules(buf[:0], addrs, in.width, geo.l1Write)
			counts[in.field] += int64(len(buf))
		}
	})
	if err != nil {
		return Breakdown{}, err
	}
	return newBreakdown(k, counts, 1<<geo.l1Write, len(blocks)), nil
}

// WaveDRAMFootprint returns the compulsory DRAM footprint of the given
// blocks together (typically one wave, see WaveBlocks): the distinct
// DRAMFetchBytes chunks they load times DRAMFetchBytes, and the distinct
// DRAMWriteBytes chunks they store times DRAMWriteBytes. Loads and stores
// are counted independently, in linear byte addresses.
func WaveDRAMFootprint(k *kernel.Kernel, l kernel.Launch, d *device.Device, blocks []int64) (load, store Breakdown, err error) {
	loadCounts, storeCounts := make([]int64, len(k.Fields)), make([]int64, len(k.Fields))
	loaded, stored := newGranuleSet(), newGranuleSet()
	geo, err := deviceGeometry(d)
	if err != nil {
		return Breakdown{}, Breakdown{}, err
	}
	var buf []uint64
	err = compulsoryWalk(k, l, d, blocks, func(_ int, in *instruction, addrs []uint64) {
		set, counts, shift := &loaded, loadCounts, geo.dramFetch
		if in.store {
			set, counts, shift = &stored, storeCounts, geo.dramWrite
		}
		buf = granules(buf[:0], addrs, in.width, shift)
		for _, c := range buf {
			if set.add(c) {
				counts[in.field]++
			}
		}
	})
	if err != nil {
		return Breakdown{}, Breakdown{}, err
	}
	return newBreakdown(k, loadCounts, 1<<geo.dramFetch, 1), newBreakdown(k, storeCounts, 1<<geo.dramWrite, 1), nil
}
