// Package yamldoc decodes a YAML or JSON text that must hold exactly one
// document: a second document ("---") or text after a JSON value is an
// error instead of being silently ignored. Spec files and device files are
// read with it. Its syntax errors are *SyntaxError values with the line and
// column of the problem.
package yamldoc

import (
	"bytes"
	"fmt"
	"io"
	"reflect"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// SyntaxError is a YAML syntax error located in the text.
//
// The position is where the YAML parser found the problem (its problem
// mark): for a scanner error the character it could not scan, for a parser
// error the first character of the token it could not use, which is the
// end of the text for a construct left open (a missing ']'), and for a
// character the reader refuses (invalid UTF-8, control characters) that
// character. Lines and columns count from 1; a column counts characters,
// as yaml.Node.Column does, so that a tab is one column. yaml.v3's own
// message names only a line, and for many parser errors the line before
// the construct the problem is in; Msg names that construct and where it
// starts instead.
type SyntaxError struct {
	Line, Column int    // 0 when the parser gives no position
	Msg          string // the parser's problem, and the construct it was in
}

// Error formats the error as "yaml: line L, column C: message", leaving
// out the position when there is none.
func (e *SyntaxError) Error() string {
	if e.Line == 0 {
		return "yaml: " + e.Msg
	}
	return fmt.Sprintf("yaml: line %d, column %d: %s", e.Line, e.Column, e.Msg)
}

// One decodes data as exactly one YAML document; what names the document
// in the error about a second one, e.g. "a spec". A syntax error, and a
// second document, is a *SyntaxError; other errors are the parser's.
func One(data []byte, what string) (yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc, extra yaml.Node
	if err := decode(dec, data, &doc); err != nil && err != io.EOF {
		return doc, err
	}
	switch err := decode(dec, data, &extra); {
	case err == io.EOF:
		return doc, nil
	case err != nil:
		return doc, err
	}
	msg := fmt.Sprintf("%s is one YAML or JSON document, but another starts here", what)
	if extra.Line == 0 {
		msg = fmt.Sprintf("%s is one YAML or JSON document, but more text follows it", what)
	}
	return doc, &SyntaxError{Line: extra.Line, Column: extra.Column, Msg: msg}
}

// First decodes the first YAML document of data, like yaml.Unmarshal: the
// text after it is not read. Empty text gives an empty node. A syntax
// error is a *SyntaxError; other errors are the parser's.
func First(data []byte) (yaml.Node, error) {
	var doc yaml.Node
	err := decode(yaml.NewDecoder(bytes.NewReader(data)), data, &doc)
	if err == io.EOF {
		err = nil
	}
	return doc, err
}

// decode is dec.Decode(v) with the syntax errors of dec's parser, which
// read data, turned into *SyntaxError.
func decode(dec *yaml.Decoder, data []byte, v any) error {
	err := dec.Decode(v)
	if err == nil || err == io.EOF {
		return err
	}
	if se := syntaxError(dec, data); se != nil {
		return se
	}
	return err
}

// The kinds of error of the YAML parser (yaml_error_type_t) that are
// syntax errors.
const (
	readerError  = 2
	scannerError = 3
	parserError  = 4
)

// syntaxError reads the error state that the parser of dec keeps after a
// failed Decode: its kind, problem and problem mark, and the context the
// problem was in and where that starts. yaml.v3 exports none of these, so
// they are read by reflection; it returns nil when dec's parser holds no
// syntax error, or when the decoder is not laid out as this expects (in
// which case the caller keeps yaml.v3's own error, which has no column).
func syntaxError(dec *yaml.Decoder, data []byte) *SyntaxError {
	p := reflect.ValueOf(dec).Elem().FieldByName("parser")
	if !p.IsValid() || p.Kind() != reflect.Pointer || p.IsNil() {
		return nil
	}
	p = p.Elem()
	if p.Kind() != reflect.Struct {
		return nil
	}
	if p = p.FieldByName("parser"); !p.IsValid() || p.Kind() != reflect.Struct {
		return nil
	}
	kind, ok1 := intField(p, "error")
	problem, ok2 := stringField(p, "problem")
	context, ok3 := stringField(p, "context")
	if !ok1 || !ok2 || !ok3 || problem == "" {
		return nil
	}
	switch kind {
	case readerError:
		off, ok := intField(p, "problem_offset")
		if !ok || off < 0 || int(off) > len(data) {
			return nil
		}
		line, col := position(data, int(off))
		return &SyntaxError{Line: line, Column: col, Msg: problem}
	case scannerError, parserError:
		line, col, ok := mark(p, "problem_mark")
		if !ok {
			return nil
		}
		se := &SyntaxError{Line: line, Column: col, Msg: problem}
		if cl, cc, ok := mark(p, "context_mark"); ok && context != "" {
			if cl == line && cc == col {
				se.Msg += " " + context
			} else {
				se.Msg += fmt.Sprintf(" %s that starts at line %d, column %d", context, cl, cc)
			}
		}
		return se
	}
	return nil
}

// mark returns the 1-based line and column of the yaml_mark_t field name
// of the parser state p, whose fields count from 0.
func mark(p reflect.Value, name string) (line, col int, ok bool) {
	m := p.FieldByName(name)
	if !m.IsValid() || m.Kind() != reflect.Struct {
		return 0, 0, false
	}
	l, ok1 := intField(m, "line")
	c, ok2 := intField(m, "column")
	if !ok1 || !ok2 || l < 0 || c < 0 {
		return 0, 0, false
	}
	return int(l) + 1, int(c) + 1, true
}

// intField returns the integer field name of the struct v.
func intField(v reflect.Value, name string) (int64, bool) {
	f := v.FieldByName(name)
	if !f.IsValid() || !f.CanInt() {
		return 0, false
	}
	return f.Int(), true
}

// stringField returns the string field name of the struct v.
func stringField(v reflect.Value, name string) (string, bool) {
	f := v.FieldByName(name)
	if !f.IsValid() || f.Kind() != reflect.String {
		return "", false
	}
	return f.String(), true
}

// position returns the 1-based line and column, in characters, of byte
// offset off of data.
func position(data []byte, off int) (line, col int) {
	before := data[:off]
	start := bytes.LastIndexByte(before, '\n') + 1
	return 1 + bytes.Count(before, []byte("\n")), 1 + utf8.RuneCount(before[start:])
}
