// Package jscop reads Polly's JSCoP files, the JSON that Polly's
// JSONExporter writes (opt -polly-export-jscop), into an importer.Scop and
// imports one of their statements as a polyvol kernel spec.
//
// A JSCoP holds the region's name, its context (an ISL parameter set), an
// optional source location, the arrays (name, sizes outermost first with an
// optional leading "*", LLVM element type; absent in the layout before
// LLVM 4, where Options.Element gives the element size and the sizes are
// inferred from the accesses) and the statements (name,
// domain, schedule and accesses, each {kind: read|write, relation: ISL
// map}). Arrays named MemRef_a become fields named a; the schedule orders
// the loops onto the lattice (importer.Statement.Schedule).
// Accesses to values that Polly keeps in registers (zero-dimensional
// relations to undeclared arrays such as MemRef_tmp) are skipped with a
// note.
package jscop

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/polyvol/polyvol/importer"
)

// MaxBytes bounds the size of a JSCoP file.
const MaxBytes = 16 << 20

// Import reads the JSCoP data of file and imports the statement that
// opt.Statement names (or the only one) as a spec; ImportRegion imports
// them all (opt.Statement importer.AllStatements, which Import refuses).
func Import(data []byte, file string, opt importer.Options) (*importer.Result, error) {
	s, err := Read(data, file, opt)
	if err != nil {
		return nil, err
	}
	return importer.Build(s, opt)
}

// reader reads one JSCoP document.
type reader struct {
	file string
	opt  importer.Options
}

func (r *reader) errf(n *yaml.Node, where, format string, args ...any) *importer.Error {
	return importer.Errorf(r.file, importer.NodePos(n), where, format, args...)
}

// Read parses a JSCoP document into the Scop of the statement that
// opt.Statement names (or the only one), with the array sizes evaluated
// under opt.Params. All errors are *importer.Error.
func Read(data []byte, file string, opt importer.Options) (*importer.Scop, error) {
	r := &reader{file: file, opt: opt}
	root, err := r.document(data)
	if err != nil {
		return nil, err
	}
	return r.scop(root)
}

// lineCol returns the 1-based line and column of a byte offset.
func lineCol(data []byte, off int64) (line, col int) {
	off = min(max(off, 0), int64(len(data)))
	before := data[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(off) - (bytes.LastIndexByte(before, '\n') + 1)
	return line, max(col, 1)
}

// mapping returns the values of a JSON object by key (unknown keys are
// ignored, as Polly ignores them) and checks that the required keys are
// present.
func (r *reader) mapping(n *yaml.Node, where string, required ...string) (map[string]*yaml.Node, error) {
	if n.Kind != yaml.MappingNode {
		return nil, r.errf(n, where, "expected a JSON object, got %s", kind(n))
	}
	out := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		out[n.Content[i].Value] = n.Content[i+1]
	}
	for _, k := range required {
		if _, ok := out[k]; !ok {
			return nil, r.errf(n, where, "missing key %q", k)
		}
	}
	return out, nil
}

func kind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "an object"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "null"
		}
		return fmt.Sprintf("%q", importer.Excerpt(n.Value))
	}
	return "something else"
}

func (r *reader) str(n *yaml.Node, where, what string) (string, error) {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!str" {
		return "", r.errf(n, where, "%s: expected a string, got %s", what, kind(n))
	}
	return n.Value, nil
}

func (r *reader) list(n *yaml.Node, where, what string) ([]*yaml.Node, error) {
	if n.Kind != yaml.SequenceNode {
		return nil, r.errf(n, where, "%s: expected a list, got %s", what, kind(n))
	}
	return n.Content, nil
}

func (r *reader) scop(root *yaml.Node) (*importer.Scop, error) {
	h, err := r.header(root)
	if err != nil {
		return nil, err
	}
	stmtNode, err := r.statement(h.statements)
	if err != nil {
		return nil, err
	}
	return r.statementScop(h, stmtNode, h.base.Notes)
}

// header is what a JSCoP says about its region as a whole: the Scop
// without a statement, the region's name and location, and the node of
// its statements.
type header struct {
	base       importer.Scop // Statement and Description unset
	region     string
	location   string
	statements *yaml.Node
}

