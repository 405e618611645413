package cli

// The import command: Polly JSCoP files and Kerncraft kernel descriptions
// turned into polyvol specs (package importer), and the .jscop files that
// the commands accept directly as SPEC (loadKernel).

import (
	"fmt"
	"github.com/polyvol/polyvol/request"
	"io"
	"os"
	"strings"

	"github.com/polyvol/polyvol/importer"
	"github.com/polyvol/polyvol/importer/jscop"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/printable"
	ucli "github.com/urfave/cli/v2"
)

// Output formats of the import command.
const (
	formatYAML = "yaml"
)

// importSpecFlags are the flags that say how a JSCoP or Kerncraft file
// becomes a spec: parameter values, the statement, the loop mapping and
// the element size where the file gives none. A command that has them
// passes them on when its SPEC is a JSCoP or Kerncraft file.
func importSpecFlags() []ucli.Flag {
	return []ucli.Flag{
		&ucli.StringSliceFlag{Name: "D", Aliases: []string{"define"}, Usage: "bind parameter or constant `NAME=VALUE` (repeatable, or comma-separated)"},
		&ucli.StringFlag{Name: "statement", Usage: "import the JSCoP statement `NAME` (default: the only one), or all: every statement, one kernel each (import and predict)"},
		&ucli.StringFlag{Name: "map", Usage: "map loops to lattice coordinates, e.g. `i0=y,i1=x` (default: the schedule's innermost loop x, then y, z; a reduction's loops outward)"},
		&ucli.Int64Flag{Name: "element", Usage: "`BYTES` per element of a JSCoP without \"arrays\" (Polly before LLVM 4), which gives no element types"},
	}
}

func init() {
	register(func() *ucli.Command {
		return &ucli.Command{
			Name:      "import",
			Usage:     "turn a Polly JSCoP file or a Kerncraft kernel description or kernel code into a polyvol spec",
			ArgsUsage: "jscop|kerncraft FILE",
			UsageText: `polyvol import jscop FILE.jscop [-D N=4096 ...] [--statement S|all] [--map i0=y,i1=x] [--element BYTES] [--format yaml|json] [-o FILE]
polyvol import kerncraft FILE.yml|FILE.c -D N=1000 ... [options]

jscop reads the JSON that Polly writes with -polly-export-jscop: the
statement's domain becomes the lattice (shifted to start at 0, the
schedule's innermost loop x; a reduction, a store that leaves a loop out,
becomes one thread per output looping over it, and the header and a note
give the --block and --fold to predict it with), its arrays the fields (MemRef_A becomes A, the element size comes
from the type, a leading "*" size from the accessed range) and its accesses
raw ISL maps under load_isl and store_isl; a JSCoP without "arrays" (Polly
before LLVM 4) needs --element. kerncraft reads Kerncraft's kernel
description YAML (arrays, loops, data sources, data destinations, flops),
or Kerncraft's kernel code, the C of FILE.c: declarations such as
double a[M][N]; then a nest of up to 3 for loops whose innermost body
assigns expressions of array elements, scalars and numbers (+ - * /);
standard input is read as kernel code when it has no YAML keys.
-D binds the parameters and constants; a name the file does not have is an
error. FILE - reads standard input. The spec goes to standard output, or to
-o FILE.

--statement all imports every statement of a JSCoP region, in the file's
order, as its own spec named NAME.STATEMENT (NAME: --name, or the file's):
the YAML specs one after another as a YAML stream (documents separated
by ---), or with --format json a JSON list. A statement with no loop, or
that touches only scalars that Polly keeps in registers, is skipped with
a note that says why. A region of more than --max-statements statements
(default 128) is refused before any is read. predict --statement all
predicts each spec and sums their times and bytes.

predict, explore and layercond also take a JSCoP (FILE.jscop, FILE.jscop.*)
or a Kerncraft description or kernel code (FILE.c) directly as SPEC, with
the same flags.

Examples:
   polyvol import jscop examples/polyhedral/star2d-5pt.jscop -D N=4096
   polyvol import jscop examples/polyhedral/star2d-5pt.jscop -D N=4096 \
       | polyvol explore - --device H100-SXM
   polyvol import jscop examples/polyhedral/lbm-d3q19-aos.jscop \
       -D N=256 --flops 200 --registers 64 -o lbm.yaml
   polyvol import kerncraft examples/polyhedral/star3d-7pt.yml \
       -D M=514 -D N=514 --format json
   polyvol import kerncraft examples/polyhedral/jacobi2d-5pt.c \
       -D M=4098 -D N=4098`,
			Flags: append(importSpecFlags(),
				&ucli.StringFlag{Name: "format", Value: formatYAML, Usage: "output `FORMAT`: yaml or json"},
				&ucli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the spec to `FILE` instead of standard output", TakesFile: true},
				&ucli.StringFlag{Name: "name", Usage: "the spec's `NAME` (default: the file name)"},
				&ucli.Float64Flag{Name: "flops", Usage: "floating-point `OPS` per lattice update", DefaultText: "Kerncraft's flops, 0 for a JSCoP"},
				&ucli.IntFlag{Name: "registers", Usage: "`N` registers per thread", DefaultText: fmt.Sprint(kernel.DefaultRegisters)},
				maxStatementsFlag,
			),
			Action: runImport,
			BashComplete: func(c *ucli.Context) {
				if c.NArg() == 0 { // the format; then the shell completes the FILE
					printLines(c.App.Writer, []string{"jscop", "kerncraft"})
				}
			},
		}
	})
}

