package relation

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/supervise"
)

// readJob is the worker job that reads one map (Read).
const readJob = "relation.read"

// readLimits bound ISL's reading of one map in a worker. Maps of kernels
// read in milliseconds within a few MB (the corpus of testdata and the
// examples); the limits leave two orders of magnitude to them and keep a
// hostile map's answer within a few seconds and a few hundred MB.
var readLimits = supervise.Limits{Memory: 256 << 20, Processor: 4 * time.Second, Wall: 6 * time.Second}

func init() { supervise.Register(readJob, serveRead) }

// readRequest is what a worker needs to read a map: the map and its site.
type readRequest struct {
	Src    string           `json:"src"`
	Dims   int              `json:"dims"`
	Domain [3]int64         `json:"domain"`
	Params map[string]int64 `json:"params,omitempty"`
}

// readAnswer is a worker's answer: the accesses and the parameters the map
// names, or why the map cannot be read.
type readAnswer struct {
	Accesses   []kernel.Access `json:"accesses,omitempty"`
	Named      []string        `json:"named,omitempty"`
	Unmodelled string          `json:"unmodelled,omitempty"`
	Err        string          `json:"error,omitempty"`
}

// readInWorker is Read in a worker process.
func readInWorker(src string, site kernel.MapSite) ([]kernel.Access, error) {
	req, err := json.Marshal(readRequest{Src: src, Dims: site.Dims, Domain: site.Domain, Params: site.Params})
	if err != nil {
		return nil, err
	}
	data, err := supervise.Run(context.Background(), readJob, readLimits, req, nil)
	if err != nil {
		return nil, workerError(err)
	}
	var ans readAnswer
	if err := json.Unmarshal(data, &ans); err != nil {
		return nil, fmt.Errorf("relation: the worker's answer: %w", err)
	}
	if site.Named != nil {
		for _, name := range ans.Named {
			site.Named[name] = true
		}
	}
	switch {
	case ans.Unmodelled != "":
		return nil, &kernel.UnmodelledMapError{Reason: ans.Unmodelled}
	case ans.Err != "":
		return nil, errors.New(ans.Err)
	}
	return ans.Accesses, nil
}

// workerError words the error of a worker that did not answer.
func workerError(err error) error {
	var ce *supervise.CrashError
	if errors.As(err, &ce) {
		return fmt.Errorf("libisl failed on the map: %w", err)
	}
	return fmt.Errorf("reading the map with libisl: %w", err)
}

// serveRead is the worker's side of readJob.
func serveRead(_ context.Context, request []byte, _ func([]byte)) ([]byte, error) {
	var req readRequest
	if err := json.Unmarshal(request, &req); err != nil {
		return nil, err
	}
	named := map[string]bool{}
	accs, err := read(req.Src, kernel.MapSite{Dims: req.Dims, Domain: req.Domain, Params: req.Params, Named: named})
	ans := readAnswer{Accesses: accs, Named: slices.Sorted(maps.Keys(named))}
	var um *kernel.UnmodelledMapError
	switch {
	case errors.As(err, &um):
		ans = readAnswer{Named: ans.Named, Unmodelled: um.Reason}
	case err != nil:
		ans = readAnswer{Named: ans.Named, Err: err.Error()}
	}
	return json.Marshal(ans)
}
