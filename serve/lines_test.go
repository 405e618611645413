package serve_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/polyvol/polyvol/serve"
)

// lineAnswer is an answer line as a client decodes it.
type lineAnswer struct {
	ID     json.RawMessage `json:"id"`
	Body   json.RawMessage `json:"body"`
	Notes  []string        `json:"notes"`
	Status int             `json:"status"`
	Error  string          `json:"error"`
	Kind   string          `json:"kind"`
	Field  string          `json:"field"`
}

// serveLines answers input with s and returns the answers by id, failing
// the test on an error of ServeLines, an answer line that is no JSON, or
// an id answered twice.
func serveLines(t *testing.T, s *serve.Server, input string) map[string]lineAnswer {
	t.Helper()
	var out bytes.Buffer
	if err := s.ServeLines(context.Background(), strings.NewReader(input), &out); err != nil {
		t.Fatalf("ServeLines: %v", err)
	}
	answers := map[string]lineAnswer{}
	for line := range strings.Lines(out.String()) {
		var a lineAnswer
		if err := json.Unmarshal([]byte(line), &a); err != nil {
			t.Fatalf("answer line %q: %v", line, err)
		}
		if _, dup := answers[string(a.ID)]; dup {
			t.Fatalf("id %s answered twice:\n%s", a.ID, out.String())
		}
		answers[string(a.ID)] = a
	}
	return answers
}

// TestServeLinesAnswersAsTheAPI checks that a request line is answered with
// the body the HTTP API gives for the same keys, and that bad lines are
// answered with the API's error body and its kind while the lines after
// them are still answered.
func TestServeLinesAnswersAsTheAPI(t *testing.T) {
	const keys = `"example": "star3d-r4", "device": "A100-40GB", "block": "256,1,2", "fold": "1,1,2"`
	srv := newServer(t, serve.Config{})
	status, want := post(t, srv.URL+"/api/predict", "{"+keys+"}")
	if status != 200 {
		t.Fatalf("/api/predict: status %d: %s", status, want)
	}
	input := strings.Join([]string{
		`{"id": 1, "endpoint": "predict", ` + keys + `}`,
		`not json`,
		``,
		`{"id": "b", "endpoint": "predict", "example": "star3d-r4", "block": "7,x"}`,
		`{"id": 3, "endpoint": "predicts"}`,
		`{"id": 4, "example": "star3d-r4"}`,
		`{"id": 5, "endpoint": "simulate", "threads": "64"}`,
		`{"id": 6, "endpoint": "predict", "example": "star3d-r4", "device": "no-such-gpu"}`,
		`{"id": 7, "endpoint": "predict", ` + keys + `}`,
	}, "\n") // no newline after the last line
	answers := serveLines(t, serve.New(serve.Config{}), input)
	if len(answers) != 8 {
		t.Fatalf("got %d answers, want 8 (the blank line is skipped): %v", len(answers), answers)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, want); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"1", "7"} {
		if got := answers[id]; !bytes.Equal(got.Body, compact.Bytes()) || got.Error != "" {
			t.Errorf("id %s: body differs from /api/predict's (error %q):\n got %s\nwant %s", id, got.Error, got.Body, compact.Bytes())
		}
	}
	for id, want := range map[string]struct{ field, contains string }{
		`null`: {"", "expected a JSON object"},
		`"b"`:  {"block", `"x" is not an integer`},
		`3`:    {"endpoint", `"predicts" is no endpoint`},
		`4`:    {"endpoint", `"endpoint" is missing`},
		`5`:    {"", `unknown key "threads" for simulate`},
		`6`:    {"device", `unknown device "no-such-gpu"`},
	} {
		got, ok := answers[id]
		switch {
		case !ok:
			t.Errorf("id %s: no answer", id)
		case got.Status != 400 || got.Kind != "input" || got.Field != want.field || !strings.Contains(got.Error, want.contains) || got.Body != nil:
			t.Errorf("id %s: got status %d, kind %q, field %q, error %q, body %s; want 400, input, %q, an error containing %q", id, got.Status, got.Kind, got.Field, got.Error, got.Body, want.field, want.contains)
		}
	}
}

// TestServeLinesBudget checks that a request that overruns the time budget
// is answered with the API's 503 and that the next line is still answered.
func TestServeLinesBudget(t *testing.T) {
	s := serve.New(serve.Config{RequestTimeout: 50 * time.Millisecond, Slots: 1})
	s.SetAnswer("predict", func(ctx context.Context, values map[string]string, _ func(int, int)) ([]byte, []string, error) {
		if values["block"] == "1" {
			<-ctx.Done()
			return nil, nil, ctx.Err()
		}
		return []byte(`{"fast": true}`), []string{"a note"}, nil
	})
	answers := serveLines(t, s, `{"id": 1, "endpoint": "predict", "block": "1"}`+"\n"+`{"id": 2, "endpoint": "predict", "block": "2"}`+"\n")
	if a := answers["1"]; a.Status != 503 || !strings.Contains(a.Error, "time budget") {
		t.Errorf("slow request: got status %d, error %q; want 503 and the time budget's error", a.Status, a.Error)
	}
	if a := answers["2"]; string(a.Body) != `{"fast":true}` || len(a.Notes) != 1 || a.Notes[0] != "a note" {
		t.Errorf("next request: got body %s, notes %q; want {\"fast\":true} and its note", a.Body, a.Notes)
	}
}

