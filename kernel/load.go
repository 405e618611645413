package kernel

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/polyvol/polyvol/examples"
	"github.com/polyvol/polyvol/printable"
	"github.com/polyvol/polyvol/yamldoc"
)

// SpecError is an error in a kernel spec: the file, the 1-based line and
// column of the offending YAML node (0 when unknown), and a message that
// names the field, access and expression column where they apply.
type SpecError struct {
	File      string
	Line, Col int
	Msg       string
	Err       error // the error Msg reports, where another package's (such as a MapReader's); or nil
}

// Unwrap returns the error the message reports, or nil.
func (e *SpecError) Unwrap() error { return e.Err }

func (e *SpecError) Error() string {
	switch {
	case e.Line == 0:
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	case e.Col == 0:
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
}

// Option configures Parse and LoadFile.
type Option func(*options)

type options struct {
	readMap MapReader
	params  map[string]int64
}

// MapSite is what a MapReader knows of the spec around a raw map.
type MapSite struct {
	Dims   int              // lattice dimensions: the number of the map's inputs
	Domain [3]int64         // the lattice extent, x first
	Params map[string]int64 // values of the parameters the map may name
	// Named collects the parameters the map names; the reader adds them,
	// so that the loader can refuse a WithParams value that no map names.
	Named map[string]bool
}

// MapReader turns a raw access map in ISL notation (load_isl, store_isl)
// into the accesses it stands for: index tuples of one to three entries,
// with the conditions under which each applies as Guards. A map that is
// valid but stands for no such accesses is reported with an
// *UnmodelledMapError; any other error means the map is not valid. Either
// way the loader refuses the spec.
type MapReader func(src string, site MapSite) ([]Access, error)

// UnmodelledMapError is a valid raw map that is no union of index tuples
// polyvol evaluates, such as one whose points touch a range of elements
// whose width varies; Reason says why. The loader refuses it, since
// polyvol counts index tuples only.
type UnmodelledMapError struct {
	Reason string
}

func (e *UnmodelledMapError) Error() string { return e.Reason }

// WithMapReader makes the loader turn raw maps into accesses with read
// (the relation package reads them with libisl). Without a reader a spec
// with load_isl or store_isl is refused.
func WithMapReader(read MapReader) Option {
	return func(o *options) { o.readMap = read }
}

// WithParams binds parameters of raw maps, index expressions and
// conditions, over the values of the spec's params key (the command
// line's -D).
func WithParams(values map[string]int64) Option {
	return func(o *options) { o.params = values }
}

// ParseExample parses the embedded example kernel of the given name (see
// examples.Names), with or without the ".yaml" suffix; errors name the file
// NAME.yaml. It fails with an fs.ErrNotExist error for an unknown name.
func ParseExample(name string, opts ...Option) (*Kernel, error) {
	file := strings.TrimSuffix(name, ".yaml") + ".yaml"
	data, err := examples.Read(file)
	if err != nil {
		return nil, err
	}
	return Parse(data, file, opts...)
}

// MaxSpecBytes bounds the size of a spec file: a spec is a small text (the
// largest example, lbm-d3q27-aos, has 10 KB), and reading a path such as
// /dev/zero must not exhaust memory. The YAML decoder holds about 90 bytes
// per byte of spec: a spec of 2 MiB (640 fields of 100 loads) loads and
// stops at the work bound within 190 MB, one of 16 MiB took 1 GB.
const MaxSpecBytes = 2 << 20

// LoadFile reads and validates the kernel spec at path (YAML or JSON) of at
// most MaxSpecBytes bytes.
func LoadFile(path string, opts ...Option) (*Kernel, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return LoadReader(f, path, opts...)
}

// LoadReader reads and validates a kernel spec of at most MaxSpecBytes bytes
// from r (a file or standard input); name stands for it in messages.
func LoadReader(r io.Reader, name string, opts ...Option) (*Kernel, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxSpecBytes+1))
	if err != nil {
		return nil, &SpecError{File: name, Msg: err.Error()}
	}
	if len(data) > MaxSpecBytes {
		return nil, &SpecError{File: name, Msg: fmt.Sprintf("larger than %d MiB; a spec is a small YAML or JSON text", MaxSpecBytes>>20)}
	}
	return Parse(data, name, opts...)
}

