package cli

import (
	"fmt"
	"github.com/polyvol/polyvol/request"
	"io"
	"math"
	"os"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/model"
	ucli "github.com/urfave/cli/v2"
)

// ProjectOutput is the JSON output of project (docs/json.md).
type ProjectOutput struct {
	Profile string `json:"profile"` // the profile file
	// Mode is "pure" (the profile's bytes on both GPUs) or "volumes" (bytes
	// per level estimated on each GPU for --spec).
	Mode string `json:"mode"`
	// ProfileBytes are the profile's measured bytes per level.
	ProfileBytes model.LevelBytes `json:"profileBytes"`
	// SourceBytes and TargetBytes are the bytes per level the projection
	// used on each GPU.
	SourceBytes model.LevelBytes `json:"sourceBytes"`
	TargetBytes model.LevelBytes `json:"targetBytes"`
	// Source and Target are the estimates behind the volumes (mode "volumes").
	Source     *model.Report    `json:"sourceEstimate,omitempty"`
	Target     *model.Report    `json:"targetEstimate,omitempty"`
	Projection model.Projection `json:"projection"`
}

func init() {
	register(func() *ucli.Command {
		return &ucli.Command{
			Name:  "project",
			Usage: "project a measured profile from one GPU onto another (hierarchical roofline)",
			UsageText: `polyvol project --profile FILE.json --from DEV --to DEV [--spec SPEC [--block X,Y,Z] [--fold X,Y,Z]]

The profile (JSON: timeS, flops, bytes {L1, shared, L2, DRAM},
activeThreadsPerInstr, fmaInstr, addMulInstr) was measured on --from.
The ceilings of both GPUs are the device numbers predict uses: bandwidths
from the device database or --device-file (measured where the database has
a measurement, docs/devices.md), FMA peak and L1 from lanes, clock and SMs.
Without --spec the projection assumes the same bytes per level on both GPUs
(model.Project). With --spec both GPUs' bytes per level are estimated for
the spec's domain and launch (model.Estimate on each GPU) and the time is
projected with those (model.ProjectWithVolumes): L1 = L1 load + L2 store,
L2 = L2 load V2 + store, DRAM = DRAM load V3 + store V2, times the Lups;
shared-memory bytes stay the profile's.

Examples:
   polyvol project --profile \
       examples/profiles/star3d-r4-a100-illustrative.json \
       --from A100-40GB --to H100-SXM
   polyvol project --profile \
       examples/profiles/star3d-r4-a100-illustrative.json \
       --from A100-40GB --to H100-SXM \
       --spec star3d-r4 --block 256,1,2 --format json`,
			Flags: []ucli.Flag{
				&ucli.StringFlag{Name: "profile", TakesFile: true, Usage: "measured profile `FILE` (JSON)"},
				&ucli.StringFlag{Name: "from", Usage: "GPU `NAME` the profile was measured on"},
				&ucli.StringFlag{Name: "to", Usage: "GPU `NAME` to project onto"},
				deviceFileFlag,
				&ucli.StringFlag{Name: "spec", Usage: "kernel `SPEC` (file or example) to estimate the bytes per level on each GPU"},
				&ucli.StringFlag{Name: "block", Usage: "thread-block size `X,Y,Z` for --spec (default: by domain dimensions)"},
				&ucli.StringFlag{Name: "fold", Value: "1,1,1", Usage: "thread folding `X,Y,Z` for --spec"},
				&ucli.IntFlag{Name: "fp-type", Usage: "floating-point `BYTES` (4 or 8) for the flop ceilings", DefaultText: "the spec's, else 8"},
				formatFlag(formatTable, formatJSON),
				&choiceFlag{&ucli.StringFlag{Name: "method", Value: "exact", Usage: "estimation `METHOD` for --spec: exact or reference"}, methodChoices},
				&ucli.StringFlag{Name: "domain", Usage: "override the spec's domain with `X,Y,Z` lattice points"},
			},
			Action: runProject,
		}
	})
}

// checkProfileFile rejects a --profile path that is not a regular file
// before model.LoadProfile opens it, so that a named pipe cannot block it
// (LoadProfile itself reads at most model.MaxProfileBytes).
func checkProfileFile(path string) error {
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return flagErrorf("profile", "--profile: %v", err)
	case !fi.Mode().IsRegular():
		return flagErrorf("profile", "--profile %s: not a regular file; a profile is a small JSON file", path)
	}
	return nil
}

