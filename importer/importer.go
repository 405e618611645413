// Package importer turns the polyhedral description of a loop nest, as
// polyhedral compilers and code generators write it, into a polyvol kernel
// spec: an iteration domain, array declarations and access relations in ISL
// notation. The front ends importer/jscop (Polly's JSCoP files) and
// importer/kerncraft (Kerncraft's kernel descriptions) read their formats
// into a Scop; Build does the rest with ISL:
//
//   - it binds the parameters to the values of Options.Params (-D N=4096) and
//     checks them against the context; a parameter left unbound is an error
//     that names it;
//   - it checks that the statement's domain is a box (a triangular nest is
//     rejected with a message that says so), shifts it to start at 0 and maps
//     its loops to the lattice coordinates, the innermost loop of the
//     statement's schedule (or of the nest) to x unless Options.Map says
//     otherwise; a tiled schedule's tile sizes suggest a launch;
//   - it finds reductions, stores that do not depend on a loop, and models
//     them as CUDA code runs them: the loops the store depends on inward,
//     the reduced loops outward as each thread's loop (a fold, which
//     Result.Launch suggests), the store once per output at the loop's last
//     iteration and the load of the stored element at its first;
//   - it makes every array a field (element size from its type, extents from
//     its sizes, a leading "*" inferred from the accessed range, more than
//     three dimensions folded into the innermost three, which keeps every
//     byte address) and every access a raw ISL map over [x, y, z] under
//     load_isl or store_isl;
//   - it renders the spec as YAML or JSON and validates it with kernel.Parse,
//     so that an imported spec passes the same checks as a written one.
//
// All errors are *Error, one line naming the file, the statement, array or
// access, and what is wrong.
package importer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/polyvol/polyvol/isl"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/printable"
	"github.com/polyvol/polyvol/relation"
)

// Pos is a 1-based line and column in the imported file (0 when unknown).
type Pos struct{ Line, Col int }

// Error is an import error: the file, the position of the offending entry
// where known, what it concerns (a statement, array or access) and the
// message.
type Error struct {
	File      string
	Line, Col int
	Where     string
	Msg       string
	Err       error `json:"-"` // the cause, such as an *UnboundError, when there is one
}

// Unwrap returns the cause of the error.
func (e *Error) Unwrap() error { return e.Err }

func (e *Error) Error() string {
	loc := e.File
	if e.Line > 0 {
		loc += fmt.Sprintf(":%d", e.Line)
		if e.Col > 0 {
			loc += fmt.Sprintf(":%d", e.Col)
		}
	}
	line := loc + ": " + oneLine(e.Msg)
	if e.Where != "" {
		line = loc + ": " + oneLine(e.Where) + ": " + oneLine(e.Msg)
	}
	return printable.CutLine(line, maxErrorLine)
}

// maxErrorLine bounds the bytes of an error line, so that a hostile input
// cannot make a message unreadable; the line is cut after a whole part or
// word (printable.CutLine).
const maxErrorLine = 280

// Excerpt returns an input text for a message: on one line, cut after a
// whole word and marked "…" when it is longer than 100 bytes.
func Excerpt(s string) string { return excerpt(s) }

// oneLine joins the lines of a message, so that every error is one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// maxExcerpt bounds the bytes of an input text that a message quotes.
const maxExcerpt = 100

// excerpt returns an ISL text for a message: on one line, and when longer
// than maxExcerpt bytes cut after its last whole word that fits and
// marked "…" (printable.CutLine).
func excerpt(s string) string {
	return printable.CutLine(oneLine(s), maxExcerpt+len(printable.Ellipsis))
}

// Errorf returns an *Error.
func Errorf(file string, pos Pos, where, format string, args ...any) *Error {
	return &Error{File: file, Line: pos.Line, Col: pos.Col, Where: where, Msg: fmt.Sprintf(format, args...)}
}

// Options are the user's choices for an import.
type Options struct {
	Params    map[string]int64 // parameter and constant values (-D NAME=VALUE)
	Statement string           // the statement to import; "" for the only one
	Map       map[string]int   // loop name → lattice coordinate (0 = x, 1 = y, 2 = z); others innermost first
	Name      string           // the spec's name; "" for the front end's default
	Flops     *float64         // floating-point operations per lattice update; nil for the front end's value
	Registers int              // registers per thread; 0 for polyvol's default
	Element   int64            // bytes per element of arrays the input gives no type (--element); 0 for none
	// MaxStatements bounds the statements of a region that --statement all
	// imports (--max-statements); 0 means DefaultMaxStatements.
	MaxStatements int
}

