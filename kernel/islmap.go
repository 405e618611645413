package kernel

import (
	"fmt"
	"strings"
)

// maxMapAccesses bounds the accesses one raw map may stand for.
const maxMapAccesses = 1024

// MapError is a raw ISL access map that cannot be turned into index
// expressions; Column is the 1-based column in the map text (0 when the
// error concerns the whole map).
type MapError struct {
	Column int
	Msg    string
}

func (e *MapError) Error() string {
	if e.Column == 0 {
		return e.Msg
	}
	return fmt.Sprintf("column %d: %s", e.Column, e.Msg)
}

// ParseISLMap turns a raw access map in ISL notation into the index tuples
// it stands for, so that every layer of polyvol (the simulator and the CUDA
// generator included) evaluates it like an expression access. Accepted are
// unions (";") of pieces
//
//	[name][in0, in1, in2] -> [name][out0, out1, out2] : constraints
//
// with one to three input names (the lattice coordinates x, y, z in order)
// and one to three outputs. An output is a quasi-affine expression of the
// inputs in ISL syntax (27x + 3, floor((x)/4), x mod 4, …), or a name of its
// own bounded by the constraints: "lo <= i < hi" (any of <, <=, >, >=,
// chained or joined with "and") with hi − lo constant, or "i = e". Such an
// output stands for every index in its range, so a map in which a thread
// touches a range of elements becomes one access per element. Constraints
// on the inputs alone (the iteration domain compilers state, such as
// 0 <= i <= 255) become the accesses' Guards: where they leave points of
// the kernel's domain out, the access is partial and each must bound one
// coordinate (Access.Partial). Each disjunct of constraints joined by "or" is a
// piece of its own. Parameters and disjunctions inside brackets are
// rejected with a MapError.
func ParseISLMap(src string) ([]Access, error) {
	s := &mapScanner{src: []rune(src)}
	s.space()
	if !s.eat('{') {
		if s.find("->") >= 0 && s.find("{") > s.find("->") {
			return nil, s.errAt(1, "parameters ([N] -> { ... }) are not supported; write the sizes as numbers")
		}
		return nil, s.errAt(s.pos+1, "expected '{' to open the map")
	}
	var out []Access
	for {
		accs, err := s.piece()
		if err != nil {
			return nil, err
		}
		out = append(out, accs...)
		if len(out) > maxMapAccesses {
			return nil, &MapError{0, fmt.Sprintf("the map stands for more than %d accesses", maxMapAccesses)}
		}
		s.space()
		if s.eat(';') {
			continue
		}
		if s.eat('}') {
			break
		}
		return nil, s.errAt(s.pos+1, "expected ';' or '}' after a piece of the map")
	}
	s.space()
	if s.pos < len(s.src) {
		return nil, s.errAt(s.pos+1, "unexpected text after the map's closing '}'")
	}
	return Dedup(out), nil
}

// mapInputArity returns the number of coordinates in the input tuple of
// the first piece of the map src, and false when src does not start like a
// map ("{ [x, y] -> ..."): the parser or ISL then says what is wrong.
func mapInputArity(src string) (int, bool) {
	s := &mapScanner{src: []rune(src)}
	s.space()
	if !s.eat('{') {
		return 0, false
	}
	ins, err := s.tuple("input")
	if err != nil {
		return 0, false
	}
	return len(ins), true
}

// mapScanner reads the structure of an ISL map; expressions inside it are
// handed to the expression parser.
type mapScanner struct {
	src []rune
	pos int
}

func (s *mapScanner) errAt(col int, format string, args ...any) error {
	return &MapError{col, fmt.Sprintf(format, args...)}
}

// space skips white space.
func (s *mapScanner) space() {
	for s.pos < len(s.src) && strings.ContainsRune(" \t\r\n", s.src[s.pos]) {
		s.pos++
	}
}

// eat consumes r if it comes next.
func (s *mapScanner) eat(r rune) bool {
	s.space()
	if s.pos < len(s.src) && s.src[s.pos] == r {
		s.pos++
		return true
	}
	return false
}

// find returns the index of text in the source, or −1.
func (s *mapScanner) find(text string) int { return strings.Index(string(s.src), text) }

// name reads an optional tuple name.
func (s *mapScanner) name() string {
	s.space()
	start := s.pos
	for s.pos < len(s.src) && (isIdentRune(s.src[s.pos]) || s.pos > start && s.src[s.pos] >= '0' && s.src[s.pos] <= '9') {
		s.pos++
	}
	return string(s.src[start:s.pos])
}

