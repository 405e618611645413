// Package cli is the polyvol command-line application: it parses commands
// and flags, calls the engine and model packages, and renders their results.
// It holds no modelling logic of its own.
package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"runtime/pprof"
	"sort"
	"strings"

	"github.com/polyvol/polyvol/request"
	"github.com/polyvol/polyvol/similar"
	ucli "github.com/urfave/cli/v2"
)

// Exit codes returned by Run.
const (
	ExitOK       = 0 // success
	ExitInternal = 1 // an internal failure (a bug or an environment problem)
	ExitUsage    = 2 // a user error: bad flag, bad spec, unknown device
)

// UsageError marks an error the user caused, so Run exits with ExitUsage:
// a request.Error, whose Kind says more (an input, a bound or a
// configuration that does not fit) and whose Field names the flag at fault.
type UsageError = request.Error

// newApp builds the urfave/cli application with all commands.
func newApp(stdin io.Reader, stdout, stderr io.Writer) *ucli.App {
	prof := &cpuProfile{}
	return &ucli.App{
		Reader:       stdin,
		Name:         "polyvol",
		Usage:        "predict GPU memory-hierarchy data volumes and performance from address expressions",
		Description:  helpDescription,
		Version:      request.FullVersion(),
		Writer:       stdout,
		ErrWriter:    stderr,
		Commands:     commands(),
		Action:       unknownCommand,
		OnUsageError: onUsageError,
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "cpuprofile", TakesFile: true, Usage: "write a CPU profile of the command to `FILE` (go tool pprof)"},
		},
		Before: prof.start,
		After:  prof.stop,
	}
}

// helpWidth is the column at which help text wraps, so that help fits a
// terminal of 80 columns.
const helpWidth = 80

func init() {
	// Every help page wraps its usage, descriptions and flag lines at
	// helpWidth (urfave/cli's templates take the width as "wrapAt").
	ucli.HelpPrinter = func(w io.Writer, templ string, data any) {
		ucli.HelpPrinterCustom(w, templ, data, map[string]any{"wrapAt": func() int { return helpWidth }})
	}
}

// helpDescription closes polyvol --help: the exit codes and the marks every
// command shares (docs/guide.md, "Exit codes, notes and -").
const helpDescription = `Exit codes: 0 success; 1 internal failure (a bug or the environment);
2 user error (bad flag, spec, device file, launch or input file). An error is
one line on stderr starting "polyvol:"; notes about valid but suspicious inputs
start "polyvol: note:" and leave the exit code 0. In tables, "-" marks a
quantity that does not apply to that column (a store field's loads, a kernel
without flops). Every command has --help with examples; docs/guide.md has more.`

// cpuProfile implements --cpuprofile: start begins CPU profiling into the
// flag's file before the command runs, stop ends it afterwards.
type cpuProfile struct{ f *os.File }

func (p *cpuProfile) start(c *ucli.Context) error {
	path := c.String("cpuprofile")
	if path == "" {
		return nil
	}
	f, err := os.Create(path)
	if err != nil {
		return &UsageError{Err: fmt.Errorf("--cpuprofile: %w", err)}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return fmt.Errorf("--cpuprofile: %w", err)
	}
	p.f = f
	return nil
}

func (p *cpuProfile) stop(*ucli.Context) error {
	if p.f == nil {
		return nil
	}
	pprof.StopCPUProfile()
	err := p.f.Close()
	p.f = nil
	return err
}

// commandMakers holds one constructor per command; each command's file
// registers its own in an init function, so commands live in separate files.
var commandMakers []func() *ucli.Command

// register adds a command constructor to the application.
func register(make func() *ucli.Command) { commandMakers = append(commandMakers, make) }