// Scop is one statement of a loop nest with its arrays, as a front end
// reads it.
type Scop struct {
	File        string // the imported file, for messages
	Name        string // the spec's default name
	Description string
	Context     string // an ISL parameter set the parameters must satisfy, or ""
	ContextPos  Pos
	Arrays      []*Array
	Statement   *Statement
	Flops       float64 // floating-point operations per iteration
	Notes       []string
	// ImplicitElement, when not 0, declares every array that an access
	// reaches with subscripts and Arrays does not declare: elements of
	// this many bytes, and in each dimension the size of the accessed
	// range, as for a "*" size (a JSCoP without "arrays").
	ImplicitElement int64
	// FieldName names the field of an implicitly declared array; nil
	// keeps the array's name.
	FieldName func(array string) string
}

// Array is an array the statement may access.
type Array struct {
	Name    string  // the tuple name in the access relations, e.g. MemRef_A
	Field   string  // the spec's field name, e.g. A
	Sizes   []int64 // elements per dimension, outermost first; 0 for a leading "*" to infer
	Element int64   // bytes per element
	FPBytes int     // floating-point precision of the element type, 0 for integers
	Where   string  // e.g. `array "MemRef_A"`, for messages
	Pos     Pos
}

// Statement is the iteration domain and accesses of the imported statement.
type Statement struct {
	Name      string
	Domain    string // ISL set, e.g. "[N] -> { S[i, j] : 0 <= i, j < N }"
	DomainPos Pos
	Where     string // e.g. `statement "Stmt_for_body"`, for messages
	Accesses  []Access
	// Schedule is the statement's schedule, an ISL map from its domain to
	// the order of execution (Polly's "schedule"), or "" for the loops'
	// own order.
	Schedule    string
	SchedulePos Pos
}

// Access is one access relation of the statement.
type Access struct {
	Write    bool
	Relation string // ISL map from the statement's domain to an array
	Pos      Pos
	Where    string // e.g. `statement "S" access 2 (read)`, for messages
}

// Spec is a polyvol kernel spec as the importer writes it (the keys of
// kernel.Parse).
type Spec struct {
	Name        string       `yaml:"name" json:"name"`
	Description string       `yaml:"description,omitempty" json:"description,omitempty"`
	Domain      []int64      `yaml:"domain,flow" json:"domain"`
	Flops       float64      `yaml:"flops" json:"flops"`
	FPType      int          `yaml:"fp_type,omitempty" json:"fp_type,omitempty"`
	Registers   int          `yaml:"registers,omitempty" json:"registers,omitempty"`
	Fields      []*SpecField `yaml:"fields" json:"fields"`
}

// SpecField is one field of a Spec.
type SpecField struct {
	Name     string   `yaml:"name" json:"name"`
	Element  int64    `yaml:"element" json:"element"`
	Extent   []int64  `yaml:"extent,flow" json:"extent"`
	LoadISL  []string `yaml:"load_isl,omitempty" json:"load_isl,omitempty"`
	StoreISL []string `yaml:"store_isl,omitempty" json:"store_isl,omitempty"`
}

// Result is an imported spec: the document, the kernel kernel.Parse made of
// it, and notes for the user (skipped scalar accesses, maps without an
// index-expression form).
type Result struct {
	Spec   *Spec
	Kernel *kernel.Kernel `json:"-"` // parsed anew where a Result travels (Reparse)
	Notes  []string
	// Launch is the launch configuration the import suggests, or nil: for
	// a reduction, a block over the outputs and a fold over the reduction
	// loops (each thread's loop); for a tiled schedule, a block that covers
	// one tile. The YAML's header names it as predict's flags.
	Launch *kernel.Launch
	// Header is the YAML's leading comment: the spec's origin, the
	// parameters bound and the launch suggested.
	Header string
}

// YAML renders the spec as YAML, with a comment that names its origin.
func (r *Result) YAML() []byte {
	var buf bytes.Buffer
	buf.WriteString(r.Header)
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(r.Spec); err != nil { // a Spec always marshals
		panic(err)
	}
	return buf.Bytes()
}

// JSON renders the spec as indented JSON.
func (r *Result) JSON() []byte {
	out, err := json.MarshalIndent(r.Spec, "", "  ")
	if err != nil { // a Spec always marshals
		panic(err)
	}
	return append(out, '\n')
}

// maxOperations bounds the ISL operations of one import, so that a
// pathological input fails instead of running for long.
const maxOperations = 20_000_000

// islMessage returns ISL's own message of an ISL error, or the error text.
func islMessage(err error) string {
	if errors.Is(err, isl.ErrQuota) {
		return "too complex for ISL (the operation bound was reached)"
	}
	var ie *isl.Error
	if errors.As(err, &ie) && ie.Msg != "" {
		return ie.Msg
	}
	return err.Error()
}

// coordNames are the lattice coordinates in order.
var coordNames = [3]string{"x", "y", "z"}