// maxFlops bounds the floating-point operations per lattice update.
const maxFlops = 1e9

// maxAddress bounds the byte addresses a spec may produce, leaving a margin
// below 2^63 for folding and granule arithmetic.
const maxAddress = int64(1) << 60

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// Parse validates a kernel spec (YAML or JSON) read from filename, which is
// used in messages and recorded as Kernel.Source. All errors are *SpecError.
func Parse(data []byte, filename string, opts ...Option) (*Kernel, error) {
	l := &loader{file: filename, storeNodes: map[string]*yaml.Node{}}
	for _, o := range opts {
		o(&l.opts)
	}
	doc, err := yamldoc.One(data, "a spec")
	if err != nil && isJSON(data) {
		// JSON allows tabs as whitespace where YAML does not; JSON strings
		// cannot hold raw tabs, so replacing them keeps text and columns.
		doc, err = yamldoc.One(bytes.ReplaceAll(data, []byte("\t"), []byte(" ")), "a spec")
	}
	if err != nil {
		// A syntax error names the line and column of the problem
		// (yamldoc.SyntaxError); other errors of the parser at most a line.
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		line, col := 0, 0
		var se *yamldoc.SyntaxError
		if errors.As(err, &se) {
			line, col, msg = se.Line, se.Column, se.Msg
		} else if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
			line, _ = strconv.Atoi(m[1])
			msg = m[2]
		}
		// The first bracket nested too deep, and the text after a JSON
		// object, are located in the text itself.
		if strings.Contains(msg, "exceeded max depth") || strings.Contains(msg, "<document start>") {
			if l, c := syntaxErrorPosition(data); l > 0 {
				line, col = l, c
			}
		}
		return nil, &SpecError{File: filename, Line: line, Col: col, Msg: "syntax error: " + msg}
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil, &SpecError{File: filename, Line: 1, Col: 1, Msg: "empty spec: expected a mapping with name, domain and fields"}
	}
	return l.kernel(doc.Content[0])
}

// maxYAMLNesting is the nesting depth of sequences and mappings beyond which
// the YAML parser gives up ("exceeded max depth of 10000").
const maxYAMLNesting = 10000

// syntaxErrorPosition locates a syntax error for which the YAML parser
// names no line: the first bracket nested deeper than maxYAMLNesting, or, in
// JSON, the first text after the first value. It returns 0, 0 when it
// finds neither.
func syntaxErrorPosition(data []byte) (line, col int) {
	offset := -1
	depth, quote := 0, byte(0)
	for i := 0; i < len(data) && offset < 0; i++ {
		switch c := data[i]; {
		case quote != 0:
			if c == '\\' && quote == '"' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '[' || c == '{':
			if depth++; depth > maxYAMLNesting {
				offset = i
			}
		case c == ']' || c == '}':
			depth--
		}
	}
	if offset < 0 && isJSON(data) {
		dec := json.NewDecoder(bytes.NewReader(data))
		var v json.RawMessage
		if dec.Decode(&v) == nil {
			rest := bytes.TrimLeft(data[dec.InputOffset():], " \t\r\n")
			if len(rest) > 0 {
				offset = len(data) - len(rest)
			}
		}
	}
	if offset < 0 {
		return 0, 0
	}
	line = 1 + bytes.Count(data[:offset], []byte("\n"))
	return line, 1 + offset - (bytes.LastIndexByte(data[:offset], '\n') + 1)
}

func isJSON(data []byte) bool {
	t := bytes.TrimSpace(data)
	return len(t) > 0 && t[0] == '{'
}

type loader struct {
	file   string
	opts   options
	params map[string]int64 // the spec's params with WithParams over them
	named  map[string]bool  // the parameters that raw maps, index expressions and conditions name
	// storeNodes holds each field's store key, by field name, where
	// errors about the kernel's store point.
	storeNodes map[string]*yaml.Node
}

// paramScope returns the parameters that index expressions and conditions
// may name, recording the ones they name.
func (l *loader) paramScope() paramScope {
	return paramScope{values: l.params, named: l.named}
}

