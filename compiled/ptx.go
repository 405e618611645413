package compiled

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// An instruction of a kernel's body: its opcode, operands and class.
type instruction struct {
	op       string   // the opcode with its modifiers, e.g. "ld.global.nc.f32"
	operands []string // as written, without the trailing ';'
	class    instructionClass
	loop     string // the innermost loop's header block, "" outside loops
}

// body is a kernel's instructions in program order and its loops, as
// clang's comments mark them: a block is the header of a loop ("Loop
// Header: Depth=N", its parents as "Parent Loop BBi_j") or lies in one
// ("in Loop: Header=BBi_j").
type body struct {
	instructions []instruction
	loops        map[string]*loopInfo // by header block
	block        string               // the current block's innermost loop
	pending      string               // the comment lines of the last label
}

// loopInfo is one loop of a body: its depth and its parent loop's header.
type loopInfo struct {
	depth  int
	parent string
}

var (
	loopHeader = regexp.MustCompile(`Loop Header: Depth=([0-9]+)`)
	loopParent = regexp.MustCompile(`Parent Loop (BB[0-9_]+)`)
	loopMember = regexp.MustCompile(`in Loop: Header=(BB[0-9_]+)`)
	blockName  = regexp.MustCompile(`(BB[0-9_]+):`)
)

// label starts a block at a label line; comment is the line's comment.
func (b *body) label(line, comment string) {
	b.block = ""
	b.pending = ""
	if m := blockName.FindStringSubmatch(line); m != nil {
		b.pending = m[1]
	}
	b.annotate(comment)
}

// annotate reads a comment of the current block's label: its loop.
func (b *body) annotate(comment string) {
	if b.pending == "" {
		return
	}
	if m := loopMember.FindStringSubmatch(comment); m != nil {
		b.block = m[1]
	}
	if m := loopParent.FindStringSubmatch(comment); m != nil {
		b.block = m[1] // until its own header line, if it is one
		b.loop(b.pending).parent = m[1]
	}
	if m := loopHeader.FindStringSubmatch(comment); m != nil {
		info := b.loop(b.pending)
		info.depth = int(parseInt(m[1]))
		b.block = b.pending
	}
}

// loop returns the loop headed by block, made on first use.
func (b *body) loop(header string) *loopInfo {
	if b.loops == nil {
		b.loops = map[string]*loopInfo{}
	}
	if b.loops[header] == nil {
		b.loops[header] = &loopInfo{}
	}
	return b.loops[header]
}

// add appends an instruction to the current block.
func (b *body) add(in instruction) {
	b.pending = ""
	in.loop = b.block
	b.instructions = append(b.instructions, in)
}

// count adds up the body's instructions by class and returns the loops
// that clang left, with their sizes; every instruction counts once: the
// loops' trip counts are not read.
func (b *body) count() (Counts, []Loop) {
	var c Counts
	size := map[string]int{}
	for _, in := range b.instructions {
		c.add(in.class, 1)
		for h, seen := in.loop, 0; h != "" && b.loops[h] != nil && seen <= len(b.loops); h, seen = b.loops[h].parent, seen+1 {
			size[h]++
		}
	}
	var loops []Loop
	for h, info := range b.loops {
		if info.depth > 0 {
			loops = append(loops, Loop{Depth: info.depth, Instructions: size[h]})
		}
	}
	slices.SortFunc(loops, func(x, y Loop) int {
		if x.Depth != y.Depth {
			return x.Depth - y.Depth
		}
		return y.Instructions - x.Instructions
	})
	return c, loops
}

var (
	ptxEntry    = regexp.MustCompile(`^\.(?:visible|weak)?\s*\.entry\s+([A-Za-z_$][\w$]*)\s*\(`)
	ptxLabel    = regexp.MustCompile(`^(\$?[A-Za-z_][\w$]*):`)
	ptxRegister = regexp.MustCompile(`%(rd|fd|rs|r|f|h|p)[0-9]+`)
	ptxLocal    = regexp.MustCompile(`\.local\s+\.align\s+[0-9]+\s+\.b8\s+[\w$]+\[([0-9]+)\]`)
)

// ParsePTX reads the kernel entry of PTX text (an entry's symbol, or its
// name as written in the source, which matches the mangled symbol) into
// Code. An empty entry takes the text's only kernel.
func ParsePTX(ptx, entry string) (*Code, error) {
	lines := strings.Split(ptx, "\n")
	start, symbol, err := findEntry(lines, entry, func(line string) string {
		if m := ptxEntry.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
			return m[1]
		}
		return ""
	})
	if err != nil {
		return nil, err
	}
	b := &body{}
	var spill int64
	depth := 0
	for _, line := range lines[start:] {
		line = strings.TrimSpace(line)
		comment := ""
		if i := strings.Index(line, "//"); i >= 0 {
			line, comment = strings.TrimSpace(line[:i]), line[i:]
		}
		switch {
		case line == "":
			b.annotate(comment)
			continue
		case line == "{":
			depth++
			continue
		case line == "}":
			depth--
			if depth == 0 {
				return finishPTX(b, symbol, spill), nil
			}
			continue
		}
		if depth == 0 {
			continue // the entry's parameters and directives
		}
		if ptxLabel.MatchString(line) {
			b.label(line, comment)
			continue
		}
		if m := ptxLocal.FindStringSubmatch(line); m != nil {
			var n int64
			fmt.Sscan(m[1], &n)
			spill += n
		}
		if strings.HasPrefix(line, ".") {
			continue // register and shared declarations
		}
		b.add(parsePTXInstruction(line))
	}
	return nil, fmt.Errorf("PTX entry %s: no closing brace", symbol)
}

