package serve_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/polyvol/polyvol/cli"
	"github.com/polyvol/polyvol/examples"
	"github.com/polyvol/polyvol/serve"
)

// testToken is the API token of the test servers.
const testToken = "test-token-0123456789"

// testServer is a server that Serve runs on a loopback port.
type testServer struct {
	URL string // http://127.0.0.1:PORT
	*serve.Server
}

// newServer serves the API on a loopback port with cfg (Token defaults to
// testToken) and the endpoints' answers wrapped by wrap, if given, until
// the test ends, and then shuts it down.
func newServer(t *testing.T, cfg serve.Config, wrap ...answerWrapper) *testServer {
	t.Helper()
	if cfg.Token == "" {
		cfg.Token = testToken
	}
	s := serve.New(cfg)
	for _, w := range wrap {
		wrapAnswers(s, w)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- s.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		if err := s.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		if err := <-served; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("Serve returned %v, want http.ErrServerClosed", err)
		}
	})
	return &testServer{URL: "http://" + ln.Addr().String(), Server: s}
}

// apiRequest returns a POST request of body to url with the headers a
// deliberate client sends: Content-Type application/json and the token.
func apiRequest(t *testing.T, url, body string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(serve.TokenHeader, testToken)
	return req
}

// post sends a JSON body as a deliberate client and returns the status
// and the body of the answer.
func post(t *testing.T, url, body string) (int, []byte) {
	t.Helper()
	return send(t, apiRequest(t, url, body))
}

// send sends req and returns the status and the body of the answer.
func send(t *testing.T, req *http.Request) (int, []byte) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, data
}

// cliJSON runs polyvol with args, the spec text (if any) on standard input,
// and returns its standard output, which must be a success.
func cliJSON(t *testing.T, stdin string, args ...string) []byte {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := cli.RunWithInput(append([]string{"polyvol"}, args...), strings.NewReader(stdin), &stdout, &stderr); code != cli.ExitOK {
		t.Fatalf("polyvol %s: exit %d: %s", strings.Join(args, " "), code, stderr.String())
	}
	return stdout.Bytes()
}

const badElementSpec = `name: t
domain: [64, 64]
fields:
  - name: u
    element: 3
    load: [[x, y]]
`

// TestPredictEqualsCLI checks that /api/predict answers with the bytes of
// polyvol predict --format json for the same flags, for an example and for
// a spec given as text.
func TestPredictEqualsCLI(t *testing.T) {
	srv := newServer(t, serve.Config{})
	lbm, err := examples.Read("lbm-d3q19-pull")
	if err != nil {
		t.Fatal(err)
	}
	specJSON, _ := json.Marshal(string(lbm))
	for _, c := range []struct {
		body  string
		stdin string
		args  []string
	}{
		{`{}`, "", []string{"predict", "--format", "json"}},
		{`{"example": "star3d-r4", "device": "A100-40GB", "block": "256,1,2", "fold": "1,1,2", "domain": "640,512,512", "method": "exact", "model": "roofline"}`, "",
			[]string{"predict", "star3d-r4", "--device", "A100-40GB", "--block", "256,1,2", "--fold", "1,1,2", "--domain", "640,512,512", "--method", "exact", "--model", "roofline", "--format", "json"}},
		{`{"spec": ` + string(specJSON) + `, "device": "H100-SXM", "block": "128,2,2", "method": "reference", "model": "latency"}`, string(lbm),
			[]string{"predict", "-", "--device", "H100-SXM", "--block", "128,2,2", "--method", "reference", "--model", "latency", "--format", "json"}},
	} {
		status, got := post(t, srv.URL+"/api/predict", c.body)
		if status != http.StatusOK {
			t.Fatalf("%s: status %d: %s", c.body[:min(60, len(c.body))], status, got)
		}
		if want := cliJSON(t, c.stdin, c.args...); !bytes.Equal(got, want) {
			t.Errorf("/api/predict %s differs from polyvol %s", c.body[:min(60, len(c.body))], strings.Join(c.args, " "))
		}
	}
}

