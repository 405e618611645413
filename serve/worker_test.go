package serve_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/polyvol/polyvol/serve"
	"github.com/polyvol/polyvol/supervise"
)

// withWorkers answers the test's requests in worker processes.
func withWorkers(t *testing.T) {
	t.Helper()
	if !supervise.EnableWorkers() {
		t.Fatal("workers could not be enabled")
	}
	t.Cleanup(supervise.DisableWorkers)
}

// rawMapSpec is a spec request whose load is a raw ISL map, read by ISL.
func rawMapSpec(isl string) string {
	spec := "name: raw\ndomain: [256, 64]\nfields:\n  - name: A\n    element: 8\n    extent: [260, 64]\n    load_isl: [\"" + isl + "\"]\n    store: [[x, y]]\n"
	data, _ := json.Marshal(map[string]string{"spec": spec, "block": "64,4"})
	return string(data)
}

// TestWorkerAnswersEqualInProcess answers the same requests in this
// process and in workers: the statuses and bodies agree byte for byte,
// errors included, and so does explore's stream.
func TestWorkerAnswersEqualInProcess(t *testing.T) {
	srv := newServer(t, serve.Config{Slots: 2})
	requests := []struct{ path, body string }{
		{"/api/predict", `{"example": "star3d-r1", "block": "128,2,1", "domain": "128,64,32"}`},
		{"/api/predict", rawMapSpec("{ [x, y] -> A[x + 2, y] : x < 250 }")},
		{"/api/predict", rawMapSpec("{ [x, y] -> A[x // 0, y] }")},
		{"/api/predict", `{"example": "no-such-kernel"}`},
		{"/api/predict", `{"example": "star3d-r1", "block": "2048,1,1"}`},
		{"/api/simulate", `{"example": "star3d-r1", "domain": "64,32,16", "block": "32,4,2"}`},
		{"/api/layercond", `{"example": "star3d-r4", "block": "256,1,1", "sweep": "256:512:2", "device": "A100-40GB"}`},
		{"/api/explore", `{"example": "star2d-r1", "domain": "512,512", "top": "3"}`},
	}
	var want []string
	for _, r := range requests {
		status, body := post(t, srv.URL+r.path, r.body)
		want = append(want, fmt.Sprintf("%d %s", status, body))
	}
	withWorkers(t)
	for i, r := range requests {
		status, body := post(t, srv.URL+r.path, r.body)
		if got := fmt.Sprintf("%d %s", status, body); got != want[i] {
			t.Errorf("%s %s:\n in a worker %.300s\n in process  %.300s", r.path, r.body, got, want[i])
		}
	}
}

// TestHostileRequestEndsItsWorkerOnly sends a map that runs ISL without
// bound: its answer is a work-bound error within the limits of the worker
// that reads it, and the server answers the next request.
func TestHostileRequestEndsItsWorkerOnly(t *testing.T) {
	srv := newServer(t, serve.Config{Slots: 2})
	withWorkers(t)
	status, body := post(t, srv.URL+"/api/predict", rawMapSpec("{ [x, y] -> A[((((x mod 3) mod 5 + x) mod 7 + 2x) mod 11 + x) mod 13, y] : x mod 17 = (x mod 19) mod 23 }"))
	var answer struct{ Error, Kind string }
	if err := json.Unmarshal(body, &answer); err != nil || status != http.StatusBadRequest || answer.Kind != "work-bound" || !strings.Contains(answer.Error, "reading the map with libisl: the work passed its") {
		t.Errorf("status %d, body %s; want 400, a work bound of reading the map", status, body)
	}
	if status, body := post(t, srv.URL+"/api/predict", `{"example": "vec-copy"}`); status != http.StatusOK {
		t.Errorf("the next request: status %d, body %.200s", status, body)
	}
}

// TestKilledWorkerIsOneError kills the worker of a running request with
// SIGKILL, as a crash in C code or the kernel's OOM killer would: the
// request is answered 500 with the crash, and the next request is
// answered by a new worker.
func TestKilledWorkerIsOneError(t *testing.T) {
	srv := newServer(t, serve.Config{Slots: 1})
	withWorkers(t)
	done := make(chan struct {
		status int
		body   []byte
	}, 1)
	before := childWorkers()
	go func() {
		status, body := post(t, srv.URL+"/api/simulate", `{"example": "star3d-r1", "domain": "512,512,64", "block": "256,1,1"}`)
		done <- struct {
			status int
			body   []byte
		}{status, body}
	}()
	pid := newChildWorker(t, before)
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	r := <-done
	var answer struct{ Error, Kind string }
	if err := json.Unmarshal(r.body, &answer); err != nil || r.status != http.StatusInternalServerError || answer.Error != "the worker process crashed: killed by signal 9 (killed)" {
		t.Errorf("status %d, body %s; want 500 and the worker's end", r.status, r.body)
	}
	if status, body := post(t, srv.URL+"/api/predict", `{"example": "vec-copy"}`); status != http.StatusOK {
		t.Errorf("the next request: status %d, body %.200s", status, body)
	}
}

// newChildWorker waits for a worker process, a child of the test process
// not among before, and returns its pid.
func newChildWorker(t *testing.T, before map[int]bool) int {
	t.Helper()
	for range 1000 {
		for pid := range childWorkers() {
			if !before[pid] {
				return pid
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatal("no worker process started")
	return 0
}

// childWorkers returns the worker processes that are children of the test
// process: running, and started with the worker's environment.
func childWorkers() map[int]bool {
	out := map[int]bool{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(fields) < 2 || fields[0] == "Z" || fields[1] != strconv.Itoa(os.Getpid()) {
			continue
		}
		if env, err := os.ReadFile("/proc/" + e.Name() + "/environ"); err == nil && strings.Contains(string(env), "\x00POLYVOL_WORKER=") {
			out[pid] = true
		}
	}
	return out
}
