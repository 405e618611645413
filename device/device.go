// Package device describes GPUs: the embedded device database, user device
// files, their validation, and the occupancy calculator. It is pure Go data
// and arithmetic; the engine and model packages receive what they need from
// here as plain values (Memory: granularities, rates and L1 rules; blocks
// per SM).
package device

// L1Model names the family whose L1 rules a device takes unless its
// l1_rules override them (FamilyRules, docs/devices.md).
type L1Model string

// The L1 families.
const (
	L1NV   L1Model = "NV"   // NVIDIA: LSU issue term, four tag lines per cycle, wavefront lane groups, shared memory through the LSUs
	L1CDNA L1Model = "CDNA" // AMD CDNA: access fusion, scalar cache, issue term 1 or 4, two tag banks
	L1RDNA L1Model = "RDNA" // AMD RDNA: access fusion, no issue term, two tag banks
)

// Device is one GPU as the engine and models see it. Sizes are in bytes,
// clocks in GHz, bandwidths in GB/s (10^9 B/s), latencies in core cycles.
// The YAML keys are the schema of device files.
type Device struct {
	Name        string   `yaml:"name"`         // canonical CLI name, e.g. "A100-40GB"
	DisplayName string   `yaml:"display_name"` // marketing name, e.g. "NVIDIA A100-SXM4-40GB"
	Aliases     []string `yaml:"aliases"`      // further accepted names
	Vendor      string   `yaml:"vendor"`       // "nvidia" or "amd"
	Arch        string   `yaml:"arch"`         // e.g. "sm_80", "gfx90a"
	L1Model     L1Model  `yaml:"l1_model"`
	// L1RuleOverrides (the key l1_rules) override rules of the L1Model
	// family, each with its own source; the rules left empty are the
	// family's (Rules).
	L1RuleOverrides L1Rules `yaml:"l1_rules,omitempty"`
	// BasedOn names the database device a device file starts from: every
	// key the file leaves out is that device's, with its source.
	BasedOn string `yaml:"based_on,omitempty"`

	SMs         int     `yaml:"sms"`           // streaming multiprocessors / compute units
	ClockGHz    float64 `yaml:"clock_ghz"`     // core clock used for cycle→time conversion
	WarpSize    int     `yaml:"warp_size"`     // threads per warp/wavefront
	SubWarpSize int     `yaml:"sub_warp_size"` // lanes processed together by the L1 cycle model
	LSUs        int     `yaml:"lsus"`          // load/store units per SM (needed by the lsu_lanes rules; 0 if unused)

	L1Bytes      int64 `yaml:"l1_bytes"`      // L1 capacity per SM
	L2Bytes      int64 `yaml:"l2_bytes"`      // effective L2 capacity seen by one SM
	L2Partitions int   `yaml:"l2_partitions"` // L2 halves that duplicate lines (2 on A100/H100), else 1
	// MemoryCacheBytes is a memory-side cache between the L2 and DRAM
	// (AMD's Infinity Cache on RDNA 2 and 3) where the device's
	// l2_bandwidth_gbs counts its hits, else 0. The volumes do not model
	// it; it decides where the spills of compiled code are held
	// (model.SpillTraffic).
	MemoryCacheBytes int64 `yaml:"memory_cache_bytes,omitempty"`

	L1BankWidth int64 `yaml:"l1_bank_width"` // bytes per cycle over all L1 banks
	// SharedBanks and SharedBankBytes are the banks of shared memory (LDS
	// on AMD) and the bytes each serves per cycle; 0 means the defaults,
	// DefaultSharedBanks of DefaultSharedBankBytes (SharedBankLayout).
	SharedBanks     int64 `yaml:"shared_banks"`
	SharedBankBytes int64 `yaml:"shared_bank_bytes"`
	L1AllocBytes    int64 `yaml:"l1_alloc_bytes"`    // L1 allocation line (CLAllocationSize)
	L1FetchBytes    int64 `yaml:"l1_fetch_bytes"`    // L2→L1 transfer granularity (CLFetchSize)
	L1WriteBytes    int64 `yaml:"l1_write_bytes"`    // L1→L2 store granularity (CLWriteSize)
	DRAMFetchBytes  int64 `yaml:"dram_fetch_bytes"`  // DRAM→L2 load granularity
	DRAMWriteBytes  int64 `yaml:"dram_write_bytes"`  // L2→DRAM store granularity
	TLBPageBytes    int64 `yaml:"tlb_page_bytes"`    // wave-level TLB page (2 MiB)
	L1TLBPageBytes  int64 `yaml:"l1_tlb_page_bytes"` // block-level TLB page (512 KiB)
	// L1TLBReachBytes is the memory an SM's L1 TLB covers, where it is
	// measured; 0: unknown. A block whose accesses span more pages than
	// that misses in the L1 TLB (model.TLBNote).
	L1TLBReachBytes int64 `yaml:"l1_tlb_reach_bytes,omitempty"`

	// L1TagCyclesPerLine replaces the tag term of a warp instruction (the
	// rule l1_rules.tag) by c·lines cycles, unrounded (a throughput: the
	// tag stage resolves 1/c lines per cycle across instructions), where
	// the device's L1 is measured to resolve fewer lines per cycle than the
	// rule assumes; 0 keeps the rule.
	L1TagCyclesPerLine float64 `yaml:"l1_tag_cycles_per_line,omitempty"`
	// BlockLaunchCycles is the time one SM needs to retire a thread block
	// and start the next, in cycles: no SM starts more than one block per
	// BlockLaunchCycles. 0: no such bound.
	BlockLaunchCycles float64 `yaml:"block_launch_cycles,omitempty"`

	FP32PerCycleSM float64 `yaml:"fp32_per_cycle_sm"` // FMA lanes per SM per cycle, single precision
	FP64PerCycleSM float64 `yaml:"fp64_per_cycle_sm"` // FMA lanes per SM per cycle, double precision
	// IssuePerCycleSM is the warp (wavefront) instructions one SM (CU) issues
	// per cycle over all its schedulers: the rate that bounds a kernel whose
	// instructions, not its data, fill the machine. Thread instructions per
	// cycle are IssuePerCycleSM × WarpSize.
	IssuePerCycleSM float64 `yaml:"issue_per_cycle_sm"`

	L2BandwidthGBs   float64 `yaml:"l2_bandwidth_gbs"`
	DRAMBandwidthGBs float64 `yaml:"dram_bandwidth_gbs"`

	Limits    Limits    `yaml:"limits"`
	Latencies Latencies `yaml:"latencies"`

	// Sources records where the numbers come from (spec sheet, paper table,
	// measurement; estimates say so). Each entry's key is a comma-separated
	// list of numeric keys ("sms, clock_ghz", "latencies.l1_cycles") or of the
	// groups "limits" and "latencies", which cover every key below them
	// unless the key has its own entry. Validate requires a source for every
	// non-zero number and allows each key or group in one entry only.
	Sources map[string]string `yaml:"sources"`
}

