package serve_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"strings"
	"testing"
	"time"

	"github.com/polyvol/polyvol/serve"
)

// pacedExplore replaces the answer of explore by one that reports
// progress every 20 ms for lines lines, then answers {"paced": true}; it
// sends its context's error on ended when it returns. The other endpoints
// keep polyvol's answers.
func pacedExplore(lines int, ended chan<- error) answerWrapper {
	return func(command string, a serve.Answer) serve.Answer {
		if command != "explore" {
			return a
		}
		return func(ctx context.Context, _ map[string]string, progress func(int, int)) ([]byte, []string, error) {
			defer func() { ended <- ctx.Err() }()
			for i := range lines {
				if ctx.Err() != nil {
					return nil, nil, ctx.Err()
				}
				progress(i, lines)
				time.Sleep(20 * time.Millisecond)
			}
			return []byte(`{"paced": true}`), nil, nil
		}
	}
}

// startServing serves s on a loopback port and returns its URL and the
// channel of Serve's result.
func startServing(t *testing.T, s *serve.Server) (string, <-chan error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- s.Serve(ln) }()
	return "http://" + ln.Addr().String(), served
}

// openStream posts an explore request and returns its answer's lines
// after reading the first.
func openStream(t *testing.T, url string) (*http.Response, *bufio.Scanner) {
	t.Helper()
	resp, err := http.DefaultClient.Do(apiRequest(t, url+"/api/explore", `{}`))
	if err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(resp.Body)
	if !lines.Scan() || !strings.HasPrefix(lines.Text(), `{"progress":`) {
		t.Fatalf("first line %q, want progress", lines.Text())
	}
	return resp, lines
}

// lastLine reads the remaining lines and returns the last one.
func lastLine(lines *bufio.Scanner) string {
	last := ""
	for lines.Scan() {
		last = lines.Text()
	}
	return last
}

// TestShutdownLetsStreamsFinish shuts the server down while an explore
// stream of 0.5 s runs, with a grace of a minute: new connections are
// refused at once, and the stream ends with its exploration.
func TestShutdownLetsStreamsFinish(t *testing.T) {
	ended := make(chan error, 1)
	s := wrapAnswers(serve.New(serve.Config{Token: testToken}), pacedExplore(25, ended))
	url, served := startServing(t, s)
	resp, lines := openStream(t, url)
	defer resp.Body.Close()
	shut := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		shut <- s.Shutdown(ctx)
	}()
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		t.Errorf("Serve returned %v, want http.ErrServerClosed", err)
	}
	if c, err := net.Dial("tcp", strings.TrimPrefix(url, "http://")); err == nil {
		c.Close()
		t.Error("a new connection was accepted after Shutdown began")
	}
	if last := lastLine(lines); last != `{"exploration":{"paced":true}}` {
		t.Errorf("the stream ends with %q, want the exploration", last)
	}
	if err := <-ended; err != nil {
		t.Errorf("the command's context ended: %v", err)
	}
	if err := <-shut; err != nil {
		t.Errorf("Shutdown: %v", err)
	}
}

// TestShutdownCutsStreams shuts the server down while an explore stream
// of a minute runs and a prediction waits for the only slot, with a grace
// of 300 ms: the stream ends with an error line, the waiting request is
// answered 503, the command stops, and Shutdown returns long before the
// stream would have ended.
func TestShutdownCutsStreams(t *testing.T) {
	ended := make(chan error, 1)
	s := wrapAnswers(serve.New(serve.Config{Token: testToken, Slots: 1}), pacedExplore(3000, ended))
	url, served := startServing(t, s)
	resp, lines := openStream(t, url)
	defer resp.Body.Close()
	waiting, wrote := make(chan string, 1), make(chan struct{})
	go func() {
		req := apiRequest(t, url+"/api/predict", `{}`)
		req = req.WithContext(httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{
			WroteRequest: func(httptrace.WroteRequestInfo) { close(wrote) },
		}))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			waiting <- err.Error()
			return
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		waiting <- resp.Status + " " + string(body)
	}()
	<-wrote
	time.Sleep(300 * time.Millisecond) // the server reads the prediction, which waits for the slot
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil {
		t.Errorf("Shutdown: %v", err)
	}
	took := time.Since(start)
	t.Logf("Shutdown with a grace of 300 ms returned after %v", took.Round(time.Millisecond))
	if took > 30*time.Second {
		t.Errorf("Shutdown took %v for a stream cut after 300 ms", took)
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		t.Errorf("Serve returned %v, want http.ErrServerClosed", err)
	}
	var e struct{ Error errorAnswer }
	last := lastLine(lines)
	if err := json.Unmarshal([]byte(last), &e); err != nil || !strings.Contains(e.Error.Error, "shutting down") {
		t.Errorf("the stream ends with %q, want an error line about the shutdown", last)
	}
	if err := <-ended; !errors.Is(err, context.Canceled) {
		t.Errorf("the command's context: %v, want it cancelled", err)
	}
	if answer := <-waiting; !strings.HasPrefix(answer, "503 ") || !strings.Contains(answer, "shutting down") {
		t.Errorf("the waiting prediction: %s; want 503 about the shutdown", answer)
	}
}