// builder holds the state of one Build.
type builder struct {
	s    *Scop
	opt  Options
	sc   *isl.Scope
	stmt *Statement
	plan *plan // the loop plan, made by domain
}

func (b *builder) errf(pos Pos, where, format string, args ...any) *Error {
	return Errorf(b.s.File, pos, where, format, args...)
}

// Build converts the statement of s into a validated polyvol spec.
func Build(s *Scop, opt Options) (res *Result, err error) {
	if s.Statement == nil {
		return nil, Errorf(s.File, Pos{}, "", "no statement to import")
	}
	ctx, err := isl.NewCtx(isl.WithMaxOperations(maxOperations))
	if err != nil {
		return nil, err
	}
	defer ctx.Close()
	sc := ctx.NewScope()
	defer sc.Free()
	b := &builder{s: s, opt: opt, sc: sc, stmt: s.Statement}
	return b.build()
}

// lattice is the statement's domain mapped onto the lattice.
type lattice struct {
	tuple  string   // the domain's tuple name
	lo, hi []int64  // bounds per loop, outermost first
	coord  []int    // lattice coordinate per loop
	dims   int      // lattice dimensions (1 to 3)
	extent [3]int64 // lattice points per coordinate
	box    *isl.Set // the lattice box { [x, y, z] : 0 <= x < X, ... }
}

// build maps the statement's accesses onto the lattice, makes the spec of
// the arrays they touch, and validates it with kernel.Parse.
func (b *builder) build() (*Result, error) {
	if err := b.checkContext(); err != nil {
		return nil, err
	}
	lat, err := b.domain()
	if err != nil {
		return nil, err
	}
	am, err := b.mapAccesses(lat)
	if err != nil {
		return nil, err
	}
	if len(am.accs) == 0 {
		return nil, b.errf(b.stmt.DomainPos, b.stmt.Where, "no array accesses to import")
	}
	if b.plan.anyReduced() {
		if err := b.restrictReduction(am.accs, lat); err != nil {
			return nil, err
		}
	}
	hint := b.plan.hint(lat)
	notes := append(am.notes, b.planNotes(lat, hint)...)
	spec, err := b.spec(lat, am)
	if err != nil {
		return nil, err
	}
	res := &Result{Spec: spec, Notes: append(slices.Clip(b.s.Notes), notes...)}
	res.Header = b.header(lat, hint)
	if err := b.parse(res); err != nil {
		return nil, err
	}
	if hint != nil {
		l := res.Kernel.NewLaunch(hint.block, hint.fold)
		if hint.strided {
			l.Tiling = kernel.TileStrided
		}
		res.Launch = &l
	}
	return res, nil
}

// mappedAccess is one array access mapped onto the lattice.
type mappedAccess struct {
	acc   Access
	array *Array
	m     *isl.Map // lattice → array, C order
}

// accessMaps are the statement's array accesses mapped onto the lattice,
// with the arrays they may touch and the notes on the accesses skipped.
type accessMaps struct {
	accs     []mappedAccess
	arrays   []*Array           // the declared arrays, then the implicit ones
	maxIndex map[*Array][]int64 // per dimension, for the sizes to infer
	notes    []string
}

// mapAccesses maps each access of the statement onto the lattice, declares
// the arrays the Scop leaves implicit, skips scalars with a note and tracks
// the highest index of each size to infer.
func (b *builder) mapAccesses(lat *lattice) (*accessMaps, error) {
	am := &accessMaps{arrays: slices.Clip(b.s.Arrays), maxIndex: map[*Array][]int64{}}
	arrays := map[string]*Array{}
	fieldNames := map[string]bool{}
	for _, a := range b.s.Arrays {
		arrays[a.Name] = a
		fieldNames[a.Field] = true
	}
	for _, acc := range b.stmt.Accesses {
		m, arrayName, outDims, err := b.accessMap(acc, lat)
		if err != nil {
			return nil, err
		}
		arr := arrays[arrayName]
		if arr == nil && outDims > 0 && b.s.ImplicitElement > 0 {
			arr = b.implicitArray(arrayName, outDims, fieldNames)
			arrays[arrayName] = arr
			am.arrays = append(am.arrays, arr)
		}
		if arr == nil {
			if outDims == 0 {
				am.notes = append(am.notes, fmt.Sprintf("%s: %s is a scalar kept in a register, not an array in memory; skipped", acc.Where, arrayName))
				continue
			}
			return nil, b.errf(acc.Pos, acc.Where, "array %q is not declared in the arrays", arrayName)
		}
		if outDims != len(arr.Sizes) {
			return nil, b.errf(acc.Pos, acc.Where, "wrong arity: the relation indexes %s with %d subscripts, but the array is declared with %d sizes", arrayName, outDims, len(arr.Sizes))
		}
		if err := b.growMaxIndex(am.maxIndex, mappedAccess{acc, arr, m}, lat); err != nil {
			return nil, err
		}
		am.accs = append(am.accs, mappedAccess{acc, arr, m})
	}
	return am, nil
}

