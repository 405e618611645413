package serve_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/polyvol/polyvol/serve"
)

// answer is the status, Retry-After header and body of an answer.
type answer struct {
	status     int
	retryAfter string
	body       []byte
}

// postAnswer posts body to url as a deliberate client.
func postAnswer(t *testing.T, url, body string) answer {
	t.Helper()
	resp, err := http.DefaultClient.Do(apiRequest(t, url, body))
	if err != nil {
		t.Error(err)
		return answer{}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Error(err)
	}
	return answer{resp.StatusCode, resp.Header.Get("Retry-After"), data}
}

// checkBusy checks that a is a 503 JSON error whose message holds want,
// with a Retry-After of 1 to maxSeconds seconds.
func checkBusy(t *testing.T, what string, a answer, want string, maxSeconds int) {
	t.Helper()
	var e errorAnswer
	if a.status != http.StatusServiceUnavailable || json.Unmarshal(a.body, &e) != nil || !bytes.Contains([]byte(e.Error), []byte(want)) {
		t.Errorf("%s: status %d, %s; want 503 with a JSON error about %q", what, a.status, a.body, want)
	}
	if s, err := strconv.Atoi(a.retryAfter); err != nil || s < 1 || s > maxSeconds {
		t.Errorf("%s: Retry-After %q, want 1 to %d seconds", what, a.retryAfter, maxSeconds)
	}
}

// waitFor polls cond until it holds, failing the test after a minute.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("still not %s after a minute", what)
		}
	}
}

// awaitStart waits until one more answer has started, failing the test
// after a minute.
func (b blockingAnswers) awaitStart(t *testing.T) {
	t.Helper()
	select {
	case <-b.started:
	case <-time.After(time.Minute):
		t.Fatal("no answer started within a minute")
	}
}

// TestQueueFull fills the 2 slots of a server with commands that block
// until released and its queue of 3 with waiting simulations: a sixth
// request, and an explore, which would wait for every slot, are answered
// 503 at once with Retry-After and start no command, while the waiting
// ones run once the slots are free.
func TestQueueFull(t *testing.T) {
	b := blockingAnswers{started: make(chan struct{}, 16), release: make(chan struct{})}
	srv := newServer(t, serve.Config{Slots: 2, MaxQueue: 3}, b.wrap)
	released := false
	defer func() {
		if !released {
			close(b.release)
		}
	}()
	var wg sync.WaitGroup
	answers := make([]answer, 5)
	for i := range answers {
		wg.Go(func() { answers[i] = postAnswer(t, srv.URL+"/api/simulate", `{}`) })
		if i == 1 {
			<-b.started
			<-b.started
		}
	}
	waitFor(t, "3 requests waiting", func() bool { return srv.Waiting() == 3 })

	// No command has ended yet: the estimate takes 1 s per command, so the
	// 3 waiting requests and one more take 2 s on 2 slots.
	for _, path := range []string{"/api/simulate", "/api/explore"} {
		a := postAnswer(t, srv.URL+path, `{}`)
		checkBusy(t, path+" while 3 wait", a, "queue", int(serve.DefaultRequestTimeout/time.Second))
		if a.retryAfter != "2" {
			t.Errorf("%s while 3 wait: Retry-After %q, want 2", path, a.retryAfter)
		}
	}
	if srv.Waiting() != 3 {
		t.Errorf("%d requests waiting after the refusals, want 3", srv.Waiting())
	}
	select {
	case <-b.started:
		t.Error("a command started while the slots were held")
	default:
	}

	close(b.release)
	released = true
	wg.Wait()
	for i, a := range answers {
		if a.status != http.StatusOK || a.retryAfter != "" {
			t.Errorf("request %d: status %d, Retry-After %q; want 200 without it", i, a.status, a.retryAfter)
		}
	}
	if n := 2 + len(b.started); n != len(answers) {
		t.Errorf("%d commands ran, want %d", n, len(answers))
	}
}

