package importer

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// ParseDefines parses -D values NAME=INTEGER into a map; a name given twice
// or a value that is not an integer is an error naming the value.
func ParseDefines(defs []string) (map[string]int64, error) {
	out := map[string]int64{}
	for _, d := range defs {
		name, value, ok := strings.Cut(d, "=")
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		if !ok || !isIdent(name) {
			return nil, fmt.Errorf("-D %q: expected NAME=INTEGER, e.g. -D N=4096", d)
		}
		v, err := strconv.ParseInt(strings.ReplaceAll(value, "_", ""), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("-D %s: %q is not an integer", name, value)
		}
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("-D %s: given twice", name)
		}
		out[name] = v
	}
	return out, nil
}

// ParseMap parses a --map value "i=x,j=y" into loop name → coordinate
// (0 for x, 1 for y, 2 for z).
func ParseMap(s string) (map[string]int, error) {
	out := map[string]int{}
	if strings.TrimSpace(s) == "" {
		return out, nil
	}
	used := map[int]string{}
	for _, item := range strings.Split(s, ",") {
		name, coord, ok := strings.Cut(item, "=")
		name, coord = strings.TrimSpace(name), strings.TrimSpace(coord)
		c := strings.Index("xyz", coord)
		if !ok || name == "" || len(coord) != 1 || c < 0 {
			return nil, fmt.Errorf("--map %q: expected LOOP=x, LOOP=y or LOOP=z, comma-separated (e.g. i=x,j=y)", item)
		}
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("--map: loop %s mapped twice", name)
		}
		if prev, dup := used[c]; dup {
			return nil, fmt.Errorf("--map: loops %s and %s both mapped to %s", prev, name, coord)
		}
		out[name], used[c] = c, name
	}
	return out, nil
}

func isNameStart(r rune) bool { return r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }
func isNameRune(r rune) bool  { return isNameStart(r) || r >= '0' && r <= '9' }

// isIdent reports whether s is a C identifier.
func isIdent(s string) bool {
	if s == "" || !isNameStart(rune(s[0])) {
		return false
	}
	for _, r := range s {
		if !isNameRune(r) {
			return false
		}
	}
	return true
}

// islKeywords are the words ISL's parser reserves; they cannot name a tuple
// or a dimension.
var islKeywords = []string{"and", "or", "not", "mod", "floor", "ceil", "ceild", "floord", "min", "max", "exists", "infty", "NaN", "true", "false", "rat", "implies"}

// islSafe reports whether name can stand as an ISL tuple or dimension name.
func islSafe(name string) bool { return isIdent(name) && !slices.Contains(islKeywords, name) }

// paramList returns the names of the parameters an ISL set or map text
// declares in its "[N, M] -> { ... }" prefix (none without a prefix) and the
// text of its body (from the first "{").
func paramList(src string) (params []string, body string, err error) {
	t := strings.TrimSpace(src)
	brace := strings.Index(t, "{")
	if brace < 0 {
		return nil, "", fmt.Errorf("expected an ISL set or map in braces, e.g. \"{ S[i] : 0 <= i < 8 }\"")
	}
	head, body := strings.TrimSpace(t[:brace]), t[brace:]
	if head == "" {
		return nil, body, nil
	}
	inner, ok := strings.CutSuffix(head, "->")
	inner = strings.TrimSpace(inner)
	if !ok || !strings.HasPrefix(inner, "[") || !strings.HasSuffix(inner, "]") {
		return nil, "", fmt.Errorf("cannot read the parameter list %q; expected \"[N, M] -> { ... }\"", head)
	}
	inner = strings.TrimSpace(inner[1 : len(inner)-1])
	if inner == "" {
		return nil, body, nil
	}
	for _, p := range strings.Split(inner, ",") {
		p = strings.TrimSpace(p)
		if !isIdent(p) {
			return nil, "", fmt.Errorf("parameter %q in %q is not a name", p, head)
		}
		params = append(params, p)
	}
	return params, body, nil
}

// identRE matches the names in an ISL text.
var identRE = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_']*`)

// mentions reports whether the ISL body text uses name.
func mentions(body, name string) bool {
	return slices.Contains(identRE.FindAllString(body, -1), name)
}

