// Package kerncraft reads Kerncraft's kernel descriptions (the YAML files
// of kerncraft -p ... KERNEL.yml) into an importer.Scop and imports them as
// polyvol kernel specs.
//
// A description holds the arrays (each with a C type and a dimension, the
// sizes outermost first; a null dimension is a scalar), the loops from
// outermost to innermost (index, start, stop, step: for (index = start;
// index < stop; index += step)), the data sources and data destinations
// (per array, a list of index tuples) and the flops (per operator, the
// count per iteration). Sizes, bounds and indices are integer expressions
// of the loop indices and of constants, which -D NAME=VALUE binds, as in
// Kerncraft. The loops become the lattice, the innermost one x; the loop
// counters (index − start)/step start at 0, so a loop with a step becomes
// a strided index.
//
// ReadCode and ImportCode read Kerncraft's kernel code, the C loop nest of
// kerncraft -p ... KERNEL.c, into the same Scop, with the C parser
// modernc.org/cc/v4.
package kerncraft

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/polyvol/polyvol/importer"
	"github.com/polyvol/polyvol/yamldoc"
)

// MaxBytes bounds the size of a kernel description.
const MaxBytes = 16 << 20

// Import reads the Kerncraft kernel description data of file and imports
// it as a spec.
func Import(data []byte, file string, opt importer.Options) (*importer.Result, error) {
	s, err := Read(data, file, opt)
	if err != nil {
		return nil, err
	}
	return importer.Build(s, opt)
}

// stmtName is the statement name of the loop nest's body.
const stmtName = "S"

// topKeys are the keys of a kernel description.
var topKeys = []string{"arrays", "loops", "data sources", "data destinations", "flops", "code", "description", "name"}

type reader struct {
	file   string
	opt    importer.Options
	loops  []loop
	byName map[string]int // loop index name → position
	// unbound are the constants the description uses that no -D binds.
	unbound []importer.Use
}

// loop is one loop of the nest, its bounds bound to numbers.
type loop struct {
	index             string // the index name in the description
	islName           string // its name in the ISL texts
	start, stop, step int64
	trips             int64
	line, col         int
}

func (r *reader) errf(n *yaml.Node, where, format string, args ...any) *importer.Error {
	return importer.Errorf(r.file, importer.NodePos(n), where, format, args...)
}

// Read parses a kernel description into a Scop, with its constants bound
// to opt.Params. All errors are *importer.Error.
func Read(data []byte, file string, opt importer.Options) (*importer.Scop, error) {
	r := &reader{file: file, opt: opt, byName: map[string]int{}}
	if len(data) > MaxBytes {
		return nil, importer.Errorf(file, importer.Pos{}, "", "larger than %d MiB; a kernel description is a small YAML text", MaxBytes>>20)
	}
	doc, err := yamldoc.First(data)
	if err != nil {
		var se *yamldoc.SyntaxError
		if errors.As(err, &se) {
			return nil, importer.Errorf(file, importer.Pos{Line: se.Line, Col: se.Column}, "", "YAML syntax error: %s", se.Msg)
		}
		return nil, importer.Errorf(file, importer.Pos{}, "", "YAML syntax error: %s", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil, importer.Errorf(file, importer.Pos{Line: 1, Col: 1}, "", "empty kernel description: expected arrays, loops, data sources, data destinations and flops")
	}
	return r.scop(doc.Content[0])
}

func kind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "nothing (null)"
		}
		return fmt.Sprintf("%q", importer.Excerpt(n.Value))
	case yaml.AliasNode:
		return "an alias"
	}
	return "something else"
}

// deref follows YAML aliases.
func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n.Kind == yaml.AliasNode && n.Alias != nil && i < 64; i++ {
		n = n.Alias
	}
	return n
}

type entry struct{ key, value *yaml.Node }