func (l *loader) errf(n *yaml.Node, format string, args ...any) error {
	return &SpecError{File: l.file, Line: n.Line, Col: n.Column, Msg: fmt.Sprintf(format, args...)}
}

// deref follows YAML aliases to the node they name.
func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n.Kind == yaml.AliasNode && n.Alias != nil && i < 64; i++ {
		n = n.Alias
	}
	return n
}

// entry is one key of a mapping with its value node.
type entry struct {
	key, value *yaml.Node
}

// mapping checks that n is a mapping whose keys are distinct and among
// allowed, and returns the values by key.
func (l *loader) mapping(n *yaml.Node, what string, allowed []string) (map[string]entry, error) {
	n = deref(n)
	if n.Kind != yaml.MappingNode {
		return nil, l.errf(n, "%s: expected a mapping with keys %s, got %s", what, strings.Join(allowed, ", "), kindName(n))
	}
	out := make(map[string]entry)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := deref(n.Content[i]), deref(n.Content[i+1])
		if k.Kind != yaml.ScalarNode {
			return nil, l.errf(k, "%s: expected a key, got %s", what, kindName(k))
		}
		known := false
		for _, a := range allowed {
			known = known || a == k.Value
		}
		if !known {
			return nil, l.errf(k, "%s: unknown key %q; expected one of %s", what, k.Value, strings.Join(allowed, ", "))
		}
		if prev, dup := out[k.Value]; dup {
			return nil, l.errf(k, "%s: key %q given twice (first at line %d)", what, k.Value, prev.key.Line)
		}
		out[k.Value] = entry{k, v}
	}
	return out, nil
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "nothing (null)"
		}
		return fmt.Sprintf("%q", n.Value)
	}
	return "an unsupported YAML node"
}

func (l *loader) str(n *yaml.Node, what string) (string, error) {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		return "", l.errf(n, "%s: expected a string, got %s", what, kindName(n))
	}
	return n.Value, nil
}

func (l *loader) integer(n *yaml.Node, what string) (int64, error) {
	var v int64
	if n.Kind != yaml.ScalarNode || n.Tag != "!!int" || n.Decode(&v) != nil {
		return 0, l.errf(n, "%s: expected an integer, got %s", what, kindName(n))
	}
	return v, nil
}

func (l *loader) intRange(n *yaml.Node, what string, lo, hi int64) (int64, error) {
	v, err := l.integer(n, what)
	switch {
	case err != nil:
	case hi == math.MaxInt64 && v < lo:
		err = l.errf(n, "%s = %d: expected a value of at least %d", what, v, lo)
	case v < lo || v > hi:
		err = l.errf(n, "%s = %d: expected a value from %d to %d", what, v, lo, hi)
	}
	return v, err
}

func (l *loader) number(n *yaml.Node, what string) (float64, error) {
	var v float64
	if n.Kind != yaml.ScalarNode || (n.Tag != "!!int" && n.Tag != "!!float") || n.Decode(&v) != nil {
		return 0, l.errf(n, "%s: expected a number, got %s", what, kindName(n))
	}
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return 0, l.errf(n, "%s = %v: expected a finite number ≥ 0", what, v)
	}
	return v, nil
}

func (l *loader) boolean(n *yaml.Node, what string) (bool, error) {
	var v bool
	if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" || n.Decode(&v) != nil {
		return false, l.errf(n, "%s: expected true or false, got %s", what, kindName(n))
	}
	return v, nil
}

// sequence returns the items of a list; a single scalar counts as a list of one.
func (l *loader) sequence(n *yaml.Node, what string) ([]*yaml.Node, error) {
	switch n.Kind {
	case yaml.SequenceNode:
		items := make([]*yaml.Node, len(n.Content))
		for i, c := range n.Content {
			items[i] = deref(c)
		}
		return items, nil
	case yaml.ScalarNode:
		if n.Tag != "!!null" {
			return []*yaml.Node{n}, nil
		}
	}
	return nil, l.errf(n, "%s: expected a list, got %s", what, kindName(n))
}

