package cli

import (
	"strings"
	"unicode/utf8"
)

// isFlagError reports whether err comes from urfave/cli's own argument
// parsing (unknown flag, missing value, unknown command), which is a user error.
func isFlagError(err error) bool {
	msg := err.Error()
	for _, p := range []string{"flag provided but not defined", "flag needs an argument", "invalid value", "No help topic", "Required flag"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

// maxErrorLine bounds the length of the error line Run prints, "polyvol: "
// included.
const maxErrorLine = 300

// errorLine is err's message as Run prints it after "polyvol: ": on one
// line (joinLines), and, when longer than maxErrorLine allows, cut after
// the last complete "; "-separated part that fits, marked "; …".
func errorLine(err error) string {
	msg := joinLines(err)
	room := maxErrorLine - len("polyvol: ")
	if len(msg) <= room {
		return msg
	}
	const more = "; …"
	if cut := strings.LastIndex(msg[:room-len(more)+1], "; "); cut > 0 {
		return msg[:cut] + more
	}
	// The first part alone is too long: cut it at a rune boundary.
	cut := room - len("…")
	for cut > 0 && !utf8.RuneStart(msg[cut]) {
		cut--
	}
	return msg[:cut] + "…"
}
