package request

import (
	"errors"
	"fmt"
	"testing"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/footprint"
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
