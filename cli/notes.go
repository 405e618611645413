package cli

// Notes on inputs that are valid but probably not what the user meant: a
// flag given twice, a domain narrower than the accesses reach, a dimension
// no access depends on, an index a whole extent past its field's array.
// Each is one line on stderr after a successful command, which still exits 0.

import (
	"fmt"
	"strings"

	"github.com/polyvol/polyvol/kernel"
	ucli "github.com/urfave/cli/v2"
)

// notePrefix starts every note line.
const notePrefix = "polyvol: note: "

// notesKey is the App.Metadata key of the *[]string that collects the notes
// of a command (execute prints them).
const notesKey = "notes"

// addNote records a note for the command of c.
func addNote(c *ucli.Context, format string, args ...any) {
	if notes, ok := c.App.Metadata[notesKey].(*[]string); ok {
		*notes = append(*notes, fmt.Sprintf(format, args...))
	}
}

// noteKernel records the notes on k (kernel.Lint) for the command of c.
func noteKernel(c *ucli.Context, k *kernel.Kernel) {
	for _, n := range kernel.Lint(k) {
		addNote(c, "%s", n.Text)
	}
}

// repeatedFlagNotes returns a note for every flag that takes one value and
// appears more than once on the command line words (without the program
// name): urfave/cli keeps the last value silently.
func repeatedFlagNotes(app *ucli.App, words []string) []string {
	i, cmd := findCommand(app, words)
	if cmd == nil {
		return nil
	}
	type use struct {
		count int
		last  string
	}
	uses := map[string]*use{}
	var order []string
	takesValue := valueFlags(cmd.Flags)
	rest := words[i+1:]
	for j := 0; j < len(rest) && rest[j] != "--"; j++ {
		a := rest[j]
		if len(a) < 2 || a[0] != '-' {
			continue
		}
		name, value, inline := strings.Cut(strings.TrimLeft(a, "-"), "=")
		f := flagByName(cmd.Flags, name)
		if f == nil || isRepeatable(f) {
			continue
		}
		if !inline && takesValue[name] && j+1 < len(rest) {
			j++
			value = rest[j]
		}
		key := f.Names()[0]
		if uses[key] == nil {
			uses[key] = &use{}
			order = append(order, key)
		}
		uses[key].count++
		uses[key].last = value
	}
	var notes []string
	for _, key := range order {
		if u := uses[key]; u.count > 1 {
			n := fmt.Sprintf("--%s given %d times; the last one counts", key, u.count)
			if takesValue[key] {
				n = fmt.Sprintf("--%s given %d times; the last value, %s, counts", key, u.count, u.last)
			}
			notes = append(notes, n)
		}
	}
	return notes
}

// flagByName returns the flag of flags with the given name or alias.
func flagByName(flags []ucli.Flag, name string) ucli.Flag {
	for _, f := range flags {
		for _, n := range f.Names() {
			if n == name {
				return f
			}
		}
	}
	return nil
}

// isRepeatable reports whether f collects every value it is given: a slice
// flag such as --device-file, or a repeatedFlag such as layercond's --block.
func isRepeatable(f ucli.Flag) bool {
	if gf, ok := f.(*ucli.GenericFlag); ok {
		_, repeated := gf.Value.(*repeatedFlag)
		return repeated
	}
	sf, ok := f.(ucli.DocGenerationSliceFlag)
	return ok && sf.IsSliceFlag()
}
