package sim_test

// A brute-force oracle for the simulator's compulsory counts, written
// independently of the simulator: it walks every thread and every folded
// point with Field.ByteAddress and counts granules byte by byte in Go maps.

import (
	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/kernel"
)

// laneAccess is one byte range [addr, addr+width) of field that a thread
// touches, with the warp instruction it belongs to.
type laneAccess struct {
	block       int64
	instruction instrKey
	field       int
	store       bool
	addr, width int64
}

// instrKey names a warp instruction: the warp of a block and a field's
// access in thread coordinates (loads and stores apart). Accesses of two
// folded points that coincide in thread coordinates are one instruction
// (docs/metrics.md §1.5 removes duplicate tuples).
type instrKey struct {
	block, warp int64
	store       bool
	field       int
	tuple       string
}

// threadTuple renders access a of the point f·t + j in thread coordinates t.
func threadTuple(a kernel.Access, f, j [3]int64) string {
	var sub [3]kernel.Expr
	for i := range 3 {
		v, _ := kernel.Var(i).Scale(f[i])
		sub[i], _ = v.Add(kernel.Const(j[i]))
	}
	out := ""
	for i := range 3 {
		e, _ := a.Index[i].Substitute(sub)
		out += e.String() + ";"
	}
	return out
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// forEachAccess enumerates blocks in launch order, threads by linear id and
// folded points, and calls visit for every access of an active point.
func forEachAccess(k *kernel.Kernel, l kernel.Launch, warpSize int64, visit func(laneAccess)) {
	g := l.Grid()
	b, f, d := l.Block, l.Fold, l.Domain
	for blk := range g[0] * g[1] * g[2] {
		bx, by, bz := blk%g[0], blk/g[0]%g[1], blk/(g[0]*g[1])
		for tid := range b[0] * b[1] * b[2] {
			t := [3]int64{bx*b[0] + tid%b[0], by*b[1] + tid/b[0]%b[1], bz*b[2] + tid/(b[0]*b[1])}
			for jz := range f[2] {
				for jy := range f[1] {
					for jx := range f[0] {
						p := kernel.Point{f[0]*t[0] + jx, f[1]*t[1] + jy, f[2]*t[2] + jz}
						if p[0] < d[0] && p[1] < d[1] && p[2] < d[2] {
							for fi, fld := range k.Fields {
								for _, store := range []bool{false, true} {
									for _, a := range fld.Accesses(store) {
										visit(laneAccess{
											block:       blk,
											instruction: instrKey{blk, tid / warpSize, store, fi, threadTuple(a, f, [3]int64{jx, jy, jz})},
											field:       fi, store: store,
											addr: fld.ByteAddress(a, p), width: fld.Element,
										})
									}
								}
							}
						}
					}
				}
			}
		}
	}
}

type fieldGranule struct{ field, granule int64 }

// expected holds the oracle's per-field byte counts (multiplicity included).
type expected struct {
	l1Load, l2LoadPerSM, l2Store, dramLoad, dramStore, dramStoreRead []int64
}

// bruteForce computes what Run must report with infinite caches when blocks
// run in waves of blocksPerSM·SMs blocks, block i of a wave on SM i mod SMs.
func bruteForce(k *kernel.Kernel, l kernel.Launch, d *device.Device, blocksPerSM int) expected {
	n := len(k.Fields)
	e := expected{make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)}
	perWave := int64(blocksPerSM * d.SMs)
	loadSectors := map[instrKey]map[int64]bool{}
	storeUnits := map[instrKey]map[int64]bool{}
	smSectors := map[int64]map[fieldGranule]bool{} // per SM: L1 sectors loaded
	loadedChunks := map[fieldGranule]bool{}        // DRAM fetch chunks
	written := map[fieldGranule]bool{}             // bytes stored
	forEachAccess(k, l, int64(d.WarpSize), func(a laneAccess) {
		sm := a.block % perWave % int64(d.SMs)
		for byteAddr := a.addr; byteAddr < a.addr+a.width; byteAddr++ {
			fb := func(g int64) fieldGranule { return fieldGranule{int64(a.field), floorDiv(byteAddr, g)} }
			if a.store {
				if storeUnits[a.instruction] == nil {
					storeUnits[a.instruction] = map[int64]bool{}
				}
				storeUnits[a.instruction][floorDiv(byteAddr, d.L1WriteBytes)] = true
				written[fb(1)] = true
				continue
			}
			if loadSectors[a.instruction] == nil {
				loadSectors[a.instruction] = map[int64]bool{}
			}
			loadSectors[a.instruction][floorDiv(byteAddr, d.L1FetchBytes)] = true
			if smSectors[sm] == nil {
				smSectors[sm] = map[fieldGranule]bool{}
			}
			smSectors[sm][fb(d.L1FetchBytes)] = true
			loadedChunks[fb(d.DRAMFetchBytes)] = true
		}
	})
	for key, s := range loadSectors {
		e.l1Load[key.field] += int64(len(s)) * d.L1FetchBytes
	}
	for key, s := range storeUnits {
		e.l2Store[key.field] += int64(len(s)) * d.L1WriteBytes
	}
	for _, s := range smSectors {
		for fg := range s {
			e.l2LoadPerSM[fg.field] += d.L1FetchBytes
		}
	}
	for fg := range loadedChunks {
		e.dramLoad[fg.field] += d.DRAMFetchBytes
	}
	// A 32 B sector is complete if its fetch chunk was loaded or all its
	// bytes were written. Every write chunk with a written byte goes to
	// DRAM; an incomplete one first reads the fetch chunk around it.
	complete := func(field, sector int64) bool {
		if loadedChunks[fieldGranule{field, floorDiv(sector*32, d.DRAMFetchBytes)}] {
			return true
		}
		for b := sector * 32; b < sector*32+32; b++ {
			if !written[fieldGranule{field, b}] {
				return false
			}
		}
		return true
	}
	writeChunks := map[fieldGranule]bool{}
	for fb := range written {
		writeChunks[fieldGranule{fb.field, floorDiv(fb.granule, d.DRAMWriteBytes)}] = true
	}
	reads := map[fieldGranule]bool{}
	for wc := range writeChunks {
		e.dramStore[wc.field] += d.DRAMWriteBytes
		first := wc.granule * d.DRAMWriteBytes / 32
		for s := first; s < first+d.DRAMWriteBytes/32; s++ {
			if !complete(wc.field, s) {
				reads[fieldGranule{wc.field, floorDiv(s*32, d.DRAMFetchBytes)}] = true
			}
		}
	}
	for r := range reads {
		e.dramLoad[r.field] += d.DRAMFetchBytes
		e.dramStoreRead[r.field] += d.DRAMFetchBytes
	}
	for i, f := range k.Fields {
		for _, v := range []*[]int64{&e.l1Load, &e.l2LoadPerSM, &e.l2Store, &e.dramLoad, &e.dramStore, &e.dramStoreRead} {
			(*v)[i] *= f.Multiplicity
		}
	}
	return e
}

