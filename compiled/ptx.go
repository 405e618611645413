package compiled

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

var (
	ptxEntry    = regexp.MustCompile(`^\.(?:visible|weak)?\s*\.entry\s+([A-Za-z_$][\w$]*)\s*\(`)
	ptxLabel    = regexp.MustCompile(`^(\$?[A-Za-z_][\w$]*):`)
	ptxRegister = regexp.MustCompile(`%(rd|fd|rs|r|f|h|p)[0-9]+`)
	ptxLocal    = regexp.MustCompile(`\.local\s+\.align\s+[0-9]+\s+\.b8\s+[\w$]+\[([0-9]+)\]`)
)

// ParsePTX reads the kernel entry of PTX text (an entry's symbol, or its
// name as written in the source, which matches the mangled symbol) into
// Code, with the trip counts of its loops from trips (nil: none known).
// An empty entry takes the text's only kernel.
func ParsePTX(ptx, entry string, trips TripCounts) (*Code, error) {
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
		line, comment := cutComment(line, "//")
		switch {
		case line == "":
			b.comment(comment)
			continue
		case line == "{":
			depth++
			continue
		case line == "}":
			depth--
			if depth == 0 {
				return finishPTX(b, symbol, spill, trips[symbol]), nil
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
			spill += parseInt(m[1])
		}
		if strings.HasPrefix(line, ".") {
			continue // register and shared declarations
		}
		b.add(parsePTXInstruction(line))
	}
	return nil, fmt.Errorf("PTX entry %s: no closing brace", symbol)
}

// finishPTX counts the parsed body of symbol, whose loops have the trip
// counts trips, into Code.
func finishPTX(b *body, symbol string, spill int64, trips map[string]TripCount) *Code {
	counts, loops := b.count(trips)
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
	operands := splitOperands(rest)
	in := instruction{op: op, operands: operands, class: classifyPTX(op, operands)}
	if in.class == classLocal {
		in.bytes = ptxAccessBytes(op)
	}
	return in
}

// ptxAccessBytes returns the bytes one lane moves with a PTX load or
// store: its type's size times its vector width (.v2, .v4).
func ptxAccessBytes(op string) int {
	size, lanes := 0, 1
	for _, mod := range strings.Split(op, ".")[1:] {
		switch {
		case mod == "v2":
			lanes = 2
		case mod == "v4":
			lanes = 4
		case len(mod) >= 2 && strings.ContainsRune("bfsu", rune(mod[0])):
			if bits, err := strconv.Atoi(mod[1:]); err == nil && bits >= 8 {
				size = bits / 8
			}
		}
	}
	return size * lanes
}

// classifyPTX returns the class of a PTX instruction. Parameter loads and
// address-space conversions issue nothing: ptxas folds kernel parameters
// into constant-bank operands and generic-to-global conversions into the
// addressing of the loads and stores.
func classifyPTX(op string, operands []string) instructionClass {
	parts := strings.Split(op, ".")
	name := parts[0]
	has := func(mod string) bool { return slices.Contains(parts[1:], mod) }
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
		b.around(in.loop, func(h string) {
			span, ok := loopSpan[h]
			if !ok {
				span[0] = i
			}
			span[1] = i
			loopSpan[h] = span
		})
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
