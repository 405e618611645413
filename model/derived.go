package model

import (
	"fmt"
	"math"

	"github.com/polyvol/polyvol/device"
)

// Basic holds the block- and wave-level metrics of docs/metrics.md §3–4 that
// the derived metrics start from. Block volumes are in bytes per thread
// block, wave volumes in bytes per wave, cycles in L1 cycles per thread.
type Basic struct {
	BlockL1Load        float64 `json:"blockL1Load"`
	BlockL1LoadAlloc   float64 `json:"blockL1LoadAlloc"`
	BlockL2Load        float64 `json:"blockL2Load"`
	BlockL2LoadOverlap float64 `json:"blockL2LoadOverlap"` // average overlap with earlier blocks on the same SM (§3.5)
	BlockL2Store       float64 `json:"blockL2Store"`
	// BlockWarpL2Load is the sum over a block's warps of each warp's own
	// L2→L1 footprint, in bytes per block: above BlockL2Load by the reuse
	// between warps, below BlockL1Load by the reuse within a warp. Counted
	// only where the method keeps reuse within a warp (0 otherwise).
	BlockWarpL2Load float64 `json:"blockWarpL2Load,omitempty"`
	// ResidentL2Load is the L2→L1 load in bytes per block when every SM
	// fetches the whole grid's load footprint once: SMs × the grid's
	// distinct L1FetchBytes sectors × the lattice updates of a full block
	// (ThreadsPerBlock · λ) / the lattice points of the domain. Set only
	// where the method keeps lines resident across blocks
	// (Method.GridResidentL1) and that footprint fits in one SM's L1 (0
	// otherwise); Derive takes it where it is below the block-level L2→L1
	// load.
	ResidentL2Load  float64 `json:"residentL2Load,omitempty"`
	BlockL1TLBPages float64 `json:"blockL1TLBPages"` // distinct 512 KiB pages per block
	TLBPages        float64 `json:"TLBpages"`        // distinct 2 MiB pages per wave

	L1Cycles         float64 `json:"L1Cycles"`
	L1DataPipeCycles float64 `json:"L1DataPipeCycles"` // includes L1AllocCycles
	L1TagCycles      float64 `json:"L1TagCycles"`
	L1AllocCycles    float64 `json:"L1AllocCycles"` // the allocation term: allocated L1 lines per thread
	// SharedCycles is the shared-memory cycles of the staged fields per
	// thread: the copy's stores and the reads (footprint.StagedField's
	// StoreCycles and LoadCycles).
	SharedCycles float64 `json:"sharedCycles,omitempty"`

	WaveMemLoadNew     float64    `json:"waveMemLoadNew"`
	WaveMemStoreNew    float64    `json:"waveMemStoreNew"`
	WaveMemOld         [2]float64 `json:"waveMemOld"`         // y and z layer footprints (loads and stores)
	WaveMemLoadOverlap [2]float64 `json:"waveMemLoadOverlap"` // reusable load volume from the x+y and z layers
	WaveValidCells     float64    `json:"waveValidCells"`     // threads of one wave
	// QWaveFactor is the factor n_cur/(W·B) by which New and the overlaps
	// were divided but Old was not (§4.7); 0 means 1, i.e. no such scaling.
	QWaveFactor float64 `json:"qWaveFactor,omitempty"`

	LoadFields  []FieldBasic `json:"loadFields,omitempty"`
	StoreFields []FieldBasic `json:"storeFields,omitempty"`
}