// tupleNames returns the names of the dimensions of the first tuple of an
// ISL set text ("{ S[i0, i1] : ... }" gives i0, i1); entries that are not
// names (constants, expressions) are named i<k> after their position.
func tupleNames(body string) []string {
	open := strings.Index(body, "[")
	if open < 0 {
		return nil
	}
	var entries []string
	depth, start := 0, open+1
scan:
	for i := open + 1; i < len(body); i++ {
		switch c := body[i]; {
		case c == '(' || c == '[':
			depth++
		case (c == ')' || c == ']') && depth > 0:
			depth--
		case c == ']' || c == ',' && depth == 0:
			entries = append(entries, strings.TrimSpace(body[start:i]))
			start = i + 1
			if c == ']' {
				break scan
			}
		}
	}
	if len(entries) == 1 && entries[0] == "" {
		return nil
	}
	names := make([]string, len(entries))
	for k, e := range entries {
		names[k] = e
		if !isIdent(e) || slices.Contains(names[:k], e) {
			names[k] = fmt.Sprintf("i%d", k)
		}
	}
	return names
}

// sizeCast matches an LLVM cast in a SCEV printed by Polly, as in
// "(sext i32 %N to i64)".
var sizeCast = regexp.MustCompile(`\((?:sext|zext|trunc) i\d+ (%?[A-Za-z_][A-Za-z0-9_.]*) to i\d+\)`)

// EvalSize evaluates an array size as Polly prints it (an integer, a
// parameter "%N" or "N", or an affine expression of them such as
// "(2 + %N)") with the bound parameters.
func EvalSize(src string, params map[string]int64) (int64, error) {
	s := sizeCast.ReplaceAllString(src, "$1")
	s = strings.ReplaceAll(s, "%", "")
	s = strings.ReplaceAll(s, "<nsw>", "")
	s = strings.ReplaceAll(s, "<nuw>", "")
	a, err := ParseAffine(s, func(name string) (int64, bool, error) {
		v, ok := params[name]
		if !ok {
			return 0, false, &UnboundError{Name: name}
		}
		return v, false, nil
	})
	var ue *UnboundError
	if errors.As(err, &ue) {
		return 0, ue
	}
	if err != nil {
		return 0, err
	}
	if a.Const < 1 || a.Const > math.MaxInt64/2 {
		return 0, fmt.Errorf("size %d: expected a positive number", a.Const)
	}
	return a.Const, nil
}

// UnboundError is a parameter or constant that no -D gives a value.
type UnboundError struct {
	Name string
	What string // "parameter" (the default) or "constant"
	// More are the other names the input uses that no -D binds, in the
	// order of their first use, where the front end knows them all.
	More []Use
}

// Use is a name and the position of its first use in the input.
type Use struct {
	Name string
	Pos  Pos
}

// Names returns the unbound names: Name, then those of More.
func (e *UnboundError) Names() []string {
	out := []string{e.Name}
	for _, u := range e.More {
		out = append(out, u.Name)
	}
	return out
}

// Defines returns the -D flags that bind the unbound names, for messages:
// "-D N=VALUE -D M=VALUE".
func (e *UnboundError) Defines() string {
	var parts []string
	for _, n := range e.Names() {
		parts = append(parts, "-D "+n+"=VALUE")
	}
	return strings.Join(parts, " ")
}

// Hint is the end of the message that says how to bind the names:
// "; give its value with -D N=VALUE".
func (e *UnboundError) Hint() string {
	if len(e.More) == 0 {
		return "; give its value with " + e.Defines()
	}
	return "; give their values with " + e.Defines()
}

func (e *UnboundError) Error() string {
	what := e.What
	if what == "" {
		what = "parameter"
	}
	if len(e.More) == 0 {
		return fmt.Sprintf("%s %s is unbound%s", what, e.Name, e.Hint())
	}
	var more []string
	for _, u := range e.More {
		m := u.Name
		if u.Pos.Line > 0 {
			m += fmt.Sprintf(" (line %d)", u.Pos.Line)
		}
		more = append(more, m)
	}
	verb := "is"
	if len(more) > 1 {
		verb = "are"
	}
	return fmt.Sprintf("%s %s is unbound, and so %s %s%s", what, e.Name, verb, andList(more), e.Hint())
}

