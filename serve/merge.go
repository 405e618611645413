package serve

// The merge endpoint: the shards of one exploration, as /api/explore with
// the key shard answers them, merged into the exploration of the whole
// sweep.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/polyvol/polyvol/request"
)

// mergeBody is the body of /api/merge: the shards' explorations.
type mergeBody struct {
	Shards []json.RawMessage `json:"shards"`
}

// handleMerge answers /api/merge: the body {"shards": [...]}, each the
// exploration of one shard (the "exploration" of /api/explore with the key
// shard, or polyvol explore --shard's JSON), read (request.ReadShard) and
// merged (request.Merge) under the request's budget, holding one slot,
// into polyvol merge --format json's answer.
func (s *Server) handleMerge(w http.ResponseWriter, r *http.Request) {
	shards, names, err := readMergeBody(r)
	if err != nil {
		fail(w, request.OneLine(err))
		return
	}
	ctx, cancel := s.budget(r.Context())
	defer cancel()
	var body []byte
	err = s.run(ctx, single, func(context.Context) error {
		e, err := request.Merge(shards, names)
		if err != nil {
			return err
		}
		e.Shard = nil
		body, err = jsonOf(e)
		return err
	})
	if err != nil { // the merge may still run, and write body
		fail(w, request.OneLine(err))
		return
	}
	writeJSON(w, body)
}

// readMergeBody reads the body of /api/merge and each of its shards,
// named shards[I] in the errors.
func readMergeBody(r *http.Request) ([]*request.Exploration, []string, error) {
	data, err := io.ReadAll(r.Body)
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return nil, nil, &request.Error{Err: fmt.Errorf("request body larger than %d bytes; merge fewer or smaller shards per request", tooLarge.Limit)}
		}
		return nil, nil, &request.Error{Err: fmt.Errorf("reading the request body: %w", err)}
	}
	if err := checkUTF8(data); err != nil {
		return nil, nil, &request.Error{Err: fmt.Errorf("request body: %w", err)}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var body mergeBody
	if err := dec.Decode(&body); err != nil {
		return nil, nil, &request.Error{Err: fmt.Errorf(`request body: expected {"shards": [the shards' explorations]}: %v`, err)}
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, nil, &request.Error{Err: errors.New("request body: expected one JSON object, but more text follows it")}
	}
	shards := make([]*request.Exploration, len(body.Shards))
	names := make([]string, len(body.Shards))
	for i, raw := range body.Shards {
		names[i] = fmt.Sprintf("shards[%d]", i)
		if shards[i], err = request.ReadShard(bytes.NewReader(raw), names[i]); err != nil {
			return nil, nil, err
		}
	}
	return shards, names, nil
}
