package cli

import (
	"strings"

	"github.com/polyvol/polyvol/printable"
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
// the last whole part or word that fits and marked "…"
// (printable.CutLine).
func errorLine(err error) string {
	return printable.CutLine(joinLines(err), maxErrorLine-len("polyvol: "))
}
