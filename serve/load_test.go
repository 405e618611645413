package serve_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/polyvol/polyvol/serve"
)

// TestLoad starts the server on 127.0.0.1:0 and sends it bursts of
// concurrent requests, valid and invalid, from the test itself. Every answer
// must be the CLI's JSON for its flags (or a 400 error for the bad ones),
// and the heap after each burst must stay near the heap after the first:
// the server keeps nothing per request. The queue holds a whole burst, so
// that every request waits for its turn instead of being refused.
func TestLoad(t *testing.T) {
	const bursts, perBurst = 6, 24
	srv := newServer(t, serve.Config{MaxQueue: perBurst})
	if u, err := url.Parse(srv.URL); err != nil || u.Hostname() != "127.0.0.1" {
		t.Fatalf("server at %s, want 127.0.0.1", srv.URL)
	}
	blocks := []string{"256,1,2", "128,2,2", "64,4,2", "32,8,2", "512,1,1", "1024,1,1", "32,4,4"}
	want := map[string][]byte{}
	for _, b := range blocks {
		want[b] = cliJSON(t, "", "predict", "star3d-r1", "--block", b, "--format", "json")
	}
	client := &http.Client{Timeout: 2 * time.Minute}
	heap := make([]uint64, bursts)
	for burst := range bursts {
		var wg sync.WaitGroup
		for i := range perBurst {
			wg.Go(func() {
				n := burst*perBurst + i
				if n%8 == 7 { // every eighth request is bad
					body := fmt.Sprintf(`{"example": "star3d-r1", "block": "%d,0,1"}`, n)
					status, data := request(client, srv.URL, body)
					if status != http.StatusBadRequest || !bytes.Contains(data, []byte(`"field":"block"`)) {
						t.Errorf("bad request %d: status %d, %.200s", n, status, data)
					}
					return
				}
				b := blocks[n%len(blocks)]
				status, data := request(client, srv.URL, `{"example": "star3d-r1", "block": "`+b+`"}`)
				if status != http.StatusOK || !bytes.Equal(data, want[b]) {
					t.Errorf("request %d (block %s): status %d, answer differs from polyvol predict", n, b, status)
				}
			})
		}
		wg.Wait()
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		heap[burst] = ms.HeapAlloc
	}
	const slack = 16 << 20
	for i, h := range heap[1:] {
		if h > heap[0]+slack {
			t.Errorf("heap after burst %d is %d MiB, after the first %d MiB: it grows with the requests", i+2, h>>20, heap[0]>>20)
		}
	}
	t.Logf("heap after each burst of %d requests (MiB): %v", perBurst, mib(heap))
}

// request posts body to /api/predict; a transport error is status 0.
func request(client *http.Client, base, body string) (int, []byte) {
	req, err := http.NewRequest(http.MethodPost, base+"/api/predict", strings.NewReader(body))
	if err != nil {
		return 0, []byte(err.Error())
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(serve.TokenHeader, testToken)
	resp, err := client.Do(req)
	if err != nil {
		return 0, []byte(err.Error())
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, []byte(err.Error())
	}
	return resp.StatusCode, data
}

// mib formats byte counts in MiB.
func mib(bytes []uint64) []string {
	out := make([]string, len(bytes))
	for i, b := range bytes {
		out[i] = fmt.Sprintf("%.1f", float64(b)/(1<<20))
	}
	return out
}

// floodEnd is how a flooding explore ended: the progress lines it wrote and
// its context's error.
type floodEnd struct {
	lines int
	err   error
}

// maxFloodLines bounds a flood: about 250 MB of progress lines, far more
// than the socket buffers of a client that stops reading hold.
const maxFloodLines = 5_000_000

// flood reports progress through the explore stream as fast as the stream
// takes it, until ctx ends or maxFloodLines.
func flood(ctx context.Context, progress func(done, total int)) floodEnd {
	n := 0
	for ; n < maxFloodLines && ctx.Err() == nil; n++ {
		progress(n, maxFloodLines)
	}
	return floodEnd{lines: n, err: ctx.Err()}
}

// openFDs counts the open file descriptors of the process, or returns -1
// where /proc/self/fd does not exist.
func openFDs() int {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	return len(entries)
}

// rss returns the VmRSS and VmHWM lines of /proc/self/status.
func rss() string {
	data, _ := os.ReadFile("/proc/self/status")
	var out []string
	for line := range strings.Lines(string(data)) {
		if strings.HasPrefix(line, "VmRSS") || strings.HasPrefix(line, "VmHWM") {
			out = append(out, strings.Join(strings.Fields(line), " "))
		}
	}
	return strings.Join(out, ", ")
}

// rawPost returns the text of a POST of a JSON body to path with the
// token, Content-Length length (the body follows separately when shorter).
func rawPost(path string, length int, body string) string {
	return fmt.Sprintf("POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n%s: %s\r\nContent-Length: %d\r\n\r\n%s",
		path, serve.TokenHeader, testToken, length, body)
}

// closedWithin reads from c until the server closes it (EOF or reset) and
// returns how long that took after start; it fails the test when c is
// still open after limit.
func closedWithin(t *testing.T, c net.Conn, start time.Time, limit time.Duration) time.Duration {
	t.Helper()
	_ = c.SetReadDeadline(start.Add(limit))
	_, err := io.Copy(io.Discard, c)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("the connection is still open %v after the start", limit)
	}
	return time.Since(start)
}