// runProject is the action of the project command.
func runProject(c *ucli.Context) error {
	if c.NArg() > 0 {
		return usageErrorf("project takes no arguments, got %d", c.NArg())
	}
	for _, f := range []string{"profile", "from", "to"} {
		if !c.IsSet(f) {
			return flagErrorf(f, "--%s is required", f)
		}
	}
	format, err := outputFormat(c, formatTable, formatJSON)
	if err != nil {
		return err
	}
	path := c.String("profile")
	if err := checkProfileFile(path); err != nil {
		return err
	}
	p, err := model.LoadProfile(path)
	if err != nil {
		return asUsage(err)
	}
	from, err := resolveDevice(c, "--from", c.String("from"))
	if err != nil {
		return err
	}
	to, err := resolveDevice(c, "--to", c.String("to"))
	if err != nil {
		return err
	}
	out := ProjectOutput{Profile: path, Mode: "pure", ProfileBytes: p.Bytes, SourceBytes: p.Bytes, TargetBytes: p.Bytes}
	fpType := 8
	var k *kernel.Kernel
	if c.IsSet("spec") {
		if k, err = loadKernel(c, c.String("spec")); err != nil {
			return err
		}
		if k, err = applyDomain(c, k); err != nil {
			return err
		}
		fpType = k.FPType
	} else {
		for _, f := range []string{"block", "fold", "domain", "method"} {
			if c.IsSet(f) {
				return flagErrorf(f, "--%s needs --spec", f)
			}
		}
	}
	if c.IsSet("fp-type") {
		if fpType = c.Int("fp-type"); fpType != 4 && fpType != 8 {
			return flagErrorf("fp-type", "--fp-type %d: expected 4 or 8", fpType)
		}
	}
	src, err := model.CeilingsFor(*from, fpType)
	if err != nil {
		return asUsage(err)
	}
	tgt, err := model.CeilingsFor(*to, fpType)
	if err != nil {
		return asUsage(err)
	}
	if k == nil {
		out.Projection, err = model.Project(p, src, tgt)
	} else {
		if err := estimateBoth(c, k, from, to, &out); err != nil {
			return err
		}
		if spec := k.Flops * float64(k.Lups()); p.Flops > 0 && math.Abs(spec-p.Flops) > 0.1*p.Flops {
			fmt.Fprintf(c.App.ErrWriter, "polyvol: note: the profile's %s flops differ from the spec's %s (flops per Lup times Lups) by more than 10%%; was the profile measured on the spec's domain?\n", sci(p.Flops), sci(spec))
		}
		p.Bytes = out.SourceBytes
		out.Projection, err = model.ProjectWithVolumes(p, src, tgt, out.TargetBytes)
	}
	if err != nil {
		return usageErrorf("%s: %v", path, err)
	}
	if format == formatJSON {
		return request.WriteJSON(c.App.Writer, out)
	}
	return writeProjection(c.App.Writer, &out, p)
}

// estimateBoth estimates k on both GPUs with the --block, --fold and
// --method flags and fills in the bytes per level of out.
func estimateBoth(c *ucli.Context, k *kernel.Kernel, from, to *device.Device, out *ProjectOutput) error {
	block := request.DefaultBlock(k)
	var err error
	if c.IsSet("block") {
		if block, err = request.ParseTriple("block", c.String("block")); err != nil {
			return err
		}
	}
	fold, err := request.ParseTriple("fold", c.String("fold"))
	if err != nil {
		return err
	}
	method, err := parseMethod(c)
	if err != nil {
		return err
	}
	opt := model.Options{Method: method, Model: model.ModelRoofline}
	l := k.NewLaunch(block, fold)
	if err := l.Validate(); err != nil {
		return asUsage(err)
	}
	reports := [2]*model.Report{}
	for i, d := range []*device.Device{from, to} {
		if reports[i], err = model.Estimate(k, l, d, opt); err != nil {
			return request.EstimateError(l, err)
		}
	}
	out.Mode, out.Source, out.Target = "volumes", reports[0], reports[1]
	shared := out.SourceBytes.Shared
	out.SourceBytes, out.TargetBytes = levelBytes(reports[0], shared), levelBytes(reports[1], shared)
	return nil
}