// FieldBasic holds one field's share of the block- and wave-level volumes
// and of the L1 cycles per thread. Load fields use the load entries, store
// fields BlockL2Store and WaveMemNew.
type FieldBasic struct {
	Name             string  `json:"name"`
	L1Cycles         float64 `json:"L1Cycles,omitempty"`
	L1DataPipeCycles float64 `json:"L1DataPipeCycles,omitempty"`
	L1TagCycles      float64 `json:"L1TagCycles,omitempty"`
	L1AllocCycles    float64 `json:"L1AllocCycles,omitempty"`
	// SharedCycles and SharedTileBytes are a staged field's shared-memory
	// cycles per thread and its tile's bytes per block.
	SharedCycles       float64 `json:"sharedCycles,omitempty"`
	SharedTileBytes    int64   `json:"sharedTileBytes,omitempty"`
	BlockL1Load        float64 `json:"blockL1Load,omitempty"`
	BlockL2Load        float64 `json:"blockL2Load,omitempty"`        // V_f
	BlockL2LoadOverlap float64 `json:"blockL2LoadOverlap,omitempty"` // V^ov_f
	BlockL2Store       float64 `json:"blockL2Store,omitempty"`
	BlockWarpL2Load    float64 `json:"blockWarpL2Load,omitempty"`
	ResidentL2Load     float64 `json:"residentL2Load,omitempty"`
	WaveMemNew         float64 `json:"waveMemNew"`
	// The field's share of WaveMemLoadOverlap: its x- and y-layer reuse,
	// which add up to the first entry, and its z-layer reuse. The
	// reference's per-field output has no x part.
	WaveMemOverlapX float64 `json:"waveMemOverlapX,omitempty"`
	WaveMemOverlapY float64 `json:"waveMemOverlapY,omitempty"`
	WaveMemOverlapZ float64 `json:"waveMemOverlapZ,omitempty"`
}

// waveScale returns QWaveFactor with the zero value read as 1.
func (b Basic) waveScale() float64 {
	if b.QWaveFactor == 0 {
		return 1
	}
	return b.QWaveFactor
}

// Launch holds the launch numbers the derived metrics need.
type Launch struct {
	ThreadsPerBlock int     `json:"threadsPerBlock"` // B
	LupsPerThread   int     `json:"lupsPerThread"`   // λ
	BlocksPerSM     int     `json:"blocksPerSM"`     // β
	BlocksPerWave   int     `json:"blocksPerWave"`   // W = β·SMs
	FlopsPerLup     float64 `json:"flopsPerLup"`
	FlinsPerLup     float64 `json:"flinsPerLup"` // floating-point instructions per Lup (an FMA is one)
	FPBytes         int     `json:"fpType"`      // 4 single or 8 double precision
	// Spill is the compiled code's spill traffic; zero for a counted mix
	// or code that does not spill.
	Spill SpillTraffic `json:"spill,omitzero"`
}

// Derived holds the per-lattice-update metrics of docs/metrics.md §5.3–5.5.
// Volumes are in bytes per Lup (B/Lup), cycles in L1 cycles per Lup,
// oversubscriptions are dimensionless and performance is in GLup/s.
type Derived struct {
	Method string `json:"method"`

	L1CyclesPerLup         float64 `json:"L1Cycles"`
	L1DataPipeCyclesPerLup float64 `json:"L1DataPipeCycles"` // includes L1AllocCyclesPerLup
	L1TagCyclesPerLup      float64 `json:"L1TagCycles"`
	L1AllocCyclesPerLup    float64 `json:"L1AllocCycles"` // the allocation term
	L1TLBPages             float64 `json:"L1TLBPages"`    // 512 KiB pages of the β blocks on one SM
	// SharedCyclesPerLup is the staged fields' shared-memory cycles per
	// Lup (Basic.SharedCycles / λ), which set PerfShared.
	SharedCyclesPerLup float64 `json:"sharedCycles,omitempty"`

	L1Load        float64 `json:"L1Load"`
	SmL1Alloc     float64 `json:"smL1Alloc"`                 // bytes allocated in one SM's L1
	OL1           float64 `json:"L1Oversubscription"`        // O_L1
	OL1ov         float64 `json:"L1OverlapOversubscription"` // O_L1ov
	L2LoadV1      float64 `json:"L2LoadV1"`
	L2LoadOverlap float64 `json:"L2LoadOverlap"`
	L1LoadEvicts  float64 `json:"L1LoadEvicts"`
	L2LoadV2      float64 `json:"L2LoadV2"`
	L2Store       float64 `json:"L2Store"`
	L2TotalV1     float64 `json:"L2totalV1"`
	L2TotalV2     float64 `json:"L2totalV2"`

	MemLoadV1         float64    `json:"memLoadV1"`
	MemStoreV1        float64    `json:"memStoreV1"`
	MemLoadOverlap    [2]float64 `json:"memLoadOverlap"`
	WaveL2Alloc       float64    `json:"waveL2Alloc"`                 // bytes allocated in L2 per wave
	OOv               [2]float64 `json:"waveOverlapOversubscription"` // O_ov,k
	MemLoadOverlapHit [2]float64 `json:"memLoadOverlapHit"`
	MemLoadV2         float64    `json:"memLoadV2"`
	OL2               float64    `json:"L2Oversubscription"` // O_L2
	MemStoreEvicts    float64    `json:"memStoreEvicts"`
	MemLoadEvicts     float64    `json:"memLoadEvicts"`
	MemStoreV2        float64    `json:"memStoreV2"`
	MemLoadV3         float64    `json:"memLoadV3"`
	MemLoadV4         float64    `json:"memLoadV4"`

	LoadFields  []LoadFieldDerived  `json:"loadFields,omitempty"`
	StoreFields []StoreFieldDerived `json:"storeFields,omitempty"`

	// Spill is the compiled code's spill traffic, which the bounds of L1,
	// L2 and DRAM carry beside the fields' volumes above; zero without
	// spills.
	Spill SpillTraffic `json:"spill,omitzero"`

	Limiters
}