// TestServeLinesTooLong checks that a line over the body limit is answered
// with an error, without its text, and the next line is answered.
func TestServeLinesTooLong(t *testing.T) {
	s := serve.New(serve.Config{MaxBodyBytes: 64})
	s.SetAnswer("predict", func(context.Context, map[string]string, func(int, int)) ([]byte, []string, error) {
		return []byte(`{}`), nil, nil
	})
	long := `{"id": 1, "endpoint": "predict", "block": "` + strings.Repeat("1", 8192) + `"}`
	answers := serveLines(t, s, long+"\n"+`{"id": 2, "endpoint": "predict"}`+"\n")
	if a := answers["null"]; a.Status != 400 || !strings.Contains(a.Error, "larger than 64 bytes") {
		t.Errorf("long line: got status %d, error %q; want 400 naming the limit", a.Status, a.Error)
	}
	if a := answers["2"]; string(a.Body) != `{}` {
		t.Errorf("next line: got body %s, error %q; want {}", a.Body, a.Error)
	}
}

// TestServeLinesEndsWithContext checks that ServeLines returns when its
// context ends while the input stays open, cutting a running request.
func TestServeLinesEndsWithContext(t *testing.T) {
	s := serve.New(serve.Config{})
	started := make(chan struct{})
	s.SetAnswer("predict", func(ctx context.Context, _ map[string]string, _ func(int, int)) ([]byte, []string, error) {
		close(started)
		<-ctx.Done()
		return nil, nil, ctx.Err()
	})
	in, feed := io.Pipe()
	defer feed.Close()
	ctx, cancel := context.WithCancel(context.Background())
	var out bytes.Buffer
	done := make(chan error, 1)
	go func() { done <- s.ServeLines(ctx, in, &out) }()
	go func() { _, _ = feed.Write([]byte(`{"id": 1, "endpoint": "predict"}` + "\n")) }()
	<-started
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("ServeLines: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ServeLines did not return after its context ended")
	}
	if !strings.Contains(out.String(), `"id":1,"status":503`) || !strings.Contains(out.String(), "shutting down") {
		t.Errorf("the cut request's answer: got %q, want a 503 saying the server shuts down", out.String())
	}
}

// failingWriter fails every write.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("closed pipe") }

// TestServeLinesWriteError checks that ServeLines returns the error of
// writing an answer.
func TestServeLinesWriteError(t *testing.T) {
	err := serve.New(serve.Config{}).ServeLines(context.Background(), strings.NewReader("x\ny\n"), failingWriter{})
	if err == nil || !strings.Contains(err.Error(), "closed pipe") {
		t.Fatalf("got %v, want the write's error", err)
	}
}

// TestServeLinesContainsHostileRequests sends, as request lines answered in
// worker processes, a map that runs ISL without bound between two good
// requests: it is answered with the work bound its worker passed, as the
// HTTP API answers it, and the requests around it are answered.
func TestServeLinesContainsHostileRequests(t *testing.T) {
	withWorkers(t)
	var hostile map[string]string
	if err := json.Unmarshal([]byte(rawMapSpec("{ [x, y] -> A[((((x mod 3) mod 5 + x) mod 7 + 2x) mod 11 + x) mod 13, y] : x mod 17 = (x mod 19) mod 23 }")), &hostile); err != nil {
		t.Fatal(err)
	}
	hostile["id"], hostile["endpoint"] = "hostile", "predict"
	line, err := json.Marshal(hostile)
	if err != nil {
		t.Fatal(err)
	}
	good := `{"endpoint": "predict", "example": "vec-copy", "id": `
	answers := serveLines(t, serve.New(serve.Config{Slots: 2}), good+"1}\n"+string(line)+"\n"+good+"2}\n")
	if a := answers[`"hostile"`]; a.Status != 400 || a.Kind != "work-bound" || !strings.Contains(a.Error, "the work passed its") {
		t.Errorf("hostile request: got status %d, kind %q, error %q; want 400, work-bound, the worker's limit", a.Status, a.Kind, a.Error)
	}
	for _, id := range []string{"1", "2"} {
		if a := answers[id]; a.Body == nil {
			t.Errorf("id %s: no body (error %q)", id, a.Error)
		}
	}
}
