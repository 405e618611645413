package serve_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/polyvol/polyvol/serve"
)

// TestStagingKeys checks the request keys "unstaged" (predict and
// simulate) and "staging" (explore) on the staged examples: each answers
// with the bytes of the command line with the flag of that name, and a bad
// value is a 400 that names the key.
func TestStagingKeys(t *testing.T) {
	srv := newServer(t, serve.Config{})
	for _, unstaged := range []bool{false, true} {
		body := `{"example": "convolution-15x15-staged", "domain": "512,512", "block": "32,8", "fold": "2,2", "tile": "strided"`
		args := []string{"predict", "convolution-15x15-staged", "--domain", "512,512", "--block", "32,8", "--fold", "2,2", "--tile", "strided"}
		if unstaged {
			body += `, "unstaged": true`
			args = append(args, "--unstaged")
		}
		status, got := post(t, srv.URL+"/api/predict", body+"}")
		if want := cliJSON(t, "", append(args, "--format", "json")...); status != http.StatusOK || !bytes.Equal(got, want) {
			t.Errorf("/api/predict unstaged=%v: status %d; differs from polyvol %s", unstaged, status, strings.Join(args, " "))
		}
		var r struct {
			Launch  struct{ Unstaged bool }
			Derived struct{ PerfShared *float64 }
		}
		if err := json.Unmarshal(got, &r); err != nil || r.Launch.Unstaged != unstaged || (r.Derived.PerfShared == nil) != unstaged {
			t.Errorf("unstaged=%v: launch unstaged %v, shared bound %v, %v", unstaged, r.Launch.Unstaged, r.Derived.PerfShared, err)
		}
	}

	status, got := post(t, srv.URL+"/api/simulate", `{"example": "star3d-r1-staged", "domain": "64,16,8", "block": "32,4,2", "unstaged": true}`)
	if want := cliJSON(t, "", "simulate", "star3d-r1-staged", "--domain", "64,16,8", "--block", "32,4,2", "--unstaged", "--max-accesses", "134217728", "--format", "json"); status != http.StatusOK || !bytes.Equal(got, want) {
		t.Errorf("/api/simulate unstaged: status %d; differs from polyvol simulate --unstaged:\n%s\n%s", status, got, want)
	}

	resp, err := http.DefaultClient.Do(apiRequest(t, srv.URL+"/api/explore",
		`{"example": "star3d-r1-staged", "domain": "32,32,32", "threads": 32, "folds": "1,1,1", "staging": "on,off"}`))
	if err != nil {
		t.Fatal(err)
	}
	var last string
	lines := bufio.NewScanner(resp.Body)
	lines.Buffer(nil, 64<<20)
	for lines.Scan() {
		last = lines.Text()
	}
	resp.Body.Close()
	want := cliJSON(t, "", "explore", "star3d-r1-staged", "--domain", "32,32,32", "--threads", "32", "--folds", "1,1,1", "--staging", "on,off", "--format", "json")
	var compact bytes.Buffer
	if err := json.Compact(&compact, want); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || last != `{"exploration":`+compact.String()+`}` {
		t.Errorf("/api/explore with staging: status %d, last line %.200s; want polyvol explore --staging on,off", resp.StatusCode, last)
	}
	if !strings.Contains(last, `"unstaged":[false,true]`) || !strings.Contains(last, `"unstaged":true`) {
		t.Errorf("the exploration lacks its staging choices or an unstaged row: %.300s", last)
	}

	for _, c := range []struct{ path, body, field string }{
		{"/api/predict", `{"unstaged": "perhaps"}`, "unstaged"},
		{"/api/explore", `{"example": "vec-copy", "staging": "on,on"}`, "staging"},
		{"/api/explore", `{"example": "vec-copy", "staging": "sometimes"}`, "staging"},
		{"/api/layercond", `{"staging": "off"}`, ""},
	} {
		status, body := post(t, srv.URL+c.path, c.body)
		var got errorAnswer
		if err := json.Unmarshal(body, &got); err != nil || status != http.StatusBadRequest || got.Field != c.field {
			t.Errorf("%s %s: status %d, body %s; want 400 naming field %q", c.path, c.body, status, body, c.field)
		}
	}
}
