package request

// The kernel spec of a request: a polyvol spec (YAML or JSON) given as
// text or as the name of an embedded example, or a Polly JSCoP or a
// Kerncraft kernel description or kernel code, detected by its name and
// top-level keys and imported (package importer).

import (
	"bytes"
	"encoding/json"
	"errors"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/polyvol/polyvol/importer"
	"github.com/polyvol/polyvol/importer/kerncraft"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/relation"
)

// Formats of a spec that is imported (InputFormat).
const (
	FormatJSCoP     = "jscop"
	FormatKerncraft = "kerncraft"
)

// StdinName is the file name of a spec read from standard input, or given
// as the text of an HTTP request, in messages.
const StdinName = "<stdin>"

// Import holds the request keys (the command line's import flags) that say
// how a JSCoP or Kerncraft spec becomes a kernel, in their string forms.
type Import struct {
	Defines   []string // -D NAME=VALUE: parameter and constant values
	Statement string   // --statement: the JSCoP statement
	Map       string   // --map: loops to lattice coordinates
	Element   *int64   // --element: bytes per element of an old JSCoP; nil: not given
	// Given are the import flags given, as "-D" or "--map": a polyvol spec
	// takes -D only, which binds the parameters of its raw maps.
	Given []string
}

// Options returns the importer options of im.
func (im Import) Options() (importer.Options, error) {
	var opt importer.Options
	var err error
	if opt.Params, err = importer.ParseDefines(im.Defines); err != nil {
		return opt, &Error{Err: err}
	}
	opt.Statement = im.Statement
	if opt.Map, err = importer.ParseMap(im.Map); err != nil {
		return opt, &Error{Err: err}
	}
	if im.Element != nil {
		if opt.Element = *im.Element; !slices.Contains([]int64{1, 2, 4, 8, 16}, opt.Element) {
			return opt, fieldErrorf("element", "--element %d: expected 1, 2, 4, 8 or 16 bytes per element", opt.Element)
		}
	}
	return opt, nil
}

// Spec is the kernel spec of a request: an embedded example, or the text
// of a spec, with the keys that import it.
type Spec struct {
	// Example names an embedded example (examples.Names); empty: Text is
	// the spec.
	Example string
	// Text is the spec's text, and File its file in messages (StdinName
	// for standard input and the text of an HTTP request).
	Text []byte
	File string
	// Label names the spec in the message on import flags that a polyvol
	// spec does not take, Path in the import command that the message on
	// an unbound name suggests.
	Label, Path string
	// Command is the command that loads the spec, and TakesDefines whether
	// it has -D: an import that leaves a name unbound in a command
	// without -D says how to import the spec first.
	Command      string
	TakesDefines bool
	Import       Import
}

// Load returns the kernel of s and the notes of its import. A JSCoP or a
// Kerncraft text (InputFormat; a text larger than kernel.MaxSpecBytes
// only when its name is a JSCoP's) is imported with s.Import; a polyvol spec's
// raw ISL maps are read by ISL (package relation), their parameters bound
// by the spec's params and -D, and turned into index expressions, and a
// map that cannot be is an error here, because every request evaluates the
// accesses. Its errors are input errors that name the file, line, field
// and position.
func (s Spec) Load() (*kernel.Kernel, []string, error) {
	if s.Example == "" {
		if format := InputFormat(s.File, s.Text); format != "" && (IsJSCoPName(s.File) || len(s.Text) <= kernel.MaxSpecBytes) {
			return s.imported(format)
		}
	}
	if flags := slices.DeleteFunc(slices.Clone(s.Import.Given), func(f string) bool { return f == "-D" }); len(flags) > 0 {
		return nil, nil, inputErrorf("%s: %s: a polyvol spec has nothing to import; the flags --statement, --map and --element apply to a JSCoP or Kerncraft SPEC (-D binds the parameters of its raw maps)", s.Label, strings.Join(flags, ", "))
	}
	opts := []kernel.Option{relation.Option()}
	if slices.Contains(s.Import.Given, "-D") {
		params, err := importer.ParseDefines(s.Import.Defines)
		if err != nil {
			return nil, nil, &Error{Err: err}
		}
		opts = append(opts, kernel.WithParams(params))
	}
	var k *kernel.Kernel
	var err error
	if s.Example != "" {
		k, err = kernel.ParseExample(s.Example, opts...)
	} else {
		k, err = kernel.LoadReader(bytes.NewReader(s.Text), s.File, opts...)
	}
	if err == nil {
		err = k.ExpressionsError()
	}
	if err != nil {
		return nil, nil, &Error{Err: err}
	}
	return k, nil, nil
}

// imported imports the JSCoP or Kerncraft text of s as its kernel, with
// the notes of the import. A name left unbound is an input error that
// names it and, for a command without -D, says how to bind it through
// polyvol import.
func (s Spec) imported(format string) (*kernel.Kernel, []string, error) {
	opt, err := s.Import.Options()
	if err != nil {
		return nil, nil, err
	}
	res, err := ImportText(format, s.Text, s.File, opt)
	var ue *importer.UnboundError
	if errors.As(err, &ue) && !s.TakesDefines {
		msg := strings.Replace(err.Error(), ue.Hint(), "", 1)
		return nil, nil, inputErrorf("%s; polyvol %s has no -D; run: polyvol import %s %s %s | polyvol %s -", msg, s.Command, format, s.Path, ue.Defines(), s.Command)
	}
	if err != nil {
		return nil, nil, &Error{Err: err}
	}
	return res.Kernel, res.Notes, nil
}