// sizes reads 1 to 3 positive integers, padded with 1, whose product is at
// most maxLups.
func (l *loader) sizes(n *yaml.Node, what string) ([3]int64, int, error) {
	s := [3]int64{1, 1, 1}
	items, err := l.sequence(n, what)
	if err != nil {
		return s, 0, err
	}
	if len(items) < 1 || len(items) > 3 {
		return s, 0, l.errf(n, "%s: expected 1 to 3 entries (x first), got %d", what, len(items))
	}
	product := int64(1)
	for i, it := range items {
		if s[i], err = l.intRange(it, fmt.Sprintf("%s[%d]", what, i), 1, math.MaxInt64); err != nil {
			return s, 0, err
		}
		if s[i] > maxLups/product {
			return s, 0, l.errf(it, "%s: more than 2^50 points in total", what)
		}
		product *= s[i]
	}
	return s, len(items), nil
}

var kernelKeys = []string{"name", "description", "domain", "params", "flops", "fp_type", "registers", "shared_bytes", "bounds_check", "state", "steps", "fields"}

// kernel reads the spec's top-level mapping into a Kernel.
func (l *loader) kernel(root *yaml.Node) (*Kernel, error) {
	m, err := l.mapping(root, "kernel spec", kernelKeys)
	if err != nil {
		return nil, err
	}
	k := &Kernel{Registers: DefaultRegisters, FPType: DefaultFPType, Source: l.file}
	for _, req := range []string{"name", "domain", "fields"} {
		if _, ok := m[req]; !ok {
			return nil, l.errf(deref(root), "kernel spec: missing required key %q", req)
		}
	}
	if k.Name, err = l.name(m["name"].value, "name"); err != nil {
		return nil, err
	}
	if e, ok := m["description"]; ok {
		if k.Description, err = l.str(e.value, "description"); err != nil {
			return nil, err
		}
	}
	if k.Domain, k.Dims, err = l.sizes(m["domain"].value, "domain"); err != nil {
		return nil, err
	}
	if l.params, err = l.paramValues(m); err != nil {
		return nil, err
	}
	if err := l.settings(m, k); err != nil {
		return nil, err
	}
	if err := l.fields(m["fields"].value, k); err != nil {
		return nil, err
	}
	if _, ok := m["fp_type"]; !ok {
		k.FPType = defaultFPType(k.Fields)
	}
	if err := l.steps(m, k); err != nil {
		return nil, err
	}
	if err := l.unnamedParams(); err != nil {
		return nil, err
	}
	return k, nil
}

// name reads a kernel's or a field's name: a printable string, not empty.
func (l *loader) name(n *yaml.Node, what string) (string, error) {
	name, err := l.str(n, what)
	if err != nil {
		return "", err
	}
	if name == "" {
		return "", l.errf(n, "%s: must not be empty", what)
	}
	if err := printable.Check(name); err != nil {
		return "", l.errf(n, "%s: %v (in %q)", what, err, excerpt(name))
	}
	return name, nil
}

// settings reads the kernel's optional settings: flops, fp_type,
// registers, shared_bytes and bounds_check.
func (l *loader) settings(m map[string]entry, k *Kernel) error {
	var err error
	if e, ok := m["flops"]; ok {
		if k.Flops, err = l.number(e.value, "flops"); err != nil {
			return err
		}
		if !(k.Flops >= 0 && k.Flops <= maxFlops) {
			return l.errf(e.value, "flops = %g: expected 0 to 10^9 floating-point operations per lattice update", k.Flops)
		}
	}
	if e, ok := m["fp_type"]; ok {
		v, err := l.integer(e.value, "fp_type")
		if err == nil && v != 4 && v != 8 {
			err = l.errf(e.value, "fp_type = %d: expected 4 (single) or 8 (double precision)", v)
		}
		if err != nil {
			return err
		}
		k.FPType = int(v)
	}
	if e, ok := m["registers"]; ok {
		v, err := l.intRange(e.value, "registers", 1, 255)
		if err != nil {
			return err
		}
		k.Registers, k.RegistersStated = int(v), true
	}
	if e, ok := m["shared_bytes"]; ok {
		if k.SharedBytes, err = l.intRange(e.value, "shared_bytes", 0, math.MaxInt32); err != nil {
			return err
		}
	}
	if e, ok := m["bounds_check"]; ok {
		s, err := l.str(e.value, "bounds_check")
		if err != nil {
			return err
		}
		if k.BoundsCheck, err = ParseBoundsCheck(s); err != nil {
			return l.errf(e.value, "%v", err)
		}
	}
	return nil
}

