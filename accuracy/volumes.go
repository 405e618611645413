package accuracy

import (
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/model"
	"github.com/polyvol/polyvol/sim"
)

// Volumes are the per-lattice-update volumes (B/Lup) that both the analytic
// estimate and the simulator give, under the JSON keys of model.Derived.
// For a prediction they are the final variants of model.Derived (capacity
// misses included); for a simulation they are the measured counts:
//
//	L1Load         sim L1Load:   sectors requested by load warp instructions
//	L2LoadV2       sim L2Load:   L1 sector misses filled from L2
//	L2Store        sim L2Store:  write-through store units
//	memLoadV4      sim memLoad:  DRAM reads, the reads of partially
//	                             written chunks included
//	memStoreV2     sim memStore: DRAM write-backs
//	memStoreEvicts sim dramStoreReadBytes per Lup: the reads of partially
//	                             written chunks before their write-back
type Volumes struct {
	L1Load         float64 `json:"L1Load"`
	L2LoadV2       float64 `json:"L2LoadV2"`
	L2Store        float64 `json:"L2Store"`
	MemLoadV4      float64 `json:"memLoadV4"`
	MemStoreV2     float64 `json:"memStoreV2"`
	MemStoreEvicts float64 `json:"memStoreEvicts"`
}

// Predicted returns the volumes of an estimate.
func Predicted(d model.Derived) Volumes {
	return Volumes{
		L1Load:         d.L1Load,
		L2LoadV2:       d.L2LoadV2,
		L2Store:        d.L2Store,
		MemLoadV4:      d.MemLoadV4,
		MemStoreV2:     d.MemStoreV2,
		MemStoreEvicts: d.MemStoreEvicts,
	}
}

// Simulated returns the volumes of one field's or all fields' simulated
// counts.
func Simulated(v sim.Volumes) Volumes {
	return Volumes{
		L1Load:         v.L1Load,
		L2LoadV2:       v.L2Load,
		L2Store:        v.L2Store,
		MemLoadV4:      v.MemLoad,
		MemStoreV2:     v.MemStore,
		MemStoreEvicts: perLup(v.DRAMStoreReadBytes, v.DRAMLoadBytes, v.MemLoad),
	}
}

// perLup converts bytes to B/Lup with the ratio that sim used for ref, so
// that the lattice-point count need not be passed along.
func perLup(bytes, refBytes int64, refPerLup float64) float64 {
	if refBytes == 0 {
		return 0
	}
	return float64(bytes) * refPerLup / float64(refBytes)
}

// LoadField is one load field's share of the simulated volumes, under the
// keys of model.LoadFieldDerived where they coincide.
type LoadField struct {
	Name      string  `json:"name"`
	L1Load    float64 `json:"L1Load"`
	L2LoadV2  float64 `json:"L2LoadV2"`
	MemLoadV4 float64 `json:"memLoadV4"` // without the reads of partially written chunks
}

// StoreField is one store field's share of the simulated volumes, under
// the keys of model.StoreFieldDerived where they coincide.
type StoreField struct {
	Name           string  `json:"name"`
	L2Store        float64 `json:"L2Store"`
	MemStoreV2     float64 `json:"memStoreV2"`
	MemStoreEvicts float64 `json:"memStoreEvicts"`
}

// SimulatedDerived is a simulation in the shape of model.Derived: the total
// volumes and, like the estimate, one entry per load field and per store
// field (a field with loads and stores appears in both lists).
type SimulatedDerived struct {
	Volumes
	LoadFields  []LoadField  `json:"loadFields,omitempty"`
	StoreFields []StoreField `json:"storeFields,omitempty"`
}

// SimulatedFields splits a simulation of k into its totals and per-field
// volumes. sim counts per kernel field; the DRAM reads of partially written
// chunks go to the field's store entry and the other DRAM reads to its load
// entry.
func SimulatedFields(k *kernel.Kernel, r sim.Result) SimulatedDerived {
	out := SimulatedDerived{Volumes: Simulated(r.Total)}
	for i, f := range k.Fields {
		v := Simulated(r.Fields[i])
		if len(f.Loads) > 0 {
			out.LoadFields = append(out.LoadFields, LoadField{Name: f.Name, L1Load: v.L1Load, L2LoadV2: v.L2LoadV2, MemLoadV4: v.MemLoadV4 - v.MemStoreEvicts})
		}
		if len(f.Stores) > 0 {
			out.StoreFields = append(out.StoreFields, StoreField{Name: f.Name, L2Store: v.L2Store, MemStoreV2: v.MemStoreV2, MemStoreEvicts: v.MemStoreEvicts})
		}
	}
	return out
}