// header reads the keys of a JSCoP other than its statements.
func (r *reader) header(root *yaml.Node) (*header, error) {
	top, err := r.mapping(root, "JSCoP", "statements")
	if err != nil {
		return nil, err
	}
	h := &header{base: importer.Scop{File: r.file, Name: importer.SpecName(r.file, "jscop")}, statements: top["statements"]}
	s := &h.base
	if n, ok := top["name"]; ok {
		if h.region, err = r.str(n, "JSCoP", "name"); err != nil {
			return nil, err
		}
	}
	if n, ok := top["context"]; ok {
		if s.Context, err = r.str(n, "context", "context"); err != nil {
			return nil, err
		}
		s.ContextPos = importer.NodePos(n)
	}
	if err := importer.UnknownDefines(r.file, r.opt.Params, paramNames(top), "parameter", "the JSCoP"); err != nil {
		return nil, err
	}
	if n, ok := top["location"]; ok {
		if h.location, err = r.str(n, "JSCoP", "location"); err != nil {
			return nil, err
		}
	}
	if arraysNode, ok := top["arrays"]; ok {
		if s.Arrays, err = r.arrays(arraysNode); err != nil {
			return nil, err
		}
		if r.opt.Element != 0 {
			s.Notes = append(s.Notes, fmt.Sprintf("%s: --element %d is not used: the JSCoP's \"arrays\" give each array's element type", r.file, r.opt.Element))
		}
	} else {
		// The layout Polly wrote before LLVM 4, which it still reads: the
		// accesses name the arrays, without sizes or types.
		if r.opt.Element == 0 {
			return nil, r.errf(root, "JSCoP", "no key \"arrays\" (the layout of Polly before LLVM 4), so no element types: give the bytes per element with --element, e.g. --element 8 for double")
		}
		s.ImplicitElement = r.opt.Element
		s.FieldName = FieldName
		s.Notes = append(s.Notes, fmt.Sprintf("%s: no key \"arrays\" (the layout of Polly before LLVM 4): every array is assumed to have %d-byte elements (--element) and, in each dimension, the size of the subscripts accessed", r.file, r.opt.Element))
	}
	return h, nil
}

// statementScop returns the Scop of the header's region with the
// statement of node n, and notes as its notes.
func (r *reader) statementScop(h *header, n *yaml.Node, notes []string) (*importer.Scop, error) {
	s := h.base
	s.Notes = notes
	var err error
	if s.Statement, err = r.readStatement(n); err != nil {
		return nil, err
	}
	desc := fmt.Sprintf("imported from the Polly JSCoP %s, statement %s", filepath.Base(r.file), s.Statement.Name)
	if h.region != "" {
		desc += " of region " + h.region
	}
	if h.location != "" {
		desc += " (" + h.location + ")"
	}
	s.Description = desc
	return &s, nil
}

// paramNames returns the parameters of a JSCoP: those that the context,
// the statements' domains and the access relations declare, and those that
// the array sizes use. Entries of the wrong shape are passed over; the
// readers report them.
func paramNames(top map[string]*yaml.Node) []string {
	var names []string
	isString := func(n *yaml.Node) bool { return n != nil && n.Kind == yaml.ScalarNode && n.Tag == "!!str" }
	field := func(n *yaml.Node, key string) *yaml.Node {
		if n.Kind != yaml.MappingNode {
			return nil
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == key {
				return n.Content[i+1]
			}
		}
		return nil
	}
	if n := top["context"]; isString(n) {
		names = append(names, importer.ParamNames(n.Value)...)
	}
	if n := top["arrays"]; n != nil && n.Kind == yaml.SequenceNode {
		for _, a := range n.Content {
			if sizes := field(a, "sizes"); sizes != nil && sizes.Kind == yaml.SequenceNode {
				for _, sz := range sizes.Content {
					if sz.Kind == yaml.ScalarNode {
						names = append(names, importer.SizeNames(sz.Value)...)
					}
				}
			}
		}
	}
	if n := top["statements"]; n != nil && n.Kind == yaml.SequenceNode {
		for _, st := range n.Content {
			if d := field(st, "domain"); isString(d) {
				names = append(names, importer.ParamNames(d.Value)...)
			}
			if accs := field(st, "accesses"); accs != nil && accs.Kind == yaml.SequenceNode {
				for _, a := range accs.Content {
					if rel := field(a, "relation"); isString(rel) {
						names = append(names, importer.ParamNames(rel.Value)...)
					}
				}
			}
		}
	}
	return names
}

// FieldName is the field name polyvol gives a Polly array: the name
// without Polly's "MemRef_" prefix.
func FieldName(array string) string {
	if f, ok := strings.CutPrefix(array, "MemRef_"); ok && f != "" {
		return f
	}
	return array
}

func (r *reader) arrays(n *yaml.Node) ([]*importer.Array, error) {
	items, err := r.list(n, "arrays", "arrays")
	if err != nil {
		return nil, err
	}
	var out []*importer.Array
	byName := map[string]bool{}
	fields := map[string]bool{}
	for i, it := range items {
		where := fmt.Sprintf("arrays[%d]", i)
		m, err := r.mapping(it, where, "name", "sizes", "type")
		if err != nil {
			return nil, err
		}
		name, err := r.str(m["name"], where, "name")
		if err != nil {
			return nil, err
		}
		where = fmt.Sprintf("array %q", name)
		if byName[name] {
			return nil, r.errf(m["name"], where, "declared twice")
		}
		byName[name] = true
		typ, err := r.str(m["type"], where, "type")
		if err != nil {
			return nil, err
		}
		elem, fp, err := importer.ElementSize(typ)
		if err != nil {
			return nil, r.errf(m["type"], where, "bad type: %v", err)
		}
		sizeNodes, err := r.list(m["sizes"], where, "sizes")
		if err != nil {
			return nil, err
		}
		a := &importer.Array{Name: name, Field: FieldName(name), Element: elem, FPBytes: fp, Where: where, Pos: importer.NodePos(it)}
		for j, sn := range sizeNodes {
			if sn.Kind != yaml.ScalarNode || sn.Tag == "!!null" {
				return nil, r.errf(sn, where, "sizes[%d]: expected a size, got %s", j, kind(sn))
			}
			if strings.TrimSpace(sn.Value) == "*" {
				if j != 0 {
					return nil, r.errf(sn, where, "sizes[%d]: only the first size may be \"*\"", j)
				}
				a.Sizes = append(a.Sizes, 0)
				continue
			}
			v, err := importer.EvalSize(sn.Value, r.opt.Params)
			if err != nil {
				e := r.errf(sn, where, "sizes[%d] %q: %v", j, sn.Value, err)
				e.Err = err
				return nil, e
			}
			a.Sizes = append(a.Sizes, v)
		}
		out = append(out, a)
	}
	// Stripping the prefix must not make two fields share a name.
	for _, a := range out {
		if fields[a.Field] {
			a.Field = a.Name
		}
		fields[a.Field] = true
	}
	return out, nil
}