// segment is a piece of source text and the column where it starts.
type segment struct {
	text string
	col  int
}

// trimmed returns text without its leading white space as a segment
// starting at column col.
func trimmed(text string, col int) segment {
	t := strings.TrimLeft(text, " \t\r\n")
	return segment{t, col + len([]rune(text)) - len([]rune(t))}
}

// until reads up to (not including) the first of the stop runes at bracket
// depth zero.
func (s *mapScanner) until(stops string) (segment, error) {
	s.space()
	start, depth := s.pos, 0
	for ; s.pos < len(s.src); s.pos++ {
		r := s.src[s.pos]
		switch {
		case r == '(' || r == '[':
			depth++
		case (r == ')' || r == ']') && depth > 0:
			depth--
		case depth == 0 && strings.ContainsRune(stops, r):
			return segment{string(s.src[start:s.pos]), start + 1}, nil
		}
	}
	return segment{}, s.errAt(start+1, "unterminated map: expected one of %q", stops)
}

// tuple reads "[a, b, c]" into its entries.
func (s *mapScanner) tuple(what string) ([]segment, error) {
	s.name()
	if !s.eat('[') {
		return nil, s.errAt(s.pos+1, "expected '[' to open the %s tuple", what)
	}
	var entries []segment
	for {
		seg, err := s.until(",]")
		if err != nil {
			return nil, err
		}
		if strings.TrimSpace(seg.text) == "" {
			if len(entries) == 0 && s.src[s.pos] == ']' {
				return nil, s.errAt(s.pos+1, "empty %s tuple; expected 1 to 3 entries", what)
			}
			return nil, s.errAt(seg.col, "empty entry in the %s tuple", what)
		}
		entries = append(entries, seg)
		if s.src[s.pos] == ']' {
			s.pos++
			break
		}
		s.pos++
	}
	if len(entries) > 3 {
		return nil, s.errAt(entries[3].col, "the %s tuple has %d entries; at most 3 are allowed", what, len(entries))
	}
	return entries, nil
}

// bound is a range lo ≤ v ≤ lo + width of an output name.
type bound struct {
	lo, hi   *Expr
	loCol    int
	declared int // column of the name in the output tuple
}

// piece reads one "in -> out : constraints" piece.
func (s *mapScanner) piece() ([]Access, error) {
	ins, err := s.tuple("input")
	if err != nil {
		return nil, err
	}
	vars := map[string]int{}
	var fixed []segment // "y = 0" in the input tuple, as ISL prints a fixed coordinate
	for i, in := range ins {
		n := strings.TrimSpace(in.text)
		if eq := strings.IndexByte(in.text, '='); eq > 0 {
			n = strings.TrimSpace(in.text[:eq])
			fixed = append(fixed, segment{text: n + " = " + in.text[eq+1:], col: in.col})
		}
		if !isName(n) || n == "floor" || n == "mod" {
			return nil, s.errAt(in.col, "input %q is not a name; the input tuple lists the lattice coordinates, e.g. [x, y, z]", n)
		}
		if _, dup := vars[n]; dup {
			return nil, s.errAt(in.col, "input %q appears twice", n)
		}
		vars[n] = i
	}
	s.space()
	if !strings.HasPrefix(string(s.src[s.pos:]), "->") {
		return nil, s.errAt(s.pos+1, "expected '->' after the input tuple")
	}
	s.pos += 2
	outs, err := s.tuple("output")
	if err != nil {
		return nil, err
	}
	exprs := make([]Expr, len(outs))
	var order []string // ranged outputs in tuple order, with the column of each
	declared := map[string]int{}
	for i, o := range outs {
		n := strings.TrimSpace(o.text)
		if _, isInput := vars[n]; isName(n) && !isInput && n != "floor" {
			if _, dup := declared[n]; dup {
				return nil, s.errAt(o.col, "output name %q appears twice", n)
			}
			declared[n] = o.col
			order = append(order, n)
			continue
		}
		if exprs[i], err = s.expr(o, vars); err != nil {
			return nil, err
		}
	}
	// Each disjunct of the constraints ("a or b", "and" binding tighter)
	// is a piece of its own.
	disjuncts := []segment{{}}
	if s.eat(':') {
		cons, err := s.until(";}")
		if err != nil {
			return nil, err
		}
		disjuncts = splitWord(cons, "or")
	}
	var out []Access
	for _, d := range disjuncts {
		ranged := map[string]*bound{}
		for _, n := range order {
			ranged[n] = &bound{declared: declared[n]}
		}
		var guards []Expr
		if strings.TrimSpace(d.text) != "" || len(disjuncts) > 1 {
			if err := s.constraints(d, vars, ranged, &guards); err != nil {
				return nil, err
			}
		}
		for _, f := range fixed {
			if err := s.constraints(f, vars, ranged, &guards); err != nil {
				return nil, err
			}
		}
		accs, err := s.expand(outs, exprs, order, ranged, guards)
		if err != nil {
			return nil, err
		}
		out = append(out, accs...)
	}
	return out, nil
}