// growMaxIndex raises maxIndex of a's array, in each dimension whose size
// is to be inferred, to the highest index a reaches.
func (b *builder) growMaxIndex(maxIndex map[*Array][]int64, a mappedAccess, lat *lattice) error {
	arr := a.array
	for j, size := range arr.Sizes {
		if size != 0 {
			continue
		}
		hi, err := b.rangeMax(a.m, lat, a.acc, j)
		if err != nil {
			return err
		}
		if maxIndex[arr] == nil {
			maxIndex[arr] = slices.Repeat([]int64{-1}, len(arr.Sizes))
		}
		maxIndex[arr][j] = max(maxIndex[arr][j], hi)
	}
	return nil
}

// restrictReduction confines the accesses of a reduction's output: the
// store happens once per output, at the last iteration of the reduction
// loops, and a load of the element it stores (the sum's first value) once,
// at their first.
func (b *builder) restrictReduction(accs []mappedAccess, lat *lattice) error {
	firstSet, lastSet, err := b.reductionEnds(lat)
	if err != nil {
		return err
	}
	whole := make([]*isl.Map, len(accs))
	for i, a := range accs {
		whole[i] = a.m
	}
	for i := range accs {
		a := &accs[i]
		restrict := lastSet
		if !a.acc.Write {
			restrict = nil
			for j, s := range accs {
				if !s.acc.Write || s.array != a.array {
					continue
				}
				if same, err := whole[i].IsEqual(whole[j]); err == nil && same {
					restrict = firstSet
				}
			}
		}
		if restrict == nil {
			continue
		}
		if a.m, err = a.m.IntersectDomain(restrict); err != nil {
			return b.errf(a.acc.Pos, a.acc.Where, "%s", islMessage(err))
		}
	}
	return nil
}

// reductionEnds returns the lattice points at the first and at the last
// iteration of the reduction loops.
func (b *builder) reductionEnds(lat *lattice) (firstSet, lastSet *isl.Set, err error) {
	var first, last []string
	for k, c := range lat.coord {
		if b.plan.reduced[k] {
			first = append(first, coordNames[c]+" = 0")
			last = append(last, fmt.Sprintf("%s = %d", coordNames[c], lat.extent[c]-1))
		}
	}
	point := "{ [" + strings.Join(coordNames[:lat.dims], ", ") + "] : "
	firstSet, err = b.sc.ReadSet(point + strings.Join(first, " and ") + " }")
	if err != nil {
		return nil, nil, b.errf(b.stmt.DomainPos, b.stmt.Where, "%s", islMessage(err))
	}
	lastSet, err = b.sc.ReadSet(point + strings.Join(last, " and ") + " }")
	if err != nil {
		return nil, nil, b.errf(b.stmt.DomainPos, b.stmt.Where, "%s", islMessage(err))
	}
	return firstSet, lastSet, nil
}

// spec makes the spec: its header keys, a field per array accessed and
// each access's map as a load or a store of its field.
func (b *builder) spec(lat *lattice, am *accessMaps) (*Spec, error) {
	spec := &Spec{Name: b.s.Name, Description: b.s.Description, Flops: b.s.Flops, Registers: b.opt.Registers}
	if b.opt.Name != "" {
		spec.Name = b.opt.Name
	}
	if spec.Name == "" {
		spec.Name = "imported"
	}
	if b.opt.Flops != nil {
		spec.Flops = *b.opt.Flops
	}
	spec.Domain = lat.extent[:lat.dims]
	fields, err := b.addFields(spec, am)
	if err != nil {
		return nil, err
	}
	for _, a := range am.accs {
		text, err := b.finalMap(a.m, a.array, a.acc)
		if err != nil {
			return nil, err
		}
		f := fields[a.array]
		if a.acc.Write {
			f.StoreISL = append(f.StoreISL, text)
		} else {
			f.LoadISL = append(f.LoadISL, text)
		}
	}
	return spec, nil
}

