package model

import (
	"fmt"

	"github.com/polyvol/polyvol/compiled"
	"github.com/polyvol/polyvol/device"
)

// SpillTraffic is the memory traffic of a compiled kernel's spills: the
// local (PTX) or scratch (AMDGPU) loads and stores that the compiler
// writes for the values its registers cannot hold. Each lane's spill slots
// are laid out apart from the other lanes' so that a warp's access is
// coalesced, and the traffic passes the cache levels as any access does:
// it costs L1 data-pipe cycles, and where the spill slots of the resident
// threads do not fit a level, that level's bandwidth too.
type SpillTraffic struct {
	// BytesPerLup is the bytes the spill accesses move per lattice update
	// (compiled.Counts.LocalBytes per update).
	BytesPerLup float64 `json:"bytesPerLup"`
	// ResidentBytesPerSM is the spill slots of the threads resident on
	// one SM: blocks per SM × threads per block × the code's spill bytes
	// per thread.
	ResidentBytesPerSM int64 `json:"residentBytesPerSM"`
	// Level is the level that holds the resident spill slots: L1 where
	// they fit one SM's L1, L2 where every SM's fit the L2 and the memory
	// cache behind it (device.MemoryCacheBytes, whose hits the L2
	// bandwidth counts), else DRAM.
	Level Limiter `json:"level"`
}

// spillTraffic returns the spill traffic of code, whose thread computes
// lupsPerThread updates, for blocksPerSM blocks of threadsPerBlock threads
// per SM on dev; zero where the code does not spill.
func spillTraffic(code *compiled.Code, lupsPerThread, blocksPerSM, threadsPerBlock int64, dev device.Device) SpillTraffic {
	if code.Counts.LocalBytes <= 0 {
		return SpillTraffic{}
	}
	s := SpillTraffic{BytesPerLup: code.Counts.LocalBytes / float64(lupsPerThread), ResidentBytesPerSM: blocksPerSM * threadsPerBlock * code.SpillBytes, Level: LimiterL1}
	switch {
	case s.ResidentBytesPerSM > dev.L1Bytes && s.ResidentBytesPerSM*int64(dev.SMs) > dev.L2Bytes+dev.MemoryCacheBytes:
		s.Level = LimiterDRAM
	case s.ResidentBytesPerSM > dev.L1Bytes:
		s.Level = LimiterL2
	}
	return s
}

// l1Cycles returns the L1 data-pipe cycles per update of the spill
// traffic: its bytes over the L1's bytes per cycle.
func (s SpillTraffic) l1Cycles(dev device.Device) float64 {
	if s.BytesPerLup == 0 || dev.L1BankWidth <= 0 {
		return 0
	}
	return s.BytesPerLup / float64(dev.L1BankWidth)
}

// at returns the spill bytes per update that reach level (L2 or DRAM).
func (s SpillTraffic) at(level Limiter) float64 {
	if s.Level >= level {
		return s.BytesPerLup
	}
	return 0
}

// SpillNote says what report r's spills cost: their bytes per update and
// the level that holds them; "" without spills.
func SpillNote(r *Report) string {
	s := r.Derived.Spill
	if s.BytesPerLup == 0 {
		return ""
	}
	return fmt.Sprintf("the compiled code spills: %.0f bytes per update of local or scratch traffic; the spill slots of the threads on one SM take %d bytes, so %s holds them and carries that traffic beside the fields'",
		s.BytesPerLup, s.ResidentBytesPerSM, s.Level)
}
