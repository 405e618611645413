package serve

// Each request's work runs in a worker process (package supervise) where
// the program enables workers, as polyvol serve does: a request that
// crashes libisl, exhausts memory or overruns its time ends its worker,
// not the server, and is answered with its error; the next request gets
// a fresh worker. A request whose client leaves, or whose time budget
// ends, has its worker killed at once instead of running on.

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/polyvol/polyvol/request"
	"github.com/polyvol/polyvol/supervise"
)

// answerJob is the worker job that runs one endpoint's answer.
const answerJob = "serve.answer"

// workerMemory bounds a request's worker: twice the estimate's own bound
// on the memory it adds (request.DefaultMaxMemoryMB, which a request
// cannot raise), plus the process's base.
const workerMemory = (2*request.DefaultMaxMemoryMB + 64) << 20

func init() { supervise.Register(answerJob, serveAnswer) }

// answerCall is one request's work as a worker receives it: the command,
// the request's values, and the server's settings its answer depends on.
type answerCall struct {
	Command        string            `json:"command"`
	Values         map[string]string `json:"values"`
	Parallel       int               `json:"parallel"`
	MaxSimAccesses int64             `json:"max_sim_accesses"`
}

// answerReply is a worker's answer: the body and notes, or the error's
// status and body as errorOf made them in the worker.
type answerReply struct {
	Body   []byte     `json:"body,omitempty"`
	Notes  []string   `json:"notes,omitempty"`
	Status int        `json:"status,omitempty"`
	Error  *errorBody `json:"error,omitempty"`
}

// progressReport is a progress frame of explore's answer.
type progressReport struct{ Done, Total int }

// answeredError is an error answered in a worker: the status and body to
// send as they are.
type answeredError struct {
	status int
	body   errorBody
}

func (e *answeredError) Error() string { return e.body.Error }

// answer runs the answer of command on values under ctx: in a worker
// process where workers are enabled, else in this process.
func (s *Server) answer(ctx context.Context, command string, values map[string]string, progress func(done, total int)) ([]byte, []string, error) {
	if !supervise.WorkersEnabled() {
		return s.answers[command](ctx, values, progress)
	}
	call, err := json.Marshal(answerCall{Command: command, Values: values, Parallel: s.slots.parallel, MaxSimAccesses: s.cfg.MaxSimAccesses})
	if err != nil {
		return nil, nil, err
	}
	var onProgress func([]byte)
	if progress != nil {
		onProgress = func(data []byte) {
			var p progressReport
			if json.Unmarshal(data, &p) == nil {
				progress(p.Done, p.Total)
			}
		}
	}
	limits := supervise.Limits{Memory: workerMemory, Processor: time.Duration(s.cfg.Slots) * s.cfg.RequestTimeout, Wall: s.cfg.RequestTimeout}
	out, err := supervise.Run(ctx, answerJob, limits, call, onProgress)
	if err != nil {
		return nil, nil, err
	}
	var reply answerReply
	if err := json.Unmarshal(out, &reply); err != nil {
		return nil, nil, errors.New("serve: the worker's answer: " + err.Error())
	}
	if reply.Error != nil {
		return nil, nil, &answeredError{status: reply.Status, body: *reply.Error}
	}
	return reply.Body, reply.Notes, nil
}

// serveAnswer is the worker's side of answerJob. Reading a spec's maps
// and imports runs in workers of the worker's own, under their tighter
// limits, as in the polyvol command.
func serveAnswer(ctx context.Context, data []byte, progress func([]byte)) ([]byte, error) {
	supervise.EnableWorkers()
	var call answerCall
	if err := json.Unmarshal(data, &call); err != nil {
		return nil, err
	}
	answer, ok := answersOf(call.Parallel, call.MaxSimAccesses)[call.Command]
	if !ok {
		return nil, errors.New("serve: no command " + call.Command)
	}
	var onProgress func(done, total int)
	if call.Command == exploreEndpoint.command {
		onProgress = func(done, total int) {
			p, _ := json.Marshal(progressReport{Done: done, Total: total}) // ints always marshal
			progress(p)
		}
	}
	body, notes, err := answer(ctx, call.Values, onProgress)
	if err != nil {
		status, eb := errorOf(request.OneLine(err))
		return json.Marshal(answerReply{Status: status, Error: &eb})
	}
	return json.Marshal(answerReply{Body: body, Notes: notes})
}
