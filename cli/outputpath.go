package cli

import (
	"os"
	"path/filepath"

	ucli "github.com/urfave/cli/v2"
)

// checkOutputFlag checks, before a command computes anything, that the file
// the named flag of c gives (none when empty) can be written: it is not a
// directory and its directory exists. A long run then does not end in an
// error about its output path.
func checkOutputFlag(c *ucli.Context, flag string) error {
	path := c.String(flag)
	if path == "" {
		return nil
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return flagErrorf(flag, "--%s %s: is a directory; expected a file name", flag, path)
	}
	dir := filepath.Dir(path)
	if fi, err := os.Stat(dir); err != nil {
		return flagErrorf(flag, "--%s %s: %v", flag, path, err)
	} else if !fi.IsDir() {
		return flagErrorf(flag, "--%s %s: %s is not a directory", flag, path, dir)
	}
	return nil
}
