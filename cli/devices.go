package cli

import (
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/request"
	ucli "github.com/urfave/cli/v2"
)

func init() {
	register(func() *ucli.Command {
		return &ucli.Command{
			Name:         "devices",
			Usage:        "list the known GPUs, or show every parameter of one with its source",
			ArgsUsage:    "[NAME]",
			BashComplete: completeDevices,
			UsageText: `polyvol devices [NAME] [--device-file FILE] [--format table|json]

Without NAME it lists every device of the embedded database and of the
--device-file files. With NAME (canonical name, marketing name or alias) it
shows every parameter of that device and where the number comes from.

Examples:
   polyvol devices
   polyvol devices A100-40GB
   polyvol devices --device-file examples/devices/a100-80mb-l2.yaml \
       A100-80MB-L2
   polyvol devices MI210 --format json`,
			Flags:  []ucli.Flag{deviceFileFlag, formatFlag(formatTable, formatJSON)},
			Action: runDevices,
		}
	})
}

// runDevices is the action of the devices command.
func runDevices(c *ucli.Context) error {
	if c.NArg() > 1 {
		return usageErrorf("devices takes at most one NAME, got %d arguments", c.NArg())
	}
	format, err := outputFormat(c, formatTable, formatJSON)
	if err != nil {
		return err
	}
	w := c.App.Writer
	if c.NArg() == 1 {
		d, err := resolveDevice(c, "devices NAME", c.Args().First())
		if err != nil {
			return err
		}
		if format == formatJSON {
			m, err := request.DeviceMap(d)
			if err != nil {
				return err
			}
			return request.WriteJSONValue(w, m)
		}
		return writeDevice(w, d)
	}
	files, err := loadDeviceFiles(c)
	if err != nil {
		return err
	}
	all := append(device.All(), files...)
	if format == formatJSON {
		return request.WriteDevicesJSON(w, all)
	}
	rows := [][]string{{"name", "display name", "SMs", "clock GHz", "L1 KiB", "L2 MiB", "L2 GB/s", "DRAM GB/s", "L2 / DRAM from"}}
	for _, d := range all {
		l2 := fixed(float64(d.L2Bytes)/(1<<20), 0)
		if d.L2Partitions > 1 {
			l2 = fmt.Sprintf("%dx%s", d.L2Partitions, l2)
		}
		rows = append(rows, []string{d.Name, d.DisplayName, strconv.Itoa(d.SMs), num(d.ClockGHz),
			strconv.FormatInt(d.L1Bytes>>10, 10), l2, num(d.L2BandwidthGBs), num(d.DRAMBandwidthGBs),
			d.SourceClass("l2_bandwidth_gbs") + " / " + d.SourceClass("dram_bandwidth_gbs")})
	}
	if err := writeColumns(w, rows, 2); err != nil {
		return err
	}
	_, err = fmt.Fprintln(w, "\nL2 MiB is the capacity one SM sees; NxM means N partitions that duplicate lines.\n"+
		"Measured bandwidths are achievable ones from micro-benchmarks, spec-sheet ones peaks (docs/devices.md).")
	return err
}

// writeDevice prints every numeric parameter of d with its value and the
// number of its source, then its L1 rules likewise in a table of their
// own, then the sources once each as numbered footnotes.
func writeDevice(w io.Writer, d *device.Device) error {
	fmt.Fprintf(w, "%s (%s), %s %s, L1 model %s\n", d.Name, d.DisplayName, d.Vendor, d.Arch, d.L1Model)
	if len(d.Aliases) > 0 {
		fmt.Fprintf(w, "aliases: %s\n", strings.Join(d.Aliases, ", "))
	}
	if d.BasedOn != "" {
		fmt.Fprintf(w, "based on: %s (the parameters the device file does not set are its own)\n", d.BasedOn)
	}
	fmt.Fprintln(w)
	var sources []string
	number := map[string]int{}
	var rules []deviceParam
	for _, r := range d.Rules().Settings() {
		rules = append(rules, deviceParam{r.Key, r.Value})
	}
	tables := []struct {
		head   string
		params []deviceParam
	}{{"parameter", deviceParams(reflect.ValueOf(*d), "")}, {"L1 rule", rules}}
	for i, table := range tables {
		if i > 0 {
			fmt.Fprintln(w)
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "%s\tvalue\tsource\n", table.head)
		for _, p := range table.params {
			src := d.Source(p.key)
			ref := "-"
			if src != "" {
				if number[src] == 0 {
					sources = append(sources, src)
					number[src] = len(sources)
				}
				ref = fmt.Sprintf("[%d]", number[src])
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\n", p.key, p.value, ref)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	fmt.Fprintln(w, "\nsources (- for none):")
	for i, s := range sources {
		if _, err := fmt.Fprintf(w, "[%d] %s\n", i+1, s); err != nil {
			return err
		}
	}
	return nil
}

// deviceParam is one numeric device parameter or L1 rule under its dotted
// YAML key.
type deviceParam struct{ key, value string }

// deviceParams lists the numeric parameters of a device struct value in
// declaration order, descending into nested structs (limits, latencies)
// with dotted keys. Names, strings, lists and the sources map are left out.
func deviceParams(v reflect.Value, prefix string) []deviceParam {
	var out []deviceParam
	t := v.Type()
	for i := range t.NumField() {
		key := strings.Split(t.Field(i).Tag.Get("yaml"), ",")[0]
		if key == "" || key == "-" {
			continue
		}
		f := v.Field(i)
		switch f.Kind() {
		case reflect.Struct:
			out = append(out, deviceParams(f, prefix+key+".")...)
		case reflect.Int, reflect.Int64:
			out = append(out, deviceParam{prefix + key, strconv.FormatInt(f.Int(), 10)})
		case reflect.Float64:
			out = append(out, deviceParam{prefix + key, num(f.Float())})
		}
	}
	return out
}
