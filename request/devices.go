package request

import (
	"io"

	"github.com/polyvol/polyvol/device"
	"go.yaml.in/yaml/v3"
)

// DeviceMap returns d as the mapping of its device-file schema (YAML keys),
// so that the JSON of a device uses the same names as device files.
func DeviceMap(d *device.Device) (map[string]any, error) {
	data, err := yaml.Marshal(d)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	return m, yaml.Unmarshal(data, &m)
}

// WriteDevicesJSON writes the JSON list of devs (DeviceMap), as polyvol
// devices --format json and the HTTP API's /api/devices answer it.
func WriteDevicesJSON(w io.Writer, devs []*device.Device) error {
	list := make([]map[string]any, len(devs))
	for i, d := range devs {
		var err error
		if list[i], err = DeviceMap(d); err != nil {
			return err
		}
	}
	return WriteJSONValue(w, list)
}
