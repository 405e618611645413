// Package yamldoc decodes a YAML or JSON text that must hold exactly one
// document: a second document ("---") or text after a JSON value is an
// error instead of being silently ignored. Spec files and device files are
// read with it.
package yamldoc

import (
	"bytes"
	"fmt"
	"io"

	"go.yaml.in/yaml/v3"
)

// One decodes data as exactly one YAML document; what names the document
// in the error about a second one, e.g. "a spec". An error that has a line
// reads "yaml: line N: ...", like the YAML parser's own.
func One(data []byte, what string) (yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc, extra yaml.Node
	if err := dec.Decode(&doc); err != nil && err != io.EOF {
		return doc, err
	}
	switch err := dec.Decode(&extra); {
	case err == io.EOF:
		return doc, nil
	case err != nil:
		return doc, err
	}
	if extra.Line > 0 {
		return doc, fmt.Errorf("yaml: line %d: %s is one YAML or JSON document, but another starts here", extra.Line, what)
	}
	return doc, fmt.Errorf("yaml: %s is one YAML or JSON document, but more text follows it", what)
}
