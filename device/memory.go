package device

// Memory is a device as the counter (package footprint) sees it: the
// granularities and rates of its memory path and the L1 rules it follows,
// with no vendor or family in it, so that a device that differs in any of
// them is data. Build it with Device.Memory; the field names and meanings
// are the Device's.
type Memory struct {
	Name        string // the device's canonical name, for errors
	WarpSize    int
	SubWarpSize int
	LSUs        int

	L1AllocBytes   int64
	L1FetchBytes   int64
	L1WriteBytes   int64
	L1BankWidth    int64
	L1TLBPageBytes int64
	// L1TagCyclesPerLine, where positive, replaces the tag rule's term by
	// L1TagCyclesPerLine·lines cycles (Device.L1TagCyclesPerLine).
	L1TagCyclesPerLine float64

	// SharedBanks and SharedBankBytes are the shared-memory banks and the
	// bytes each serves per cycle, defaults applied (SharedBankLayout).
	SharedBanks, SharedBankBytes int64

	Rules L1Rules // the family's rules with the device's overrides
}

// Memory returns the counter's view of d.
func (d *Device) Memory() Memory {
	banks, bankBytes := d.SharedBankLayout()
	return Memory{
		Name: d.Name, WarpSize: d.WarpSize, SubWarpSize: d.SubWarpSize, LSUs: d.LSUs,
		L1AllocBytes: d.L1AllocBytes, L1FetchBytes: d.L1FetchBytes, L1WriteBytes: d.L1WriteBytes,
		L1BankWidth: d.L1BankWidth, L1TLBPageBytes: d.L1TLBPageBytes, L1TagCyclesPerLine: d.L1TagCyclesPerLine,
		SharedBanks: banks, SharedBankBytes: bankBytes,
		Rules: d.Rules(),
	}
}