// runImport is the action of the import command.
func runImport(c *ucli.Context) error {
	if c.NArg() != 2 {
		return usageErrorf("import takes a format (jscop or kerncraft) and a FILE, got %d arguments", c.NArg())
	}
	kind, err := request.ParseChoice("format argument", c.Args().Get(0), request.FormatJSCoP, request.FormatKerncraft)
	if err != nil {
		return usageErrorf("import %q: expected jscop or kerncraft", c.Args().Get(0))
	}
	format, err := request.ParseChoice("format", c.String("format"), formatYAML, formatJSON)
	if err != nil {
		return err
	}
	opt, err := importOptions(c)
	if err != nil {
		return err
	}
	if c.IsSet("name") {
		if opt.Name = strings.TrimSpace(c.String("name")); opt.Name == "" {
			return flagErrorf("name", "--name: must not be empty")
		}
		if err := printable.Check(opt.Name); err != nil {
			return flagErrorf("name", "--name: %v", err)
		}
	}
	if c.IsSet("flops") {
		f := c.Float64("flops")
		if !(f >= 0 && f <= 1e9) {
			return flagErrorf("flops", "--flops %g: expected 0 to 10^9 operations per lattice update", f)
		}
		opt.Flops = &f
	}
	if c.IsSet("registers") {
		if opt.Registers = c.Int("registers"); opt.Registers < 1 || opt.Registers > 255 {
			return flagErrorf("registers", "--registers %d: expected 1 to 255", opt.Registers)
		}
	}
	path := c.Args().Get(1)
	data, name, err := readImportFile(c, path)
	if err != nil {
		return err
	}
	if opt.Statement == importer.AllStatements {
		if kind != request.FormatJSCoP {
			return flagErrorf("statement", "--statement all: a Kerncraft description has one statement; --statement applies to a JSCoP")
		}
		reg, err := importRegion(c, data, name, opt)
		if err != nil {
			return err
		}
		return writeImport(c, writeRegionSpecs(reg, format))
	}
	res, err := request.ImportText(kind, data, name, opt)
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
	return writeImport(c, out)
}

// writeImport writes the output of the import command to the -o file, or
// to standard output.
func writeImport(c *ucli.Context, out []byte) error {
	if file := c.String("output"); file != "" {
		if err := os.WriteFile(file, out, 0o644); err != nil {
			return usageErrorf("-o: %v", err)
		}
		return nil
	}
	_, err := c.App.Writer.Write(out)
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
	return specImport(c).Options()
}

// specImport returns the import keys of the importSpecFlags of c's command.
func specImport(c *ucli.Context) request.Import {
	im := request.Import{Defines: c.StringSlice("D"), Statement: c.String("statement"), Map: c.String("map"), Given: importFlagsSet(c)}
	if c.IsSet("element") {
		e := c.Int64("element")
		im.Element = &e
	}
	return im
}

// importFlagsSet returns the importSpecFlags given on c's command line,
// as "-D" or "--map", for the error about a SPEC that is not imported.
func importFlagsSet(c *ucli.Context) []string {
	var set []string
	for _, f := range importSpecFlags() {
		if name := f.Names()[0]; c.IsSet(name) {
			dash := "--"
			if len(name) == 1 {
				dash = "-"
			}
			set = append(set, dash+name)
		}
	}
	return set
}