// expand returns the accesses of one piece: each ranged output takes every
// value of its range.
func (s *mapScanner) expand(outs []segment, exprs []Expr, order []string, ranged map[string]*bound, guards []Expr) ([]Access, error) {
	widths := map[string]int64{}
	total := int64(1)
	for _, n := range order {
		b := ranged[n]
		if b.lo == nil || b.hi == nil {
			return nil, s.errAt(b.declared, "output %q needs a lower and an upper bound (lo <= %s < hi) or an equality", n, n)
		}
		d, err := b.hi.Sub(*b.lo)
		if err != nil {
			return nil, s.errAt(b.loCol, "%v", err)
		}
		w, ok := d.IsConst()
		if !ok {
			return nil, s.errAt(b.loCol, "the range of %q, from %s to %s, does not have a constant width", n, b.lo, b.hi)
		}
		if w < 0 {
			return nil, s.errAt(b.loCol, "the range of %q is empty", n)
		}
		widths[n] = w + 1
		if total *= w + 1; total > maxMapAccesses {
			return nil, &MapError{0, fmt.Sprintf("the map stands for more than %d accesses", maxMapAccesses)}
		}
	}
	var out []Access
	text := strings.TrimSpace(string(s.src))
	for k := range total {
		a := Access{Text: text, Guards: guards}
		rest := k
		for i, o := range outs {
			n := strings.TrimSpace(o.text)
			b := ranged[n]
			if b == nil {
				a.Index[i] = exprs[i]
				continue
			}
			off := rest % widths[n]
			rest /= widths[n]
			v, err := b.lo.Add(Const(off))
			if err != nil {
				return nil, s.errAt(o.col, "%v", err)
			}
			a.Index[i] = v
		}
		out = append(out, a)
	}
	return out, nil
}

// expr parses an expression segment over the inputs.
func (s *mapScanner) expr(seg segment, vars map[string]int) (Expr, error) {
	e, err := parseExpr(seg.text, vars, true)
	if err != nil {
		if ee, ok := err.(*ExprError); ok {
			return Expr{}, s.errAt(seg.col+ee.Column-1, "%s", ee.Msg)
		}
		return Expr{}, s.errAt(seg.col, "%v", err)
	}
	return e, nil
}

// relation is one comparison operator in a chain.
type relation struct {
	op  string // "<", "<=", ">", ">=", "="
	col int
}

