package serve_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/polyvol/polyvol/serve"
)

// exploreShard returns the exploration of shard of the sweep of the
// request keys, the last line of /api/explore's answer.
func exploreShard(t *testing.T, url, keys, shard string) json.RawMessage {
	t.Helper()
	status, body := post(t, url+"/api/explore", fmt.Sprintf(`{%s, "shard": %q}`, keys, shard))
	if status != http.StatusOK {
		t.Fatalf("shard %s: status %d: %s", shard, status, body)
	}
	lines := bufio.NewScanner(bytes.NewReader(body))
	lines.Buffer(nil, 64<<20)
	var last struct{ Exploration json.RawMessage }
	for lines.Scan() {
		if err := json.Unmarshal(lines.Bytes(), &last); err != nil {
			t.Fatal(err)
		}
	}
	if last.Exploration == nil {
		t.Fatalf("shard %s: no exploration in %.300s", shard, body)
	}
	return last.Exploration
}

// TestMergeEqualsExplore checks that /api/merge merges the shards of a
// sweep that /api/explore answered with the key shard, given in any
// order, into polyvol explore --format json's output of the unsharded
// sweep, byte for byte; and that a set that is not one sweep's shards, a
// bad body and a bad shard key are 400 errors of the kind input.
func TestMergeEqualsExplore(t *testing.T) {
	srv := newServer(t, serve.Config{})
	const keys = `"example": "transpose2d", "domain": "128,64", "threads": 64, "folds": "1,1,1:1,2,1"`
	var shards [3]json.RawMessage
	for k := range shards {
		shards[k] = exploreShard(t, srv.URL, keys, fmt.Sprintf("%d/3", k+1))
	}
	want := cliJSON(t, "", "explore", "transpose2d", "--domain", "128,64", "--threads", "64", "--folds", "1,1,1:1,2,1", "--format", "json")
	body := func(shards ...json.RawMessage) string {
		data, err := json.Marshal(map[string]any{"shards": shards})
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	status, got := post(t, srv.URL+"/api/merge", body(shards[2], shards[0], shards[1]))
	if status != http.StatusOK || !bytes.Equal(got, want) {
		t.Errorf("merge: status %d, %d bytes; want 200 and polyvol explore's %d bytes", status, len(got), len(want))
	}
	for _, tc := range []struct {
		name, body, want string
	}{
		{"missing", body(shards[0], shards[2]), "shard 2/3 is missing"},
		{"twice", body(shards[0], shards[1], shards[0], shards[2]), "shards[2]: shard 1/3 was already given in shards[0]"},
		{"edited", body(shards[0], json.RawMessage(strings.Replace(string(shards[1]), `"registers":`, `"registers":1,"x":`, 1)), shards[2]), "shards[1]: not an explore --shard output"},
		{"no-shards", `{"shards": []}`, "no shards to merge"},
		{"unknown-key", `{"shard": []}`, `unknown field "shard"`},
		{"not-json", `{"shards": [`, `expected {"shards"`},
	} {
		status, got := post(t, srv.URL+"/api/merge", tc.body)
		var e struct{ Error, Kind string }
		if err := json.Unmarshal(got, &e); err != nil || status != http.StatusBadRequest || e.Kind != "input" || !strings.Contains(e.Error, tc.want) {
			t.Errorf("%s: status %d, %s; want 400, kind input and %q", tc.name, status, got, tc.want)
		}
	}
	status, got = post(t, srv.URL+"/api/explore", `{"example": "vec-copy", "shard": "4/3"}`)
	var e struct{ Error, Kind, Field string }
	if err := json.Unmarshal(got, &e); err != nil || status != http.StatusBadRequest || e.Field != "shard" || !strings.Contains(e.Error, `--shard "4/3": expected K/N`) {
		t.Errorf("explore with shard 4/3: status %d, %s; want 400 naming the key shard", status, got)
	}
}
