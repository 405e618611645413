package model

import (
	"fmt"

	"github.com/polyvol/polyvol/device"
)

// TLBNote describes, for a note on standard error, a block of report r
// whose accesses span more distinct pages (device.L1TLBPageBytes) than the
// device's L1 TLB covers (device.L1TLBReachBytes), or returns "" when
// they do not or the reach is unknown. The estimate does not charge the
// misses: on the V100's box block scan such blocks ran 12–200 % slower
// than predicted, from one measured GPU only (docs/accuracy-hardware.md).
func TLBNote(r *Report, dev *device.Device) string {
	if dev.L1TLBReachBytes <= 0 || dev.L1TLBPageBytes <= 0 {
		return ""
	}
	reach := float64(dev.L1TLBReachBytes / dev.L1TLBPageBytes)
	pages := r.Basic.BlockL1TLBPages
	if pages <= reach {
		return ""
	}
	return fmt.Sprintf("a block spans %.0f distinct pages of %d KiB, more than the %.0f (%d MiB) that the L1 TLB of %s covers: its loads miss in the TLB, which the estimate does not charge (on the V100 such blocks ran 12-200 %% slower than predicted)",
		pages, dev.L1TLBPageBytes>>10, reach, dev.L1TLBReachBytes>>20, dev.Name)
}
