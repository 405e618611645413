package model

import "github.com/polyvol/polyvol/kernel"

// fieldBasics holds the per-field shares of an estimate's block- and
// wave-level metrics while they are counted, indexed by the field's index
// in the kernel's Fields, a field's load list and store list apart. The
// totals of Basic are their sums (setTotals).
type fieldBasics struct {
	load, store []FieldBasic
	// hasLoad and hasStore mark the fields with global loads or stores,
	// those that Basic lists.
	hasLoad, hasStore []bool
	// waveOverlapXY is each load field's x- and y-layer reuse in bytes per
	// wave, counted as one volume: the sum of its WaveMemOverlapX and
	// WaveMemOverlapY, rounded once.
	waveOverlapXY []float64
	// blockScale multiplies the block volumes of fields and totals alike
	// (1 unless sampled blocks at the domain's edge hold fewer points).
	blockScale float64
	// clampOneByte is Method.ClampOneByte: the block L1 and L2 loads'
	// totals are at least one byte.
	clampOneByte bool
}

// newFieldBasics returns the empty records of k's fields, named.
func newFieldBasics(k *kernel.Kernel, m Method) *fieldBasics {
	n := len(k.Fields)
	fs := &fieldBasics{
		load: make([]FieldBasic, n), store: make([]FieldBasic, n),
		hasLoad: make([]bool, n), hasStore: make([]bool, n),
		waveOverlapXY: make([]float64, n),
		blockScale:    1, clampOneByte: m.ClampOneByte,
	}
	for i, f := range k.Fields {
		fs.load[i].Name, fs.store[i].Name = f.Name, f.Name
	}
	return fs
}

// of returns the record of field i's stores or loads.
func (fs *fieldBasics) of(i int, store bool) *FieldBasic {
	if store {
		return &fs.store[i]
	}
	return &fs.load[i]
}

// sum adds up one value of the given records, in order: of every load
// record, then of every store record, in field order, without lists.
func (fs *fieldBasics) sum(value func(f *FieldBasic) float64, lists ...[]FieldBasic) float64 {
	if len(lists) == 0 {
		lists = [][]FieldBasic{fs.load, fs.store}
	}
	var s float64
	for _, list := range lists {
		for i := range list {
			s += value(&list[i])
		}
	}
	return s
}

// setTotals sets b's per-field lists and the totals that are sums of the
// fields, the block volumes scaled by blockScale and clamped as the method
// says.
func (fs *fieldBasics) setTotals(b *Basic) {
	block := func(value func(f *FieldBasic) float64) float64 { return fs.sum(value) * fs.blockScale }
	b.BlockL1Load = fs.sum(func(f *FieldBasic) float64 { return f.BlockL1Load })
	if fs.clampOneByte {
		b.BlockL1Load = max(1, b.BlockL1Load)
	}
	b.BlockL1Load *= fs.blockScale
	b.BlockL2Load = block(func(f *FieldBasic) float64 { return f.BlockL2Load })
	if fs.clampOneByte {
		b.BlockL2Load = max(1, b.BlockL2Load)
	}
	b.BlockL2Store = block(func(f *FieldBasic) float64 { return f.BlockL2Store })
	b.BlockWarpL2Load = block(func(f *FieldBasic) float64 { return f.BlockWarpL2Load })
	b.BlockL2LoadOverlap = fs.sum(func(f *FieldBasic) float64 { return f.BlockL2LoadOverlap })
	b.ResidentL2Load = fs.sum(func(f *FieldBasic) float64 { return f.ResidentL2Load })

	b.L1Cycles = fs.sum(func(f *FieldBasic) float64 { return f.L1Cycles })
	b.L1DataPipeCycles = fs.sum(func(f *FieldBasic) float64 { return f.L1DataPipeCycles })
	b.L1TagCycles = fs.sum(func(f *FieldBasic) float64 { return f.L1TagCycles })
	b.L1AllocCycles = fs.sum(func(f *FieldBasic) float64 { return f.L1AllocCycles })
	b.SharedCycles = fs.sum(func(f *FieldBasic) float64 { return f.SharedCycles })

	waveNew := func(f *FieldBasic) float64 { return f.WaveMemNew }
	b.WaveMemLoadNew = fs.sum(waveNew, fs.load)
	b.WaveMemStoreNew = fs.sum(waveNew, fs.store)
	b.WaveMemLoadOverlap = [2]float64{0, fs.sum(func(f *FieldBasic) float64 { return f.WaveMemOverlapZ }, fs.load)}
	for _, v := range fs.waveOverlapXY {
		b.WaveMemLoadOverlap[0] += v
	}
	b.LoadFields, b.StoreFields = fs.lists()
}

// lists returns the records of the fields with loads and of those with
// stores, in field order, their block volumes scaled by blockScale.
func (fs *fieldBasics) lists() (loads, stores []FieldBasic) {
	for i := range fs.load {
		if fs.hasLoad[i] {
			f := fs.load[i]
			f.BlockL1Load *= fs.blockScale
			f.BlockL2Load *= fs.blockScale
			f.BlockWarpL2Load *= fs.blockScale
			loads = append(loads, f)
		}
	}
	for i := range fs.store {
		if fs.hasStore[i] {
			f := fs.store[i]
			f.BlockL2Store *= fs.blockScale
			stores = append(stores, f)
		}
	}
	return loads, stores
}