// mapping returns the entries of a mapping in order, checking the keys
// against allowed (nil: any key).
func (r *reader) mapping(n *yaml.Node, where string, allowed []string) ([]entry, error) {
	n = deref(n)
	if n.Kind != yaml.MappingNode {
		return nil, r.errf(n, where, "expected a mapping, got %s", kind(n))
	}
	var out []entry
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := deref(n.Content[i]), deref(n.Content[i+1])
		if k.Kind != yaml.ScalarNode {
			return nil, r.errf(k, where, "expected a key, got %s", kind(k))
		}
		if allowed != nil && !slices.Contains(allowed, k.Value) {
			return nil, r.errf(k, where, "unknown key %q; expected one of %s", k.Value, strings.Join(allowed, ", "))
		}
		if seen[k.Value] {
			return nil, r.errf(k, where, "key %q given twice", k.Value)
		}
		seen[k.Value] = true
		out = append(out, entry{k, v})
	}
	return out, nil
}

func get(entries []entry, key string) *yaml.Node {
	for _, e := range entries {
		if e.key.Value == key {
			return e.value
		}
	}
	return nil
}

func (r *reader) list(n *yaml.Node, where string) ([]*yaml.Node, error) {
	n = deref(n)
	if n.Kind != yaml.SequenceNode {
		return nil, r.errf(n, where, "expected a list, got %s", kind(n))
	}
	out := make([]*yaml.Node, len(n.Content))
	for i, c := range n.Content {
		out[i] = deref(c)
	}
	return out, nil
}

// constant evaluates an integer expression of the constants (no loop
// indices).
func (r *reader) constant(n *yaml.Node, where, what string) (int64, error) {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		return 0, r.errf(n, where, "%s: expected an integer expression, got %s", what, kind(n))
	}
	v, err := r.constValue(n.Value)
	if err != nil {
		e := r.errf(n, where, "%s %q: %v", what, n.Value, withoutColumn(err))
		e.Err = err
		return 0, e
	}
	return v, nil
}

// constValue evaluates an integer expression of the constants, which must
// not use the loop indices.
func (r *reader) constValue(src string) (int64, error) {
	a, err := importer.ParseAffine(src, func(name string) (int64, bool, error) {
		if _, isLoop := r.byName[name]; isLoop {
			return 0, false, fmt.Errorf("depends on the loop index %s; polyvol needs a box-shaped iteration space (no triangular nests)", name)
		}
		return r.bind(name)
	})
	if err != nil {
		return 0, err
	}
	return a.Const, nil
}

// bind returns the -D value of a constant. The error about an unbound one
// names all the constants that no -D binds.
func (r *reader) bind(name string) (int64, bool, error) {
	v, ok := r.opt.Params[name]
	if !ok {
		ue := &importer.UnboundError{Name: name, What: "constant"}
		for _, u := range r.unbound {
			if u.Name != name {
				ue.More = append(ue.More, u)
			}
		}
		return 0, false, ue
	}
	return v, false, nil
}

// constants returns the constants that the description's sizes, loop
// bounds and indices use, each with its first use, in the order of the
// text: every name in them that is not a loop index.
func (r *reader) constants(top []entry) []importer.Use {
	indices := map[string]bool{}
	if n := get(top, "loops"); n != nil && deref(n).Kind == yaml.SequenceNode {
		for _, it := range deref(n).Content {
			if it = deref(it); it.Kind == yaml.MappingNode {
				for i := 0; i+1 < len(it.Content); i += 2 {
					if deref(it.Content[i]).Value == "index" {
						indices[deref(it.Content[i+1]).Value] = true
					}
				}
			}
		}
	}
	first := map[string]importer.Pos{}
	seen := map[*yaml.Node]bool{} // each node once, however many aliases name it
	var walk func(n *yaml.Node, depth int)
	walk = func(n *yaml.Node, depth int) {
		n = deref(n)
		if depth > 64 || seen[n] {
			return
		}
		seen[n] = true
		switch n.Kind {
		case yaml.ScalarNode:
			if n.Tag != "!!str" {
				return
			}
			for _, name := range identRE.FindAllString(n.Value, -1) {
				pos := importer.NodePos(n)
				if p, ok := first[name]; !indices[name] && (!ok || pos.Line < p.Line || pos.Line == p.Line && pos.Col < p.Col) {
					first[name] = pos
				}
			}
		case yaml.SequenceNode:
			for _, c := range n.Content {
				walk(c, depth+1)
			}
		case yaml.MappingNode: // the values, but not the types and loop indices
			for i := 0; i+1 < len(n.Content); i += 2 {
				if k := deref(n.Content[i]).Value; k != "type" && k != "index" {
					walk(n.Content[i+1], depth+1)
				}
			}
		}
	}
	for _, key := range []string{"arrays", "loops", "data sources", "data destinations"} {
		if n := get(top, key); n != nil {
			walk(n, 0)
		}
	}
	uses := make([]importer.Use, 0, len(first))
	for name, pos := range first {
		uses = append(uses, importer.Use{Name: name, Pos: pos})
	}
	slices.SortFunc(uses, func(a, b importer.Use) int {
		if a.Pos.Line != b.Pos.Line {
			return a.Pos.Line - b.Pos.Line
		}
		if a.Pos.Col != b.Pos.Col {
			return a.Pos.Col - b.Pos.Col
		}
		return strings.Compare(a.Name, b.Name)
	})
	return uses
}

