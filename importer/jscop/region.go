package jscop

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/polyvol/polyvol/importer"
)

// ImportRegion reads the JSCoP data of file and imports every statement of
// its region, in the file's order, as one spec each (--statement all):
// the statements of a region run one after another, so the region is that
// sequence of kernels. A statement with no loop or without an array in
// memory is skipped with its reason (importer.SkipReason); any other
// statement that cannot be imported is an error, which names it. Each
// spec is named after the file and the statement ("name.Stmt_body"), or
// after opt.Name and the statement. opt.Statement is ignored. A region of
// more statements than opt allows (Options.MaxStatements) is refused
// before any is read, with an error wrapping importer.ErrTooManyStatements.
func ImportRegion(data []byte, file string, opt importer.Options) (*importer.Region, error) {
	r := &reader{file: file, opt: opt}
	root, err := r.document(data)
	if err != nil {
		return nil, err
	}
	h, err := r.header(root)
	if err != nil {
		return nil, err
	}
	items, err := r.list(h.statements, "statements", "statements")
	if err != nil {
		return nil, err
	}
	if len(items) == 0 {
		return nil, r.errf(h.statements, "statements", "no statements")
	}
	if limit := opt.MaxStatementsOrDefault(); len(items) > limit {
		e := r.errf(h.statements, "statements", "%d statements, more than the %d that --max-statements allows; raise --max-statements, or import one with --statement NAME", len(items), limit)
		e.Err = importer.ErrTooManyStatements
		return nil, e
	}
	reg := &importer.Region{File: file, Name: h.region, Notes: h.base.Notes}
	seen := map[string]bool{}
	for i, it := range items {
		name, err := r.statementName(i, it)
		if err != nil {
			return nil, err
		}
		if seen[name] {
			return nil, r.errf(it, fmt.Sprintf("statement %q", name), "named twice in the region")
		}
		seen[name] = true
		s, err := r.statementScop(h, it, nil)
		if err != nil {
			return nil, err
		}
		if why := importer.SkipReason(s); why != "" {
			reg.Statements = append(reg.Statements, importer.RegionStatement{Name: name, Skip: why})
			continue
		}
		one := opt
		one.Statement = name
		one.Name = s.Name + "." + name
		if opt.Name != "" {
			one.Name = opt.Name + "." + name
		}
		res, err := importer.Build(s, one)
		if err != nil {
			return nil, err
		}
		reg.Statements = append(reg.Statements, importer.RegionStatement{Name: name, Result: res})
	}
	return reg, nil
}

// document checks the size and the JSON syntax of a JSCoP and returns its
// root node.
func (r *reader) document(data []byte) (*yaml.Node, error) {
	file := r.file
	if len(data) > MaxBytes {
		return nil, importer.Errorf(file, importer.Pos{}, "", "larger than %d MiB; a JSCoP is a small JSON text", MaxBytes>>20)
	}
	var any any
	if err := json.Unmarshal(data, &any); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line, col := lineCol(data, se.Offset)
			return nil, importer.Errorf(file, importer.Pos{Line: line, Col: col}, "", "JSON syntax error: %v", err)
		}
		return nil, importer.Errorf(file, importer.Pos{}, "", "JSON syntax error: %v", err)
	}
	// JSON is YAML, and YAML nodes carry line numbers for the messages;
	// JSON strings hold no raw tabs, so replacing tabs keeps the text.
	var doc yaml.Node
	if err := yaml.Unmarshal(bytes.ReplaceAll(data, []byte("\t"), []byte(" ")), &doc); err != nil || doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil, importer.Errorf(file, importer.Pos{}, "", "cannot read the JSON document")
	}
	return doc.Content[0], nil
}
