package serve

// The API handlers: each runs its endpoint's answer under the request's
// budget and answers with the command's JSON.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strconv"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/examples"
	"github.com/polyvol/polyvol/request"
)

// errorBody is the JSON of an error answer: a request's error as
// request.Describe tells it, with its message as Error. Kind is the kind
// of a request's error (request.Kind: input, work-bound, no-fit), left
// out for the server's own errors. File, Line and Column locate an error
// in the spec (1-based; the spec text of a request is the file
// "<stdin>"), and Error leaves that position out; Field names the spec
// field or the request key at fault.
type errorBody struct {
	Error  string `json:"error"`
	Kind   string `json:"kind,omitempty"`
	File   string `json:"file,omitempty"`
	Line   int    `json:"line,omitempty"`
	Column int    `json:"column,omitempty"`
	Field  string `json:"field,omitempty"`
}

// kindStatus is the HTTP status of each kind of a request's error; the
// kinds missing here (request.KindInternal) are the server's failures, 500.
var kindStatus = map[request.Kind]int{
	request.KindInput:     http.StatusBadRequest,
	request.KindWorkBound: http.StatusBadRequest,
	request.KindNoFit:     http.StatusBadRequest,
}

// errTimeout is the error of a request that ran past its time budget.
var errTimeout = errors.New("the request ran past the server's time budget; ask for less work (a smaller domain, fewer blocks, folds or sweep sizes)")

// errGone is the error of a request whose client closed its connection.
var errGone = errors.New("the client closed the connection before the answer")

// errorOf describes err for the client with its HTTP status: as a worker
// answered it (answeredError), 503 when the
// server is busy, the time budget ran out or the server shuts down, 408
// when the body did not arrive in time, else the status of err's kind
// (kindStatus: 400 for a request's error, 500 for the rest).
func errorOf(err error) (int, errorBody) {
	var answered *answeredError
	if errors.As(err, &answered) {
		return answered.status, answered.body
	}
	body := errorBody{Error: err.Error()}
	switch {
	case errors.Is(err, errBusy) || errors.Is(err, errQueueFull) || errors.Is(err, errTimeout) || errors.Is(err, errShutdown) || errors.Is(err, errGone):
		return http.StatusServiceUnavailable, body
	case errors.Is(err, os.ErrDeadlineExceeded): // the read timeout passed while the body was read
		return http.StatusRequestTimeout, body
	}
	status, ok := kindStatus[request.KindOf(err)]
	if !ok {
		return http.StatusInternalServerError, body
	}
	d := request.Describe(err)
	return status, errorBody{Error: d.Message, Kind: d.Kind, File: d.File, Line: d.Line, Column: d.Column, Field: d.Field}
}

// writeError answers with an error body.
func writeError(w http.ResponseWriter, status int, body errorBody) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false) // messages quote specs, whose text may hold < and >
	_ = enc.Encode(body)     // the client may be gone; nothing to do then
}

// fail answers with the error body and status of err (errorOf), and for a
// request that got no slot with a Retry-After header.
func fail(w http.ResponseWriter, err error) {
	var busy *busyError
	if errors.As(err, &busy) {
		w.Header().Set("Retry-After", strconv.Itoa(busy.retryAfter))
	}
	status, body := errorOf(err)
	writeError(w, status, body)
}

// writeJSON answers 200 with JSON bytes as they are.
func writeJSON(w http.ResponseWriter, data []byte) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(data) // the client may be gone; nothing to do then
}