// steps reads the kernel's state and steps (after its fields) and checks
// them (checkState): an error about the state's store points at the store
// key of the field that stores, others at the key they are about.
func (l *loader) steps(m map[string]entry, k *Kernel) error {
	k.Steps = 1
	stepsEntry, hasSteps := m["steps"]
	if hasSteps {
		var err error
		if k.Steps, err = l.intRange(stepsEntry.value, "steps", 1, MaxSteps); err != nil {
			return err
		}
	}
	e, ok := m["state"]
	if !ok {
		if k.Steps > 1 {
			return l.errf(stepsEntry.value, "steps = %d: the spec names no state (state: the staged field that each step advances), so it performs one step per launch", k.Steps)
		}
		return nil
	}
	var err error
	if k.State, err = l.name(e.value, "state"); err != nil {
		return err
	}
	if err := checkState(k); err != nil {
		at := e.value
		if n, ok := l.storeNodes[storingField(k)]; ok && errors.Is(err, errNextValue) {
			at = n
		}
		return l.errf(at, "%v", err)
	}
	return nil
}

// fields reads the list of fields into k.Fields, each name used once.
func (l *loader) fields(n *yaml.Node, k *Kernel) error {
	items, err := l.sequence(n, "fields")
	if err != nil {
		return err
	}
	if len(items) == 0 {
		return l.errf(n, "fields: expected at least one field")
	}
	names := make(map[string]*yaml.Node)
	for i, it := range items {
		f, nameNode, err := l.field(it, i, k)
		if err != nil {
			return err
		}
		if prev, dup := names[f.Name]; dup {
			return l.errf(nameNode, "field %q: name already used by the field at line %d", f.Name, prev.Line)
		}
		names[f.Name] = nameNode
		k.Fields = append(k.Fields, f)
	}
	return nil
}

// unnamedParams refuses WithParams values that no raw map, index
// expression or condition names, which are most likely a misspelt name.
func (l *loader) unnamedParams() error {
	var unused, named []string
	for name, v := range l.opts.params {
		if !l.named[name] {
			unused = append(unused, fmt.Sprintf("-D %s=%d", name, v))
		}
	}
	if len(unused) == 0 {
		return nil
	}
	for name := range l.named {
		named = append(named, name)
	}
	slices.Sort(unused)
	slices.Sort(named)
	has := "it names no parameters"
	if len(named) > 0 {
		has = "it names " + strings.Join(named, ", ")
	}
	return &SpecError{File: l.file, Msg: fmt.Sprintf("%s: no parameter of that name in the spec; %s", strings.Join(unused, ", "), has)}
}

// defaultFPType is the precision of a spec without fp_type: single (4) when
// no field's element is wider than 4 bytes, double (8) otherwise.
func defaultFPType(fields []*Field) int {
	for _, f := range fields {
		if f.Element > 4 {
			return DefaultFPType
		}
	}
	return 4
}

var fieldKeys = []string{"name", "element", "extent", "offset", "multiplicity", "scalar", "load", "store", "load_isl", "store_isl", "stage"}

