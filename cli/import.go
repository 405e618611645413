package cli

// The import command: Polly JSCoP files and Kerncraft kernel descriptions
// turned into polyvol specs (package importer), and the .jscop files that
// the commands accept directly as SPEC (loadKernel).

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/polyvol/polyvol/importer"
	"github.com/polyvol/polyvol/importer/jscop"
	"github.com/polyvol/polyvol/importer/kerncraft"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/printable"
	ucli "github.com/urfave/cli/v2"
)

// Input formats of the import command.
const (
	importJSCoP     = "jscop"
	importKerncraft = "kerncraft"
)

// Output formats of the import command.
const (
	formatYAML = "yaml"
)

// importSpecFlags are the flags that say how a JSCoP or Kerncraft file
// becomes a spec: parameter values, the statement and the loop mapping.
// A command that has them passes them on when its SPEC is a .jscop file.
func importSpecFlags() []ucli.Flag {
	return []ucli.Flag{
		&ucli.StringSliceFlag{Name: "D", Aliases: []string{"define"}, Usage: "bind parameter or constant `NAME=VALUE` (repeatable, or comma-separated)"},
		&ucli.StringFlag{Name: "statement", Usage: "import the JSCoP statement `NAME` (default: the only one)"},
		&ucli.StringFlag{Name: "map", Usage: "map loops to lattice coordinates, e.g. `i0=y,i1=x` (default: innermost loop x, then y, z)"},
	}
}

func init() {
	register(func() *ucli.Command {
		return &ucli.Command{
			Name:      "import",
			Usage:     "turn a Polly JSCoP file or a Kerncraft kernel description into a polyvol spec",
			ArgsUsage: "jscop|kerncraft FILE",
			UsageText: `polyvol import jscop FILE.jscop [-D N=4096 ...] [--statement S] [--map i0=y,i1=x] [--format yaml|json] [-o FILE]
polyvol import kerncraft FILE.yml -D N=1000 ... [options]

jscop reads the JSON that Polly writes with -polly-export-jscop: the
statement's domain becomes the lattice (shifted to start at 0, the innermost
loop x), its arrays the fields (MemRef_A becomes A, the element size comes
from the type, a leading "*" size from the accessed range) and its accesses
raw ISL maps under load_isl and store_isl. kerncraft reads Kerncraft's
kernel description YAML (arrays, loops, data sources, data destinations,
flops). -D binds the parameters and constants. FILE - reads standard input.
The spec goes to standard output, or to -o FILE.

predict, explore and layercond also take a .jscop file directly as SPEC.

Examples:
   polyvol import jscop examples/polyhedral/star2d-5pt.jscop -D N=4096
   polyvol import jscop examples/polyhedral/star2d-5pt.jscop -D N=4096 | polyvol explore - --device H100-SXM
   polyvol import jscop examples/polyhedral/lbm-d3q19-aos.jscop -D N=256 --flops 200 --registers 64 -o lbm.yaml
   polyvol import kerncraft examples/polyhedral/star3d-7pt.yml -D M=514 -D N=514 --format json`,
			Flags: append(importSpecFlags(),
				&ucli.StringFlag{Name: "format", Value: formatYAML, Usage: "output `FORMAT`: yaml or json"},
				&ucli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the spec to `FILE` instead of standard output", TakesFile: true},
				&ucli.StringFlag{Name: "name", Usage: "the spec's `NAME` (default: the file name)"},
				&ucli.Float64Flag{Name: "flops", Usage: "floating-point `OPS` per lattice update", DefaultText: "Kerncraft's flops, 0 for a JSCoP"},
				&ucli.IntFlag{Name: "registers", Usage: "`N` registers per thread", DefaultText: fmt.Sprint(kernel.DefaultRegisters)},
			),
			Action: runImport,
		}
	})
}

