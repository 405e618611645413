package supervise

import (
	"bytes"
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// Untrusted work runs in worker processes: the same executable, started
// with workerEnv set, serves jobs (functions registered by name with
// Register) on its standard input and output until that input ends. A
// worker holds its own limits (Limits): it ends itself when its resident
// memory or the processor time of a job passes them, and the process that
// started it kills it when a job's wall-clock time passes them or the
// job's context ends. However a worker ends — a limit, a crash in C code,
// an abort, a stack overflow — the job's caller gets one error (a
// *LimitError or a *CrashError) and the next job a fresh worker. Workers
// die with the process that started them.
//
// A program lets its executable serve as a worker by calling Main, or
// IsWorker and ServeJobs first thing in its main function (a test binary
// in its TestMain), and then EnableWorkers. Without EnableWorkers, Run
// runs each job in the calling process: a library user's program keeps
// working, without the containment.

// workerEnv marks a worker process; its value is the resident-memory
// limit in bytes.
const workerEnv = "POLYVOL_WORKER"

// Exit statuses by which a worker says which of its limits it passed.
const (
	exitMemory    = 86
	exitProcessor = 87
)

// Limits bound the work of one job in a worker.
type Limits struct {
	Memory    int64         // resident bytes of the worker process
	Processor time.Duration // processor time of the job, all its threads
	Wall      time.Duration // wall-clock time of the job
}

// Job is work that can run in a worker: it reads its request and returns
// its answer, both as bytes, and may report progress on the way (each
// call's bytes reach the caller's progress function in order). An error
// reaches the caller as a *JobError with its message: a job whose errors
// carry more than a message encodes them in its answer.
type Job func(ctx context.Context, request []byte, progress func([]byte)) ([]byte, error)

var (
	jobsMu sync.Mutex
	jobs   = map[string]Job{}
)

// Register names a job. Call it from an init function, so that a worker,
// the same executable, knows every job its parent may send.
func Register(name string, job Job) {
	jobsMu.Lock()
	defer jobsMu.Unlock()
	if _, dup := jobs[name]; dup {
		panic("supervise: job " + name + " registered twice")
	}
	jobs[name] = job
}

func lookup(name string) (Job, bool) {
	jobsMu.Lock()
	defer jobsMu.Unlock()
	job, ok := jobs[name]
	return job, ok
}

// LimitError reports a job that passed one of its limits: what its input
// asks for is more than polyvol allows, the user's to change.
type LimitError struct {
	Limit string // "memory", "processor time" or "time"
	Value string // the limit, e.g. "256 MB" or "5s"
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("the work passed its %s limit of %s", e.Limit, e.Value)
}

// CrashError reports a worker that ended during a job without answering:
// a crash, an abort or a signal, polyvol's fault or a library's, never
// the user's.
type CrashError struct {
	Reason string // e.g. "SIGFPE: floating-point exception", or "exit status 3"
}

func (e *CrashError) Error() string { return "the worker process crashed: " + e.Reason }

// JobError is the error a job returned in its worker, as its message.
type JobError struct{ Msg string }

func (e *JobError) Error() string { return e.Msg }

// message is one frame between a worker and its parent.
type message struct {
	Kind      byte // 'J' a job (parent to worker); 'P' progress, 'A' answer, 'E' error (worker to parent)
	Job       string
	Processor time.Duration
	Data      []byte
}

// pool keeps the idle workers of each memory limit for reuse.
type pool struct {
	exe     string
	mu      sync.Mutex
	idle    map[int64][]*worker
	maxIdle int
}

var (
	poolMu  sync.Mutex
	current *pool
)

// EnableWorkers makes Run start workers from this process's executable,
// which must serve jobs when workerEnv is set (Main, or IsWorker and
// ServeJobs). It reports whether workers are enabled: not where the
// executable cannot be found. A worker may enable workers of its own for
// parts of its job that need limits of their own; a job must not Run
// itself there.
func EnableWorkers() bool {
	poolMu.Lock()
	defer poolMu.Unlock()
	if current != nil {
		return true
	}
	exe, err := os.Executable()
	if err != nil {
		return false
	}
	current = &pool{exe: exe, idle: map[int64][]*worker{}, maxIdle: 4}
	return true
}

// DisableWorkers stops the idle workers and makes Run run jobs in the
// calling process again.
func DisableWorkers() {
	poolMu.Lock()
	p := current
	current = nil
	poolMu.Unlock()
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, ws := range p.idle {
		for _, w := range ws {
			w.stop()
		}
	}
	p.idle = nil
}

// WorkersEnabled reports whether Run runs jobs in workers.
func WorkersEnabled() bool {
	poolMu.Lock()
	defer poolMu.Unlock()
	return current != nil
}

// Run runs the job registered as name with request in a worker under
// limits, and returns its answer. Progress, if not nil, receives the
// job's progress reports. Where workers are not enabled, the job runs in
// the calling process and only ctx bounds it.
func Run(ctx context.Context, name string, limits Limits, request []byte, progress func([]byte)) ([]byte, error) {
	job, ok := lookup(name)
	if !ok {
		return nil, fmt.Errorf("supervise: no job %q", name)
	}
	poolMu.Lock()
	p := current
	poolMu.Unlock()
	if p == nil {
		if progress == nil {
			progress = func([]byte) {}
		}
		return job(ctx, request, progress)
	}
	if err := ctx.Err(); err != nil {
		return nil, context.Cause(ctx)
	}
	w, err := p.take(limits.Memory)
	if err != nil {
		return nil, err
	}
	answer, err := w.run(ctx, name, limits, request, progress)
	if w.alive() {
		p.put(limits.Memory, w)
	}
	return answer, err
}

// take returns an idle worker of the memory limit, or starts one.
func (p *pool) take(memory int64) (*worker, error) {
	p.mu.Lock()
	if ws := p.idle[memory]; len(ws) > 0 {
		w := ws[len(ws)-1]
		p.idle[memory] = ws[:len(ws)-1]
		p.mu.Unlock()
		return w, nil
	}
	p.mu.Unlock()
	return startWorker(p.exe, memory)
}

// put keeps w for the next job, or stops it when enough wait.
func (p *pool) put(memory int64, w *worker) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.idle == nil || len(p.idle[memory]) >= p.maxIdle {
		w.stop()
		return
	}
	p.idle[memory] = append(p.idle[memory], w)
}

