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
	bytes    int    // for a spill access (classLocal): the bytes one lane moves
	loop     string // the innermost loop's header block, "" outside loops
}

// body is a kernel's instructions in program order and its loops, as
// LLVM's comments mark them: a block is the header of a loop ("Loop
// Header: Depth=N", its parents as "Parent Loop BBi_j") or lies in one
// ("in Loop: Header=BBi_j"), and the comment of a block's label names the
// LLVM IR block it comes from ("%for.body"), where the IR names its
// blocks.
type body struct {
	instructions []instruction
	loops        map[string]*loopInfo // by header block
	names        map[string]string    // a labelled block's IR block
	block        string               // the current block's innermost loop
	pending      string               // the block of the last label, until its first instruction
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
	blockName  = regexp.MustCompile(`(BB[0-9_]+|bb\.[0-9]+):`)
	irBlock    = regexp.MustCompile(`^(?://|;)\s*%(\S+)$`)
	// A block that no branch targets has no label but a comment
	// "%bb.N:", followed by the comment of a label.
	unlabelled = regexp.MustCompile(`^(?://|;)\s*%bb\.([0-9]+):\s*(.*)$`)
)

// comment reads a line that is only a comment: the start of a block
// without a label, or a comment of the current block's label.
func (b *body) comment(comment string) {
	if m := unlabelled.FindStringSubmatch(comment); m != nil {
		b.label("bb."+m[1]+":", m[2])
		return
	}
	b.annotate(comment)
}

// label starts a block at a label line; comment is the line's comment.
func (b *body) label(line, comment string) {
	b.block = ""
	b.pending = ""
	if m := blockName.FindStringSubmatch(line); m != nil {
		b.pending = m[1]
		if n := irBlock.FindStringSubmatch(comment); n != nil {
			if b.names == nil {
				b.names = map[string]string{}
			}
			b.names[b.pending] = n[1]
		}
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
		b.loop(b.pending).depth = int(parseInt(m[1]))
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

// around calls f with the header of every loop around an instruction of
// loop header, innermost first (a cycle of parents, which clang never
// writes, ends the walk).
func (b *body) around(header string, f func(string)) {
	for seen := 0; header != "" && b.loops[header] != nil && seen <= len(b.loops); seen++ {
		f(header)
		header = b.loops[header].parent
	}
}

// add appends an instruction to the current block.
func (b *body) add(in instruction) {
	b.pending = ""
	in.loop = b.block
	b.instructions = append(b.instructions, in)
}

// count adds up the body's instructions by class and returns the loops
// that clang left, with their sizes and trip counts (trips: those of the
// kernel's function, by IR header block). An instruction counts once per
// iteration of every loop around it whose trip count is exact, and once
// per entry of a loop whose count is not.
func (b *body) count(trips map[string]TripCount) (Counts, []Loop) {
	var c Counts
	size := map[string]int{}
	for _, in := range b.instructions {
		weight := 1.0
		b.around(in.loop, func(h string) {
			size[h]++
			if n := trips[b.names[h]].Exact; n > 0 {
				weight *= float64(n)
			}
		})
		c.add(in.class, weight)
		if in.class == classLocal {
			c.LocalBytes += weight * float64(in.bytes)
		}
	}
	var loops []Loop
	for h, info := range b.loops {
		if info.depth > 0 {
			t := trips[b.names[h]]
			loops = append(loops, Loop{Depth: info.depth, Instructions: size[h], Header: b.names[h], TripCount: t.Exact, MaxTripCount: t.Max})
		}
	}
	slices.SortFunc(loops, func(x, y Loop) int {
		if x.Depth != y.Depth {
			return x.Depth - y.Depth
		}
		if x.Instructions != y.Instructions {
			return y.Instructions - x.Instructions
		}
		return strings.Compare(x.Header, y.Header)
	})
	return c, loops
}

// cutComment splits a trimmed line of assembly at its comment marker
// into the code, trimmed, and the comment.
func cutComment(line, marker string) (code, comment string) {
	line = strings.TrimSpace(line)
	if i := strings.Index(line, marker); i >= 0 {
		return strings.TrimSpace(line[:i]), line[i:]
	}
	return line, ""
}

// splitOperands splits an instruction's operands at their commas.
func splitOperands(rest string) []string {
	var operands []string
	for _, o := range strings.Split(rest, ",") {
		if o = strings.TrimSpace(o); o != "" {
			operands = append(operands, o)
		}
	}
	return operands
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