// addFields adds to spec a field per array that an access touches, with
// the sizes left to infer inferred, and the spec's floating-point type from
// the widest array's; it returns the field of each array.
func (b *builder) addFields(spec *Spec, am *accessMaps) (map[*Array]*SpecField, error) {
	fields := map[*Array]*SpecField{}
	fp := 0
	for _, arr := range am.arrays {
		if !slices.ContainsFunc(am.accs, func(a mappedAccess) bool { return a.array == arr }) {
			continue
		}
		if !slices.Contains(b.s.Arrays, arr) { // implicit: all sizes inferred, for the folding of finalMap too
			for j := range arr.Sizes {
				arr.Sizes[j] = max(1, am.maxIndex[arr][j]+1)
			}
		}
		extent, err := b.extent(arr, am.maxIndex[arr])
		if err != nil {
			return nil, err
		}
		f := &SpecField{Name: arr.Field, Element: arr.Element, Extent: extent}
		fields[arr] = f
		spec.Fields = append(spec.Fields, f)
		fp = max(fp, arr.FPBytes)
	}
	switch {
	case fp >= 8:
		spec.FPType = 8
	case fp > 0:
		spec.FPType = 4
	}
	return fields, nil
}

// header is the YAML's leading comment: the spec's origin, the parameters
// bound and the launch the import suggests.
func (b *builder) header(lat *lattice, hint *launchHint) string {
	header := fmt.Sprintf("# polyvol kernel spec imported from %s, %s\n", b.s.File, b.stmt.Where)
	if len(b.opt.Params) > 0 {
		header = fmt.Sprintf("# polyvol kernel spec imported from %s, %s, with %s\n", b.s.File, b.stmt.Where, b.defines())
	}
	if hint != nil {
		header += fmt.Sprintf("# launch: %s (%s)\n", hint.flags(lat.dims), hint.why)
	}
	return header
}

// parse validates res's YAML with kernel.Parse into res.Kernel.
func (b *builder) parse(res *Result) error {
	if err := res.Reparse(b.s.File); err != nil {
		return b.errf(Pos{}, b.stmt.Where, "the imported spec is not valid: %v", specMessage(err))
	}
	return nil
}

// Reparse parses r's spec, as Build does, into r.Kernel: Build's last
// step, and the first where a Result travelled without its kernel (from a
// worker process). file is the imported file.
func (r *Result) Reparse(file string) error {
	k, err := kernel.Parse(r.YAML(), file+" (imported)", relation.Option())
	if err != nil {
		return err
	}
	r.Kernel = k
	return nil
}

// specMessage strips a kernel.SpecError of its file and position, which
// name the generated YAML rather than the imported file.
func specMessage(err error) error {
	var se *kernel.SpecError
	if errors.As(err, &se) {
		return errors.New(se.Msg)
	}
	return err
}

// implicitArray declares an array that the Scop does not declare
// (Scop.ImplicitElement): every size inferred from the accessed range, and
// a field name that no other field has.
func (b *builder) implicitArray(name string, dims int, fieldNames map[string]bool) *Array {
	field := name
	if b.s.FieldName != nil {
		field = b.s.FieldName(name)
	}
	if fieldNames[field] {
		field = name
	}
	fieldNames[field] = true
	fp := 0
	switch e := b.s.ImplicitElement; {
	case e == 2 || e == 4 || e == 8:
		fp = int(e)
	case e > 8:
		fp = 8
	}
	return &Array{Name: name, Field: field, Sizes: make([]int64, dims), Element: b.s.ImplicitElement, FPBytes: fp, Where: fmt.Sprintf("array %q", name)}
}

// unbound reports a parameter that no -D binds.
func (b *builder) unbound(pos Pos, where, name string) *Error {
	ue := &UnboundError{Name: name}
	e := b.errf(pos, where, "%v", ue)
	e.Err = ue
	return e
}

// bindSet reads an ISL set and fixes its parameters to their values; a
// parameter that the set uses and no -D binds is an error. Parameters it
// declares but does not use are projected out.
func (b *builder) bindSet(text string, pos Pos, where, what string, requireAll bool) (*isl.Set, error) {
	params, body, err := paramList(text)
	if err != nil {
		return nil, b.errf(pos, where, "%s: %v", what, err)
	}
	set, err := b.sc.ReadSet(text)
	if err != nil {
		return nil, b.errf(pos, where, "ISL cannot read the %s %q: %s", what, excerpt(text), islMessage(err))
	}
	n, err := set.Dim(isl.DimParam)
	if err != nil || n != len(params) {
		return nil, b.errf(pos, where, "the %s %q uses parameters it does not declare in its [...] -> prefix", what, excerpt(text))
	}
	for i, p := range params {
		v, ok := b.opt.Params[p]
		if !ok {
			if requireAll && mentions(body, p) {
				return nil, b.unbound(pos, where, p)
			}
			continue
		}
		val, err := b.sc.ValIntFromSi(v)
		if err == nil {
			set, err = set.FixVal(isl.DimParam, i, val)
		}
		if err != nil {
			return nil, b.errf(pos, where, "binding %s = %d: %s", p, v, islMessage(err))
		}
	}
	if n > 0 {
		if set, err = set.ProjectOut(isl.DimParam, 0, n); err != nil {
			return nil, b.errf(pos, where, "%s", islMessage(err))
		}
	}
	return set, nil
}