// LoadFieldDerived is one load field's share of the derived volumes, in
// B/Lup. Each entry, summed with the same key over the load and store
// fields, gives the total of [Derived].
type LoadFieldDerived struct {
	Name string `json:"name"`
	L1FieldCycles
	loadChain
	MemLoadV3 float64 `json:"memLoadV3"`
	MemLoadV4 float64 `json:"memLoadV4"`
}

// loadChain is a load's way from L1 to DRAM in B/Lup, which Derive
// follows alike for the loads of every field and for all loads together
// (docs/metrics.md §5.3–5.4).
type loadChain struct {
	L1Load            float64    `json:"L1Load"`
	L2LoadV1          float64    `json:"L2LoadV1"`
	L2LoadOverlap     float64    `json:"L2LoadOverlap"`
	L1LoadEvicts      float64    `json:"L1LoadEvicts"`
	L2LoadV2          float64    `json:"L2LoadV2"`
	MemLoadV1         float64    `json:"memLoadV1"`
	MemLoadOverlap    [2]float64 `json:"memLoadOverlap"`
	MemLoadOverlapHit [2]float64 `json:"memLoadOverlapHit"`
	MemLoadV2         float64    `json:"memLoadV2"`
	MemLoadEvicts     float64    `json:"memLoadEvicts"`
}

// L1FieldCycles is one field list's share of the L1 cycles per Lup.
type L1FieldCycles struct {
	L1Cycles         float64 `json:"L1Cycles"`
	L1DataPipeCycles float64 `json:"L1DataPipeCycles"`
	L1TagCycles      float64 `json:"L1TagCycles"`
	L1AllocCycles    float64 `json:"L1AllocCycles"`
}

// l1FieldCycles returns f's L1 cycles per Lup for λ Lups per thread.
func l1FieldCycles(f FieldBasic, lambda float64) L1FieldCycles {
	return L1FieldCycles{
		L1Cycles:         f.L1Cycles / lambda,
		L1DataPipeCycles: f.L1DataPipeCycles / lambda,
		L1TagCycles:      f.L1TagCycles / lambda,
		L1AllocCycles:    f.L1AllocCycles / lambda,
	}
}

// StoreFieldDerived is one store field's share of the derived volumes, in
// B/Lup. A store field's evictions from L2 are its memStoreEvicts; the DRAM
// load V3 and V4 count them once more (the reload of partly written lines),
// so they are its share of those loads too.
type StoreFieldDerived struct {
	Name string `json:"name"`
	L1FieldCycles
	L2Store        float64 `json:"L2Store"`
	MemStoreV1     float64 `json:"memStoreV1"`
	MemStoreEvicts float64 `json:"memStoreEvicts"`
	MemStoreV2     float64 `json:"memStoreV2"`
	MemLoadV3      float64 `json:"memLoadV3"`
	MemLoadV4      float64 `json:"memLoadV4"`
}

