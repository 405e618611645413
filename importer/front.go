package importer

import (
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"
)

// NodePos returns the position of a node of a YAML or JSON input; the
// zero Pos (unknown) for nil.
func NodePos(n *yaml.Node) Pos {
	if n == nil {
		return Pos{}
	}
	return Pos{Line: n.Line, Col: n.Column}
}

// SpecName derives a spec's name from the name of the imported file: its
// base name without the extension, or fallback where the file has no name
// of its own (standard input "-", a pseudo name such as "<stdin>").
func SpecName(file, fallback string) string {
	base := strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	if base == "" || base == "." || base == "-" || strings.HasPrefix(base, "<") {
		return fallback
	}
	return base
}

// UnboundConstants returns the uses of constants that no -D of params
// binds, in the order of uses, after checking that every -D names one of
// the constants used (UnknownDefines; input names the input in its
// message, such as "the kernel code").
func UnboundConstants(file string, params map[string]int64, uses []Use, input string) ([]Use, error) {
	var known []string
	var unbound []Use
	for _, u := range uses {
		known = append(known, u.Name)
		if _, ok := params[u.Name]; !ok {
			unbound = append(unbound, u)
		}
	}
	if err := UnknownDefines(file, params, known, "constant", input); err != nil {
		return nil, err
	}
	return unbound, nil
}