// LoadSpec returns the kernel of s (Spec.Load) with its domain replaced by
// domain when that is not nil (AtDomain), and the notes on it: those of
// its import, then those on the kernel (kernel.Lint).
func LoadSpec(s Spec, domain *string) (*kernel.Kernel, []string, error) {
	k, notes, err := s.Load()
	if err != nil {
		return nil, nil, err
	}
	if domain != nil {
		if k, err = AtDomain(k, *domain); err != nil {
			return nil, nil, err
		}
	}
	for _, n := range kernel.Lint(k) {
		notes = append(notes, n.Text)
	}
	return k, notes, nil
}

// AtDomain returns k with the domain of a --domain value (KernelAt).
func AtDomain(k *kernel.Kernel, domain string) (*kernel.Kernel, error) {
	d, err := ParseTriple("domain", domain)
	if err != nil {
		return nil, err
	}
	return KernelAt(k, d)
}

// KernelAt returns k with its domain replaced by d (kernel.AtDomain):
// field extents keep their padding, so that halo-padded arrays follow the
// domain.
func KernelAt(k *kernel.Kernel, d [3]int64) (*kernel.Kernel, error) {
	out, err := k.AtDomain(d)
	if err != nil {
		return nil, fieldErrorf("domain", "--domain %s: %v", Triple(d), err)
	}
	return out, nil
}

// importKerncraft imports a Kerncraft text: kernel code when its name is
// FILE.c (kerncraft.IsCode), or when it is standard input that is not
// empty and has no top-level key (YAML), else a kernel description.
func importKerncraft(data []byte, name string, opt importer.Options) (*importer.Result, error) {
	if kerncraft.IsCode(name) || name == StdinName && len(bytes.TrimSpace(data)) > 0 && len(topKeys(data)) == 0 {
		return kerncraft.ImportCode(data, name, opt)
	}
	return kerncraft.Import(data, name, opt)
}

// IsJSCoPName reports whether a file name is a JSCoP's: FILE.jscop, or
// FILE.jscop.SUFFIX, as Polly names the JSCoPs it reads back with
// -polly-import-jscop-postfix (kernel.jscop.interchanged).
func IsJSCoPName(path string) bool {
	base := strings.ToLower(filepath.Base(path))
	return strings.HasSuffix(base, ".jscop") || strings.Contains(base, ".jscop.")
}

// Top-level keys that tell the formats of a spec apart.
var (
	jscopKeys     = []string{"statements"}
	specKeys      = []string{"fields", "domain"}
	kerncraftKeys = []string{"arrays", "loops", "data sources", "data destinations", "code"}
)

// InputFormat returns the format of a spec from its file name and
// contents: FormatJSCoP for a JSCoP (IsJSCoPName, or a top-level
// "statements"), FormatKerncraft for Kerncraft kernel code (FILE.c) or a
// kernel description (a top-level key of one, such as "loops", and none
// of a polyvol spec), or "" for a polyvol spec and for a text without a
// name (an embedded example).
func InputFormat(name string, data []byte) string {
	switch {
	case name == "":
		return ""
	case IsJSCoPName(name):
		return FormatJSCoP
	case kerncraft.IsCode(name):
		return FormatKerncraft
	}
	keys := topKeys(data)
	has := func(set []string) bool {
		return slices.ContainsFunc(keys, func(k string) bool { return slices.Contains(set, k) })
	}
	switch {
	case has(jscopKeys):
		return FormatJSCoP
	case has(specKeys):
		return ""
	case has(kerncraftKeys):
		return FormatKerncraft
	}
	return ""
}

// yamlTopKey matches a key at the top level of a YAML block mapping: at
// the start of a line, plain or quoted, followed by ':' and a space or
// the end of the line.
var yamlTopKey = regexp.MustCompile(`^("(?:[^"\\]|\\.)*"|'[^']*'|[A-Za-z_][A-Za-z0-9_ .-]*?)[ \t]*:(?:\s|$)`)

// topKeys returns the keys of the top-level mapping of a YAML or JSON text,
// as far as they can be read without parsing the whole text: it tells the
// formats apart, and the reader of the format reports the errors.
func topKeys(data []byte) []string {
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '{' {
		return jsonTopKeys(t)
	}
	var keys []string
	for line := range bytes.Lines(data) {
		if m := yamlTopKey.FindSubmatch(line); m != nil {
			k := string(m[1])
			if k[0] == '"' || k[0] == '\'' {
				k = k[1 : len(k)-1]
			}
			keys = append(keys, k)
		}
	}
	return keys
}

// jsonTopKeys returns the keys of a JSON object, up to the first syntax
// error.
func jsonTopKeys(data []byte) []string {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	var keys []string
	depth, key := 1, true // key: the next token at depth 1 is a key
	for depth > 0 {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		switch t := tok.(type) {
		case json.Delim:
			if t == '{' || t == '[' {
				depth++
			} else if depth--; depth == 1 {
				key = true
			}
		case string:
			if depth == 1 && key {
				keys = append(keys, t)
				key = false
				continue
			}
			key = key || depth == 1
		default:
			key = key || depth == 1
		}
	}
	return keys
}
