// Package request is the typed layer between polyvol's front ends (the
// command line, the HTTP server, and through the command line's JSON the
// Python package) and the packages that estimate. A front end
//
//   - loads the kernel and the device: LoadSpec (Spec.Load with a domain)
//     and FindDevice;
//   - turns the keys it received, named as the command line's flags and in
//     their string forms, into a typed request, starting from the
//     request's defaults: ParseLaunch (DefaultLaunch), Estimate.Options
//     (DefaultEstimate), Sweep.Apply (DefaultSweep, DefaultExplore),
//     LayercondKeys.Layercond (DefaultLayercondKeys), and DefaultSimulate;
//   - runs it: Predict.Run, Simulate.Run, Explore.Run, Layercond.Run;
//   - writes the answer as JSON (WriteJSON), or answers the error in its
//     own terms (an exit code, an HTTP status) without reading the
//     message: KindOf says what kind of failure it is, FieldOf which key
//     is at fault, and the message names the flag.
package request

import (
	"errors"
	"fmt"
	"strings"

	"github.com/polyvol/polyvol/compiled"
	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/footprint"
	"github.com/polyvol/polyvol/importer"
	"github.com/polyvol/polyvol/isl"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/model"
	"github.com/polyvol/polyvol/printable"
	"github.com/polyvol/polyvol/supervise"
)

// Kind is the kind of a failure of a request.
type Kind int

// The kinds of failures. KindInput is the zero value, so that an Error
// without a kind is the request's input at fault.
const (
	// KindInput: the request's input is at fault (a spec, a flag value, an
	// unknown device or example).
	KindInput Kind = iota
	// KindWorkBound: the configuration needs more work or memory than the
	// estimate's bounds allow.
	KindWorkBound
	// KindNoFit: the configuration does not fit on the device (no block
	// fits on an SM, or a staged tile is too large).
	KindNoFit
	// KindInternal: a failure of polyvol itself or of its environment.
	KindInternal
)

// String names the kind as the HTTP API's "kind" key does.
func (k Kind) String() string {
	switch k {
	case KindInput:
		return "input"
	case KindWorkBound:
		return "work-bound"
	case KindNoFit:
		return "no-fit"
	}
	return "internal"
}

// Error is an error that a request caused: its kind and, where one flag
// or request key is at fault, its name (without dashes). Its message is
// Err's, which names the flag itself.
type Error struct {
	Kind  Kind
	Field string
	Err   error
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// KindOf returns the kind of err: a worker process that crashed
// (*supervise.CrashError, KindInternal), and the bound or fit failure it
// wraps (footprint.ErrWorkBound, footprint.ErrMemoryBound, isl.ErrQuota, a
// worker's *supervise.LimitError; *device.NoFitError,
// kernel.ErrTileTooLarge) first, whichever error carries it, else the kind
// of the *Error it wraps, KindInput for a *kernel.SpecError or
// model.ErrNoAccessInWave, and KindInternal for the rest.
func KindOf(err error) Kind {
	switch {
	case errors.As(err, new(*supervise.CrashError)):
		return KindInternal
	case errors.Is(err, footprint.ErrWorkBound) || errors.Is(err, footprint.ErrMemoryBound) || errors.Is(err, isl.ErrQuota) || errors.As(err, new(*supervise.LimitError)):
		return KindWorkBound
	case errors.As(err, new(*device.NoFitError)) || errors.Is(err, kernel.ErrTileTooLarge):
		return KindNoFit
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	if errors.As(err, new(*kernel.SpecError)) || errors.Is(err, model.ErrNoAccessInWave) || errors.As(err, new(*compiled.CompileError)) {
		return KindInput
	}
	return KindInternal
}

// FieldOf returns the flag or request key at fault in err (the Field of
// the outermost *Error it wraps that names one), or "" when it names none.
func FieldOf(err error) string {
	var e *Error
	for errors.As(err, &e) {
		if e.Field != "" {
			return e.Field
		}
		err = e.Err
	}
	return ""
}

// MaxLine bounds the length of an error's line as the command line prints
// it, "polyvol: " included.
const MaxLine = 300

// Line is err's message as polyvol prints it after "polyvol: " and the
// HTTP API answers it: on one line (the lines of a multi-line error, such
// as errors.Join's, joined by "; "), and, when longer than MaxLine allows,
// cut after the last whole part or word that fits and marked "…"
// (printable.CutLine).
func Line(err error) string {
	return printable.CutLine(joinLines(err), MaxLine-len("polyvol: "))
}

// joinLines puts a multi-line error (errors.Join) on one line.
func joinLines(err error) string {
	return strings.ReplaceAll(err.Error(), "\n", "; ")
}

// OneLine returns err with the message Line(err); it unwraps to err, so
// that its kind and field stay.
func OneLine(err error) error { return lineError{err} }

// lineError is an error with the message Line gives it.
type lineError struct{ err error }

func (e lineError) Error() string { return Line(e.err) }
func (e lineError) Unwrap() error { return e.err }

// Description is an error as a front end tells it to a program: its kind
// (Kind.String), its message on one line (Line) without the position
// where the position is given apart, and the spec or device file, line
// and column (1-based) and the field at fault where known. The command
// line writes it with --format json, and the HTTP API's error body
// carries the same.
type Description struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	Column  int    `json:"column,omitempty"`
	Field   string `json:"field,omitempty"`
}

// Describe returns the description of err. The position and field come
// from the file error err wraps: a spec's (*kernel.SpecError, whose field
// is the one its message starts with), a device file's (*device.FieldError,
// its YAML key) or an import's (*importer.Error); else the field is the
// flag or request key at fault (FieldOf).
func Describe(err error) Description {
	d := Description{Kind: KindOf(err).String(), Message: Line(err), Field: FieldOf(err)}
	var se *kernel.SpecError
	var fe *device.FieldError
	var ie *importer.Error
	switch {
	case errors.As(err, &se):
		d.File, d.Line, d.Column, d.Field = se.File, se.Line, se.Col, specField(se.Msg)
	case errors.As(err, &fe):
		d.File, d.Line, d.Column = fe.File, fe.Line, fe.Col
		if fe.Key != "" {
			d.Field = fe.Key
		}
	case errors.As(err, &ie):
		d.File, d.Line, d.Column = ie.File, ie.Line, ie.Col
	}
	if d.Line != 0 { // the file error's text starts with its position
		position := fmt.Sprintf("%s:%d: ", d.File, d.Line)
		if d.Column != 0 {
			position = fmt.Sprintf("%s:%d:%d: ", d.File, d.Line, d.Column)
		}
		d.Message = strings.Replace(d.Message, position, "", 1)
	}
	return d
}

// specField returns the spec field a kernel.SpecError message starts with,
// e.g. `field "u" element` of `field "u" element = 3: expected ...`; empty
// for a syntax error, which names no field.
func specField(msg string) string {
	if strings.HasPrefix(msg, "syntax error") {
		return ""
	}
	field, _, ok := strings.Cut(msg, ": ")
	if !ok {
		return ""
	}
	field, _, _ = strings.Cut(field, " = ")
	return field
}