// TestSimulateEqualsCLI checks /api/simulate against polyvol simulate with
// the server's --max-accesses.
func TestSimulateEqualsCLI(t *testing.T) {
	srv := newServer(t, serve.Config{})
	status, got := post(t, srv.URL+"/api/simulate", `{"example": "star3d-r1", "domain": "64,32,16", "block": "32,4,2", "schedule": "block", "infinite": false}`)
	if status != http.StatusOK {
		t.Fatalf("status %d: %s", status, got)
	}
	want := cliJSON(t, "", "simulate", "star3d-r1", "--domain", "64,32,16", "--block", "32,4,2", "--schedule", "block", "--max-accesses", "134217728", "--format", "json")
	if !bytes.Equal(got, want) {
		t.Errorf("/api/simulate differs from polyvol simulate:\n%s\n%s", got, want)
	}
}

// TestSimulateSizeBound checks that a simulation over the server's bound is
// refused as the request's error.
func TestSimulateSizeBound(t *testing.T) {
	srv := newServer(t, serve.Config{MaxSimAccesses: 1000})
	status, got := post(t, srv.URL+"/api/simulate", `{"example": "star3d-r1", "domain": "64,32,16"}`)
	if status != http.StatusBadRequest || !bytes.Contains(got, []byte("too large")) {
		t.Errorf("status %d: %s; want 400 with 'too large'", status, got)
	}
}

// TestDevicesAndExamples checks /api/devices against polyvol devices and
// /api/examples against the embedded example files.
func TestDevicesAndExamples(t *testing.T) {
	srv := newServer(t, serve.Config{})
	resp, err := http.Get(srv.URL + "/api/devices")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if want := cliJSON(t, "", "devices", "--format", "json"); !bytes.Equal(got, want) {
		t.Error("/api/devices differs from polyvol devices --format json")
	}

	resp, err = http.Get(srv.URL + "/api/examples")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var list []struct{ Name, Spec string }
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir("../examples")
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, e := range entries {
		if name, ok := strings.CutSuffix(e.Name(), ".yaml"); ok {
			files = append(files, name)
		}
	}
	sort.Strings(files) // by name: "a-b.yaml" sorts before "a.yaml" as a file
	if len(list) != len(files) {
		t.Fatalf("%d examples, examples/ holds %d specs", len(list), len(files))
	}
	for i, ex := range list {
		want, err := os.ReadFile(filepath.Join("../examples", files[i]+".yaml"))
		if err != nil {
			t.Fatal(err)
		}
		if ex.Name != files[i] || ex.Spec != string(want) {
			t.Errorf("example %d is %q, want examples/%s.yaml", i, ex.Name, files[i])
		}
	}
}

// TestLayercondEqualsCLI checks that /api/layercond holds the JSON and the
// SVG plot of polyvol layercond --plot.
func TestLayercondEqualsCLI(t *testing.T) {
	srv := newServer(t, serve.Config{})
	status, got := post(t, srv.URL+"/api/layercond", `{"example": "star3d-r4", "block": "1024,1,1:256,1,4", "sweep": "256:1024:4", "device": "A100-40GB"}`)
	if status != http.StatusOK {
		t.Fatalf("status %d: %s", status, got)
	}
	var answer struct {
		Report json.RawMessage `json:"report"`
		SVG    string          `json:"svg"`
	}
	if err := json.Unmarshal(got, &answer); err != nil {
		t.Fatal(err)
	}
	plot := filepath.Join(t.TempDir(), "plot.svg")
	want := cliJSON(t, "", "layercond", "star3d-r4", "--block", "1024,1,1:256,1,4", "--sweep", "256:1024:4", "--device", "A100-40GB", "--plot", plot, "--format", "json")
	if !bytes.Equal(answer.Report, bytes.TrimSpace(want)) {
		t.Error("report differs from polyvol layercond --format json")
	}
	wantSVG, err := os.ReadFile(plot)
	if err != nil {
		t.Fatal(err)
	}
	if answer.SVG != string(wantSVG) || !strings.Contains(answer.SVG, "<svg") {
		t.Error("svg differs from the plot of polyvol layercond --plot")
	}
}

