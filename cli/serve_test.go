package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
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

// startServe runs polyvol serve with args in-process and returns the URLs
// and the token it prints, its standard error, and a function that stops
// it with SIGINT and returns its exit code.
func startServe(t *testing.T, args ...string) (urls []string, token string, stderr *syncBuffer, stop func() int) {
	t.Helper()
	outR, outW := io.Pipe()
	stderr = &syncBuffer{}
	exit := make(chan int, 1)
	go func() {
		exit <- Run(append([]string{"polyvol", "serve"}, args...), outW, stderr)
		outW.Close()
	}()
	line, err := bufio.NewReader(outR).ReadString('\n')
	if err != nil {
		t.Fatalf("no URL printed: %v; stderr %q", err, stderr.String())
	}
	go io.Copy(io.Discard, outR) // drains the rest until the pipe closes
	m := regexp.MustCompile(`^polyvol: serving on (http://\S+/(?: http://\S+/)*) \(API token: ([^;]+); Ctrl-C stops\)\n$`).FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("printed %q, want polyvol: serving on URL... (API token: TOKEN; Ctrl-C stops)", line)
	}
	stop = func() int {
		t.Helper()
		if err := syscall.Kill(syscall.Getpid(), syscall.SIGINT); err != nil {
			t.Fatal(err)
		}
		select {
		case code := <-exit:
			return code
		case <-time.After(30 * time.Second):
			t.Fatal("polyvol serve still runs 30 s after SIGINT")
		}
		return -1
	}
	return strings.Fields(m[1]), m[2], stderr, stop
}

// apiPost posts a JSON body with token to url and returns the status.
func apiPost(t *testing.T, url, host, token, body string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Polyvol-Token", token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestServeCommand runs polyvol serve on a free loopback port with a
// token of the user's, asks the URL it prints for the device list and a
// prediction, with the token and without, and stops it with SIGINT: the
// command shuts down and exits 0.
func TestServeCommand(t *testing.T) {
	const token = "my-script-token-0123"
	urls, printed, stderr, stop := startServe(t, "--listen", "127.0.0.1:0", "--token", token)
	if len(urls) != 1 || !strings.HasPrefix(urls[0], "http://127.0.0.1:") || printed != token {
		t.Fatalf("printed %q with token %q, want http://127.0.0.1:PORT/ with %q", urls, printed, token)
	}
	url := urls[0]
	resp, err := http.Get(url + "api/devices")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET %sapi/devices: status %d", url, resp.StatusCode)
	}
	if status := apiPost(t, url+"api/predict", "", token, `{"example": "vec-copy"}`); status != http.StatusOK {
		t.Errorf("POST api/predict with the token: status %d", status)
	}
	if status := apiPost(t, url+"api/predict", "", "not-the-token-0123", `{"example": "vec-copy"}`); status != http.StatusForbidden {
		t.Errorf("POST api/predict with another token: status %d, want 403", status)
	}
	if code := stop(); code != ExitOK || !strings.Contains(stderr.String(), "shutting down") || strings.Contains(stderr.String(), "warning") {
		t.Errorf("exit %d, stderr %q; want 0 after shutting down, without a warning", code, stderr.String())
	}
}

// TestServeRemote runs polyvol serve on all interfaces with --allow-remote
// and --allow-host: it prints the machine's addresses, not localhost, with
// a random token, warns on standard error, and answers the allowed names
// only.
func TestServeRemote(t *testing.T) {
	t.Setenv(tokenEnv, "")
	urls, token, stderr, stop := startServe(t, "--listen", "0.0.0.0:0", "--allow-remote", "--allow-host", "calc.example")
	if !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(token) {
		t.Errorf("token %q, want 32 random hexadecimal digits", token)
	}
	if len(urls) == 0 || !strings.HasPrefix(urls[0], "http://127.0.0.1:") {
		t.Fatalf("printed %q, want the loopback address first", urls)
	}
	for _, u := range urls {
		if strings.Contains(u, "localhost") || strings.Contains(u, "0.0.0.0") || strings.Contains(u, "[::]") {
			t.Errorf("printed %s: want the machine's real addresses", u)
		}
	}
	if w := stderr.String(); !strings.HasPrefix(w, "polyvol: warning: ") || !strings.Contains(w, "reachable from the network") || strings.Count(w, "\n") != 1 {
		t.Errorf("stderr %q, want one warning line that the API is reachable from the network", w)
	}
	for host, want := range map[string]int{"calc.example": http.StatusOK, "CALC.example:80": http.StatusOK, "localhost": http.StatusOK, "evil.example": http.StatusForbidden} {
		if status := apiPost(t, urls[0]+"api/predict", host, token, `{"example": "vec-copy"}`); status != want {
			t.Errorf("Host %s: status %d, want %d", host, status, want)
		}
	}
	for _, u := range urls[1:] { // the other addresses are served and accepted as Host
		if status := apiPost(t, u+"api/predict", "", token, `{"example": "vec-copy"}`); status != http.StatusOK {
			t.Errorf("%s: status %d", u, status)
		}
	}
	if code := stop(); code != ExitOK {
		t.Errorf("exit %d, stderr %q; want 0", code, stderr.String())
	}
}