// finishPTX counts the parsed body of symbol into Code.
func finishPTX(b *body, symbol string, spill int64) *Code {
	counts, loops := b.count()
	return &Code{Format: FormatPTX, Entry: symbol, Counts: counts, Loops: loops,
		Registers: ptxLiveRegisters(b), RegistersEstimated: true, SpillBytes: spill}
}

// parsePTXInstruction splits one PTX statement into its opcode and
// operands, after its guard predicate, and classifies it.
func parsePTXInstruction(line string) instruction {
	line = strings.TrimSuffix(line, ";")
	if strings.HasPrefix(line, "@") {
		if i := strings.IndexAny(line, " \t"); i > 0 {
			line = strings.TrimSpace(line[i:])
		}
	}
	op, rest, _ := strings.Cut(line, "\t")
	if strings.Contains(op, " ") {
		op, rest, _ = strings.Cut(line, " ")
	}
	var operands []string
	for _, o := range strings.Split(rest, ",") {
		if o = strings.TrimSpace(o); o != "" {
			operands = append(operands, o)
		}
	}
	return instruction{op: op, operands: operands, class: classifyPTX(op, operands)}
}

// classifyPTX returns the class of a PTX instruction. Parameter loads and
// address-space conversions issue nothing: ptxas folds kernel parameters
// into constant-bank operands and generic-to-global conversions into the
// addressing of the loads and stores.
func classifyPTX(op string, operands []string) instructionClass {
	parts := strings.Split(op, ".")
	name := parts[0]
	has := func(mod string) bool {
		for _, p := range parts[1:] {
			if p == mod {
				return true
			}
		}
		return false
	}
	switch name {
	case "ld", "ldu", "st", "red", "atom", "prefetch":
		store := name != "ld" && name != "ldu" && name != "prefetch"
		switch {
		case has("param"):
			return classNone
		case has("shared"):
			return classShared
		case has("const"):
			return classConstant
		case has("local"):
			return classLocal
		case store:
			return classGlobalStore
		}
		return classGlobalLoad
	case "cvta", "ret", "exit":
		return classNone
	case "bar", "barrier":
		return classBarrier
	case "bra", "brx", "call":
		return classBranch
	case "setp":
		return classCompare
	case "mov":
		if len(operands) == 2 && strings.HasPrefix(operands[1], "%") && !ptxRegister.MatchString(operands[1]) {
			return classOther // a special register: %tid, %ctaid, %ntid, %clock
		}
	}
	switch {
	case has("f64"):
		return classFP64
	case has("f32") || has("f16") || has("f16x2") || has("bf16"):
		if name == "cvt" || name == "mov" {
			return classInteger
		}
		return classFP32
	}
	return classInteger
}

// ptxLiveRegisters estimates the 32-bit registers the code needs: the
// largest number of virtual registers live at once in the order clang
// emits the code, each from its first to its last mention, and kept live
// through every loop that mentions it, whose back edge it may cross.
// 64-bit registers count two, predicates none. ptxas schedules and
// allocates anew, usually for fewer: the estimate is an upper bound.
func ptxLiveRegisters(b *body) int {
	first, last := map[string]int{}, map[string]int{}
	loopSpan := map[string][2]int{} // a loop's first and last instruction
	for i, in := range b.instructions {
		for h, seen := in.loop, 0; h != "" && b.loops[h] != nil && seen <= len(b.loops); h, seen = b.loops[h].parent, seen+1 {
			span, ok := loopSpan[h]
			if !ok {
				span[0] = i
			}
			span[1] = i
			loopSpan[h] = span
		}
		for _, o := range in.operands {
			for _, r := range ptxRegister.FindAllString(o, -1) {
				if _, ok := first[r]; !ok {
					first[r] = i
				}
				last[r] = i
			}
		}
	}
	for r, f := range first {
		for _, span := range loopSpan {
			if f <= span[1] && last[r] >= span[0] {
				first[r], last[r] = min(f, span[0]), max(last[r], span[1])
			}
		}
	}
	delta := make([]int, len(b.instructions)+1)
	for r, f := range first {
		w := 1
		switch {
		case strings.HasPrefix(r, "%rd"), strings.HasPrefix(r, "%fd"):
			w = 2
		case strings.HasPrefix(r, "%p"):
			w = 0
		}
		delta[f] += w
		delta[last[r]+1] -= w
	}
	live, most := 0, 0
	for _, d := range delta {
		live += d
		most = max(most, live)
	}
	return most
}

// findEntry returns the index of the line that declares the kernel entry
// (symbolOf returns a line's kernel symbol, "" for other lines) and its
// symbol: the symbol equal to entry or mangled from it (_Z<len><entry>),
// or the only kernel where entry is empty.
func findEntry(lines []string, entry string, symbolOf func(string) string) (int, string, error) {
	var symbols []string
	var at []int
	for i, line := range lines {
		if s := symbolOf(line); s != "" {
			symbols = append(symbols, s)
			at = append(at, i)
		}
	}
	if len(symbols) == 0 {
		return 0, "", fmt.Errorf("the compiled code has no kernel (__global__ function)")
	}
	if entry == "" {
		if len(symbols) == 1 {
			return at[0], symbols[0], nil
		}
		return 0, "", fmt.Errorf("the compiled code has %d kernels (%s): name the one to count", len(symbols), strings.Join(symbols, ", "))
	}
	mangled := fmt.Sprintf("_Z%d%s", len(entry), entry)
	for i, s := range symbols {
		if s == entry || strings.HasPrefix(s, mangled) {
			return at[i], s, nil
		}
	}
	return 0, "", fmt.Errorf("no kernel %q in the compiled code (kernels: %s)", entry, strings.Join(symbols, ", "))
}