// TestExploreStream checks /api/explore: progress lines that count up to the
// total, then the exploration, equal to polyvol explore --format json
// compacted onto one line.
func TestExploreStream(t *testing.T) {
	srv := newServer(t, serve.Config{})
	resp, err := http.DefaultClient.Do(apiRequest(t, srv.URL+"/api/explore", `{"example": "star3d-r4", "threads": 128, "folds": "1,1,1:1,1,2", "device": "V100"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/x-ndjson" {
		t.Fatalf("status %d, content type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	want := cliJSON(t, "", "explore", "star3d-r4", "--threads", "128", "--folds", "1,1,1:1,1,2", "--device", "V100", "--format", "json")
	var compact bytes.Buffer
	if err := json.Compact(&compact, want); err != nil {
		t.Fatal(err)
	}
	var e struct {
		Rows    []json.RawMessage
		Skipped []json.RawMessage
	}
	if err := json.Unmarshal(want, &e); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(resp.Body)
	lines.Buffer(nil, 64<<20)
	done, total, last := -1, -1, ""
	for lines.Scan() {
		last = lines.Text()
		var p struct{ Progress *struct{ Done, Total int } }
		if err := json.Unmarshal(lines.Bytes(), &p); err != nil {
			t.Fatalf("line %q: %v", last[:min(80, len(last))], err)
		}
		if p.Progress == nil {
			break
		}
		if p.Progress.Done != done+1 || (total >= 0 && p.Progress.Total != total) {
			t.Fatalf("progress %d of %d after %d of %d", p.Progress.Done, p.Progress.Total, done, total)
		}
		done, total = p.Progress.Done, p.Progress.Total
	}
	if total != len(e.Rows)+len(e.Skipped) || done != total {
		t.Errorf("progress ended at %d of %d, the exploration has %d rows and %d skipped", done, total, len(e.Rows), len(e.Skipped))
	}
	if wantLine := `{"exploration":` + compact.String() + `}`; last != wantLine {
		t.Errorf("last line differs from polyvol explore --format json compacted")
	}
	if lines.Scan() {
		t.Errorf("text after the exploration: %q", lines.Text())
	}
}

// errorAnswer is the JSON of an error answer.
type errorAnswer struct {
	Error  string
	File   string
	Line   int
	Column int
	Field  string
}

// TestUserErrors checks that bad requests get status 400 and a JSON error
// that locates the mistake; the spec errors are those polyvol predict
// prints for the same text, their position in the keys that locate them
// rather than in the message. An unknown example gets a suggestion.
func TestUserErrors(t *testing.T) {
	srv := newServer(t, serve.Config{MaxBodyBytes: 4096})
	specBody := func(spec string) string {
		data, _ := json.Marshal(map[string]string{"spec": spec})
		return string(data)
	}
	syntax := "name: t\ndomain: [64, 64]\nflops: : 3\n"
	for _, c := range []struct {
		path, body string
		want       errorAnswer
	}{
		{"/api/predict", specBody(badElementSpec), errorAnswer{File: "<stdin>", Line: 5, Column: 14, Field: `field "u" element`}},
		{"/api/predict", specBody(syntax), errorAnswer{File: "<stdin>", Line: 3, Column: 8}}, // the second colon of "flops: : 3"
		{"/api/predict", `{"block": "0,1,1"}`, errorAnswer{Field: "block"}},
		{"/api/predict", `{"device": "no-such-gpu"}`, errorAnswer{Field: "device"}},
		{"/api/predict", `{"device-file": "/etc/passwd"}`, errorAnswer{}},
		{"/api/predict", `{"example": "/etc/passwd"}`, errorAnswer{}},
		{"/api/predict", `{"example": "star3d-r4", "spec": "name: x"}`, errorAnswer{}},
		{"/api/predict", `{"block": [256, 1, 2]}`, errorAnswer{}},
		{"/api/predict", `{"block": "256,1,2"} {}`, errorAnswer{}},
		{"/api/predict", `not json`, errorAnswer{}},
		{"/api/predict", `{"spec": "` + strings.Repeat("x", 5000) + `"}`, errorAnswer{}},
		{"/api/explore", `{"example": "star3d-r4", "threads": 100}`, errorAnswer{Field: "threads"}},
		{"/api/explore", `{"example": "star3d-r4", "folds": "1,1,1:1,1,2:1,1,4:1,2,1:1,2,2:1,2,4:1,4,1:1,4,2:1,4,4"}`, errorAnswer{Field: "folds"}},
		{"/api/layercond", `{"sweep": "1:2:3:4"}`, errorAnswer{Field: "sweep"}},
		{"/api/simulate", `{"schedule": "random"}`, errorAnswer{Field: "schedule"}},
	} {
		status, body := post(t, srv.URL+c.path, c.body)
		var got errorAnswer
		if err := json.Unmarshal(body, &got); err != nil || status != http.StatusBadRequest || got.Error == "" {
			t.Errorf("%s %.60s: status %d, body %s; want 400 with a JSON error", c.path, c.body, status, body)
			continue
		}
		if c.want.File != "" {
			var stderr bytes.Buffer
			var spec map[string]string
			_ = json.Unmarshal([]byte(c.body), &spec)
			cli.RunWithInput([]string{"polyvol", "predict", "-"}, strings.NewReader(spec["spec"]), io.Discard, &stderr)
			if want := fmt.Sprintf("polyvol: %s:%d:%d: %s\n", got.File, got.Line, got.Column, got.Error); stderr.String() != want {
				t.Errorf("%s: error %q at %s:%d:%d, polyvol predict says %q", c.path, got.Error, got.File, got.Line, got.Column, stderr.String())
			}
			if strings.Contains(got.Error, fmt.Sprintf("%s:%d:", got.File, got.Line)) {
				t.Errorf("%s: error %q repeats the position that file, line and column give", c.path, got.Error)
			}
		}
		got.Error = ""
		if got != c.want {
			t.Errorf("%s %.60s: located at %+v, want %+v", c.path, c.body, got, c.want)
		}
	}
	if status, body := post(t, srv.URL+"/api/predict", `{"example": "star3d-r5"}`); status != http.StatusBadRequest || !bytes.Contains(body, []byte("did you mean star3d-r1 or star3d-r4?")) {
		t.Errorf("example star3d-r5: status %d, body %s; want 400 suggesting star3d-r1 or star3d-r4", status, body)
	}
}

// TestSpecsThatCrashedISL sends the specs whose raw maps once made libisl
// divide by zero, which killed the server: each is a 400 that points into
// the map, and the server answers the next request.
func TestSpecsThatCrashedISL(t *testing.T) {
	srv := newServer(t, serve.Config{})
	for _, m := range []string{"{ [x, y, z] -> A[x, y, z] : x < 5 // 0 }", "{ [x, y, z] -> A[x, y, z] : 0 <= x < 1//0 }"} {
		spec := "name: crash\ndomain: [64, 64, 64]\nflops: 0\nfields:\n  - name: A\n    element: 8\n    load_isl:\n      - \"" + m + "\"\n"
		data, _ := json.Marshal(map[string]string{"spec": spec})
		status, body := post(t, srv.URL+"/api/predict", string(data))
		var got errorAnswer
		if err := json.Unmarshal(body, &got); err != nil || status != http.StatusBadRequest || !strings.Contains(got.Error, "division by zero") || got.Line != 8 {
			t.Errorf("%s: status %d, body %s; want 400 locating the division by zero on line 8", m, status, body)
		}
		if status, body := post(t, srv.URL+"/api/predict", `{"example": "vec-copy"}`); status != http.StatusOK {
			t.Fatalf("after %s: status %d, body %s; want the server to answer", m, status, body)
		}
	}
}

// TestHostAndMethod checks the DNS-rebinding guard (loopback Host names
// and those of Config.Hosts only) and that the API refuses other methods.
func TestHostAndMethod(t *testing.T) {
	srv := newServer(t, serve.Config{})
	for host, want := range map[string]int{
		"localhost":              http.StatusOK,
		"LOCALHOST:8080":         http.StatusOK,
		"127.0.0.1:80":           http.StatusOK,
		"[::1]:8080":             http.StatusOK,
		"app.localhost":          http.StatusOK,
		"evil.example":           http.StatusForbidden,
		"evil.example:8080":      http.StatusForbidden,
		"localhost.evil.example": http.StatusForbidden,
		"10.0.0.1":               http.StatusForbidden,
	} {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/api/examples", nil)
		req.Host = host
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("Host %q: status %d, want %d", host, resp.StatusCode, want)
		}
	}
	named := newServer(t, serve.Config{Hosts: []string{"Calculator.Example", "192.0.2.7", "2001:db8::7"}})
	for host, want := range map[string]int{
		"calculator.example":      http.StatusOK,
		"CALCULATOR.example.:80":  http.StatusOK,
		"192.0.2.7:8080":          http.StatusOK,
		"[2001:db8:0::7]:8080":    http.StatusOK,
		"localhost":               http.StatusOK,
		"other.example":           http.StatusForbidden,
		"calculator.example.evil": http.StatusForbidden,
		"192.0.2.8":               http.StatusForbidden,
	} {
		req, _ := http.NewRequest(http.MethodGet, named.URL+"/", nil)
		req.Host = host
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		page, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want || want == http.StatusOK && !bytes.Contains(page, []byte("polyvol calculator")) {
			t.Errorf("Hosts: Host %q: status %d, want %d with the page", host, resp.StatusCode, want)
		}
	}
	resp, err := http.Get(srv.URL + "/api/predict")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET /api/predict: status %d, want 405", resp.StatusCode)
	}
}

// answerWrapper returns the answer that replaces the answer a of the
// endpoint of command.
type answerWrapper func(command string, a serve.Answer) serve.Answer

// wrapAnswers replaces the answer of every endpoint of s that runs work
// with wrap's, before s serves.
func wrapAnswers(s *serve.Server, wrap answerWrapper) *serve.Server {
	for _, command := range []string{"predict", "simulate", "layercond", "explore"} {
		s.SetAnswer(command, wrap(command, s.AnswerOf(command)))
	}
	return s
}

// blockingAnswers replace every answer by one that waits until release
// is closed and then answers {}.
type blockingAnswers struct {
	started chan struct{}
	release chan struct{}
}

func (b blockingAnswers) wrap(string, serve.Answer) serve.Answer {
	return func(context.Context, map[string]string, func(int, int)) ([]byte, []string, error) {
		b.started <- struct{}{}
		<-b.release
		return []byte("{}\n"), nil, nil
	}
}

// TestPredictNotes checks that the notes polyvol predict prints on standard
// error come as Polyvol-Note headers.
func TestPredictNotes(t *testing.T) {
	srv := newServer(t, serve.Config{})
	resp, err := http.DefaultClient.Do(apiRequest(t, srv.URL+"/api/predict", `{"example": "star3d-r4", "domain": "640,512,8"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	var stderr bytes.Buffer
	if code := cli.RunWithInput([]string{"polyvol", "predict", "star3d-r4", "--domain", "640,512,8"}, strings.NewReader(""), io.Discard, &stderr); code != cli.ExitOK {
		t.Fatalf("polyvol predict: exit %d: %s", code, stderr.String())
	}
	var want []string
	for _, line := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
		want = append(want, strings.TrimPrefix(line, "polyvol: note: "))
	}
	if got := resp.Header.Values("Polyvol-Note"); len(want) == 0 || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("notes %q, polyvol predict prints %q", got, want)
	}
}

// TestErrorKinds checks the "kind" of the 400 answers: a bad key value is
// the input's fault, and a launch whose registers leave no block room on an
// SM does not fit (request's own tests cover the bounds' kind).
func TestErrorKinds(t *testing.T) {
	srv := newServer(t, serve.Config{})
	for _, c := range []struct{ body, kind string }{
		{`{"block": "0,1,1"}`, "input"},
		{`{"example": "star3d-r4", "block": "1024,1,1", "registers": "255"}`, "no-fit"},
	} {
		status, body := post(t, srv.URL+"/api/predict", c.body)
		var got struct{ Kind, Error string }
		if err := json.Unmarshal(body, &got); err != nil || status != http.StatusBadRequest || got.Kind != c.kind {
			t.Errorf("%.60s: status %d, body %s; want 400 of kind %s", c.body, status, body, c.kind)
		}
	}
}