// identRE matches the names in an expression (not the exponent of a
// number such as 1e5).
var identRE = regexp.MustCompile(`\b[A-Za-z_][A-Za-z0-9_]*`)

func (r *reader) scop(root *yaml.Node) (*importer.Scop, error) {
	top, err := r.mapping(root, "kernel description", topKeys)
	if err != nil {
		return nil, err
	}
	for _, k := range []string{"arrays", "loops", "data sources", "data destinations"} {
		if get(top, k) == nil {
			return nil, r.errf(deref(root), "kernel description", "missing key %q", k)
		}
	}
	if r.unbound, err = importer.UnboundConstants(r.file, r.opt.Params, r.constants(top), "the kernel description"); err != nil {
		return nil, err
	}
	s := r.newScop()
	if err := r.readLoops(get(top, "loops")); err != nil {
		return nil, err
	}
	arrays, err := r.arrays(get(top, "arrays"))
	if err != nil {
		return nil, err
	}
	s.Arrays = arrays
	st := r.statement()
	for _, key := range []string{"data sources", "data destinations"} {
		accs, err := r.accesses(get(top, key), key, arrays)
		if err != nil {
			return nil, err
		}
		st.Accesses = append(st.Accesses, accs...)
	}
	s.Statement = st
	if n := get(top, "flops"); n != nil {
		if s.Flops, err = r.flops(n); err != nil {
			return nil, err
		}
	}
	s.Description = fmt.Sprintf("imported from the Kerncraft kernel description %s", filepath.Base(r.file))
	if n := get(top, "description"); n != nil && n.Kind == yaml.ScalarNode && strings.TrimSpace(n.Value) != "" {
		s.Description = strings.TrimSpace(n.Value) + " (" + s.Description + ")"
	}
	if n := get(top, "name"); n != nil && n.Kind == yaml.ScalarNode && strings.TrimSpace(n.Value) != "" {
		s.Name = strings.TrimSpace(n.Value)
	}
	return s, nil
}

// newScop returns the Scop of the file, with its name and notes.
func (r *reader) newScop() *importer.Scop {
	s := &importer.Scop{File: r.file, Name: importer.SpecName(r.file, "kerncraft")}
	if r.opt.Element != 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("%s: --element %d is not used: a kernel description gives each array's type", r.file, r.opt.Element))
	}
	return s
}

// statement returns the statement of the loop nest r.loops, without its
// accesses: its domain is the box of the loop counters.
func (r *reader) statement() *importer.Statement {
	names := make([]string, len(r.loops))
	cons := make([]string, len(r.loops))
	for k, l := range r.loops {
		names[k] = l.islName
		cons[k] = fmt.Sprintf("0 <= %s <= %d", l.islName, l.trips-1)
	}
	st := &importer.Statement{
		Name:   stmtName,
		Domain: fmt.Sprintf("{ %s[%s] : %s }", stmtName, strings.Join(names, ", "), strings.Join(cons, " and ")),
		Where:  "loop nest",
	}
	if len(r.loops) > 0 {
		st.DomainPos = importer.Pos{Line: r.loops[0].line, Col: r.loops[0].col}
	}
	return st
}