// andList joins items as "a", "a and b" or "a, b and c".
func andList(items []string) string {
	if len(items) <= 1 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// UnknownDefines returns an error that names the -D names of params that
// are not among known, the parameters or constants that the input
// declares or uses, and lists those; nil when there are none. what is
// "parameter" or "constant", input names the input in the message ("the
// JSCoP").
func UnknownDefines(file string, params map[string]int64, known []string, what, input string) error {
	var unknown, flags []string
	for name := range params {
		if !slices.Contains(known, name) {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	slices.Sort(unknown)
	for _, name := range unknown {
		flags = append(flags, fmt.Sprintf("-D %s=%d", name, params[name]))
	}
	names := slices.Compact(slices.Sorted(slices.Values(known)))
	list := fmt.Sprintf("it has no %ss", what)
	switch len(names) {
	case 0:
	case 1:
		list = fmt.Sprintf("its only %s is %s", what, names[0])
	default:
		list = fmt.Sprintf("its %ss are %s", what, strings.Join(names, ", "))
	}
	noun := what
	if len(unknown) > 1 {
		noun += "s"
	}
	return Errorf(file, Pos{}, "", "%s: %s has no %s %s; %s", strings.Join(flags, ", "), input, noun, andList(unknown), list)
}

// SizeNames returns the parameter names in an array size as Polly prints
// it (EvalSize).
func SizeNames(src string) []string {
	s := sizeCast.ReplaceAllString(src, "$1")
	s = strings.ReplaceAll(s, "<nsw>", "")
	s = strings.ReplaceAll(s, "<nuw>", "")
	return identRE.FindAllString(strings.ReplaceAll(s, "%", ""), -1)
}

// ParamNames returns the parameters an ISL set or map text declares in its
// "[N, M] -> " prefix, nil when it has none or cannot be read.
func ParamNames(src string) []string {
	params, _, err := paramList(src)
	if err != nil {
		return nil
	}
	return params
}

// Conjuncts splits the constraints of an ISL parameter set's body, as in
// "{ : 0 <= N <= 1024 and N % 128 = 0 }", into the constraints that must
// all hold: the operands of a top-level "and", with a chained comparison
// split into its comparisons ("0 <= N", "N <= 1024"). It returns nil when
// the body is not such a conjunction: it has no constraints, or a
// top-level "or", "implies" or ";" (a union), or its braces do not match.
func Conjuncts(body string) []string {
	t := strings.TrimSpace(body)
	if !strings.HasPrefix(t, "{") || !strings.HasSuffix(t, "}") {
		return nil
	}
	t = t[1 : len(t)-1]
	colon := topLevelIndex(t, func(s string, i int) bool { return s[i] == ':' })
	if colon < 0 {
		return nil
	}
	t = t[colon+1:]
	var parts []string
	for t != "" {
		i := topLevelIndex(t, func(s string, i int) bool {
			if s[i] == ';' {
				return true
			}
			for _, w := range []string{"and", "or", "implies"} {
				if strings.HasPrefix(s[i:], w) && (i == 0 || !isNameRune(rune(s[i-1]))) && (i+len(w) == len(s) || !isNameRune(rune(s[i+len(w)]))) {
					return true
				}
			}
			return false
		})
		if i < 0 {
			parts = append(parts, t)
			break
		}
		if !strings.HasPrefix(t[i:], "and") {
			return nil
		}
		parts = append(parts, t[:i])
		t = t[i+len("and"):]
	}
	var out []string
	for _, p := range parts {
		p = strings.TrimSpace(p)
		if p == "" {
			return nil
		}
		out = append(out, splitChain(p)...)
	}
	return out
}

// topLevelIndex returns the first byte offset i of s outside parentheses
// and brackets for which match(s, i) holds, or -1.
func topLevelIndex(s string, match func(s string, i int) bool) int {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '(' || c == '[':
			depth++
		case c == ')' || c == ']':
			depth--
		case depth == 0 && match(s, i):
			return i
		}
	}
	return -1
}

// comparisons are the comparison operators of ISL constraints, the
// two-character ones first.
var comparisons = []string{"<=", ">=", "<", ">", "="}

// splitChain splits a chained comparison such as "0 <= N < 1024" into its
// comparisons; a constraint with a top-level list ("0 <= N, M") or a
// single comparison is returned whole.
func splitChain(c string) []string {
	var operands, ops []string
	rest := c
	for {
		i := topLevelIndex(rest, func(s string, i int) bool { return strings.ContainsRune("<>=,", rune(s[i])) })
		if i < 0 {
			operands = append(operands, strings.TrimSpace(rest))
			break
		}
		if rest[i] == ',' {
			return []string{c}
		}
		op := "="
		for _, o := range comparisons {
			if strings.HasPrefix(rest[i:], o) {
				op = o
				break
			}
		}
		operands = append(operands, strings.TrimSpace(rest[:i]))
		ops = append(ops, op)
		rest = rest[i+len(op):]
	}
	if len(ops) < 2 {
		return []string{c}
	}
	out := make([]string, len(ops))
	for k, op := range ops {
		out[k] = operands[k] + " " + op + " " + operands[k+1]
	}
	return out
}