// checkContext checks that the parameter values satisfy the context.
func (b *builder) checkContext() error {
	if strings.TrimSpace(b.s.Context) == "" {
		return nil
	}
	set, err := b.bindSet(b.s.Context, b.s.ContextPos, "context", "context", false)
	if err != nil {
		return err
	}
	if n, err := set.Dim(isl.DimSet); err != nil || n != 0 {
		return b.errf(b.s.ContextPos, "context", "the context %q is not a parameter set (\"[N] -> { : ... }\")", excerpt(b.s.Context))
	}
	empty, err := set.IsEmpty()
	if err != nil {
		return b.errf(b.s.ContextPos, "context", "%s", islMessage(err))
	}
	if !empty {
		return nil
	}
	if failing := b.violated(); len(failing) > 0 {
		var names []string
		for _, c := range failing {
			for p := range b.opt.Params {
				if mentions(c, p) && !slices.Contains(names, p) {
					names = append(names, p)
				}
			}
		}
		slices.Sort(names)
		values := make([]string, len(names))
		for i, p := range names {
			values[i] = fmt.Sprintf("%s=%d", p, b.opt.Params[p])
		}
		what := "constraint %s does not hold"
		if len(failing) > 1 {
			what = "constraints %s do not hold"
		}
		return b.errf(b.s.ContextPos, "context", "the context's "+what+" for %s", excerpt(strings.Join(failing, " and ")), excerpt(strings.Join(values, ", ")))
	}
	return b.errf(b.s.ContextPos, "context", "the parameter values %s violate the context %s", excerpt(b.defines()), excerpt(b.s.Context))
}

// violated returns the constraints of the context that the parameter
// values violate, each as the context writes it (a comparison of a chain
// such as "4 <= N <= 1024" on its own), or nil when the context is not a
// conjunction of constraints that can be checked one by one.
func (b *builder) violated() []string {
	params, body, err := paramList(b.s.Context)
	if err != nil {
		return nil
	}
	prefix := ""
	if len(params) > 0 {
		prefix = "[" + strings.Join(params, ", ") + "] -> "
	}
	var failing []string
	for _, c := range Conjuncts(body) {
		set, err := b.bindSet(prefix+"{ : "+c+" }", b.s.ContextPos, "context", "context", false)
		if err != nil {
			return nil
		}
		if empty, err := set.IsEmpty(); err != nil {
			return nil
		} else if empty {
			failing = append(failing, c)
		}
	}
	return failing
}

// defines lists the -D values for messages.
func (b *builder) defines() string {
	var parts []string
	for k, v := range b.opt.Params {
		parts = append(parts, fmt.Sprintf("%s=%d", k, v))
	}
	slices.Sort(parts)
	if len(parts) == 0 {
		return "(none given)"
	}
	return strings.Join(parts, ", ")
}

// valInt64 turns an ISL value into an int64, with a message for infinite
// or huge values.
func valInt64(v *isl.Val) (int64, error) {
	if inf, _ := v.IsInfty(); inf {
		return 0, errors.New("unbounded")
	}
	if inf, _ := v.IsNegInfty(); inf {
		return 0, errors.New("unbounded")
	}
	return v.Int64()
}

