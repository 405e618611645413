package serve_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/polyvol/polyvol/serve"
)

// holdConn opens a connection to addr that holds a place of the server
// without the token, in one of three ways: kind 0 asks for the device list
// and then stays open idle (keep-alive), kind 1 sends nothing, kind 2 sends
// the first line of a header and then nothing.
func holdConn(t *testing.T, addr string, kind int) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	switch kind {
	case 0:
		if _, err := io.WriteString(c, "GET /api/devices HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		_ = c.SetReadDeadline(time.Now().Add(time.Minute))
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("device list: status %d, %v", resp.StatusCode, err)
		}
	case 2:
		if _, err := io.WriteString(c, "POST /api/predict HTTP/1.1\r\n"); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// TestFairConnections fills every place of a server (DefaultMaxConns; the
// header, read and idle timeouts a minute, so that no connection ends by
// them) with connections held without the token: idle keep-alive ones,
// silent ones and slow headers. A client with the token is answered all
// the same. Then as many slow headers again take the places: the client's
// idle keep-alive connection keeps its place and answers its next request,
// a new client with the token is answered too, and the silent connections
// and slow headers held before have been closed by the server.
func TestFairConnections(t *testing.T) {
	srv := newServer(t, serve.Config{ReadHeaderTimeout: time.Minute, ReadTimeout: time.Minute, IdleTimeout: time.Minute},
		func(string, serve.Answer) serve.Answer {
			return func(context.Context, map[string]string, func(int, int)) ([]byte, []string, error) {
				return []byte("{}\n"), nil, nil
			}
		})
	addr := strings.TrimPrefix(srv.URL, "http://")
	var first []net.Conn
	for i := range serve.DefaultMaxConns {
		first = append(first, holdConn(t, addr, i%3))
	}

	// ask posts a prediction with the token through transport, bounded by
	// half the timeouts, and reports whether it reused a connection.
	ask := func(what string, transport *http.Transport) (reused bool) {
		t.Helper()
		client := &http.Client{Transport: transport, Timeout: 30 * time.Second}
		req := apiRequest(t, srv.URL+"/api/predict", `{}`)
		req = req.WithContext(httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{
			GotConn: func(info httptrace.GotConnInfo) { reused = info.Reused },
		}))
		start := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK || string(body) != "{}\n" {
			t.Fatalf("%s: status %d, %s, %v; want 200 with the answer", what, resp.StatusCode, body, err)
		}
		t.Logf("%s: answered after %v", what, time.Since(start).Round(time.Millisecond))
		return reused
	}
	a := &http.Transport{}
	defer a.CloseIdleConnections()
	ask("a client with the token while every place is held", a)

	for range serve.DefaultMaxConns {
		holdConn(t, addr, 2)
	}
	if !ask("its next request after as many slow headers", a) {
		t.Error("the client with the token lost its idle keep-alive connection to connections without it")
	}
	b := &http.Transport{}
	defer b.CloseIdleConnections()
	ask("a new client with the token", b)

	// The new client took its place after every connection opened before
	// it, so the silent ones and the slow headers held before, which wait
	// for a request since they were accepted, gave way. (An idle one waits
	// since the server recorded its answer as done, which a loaded machine
	// may delay past newer connections.)
	deadline := time.Now().Add(time.Minute)
	for i, c := range first {
		if i%3 == 0 {
			continue
		}
		_ = c.SetReadDeadline(deadline)
		_, err := io.Copy(io.Discard, c)
		if errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("connection %d held before (kind %d) is still open", i, i%3)
		}
	}
}