// Derive computes the derived volumes and limiters of one configuration from
// its basic metrics, launch numbers and device under the given method.
func Derive(b Basic, l Launch, dev device.Device, m Method) (Derived, error) {
	if err := validateInputs(b, l, dev); err != nil {
		return Derived{}, err
	}
	o, err := m.oversubscriptions(b, l, float64(dev.L1Bytes), float64(dev.L2Bytes))
	if err != nil {
		return Derived{}, err
	}
	lambda := float64(l.LupsPerThread)
	r := newReuse(m, o, l)
	d := Derived{
		Method:                 m.Name,
		L1CyclesPerLup:         b.L1Cycles / lambda,
		L1DataPipeCyclesPerLup: b.L1DataPipeCycles / lambda,
		L1TagCyclesPerLup:      b.L1TagCycles / lambda,
		L1AllocCyclesPerLup:    b.L1AllocCycles / lambda,
		L1TLBPages:             b.BlockL1TLBPages * float64(l.BlocksPerSM),
		SharedCyclesPerLup:     b.SharedCycles / lambda,
		SmL1Alloc:              o.smL1Alloc,
		OL1:                    o.l1,
		OL1ov:                  o.l1Overlap,
		L2Store:                b.BlockL2Store / r.perBlock,
		MemStoreV1:             b.WaveMemStoreNew / r.perWave,
		WaveL2Alloc:            b.WaveMemLoadNew + b.WaveMemStoreNew,
		OOv:                    o.layer,
		OL2:                    o.l2,
	}
	d.setLoads(r.chain(basicLoads{b.BlockL1Load, b.BlockL2Load, b.BlockL2LoadOverlap, b.BlockWarpL2Load, b.WaveMemLoadNew, b.WaveMemLoadOverlap}))
	d.MemStoreEvicts = math.Max(0, d.L2Store-d.MemStoreV1) * m.Curves.Store.Miss(o.l2)
	d.MemStoreV2 = d.MemStoreV1 + d.MemStoreEvicts
	for _, f := range b.LoadFields {
		d.LoadFields = append(d.LoadFields, r.loadField(f, lambda, b.ResidentL2Load > 0, dev))
	}
	if b.ResidentL2Load > 0 {
		// The fields were capped one by one; the totals are their sums.
		d.L2LoadV2, d.MemLoadV2, d.MemLoadEvicts = 0, 0, 0
		for _, fd := range d.LoadFields {
			d.L2LoadV2 += fd.L2LoadV2
			d.MemLoadV2 += fd.MemLoadV2
			d.MemLoadEvicts += fd.MemLoadEvicts
		}
	}
	d.L2TotalV2 = d.L2LoadV2 + d.L2Store
	d.MemLoadV3 = d.MemLoadV2 + d.MemStoreEvicts
	d.MemLoadV4 = d.MemLoadV3 + d.MemLoadEvicts
	d.StoreFields = storeFields(b.StoreFields, d.MemStoreEvicts, lambda, r)
	d.Spill = l.Spill
	d.Limiters = computeLimiters(d, l, dev)
	return d, nil
}

// reuse is what Derive needs of the method's reuse curves at one
// configuration's oversubscriptions, and its Lups per block and wave.
type reuse struct {
	// prevBlockKept is the fraction of the previous-block overlap that is
	// still resident in L1 and therefore saved.
	prevBlockKept float64
	// layerHit is the share of the y- and z-layer overlaps that hits in L2;
	// l1Miss and l2Miss the share of the redundant loads that miss.
	layerHit       [2]float64
	l1Miss, l2Miss float64
	// warpReuseStays: only the reuse between warps misses (the method's
	// WarpReuseStays, while the blocks' allocation fits in L1).
	warpReuseStays    bool
	perBlock, perWave float64
}

// newReuse evaluates m's curves at the oversubscriptions o under launch l.
func newReuse(m Method, o oversubscriptions, l Launch) reuse {
	c := m.Curves
	perBlock := float64(l.ThreadsPerBlock) * float64(l.LupsPerThread)
	r := reuse{
		l1Miss: c.L1.Miss(o.l1), l2Miss: c.L2.Miss(o.l2),
		warpReuseStays: m.WarpReuseStays && o.l1 <= 1,
		perBlock:       perBlock,
		perWave:        float64(l.BlocksPerWave) * perBlock,
	}
	if c.PrevBlock != nil {
		r.prevBlockKept = c.PrevBlock.Hit(o.prevBlockArg)
	}
	overlapY := c.OverlapY
	if m.LayerReuseDistance { // both layer sets are one reuse distance deep
		overlapY = c.OverlapZ
	}
	r.layerHit = [2]float64{overlapY.Hit(o.layer[0]), c.OverlapZ.Hit(o.layer[1])}
	if m.NoEvictionsWhileFits && o.l1 <= 1 {
		r.l1Miss = 0
	}
	return r
}

