package request

import (
	"fmt"
	"strings"

	"github.com/polyvol/polyvol/device"
)

// CheckDeviceName checks a device name that source (such as "--device")
// gives, before it is looked up (device.CheckName): its error names the
// flag at fault.
func CheckDeviceName(source, name string) error {
	if err := device.CheckName(name); err != nil {
		field, _ := strings.CutPrefix(source, "--")
		return &Error{Field: field, Err: fmt.Errorf("%s: %v", source, err)}
	}
	return nil
}

// FindDevice returns the device called name among files, the devices of
// the user's device files (canonical name, display name or alias, ignoring
// case), and then in the embedded database (device.Lookup, whose error
// suggests the nearest names), whose error names the field "device".
func FindDevice(name string, files []*device.Device) (*device.Device, error) {
	for _, d := range files {
		for _, n := range append([]string{d.Name, d.DisplayName}, d.Aliases...) {
			if strings.EqualFold(n, name) {
				return d, nil
			}
		}
	}
	d, err := device.Lookup(name)
	if err != nil {
		return nil, &Error{Field: "device", Err: err}
	}
	return d, nil
}