// TestQueueTimeout holds the only slot of a server with a time budget of
// 300 ms: the request holding it is answered 503 past its budget without
// Retry-After (the same work would run past it again), and the requests
// waiting for the slot are answered 503 busy with Retry-After.
func TestQueueTimeout(t *testing.T) {
	b := blockingAnswers{started: make(chan struct{}, 16), release: make(chan struct{})}
	const budget = 300 * time.Millisecond
	srv := newServer(t, serve.Config{Slots: 1, RequestTimeout: budget}, b.wrap)
	defer close(b.release)
	first := postAnswer(t, srv.URL+"/api/simulate", `{}`)
	if first.status != http.StatusServiceUnavailable || !bytes.Contains(first.body, []byte("ran past")) || first.retryAfter != "" {
		t.Errorf("the running request: status %d, Retry-After %q, %s; want 503 past the time budget without Retry-After", first.status, first.retryAfter, first.body)
	}
	<-b.started
	// The first command still runs and holds the only slot.
	var wg sync.WaitGroup
	waiting := make([]answer, 3)
	for i := range waiting {
		wg.Go(func() { waiting[i] = postAnswer(t, srv.URL+"/api/simulate", `{}`) })
	}
	wg.Go(func() {
		a := postAnswer(t, srv.URL+"/api/explore", `{}`)
		checkBusy(t, "a waiting explore", a, "no estimate slot became free", 1)
	})
	wg.Wait()
	for i, a := range waiting {
		checkBusy(t, "waiting request "+strconv.Itoa(i), a, "no estimate slot became free", 1)
	}
	if srv.Waiting() != 0 {
		t.Errorf("%d requests still counted as waiting", srv.Waiting())
	}
	select {
	case <-b.started:
		t.Error("a command started while the slot was held")
	default:
	}
}

// TestRetryAfter checks Retry-After against the queue played forward. On a
// server of 2 slots and a queue of 2 whose explorations ran 60 s and
// predictions 2 s, an exploration holds one slot, a prediction the other
// and two predictions wait: the slot of the running prediction is free
// again in 2 s, 4 s and 6 s, so a prediction refused now may find it in
// 6 s; an exploration refused now waits for the running one, 60 s.
func TestRetryAfter(t *testing.T) {
	b := blockingAnswers{started: make(chan struct{}, 16), release: make(chan struct{})}
	srv := newServer(t, serve.Config{Slots: 2, MaxQueue: 2}, b.wrap)
	released := false
	defer func() {
		if !released {
			close(b.release)
		}
	}()
	srv.RecordRun("explore", 60*time.Second)
	srv.RecordRun("predict", 2*time.Second)
	var wg sync.WaitGroup
	answers := make([]answer, 4)
	for i, path := range []string{"/api/explore", "/api/predict", "/api/predict", "/api/predict"} {
		wg.Go(func() { answers[i] = postAnswer(t, srv.URL+path, `{}`) })
		if i < 2 {
			b.awaitStart(t)
		}
	}
	waitFor(t, "2 requests waiting", func() bool { return srv.Waiting() == 2 })
	for _, c := range []struct{ path, want string }{{"/api/predict", "6"}, {"/api/explore", "60"}} {
		a := postAnswer(t, srv.URL+c.path, `{}`)
		checkBusy(t, c.path, a, "queue", int(serve.DefaultRequestTimeout/time.Second))
		if a.retryAfter != c.want {
			t.Errorf("%s refused: Retry-After %q, want %s", c.path, a.retryAfter, c.want)
		}
	}
	close(b.release)
	released = true
	wg.Wait()
	for i, a := range answers {
		if a.status != http.StatusOK {
			t.Errorf("request %d: status %d, want 200", i, a.status)
		}
	}
}

// TestSingleBesideParallel sends three explorations that block to a server
// of 2 slots: one runs and two wait. A prediction sent then is answered at
// once, from the slot that parallel work leaves to single estimates, while
// the explorations still block; without that slot it would wait for the
// time budget and get 503.
func TestSingleBesideParallel(t *testing.T) {
	b := blockingAnswers{started: make(chan struct{}, 16), release: make(chan struct{})}
	srv := newServer(t, serve.Config{Slots: 2, RequestTimeout: 20 * time.Second}, func(command string, a serve.Answer) serve.Answer {
		if command == "explore" {
			return b.wrap(command, a)
		}
		return func(context.Context, map[string]string, func(int, int)) ([]byte, []string, error) {
			return []byte("{}\n"), nil, nil
		}
	})
	released := false
	defer func() {
		if !released {
			close(b.release)
		}
	}()
	var wg sync.WaitGroup
	explores := make([]answer, 3)
	for i := range explores {
		wg.Go(func() { explores[i] = postAnswer(t, srv.URL+"/api/explore", `{}`) })
	}
	b.awaitStart(t)
	waitFor(t, "2 explorations waiting", func() bool { return srv.Waiting() == 2 })
	for _, path := range []string{"/api/predict", "/api/simulate"} {
		if a := postAnswer(t, srv.URL+path, `{}`); a.status != http.StatusOK || string(a.body) != "{}\n" {
			t.Errorf("%s beside the explorations: status %d, %s; want 200 with the answer", path, a.status, a.body)
		}
	}
	if n := len(b.started); n != 0 || srv.Waiting() != 2 {
		t.Errorf("%d more explorations started and %d wait; want 1 running and 2 waiting until released", n, srv.Waiting())
	}
	close(b.release)
	released = true
	wg.Wait()
	for i, a := range explores {
		if a.status != http.StatusOK {
			t.Errorf("exploration %d: status %d, want 200", i, a.status)
		}
	}
}