// basicLoads are the basic load volumes that a loadChain starts from:
// bytes per block and per wave.
type basicLoads struct {
	blockL1, blockL2, blockL2Overlap, blockWarpL2 float64
	waveNew                                       float64
	waveOverlap                                   [2]float64
}

// chain follows loads from L1 to DRAM.
func (r reuse) chain(v basicLoads) loadChain {
	c := loadChain{
		L1Load:        v.blockL1 / r.perBlock,
		L2LoadV1:      v.blockL2 / r.perBlock,
		L2LoadOverlap: v.blockL2Overlap / r.perBlock,
		MemLoadV1:     v.waveNew / r.perWave,
	}
	// The redundant L1 load hits in L1 when nothing is evicted; the
	// capacity misses take the share l1Miss of it.
	redundant := c.L1Load - c.L2LoadV1
	if warpLoad := v.blockWarpL2 / r.perBlock; r.warpReuseStays && warpLoad > 0 {
		redundant = max(0, warpLoad-c.L2LoadV1)
	}
	c.L1LoadEvicts = redundant * r.l1Miss
	c.L2LoadV2 = c.L2LoadV1 - c.L2LoadOverlap*r.prevBlockKept + c.L1LoadEvicts
	c.MemLoadV2 = c.MemLoadV1
	for k := range c.MemLoadOverlap {
		c.MemLoadOverlap[k] = v.waveOverlap[k] / r.perWave
		c.MemLoadOverlapHit[k] = c.MemLoadOverlap[k] * r.layerHit[k]
		c.MemLoadV2 -= c.MemLoadOverlapHit[k]
	}
	c.MemLoadEvicts = (c.L2LoadV2 - c.MemLoadV2) * r.l2Miss
	return c
}

// setLoads sets d's load volumes from L1 to DRAM load V2 and its L2 total V1.
func (d *Derived) setLoads(c loadChain) {
	d.L1Load, d.L2LoadV1, d.L2LoadOverlap, d.L1LoadEvicts, d.L2LoadV2 = c.L1Load, c.L2LoadV1, c.L2LoadOverlap, c.L1LoadEvicts, c.L2LoadV2
	d.MemLoadV1, d.MemLoadOverlap, d.MemLoadOverlapHit = c.MemLoadV1, c.MemLoadOverlap, c.MemLoadOverlapHit
	d.MemLoadV2, d.MemLoadEvicts = c.MemLoadV2, c.MemLoadEvicts
	d.L2TotalV1 = d.L2LoadV1 + d.L2Store
}

// loadField derives one load field's share. Where lines stay in L1 from
// block to block (resident: Method.GridResidentL1), the L2→L1 load is at
// most every SM's one fetch of the grid's lines, and the DRAM load at most
// one DRAM fetch per L2→L1 sector; nothing redundant is left to miss in L2.
func (r reuse) loadField(f FieldBasic, lambda float64, resident bool, dev device.Device) LoadFieldDerived {
	c := r.chain(basicLoads{f.BlockL1Load, f.BlockL2Load, f.BlockL2LoadOverlap, f.BlockWarpL2Load,
		f.WaveMemNew, [2]float64{f.WaveMemOverlapX + f.WaveMemOverlapY, f.WaveMemOverlapZ}})
	if resident {
		c.L2LoadV2 = min(c.L2LoadV2, f.ResidentL2Load/r.perBlock)
		c.MemLoadV2 = min(c.MemLoadV2, c.L2LoadV2*max(1, float64(dev.DRAMFetchBytes)/float64(dev.L1FetchBytes)))
		c.MemLoadEvicts = max(0, (c.L2LoadV2-c.MemLoadV2)*r.l2Miss)
	}
	return LoadFieldDerived{
		Name: f.Name, L1FieldCycles: l1FieldCycles(f, lambda), loadChain: c,
		MemLoadV3: c.MemLoadV2, MemLoadV4: c.MemLoadV2 + c.MemLoadEvicts,
	}
}

