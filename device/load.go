package device

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/polyvol/polyvol/yamldoc"
)

// FieldError is one problem in a device description: the file and line where
// it was found (when known), the YAML key it concerns and what was expected.
type FieldError struct {
	File string // device file name; empty for a Device built in Go
	Line int    // 1-based line of the key; 0 when the key is absent or unknown
	Col  int    // 1-based column of a syntax error; 0 for the others
	Key  string // dotted YAML key, e.g. "limits.shared_per_sm"
	Msg  string // what is wrong and what was expected
}

// Error formats the problem as "file:line[:column]: key: message", leaving
// out the parts that are not known.
func (e *FieldError) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		if e.Line > 0 {
			fmt.Fprintf(&b, ":%d", e.Line)
			if e.Col > 0 {
				fmt.Fprintf(&b, ":%d", e.Col)
			}
		}
		b.WriteString(": ")
	}
	if e.Key != "" {
		fmt.Fprintf(&b, "key %q: ", e.Key)
	}
	b.WriteString(e.Msg)
	return b.String()
}

// maxDeviceFileBytes bounds the size of a device file, so that a path such
// as /dev/zero cannot exhaust memory.
const maxDeviceFileBytes = 1 << 20

// LoadFile reads and validates a user device file (the schema of Device) of
// at most 1 MiB.
func LoadFile(path string) (*Device, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("device file: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxDeviceFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(data) > maxDeviceFileBytes {
		return nil, fmt.Errorf("%s: larger than 1 MiB; a device file is a short YAML text", path)
	}
	return Parse(data, path)
}

// Parse decodes and validates one device description in YAML. Unknown keys,
// wrongly typed values and every validation problem are reported as
// *FieldError values (joined) naming filename, line and key.
//
// A description with based_on: NAME starts from the database device NAME
// (Lookup) and overrides the keys it gives; it must give its own name, the
// aliases and display name are not inherited, and a number it overrides
// needs its own source (the base's source of that key is dropped).
func Parse(data []byte, filename string) (*Device, error) {
	return parse(data, filename, Lookup)
}

// parse is Parse with lookup finding the device of based_on; lookup is nil
// for the embedded database, whose devices cannot be based on one another
// (Lookup needs the parsed database).
func parse(data []byte, filename string, lookup func(string) (*Device, error)) (*Device, error) {
	root, err := yamldoc.One(data, "a device file")
	if err != nil {
		return nil, yamlError(filename, err, nil)
	}
	if len(root.Content) == 0 || root.Content[0].Kind != yaml.MappingNode {
		return nil, &FieldError{File: filename, Line: max(root.Line, 1),
			Msg: "expected a mapping of device keys (name, sms, l1_bytes, …)"}
	}
	lines := keyLines(root.Content[0])

	var d Device
	if base := scalarValue(root.Content[0], "based_on"); base != "" {
		b, err := baseDevice(base, lines, lookup)
		if err != nil {
			return nil, &FieldError{File: filename, Line: lines["based_on"], Key: "based_on", Msg: err.Error()}
		}
		d = *b
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&d); err != nil {
		return nil, yamlError(filename, err, lines)
	}
	if errs := d.check(); len(errs) > 0 {
		joined := make([]error, len(errs))
		for i, e := range errs {
			e.File = filename
			e.Line = lines[e.Key]
			switch {
			case e.Line == 0 && d.BasedOn != "" && e.Key != "sources":
				e.Msg = "inherited from " + d.BasedOn + "; " + e.Msg
			case e.Line == 0:
				e.Msg = "missing; " + e.Msg
			}
			joined[i] = e
		}
		return nil, errors.Join(joined...)
	}
	return &d, nil
}

// scalarValue returns the value of the scalar key of mapping m, or "".
func scalarValue(m *yaml.Node, key string) string {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if k, v := m.Content[i], m.Content[i+1]; k.Value == key && v.Kind == yaml.ScalarNode {
			return v.Value
		}
	}
	return ""
}