// trickle writes one byte of text to c every 2 s until a write fails or
// stop is closed; done is closed when it returns.
func trickle(c net.Conn, text string, stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	for i := range len(text) {
		select {
		case <-stop:
			return
		case <-time.After(2 * time.Second):
		}
		if _, err := c.Write([]byte{text[i]}); err != nil {
			return
		}
	}
}

// TestConnectionBounds starts the server with short connection timeouts
// and checks, each against its own clients on 127.0.0.1, that a header or
// a body sent one byte every 2 s is cut by the read timeouts, that an idle
// keep-alive connection is closed by the idle timeout, that a client that
// never reads an explore stream is dropped once a write has waited for
// the write timeout and its command stops, that a client that leaves a
// stream stops its command too, and that the connection limit holds
// further clients back until a place is free. Afterwards the open file
// descriptors and goroutines of the process must return to where they
// were before.
func TestConnectionBounds(t *testing.T) {
	fds0, goroutines0 := openFDs(), runtime.NumGoroutine()
	floods := map[string]chan floodEnd{"never-reads": make(chan floodEnd, 1), "leaves": make(chan floodEnd, 1)}
	streams := func(command string, a serve.Answer) serve.Answer {
		if command != "explore" {
			return a
		}
		return func(ctx context.Context, values map[string]string, progress func(int, int)) ([]byte, []string, error) {
			ended := floods[values["device"]]
			if ended == nil { // a long stream: a line every 100 ms for 4 write timeouts
				const lines = 20
				for i := range lines {
					if ctx.Err() != nil {
						return nil, nil, ctx.Err()
					}
					progress(i, lines)
					time.Sleep(100 * time.Millisecond)
				}
				return []byte(`{"long": true}`), nil, nil
			}
			end := flood(ctx, progress)
			ended <- end
			return nil, nil, end.err
		}
	}
	const (
		readTimeout  = time.Second
		writeTimeout = 500 * time.Millisecond
		idleTimeout  = 500 * time.Millisecond
		closeLimit   = 15 * time.Second // generous: each bound above is at most a second
	)
	s := wrapAnswers(serve.New(serve.Config{Token: testToken, ReadHeaderTimeout: readTimeout, ReadTimeout: readTimeout,
		WriteTimeout: writeTimeout, IdleTimeout: idleTimeout}), streams)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- s.Serve(ln) }()
	addr := ln.Addr().String()
	dial := func(t *testing.T) net.Conn {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}

	t.Run("bounds", func(t *testing.T) {
		t.Run("slow header", func(t *testing.T) {
			t.Parallel()
			c := dial(t)
			stop, done := make(chan struct{}), make(chan struct{})
			defer func() { close(stop); <-done }()
			start := time.Now()
			if _, err := io.WriteString(c, "POST /api/predict HTTP/1.1\r\n"); err != nil {
				t.Fatal(err)
			}
			go trickle(c, "Host: 127.0.0.1\r\nContent-Type: application/json\r\n\r\n", stop, done)
			took := closedWithin(t, c, start, closeLimit)
			t.Logf("a header sent a byte every 2 s was cut after %v (read header timeout %v)", took.Round(time.Millisecond), readTimeout)
			if took < readTimeout/2 {
				t.Errorf("closed after %v, before the read header timeout of %v", took, readTimeout)
			}
		})
		t.Run("slow body", func(t *testing.T) {
			t.Parallel()
			c := dial(t)
			stop, done := make(chan struct{}), make(chan struct{})
			defer func() { close(stop); <-done }()
			body := `{"example": "star3d-r1", "block": "256,1,1"}`
			start := time.Now()
			if _, err := io.WriteString(c, rawPost("/api/predict", len(body), "")); err != nil {
				t.Fatal(err)
			}
			go trickle(c, body, stop, done)
			_ = c.SetReadDeadline(start.Add(closeLimit))
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil {
				t.Fatalf("no answer to a body sent a byte every 2 s: %v", err)
			}
			answer, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusRequestTimeout || !bytes.Contains(answer, []byte("timeout")) {
				t.Errorf("status %d, %s; want 408 about the timeout", resp.StatusCode, answer)
			}
			took := closedWithin(t, c, start, closeLimit)
			t.Logf("a body sent a byte every 2 s was answered 408 and closed after %v (read timeout %v)", took.Round(time.Millisecond), readTimeout)
			if took < readTimeout/2 {
				t.Errorf("closed after %v, before the read timeout of %v", took, readTimeout)
			}
		})
		t.Run("idle keep-alive", func(t *testing.T) {
			t.Parallel()
			c := dial(t)
			if _, err := io.WriteString(c, "GET /api/examples HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"); err != nil {
				t.Fatal(err)
			}
			r := bufio.NewReader(c)
			resp, err := http.ReadResponse(r, nil)
			if err != nil {
				t.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK || resp.Close {
				t.Fatalf("status %d, Connection: close %v; want 200 keeping the connection", resp.StatusCode, resp.Close)
			}
			start := time.Now()
			_ = c.SetReadDeadline(start.Add(closeLimit))
			if n, err := r.Read(make([]byte, 1)); n != 0 || errors.Is(err, os.ErrDeadlineExceeded) {
				t.Fatalf("idle connection: read %d bytes, %v; want it closed", n, err)
			}
			took := time.Since(start)
			t.Logf("an idle keep-alive connection was closed after %v (idle timeout %v)", took.Round(time.Millisecond), idleTimeout)
			if took < idleTimeout/2 {
				t.Errorf("closed after %v, before the idle timeout of %v", took, idleTimeout)
			}
		})
		t.Run("never reads explore", func(t *testing.T) {
			t.Parallel()
			d := net.Dialer{Control: func(_, _ string, rc syscall.RawConn) error {
				return rc.Control(func(fd uintptr) { _ = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
			}}
			c, err := d.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			body := `{"device": "never-reads"}`
			start := time.Now()
			if _, err := io.WriteString(c, rawPost("/api/explore", len(body), body)); err != nil {
				t.Fatal(err)
			}
			var end floodEnd
			select {
			case end = <-floods["never-reads"]:
			case <-time.After(closeLimit):
				t.Fatalf("the explore of a client that never reads still runs after %v", closeLimit)
			}
			t.Logf("the explore of a client that never reads stopped after %v and %d progress lines (write timeout %v)", time.Since(start).Round(time.Millisecond), end.lines, writeTimeout)
			if !errors.Is(end.err, context.Canceled) {
				t.Errorf("the explore ended with %v, want its context cancelled", end.err)
			}
			closedWithin(t, c, start, closeLimit)
		})
		t.Run("leaves explore", func(t *testing.T) {
			t.Parallel()
			c := dial(t)
			body := `{"device": "leaves"}`
			if _, err := io.WriteString(c, rawPost("/api/explore", len(body), body)); err != nil {
				t.Fatal(err)
			}
			r := bufio.NewReader(c)
			resp, err := http.ReadResponse(r, nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := io.ReadFull(resp.Body, make([]byte, 1000)); err != nil {
				t.Fatal(err)
			}
			left := time.Now()
			c.Close()
			select {
			case end := <-floods["leaves"]:
				t.Logf("the explore of a client that left stopped after %v and %d progress lines", time.Since(left).Round(time.Millisecond), end.lines)
				if !errors.Is(end.err, context.Canceled) {
					t.Errorf("the explore ended with %v, want its context cancelled", end.err)
				}
			case <-time.After(closeLimit):
				t.Fatalf("the explore of a client that left still runs after %v", closeLimit)
			}
		})
		t.Run("reads a long explore", func(t *testing.T) {
			t.Parallel()
			c := dial(t)
			body := `{"device": "long"}`
			start := time.Now()
			if _, err := io.WriteString(c, rawPost("/api/explore", len(body), body)); err != nil {
				t.Fatal(err)
			}
			_ = c.SetReadDeadline(start.Add(closeLimit))
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil {
				t.Fatal(err)
			}
			stream, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			took := time.Since(start)
			if err != nil || !bytes.HasSuffix(stream, []byte(`{"exploration":{"long":true}}`+"\n")) {
				t.Errorf("a stream of %v, 4 write timeouts, read as it came: %v, ends %q", took.Round(time.Millisecond), err, stream[max(0, len(stream)-80):])
			}
		})
		t.Run("connection limit", func(t *testing.T) {
			t.Parallel()
			// The connections held are busy with a request each, so none
			// can give way to a new one.
			const limit = 3
			b := blockingAnswers{started: make(chan struct{}, limit), release: make(chan struct{})}
			s := wrapAnswers(serve.New(serve.Config{Token: testToken, Slots: limit, MaxConns: limit, ReadHeaderTimeout: time.Minute}), b.wrap)
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			served := make(chan error, 1)
			go func() { served <- s.Serve(ln) }()
			defer func() {
				ctx, cancel := context.WithTimeout(context.Background(), time.Second)
				defer cancel()
				_ = s.Shutdown(ctx)
				<-served
			}()
			defer close(b.release)
			var held []net.Conn
			for range limit {
				c, err := net.Dial("tcp", ln.Addr().String())
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				if _, err := io.WriteString(c, rawPost("/api/simulate", 2, "{}")); err != nil {
					t.Fatal(err)
				}
				b.awaitStart(t)
				held = append(held, c)
			}
			c, err := net.Dial("tcp", ln.Addr().String()) // the operating system completes the connection
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if _, err := io.WriteString(c, "GET /api/examples HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"); err != nil {
				t.Fatal(err)
			}
			r := bufio.NewReader(c)
			_ = c.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
			if _, err := r.Peek(1); !errors.Is(err, os.ErrDeadlineExceeded) {
				t.Fatalf("connection %d of a limit of %d was answered (%v) while %d were busy", limit+1, limit, err, limit)
			}
			held[0].Close()
			_ = c.SetReadDeadline(time.Now().Add(closeLimit))
			resp, err := http.ReadResponse(r, nil)
			if err != nil {
				t.Fatalf("connection %d: no answer after another closed: %v", limit+1, err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Errorf("connection %d: status %d", limit+1, resp.StatusCode)
			}
		})
	})

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil {
		t.Errorf("Shutdown: %v", err)
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		t.Errorf("Serve: %v", err)
	}
	http.DefaultClient.CloseIdleConnections()
	// Closed connections and ended goroutines may take a moment to be gone.
	const fdSlack, goroutineSlack = 2, 2
	var fds, goroutines int
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		fds, goroutines = openFDs(), runtime.NumGoroutine()
		if fds <= fds0+fdSlack && goroutines <= goroutines0+goroutineSlack || time.Now().After(deadline) {
			break
		}
	}
	t.Logf("open file descriptors %d before, %d after; goroutines %d before, %d after; %s", fds0, fds, goroutines0, goroutines, rss())
	if fds > fds0+fdSlack {
		t.Errorf("%d file descriptors open after the test, %d before", fds, fds0)
	}
	if goroutines > goroutines0+goroutineSlack {
		t.Errorf("%d goroutines after the test, %d before", goroutines, goroutines0)
	}
}
