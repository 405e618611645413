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
}

func (e *UnboundError) Error() string {
	what := e.What
	if what == "" {
		what = "parameter"
	}
	return fmt.Sprintf("%s %s is unbound; give its value with -D %s=VALUE", what, e.Name, e.Name)
}