// statementName returns the name of statement i of the JSCoP, node it.
func (r *reader) statementName(i int, it *yaml.Node) (string, error) {
	where := fmt.Sprintf("statements[%d]", i)
	m, err := r.mapping(it, where, "name")
	if err != nil {
		return "", err
	}
	return r.str(m["name"], where, "name")
}

// statement picks the statement to import.
func (r *reader) statement(n *yaml.Node) (*yaml.Node, error) {
	items, err := r.list(n, "statements", "statements")
	if err != nil {
		return nil, err
	}
	var names []string
	for i, it := range items {
		name, err := r.statementName(i, it)
		if err != nil {
			return nil, err
		}
		if r.opt.Statement != "" && name == r.opt.Statement {
			return it, nil
		}
		names = append(names, name)
	}
	switch {
	case r.opt.Statement == importer.AllStatements:
		return nil, r.errf(n, "statements", "--statement all models every statement as a sequence of kernels, which polyvol import jscop and predict do; here choose one with --statement (the statements are %s)", importer.Excerpt(strings.Join(names, ", ")))
	case r.opt.Statement != "":
		return nil, r.errf(n, "statements", "no statement %q; the statements are %s", importer.Excerpt(r.opt.Statement), importer.Excerpt(strings.Join(names, ", ")))
	case len(items) == 0:
		return nil, r.errf(n, "statements", "no statements")
	case len(items) > 1:
		return nil, r.errf(n, "statements", "%d statements (%s); choose one with --statement, or --statement all for the whole region", len(items), importer.Excerpt(strings.Join(names, ", ")))
	}
	return items[0], nil
}

func (r *reader) readStatement(n *yaml.Node) (*importer.Statement, error) {
	m, err := r.mapping(n, "statement", "name", "domain", "accesses")
	if err != nil {
		return nil, err
	}
	name, _ := r.str(m["name"], "statement", "name")
	st := &importer.Statement{Name: name, Where: fmt.Sprintf("statement %q", name)}
	if st.Domain, err = r.str(m["domain"], st.Where, "domain"); err != nil {
		return nil, err
	}
	st.DomainPos = importer.Pos{Line: m["domain"].Line, Col: m["domain"].Column}
	if n, ok := m["schedule"]; ok {
		if st.Schedule, err = r.str(n, st.Where, "schedule"); err != nil {
			return nil, err
		}
		st.SchedulePos = importer.NodePos(n)
	}
	items, err := r.list(m["accesses"], st.Where, "accesses")
	if err != nil {
		return nil, err
	}
	for i, it := range items {
		where := fmt.Sprintf("%s access %d", st.Where, i)
		am, err := r.mapping(it, where, "kind", "relation")
		if err != nil {
			return nil, err
		}
		k, err := r.str(am["kind"], where, "kind")
		if err != nil {
			return nil, err
		}
		if !slices.Contains([]string{"read", "write"}, k) {
			return nil, r.errf(am["kind"], where, "kind %q: expected read or write", k)
		}
		rel, err := r.str(am["relation"], where, "relation")
		if err != nil {
			return nil, err
		}
		st.Accesses = append(st.Accesses, importer.Access{
			Write:    k == "write",
			Relation: rel,
			Pos:      importer.Pos{Line: am["relation"].Line, Col: am["relation"].Column},
			Where:    fmt.Sprintf("%s access %d (%s %s)", st.Where, i, k, relationTarget(rel)),
		})
	}
	return st, nil
}

// relationTarget returns the array an access relation's text names, for
// messages ("MemRef_A"), or "" when it cannot tell.
func relationTarget(rel string) string {
	_, after, ok := strings.Cut(rel, "->")
	if i := strings.Index(after, "->"); ok && i >= 0 { // a parameter prefix came first
		after = after[i+2:]
	}
	after = strings.TrimSpace(after)
	end := strings.IndexAny(after, "[ ")
	if end <= 0 {
		return "array"
	}
	return after[:end]
}
