package serve_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/polyvol/polyvol/serve"
)

// TestTileAndRegistersKeys checks the request keys "tile" (predict and
// simulate), "tiles" (explore) and "registers" (predict and explore): each
// answers with the bytes of the command line with the flag of that name,
// predict's register note comes as a Polyvol-Note header, and a bad value
// is a 400 that names the key.
func TestTileAndRegistersKeys(t *testing.T) {
	srv := newServer(t, serve.Config{})
	resp, err := http.DefaultClient.Do(apiRequest(t, srv.URL+"/api/predict",
		`{"example": "star2d-r1", "block": "256,1", "fold": "2,1", "tile": "strided", "registers": 128}`))
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("/api/predict: status %d, %v: %s", resp.StatusCode, err, got)
	}
	if want := cliJSON(t, "", "predict", "star2d-r1", "--block", "256,1", "--fold", "2,1", "--tile", "strided", "--registers", "128", "--format", "json"); !bytes.Equal(got, want) {
		t.Errorf("/api/predict with tile and registers differs from polyvol predict --tile strided --registers 128")
	}
	var r struct{ Launch struct{ Tiling string } }
	if err := json.Unmarshal(got, &r); err != nil || r.Launch.Tiling != "strided" {
		t.Errorf("launch tiling %q, %v; want strided", r.Launch.Tiling, err)
	}
	note := "occupancy is limited by registers: 2 blocks of 256 threads per SM at 128 registers per thread"
	if notes := strings.Join(resp.Header.Values("Polyvol-Note"), "\n"); !strings.Contains(notes, note) {
		t.Errorf("notes %q lack %q", notes, note)
	}

	status, got := post(t, srv.URL+"/api/simulate", `{"example": "star2d-r1", "domain": "256,64", "block": "32,8", "fold": "2,1", "tile": "strided"}`)
	if status != http.StatusOK {
		t.Fatalf("/api/simulate: status %d: %s", status, got)
	}
	if want := cliJSON(t, "", "simulate", "star2d-r1", "--domain", "256,64", "--block", "32,8", "--fold", "2,1", "--tile", "strided", "--max-accesses", "134217728", "--format", "json"); !bytes.Equal(got, want) {
		t.Errorf("/api/simulate with tile differs from polyvol simulate --tile strided:\n%s\n%s", got, want)
	}

	resp, err = http.DefaultClient.Do(apiRequest(t, srv.URL+"/api/explore",
		`{"example": "star2d-r1", "domain": "256,256", "threads": 32, "folds": "1,1,1:2,1,1", "tiles": "strided", "registers": 200}`))
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
	want := cliJSON(t, "", "explore", "star2d-r1", "--domain", "256,256", "--threads", "32", "--folds", "1,1,1:2,1,1", "--tiles", "strided", "--registers", "200", "--format", "json")
	var compact bytes.Buffer
	if err := json.Compact(&compact, want); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || last != `{"exploration":`+compact.String()+`}` {
		t.Errorf("/api/explore with tiles and registers: status %d, last line %.200s; want polyvol explore --tiles strided --registers 200", resp.StatusCode, last)
	}
	if !strings.Contains(last, `"tilings":["strided"],"registers":200`) {
		t.Errorf("the exploration lacks its tilings and registers: %.300s", last)
	}

	for _, c := range []struct{ path, body, field string }{
		{"/api/predict", `{"tile": "diagonal"}`, "tile"},
		{"/api/predict", `{"registers": 0}`, "registers"},
		{"/api/simulate", `{"tile": "Strided"}`, "tile"},
		{"/api/explore", `{"example": "vec-copy", "tiles": "strided,strided"}`, "tiles"},
		{"/api/explore", `{"example": "vec-copy", "registers": 256}`, "registers"},
		{"/api/explore", `{"example": "vec-copy", "registers-table": "/etc/passwd"}`, ""},
		{"/api/simulate", `{"registers": 64}`, ""},
		{"/api/layercond", `{"tile": "strided"}`, ""},
	} {
		status, body := post(t, srv.URL+c.path, c.body)
		var got errorAnswer
		if err := json.Unmarshal(body, &got); err != nil || status != http.StatusBadRequest || got.Field != c.field {
			t.Errorf("%s %s: status %d, body %s; want 400 naming field %q", c.path, c.body, status, body, c.field)
		}
	}
}
