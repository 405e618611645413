package cli

import "github.com/polyvol/polyvol/printable"

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
