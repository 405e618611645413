package cli

import "strings"

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
