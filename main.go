// Command polyvol predicts the memory-hierarchy data volumes, L1 cycles and
// performance limiters of a GPU kernel from its address expressions and
// launch configuration, using integer sets (ISL) instead of running it.
// It runs the command line in a child process of its own (package
// supervise), so that a crash anywhere, C code included, ends in one line
// "polyvol: internal error: …" and exit status 1.
package main

import (
	"os"

	"github.com/polyvol/polyvol/cli"
	"github.com/polyvol/polyvol/supervise"
)

func main() {
	os.Exit(supervise.Main("polyvol: ", func() int { return cli.Run(os.Args, os.Stdout, os.Stderr) }))
}
