// Package examples embeds the example kernel specs of this folder, so that
// the command-line tool can run them by name without any file on disk.
package examples

import (
	"embed"
	"io/fs"
	"sort"
	"strings"
)

// FS holds the example specs, one YAML file per kernel, named NAME.yaml.
//
//go:embed *.yaml
var FS embed.FS

// Sources holds example CUDA kernels written the way Kernel Tuner tunes
// them, under sources/, for polyvol's --source.
//
//go:embed sources/*.cu
var Sources embed.FS

// Names returns the names of the embedded examples (file names without
// ".yaml"), sorted.
func Names() []string {
	entries, _ := fs.ReadDir(FS, ".") // the embedded root always exists
	var names []string
	for _, e := range entries {
		if n, ok := strings.CutSuffix(e.Name(), ".yaml"); ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// Read returns the spec of the example with the given name (with or without
// the ".yaml" suffix).
func Read(name string) ([]byte, error) {
	return FS.ReadFile(strings.TrimSuffix(name, ".yaml") + ".yaml")
}
