// Command polyvol predicts the memory-hierarchy data volumes, L1 cycles and
// performance limiters of a GPU kernel from its address expressions and
// launch configuration, using integer sets (ISL) instead of running it.
package main

import (
	"os"

	"github.com/polyvol/polyvol/cli"
)

func main() {
	os.Exit(cli.Run(os.Args, os.Stdout, os.Stderr))
}