func (r *reader) readLoops(n *yaml.Node) error {
	items, err := r.list(n, "loops")
	if err != nil {
		return err
	}
	if len(items) == 0 {
		return r.errf(n, "loops", "expected 1 to 3 loops, outermost first")
	}
	// The bounds may use the constants, not the loop indices: know them all.
	for _, it := range items {
		if it.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(it.Content); i += 2 {
				if k, v := deref(it.Content[i]), deref(it.Content[i+1]); k.Value == "index" && v.Kind == yaml.ScalarNode && isIdent(v.Value) {
					r.byName[v.Value] = -1
				}
			}
		}
	}
	for i, it := range items {
		where := fmt.Sprintf("loops[%d]", i)
		m, err := r.mapping(it, where, []string{"index", "start", "stop", "step"})
		if err != nil {
			return err
		}
		for _, k := range []string{"index", "start", "stop"} {
			if get(m, k) == nil {
				return r.errf(it, where, "missing key %q", k)
			}
		}
		idx := get(m, "index")
		if idx.Kind != yaml.ScalarNode || !isIdent(idx.Value) {
			return r.errf(idx, where, "index: expected a name, got %s", kind(idx))
		}
		where = fmt.Sprintf("loop %s", idx.Value)
		if slices.ContainsFunc(r.loops, func(l loop) bool { return l.index == idx.Value }) {
			return r.errf(idx, where, "index %s used by two loops", idx.Value)
		}
		l := loop{index: idx.Value, islName: idx.Value, step: 1, line: it.Line, col: it.Column}
		r.byName[idx.Value] = len(r.loops)
		for _, b := range []struct {
			key string
			v   *int64
		}{{"start", &l.start}, {"stop", &l.stop}, {"step", &l.step}} {
			bn := get(m, b.key)
			if bn == nil {
				continue
			}
			if *b.v, err = r.constant(bn, where, b.key); err != nil {
				return err
			}
		}
		if key, msg := r.addLoop(l); msg != "" {
			return r.errf(get(m, key), where, "%s", msg)
		}
	}
	if len(r.loops) > 3 {
		return r.errf(n, "loops", "%s", tooManyLoops(len(r.loops)))
	}
	return nil
}

// tooManyLoops is the message about a nest of n > 3 loops.
func tooManyLoops(n int) string {
	return fmt.Sprintf("%d loops; polyvol's lattice has 1 to 3 dimensions", n)
}

// addLoop checks the bounds of l, the next loop inward, counts its
// iterations and appends it to r.loops. A bad loop is not appended: addLoop
// returns the bound at fault ("step" or "stop") and the message.
func (r *reader) addLoop(l loop) (key, msg string) {
	if l.step < 1 {
		return "step", fmt.Sprintf("step %d: expected a positive step", l.step)
	}
	if l.stop <= l.start {
		return "stop", fmt.Sprintf("runs no iterations (start %d, stop %d)", l.start, l.stop)
	}
	if l.stop-l.start < 0 || l.stop-l.start > 1<<50 {
		return "stop", fmt.Sprintf("more than 2^50 iterations (start %d, stop %d)", l.start, l.stop)
	}
	l.trips = (l.stop - l.start + l.step - 1) / l.step
	if !safeISLName(l.islName) {
		l.islName = fmt.Sprintf("_loop%d", len(r.loops))
	}
	r.byName[l.index] = len(r.loops)
	r.loops = append(r.loops, l)
	return "", ""
}