// baseDevice returns the start of a device file with based_on: the database
// device base without aliases, with the display name "based on ..." and
// without the sources of the numbers the file sets (lines holds the file's
// dotted keys). A group source (limits, latencies) keeps covering the
// numbers of the group that the file leaves alone.
func baseDevice(base string, lines map[string]int, lookup func(string) (*Device, error)) (*Device, error) {
	if lookup == nil {
		return nil, errors.New("not allowed in the embedded database")
	}
	if lines["name"] == 0 {
		return nil, fmt.Errorf("a device based on %s needs its own name: add a name key", base)
	}
	b, err := lookup(base)
	if err != nil {
		return nil, err
	}
	b.Aliases = nil
	b.DisplayName = "based on " + b.DisplayName
	members := map[string][]string{}
	for _, g := range sourceGroups {
		members[g] = []string{}
	}
	for _, f := range numericFields(b) {
		if g, _, ok := strings.Cut(f.key, "."); ok {
			members[g] = append(members[g], f.key)
		}
	}
	named := map[string]bool{}
	for names := range b.Sources {
		for n := range strings.SplitSeq(names, ",") {
			named[strings.TrimSpace(n)] = true
		}
	}
	sources := map[string]string{}
	for names, src := range b.Sources {
		if kept := sourceNames(names, lines, members, named); len(kept) > 0 {
			sources[strings.Join(kept, ", ")] = src
		}
	}
	b.Sources = sources
	return b, nil
}

// sourceNames expands the key list of one sources entry of a base device
// for a file that sets the dotted keys in lines: a key the file sets is
// dropped; a group with a member the file sets becomes its members that
// the file leaves alone and that have no entry of their own (named).
func sourceNames(names string, lines map[string]int, members map[string][]string, named map[string]bool) []string {
	var kept []string
	for n := range strings.SplitSeq(names, ",") {
		n = strings.TrimSpace(n)
		group, isGroup := members[n]
		switch {
		case !isGroup && lines[n] == 0:
			kept = append(kept, n)
		case isGroup && !slices.ContainsFunc(group, func(k string) bool { return lines[k] > 0 }):
			kept = append(kept, n)
		case isGroup:
			for _, k := range group {
				if lines[k] == 0 && !named[k] {
					kept = append(kept, k)
				}
			}
		}
	}
	return kept
}

// keyLines maps every dotted key path of a device document to its line. It
// descends into nested mappings (limits, latencies, sources).
func keyLines(m *yaml.Node) map[string]int {
	lines := map[string]int{}
	var walk func(n *yaml.Node, prefix string)
	walk = func(n *yaml.Node, prefix string) {
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			path := prefix + k.Value
			lines[path] = k.Line
			if v.Kind == yaml.MappingNode {
				walk(v, path+".")
			}
		}
	}
	walk(m, "")
	return lines
}

