package serve

// The explore endpoint streams NDJSON: progress lines while the sweep runs,
// then one line with the exploration.

import (
	"bytes"
	"encoding/json"
	"net/http"
	"sync"

	"github.com/polyvol/polyvol/request"
)

// progressEvent is one progress line of /api/explore.
type progressEvent struct {
	Progress struct {
		Done  int `json:"done"`
		Total int `json:"total"`
	} `json:"progress"`
}

// exploreStream writes each progress report of a sweep as an NDJSON line
// to the response, flushed at once. The first line commits the status
// 200; errors before it are answered with their own status. After close
// it writes nothing, since the handler may have returned while the sweep
// still runs.
type exploreStream struct {
	mu      sync.Mutex
	w       http.ResponseWriter
	started bool
	closed  bool
}

// Progress writes a progress line: done of total configurations.
func (e *exploreStream) Progress(done, total int) {
	var ev progressEvent
	ev.Progress.Done, ev.Progress.Total = done, total
	line, _ := json.Marshal(ev) // a struct of ints always marshals
	e.line(line)
}

// line writes one NDJSON line to the response and flushes it.
func (e *exploreStream) line(data []byte) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return
	}
	if !e.started {
		e.w.Header().Set("Content-Type", "application/x-ndjson")
		e.started = true
	}
	_, _ = e.w.Write(append(data, '\n')) // the client may be gone; the sweep ends by itself
	http.NewResponseController(e.w).Flush()
}

// close stops writing and reports whether any line was written.
func (e *exploreStream) close() (started bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.closed = true
	return e.started
}

// handleExplore answers /api/explore with NDJSON lines: {"progress": {done,
// total}} while the sweep runs, then {"exploration": ...} with explore's
// JSON (compacted onto one line), or {"error": ...} when the sweep fails
// after progress was sent. Errors before any progress get their status.
func (s *Server) handleExplore(w http.ResponseWriter, r *http.Request) {
	stream := &exploreStream{w: w}
	body, _, err := s.answerRequest(r, exploreEndpoint, stream.Progress)
	var result bytes.Buffer
	if err == nil {
		result.WriteString(`{"exploration":`)
		err = json.Compact(&result, body)
		result.WriteString("}")
	}
	if err == nil {
		stream.line(result.Bytes())
		stream.close()
		return
	}
	if !stream.close() {
		fail(w, request.OneLine(err))
		return
	}
	_, errBody := errorOf(request.OneLine(err))
	line, _ := json.Marshal(map[string]errorBody{"error": errBody}) // strings and ints always marshal
	_, _ = w.Write(append(line, '\n'))
}