// isIdent reports whether s is a C identifier.
func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		if c != '_' && !(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z') && !(i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// safeISLName reports whether a C identifier can name an ISL tuple or
// dimension (ISL reserves some words).
func safeISLName(s string) bool {
	return isIdent(s) && !slices.Contains([]string{"and", "or", "not", "mod", "floor", "ceil", "ceild", "floord", "min", "max", "exists", "infty", "NaN", "true", "false", "rat", "implies", "S"}, s)
}

func (r *reader) arrays(n *yaml.Node) ([]*importer.Array, error) {
	entries, err := r.mapping(n, "arrays", nil)
	if err != nil {
		return nil, err
	}
	var out []*importer.Array
	for i, e := range entries {
		name := e.key.Value
		where := fmt.Sprintf("array %q", name)
		if !isIdent(name) {
			return nil, r.errf(e.key, where, "expected a C identifier as the array's name")
		}
		m, err := r.mapping(e.value, where, []string{"type", "dimension"})
		if err != nil {
			return nil, err
		}
		tn := get(m, "type")
		if tn == nil {
			return nil, r.errf(e.value, where, "missing key \"type\"")
		}
		typ, err := r.typeName(tn, where)
		if err != nil {
			return nil, err
		}
		a, err := r.newArray(name, typ, i, importer.Pos{Line: e.key.Line, Col: e.key.Column})
		if err != nil {
			return nil, r.errf(tn, where, "bad type: %v", err)
		}
		dn := get(m, "dimension")
		if dn != nil && !(dn.Kind == yaml.ScalarNode && dn.Tag == "!!null") {
			items, err := r.list(dn, where+" dimension")
			if err != nil {
				return nil, err
			}
			for j, it := range items {
				v, err := r.constant(it, where, fmt.Sprintf("dimension[%d]", j))
				if err != nil {
					return nil, err
				}
				if v < 1 {
					return nil, r.errf(it, where, "dimension[%d] = %d: expected a positive size", j, v)
				}
				a.Sizes = append(a.Sizes, v)
			}
		} else {
			a.Sizes = nil // a scalar
		}
		out = append(out, a)
	}
	return out, nil
}

// newArray returns the i-th array, named name in the input, of elements
// of the C type typ, without its sizes.
func (r *reader) newArray(name, typ string, i int, pos importer.Pos) (*importer.Array, error) {
	elem, fp, err := importer.ElementSize(typ)
	if err != nil {
		return nil, err
	}
	a := &importer.Array{Name: name, Field: name, Element: elem, FPBytes: fp, Where: fmt.Sprintf("array %q", name), Pos: pos}
	if _, isLoop := r.byName[name]; isLoop || !safeISLName(name) {
		a.Name = fmt.Sprintf("_array%d", i) // an ISL-safe tuple name
	}
	return a, nil
}

// typeName reads a C type: a string, or a list of words such as
// [double, _Complex].
func (r *reader) typeName(n *yaml.Node, where string) (string, error) {
	switch {
	case n.Kind == yaml.ScalarNode && n.Tag != "!!null":
		return n.Value, nil
	case n.Kind == yaml.SequenceNode:
		var words []string
		for _, c := range n.Content {
			c = deref(c)
			if c.Kind != yaml.ScalarNode {
				return "", r.errf(c, where, "type: expected words, got %s", kind(c))
			}
			words = append(words, c.Value)
		}
		return strings.Join(words, " "), nil
	}
	return "", r.errf(n, where, "type: expected a C type such as double, got %s", kind(n))
}

// accesses reads the data sources or destinations.
func (r *reader) accesses(n *yaml.Node, key string, arrays []*importer.Array) ([]importer.Access, error) {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil, nil
	}
	entries, err := r.mapping(n, key, nil)
	if err != nil {
		return nil, err
	}
	write := key == "data destinations"
	var out []importer.Access
	for _, e := range entries {
		name := e.key.Value
		ai := slices.IndexFunc(arrays, func(a *importer.Array) bool { return a.Field == name })
		items, err := r.list(e.value, fmt.Sprintf("%s %q", key, name))
		if err != nil {
			return nil, err
		}
		if ai < 0 {
			return nil, r.errf(e.key, fmt.Sprintf("%s %q", key, name), "array %q is not declared under arrays", name)
		}
		arr := arrays[ai]
		for i, it := range items {
			where := fmt.Sprintf("%s %q[%d]", key, name, i)
			if it.Kind == yaml.ScalarNode && it.Tag == "!!null" {
				if len(arr.Sizes) == 0 {
					continue // a scalar, kept in a register
				}
				return nil, r.errf(it, where, "wrong arity: no index, but array %s has %d dimensions", name, len(arr.Sizes))
			}
			if len(arr.Sizes) == 0 {
				return nil, r.errf(it, where, "array %s is a scalar (dimension null), but the access has an index", name)
			}
			subs, err := r.list(it, where)
			if err != nil {
				return nil, err
			}
			where += " " + accessText(subs)
			if len(subs) != len(arr.Sizes) {
				return nil, r.errf(it, where, "wrong arity: %d indices, but array %s has %d dimensions", len(subs), name, len(arr.Sizes))
			}
			var texts []string
			for j, sn := range subs {
				if sn.Kind != yaml.ScalarNode || sn.Tag == "!!null" {
					return nil, r.errf(sn, where, "index %d: expected an expression, got %s", j, kind(sn))
				}
				t, err := r.index(sn.Value)
				if err != nil {
					e := r.errf(sn, where, "index %d %q: %v", j, sn.Value, withoutColumn(err))
					e.Err = err
					return nil, e
				}
				texts = append(texts, t)
			}
			out = append(out, r.access(write, arr, texts, importer.NodePos(it), where))
		}
	}
	return out, nil
}

