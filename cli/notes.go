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

// addNote records a note for the command of c. It does nothing for a
// context without an App (as measured builds for applyDomain).
func addNote(c *ucli.Context, format string, args ...any) {
	if c.App == nil {
		return
	}
	if notes, ok := c.App.Metadata[notesKey].(*[]string); ok {
		*notes = append(*notes, fmt.Sprintf(format, args...))
	}
}

// noteKernel records the kernelNotes of k for the command of c.
func noteKernel(c *ucli.Context, k *kernel.Kernel) {
	for _, n := range kernelNotes(k) {
		addNote(c, "%s", n)
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

// kernelNotes returns the notes on kernel k as a command runs it: a
// dimension of the domain that no access depends on (a 2D spec on a 3D
// domain), a domain at most twice as wide as the stencil offsets reach in a
// dimension (most of what the kernel reads lies outside it), and per field
// an index that leaves the field's extent by a whole extent or more (it
// addresses another row, plane or array, not a halo).
func kernelNotes(k *kernel.Kernel) []string {
	last := kernel.Point{k.Domain[0] - 1, k.Domain[1] - 1, k.Domain[2] - 1}
	var notes []string
	var used [3]bool
	var reach [3]int64
	for _, f := range k.Fields {
		for _, a := range append(append([]kernel.Access{}, f.Loads...), f.Stores...) {
			for i, e := range a.Index {
				for j := range used {
					used[j] = used[j] || dependsOn(e, j, last)
				}
				if coef, c, ok := e.Linear(); ok && coef == unit(i) {
					reach[i] = max(reach[i], c, -c)
				}
			}
		}
	}
	narrow := [3]bool{}
	for i, d := range k.Domain {
		switch {
		case d > 1 && !used[i]:
			notes = append(notes, fmt.Sprintf("no access depends on %s, but the domain's width in %s is %d: every %s layer reads and writes the same addresses",
				axisName(i), axisName(i), d, axisName(i)))
		case reach[i] > 0 && d <= 2*reach[i]:
			narrow[i] = true
			notes = append(notes, fmt.Sprintf("the domain's width in %s is %d, but the accesses reach %d beyond each lattice point there: most of what the kernel reads lies outside the domain",
				axisName(i), d, reach[i]))
		}
	}
	for _, f := range k.Fields {
		if n := pastExtentNote(f, last, narrow); n != "" {
			notes = append(notes, n)
		}
	}
	return notes
}

// pastExtentNote describes the first access of field f whose index leaves
// [0, extent) by at least the extent over the domain box [0, last], or
// returns "". A dimension marked narrow whose extent is the domain's width
// is left out: the note on the narrow domain covers it.
func pastExtentNote(f *kernel.Field, last kernel.Point, narrow [3]bool) string {
	for _, a := range append(append([]kernel.Access{}, f.Loads...), f.Stores...) {
		for i, e := range a.Index {
			lo, hi, ok := e.Bounds(kernel.Point{}, last)
			ext := f.Extent[i]
			sameAsNarrow := narrow[i] && ext == last[i]+1 // the domain note says it
			if !ok || sameAsNarrow || (lo > -ext && hi < 2*ext-1) {
				continue
			}
			return fmt.Sprintf("field %q access %s: its %s index spans %d to %d, a whole extent (%d) or more outside the array; it addresses other rows, planes or arrays, not a halo",
				f.Name, a.Text, axisName(i), lo, hi, ext)
		}
	}
	return ""
}

// dependsOn reports whether e varies with coordinate j over the box from the
// origin to last: its bounds differ when coordinate j is held at 0.
func dependsOn(e kernel.Expr, j int, last kernel.Point) bool {
	fixed := last
	fixed[j] = 0
	lo0, hi0, ok0 := e.Bounds(kernel.Point{}, fixed)
	lo1, hi1, ok1 := e.Bounds(kernel.Point{}, last)
	return !ok0 || !ok1 || lo0 != lo1 || hi0 != hi1
}

// unit returns the coefficient vector of coordinate i alone.
func unit(i int) [3]int64 {
	var u [3]int64
	u[i] = 1
	return u
}

// axisName names dimension i: x, y or z.
func axisName(i int) string { return string(rune('x' + i)) }
