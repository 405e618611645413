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

// TestStepsKeys checks the request key "steps" of predict and explore on
// the hotspot: each answers with the bytes of the command line with
// --steps, and a bad value, steps above 1 on a kernel without a state and
// the key on an endpoint without it are a 400 that names the key (none for
// the unknown key).
func TestStepsKeys(t *testing.T) {
	srv := newServer(t, serve.Config{})
	status, got := post(t, srv.URL+"/api/predict", `{"example": "hotspot", "device": "RTX-A4000", "block": "32,8", "fold": "2,2", "tile": "strided", "steps": 4}`)
	args := []string{"predict", "hotspot", "--device", "RTX-A4000", "--block", "32,8", "--fold", "2,2", "--tile", "strided", "--steps", "4", "--format", "json"}
	if want := cliJSON(t, "", args...); status != http.StatusOK || !bytes.Equal(got, want) {
		t.Errorf("/api/predict steps 4: status %d; differs from polyvol %s:\n%.300s", status, strings.Join(args, " "), got)
	}
	var r struct{ Launch struct{ Steps int64 } }
	if err := json.Unmarshal(got, &r); err != nil || r.Launch.Steps != 4 {
		t.Errorf("/api/predict steps 4: launch steps %d, %v", r.Launch.Steps, err)
	}

	resp, err := http.DefaultClient.Do(apiRequest(t, srv.URL+"/api/explore",
		`{"example": "hotspot", "device": "RTX-A4000", "domain": "512,512", "threads": 64, "folds": "1,1,1", "tiles": "consecutive", "steps": "1:3,8"}`))
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
	want := cliJSON(t, "", "explore", "hotspot", "--device", "RTX-A4000", "--domain", "512,512", "--threads", "64", "--folds", "1,1,1", "--tiles", "consecutive", "--steps", "1:3,8", "--format", "json")
	var compact bytes.Buffer
	if err := json.Compact(&compact, want); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || last != `{"exploration":`+compact.String()+`}` {
		t.Errorf("/api/explore with steps: status %d, last line %.200s; want polyvol explore --steps 1:3,8", resp.StatusCode, last)
	}
	if !strings.Contains(last, `"steps":[1,2,3,8]`) || !strings.Contains(last, `"steps":8`) {
		t.Errorf("the exploration lacks its steps or a row of 8 steps: %.300s", last)
	}

	for _, c := range []struct{ path, body, field string }{
		{"/api/predict", `{"example": "hotspot", "steps": "many"}`, "steps"},
		{"/api/predict", `{"example": "vec-copy", "steps": 2}`, "steps"},
		{"/api/explore", `{"example": "vec-copy", "steps": "1:2"}`, "steps"},
		{"/api/explore", `{"example": "hotspot", "steps": "3:1"}`, "steps"},
		{"/api/simulate", `{"example": "hotspot", "steps": 2}`, ""},
	} {
		status, body := post(t, srv.URL+c.path, c.body)
		var got errorAnswer
		if err := json.Unmarshal(body, &got); err != nil || status != http.StatusBadRequest || got.Field != c.field {
			t.Errorf("%s %s: status %d, body %s; want 400 naming field %q", c.path, c.body, status, body, c.field)
		}
	}
}