var yamlLineRE = regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`)
var unknownFieldRE = regexp.MustCompile(`^field (\S+) not found in type`)

// yamlError turns an error of the YAML decoder into *FieldError values with
// the file name, the line and, where lines is known, the key at that line;
// a syntax error (yamldoc.SyntaxError) into one with its line and column.
func yamlError(filename string, err error, lines map[string]int) error {
	var se *yamldoc.SyntaxError
	if errors.As(err, &se) {
		return &FieldError{File: filename, Line: se.Line, Col: se.Column, Msg: se.Msg}
	}
	var msgs []string
	var te *yaml.TypeError
	if errors.As(err, &te) {
		msgs = te.Errors
	} else {
		msgs = []string{err.Error()}
	}
	keyAt := map[int]string{}
	for k, l := range lines {
		if old, ok := keyAt[l]; !ok || len(k) > len(old) {
			keyAt[l] = k
		}
	}
	errs := make([]error, 0, len(msgs))
	for _, m := range msgs {
		fe := &FieldError{File: filename, Msg: strings.TrimPrefix(m, "yaml: ")}
		if sub := yamlLineRE.FindStringSubmatch(m); sub != nil {
			fe.Line, _ = strconv.Atoi(sub[1])
			fe.Key = keyAt[fe.Line]
			fe.Msg = sub[2]
			if u := unknownFieldRE.FindStringSubmatch(sub[2]); u != nil {
				fe.Msg = fmt.Sprintf("unknown key %q; expected a key of the device schema (see device.Device)", u[1])
			}
		}
		errs = append(errs, fe)
	}
	return errors.Join(errs...)
}

// Validate checks a device description: names and model present, every
// number non-negative and every required number positive, granularities
// powers of two, consistent limits, and a source for every non-zero number.
// The error joins one *FieldError per problem.
func (d *Device) Validate() error {
	errs := d.check()
	joined := make([]error, len(errs))
	for i, e := range errs {
		joined[i] = e
	}
	return errors.Join(joined...)
}

// numField is one numeric key of the schema and the value it holds.
type numField struct {
	key string
	v   reflect.Value
}

func (f numField) float() float64 {
	if f.v.CanInt() {
		return float64(f.v.Int())
	}
	return f.v.Float()
}

// numericFields lists every numeric key of d, with dotted paths for the
// nested limits and latencies, in schema order.
func numericFields(d *Device) []numField {
	var out []numField
	var walk func(v reflect.Value, prefix string)
	walk = func(v reflect.Value, prefix string) {
		t := v.Type()
		for i := range t.NumField() {
			key := prefix + strings.Split(t.Field(i).Tag.Get("yaml"), ",")[0]
			switch fv := v.Field(i); fv.Kind() {
			case reflect.Struct:
				walk(fv, key+".")
			case reflect.Int, reflect.Int64, reflect.Float64:
				out = append(out, numField{key, fv})
			}
		}
	}
	walk(reflect.ValueOf(d).Elem(), "")
	return out
}

// maxSMs bounds sms: the models' work grows with it (layercond on a device
// of 10^6 SMs took 86 s and 1.3 GB).
const maxSMs = 4096

// Keys that may be zero: lsus is unused unless an L1 rule is lsu_lanes, AMD
// devices reserve no shared memory per block, and the rest are measured on
// some devices only.
var optionalKeys = map[string]bool{"lsus": true, "limits.shared_reserved_per_block": true, "l1_tag_cycles_per_line": true, "block_launch_cycles": true, "l1_tlb_reach_bytes": true, "memory_cache_bytes": true, "shared_banks": true, "shared_bank_bytes": true}

// Keys that must be powers of two.
var powerOfTwoKeys = []string{
	"warp_size", "sub_warp_size", "l1_bank_width", "l1_alloc_bytes", "shared_banks", "shared_bank_bytes",
	"l1_fetch_bytes", "l1_write_bytes", "dram_fetch_bytes", "dram_write_bytes",
	"tlb_page_bytes", "l1_tlb_page_bytes", "l1_tlb_reach_bytes", "limits.register_alloc_unit",
	"limits.warp_alloc_granularity", "limits.shared_alloc_unit",
}

// Source keys that stand for every number below them.
var sourceGroups = []string{"limits", "latencies"}

// Source returns where the number or rule under key (a dotted YAML key such
// as "l2_bytes", "limits.shared_per_sm" or "l1_rules.tag") comes from: the
// sources entry naming the key itself, else the one naming its group
// ("limits", "latencies"), else for a rule the preset of its family.
func (d *Device) Source(key string) string {
	group, _, _ := strings.Cut(key, ".")
	var fromGroup string
	for names, src := range d.Sources {
		for n := range strings.SplitSeq(names, ",") {
			switch strings.TrimSpace(n) {
			case key:
				return src
			case group:
				fromGroup = src
			}
		}
	}
	if fromGroup == "" {
		return d.familySource(key)
	}
	return fromGroup
}

// The classes of a number's source (docs/devices.md). A source text of the
// database starts with the prefix of its class.
const (
	SourceMeasured  = "measured"        // a published measurement of this device
	SourceSpecSheet = "spec sheet"      // the vendor's data sheet (a peak for bandwidths)
	SourceReference = "reference table" // the device table of the paper's reference implementation (Warpspeed)
	SourceEstimate  = "estimate"        // derived from another device or a rule; the text says how
)

// sourcePrefixes maps the start of a source text to its class.
var sourcePrefixes = []struct{ prefix, class string }{
	{"measured", SourceMeasured},
	{"spec sheet", SourceSpecSheet},
	{"reference (Warpspeed) device table", SourceReference},
	{"estimate", SourceEstimate},
}

// SourceClass returns the class of the source of the number under key
// (SourceMeasured, SourceSpecSheet, SourceReference or SourceEstimate),
// read from the start of its source text; "unclassified" for a text that
// starts otherwise (device files need not follow the database's
// convention), and "no source" when the key has none.
func (d *Device) SourceClass(key string) string {
	src := d.Source(key)
	if src == "" {
		return "no source"
	}
	for _, p := range sourcePrefixes {
		if strings.HasPrefix(src, p.prefix) {
			return p.class
		}
	}
	return "unclassified"
}

// check returns the errors of every field of d that breaks the schema.
func (d *Device) check() []*FieldError {
	var errs fieldErrors
	d.checkIdentity(&errs)
	fields := numericFields(d)
	d.checkNumbers(&errs, fields)
	d.checkRelations(&errs)
	d.checkSources(&errs, fields)
	return errs
}

// fieldErrors collects the errors of a device's fields.
type fieldErrors []*FieldError

// add records an error of the field key.
func (e *fieldErrors) add(key, format string, args ...any) {
	*e = append(*e, &FieldError{Key: key, Msg: fmt.Sprintf(format, args...)})
}

// checkIdentity checks the fields that name the device and its kind:
// names, aliases, vendor, architecture and L1 model.
func (d *Device) checkIdentity(errs *fieldErrors) {
	if d.Name == "" {
		errs.add("name", "expected a non-empty canonical name, e.g. \"A100-40GB\"")
	}
	if err := CheckName(d.Name); err != nil {
		errs.add("name", "%v", err)
	}
	if err := CheckName(d.DisplayName); err != nil {
		errs.add("display_name", "%v", err)
	}
	for i, a := range d.Aliases {
		if err := CheckName(a); err != nil {
			errs.add("aliases", "aliases[%d]: %v", i, err)
		}
	}
	if d.Vendor != "nvidia" && d.Vendor != "amd" {
		errs.add("vendor", "expected \"nvidia\" or \"amd\", got %q", d.Vendor)
	}
	if d.Arch == "" {
		errs.add("arch", "expected an architecture name, e.g. \"sm_80\" or \"gfx90a\"")
	}
	if !slices.Contains([]L1Model{L1NV, L1CDNA, L1RDNA}, d.L1Model) {
		errs.add("l1_model", "expected NV, CDNA or RDNA, got %q", d.L1Model)
	}
	overrides := d.ruleOverrides()
	for _, key := range ruleKeys() {
		if v, ok := overrides[key]; ok && !slices.Contains(ruleValues[key], v) {
			errs.add(key, "expected one of %s, got %q", strings.Join(ruleValues[key], ", "), v)
		}
	}
}

// needsLSUs reports whether one of d's rules counts cycles of its
// load/store units, so that lsus must be positive.
func (d *Device) needsLSUs() bool {
	r := d.Rules()
	return r.Issue == IssueLSULanes || r.SharedIssue == SharedLSULanes
}

// checkNumbers checks each numeric field: finite, not negative, positive
// where required, with a source where positive, and a power of two where
// the schema asks for one.
func (d *Device) checkNumbers(errs *fieldErrors, fields []numField) {
	byKey := map[string]float64{}
	for _, f := range fields {
		x := f.float()
		byKey[f.key] = x
		required := !optionalKeys[f.key] || (f.key == "lsus" && d.needsLSUs())
		switch {
		case math.IsNaN(x) || math.IsInf(x, 0):
			errs.add(f.key, "expected a finite number, got %v", x)
		case x < 0:
			errs.add(f.key, "expected a non-negative number, got %v", x)
		case x == 0 && required:
			errs.add(f.key, "expected a positive number")
		case x > 0 && d.Source(f.key) == "":
			errs.add("sources", "no source for %q; add it to a sources entry (key list → where the number comes from)", f.key)
		}
	}
	for _, k := range powerOfTwoKeys {
		if n := int64(byKey[k]); n > 0 && n&(n-1) != 0 {
			errs.add(k, "expected a power of two, got %d", n)
		}
	}
}

// checkRelations checks the fields bounded by others: a sub-warp within a
// warp, an L1 fetch within an L1 allocation, a block's threads and shared
// memory within an SM's, and the number of SMs.
func (d *Device) checkRelations(errs *fieldErrors) {
	if d.SubWarpSize > d.WarpSize && d.WarpSize > 0 {
		errs.add("sub_warp_size", "must not exceed warp_size (%d), got %d", d.WarpSize, d.SubWarpSize)
	}
	if d.L1FetchBytes > d.L1AllocBytes && d.L1AllocBytes > 0 {
		errs.add("l1_fetch_bytes", "must not exceed l1_alloc_bytes (%d), got %d", d.L1AllocBytes, d.L1FetchBytes)
	}
	l := d.Limits
	if l.MaxThreadsPerBlock > l.MaxThreadsPerSM && l.MaxThreadsPerSM > 0 {
		errs.add("limits.max_threads_per_block", "must not exceed limits.max_threads_per_sm (%d), got %d", l.MaxThreadsPerSM, l.MaxThreadsPerBlock)
	}
	if l.SharedPerBlock > l.SharedPerSM && l.SharedPerSM > 0 {
		errs.add("limits.shared_per_block", "must not exceed limits.shared_per_sm (%d), got %d", l.SharedPerSM, l.SharedPerBlock)
	}
	if d.SMs > maxSMs {
		errs.add("sms", "expected at most %d streaming multiprocessors or compute units (the largest GPUs have about 300), got %d", maxSMs, d.SMs)
	}
}

// checkSources checks the sources entries: each a non-empty text for
// numeric keys, rules or groups of the schema, each key in one entry only,
// and an entry for every rule that d's l1_rules set.
func (d *Device) checkSources(errs *fieldErrors, fields []numField) {
	known := map[string]bool{}
	for _, f := range fields {
		known[f.key] = true
	}
	for _, g := range sourceGroups {
		known[g] = true
	}
	for _, k := range ruleKeys() {
		known[k] = true
	}
	named := map[string]bool{}
	for _, names := range slices.Sorted(maps.Keys(d.Sources)) {
		if strings.TrimSpace(d.Sources[names]) == "" {
			errs.add("sources."+names, "expected a non-empty source text")
		}
		for n := range strings.SplitSeq(names, ",") {
			switch n = strings.TrimSpace(n); {
			case !known[n]:
				errs.add("sources."+names, "%q is not a numeric key, rule (l1_rules.fusion, …) or group (limits, latencies) of the schema", n)
			case named[n]:
				errs.add("sources."+names, "%q already has a source in another entry", n)
			}
			named[n] = true
		}
	}
	for _, key := range slices.Sorted(maps.Keys(d.ruleOverrides())) {
		if !named[key] {
			errs.add("sources", "no source for the rule %q; add it to a sources entry (a rule that overrides its family's needs its own)", key)
		}
	}
}