// domain binds and checks the statement's domain and maps it to the lattice.
func (b *builder) domain() (*lattice, error) {
	st := b.stmt
	d, err := b.bindSet(st.Domain, st.DomainPos, st.Where, "domain", true)
	if err != nil {
		return nil, err
	}
	n, err := d.Dim(isl.DimSet)
	if err != nil {
		return nil, b.errf(st.DomainPos, st.Where, "%s", islMessage(err))
	}
	if n < 1 || n > 3 {
		return nil, b.errf(st.DomainPos, st.Where, "the domain has %d loop dimensions; polyvol's lattice has 1 to 3", n)
	}
	lat := &lattice{tuple: tupleName(d), lo: make([]int64, n), hi: make([]int64, n), coord: make([]int, n)}
	if empty, err := d.IsEmpty(); err != nil || empty {
		if err != nil {
			return nil, b.errf(st.DomainPos, st.Where, "%s", islMessage(err))
		}
		return nil, b.errf(st.DomainPos, st.Where, "the domain %s is empty with %s", excerpt(st.Domain), excerpt(b.defines()))
	}
	for k := range n {
		lo, err := d.DimMinVal(k)
		if err != nil {
			return nil, b.errf(st.DomainPos, st.Where, "%s", islMessage(err))
		}
		hi, err := d.DimMaxVal(k)
		if err != nil {
			return nil, b.errf(st.DomainPos, st.Where, "%s", islMessage(err))
		}
		l, err1 := valInt64(lo)
		h, err2 := valInt64(hi)
		if err1 != nil || err2 != nil {
			return nil, b.errf(st.DomainPos, st.Where, "loop %d of the domain %s is unbounded (or its bounds exceed 64 bits)", k, excerpt(st.Domain))
		}
		if h-l < 0 || h-l >= 1<<50 {
			return nil, b.errf(st.DomainPos, st.Where, "loop %d runs from %d to %d: more than 2^50 iterations", k, l, h)
		}
		lat.lo[k], lat.hi[k] = l, h
	}
	hull, err := d.BoundingBox()
	if err != nil {
		return nil, b.errf(st.DomainPos, st.Where, "%s", islMessage(err))
	}
	box, err := d.IsEqual(hull)
	if err != nil {
		return nil, b.errf(st.DomainPos, st.Where, "%s", islMessage(err))
	}
	if !box {
		var bounds []string
		for k := range n {
			bounds = append(bounds, fmt.Sprintf("[%d, %d]", lat.lo[k], lat.hi[k]))
		}
		return nil, b.errf(st.DomainPos, st.Where, "the domain %s is not a box (a triangular or guarded loop nest?): it has fewer points than its bounds %s, and polyvol's lattice is a box", excerpt(d.String()), strings.Join(bounds, " x "))
	}
	if b.plan, err = b.makePlan(lat); err != nil {
		return nil, err
	}
	if err := b.mapLoops(lat, n); err != nil {
		return nil, err
	}
	for k := range n {
		lat.extent[lat.coord[k]] = lat.hi[k] - lat.lo[k] + 1
	}
	for c := range 3 {
		if lat.extent[c] == 0 {
			lat.extent[c] = 1
		}
	}
	lo, hi := make([]int64, lat.dims), make([]int64, lat.dims)
	for c := range lat.dims {
		hi[c] = lat.extent[c] - 1
	}
	if lat.box, err = b.sc.BoxSet("", lo, hi); err != nil {
		return nil, b.errf(st.DomainPos, st.Where, "%s", islMessage(err))
	}
	return lat, nil
}

// tupleName returns the tuple name of a set, "" when it has none.
func tupleName(s *isl.Set) string {
	sp, err := s.Space()
	if err != nil {
		return ""
	}
	id, err := sp.TupleId(isl.DimSet)
	if err != nil {
		return ""
	}
	return id.Name()
}

// mapTuples returns the input and output tuple names of a map.
func mapTuples(m *isl.Map) (in, out string) {
	sp, err := m.Space()
	if err != nil {
		return "", ""
	}
	if id, err := sp.TupleId(isl.DimIn); err == nil {
		in = id.Name()
	}
	if id, err := sp.TupleId(isl.DimOut); err == nil {
		out = id.Name()
	}
	return in, out
}

// mapLoops assigns a lattice coordinate to every loop: those of
// Options.Map first, the others in the plan's order (innermost first) to
// the free coordinates.
func (b *builder) mapLoops(lat *lattice, n int) error {
	st := b.stmt
	names := b.plan.names
	used := [3]bool{}
	for k := range lat.coord {
		lat.coord[k] = -1
	}
	for name, c := range b.opt.Map {
		k := slices.Index(names, name)
		if k < 0 {
			return b.errf(st.DomainPos, st.Where, "--map %s=%s: the statement has no loop %s; its loops are %s (outermost first)", name, coordNames[c], name, strings.Join(names, ", "))
		}
		lat.coord[k], used[c] = c, true
	}
	for _, k := range b.plan.order {
		if lat.coord[k] >= 0 {
			continue
		}
		for c := range 3 {
			if !used[c] {
				lat.coord[k], used[c] = c, true
				break
			}
		}
	}
	for _, c := range lat.coord {
		lat.dims = max(lat.dims, c+1)
	}
	return nil
}

// accessMap reads an access relation, binds its parameters and composes it
// with the lattice: the result maps [x, y, z] to the array's subscripts in
// the relation's (C) order.
func (b *builder) accessMap(acc Access, lat *lattice) (m *isl.Map, array string, outDims int, err error) {
	params, body, err := paramList(acc.Relation)
	if err != nil {
		return nil, "", 0, b.errf(acc.Pos, acc.Where, "%v", err)
	}
	r, err := b.sc.ReadMap(acc.Relation)
	if err != nil {
		return nil, "", 0, b.errf(acc.Pos, acc.Where, "ISL cannot read the relation %q: %s (relations must be affine: no products of loop indices or parameters)", excerpt(acc.Relation), islMessage(err))
	}
	if np, err := r.Dim(isl.DimParam); err != nil || np != len(params) {
		return nil, "", 0, b.errf(acc.Pos, acc.Where, "the relation %q uses parameters it does not declare in its [...] -> prefix", excerpt(acc.Relation))
	}
	in, out := mapTuples(r)
	nin, err1 := r.Dim(isl.DimIn)
	nout, err2 := r.Dim(isl.DimOut)
	if err1 != nil || err2 != nil {
		return nil, "", 0, b.errf(acc.Pos, acc.Where, "%s", islMessage(errors.Join(err1, err2)))
	}
	if in != lat.tuple {
		return nil, "", 0, b.errf(acc.Pos, acc.Where, "the relation %q starts from %q, not from the statement's domain %q", excerpt(acc.Relation), in, lat.tuple)
	}
	if nin != len(lat.lo) {
		return nil, "", 0, b.errf(acc.Pos, acc.Where, "wrong arity: the relation has %d input dimensions, but the domain has %d loops", nin, len(lat.lo))
	}
	if m, err = b.latticeMap(r, params, body, lat, acc.Pos, acc.Where); err != nil {
		return nil, "", 0, err
	}
	return m, out, nout, nil
}