// TestServeUsageErrors checks that a bad --listen address, a non-loopback
// one without --allow-remote, a bad token or host, or an argument is a
// usage error whose line names the flag.
func TestServeUsageErrors(t *testing.T) {
	t.Setenv(tokenEnv, "")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--listen", "127.0.0.1:99999"}, "--listen"},
		{[]string{"--listen", "0.0.0.0:0"}, "--allow-remote"},
		{[]string{"--listen", ":0"}, "--allow-remote"},
		{[]string{"--listen", "[::]:0"}, "--allow-remote"},
		{[]string{"--token", "short"}, "--token"},
		{[]string{"--token", "has space 0123456789"}, "--token"},
		{[]string{"--allow-host", "a/b"}, "--allow-host"},
		{[]string{"extra"}, "argument"},
		{[]string{"--stdio", "--listen", "127.0.0.1:0"}, "--listen"},
		{[]string{"--stdio", "--allow-remote"}, "--allow-remote"},
		{[]string{"--stdio", "--allow-host", "box"}, "--allow-host"},
	} {
		var stdout, stderr bytes.Buffer
		args := append([]string{"polyvol", "serve"}, c.args...)
		if code := Run(args, &stdout, &stderr); code != ExitUsage || !strings.HasPrefix(stderr.String(), "polyvol: ") || strings.Count(stderr.String(), "\n") != 1 || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line naming %s", c.args, code, stderr.String(), c.want)
		}
	}
	t.Setenv(tokenEnv, "short")
	var stdout, stderr bytes.Buffer
	if code := Run([]string{"polyvol", "serve"}, &stdout, &stderr); code != ExitUsage || !strings.Contains(stderr.String(), "--token") {
		t.Errorf("$%s=short: exit %d, stderr %q; want exit 2 naming --token", tokenEnv, code, stderr.String())
	}
}

// TestServeStdio checks that serve --stdio answers each request line of
// standard input with a line of the same id, a bad line with an error, and
// exits 0 at the end of the input.
func TestServeStdio(t *testing.T) {
	input := `{"id": 1, "endpoint": "predict", "example": "vec-copy", "block": "256"}` + "\n" + `{"id": 2, "endpoint": "predict", "block": 0}` + "\n"
	var stdout, stderr bytes.Buffer
	if code := RunWithInput([]string{"polyvol", "serve", "--stdio"}, strings.NewReader(input), &stdout, &stderr); code != ExitOK || stderr.Len() > 0 {
		t.Fatalf("exit %d, stderr %q; want 0 and nothing", code, stderr.String())
	}
	answers := map[int]map[string]any{}
	for line := range strings.Lines(stdout.String()) {
		var a map[string]any
		if err := json.Unmarshal([]byte(line), &a); err != nil {
			t.Fatalf("answer line %q: %v", line, err)
		}
		id, _ := a["id"].(float64)
		answers[int(id)] = a
	}
	body, _ := answers[1]["body"].(map[string]any)
	if launch, _ := body["launch"].(map[string]any); launch == nil || fmt.Sprint(launch["block"]) != "[256 1 1]" {
		t.Errorf("id 1: got %v, want a prediction of block 256,1,1", answers[1])
	}
	if a := answers[2]; a["kind"] != "input" || a["field"] != "block" || a["body"] != nil {
		t.Errorf("id 2: got %v, want an input error naming block", a)
	}
}