// run runs work under ctx, holding the slots of claim c from before it
// starts until it ends. When ctx ends first, run returns its cause at once (errTimeout,
// errShutdown or errGone): work is cancelled through ctx and keeps its
// slots until it has returned, so that the server never starts more than
// it can run. A panic of work is its error.
func (s *Server) run(ctx context.Context, c claim, work func(context.Context) error) error {
	h, err := s.slots.acquire(ctx, c)
	if err != nil {
		return err
	}
	if ctx.Err() != nil { // the work would start only to stop
		h.release()
		return cause(ctx)
	}
	done := make(chan error, 1)
	s.commands.Add(1)
	go func() {
		defer s.commands.Add(-1)
		defer h.finish()
		defer func() {
			if p := recover(); p != nil {
				done <- fmt.Errorf("internal error: %v", p)
			}
		}()
		done <- work(ctx)
	}()
	select {
	case err := <-done:
		if ctx.Err() != nil { // the work may have failed because ctx ended
			return cause(ctx)
		}
		return err
	case <-ctx.Done():
		return cause(ctx)
	}
}

// cause returns why ctx, a request's budget, ended: errTimeout, errShutdown,
// or errGone when the client left.
func cause(ctx context.Context) error {
	err := context.Cause(ctx)
	if errors.Is(err, context.Canceled) {
		return errGone
	}
	return err
}

// budget returns a request's context under parent, the connection's,
// bounded by the time budget (cause errTimeout) and ended by a cut of
// Shutdown (cause errShutdown); it ends with cause context.Canceled when
// parent ends, as when the client closes the connection.
func (s *Server) budget(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, cancelTimeout := context.WithTimeoutCause(parent, s.cfg.RequestTimeout, errTimeout)
	ctx, cancel := context.WithCancelCause(ctx)
	stop := context.AfterFunc(s.cut, func() { cancel(errShutdown) })
	return ctx, func() {
		stop()
		cancel(nil)
		cancelTimeout()
	}
}

// handleAnswer answers ep's requests with its answer (answerRequest); the
// notes go into Polyvol-Note headers.
func (s *Server) handleAnswer(ep endpoint) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, notes, err := s.answerRequest(r, ep, nil)
		if err != nil {
			fail(w, request.OneLine(err))
			return
		}
		for _, n := range notes {
			w.Header().Add("Polyvol-Note", n)
		}
		writeJSON(w, body)
	}
}

// answerRequest reads r's values for ep and answers them (answerValues).
func (s *Server) answerRequest(r *http.Request, ep endpoint, progress func(done, total int)) ([]byte, []string, error) {
	values, err := readValues(r, ep)
	if err != nil {
		return nil, nil, err
	}
	return s.answerValues(r.Context(), ep, values, progress)
}

// answerValues runs ep's answer on a request's checked values under the
// request's budget (budget of parent), holding the slots of its claim
// (slotsOf) while it runs (run).
func (s *Server) answerValues(parent context.Context, ep endpoint, values map[string]string, progress func(done, total int)) ([]byte, []string, error) {
	ctx, cancel := s.budget(parent)
	defer cancel()
	var body []byte
	var notes []string
	err := s.run(ctx, s.slotsOf(ep), func(ctx context.Context) error {
		var err error
		body, notes, err = s.answer(ctx, ep.command, values, progress)
		return err
	})
	if err != nil { // the answer may still run, and write body and notes
		return nil, nil, err
	}
	return body, notes, nil
}

// slotsOf returns the claim of ep's answers: parallel for the endpoints
// that estimate in parallel, else single.
func (s *Server) slotsOf(ep endpoint) claim {
	if ep.parallel {
		return parallel
	}
	return single
}

// handleDevices answers with the JSON of polyvol devices --format json.
func (s *Server) handleDevices(w http.ResponseWriter, _ *http.Request) {
	var out bytes.Buffer
	if err := request.WriteDevicesJSON(&out, device.All()); err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, out.Bytes())
}

// example is one entry of /api/examples.
type example struct {
	Name string `json:"name"`
	Spec string `json:"spec"`
}

// handleExamples answers with the embedded examples' names and spec texts.
func (s *Server) handleExamples(w http.ResponseWriter, _ *http.Request) {
	var list []example
	for _, name := range examples.Names() {
		text, err := examples.Read(name)
		if err != nil {
			fail(w, err)
			return
		}
		list = append(list, example{Name: name, Spec: string(text)})
	}
	data, err := json.MarshalIndent(list, "", "  ")
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, append(data, '\n'))
}
