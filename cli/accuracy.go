package cli

import (
	"fmt"
	"github.com/polyvol/polyvol/request"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/polyvol/polyvol/accuracy"
	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/model"
	ucli "github.com/urfave/cli/v2"
)

// defaultAccuracyDevices are the devices of the accuracy report: the real
// A100 and the hypothetical small-L2 one that makes L2 capacity matter at
// simulate-able domains.
var defaultAccuracyDevices = defaultDevice + "," + accuracy.SmallL2Device().Name

func init() {
	register(func() *ucli.Command {
		return &ucli.Command{
			Name:  "accuracy",
			Usage: "compare predicted volumes with the cache simulator over block-size sweeps (markdown report)",
			UsageText: `polyvol accuracy [--devices A,B] [--kernels K1,K2] [--refit] [-o FILE.md]

Runs the example kernels over block-size sweeps at small domains, estimates
every configuration with both methods (as 'polyvol predict') and simulates it
(as 'polyvol simulate' with the device's capacities, lockstep schedule), and
reports per level and method the MAPE against the simulation, the Pearson
correlation, Spearman's ρ over the block sizes of each kernel and whether the
predicted best block size is within 5 % of the simulated best.

Levels: L2→L1 load = L2LoadV2 (simulated L2Load), DRAM load = memLoadV4
(simulated memLoad), DRAM store = memStoreV2 (simulated memStore), and the
compulsory L1Load and L2Store. The device A100-2MB-L2 is a hypothetical A100
with a 2 MiB L2 (accuracy/devices/a100-2mb-l2.yaml): at these domains the real
20 MiB L2 never fills. --refit fits the exact method's L1, overlap and L2
curves to the star-stencil sweeps and adds the fitted variant to the report.
GPU measurements are compared by 'polyvol measured'.

Examples:
   polyvol accuracy -o docs/accuracy.md
   polyvol accuracy --refit -o /tmp/refit.md
   polyvol accuracy --kernels vec-copy,transpose2d --devices A100-40GB`,
			Flags: []ucli.Flag{
				&ucli.StringFlag{Name: "devices", Value: defaultAccuracyDevices, Usage: "comma-separated GPU `NAMES`"},
				deviceFileFlag,
				&ucli.StringFlag{Name: "kernels", Usage: "comma-separated subset of the default `KERNELS` (default: all)"},
				&ucli.BoolFlag{Name: "refit", Usage: "refit the exact method's capacity curves on the training kernels"},
				&ucli.IntFlag{Name: "workers", Value: runtime.GOMAXPROCS(0), Usage: "parallel `N` workers (the report does not depend on it)"},
				&ucli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the report to `FILE` instead of standard output", TakesFile: true},
			},
			Action: runAccuracy,
		}
	})
}

// runAccuracy is the action of the accuracy command.
func runAccuracy(c *ucli.Context) error {
	if c.NArg() > 0 {
		return usageErrorf("accuracy takes no arguments, got %d", c.NArg())
	}
	if err := checkOutputFlag(c, "output"); err != nil {
		return err
	}
	if c.Int("workers") < 1 {
		return flagErrorf("workers", "--workers %d: expected a positive number", c.Int("workers"))
	}
	cases, err := accuracyCases(c.String("kernels"))
	if err != nil {
		return err
	}
	devs, err := accuracyDevices(c)
	if err != nil {
		return err
	}
	var bar *progress
	start := time.Now()
	sweeps, err := accuracy.Run(accuracy.Config{
		Cases: cases, Devices: devs, Workers: c.Int("workers"),
		Load: func(spec string, domain [3]int64) (*kernel.Kernel, error) {
			k, err := loadKernel(c, spec)
			if err != nil {
				return nil, err
			}
			return request.KernelAt(k, domain)
		},
		Progress: func(done, total int) {
			if bar == nil {
				bar = newProgress(c.App.ErrWriter, total, "accuracy")
			}
			bar.add()
		},
	})
	if bar != nil {
		bar.finish()
	}
	if err != nil {
		return err
	}
	variants := []accuracy.Variant{accuracy.Exact, accuracy.Reference}
	if model.MethodExact.Curves.Name != model.PaperEraCurves.Name {
		variants = append(variants, accuracy.Exact.WithCurves(model.PaperEraCurves))
	}
	rep := accuracy.Report{
		Command:  accuracyCommand(c),
		Sweeps:   sweeps,
		Variants: variants,
		SimNote:  "the device's L1 and L2 capacities, fully associative LRU caches, one shared L2, lockstep schedule",
	}
	if c.Bool("refit") {
		fit, err := accuracy.Refit(sweeps, accuracy.Exact.WithCurves(model.PaperEraCurves), "refit",
			"polyvol accuracy --refit", func(s *accuracy.Sweep) bool { return s.Case.Train })
		if err != nil {
			return err
		}
		rep.Fit = &fit
		rep.Variants = append(rep.Variants, accuracy.Exact.WithCurves(fit.Curves))
	}
	fmt.Fprintf(c.App.ErrWriter, "accuracy: %d sweeps in %s\n", len(sweeps), time.Since(start).Round(time.Second))
	out := c.String("output")
	if out == "" {
		return accuracy.WriteReport(c.App.Writer, rep)
	}
	var b strings.Builder
	if err := accuracy.WriteReport(&b, rep); err != nil {
		return err
	}
	if err := os.WriteFile(out, []byte(b.String()), 0o644); err != nil {
		return flagErrorf("output", "--output: %v", err)
	}
	fmt.Fprintf(c.App.ErrWriter, "wrote %s\n", out)
	return nil
}

// accuracyDevices returns the devices of the --devices flag: names of the
// database or the device files, or the small-L2 device of the report.
func accuracyDevices(c *ucli.Context) ([]*device.Device, error) {
	var devs []*device.Device
	small := accuracy.SmallL2Device()
	for _, name := range strings.Split(c.String("devices"), ",") {
		name = strings.TrimSpace(name)
		if strings.EqualFold(name, small.Name) {
			devs = append(devs, small)
			continue
		}
		d, err := resolveDevice(c, "--devices", name)
		if err != nil {
			return nil, err
		}
		devs = append(devs, d)
	}
	return devs, nil
}

// accuracyCases returns the default cases, restricted to the comma-separated
// kernels when the list is not empty.
func accuracyCases(list string) ([]accuracy.Case, error) {
	if list == "" {
		return accuracy.DefaultCases, nil
	}
	var out []accuracy.Case
	var known []string
	for _, c := range accuracy.DefaultCases {
		known = append(known, c.Spec)
	}
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		found := false
		for _, c := range accuracy.DefaultCases {
			if c.Spec == name {
				out = append(out, c)
				found = true
			}
		}
		if !found {
			return nil, flagErrorf("kernels", "--kernels: %q is not a kernel of the accuracy sweeps (%s)", name, strings.Join(known, ", "))
		}
	}
	return out, nil
}

// accuracyCommand is the command line that regenerates the report: the
// flags that change it, in a fixed order.
func accuracyCommand(c *ucli.Context) string {
	cmd := "polyvol accuracy"
	for _, f := range []string{"devices", "kernels"} {
		if c.IsSet(f) {
			cmd += fmt.Sprintf(" --%s %s", f, c.String(f))
		}
	}
	for _, f := range c.StringSlice(deviceFileFlag.Name) {
		cmd += " --device-file " + f
	}
	if c.Bool("refit") {
		cmd += " --refit"
	}
	if out := c.String("output"); out != "" {
		cmd += " -o " + out
	}
	return cmd
}