// commands returns all registered commands sorted by name.
func commands() []*ucli.Command {
	var out []*ucli.Command
	for _, mk := range commandMakers {
		out = append(out, mk())
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	for _, c := range out {
		if c.OnUsageError == nil {
			c.OnUsageError = onUsageError
		}
		if c.BashComplete == nil && strings.Contains(c.ArgsUsage, "SPEC") {
			c.BashComplete = completeSpecs
		}
	}
	return out
}

// onUsageError reports a flag parsing error as a *UsageError on one line,
// instead of urfave/cli's default of printing the help to stdout; an
// unknown flag gets the command's flags nearest to it as suggestions.
func onUsageError(c *ucli.Context, err error, _ bool) error {
	const unknown = "flag provided but not defined: -"
	msg := err.Error()
	if m := badFlagValue.FindStringSubmatch(msg); m != nil {
		reason := "not a valid value"
		if m[1] != "" {
			reason = "expected true or false"
		}
		return &UsageError{Field: m[3], Err: fmt.Errorf("--%s %q: %s", m[3], m[2], reason)}
	}
	name, ok := strings.CutPrefix(msg, unknown)
	if !ok {
		return &UsageError{Err: err}
	}
	flags := c.App.Flags
	if c.Command != nil && c.Command.Name != "" {
		flags = c.Command.Flags
	}
	var names []string
	for _, f := range flags {
		for _, n := range f.Names() {
			names = append(names, flagSpelling(n))
		}
	}
	if suggestion := similar.DidYouMean(name, names); suggestion != "" {
		return &UsageError{Err: fmt.Errorf("%s%s", msg, suggestion)}
	}
	return &UsageError{Err: err}
}

// badFlagValue matches the flag package's error for a value its flag
// cannot parse, "invalid [boolean ]value "V" for [flag ]-NAME: …".
var badFlagValue = regexp.MustCompile(`^invalid (boolean )?value "(.*)" for (?:flag )?-+([\w-]+): `)

// flagSpelling writes a flag name as the command line takes it: -D for one
// letter, --name otherwise.
func flagSpelling(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// unknownCommand runs when no command matches: with no arguments it shows
// the help, otherwise the first argument is an unknown command and the
// nearest commands are suggested.
func unknownCommand(c *ucli.Context) error {
	if c.NArg() == 0 {
		return ucli.ShowAppHelp(c)
	}
	name := c.Args().First()
	var names []string
	for _, cmd := range c.App.Commands {
		if !cmd.Hidden {
			names = append(names, cmd.Name)
		}
	}
	return &UsageError{Err: fmt.Errorf("unknown command %q%s (commands: %s)", name, similar.DidYouMean(name, names), strings.Join(names, ", "))}
}

func init() {
	register(func() *ucli.Command {
		return &ucli.Command{
			Name:      "version",
			Usage:     "print the polyvol version",
			UsageText: "polyvol version (or polyvol --version)\n\nExample:\n   polyvol version",
			Action: func(c *ucli.Context) error {
				ucli.ShowVersion(c)
				return nil
			},
		}
	})
}

// Run executes the polyvol command line args (args[0] is the program name)
// with the process's standard input and returns the process exit code.
// Errors are printed to stderr on one line: "polyvol: " and the message,
// or with --format json the error's JSON (RunWithInput).
func Run(args []string, stdout, stderr io.Writer) int {
	return RunWithInput(args, os.Stdin, stdout, stderr)
}

// RunWithInput is Run with stdin as the standard input, which a SPEC of "-"
// reads. With --format json an error is one line of JSON on stderr, its
// description (request.Describe) after the version keys.
func RunWithInput(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if err := execute(args, stdin, stdout, stderr); err != nil {
		if !asksJSON(args) || request.WriteJSONLine(stderr, request.Describe(err)) != nil {
			fmt.Fprintf(stderr, "polyvol: %s\n", request.Line(err))
		}
		if isUsageError(err) {
			return ExitUsage
		}
		return ExitInternal
	}
	return ExitOK
}

// asksJSON reports whether the command line args (args[0] is the program
// name) ask for JSON output, --format json, before any "--"; it reads the
// words themselves, so that a command line whose flags do not parse gets
// its error in JSON too.
func asksJSON(args []string) bool {
	for i := 1; i < len(args); i++ {
		switch args[i] {
		case "--":
			return false
		case "--format=" + formatJSON, "-format=" + formatJSON:
			return true
		case "--format", "-format":
			if i+1 < len(args) && args[i+1] == formatJSON {
				return true
			}
		}
	}
	return false
}

// execute runs the command line args and returns its error unprinted. The
// notes a successful command collected (addNote) follow on stderr, one line
// each; a failing command prints only its error.
func execute(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	app := newApp(stdin, stdout, stderr)
	unlock := lockSetup(app) // concurrent runs set up one at a time
	defer unlock()
	if n := len(args); n >= 2 && args[n-1] == completionMarker {
		complete(app, args[1:n-1])
		return nil
	}
	app.ExitErrHandler = func(*ucli.Context, error) {} // the caller decides the exit code
	notes := repeatedFlagNotes(app, args[1:])
	app.Metadata = map[string]any{notesKey: &notes}
	if err := app.Run(flagsFirst(app, args)); err != nil {
		if errors.As(err, new(ucli.ExitCoder)) { // urfave/cli's own: the help of an unknown topic
			return &UsageError{Err: err}
		}
		return err
	}
	for _, n := range notes {
		fmt.Fprintln(stderr, notePrefix+n)
	}
	return nil
}

// isUsageError reports whether err is the user's: one whose kind
// (request.KindOf) is not KindInternal. Flag parsing errors of urfave/cli
// are *UsageErrors (onUsageError, execute).
func isUsageError(err error) bool {
	return request.KindOf(err) != request.KindInternal
}

// flagsFirst moves the flags of a command line "polyvol [global flags] CMD
// ..." before the command's positional arguments, so that "polyvol predict
// SPEC --device X" works: urfave/cli/v2 stops parsing flags at the first
// positional argument. A flag's value stays with it; everything after "--"
// stays positional.
func flagsFirst(app *ucli.App, args []string) []string {
	if len(args) < 2 {
		return args
	}
	i, cmd := findCommand(app, args[1:])
	i++
	if cmd == nil || len(cmd.Subcommands) > 0 {
		return args
	}
	takesValue := valueFlags(cmd.Flags)
	flags, positional := []string{}, []string{}
	rest := args[i+1:]
	for j := 0; j < len(rest); j++ {
		a := rest[j]
		if a == "--" {
			positional = append(positional, rest[j+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			positional = append(positional, a)
			continue
		}
		flags = append(flags, a)
		if takesValue[strings.TrimLeft(a, "-")] && j+1 < len(rest) {
			j++
			flags = append(flags, rest[j])
		}
	}
	out := append(append([]string{}, args[:i+1]...), flags...)
	if len(positional) > 0 {
		out = append(append(out, "--"), positional...)
	}
	return out
}

// findCommand returns the index of the command name in words, a command
// line without the program name, and the command; cmd is nil when the first
// word after the global flags (and their values) is no command.
func findCommand(app *ucli.App, words []string) (i int, cmd *ucli.Command) {
	global := valueFlags(app.Flags)
	for i < len(words) && strings.HasPrefix(words[i], "-") && words[i] != "--" {
		if global[strings.TrimLeft(words[i], "-")] {
			i++
		}
		i++
	}
	if i >= len(words) {
		return i, nil
	}
	return i, app.Command(words[i])
}

// valueFlags returns the names (and aliases) of the flags that take a value.
func valueFlags(flags []ucli.Flag) map[string]bool {
	m := map[string]bool{}
	for _, f := range flags {
		df, ok := f.(ucli.DocGenerationFlag)
		for _, n := range f.Names() {
			m[n] = ok && df.TakesValue()
		}
	}
	return m
}
