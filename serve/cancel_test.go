package serve_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/polyvol/polyvol/serve"
)

// recordedRun is how one answer of recordingAnswers ended.
type recordedRun struct {
	err      error
	ended    time.Time
	progress int // the progress reports of the command, the one of 0 done included
}

// recordingAnswers run polyvol's answers and send how each ended.
type recordingAnswers struct{ ended chan recordedRun }

func newRecordingAnswers() recordingAnswers {
	return recordingAnswers{ended: make(chan recordedRun, 16)}
}

func (r recordingAnswers) wrap(_ string, a serve.Answer) serve.Answer {
	return func(ctx context.Context, values map[string]string, progress func(int, int)) ([]byte, []string, error) {
		var n atomic.Int64
		if progress != nil {
			report := progress
			progress = func(done, total int) {
				n.Add(1)
				report(done, total)
			}
		}
		body, notes, err := a(ctx, values, progress)
		r.ended <- recordedRun{err: err, ended: time.Now(), progress: int(n.Load())}
		return body, notes, err
	}
}

// wait returns the next command's end, failing the test after a minute.
func (r recordingAnswers) wait(t *testing.T) recordedRun {
	t.Helper()
	select {
	case run := <-r.ended:
		return run
	case <-time.After(time.Minute):
		t.Fatal("the command still runs a minute after its request ended")
	}
	return recordedRun{}
}

// TestClientLeavesExplore starts a ranking of lbm-d3q27-aos (105
// configurations, about 10 s on 2 cores) and closes the connection after
// the third progress line: the command must stop with the context's error
// long before it has estimated every configuration.
func TestClientLeavesExplore(t *testing.T) {
	rec := newRecordingAnswers()
	srv := newServer(t, serve.Config{Slots: 2}, rec.wrap)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req := apiRequest(t, srv.URL+"/api/explore", `{"example": "lbm-d3q27-aos"}`).WithContext(ctx)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	lines := bufio.NewScanner(resp.Body)
	total := 0
	for i := 0; i < 3 && lines.Scan(); i++ {
		var p struct{ Progress struct{ Done, Total int } }
		if err := json.Unmarshal(lines.Bytes(), &p); err != nil || p.Progress.Total == 0 {
			t.Fatalf("line %d: %q, want progress", i+1, lines.Text())
		}
		total = p.Progress.Total
	}
	left := time.Now()
	cancel()
	run := rec.wait(t)
	latency := run.ended.Sub(left)
	t.Logf("explore stopped %v after the client left, after %d of %d progress reports", latency.Round(time.Millisecond), run.progress, total+1)
	if !errors.Is(run.err, context.Canceled) {
		t.Errorf("explore ended with %v, want the context's cancellation", run.err)
	}
	if run.progress > total/2 {
		t.Errorf("explore made %d of %d progress reports before it stopped: it went on after the client left", run.progress, total+1)
	}
}

// TestClientLeavesLayercond starts a layer-condition sweep of
// lbm-d3q27-aos over 253 plane sizes (about 50 s on 2 cores) and closes
// the connection after a second: the sweep must stop with the context's
// error.
func TestClientLeavesLayercond(t *testing.T) {
	rec := newRecordingAnswers()
	srv := newServer(t, serve.Config{Slots: 2}, rec.wrap)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req := apiRequest(t, srv.URL+"/api/layercond", `{"example": "lbm-d3q27-aos", "block": "256,1,1", "sweep": "64:4096:+16"}`).WithContext(ctx)
	answered := make(chan error, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
			err = errors.New("answered with status " + resp.Status)
		}
		answered <- err
	}()
	time.Sleep(time.Second)
	left := time.Now()
	cancel()
	run := rec.wait(t)
	t.Logf("layercond stopped %v after the client left", run.ended.Sub(left).Round(time.Millisecond))
	if !errors.Is(run.err, context.Canceled) {
		t.Errorf("layercond ended with %v, want the context's cancellation", run.err)
	}
	if err := <-answered; !errors.Is(err, context.Canceled) {
		t.Errorf("client: %v, want its own cancellation", err)
	}
}

// TestBudgetStopsSimulate simulates star3d-r1 on 512×512×64 points (2^27
// accesses, about 2 s) under a time budget of 300 ms: the answer is 503 and
// the simulation stops with the context's deadline.
func TestBudgetStopsSimulate(t *testing.T) {
	rec := newRecordingAnswers()
	srv := newServer(t, serve.Config{RequestTimeout: 300 * time.Millisecond}, rec.wrap)
	start := time.Now()
	status, body := post(t, srv.URL+"/api/simulate", `{"example": "star3d-r1", "domain": "512,512,64", "block": "256,1,1"}`)
	if status != http.StatusServiceUnavailable || !strings.Contains(string(body), "ran past") {
		t.Errorf("status %d, %s; want 503 past the time budget", status, body)
	}
	run := rec.wait(t)
	t.Logf("simulate stopped %v after its budget of 300 ms ran out", run.ended.Sub(start.Add(300*time.Millisecond)).Round(time.Millisecond))
	if run.err == nil || !strings.Contains(run.err.Error(), context.DeadlineExceeded.Error()) {
		t.Errorf("simulate ended with %v, want the context's deadline", run.err)
	}
}