// worker is one worker process seen from its parent.
type worker struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	enc    *gob.Encoder
	dec    *gob.Decoder
	stderr *tailBuffer
	exited chan struct{} // closed when the process has ended and been waited for
	status error         // Wait's error, once exited is closed
}

// startWorker starts a worker process of exe with the memory limit.
func startWorker(exe string, memory int64) (*worker, error) {
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), workerEnv+"="+strconv.FormatInt(memory, 10))
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	w := &worker{cmd: cmd, stdin: stdin, enc: gob.NewEncoder(stdin), dec: gob.NewDecoder(stdout), stderr: &tailBuffer{max: 16 << 10}, exited: make(chan struct{})}
	cmd.Stderr = w.stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("supervise: starting a worker: %w", err)
	}
	go func() {
		w.status = cmd.Wait()
		close(w.exited)
	}()
	return w, nil
}

// alive reports whether the worker process still runs.
func (w *worker) alive() bool {
	select {
	case <-w.exited:
		return false
	default:
		return true
	}
}

// stop ends an idle worker: its input ends, and so does it.
func (w *worker) stop() { _ = w.stdin.Close() }

// kill ends the worker at once and waits for its end.
func (w *worker) kill() {
	_ = w.cmd.Process.Kill()
	<-w.exited
}

// run sends one job to w and waits for its answer, the job's limits, or
// the end of ctx, whichever comes first.
func (w *worker) run(ctx context.Context, name string, limits Limits, request []byte, progress func([]byte)) ([]byte, error) {
	if err := w.enc.Encode(message{Kind: 'J', Job: name, Processor: limits.Processor, Data: request}); err != nil {
		w.kill()
		return nil, w.ended(limits)
	}
	type result struct {
		data []byte
		err  error
	}
	done := make(chan result, 1)
	go func() {
		for {
			var m message
			if err := w.dec.Decode(&m); err != nil {
				done <- result{err: err}
				return
			}
			switch m.Kind {
			case 'P':
				if progress != nil {
					progress(m.Data)
				}
			case 'A':
				done <- result{data: m.Data}
				return
			default:
				done <- result{err: &JobError{Msg: string(m.Data)}}
				return
			}
		}
	}()
	var deadline <-chan time.Time
	if limits.Wall > 0 {
		t := time.NewTimer(limits.Wall)
		defer t.Stop()
		deadline = t.C
	}
	select {
	case r := <-done:
		var je *JobError
		if r.err != nil && !errors.As(r.err, &je) {
			// The answer broke off: the worker ended.
			<-w.exited
			return nil, w.ended(limits)
		}
		return r.data, r.err
	case <-deadline:
		w.kill()
		return nil, &LimitError{Limit: "time", Value: limits.Wall.String()}
	case <-ctx.Done():
		w.kill()
		return nil, context.Cause(ctx)
	}
}

// ended returns the error of a worker that ended without answering.
func (w *worker) ended(limits Limits) error {
	var exit *exec.ExitError
	if !errors.As(w.status, &exit) {
		return &CrashError{Reason: fmt.Sprint(w.status)}
	}
	switch exit.ExitCode() {
	case exitMemory:
		return &LimitError{Limit: "memory", Value: megabytes(limits.Memory)}
	case exitProcessor:
		return &LimitError{Limit: "processor time", Value: limits.Processor.String()}
	}
	tail := w.stderr.bytes()
	if bytes.Contains(tail, []byte("out of memory")) || bytes.Contains(tail, []byte("Cannot allocate memory")) {
		return &LimitError{Limit: "memory", Value: megabytes(limits.Memory)}
	}
	return &CrashError{Reason: crashReason(tail, exit)}
}

// crashReason names how a worker crashed: the signal line of a Go crash
// dump ("[signal SIGSEGV: segmentation violation ...]"), its first line,
// or the signal or status that ended the process.
func crashReason(stderr []byte, exit *exec.ExitError) string {
	var first string
	for line := range bytes.Lines(stderr) {
		line = bytes.TrimSpace(line)
		if sig, ok := bytes.CutPrefix(line, []byte("[signal ")); ok {
			if bytes.HasPrefix(sig, []byte("SIG")) {
				if j := bytes.Index(sig, []byte(" code=")); j > 0 {
					sig = sig[:j]
				}
				return string(bytes.TrimSuffix(sig, []byte("]")))
			}
		}
		if first == "" && startsCrash(line) {
			first = string(line)
		}
	}
	if first != "" {
		return first
	}
	if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return fmt.Sprintf("killed by signal %d (%v)", int(ws.Signal()), ws.Signal())
	}
	return exit.Error()
}

// megabytes renders a byte count in MB.
func megabytes(n int64) string { return fmt.Sprintf("%d MB", n>>20) }

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) bytes() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	return bytes.Clone(t.buf)
}