// access returns the access of the statement to arr at the index texts
// (over the loop counters, as index writes them).
func (r *reader) access(write bool, arr *importer.Array, texts []string, pos importer.Pos, where string) importer.Access {
	names := make([]string, len(r.loops))
	for k, l := range r.loops {
		names[k] = l.islName
	}
	return importer.Access{
		Write:    write,
		Relation: fmt.Sprintf("{ %s[%s] -> %s[%s] }", stmtName, strings.Join(names, ", "), arr.Name, strings.Join(texts, ", ")),
		Pos:      pos,
		Where:    where,
	}
}

// withoutColumn drops the column from an unbound constant's error, which
// names the constant anyway.
func withoutColumn(err error) error {
	var ue *importer.UnboundError
	if errors.As(err, &ue) {
		return ue
	}
	return err
}

// accessText renders an index tuple for messages.
func accessText(subs []*yaml.Node) string {
	var parts []string
	for _, s := range subs {
		parts = append(parts, s.Value)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// index parses an index expression of the loop indices and constants and
// rewrites it over the loop counters: index = start + step·counter.
func (r *reader) index(src string) (string, error) {
	a, err := importer.ParseAffine(src, func(name string) (int64, bool, error) {
		if _, ok := r.byName[name]; ok {
			return 0, true, nil
		}
		return r.bind(name)
	})
	if err != nil {
		return "", err
	}
	sub := map[string]importer.Affine{}
	order := make([]string, len(r.loops))
	for k, l := range r.loops {
		sub[l.index] = importer.Affine{Coef: map[string]int64{l.islName: l.step}, Const: l.start}
		order[k] = l.islName
	}
	// Rename first, so that a loop named like another's ISL name cannot clash.
	c, err := a.Substitute(sub)
	if err != nil {
		return "", err
	}
	return c.ISL(order), nil
}

// flops sums the operation counts.
func (r *reader) flops(n *yaml.Node) (float64, error) {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return 0, nil
	}
	if n.Kind == yaml.ScalarNode && (n.Tag == "!!int" || n.Tag == "!!float") {
		var v float64
		if err := n.Decode(&v); err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
			return 0, r.errf(n, "flops", "expected a non-negative count, got %s", kind(n))
		}
		return v, nil
	}
	entries, err := r.mapping(n, "flops", nil)
	if err != nil {
		return 0, err
	}
	total := 0.0
	for _, e := range entries {
		var v float64
		if e.value.Kind != yaml.ScalarNode || (e.value.Tag != "!!int" && e.value.Tag != "!!float") || e.value.Decode(&v) != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
			return 0, r.errf(e.value, fmt.Sprintf("flops %q", e.key.Value), "expected a non-negative count, got %s", kind(e.value))
		}
		total += v
	}
	if total > 1e9 {
		return 0, r.errf(n, "flops", "%g operations per iteration: expected at most 10^9", total)
	}
	return total, nil
}
