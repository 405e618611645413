package cli

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe for a writer and a reader at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestServeCommand runs polyvol serve on a free loopback port, asks the URL
// it prints for the device list, and stops it with SIGINT: the command
// shuts down and exits 0.
func TestServeCommand(t *testing.T) {
	outR, outW := io.Pipe()
	var stderr syncBuffer
	exit := make(chan int, 1)
	go func() {
		exit <- Run([]string{"polyvol", "serve", "--listen", "127.0.0.1:0"}, outW, &stderr)
		outW.Close()
	}()
	line, err := bufio.NewReader(outR).ReadString('\n')
	if err != nil {
		t.Fatalf("no URL printed: %v; stderr %q", err, stderr.String())
	}
	go io.Copy(io.Discard, outR) // drains the rest until the pipe closes
	_, url, ok := strings.Cut(strings.TrimSpace(line), "serving on ")
	url, _, _ = strings.Cut(url, " ")
	if !ok || !strings.HasPrefix(url, "http://localhost:") {
		t.Fatalf("printed %q, want the URL http://localhost:PORT/", line)
	}
	resp, err := http.Get(url + "api/devices")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET %sapi/devices: status %d", url, resp.StatusCode)
	}
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-exit:
		if code != ExitOK || !strings.Contains(stderr.String(), "shutting down") {
			t.Errorf("exit %d, stderr %q; want 0 after shutting down", code, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("polyvol serve still runs 30 s after SIGINT")
	}
}

// TestServeUsageErrors checks that a bad --listen address or an argument is
// a usage error.
func TestServeUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"polyvol", "serve", "--listen", "127.0.0.1:99999"},
		{"polyvol", "serve", "extra"},
	} {
		var stdout, stderr bytes.Buffer
		if code := Run(args, &stdout, &stderr); code != ExitUsage || !strings.HasPrefix(stderr.String(), "polyvol: ") || strings.Count(stderr.String(), "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line", args[1:], code, stderr.String())
		}
	}
}