// rangeMax returns the largest subscript dim that access m makes over the
// lattice, for an array whose size in that dimension is to be inferred (a
// "*" first size, or an implicit array).
func (b *builder) rangeMax(m *isl.Map, lat *lattice, acc Access, dim int) (int64, error) {
	on, err := m.IntersectDomain(lat.box)
	var rng *isl.Set
	if err == nil {
		rng, err = on.Range()
	}
	var v *isl.Val
	if err == nil {
		v, err = rng.DimMaxVal(dim)
	}
	if err != nil {
		return 0, b.errf(acc.Pos, acc.Where, "%s", islMessage(err))
	}
	hi, err := valInt64(v)
	if err != nil {
		return 0, b.errf(acc.Pos, acc.Where, "subscript %d is unbounded, so the array's size in that dimension cannot be inferred", dim)
	}
	return hi, nil
}

// extent returns the field extent of an array, x first: its sizes
// reversed, more than three dimensions folded into the first, a size to
// infer (a leading "*") replaced by the largest subscript accessed in its
// dimension plus one.
func (b *builder) extent(arr *Array, maxIndex []int64) ([]int64, error) {
	sizes := slices.Clone(arr.Sizes)
	if len(sizes) == 0 {
		return []int64{1}, nil
	}
	for j, s := range sizes {
		if s == 0 {
			sizes[j] = 1
			if j < len(maxIndex) {
				sizes[j] = max(1, maxIndex[j]+1)
			}
		}
	}
	m := len(sizes)
	if m <= 3 {
		out := make([]int64, m)
		for j := range m {
			out[j] = sizes[m-1-j]
		}
		return out, nil
	}
	n0 := int64(1)
	for _, s := range sizes[2:] {
		if s > math.MaxInt64/n0 {
			return nil, b.errf(arr.Pos, arr.Where, "the array's sizes %v overflow 64 bits", arr.Sizes)
		}
		n0 *= s
	}
	return []int64{n0, sizes[1], sizes[0]}, nil
}

// finalMap composes an access (lattice → C-order subscripts) with the
// array's layout (subscripts → field index, x first) and prints it.
func (b *builder) finalMap(m *isl.Map, arr *Array, acc Access) (string, error) {
	n := len(arr.Sizes)
	subs := make([]string, n)
	for j := range n {
		subs[j] = fmt.Sprintf("a%d", j)
	}
	var idx []string
	switch {
	case n == 0:
		idx = []string{"0"}
	case n <= 3:
		for j := range n {
			idx = append(idx, subs[n-1-j])
		}
	default:
		// e0 = a[n-1] + s[n-1]*(a[n-2] + s[n-2]*(... a[2])), e1 = a[1], e2 = a[0].
		e0 := Affine{Coef: map[string]int64{subs[2]: 1}}
		var err error
		for j := 3; j < n; j++ {
			if e0, err = e0.Scale(arr.Sizes[j]); err == nil {
				e0, err = e0.Add(Affine{Coef: map[string]int64{subs[j]: 1}})
			}
			if err != nil {
				return "", b.errf(acc.Pos, acc.Where, "folding the subscripts of %s: %v", arr.Name, err)
			}
		}
		idx = []string{e0.ISL(subs), subs[1], subs[0]}
	}
	out := ""
	if islSafe(arr.Field) {
		out = arr.Field
	}
	layout, err := b.sc.ReadMap(fmt.Sprintf("{ %s[%s] -> %s[%s] }", arr.Name, strings.Join(subs, ", "), out, strings.Join(idx, ", ")))
	var final *isl.Map
	if err == nil {
		final, err = m.ApplyRange(layout)
	}
	if err == nil {
		final, err = final.Coalesce()
	}
	if err != nil {
		return "", b.errf(acc.Pos, acc.Where, "%s", islMessage(err))
	}
	return oneLine(final.String()), nil
}