// field reads fields[index], and returns it with the node of its name.
func (l *loader) field(n *yaml.Node, index int, k *Kernel) (*Field, *yaml.Node, error) {
	what := fmt.Sprintf("fields[%d]", index)
	m, err := l.mapping(n, what, fieldKeys)
	if err != nil {
		return nil, nil, err
	}
	nameEntry, ok := m["name"]
	if !ok {
		return nil, nil, l.errf(deref(n), "%s: missing required key \"name\"", what)
	}
	f := &Field{Extent: k.Domain, Multiplicity: 1}
	if f.Name, err = l.name(nameEntry.value, what+" name"); err != nil {
		return nil, nil, err
	}
	what = fmt.Sprintf("field %q", f.Name)
	extentDims, err := l.layout(m, f, what, nameEntry.value, k.Dims)
	if err != nil {
		return nil, nil, err
	}
	if err := l.fieldAccesses(m, f, what, extentDims, k); err != nil {
		return nil, nil, err
	}
	if len(f.Loads)+len(f.Stores) == 0 {
		return nil, nil, l.errf(nameEntry.value, "%s: no accesses; expected at least one entry in load, store, load_isl or store_isl", what)
	}
	if e, ok := m["stage"]; ok {
		if f.Stage, err = l.staging(e.value, what+" stage"); err != nil {
			return nil, nil, err
		}
		if err := checkStaging(f); err != nil {
			return nil, nil, l.errf(e.value, "%s: %v", what+" stage", err)
		}
	}
	return f, nameEntry.value, nil
}

// layout reads field f's array: its element, extent, offset, multiplicity
// and scalar keys, and checks that the array is addressable. It returns
// the number of the extent's dimensions: dims, the domain's, where the
// field has no extent of its own. Errors without a node of their own point
// at nameNode.
func (l *loader) layout(m map[string]entry, f *Field, what string, nameNode *yaml.Node, dims int) (int, error) {
	elem, ok := m["element"]
	if !ok {
		return 0, l.errf(nameNode, "%s: missing required key \"element\" (bytes per element)", what)
	}
	var err error
	if f.Element, err = l.integer(elem.value, what+" element"); err != nil {
		return 0, err
	}
	switch f.Element {
	case 1, 2, 4, 8, 16:
	default:
		return 0, l.errf(elem.value, "%s element = %d: expected 1, 2, 4, 8 or 16 bytes", what, f.Element)
	}
	extentDims, sizeNode := dims, nameNode
	if e, ok := m["extent"]; ok {
		if f.Extent, extentDims, err = l.sizes(e.value, what+" extent"); err != nil {
			return 0, err
		}
		sizeNode = e.value
	}
	if e, ok := m["offset"]; ok {
		if f.Offset, err = l.intRange(e.value, what+" offset", -maxAddress, maxAddress); err != nil {
			return 0, err
		}
		sizeNode = e.value
	}
	if e, ok := m["multiplicity"]; ok {
		if f.Multiplicity, err = l.intRange(e.value, what+" multiplicity", 1, math.MaxInt32); err != nil {
			return 0, err
		}
	}
	if e, ok := m["scalar"]; ok {
		if f.Scalar, err = l.boolean(e.value, what+" scalar"); err != nil {
			return 0, err
		}
	}
	// The array itself must be addressable: (|α| + N0·N1·N2)·s ≤ maxAddress.
	if size := f.Extent[0] * f.Extent[1] * f.Extent[2]; size > (maxAddress/f.Element)-abs64(f.Offset) {
		return 0, l.errf(sizeNode, "%s: extent %v with offset %d and %d-byte elements spans more than 2^60 bytes", what, f.Extent, f.Offset, f.Element)
	}
	return extentDims, nil
}

// fieldAccesses reads field f's loads and stores, as index expressions
// (load, store) and as raw maps (load_isl, store_isl).
func (l *loader) fieldAccesses(m map[string]entry, f *Field, what string, extentDims int, k *Kernel) error {
	for _, store := range []bool{false, true} {
		key := map[bool]string{false: "load", true: "store"}[store]
		if e, ok := m[key]; ok {
			if store {
				l.storeNodes[f.Name] = e.value
			}
			accs, err := l.accesses(e.value, what+" "+key, f, extentDims, k)
			if err != nil {
				return err
			}
			if store {
				f.Stores = accs
			} else {
				f.Loads = accs
			}
		}
		if e, ok := m[key+"_isl"]; ok {
			maps, err := l.rawMaps(e.value, what+" "+key+"_isl")
			if err != nil {
				return err
			}
			if err := l.convertMaps(f, maps, store, what+" "+key+"_isl", e.value, k); err != nil {
				return err
			}
		}
	}
	return nil
}