// Limits are the per-SM occupancy resources of a device.
type Limits struct {
	RegistersPerSM         int   `yaml:"registers_per_sm"` // 32-bit registers in the register file
	MaxRegistersPerThread  int   `yaml:"max_registers_per_thread"`
	RegisterAllocUnit      int   `yaml:"register_alloc_unit"`    // registers allocated per warp in units of this many
	WarpAllocGranularity   int   `yaml:"warp_alloc_granularity"` // warps per register-allocation group
	MaxThreadsPerSM        int   `yaml:"max_threads_per_sm"`
	MaxWarpsPerSM          int   `yaml:"max_warps_per_sm"`
	MaxBlocksPerSM         int   `yaml:"max_blocks_per_sm"`
	MaxThreadsPerBlock     int   `yaml:"max_threads_per_block"`
	SharedPerSM            int64 `yaml:"shared_per_sm"`             // bytes usable by blocks on one SM
	SharedPerBlock         int64 `yaml:"shared_per_block"`          // max bytes one block may use
	SharedReservedPerBlock int64 `yaml:"shared_reserved_per_block"` // bytes the runtime reserves per block
	SharedAllocUnit        int64 `yaml:"shared_alloc_unit"`         // shared memory allocation granularity
}

// Latencies are the unloaded latencies used by the latency-aware model.
type Latencies struct {
	DRAMCycles float64 `yaml:"dram_cycles"` // global load that misses L2
	L2Cycles   float64 `yaml:"l2_cycles"`   // global load that hits L2
	L1Cycles   float64 `yaml:"l1_cycles"`   // global load that hits L1
	FPCycles   float64 `yaml:"fp_cycles"`   // dependent FP add/FMA
}

// DefaultSharedBanks and DefaultSharedBankBytes are the shared-memory
// banks of every GPU in the database: 32 banks of 4 bytes, successive 4-byte
// words in successive banks, each bank serving one word per cycle (CUDA C++
// Programming Guide, "Shared Memory" of compute capabilities 5.x to 9.0;
// AMD's RDNA and CDNA ISA guides: an LDS of 32 banks of 32-bit dwords).
const (
	DefaultSharedBanks     = 32
	DefaultSharedBankBytes = 4
)

// SharedBankLayout returns the device's shared-memory banks and bytes per
// bank, the defaults where the entry gives none.
func (d *Device) SharedBankLayout() (banks, bankBytes int64) {
	banks, bankBytes = d.SharedBanks, d.SharedBankBytes
	if banks == 0 {
		banks = DefaultSharedBanks
	}
	if bankBytes == 0 {
		bankBytes = DefaultSharedBankBytes
	}
	return banks, bankBytes
}
