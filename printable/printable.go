// Package printable checks that a name a user typed (a kernel, field or
// device name) is printable text: valid UTF-8 without control characters,
// which YAML and JSON escapes and command-line arguments can carry and
// which would otherwise vanish from, or garble, the lines polyvol prints.
package printable

import (
	"fmt"
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