// constraints reads "a op b op c and d op e …" and records the bounds of
// the ranged outputs, and the constraints on the inputs alone as guards.
func (s *mapScanner) constraints(seg segment, vars map[string]int, ranged map[string]*bound, guards *[]Expr) error {
	for _, conj := range splitWord(seg, "and") {
		if len(splitWord(conj, "or")) > 1 || strings.Contains(conj.text, " or ") {
			return s.errAt(conj.col, "a disjunction ('or') inside brackets is not supported; write it at the top level of the constraints, or one piece per case joined with ';'")
		}
		operands, rels := splitRelations(conj)
		if len(rels) == 0 {
			return s.errAt(conj.col, "expected a comparison (<, <=, >, >=, =) in %q", strings.TrimSpace(conj.text))
		}
		for i, r := range rels {
			left, right := operands[i], operands[i+1]
			ln, rn := strings.TrimSpace(left.text), strings.TrimSpace(right.text)
			lb, rb := ranged[ln], ranged[rn]
			switch {
			case lb != nil && rb != nil:
				return s.errAt(left.col, "a constraint between two outputs (%s, %s) is not supported", ln, rn)
			case lb == nil && rb == nil:
				g, err := s.guard(left, right, r.op, vars)
				if err != nil {
					return err
				}
				*guards = append(*guards, g...)
				continue
			}
			// Orient as "name op e".
			name, other, op := ln, right, r.op
			if rb != nil {
				name, other, op = rn, left, map[string]string{"<": ">", "<=": ">=", ">": "<", ">=": "<=", "=": "="}[r.op]
			}
			e, err := s.expr(other, vars)
			if err != nil {
				return err
			}
			b := ranged[name]
			var lo, hi *Expr
			switch op {
			case "=":
				lo, hi = &e, &e
			case ">=":
				lo = &e
			case ">":
				v, err := e.Add(Const(1))
				if err != nil {
					return s.errAt(other.col, "%v", err)
				}
				lo = &v
			case "<=":
				hi = &e
			case "<":
				v, err := e.Add(Const(-1))
				if err != nil {
					return s.errAt(other.col, "%v", err)
				}
				hi = &v
			}
			if lo != nil {
				if b.lo != nil {
					return s.errAt(other.col, "output %q has two lower bounds", name)
				}
				b.lo, b.loCol = lo, other.col
			}
			if hi != nil {
				if b.hi != nil {
					return s.errAt(other.col, "output %q has two upper bounds", name)
				}
				b.hi = hi
			}
		}
	}
	return nil
}

// guard turns a constraint "left op right" on the inputs alone into the
// conditions g ≥ 0 it states.
func (s *mapScanner) guard(left, right segment, op string, vars map[string]int) ([]Expr, error) {
	l, err := s.expr(left, vars)
	if err != nil {
		return nil, err
	}
	r, err := s.expr(right, vars)
	if err != nil {
		return nil, err
	}
	var gs []Expr
	for _, c := range map[string][]struct {
		a, b *Expr
		k    int64
	}{">=": {{&l, &r, 0}}, ">": {{&l, &r, -1}}, "<=": {{&r, &l, 0}}, "<": {{&r, &l, -1}}, "=": {{&l, &r, 0}, {&r, &l, 0}}}[op] {
		g, err := c.a.Sub(*c.b)
		if err == nil {
			g, err = g.Add(Const(c.k))
		}
		if err != nil {
			return nil, s.errAt(left.col, "%v", err)
		}
		gs = append(gs, g)
	}
	return gs, nil
}

// splitWord splits a segment at a keyword that stands alone at bracket
// depth zero.
func splitWord(seg segment, word string) []segment {
	runes := []rune(seg.text)
	var out []segment
	start, depth := 0, 0
	for i := 0; i < len(runes); i++ {
		switch r := runes[i]; {
		case r == '(':
			depth++
		case r == ')':
			depth--
		case depth == 0 && strings.HasPrefix(string(runes[i:]), word) &&
			(i == 0 || !isIdentRune(runes[i-1])) &&
			(i+len(word) == len(runes) || !isIdentRune(runes[i+len(word)]) && !(runes[i+len(word)] >= '0' && runes[i+len(word)] <= '9')):
			out = append(out, trimmed(string(runes[start:i]), seg.col+start))
			start = i + len(word)
			i = start - 1
		}
	}
	return append(out, trimmed(string(runes[start:]), seg.col+start))
}

// splitRelations splits a chain "a < b <= c" into its operands and
// operators.
func splitRelations(seg segment) ([]segment, []relation) {
	runes := []rune(seg.text)
	var operands []segment
	var rels []relation
	start, depth := 0, 0
	for i := 0; i < len(runes); i++ {
		r := runes[i]
		switch {
		case r == '(':
			depth++
			continue
		case r == ')':
			depth--
			continue
		case depth != 0 || !strings.ContainsRune("<>=", r):
			continue
		}
		op := string(r)
		if i+1 < len(runes) && runes[i+1] == '=' && r != '=' {
			op += "="
		}
		operands = append(operands, trimmed(string(runes[start:i]), seg.col+start))
		rels = append(rels, relation{op, seg.col + i})
		i += len(op) - 1
		start = i + 1
	}
	return append(operands, trimmed(string(runes[start:]), seg.col+start)), rels
}

// isName reports whether s is an identifier.
func isName(s string) bool {
	if s == "" || !isIdentRune([]rune(s)[0]) {
		return false
	}
	for _, r := range s {
		if !isIdentRune(r) && !(r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}