// compulsoryOracle computes, for the given blocks, the per-field sums over
// blocks of distinct L1FetchBytes sectors loaded per block and of distinct
// L1WriteBytes units per store instruction, and the distinct DRAM chunks
// loaded (fetch size) and stored (write size) by all of them together.
func compulsoryOracle(k *kernel.Kernel, l kernel.Launch, d *device.Device, blocks []int64) (blockLoad, store, waveLoad, waveStore []int64) {
	n := len(k.Fields)
	blockLoad, store, waveLoad, waveStore = make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	chosen := map[int64]bool{}
	for _, b := range blocks {
		chosen[b] = true
	}
	perBlock := map[int64]map[fieldGranule]bool{}
	units := map[instrKey]map[int64]bool{}
	loads, stores := map[fieldGranule]bool{}, map[fieldGranule]bool{}
	forEachAccess(k, l, int64(d.WarpSize), func(a laneAccess) {
		if !chosen[a.block] {
			return
		}
		for byteAddr := a.addr; byteAddr < a.addr+a.width; byteAddr++ {
			if a.store {
				if units[a.instruction] == nil {
					units[a.instruction] = map[int64]bool{}
				}
				units[a.instruction][floorDiv(byteAddr, d.L1WriteBytes)] = true
				stores[fieldGranule{int64(a.field), floorDiv(byteAddr, d.DRAMWriteBytes)}] = true
				continue
			}
			if perBlock[a.block] == nil {
				perBlock[a.block] = map[fieldGranule]bool{}
			}
			perBlock[a.block][fieldGranule{int64(a.field), floorDiv(byteAddr, d.L1FetchBytes)}] = true
			loads[fieldGranule{int64(a.field), floorDiv(byteAddr, d.DRAMFetchBytes)}] = true
		}
	})
	for _, s := range perBlock {
		for fg := range s {
			blockLoad[fg.field] += d.L1FetchBytes * k.Fields[fg.field].Multiplicity
		}
	}
	for key, s := range units {
		store[key.field] += int64(len(s)) * d.L1WriteBytes * k.Fields[key.field].Multiplicity
	}
	for fg := range loads {
		waveLoad[fg.field] += d.DRAMFetchBytes * k.Fields[fg.field].Multiplicity
	}
	for fg := range stores {
		waveStore[fg.field] += d.DRAMWriteBytes * k.Fields[fg.field].Multiplicity
	}
	return
}