// storeFields derives the store fields' shares. The store evictions are
// taken from the total's clamped difference (evicts) and shared among the
// store fields in proportion to their own positive differences, so that
// the shares add up to the total.
func storeFields(fields []FieldBasic, evicts, lambda float64, r reuse) []StoreFieldDerived {
	var out []StoreFieldDerived
	excess := 0.0
	for _, f := range fields {
		excess += math.Max(0, f.BlockL2Store/r.perBlock-f.WaveMemNew/r.perWave)
	}
	for _, f := range fields {
		fd := StoreFieldDerived{
			Name:          f.Name,
			L1FieldCycles: l1FieldCycles(f, lambda),
			L2Store:       f.BlockL2Store / r.perBlock,
			MemStoreV1:    f.WaveMemNew / r.perWave,
		}
		if excess > 0 {
			fd.MemStoreEvicts = evicts * math.Max(0, fd.L2Store-fd.MemStoreV1) / excess
		}
		fd.MemStoreV2 = fd.MemStoreV1 + fd.MemStoreEvicts
		fd.MemLoadV3, fd.MemLoadV4 = fd.MemStoreEvicts, fd.MemStoreEvicts
		out = append(out, fd)
	}
	return out
}

// DRAMVolume is the volume behind the DRAM limiter, DRAM load V3 plus
// DRAM store V2, in B/Lup.
func (d Derived) DRAMVolume() float64 { return d.MemLoadV3 + d.MemStoreV2 }

// L2Traffic is the bytes per Lup behind the L2 limiter: L2 load V2 plus
// store, and the spill traffic that reaches L2.
func (d Derived) L2Traffic() float64 { return d.L2TotalV2 + d.Spill.at(LimiterL2) }

// DRAMTraffic is the bytes per Lup behind the DRAM limiter: DRAMVolume and
// the spill traffic that reaches DRAM.
func (d Derived) DRAMTraffic() float64 { return d.DRAMVolume() + d.Spill.at(LimiterDRAM) }

// dramShare is the share of the L2 traffic (load V2 + store) that goes on
// to DRAM, at most 1; 0 without L2 traffic.
func (d Derived) dramShare() float64 {
	if d.L2TotalV2 <= 0 {
		return 0
	}
	return min(1, d.DRAMVolume()/d.L2TotalV2)
}

// validateInputs rejects numbers that would make a derived value divide by
// zero or lose its meaning.
func validateInputs(b Basic, l Launch, dev device.Device) error {
	positive := []struct {
		name  string
		value float64
	}{
		{"launch threadsPerBlock", float64(l.ThreadsPerBlock)},
		{"launch lupsPerThread", float64(l.LupsPerThread)},
		{"launch blocksPerSM", float64(l.BlocksPerSM)},
		{"launch blocksPerWave", float64(l.BlocksPerWave)},
		{"device " + dev.Name + " sms", float64(dev.SMs)},
		{"device " + dev.Name + " clock_ghz", dev.ClockGHz},
		{"device " + dev.Name + " l1_bytes", float64(dev.L1Bytes)},
		{"device " + dev.Name + " l2_bytes", float64(dev.L2Bytes)},
		{"device " + dev.Name + " l2_bandwidth_gbs", dev.L2BandwidthGBs},
		{"device " + dev.Name + " dram_bandwidth_gbs", dev.DRAMBandwidthGBs},
	}
	for _, p := range positive {
		if !(p.value > 0) || math.IsInf(p.value, 0) {
			return fmt.Errorf("model: %s must be a positive finite number, got %v", p.name, p.value)
		}
	}
	if l.FPBytes != 4 && l.FPBytes != 8 {
		return fmt.Errorf("model: launch fpType must be 4 or 8 bytes, got %d", l.FPBytes)
	}
	if l.FlopsPerLup < 0 || l.FlinsPerLup < 0 {
		return fmt.Errorf("model: launch flopsPerLup and flinsPerLup must not be negative, got %v and %v", l.FlopsPerLup, l.FlinsPerLup)
	}
	if b.QWaveFactor < 0 {
		return fmt.Errorf("model: basic qWaveFactor must not be negative, got %v", b.QWaveFactor)
	}
	if b.L1Cycles <= 0 {
		return fmt.Errorf("model: basic L1Cycles must be positive, got %v", b.L1Cycles)
	}
	return nil
}