// levelBytes converts an estimate to total bytes per memory level for the
// roofline projection: L1 = L1 load + L2 store (stores pass through L1),
// L2 = L2 total V2, DRAM = DRAM load V3 + store V2 (the volumes of the
// predicted V3 limiters), L2 and DRAM with the spill traffic that reaches
// them, each times the Lups of the domain.
func levelBytes(r *model.Report, shared float64) model.LevelBytes {
	d, lups := r.Derived, float64(r.Launch.LupCount)
	return model.LevelBytes{
		L1:     (d.L1Load + d.L2Store) * lups,
		Shared: shared,
		L2:     d.L2Traffic() * lups,
		DRAM:   d.DRAMTraffic() * lups,
	}
}

// writeProjection prints the ceilings, the bytes and the per-level times.
func writeProjection(w io.Writer, out *ProjectOutput, p model.Profile) error {
	pr := out.Projection
	fmt.Fprintf(w, "projection of %s from %s to %s (%s)\n\n", out.Profile, pr.Source.Device, pr.Target.Device, map[string]string{
		"pure":    "pure: the same bytes per level on both GPUs",
		"volumes": "volume-aware: bytes per level estimated on each GPU",
	}[out.Mode])
	rows := [][]string{
		{"ceiling", pr.Source.Device, pr.Target.Device},
		{"FMA GFlop/s", fixed(pr.Source.PerfGFlops, 0), fixed(pr.Target.PerfGFlops, 0)},
		{"L1 GB/s", fixed(pr.Source.L1GBs, 0), fixed(pr.Target.L1GBs, 0)},
		{"L2 GB/s", fixed(pr.Source.L2GBs, 0), fixed(pr.Target.L2GBs, 0)},
		{"DRAM GB/s", fixed(pr.Source.DRAMGBs, 0), fixed(pr.Target.DRAMGBs, 0)},
		nil,
	}
	levels := []struct {
		name                     string
		measured, source, target float64
	}{
		{"L1", out.ProfileBytes.L1, out.SourceBytes.L1, out.TargetBytes.L1},
		{"shared", out.ProfileBytes.Shared, out.SourceBytes.Shared, out.TargetBytes.Shared},
		{"L2", out.ProfileBytes.L2, out.SourceBytes.L2, out.TargetBytes.L2},
		{"DRAM", out.ProfileBytes.DRAM, out.SourceBytes.DRAM, out.TargetBytes.DRAM},
	}
	if out.Mode == "pure" {
		rows = append(rows, []string{"bytes", "measured"})
	} else {
		rows = append(rows, []string{"bytes", "measured", "source est.", "target est."})
	}
	for _, l := range levels {
		if out.Mode == "pure" {
			rows = append(rows, []string{l.name, sci(l.measured)})
		} else {
			rows = append(rows, []string{l.name, sci(l.measured), sci(l.source), sci(l.target)})
		}
	}
	rows = append(rows, nil, []string{"level", "source GFlop/s", "target GFlop/s", "target time s"})
	for _, l := range pr.Levels {
		rows = append(rows, []string{l.Level, fixed(l.SourceRoofGFlops, 1), fixed(l.TargetRoofGFlops, 1), sci(l.TimeS)})
	}
	if err := writeTable(w, rows); err != nil {
		return err
	}
	if pr.Source.Provenance == pr.Target.Provenance {
		fmt.Fprintf(w, "\nceilings: %s\n", pr.Source.Provenance)
	} else {
		fmt.Fprintf(w, "\nceilings: %s (source); %s (target)\n", pr.Source.Provenance, pr.Target.Provenance)
	}
	_, err := fmt.Fprintf(w, "measured %s s on %s; projected %s to %s s on %s (speed-up %s to %s)\n",
		sci(p.TimeS), pr.Source.Device, sci(pr.MinTimeS), sci(pr.MaxTimeS), pr.Target.Device,
		fixed(p.TimeS/pr.MaxTimeS, 2), fixed(p.TimeS/pr.MinTimeS, 2))
	return err
}

// sci formats v with four significant digits in scientific notation.
func sci(v float64) string { return fmt.Sprintf("%.4g", v) }
