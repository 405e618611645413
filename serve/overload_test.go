package serve_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/polyvol/polyvol/serve"
)

// overloadRequest is one kind of request of TestOverload: its method, path
// and body, and the check of a 200 answer's body.
type overloadRequest struct {
	kind, method, path, body string
	check                    func(body []byte) error
}

// overloadAnswer is how one request of TestOverload was answered.
type overloadAnswer struct {
	kind       string
	status     int
	retryAfter string
	body       []byte
	latency    time.Duration
	err        error
}

// equalTo returns a check that a body is want, byte for byte.
func equalTo(want []byte) func([]byte) error {
	return func(body []byte) error {
		if !bytes.Equal(body, want) {
			return fmt.Errorf("%d bytes differ from the CLI's %d", len(body), len(want))
		}
		return nil
	}
}

// vmHWM returns the peak resident memory of the process in bytes (VmHWM of
// /proc/self/status), or -1 where it is not known.
func vmHWM() int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for line := range strings.Lines(string(data)) {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				return -1
			}
			return kb << 10
		}
	}
	return -1
}

// percentile returns the p-th percentile (0 < p <= 100) of sorted
// durations, the nearest rank.
func percentile(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[max(0, (len(sorted)*p+99)/100-1)]
}

// TestOverload sends 200 requests at once to a server on 127.0.0.1 with
// polyvol's own runner and 2 slots, so that most find its queue full:
// light predictions of an example, explorations, simulations and
// layer-condition sweeps of small configurations, and the device list.
// Every answer must be 200 with the CLI's output for the same flags, or
// 503 with a JSON error and Retry-After; the process, which hosts the
// server, must stay under 300 MB of resident memory at its peak (times the
// race detector's overhead under it); and the
// goroutines and open file descriptors must return near their count before
// the requests once the client has closed its connections. A prediction
// sent afterwards is served. The latencies of the predictions are logged.
func TestOverload(t *testing.T) {
	const (
		requests = 200
		maxRSS   = 300 << 20
	)
	// The peak resident memory of the test alone: writing 5 to clear_refs
	// resets VmHWM to the current resident memory.
	hwmReset := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil

	explored := cliJSON(t, "", "explore", "star3d-r4", "--threads", "128", "--folds", "1,1,1:1,1,2", "--device", "V100", "--format", "json")
	var exploration bytes.Buffer
	if err := json.Compact(&exploration, explored); err != nil {
		t.Fatal(err)
	}
	wantExplore := `{"exploration":` + exploration.String() + `}`
	plot := filepath.Join(t.TempDir(), "plot.svg")
	wantLayercond := bytes.TrimSpace(cliJSON(t, "", "layercond", "star3d-r4", "--block", "1024,1,1:256,1,4", "--sweep", "256:1024:4", "--device", "A100-40GB", "--plot", plot, "--format", "json"))
	kinds := []overloadRequest{
		{kind: "predict", method: http.MethodPost, path: "/api/predict", body: `{"example": "star3d-r1", "block": "256,1,2"}`,
			check: equalTo(cliJSON(t, "", "predict", "star3d-r1", "--block", "256,1,2", "--format", "json"))},
		{kind: "explore", method: http.MethodPost, path: "/api/explore", body: `{"example": "star3d-r4", "threads": 128, "folds": "1,1,1:1,1,2", "device": "V100"}`,
			check: func(body []byte) error {
				lines := strings.Split(strings.TrimSuffix(string(body), "\n"), "\n")
				if last := lines[len(lines)-1]; last != wantExplore {
					return fmt.Errorf("the stream ends with %.100q, not the CLI's exploration", last)
				}
				return nil
			}},
		{kind: "simulate", method: http.MethodPost, path: "/api/simulate", body: `{"example": "star3d-r1", "domain": "64,32,16", "block": "32,4,2"}`,
			check: equalTo(cliJSON(t, "", "simulate", "star3d-r1", "--domain", "64,32,16", "--block", "32,4,2", "--max-accesses", "134217728", "--format", "json"))},
		{kind: "layercond", method: http.MethodPost, path: "/api/layercond", body: `{"example": "star3d-r4", "block": "1024,1,1:256,1,4", "sweep": "256:1024:4", "device": "A100-40GB"}`,
			check: func(body []byte) error {
				var a struct {
					Report json.RawMessage `json:"report"`
					SVG    string          `json:"svg"`
				}
				if err := json.Unmarshal(body, &a); err != nil {
					return err
				}
				if !bytes.Equal(a.Report, wantLayercond) || !strings.Contains(a.SVG, "<svg") {
					return fmt.Errorf("report or plot differs from the CLI's")
				}
				return nil
			}},
		{kind: "devices", method: http.MethodGet, path: "/api/devices", check: equalTo(cliJSON(t, "", "devices", "--format", "json"))},
	}
	// Six in ten requests are light predictions; the other kinds take one
	// in ten each.
	kindOf := func(i int) overloadRequest { return kinds[max(0, i%10-5)] }

	srv := newServer(t, serve.Config{Slots: 2})
	transport := &http.Transport{}
	client := &http.Client{Transport: transport, Timeout: 3 * time.Minute}
	fds0, goroutines0 := openFDs(), runtime.NumGoroutine()

	answers := make([]overloadAnswer, requests)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range answers {
		wg.Go(func() {
			r := kindOf(i)
			a := &answers[i]
			a.kind = r.kind
			req, err := http.NewRequest(r.method, srv.URL+r.path, strings.NewReader(r.body))
			if err != nil {
				a.err = err
				return
			}
			if r.method == http.MethodPost {
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set(serve.TokenHeader, testToken)
			}
			<-start
			sent := time.Now()
			resp, err := client.Do(req)
			if err != nil {
				a.err = err
				return
			}
			defer resp.Body.Close()
			a.body, a.err = io.ReadAll(bufio.NewReader(resp.Body))
			a.latency = time.Since(sent)
			a.status, a.retryAfter = resp.StatusCode, resp.Header.Get("Retry-After")
		})
	}
	began := time.Now()
	close(start)
	wg.Wait()
	took := time.Since(began)

	type tally struct{ ok, busy int }
	counts := map[string]*tally{}
	for _, r := range kinds {
		counts[r.kind] = &tally{}
	}
	var predictAll, predictOK []time.Duration
	var retries []int
	for i, a := range answers {
		switch {
		case a.err != nil:
			t.Errorf("request %d (%s): %v", i, a.kind, a.err)
			continue
		case a.status == http.StatusOK:
			counts[a.kind].ok++
			if err := kindOf(i).check(a.body); err != nil {
				t.Errorf("request %d (%s): 200, but %v", i, a.kind, err)
			}
		case a.status == http.StatusServiceUnavailable:
			counts[a.kind].busy++
			var e errorAnswer
			if err := json.Unmarshal(a.body, &e); err != nil || !strings.Contains(e.Error, "busy") {
				t.Errorf("request %d (%s): 503 with %.200s; want a JSON error saying the server is busy", i, a.kind, a.body)
			}
			s, err := strconv.Atoi(a.retryAfter)
			if err != nil || s < 1 || s > int(serve.DefaultRequestTimeout/time.Second) {
				t.Errorf("request %d (%s): 503 with Retry-After %q; want 1 to %d seconds", i, a.kind, a.retryAfter, int(serve.DefaultRequestTimeout/time.Second))
			}
			retries = append(retries, s)
		default:
			t.Errorf("request %d (%s): status %d, %.200s; want 200 or 503", i, a.kind, a.status, a.body)
		}
		if a.kind == "predict" {
			predictAll = append(predictAll, a.latency)
			if a.status == http.StatusOK {
				predictOK = append(predictOK, a.latency)
			}
		}
	}
	for _, r := range kinds {
		t.Logf("%-9s %3d answered 200, %3d answered 503", r.kind, counts[r.kind].ok, counts[r.kind].busy)
	}
	if len(retries) > 0 {
		t.Logf("Retry-After of the 503 answers: %d to %d s", slices.Min(retries), slices.Max(retries))
	}
	if ok := counts["predict"].ok; ok == 0 {
		t.Error("no prediction was answered 200: the server refused everything")
	}
	slices.Sort(predictAll)
	slices.Sort(predictOK)
	t.Logf("%d requests at once on %d CPUs took %v; latency of the %d predictions: p50 %v, p99 %v; of the %d answered 200: p50 %v, p99 %v",
		requests, runtime.NumCPU(), took.Round(time.Millisecond), len(predictAll),
		percentile(predictAll, 50).Round(time.Millisecond), percentile(predictAll, 99).Round(time.Millisecond),
		len(predictOK), percentile(predictOK, 50).Round(time.Millisecond), percentile(predictOK, 99).Round(time.Millisecond))

	hwm := vmHWM()
	t.Logf("peak resident memory of the process: %.1f MiB (since the test began: %v); %s", float64(hwm)/(1<<20), hwmReset, rss())
	if hwm > maxRSS*raceMemoryFactor {
		t.Errorf("peak resident memory %d MiB, want at most %d MiB", hwm>>20, maxRSS*raceMemoryFactor>>20)
	}

	// The storm leaves nothing behind: the next prediction is served.
	if status, body := send(t, apiRequest(t, srv.URL+kinds[0].path, kinds[0].body)); status != http.StatusOK || kinds[0].check(body) != nil {
		t.Errorf("a prediction after the requests: status %d, %.200s; want 200 with the CLI's JSON", status, body)
	}
	http.DefaultClient.CloseIdleConnections()
	transport.CloseIdleConnections()
	// The server's connections end once the client has closed them, and
	// their goroutines with them; that may take a moment. The counts are
	// given 10 s to return to where they were, and then a slack of 2.
	const fdSlack, goroutineSlack = 2, 2
	var fds, goroutines int
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		fds, goroutines = openFDs(), runtime.NumGoroutine()
		if fds <= fds0 && goroutines <= goroutines0 || time.Now().After(deadline) {
			break
		}
	}
	t.Logf("open file descriptors %d before the requests, %d after; goroutines %d before, %d after", fds0, fds, goroutines0, goroutines)
	if fds > fds0+fdSlack {
		t.Errorf("%d file descriptors open after the requests, %d before", fds, fds0)
	}
	if goroutines > goroutines0+goroutineSlack {
		t.Errorf("%d goroutines after the requests, %d before", goroutines, goroutines0)
	}
}
