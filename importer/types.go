package importer

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// elementTypes maps the element types of Polly (LLVM IR types) and
// Kerncraft (C types) to their size in bytes and whether they are floating
// point.
var elementTypes = map[string]struct {
	bytes int64
	float bool
}{
	// LLVM IR
	"half": {2, true}, "bfloat": {2, true}, "float": {4, true}, "double": {8, true}, "fp128": {16, true},
	"i8": {1, false}, "i16": {2, false}, "i32": {4, false}, "i64": {8, false}, "i128": {16, false},
	"ptr": {8, false},
	// C
	"char": {1, false}, "signed char": {1, false}, "unsigned char": {1, false},
	"short": {2, false}, "unsigned short": {2, false},
	"int": {4, false}, "unsigned": {4, false}, "unsigned int": {4, false},
	"long": {8, false}, "unsigned long": {8, false}, "long long": {8, false}, "unsigned long long": {8, false},
	"int8_t": {1, false}, "uint8_t": {1, false}, "int16_t": {2, false}, "uint16_t": {2, false},
	"int32_t": {4, false}, "uint32_t": {4, false}, "int64_t": {8, false}, "uint64_t": {8, false},
	"size_t": {8, false}, "_Float16": {2, true},
	"float _Complex": {8, true}, "float complex": {8, true},
	"double _Complex": {16, true}, "double complex": {16, true},
}

// vectorType matches an LLVM vector type such as "<4 x float>".
var vectorType = regexp.MustCompile(`^<\s*(\d+)\s*x\s*([^>]+?)\s*>$`)

// ElementSize returns the bytes of one element of the given type, and its
// floating-point precision in bytes (0 for integer types; a vector or
// complex type counts by its component).
func ElementSize(typ string) (bytes int64, fpBytes int, err error) {
	t := strings.Join(strings.Fields(typ), " ")
	if e, ok := elementTypes[t]; ok {
		if e.float {
			fp := int(e.bytes)
			if strings.Contains(t, "complex") || strings.Contains(t, "_Complex") {
				fp /= 2
			}
			return e.bytes, fp, nil
		}
		return e.bytes, 0, nil
	}
	if strings.HasSuffix(t, "*") { // a pointer, as older LLVM prints it ("i32*")
		return 8, 0, nil
	}
	if m := vectorType.FindStringSubmatch(t); m != nil {
		n, err := strconv.Atoi(m[1])
		b, fp, err2 := ElementSize(m[2])
		if total := b * int64(n); err == nil && err2 == nil && n > 0 && n <= 16 && total <= 16 && total&(total-1) == 0 {
			return total, fp, nil
		}
	}
	return 0, 0, fmt.Errorf("unknown element type %q; expected double, float, half, i8, i16, i32, i64 (Polly) or a C type such as double, float, int, long", typ)
}
