// Package printable checks that a name a user typed (a kernel, field or
// device name) is printable text: valid UTF-8 without control characters,
// which YAML and JSON escapes and command-line arguments can carry and
// which would otherwise vanish from, or garble, the lines polyvol prints;
// and it cuts a line that is too long to print (CutLine).
package printable

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Check returns an error giving the byte offset of the first character of s
// that is not printable text: invalid UTF-8, or a control character (below
// U+0020, U+007F to U+009F).
func Check(s string) error {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			return fmt.Errorf("invalid UTF-8 at byte offset %d", i)
		case unicode.IsControl(r):
			return fmt.Errorf("control character %U at byte offset %d", r, i)
		}
		i += size
	}
	return nil
}

// Ellipsis marks the end of a line that CutLine shortened.
const Ellipsis = "…"

// CutLine returns s when it has at most limit bytes, and otherwise its
// longest beginning that ends with a separator ("; ", ": ", ", " or a
// space), followed by Ellipsis, in at most limit bytes: a message is cut
// after a whole part or word, never inside one. Only when the first word
// alone is too long is it cut inside, at a character boundary.
func CutLine(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	room := limit - len(Ellipsis)
	if room <= 0 {
		return ""
	}
	// Every separator ends with a space, so the part before the last space
	// that fits is whole; keeping that space keeps the separator.
	if cut := strings.LastIndexByte(s[:room], ' '); cut > 0 {
		return s[:cut+1] + Ellipsis
	}
	cut := room
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + Ellipsis
}
