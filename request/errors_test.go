package request

import (
	"errors"
	"fmt"
	"testing"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/footprint"
	"github.com/polyvol/polyvol/importer"
	"github.com/polyvol/polyvol/isl"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/model"
	"github.com/polyvol/polyvol/supervise"
)

// TestKindOf checks the kind of each typed failure, wrapped as the front
// ends wrap them, and that a bound or fit failure keeps its kind inside an
// input error.
func TestKindOf(t *testing.T) {
	wrap := func(err error) error { return fmt.Errorf("block 256,1,2: %w", err) }
	for _, c := range []struct {
		err  error
		want Kind
	}{
		{errors.New("disk full"), KindInternal},
		{&Error{Err: errors.New("--block 0,1,1: bad")}, KindInput},
		{&kernel.SpecError{File: "a.yaml", Line: 3, Col: 4, Msg: "bad"}, KindInput},
		{wrap(&kernel.SpecError{Msg: "bad"}), KindInput},
		{wrap(model.ErrNoAccessInWave), KindInput},
		{wrap(footprint.ErrWorkBound), KindWorkBound},
		{&Error{Err: wrap(footprint.ErrMemoryBound)}, KindWorkBound},
		{wrap(isl.ErrQuota), KindWorkBound},
		{&Error{Err: wrap(&device.NoFitError{Device: "A100", ThreadsPerBlock: 1024, Reason: "registers"})}, KindNoFit},
		{wrap(kernel.ErrTileTooLarge), KindNoFit},
		{&Error{Kind: KindNoFit, Err: errors.New("too large")}, KindNoFit},
		// A worker that read a map of a spec: the loader's error carries it.
		{&Error{Err: &kernel.SpecError{Msg: "bad", Err: wrap(&supervise.LimitError{Limit: "memory", Value: "256 MB"})}}, KindWorkBound},
		{&Error{Err: &kernel.SpecError{Msg: "bad", Err: wrap(&supervise.CrashError{Reason: "SIGFPE"})}}, KindInternal},
	} {
		if got := KindOf(c.err); got != c.want {
			t.Errorf("KindOf(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}

// TestFieldOf checks that the field is the outermost one named, and empty
// where no error names one.
func TestFieldOf(t *testing.T) {
	inner := &Error{Field: "block", Err: errors.New("--block 0,1,1: bad")}
	for _, c := range []struct {
		err  error
		want string
	}{
		{errors.New("plain"), ""},
		{inner, "block"},
		{&Error{Err: fmt.Errorf("wrapped: %w", inner)}, "block"},
		{&Error{Field: "fold", Err: inner}, "fold"},
		{&Error{Err: errors.New("no field")}, ""},
	} {
		if got := FieldOf(c.err); got != c.want {
			t.Errorf("FieldOf(%v) = %q, want %q", c.err, got, c.want)
		}
	}
}

// TestDescribe checks the position, field and message of each kind of
// file error, wrapped as the front ends wrap them: the message is the
// error's line without the position, which the description gives apart.
func TestDescribe(t *testing.T) {
	for _, c := range []struct {
		err  error
		want Description
	}{
		{fmt.Errorf("loading: %w", &kernel.SpecError{File: "a.yaml", Line: 3, Col: 4, Msg: `field "u" element = 3: bad`}),
			Description{Kind: "input", Message: `loading: field "u" element = 3: bad`, File: "a.yaml", Line: 3, Column: 4, Field: `field "u" element`}},
		{&kernel.SpecError{File: "a.yaml", Line: 2, Msg: "syntax error: bad"},
			Description{Kind: "input", Message: "syntax error: bad", File: "a.yaml", Line: 2}},
		{&Error{Field: "device-file", Err: fmt.Errorf("device file %w", &device.FieldError{File: "d.yaml", Line: 9, Key: "sms", Msg: "bad"})},
			Description{Kind: "input", Message: `device file key "sms": bad`, File: "d.yaml", Line: 9, Field: "sms"}},
		{&Error{Err: &importer.Error{File: "k.jscop", Line: 5, Col: 2, Where: "statement S", Msg: "bad"}},
			Description{Kind: "input", Message: "statement S: bad", File: "k.jscop", Line: 5, Column: 2}},
		{&Error{Field: "block", Err: errors.New("--block 0,1,1: bad")},
			Description{Kind: "input", Message: "--block 0,1,1: bad", Field: "block"}},
		{fmt.Errorf("block 1,1,1: %w", footprint.ErrWorkBound), Description{Kind: "work-bound", Message: "block 1,1,1: " + footprint.ErrWorkBound.Error()}},
		{errors.New("disk full"), Description{Kind: "internal", Message: "disk full"}},
	} {
		if got := Describe(c.err); got != c.want {
			t.Errorf("Describe(%v) = %+v; want %+v", c.err, got, c.want)
		}
	}
}