// runImport is the action of the import command.
func runImport(c *ucli.Context) error {
	if c.NArg() != 2 {
		return usageErrorf("import takes a format (jscop or kerncraft) and a FILE, got %d arguments", c.NArg())
	}
	kind, err := parseChoice("format argument", c.Args().Get(0), importJSCoP, importKerncraft)
	if err != nil {
		return usageErrorf("import %q: expected jscop or kerncraft", c.Args().Get(0))
	}
	format, err := parseChoice("format", c.String("format"), formatYAML, formatJSON)
	if err != nil {
		return err
	}
	opt, err := importOptions(c)
	if err != nil {
		return err
	}
	if c.IsSet("name") {
		if opt.Name = strings.TrimSpace(c.String("name")); opt.Name == "" {
			return usageErrorf("--name: must not be empty")
		}
		if err := printable.Check(opt.Name); err != nil {
			return usageErrorf("--name: %v", err)
		}
	}
	if c.IsSet("flops") {
		f := c.Float64("flops")
		if !(f >= 0 && f <= 1e9) {
			return usageErrorf("--flops %g: expected 0 to 10^9 operations per lattice update", f)
		}
		opt.Flops = &f
	}
	if c.IsSet("registers") {
		if opt.Registers = c.Int("registers"); opt.Registers < 1 || opt.Registers > 255 {
			return usageErrorf("--registers %d: expected 1 to 255", opt.Registers)
		}
	}
	path := c.Args().Get(1)
	data, name, err := readImportFile(c, path)
	if err != nil {
		return err
	}
	var res *importer.Result
	if kind == importJSCoP {
		res, err = jscop.Import(data, name, opt)
	} else {
		res, err = kerncraft.Import(data, name, opt)
	}
	if err != nil {
		return asUsage(err)
	}
	for _, n := range res.Notes {
		fmt.Fprintf(c.App.ErrWriter, "polyvol: note: %s\n", n)
	}
	out := res.YAML()
	if format == formatJSON {
		out = res.JSON()
	}
	if file := c.String("output"); file != "" {
		if err := os.WriteFile(file, out, 0o644); err != nil {
			return usageErrorf("-o: %v", err)
		}
		return nil
	}
	_, err = c.App.Writer.Write(out)
	return err
}

// readImportFile reads the file to import ("-": standard input) and
// returns its contents and its name for messages.
func readImportFile(c *ucli.Context, path string) ([]byte, string, error) {
	var r io.Reader
	name := path
	if path == stdinSpec {
		r, name = c.App.Reader, "<stdin>"
	} else {
		f, err := os.Open(path)
		if err != nil {
			return nil, "", asUsage(err)
		}
		defer f.Close()
		r = f
	}
	data, err := io.ReadAll(io.LimitReader(r, jscop.MaxBytes+1))
	if err != nil {
		return nil, "", usageErrorf("%s: %v", name, err)
	}
	return data, name, nil
}

// importOptions returns the importer options of the importSpecFlags that
// c's command has.
func importOptions(c *ucli.Context) (importer.Options, error) {
	var opt importer.Options
	var err error
	if opt.Params, err = importer.ParseDefines(c.StringSlice("D")); err != nil {
		return opt, asUsage(err)
	}
	opt.Statement = c.String("statement")
	if opt.Map, err = importer.ParseMap(c.String("map")); err != nil {
		return opt, asUsage(err)
	}
	return opt, nil
}

// isJSCoP reports whether a SPEC argument names a JSCoP file, which
// loadKernel imports.
func isJSCoP(arg string) bool { return strings.EqualFold(filepath.Ext(arg), ".jscop") }

// loadJSCoP imports the JSCoP file given as SPEC, with the command's -D,
// --statement and --map flags where it has them. A parameter left unbound
// is a usage error that names it and, for a command without -D, says how to
// bind it through import.
func loadJSCoP(c *ucli.Context, path string) (*kernel.Kernel, error) {
	opt, err := importOptions(c)
	if err != nil {
		return nil, err
	}
	data, name, err := readImportFile(c, path)
	if err != nil {
		return nil, err
	}
	res, err := jscop.Import(data, name, opt)
	var ue *importer.UnboundError
	if errors.As(err, &ue) && !slices.ContainsFunc(c.Command.Flags, func(f ucli.Flag) bool { return slices.Contains(f.Names(), "D") }) {
		return nil, usageErrorf("%v (polyvol %s has no -D; run: polyvol import jscop %s -D %s=VALUE | polyvol %s -)", err, c.Command.Name, path, ue.Name, c.Command.Name)
	}
	if err != nil {
		return nil, asUsage(err)
	}
	return res.Kernel, nil
}
