package serve_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/polyvol/polyvol/serve"
)

// TestLoad starts the server on 127.0.0.1:0 and sends it bursts of
// concurrent requests, valid and invalid, from the test itself. Every answer
// must be the CLI's JSON for its flags (or a 400 error for the bad ones),
// and the heap after each burst must stay near the heap after the first:
// the server keeps nothing per request.
func TestLoad(t *testing.T) {
	srv := newServer(t, serve.Config{})
	if u, err := url.Parse(srv.URL); err != nil || u.Hostname() != "127.0.0.1" {
		t.Fatalf("server at %s, want 127.0.0.1", srv.URL)
	}
	blocks := []string{"256,1,2", "128,2,2", "64,4,2", "32,8,2", "512,1,1", "1024,1,1", "32,4,4"}
	want := map[string][]byte{}
	for _, b := range blocks {
		want[b] = cliJSON(t, "", "predict", "star3d-r1", "--block", b, "--format", "json")
	}
	client := &http.Client{Timeout: 2 * time.Minute}
	const bursts, perBurst = 6, 24
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
	resp, err := client.Post(base+"/api/predict", "application/json", strings.NewReader(body))
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