// stagingKeys are the keys of a field's stage mapping.
var stagingKeys = []string{"copy", "pad"}

// staging reads a field's stage mapping: copy (rows or block) and pad (a
// count of elements or "banks").
func (l *loader) staging(n *yaml.Node, what string) (*Staging, error) {
	m, err := l.mapping(n, what, stagingKeys)
	if err != nil {
		return nil, err
	}
	s := &Staging{}
	if e, ok := m["copy"]; ok {
		name, err := l.str(e.value, what+" copy")
		if err != nil {
			return nil, err
		}
		if s.Copy, err = ParseCopyMapping(name); err != nil {
			return nil, l.errf(e.value, "%s: %v", what, err)
		}
	}
	if e, ok := m["pad"]; ok {
		if v := deref(e.value); v.Kind == yaml.ScalarNode && v.Value == "banks" {
			s.Pad = PadBanks
		} else if s.Pad, err = l.intRange(e.value, what+" pad", 0, 1<<20); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// paramValues reads the spec's params, names bound to integers for the
// parameters of raw maps, index expressions and conditions, and puts
// WithParams's values over them.
func (l *loader) paramValues(m map[string]entry) (map[string]int64, error) {
	l.named = map[string]bool{}
	out := map[string]int64{}
	if e, ok := m["params"]; ok {
		n := deref(e.value)
		if n.Kind != yaml.MappingNode {
			return nil, l.errf(n, "params: expected a mapping of parameter names to integers, such as {N: 1024}, got %s", kindName(n))
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			key, val := n.Content[i], n.Content[i+1]
			name, err := l.str(key, "params key")
			if err != nil {
				return nil, err
			}
			if !IsIdentifier(name) {
				return nil, l.errf(key, "params: %q is not a parameter name (a letter or _, then letters, digits or _)", excerpt(name))
			}
			if _, dup := out[name]; dup {
				return nil, l.errf(key, "params: %s appears twice", name)
			}
			if out[name], err = l.integer(val, "params "+name); err != nil {
				return nil, err
			}
		}
	}
	for name, v := range l.opts.params {
		out[name] = v
	}
	return out, nil
}

// IsIdentifier reports whether s is a C-style name: a parameter of a spec,
// a macro of a kernel source.
func IsIdentifier(s string) bool {
	for i, r := range s {
		if !isIdentRune(r) && (i == 0 || r < '0' || r > '9') {
			return false
		}
	}
	return s != ""
}

// accesses reads a list of index tuples, checks that their byte addresses
// over the domain fit in 64 bits, and removes canonical duplicates.
// accessKeys are the keys of an access written as a mapping: its index
// expressions and the condition under which it happens.
var accessKeys = []string{"at", "if"}

func (l *loader) accesses(n *yaml.Node, what string, f *Field, extentDims int, k *Kernel) ([]Access, error) {
	items, err := l.sequence(n, what)
	if err != nil {
		return nil, err
	}
	var out []Access
	for i, it := range items {
		where := fmt.Sprintf("%s[%d]", what, i)
		var cond *yaml.Node
		if deref(it).Kind == yaml.MappingNode {
			m, err := l.mapping(it, where, accessKeys)
			if err != nil {
				return nil, err
			}
			e, ok := m["at"]
			if !ok {
				return nil, l.errf(deref(it), "%s: missing required key \"at\" (the index expressions)", where)
			}
			it = e.value
			if c, ok := m["if"]; ok {
				cond = c.value
			}
		}
		exprs, err := l.sequence(it, where)
		if err != nil {
			return nil, err
		}
		if len(exprs) < 1 || len(exprs) > 3 {
			return nil, l.errf(it, "%s: expected 1 to 3 index expressions (x first), got %d", where, len(exprs))
		}
		if len(exprs) > extentDims {
			return nil, l.errf(it, "%s: %d index expressions, but the field's extent has only %d entries", where, len(exprs), extentDims)
		}
		var a Access
		texts := make([]string, len(exprs))
		for j, en := range exprs {
			src, err := l.str(en, fmt.Sprintf("%s index %d", where, j))
			if err != nil {
				return nil, err
			}
			texts[j] = src
			if a.Index[j], err = parseExpr(src, variables, l.paramScope()); err != nil {
				return nil, l.errf(en, "%s index %d, %v (in %q)", where, j, err, excerpt(src))
			}
		}
		a.Text = "[" + strings.Join(texts, ", ") + "]"
		if cond != nil {
			src, err := l.str(cond, where+" if")
			if err != nil {
				return nil, err
			}
			if a.Guards, err = parseCondition(src, l.paramScope()); err != nil {
				return nil, l.errf(cond, "%s if: %v", where, err)
			}
			if _, ok := a.GuardBox(); !ok {
				return nil, l.errf(cond, "%s if %q: each comparison must bound one coordinate (such as x + 1 < 4096), without floor or modulo terms", where, excerpt(src))
			}
			a.Text += " if " + src
		}
		last := Point{k.Domain[0] - 1, k.Domain[1] - 1, k.Domain[2] - 1}
		if lo, hi, ok := f.AddressBounds(a, Point{}, last); !ok || lo < -maxAddress || hi > maxAddress {
			return nil, l.errf(it, "%s %s: byte addresses over the domain exceed ±2^60", where, a.Text)
		}
		out = append(out, a)
	}
	return Dedup(out), nil
}

// maxExcerpt bounds the characters of a spec's text that an error quotes.
const maxExcerpt = 120

// excerpt returns src, cut to maxExcerpt characters with "…" when longer,
// so that an error about a huge expression stays one readable line.
func excerpt(src string) string {
	if r := []rune(src); len(r) > maxExcerpt {
		return string(r[:maxExcerpt]) + "…"
	}
	return src
}

// convertMaps turns the raw maps of one key into accesses with the
// loader's MapReader, checking their addresses as for index expressions.
// A map the reader cannot model is an error at its position.
func (l *loader) convertMaps(f *Field, maps []string, store bool, what string, n *yaml.Node, k *Kernel) error {
	items, _ := l.sequence(n, what) // rawMaps checked the sequence
	if l.opts.readMap == nil {
		return l.errf(items[0], "%s: raw ISL maps need a map reader (kernel.WithMapReader; polyvol's commands read them with libisl)", what)
	}
	site := MapSite{Dims: k.Dims, Domain: k.Domain, Params: l.params, Named: l.named}
	last := Point{k.Domain[0] - 1, k.Domain[1] - 1, k.Domain[2] - 1}
	for i, src := range maps {
		where := fmt.Sprintf("%s[%d]", what, i)
		accs, err := l.opts.readMap(src, site)
		var um *UnmodelledMapError
		if errors.As(err, &um) {
			return l.errf(items[i], "%s: the map cannot be turned into index expressions, which polyvol counts: %v (in %q)", where, um.Reason, excerpt(src))
		}
		if err != nil {
			se := l.errf(items[i], "%s: %v (in %q)", where, err, excerpt(src))
			se.(*SpecError).Err = err
			return se
		}
		for _, a := range accs {
			if lo, hi, ok := f.AddressBounds(a, Point{}, last); !ok || lo < -maxAddress || hi > maxAddress {
				return l.errf(items[i], "%s %s: byte addresses over the domain exceed ±2^60", where, a.Index)
			}
			if _, _, err := a.Partial(k.Domain); err != nil {
				return l.errf(items[i], "%s: %v (in %q)", where, err, excerpt(src))
			}
		}
		if store {
			f.Stores = Dedup(append(f.Stores, accs...))
		} else {
			f.Loads = Dedup(append(f.Loads, accs...))
		}
	}
	return nil
}

func (l *loader) rawMaps(n *yaml.Node, what string) ([]string, error) {
	items, err := l.sequence(n, what)
	if err != nil {
		return nil, err
	}
	var out []string
	for i, it := range items {
		where := fmt.Sprintf("%s[%d]", what, i)
		src, err := l.str(it, where)
		if err != nil {
			return nil, err
		}
		if strings.TrimSpace(src) == "" {
			return nil, l.errf(it, "%s: empty ISL map; expected e.g. \"{ [x, y, z] -> A[x, y] }\"", where)
		}
		out = append(out, src)
	}
	return out, nil
}
