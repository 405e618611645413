package serve

// JSON lines: one long-lived process answers many requests, each a line of
// its input, each answer a line of its output, for a client that would
// otherwise start polyvol once per prediction (polyvol serve --stdio).

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/polyvol/polyvol/request"
)

// Keys of a request line besides its endpoint's keys.
const (
	keyID       = "id"       // echoed in the answer as given
	keyEndpoint = "endpoint" // the endpoint: predict, simulate, layercond or explore
)

// lineEndpoints are the endpoints a request line may name.
var lineEndpoints = []endpoint{predictEndpoint, simulateEndpoint, layercondEndpoint, exploreEndpoint}

// lineAnswer is the JSON of one answer line: the request's id, and either
// the command's JSON (Body) with its notes, or the error (the HTTP API's
// error body) with the HTTP status the API would answer.
type lineAnswer struct {
	ID     json.RawMessage `json:"id"`
	Body   json.RawMessage `json:"body,omitempty"`
	Notes  []string        `json:"notes,omitempty"`
	Status int             `json:"status,omitempty"`
	*errorBody
}

// ServeLines answers the request lines of in on out until in ends or ctx
// does. Each line of in is one JSON object: the body of a request to the
// HTTP API (the same keys, decoded and checked by the same code), plus
// "endpoint" (predict, simulate, layercond or explore) and an optional "id"
// (a string or number). Each answer is one line of out, in the order the
// answers finish: {"id": …, "body": the endpoint's JSON, "notes": […]}, or
// {"id": …, "status": …, "error": …, "kind": …, …} with the API's error
// body. A bad line is answered with an error and the next one read; blank
// lines are skipped. Requests run as the API's do, under the same budgets
// and in worker processes where workers are enabled; at most Config.Slots
// run at once, and the next line is read when one has finished. When in
// ends, ServeLines waits for the running requests' answers and returns nil;
// when ctx ends, it cuts them (each answered with an error) and returns.
// Its error is that of reading in or writing out.
func (s *Server) ServeLines(ctx context.Context, in io.Reader, out io.Writer) error {
	// The requests' parent, ended with the cause errShutdown when ctx ends.
	cut, stop := context.WithCancelCause(context.WithoutCancel(ctx))
	defer stop(nil) // after the answers: the deferred calls run in reverse
	lines := &lineWriter{w: out}
	running := make(chan struct{}, s.cfg.Slots)
	var wg sync.WaitGroup
	defer wg.Wait()
	read := make(chan lineRead)
	done := make(chan struct{})
	defer close(done)
	go readLines(bufio.NewReader(in), s.cfg.MaxBodyBytes, read, done)
	for {
		select {
		case running <- struct{}{}:
		case <-ctx.Done():
			stop(errShutdown)
			return lines.err()
		}
		var next lineRead
		select {
		case next = <-read:
		case <-ctx.Done():
			stop(errShutdown)
			return lines.err()
		}
		if next.err != nil {
			if errors.Is(next.err, io.EOF) {
				return lines.err()
			}
			return fmt.Errorf("reading the request lines: %w", next.err)
		}
		if err := lines.err(); err != nil {
			return err
		}
		if len(bytes.TrimSpace(next.line)) == 0 && !next.tooLong {
			<-running
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-running }()
			lines.write(s.answerLine(cut, next))
		}()
	}
}

// lineRead is one line of the input, without its newline, or the error
// that ended the input (io.EOF at its end). tooLong marks a line longer
// than the body limit, whose text is dropped.
type lineRead struct {
	line    []byte
	tooLong bool
	err     error
}

// readLines sends each line of r to lines, each at most limit bytes, then
// the error that ends r, until done is closed. A longer line is read to
// its end and sent as tooLong.
func readLines(r *bufio.Reader, limit int64, lines chan<- lineRead, done <-chan struct{}) {
	send := func(l lineRead) bool {
		select {
		case lines <- l:
			return true
		case <-done:
			return false
		}
	}
	for {
		var line []byte
		tooLong := false
		for {
			part, err := r.ReadSlice('\n')
			if !tooLong {
				line = append(line, part...)
				if int64(len(bytes.TrimRight(line, "\r\n"))) > limit {
					tooLong, line = true, nil
				}
			}
			if errors.Is(err, bufio.ErrBufferFull) {
				continue
			}
			if (len(line) > 0 || tooLong) && !send(lineRead{line: bytes.TrimRight(line, "\r\n"), tooLong: tooLong}) {
				return
			}
			if err != nil {
				send(lineRead{err: err})
				return
			}
			break
		}
	}
}

// answerLine answers one request line under ctx.
func (s *Server) answerLine(ctx context.Context, l lineRead) lineAnswer {
	id := lineID(l.line)
	if l.tooLong {
		return errorLine(id, &request.Error{Err: fmt.Errorf("request line larger than %d bytes", s.cfg.MaxBodyBytes)})
	}
	values, err := decodeObject(l.line)
	if err != nil {
		return errorLine(id, &request.Error{Err: fmt.Errorf("request line: %w", err)})
	}
	delete(values, keyID)
	name, ok := values[keyEndpoint]
	delete(values, keyEndpoint)
	i := slices.IndexFunc(lineEndpoints, func(ep endpoint) bool { return ep.command == name })
	if i < 0 {
		names := make([]string, len(lineEndpoints))
		for j, ep := range lineEndpoints {
			names[j] = ep.command
		}
		what := fmt.Sprintf("%q is no endpoint", name)
		if !ok {
			what = `the key "endpoint" is missing`
		}
		return errorLine(id, &request.Error{Field: keyEndpoint, Err: fmt.Errorf("request line: %s; expected one of %s", what, strings.Join(names, ", "))})
	}
	ep := lineEndpoints[i]
	if err := ep.checkKeys(values); err != nil {
		return errorLine(id, err)
	}
	body, notes, err := s.answerValues(ctx, ep, values, func(int, int) {})
	if err != nil {
		return errorLine(id, err)
	}
	return lineAnswer{ID: id, Body: body, Notes: notes}
}

// lineID returns the "id" of a request line as its JSON text, null where
// the line has none or is no JSON object.
func lineID(line []byte) json.RawMessage {
	var keys struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(line, &keys) != nil || len(keys.ID) == 0 {
		return json.RawMessage("null")
	}
	return keys.ID
}

// errorLine is the answer line of a request's error: the API's error body
// and status (errorOf).
func errorLine(id json.RawMessage, err error) lineAnswer {
	status, body := errorOf(request.OneLine(err))
	return lineAnswer{ID: id, Status: status, errorBody: &body}
}

// lineWriter writes answer lines, one at a time, and keeps the first
// error of writing.
type lineWriter struct {
	mu    sync.Mutex
	w     io.Writer
	first error
}

// write writes a's line, unless a write has failed before.
func (lw *lineWriter) write(a lineAnswer) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // messages and plots hold < and >
	if err := enc.Encode(a); err != nil {
		a = errorLine(a.ID, fmt.Errorf("encoding the answer: %w", err))
		b.Reset()
		_ = enc.Encode(a) // strings and ints always encode
	}
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.first != nil {
		return
	}
	if _, err := lw.w.Write(b.Bytes()); err != nil {
		lw.first = fmt.Errorf("writing an answer: %w", err)
	}
}

// err returns the first error of writing, if any.
func (lw *lineWriter) err() error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	return lw.first
}
