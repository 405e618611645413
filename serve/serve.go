// Package serve is polyvol's local web calculator and JSON HTTP API: it
// answers the questions of the command-line tool (predict, explore,
// layercond, simulate, devices) over HTTP with the same JSON, byte for byte,
// and serves an embedded web page that calls that API.
//
// The server answers through the typed request layer (package request),
// as the command line does, so both give the same JSON and the same
// errors; each request's work is cancelled through its context when its
// time budget ends, the client leaves or the server shuts down. Each
// endpoint takes a whitelist of keys, the command line's flag names, so
// that no request can name a file of the server (specs travel as text).
// Every request is bounded: the body size, the time, the work of each
// estimate (the commands' own bounds), the number of estimates
// running at once (the CPU count) and the number of requests waiting for
// them (a queue that refuses more with 503 and Retry-After); every
// connection is bounded by read, write and idle timeouts, and their number
// by a limit.
//
// The server answers its own page and deliberate clients only: requests
// must name a loopback host (or one the operator allows), browsers' requests
// from other origins are refused, and the requests that run work must carry
// the process's API token (Server.Token), which the page receives inside
// itself and other clients from the operator.
package serve

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"html"
	"io/fs"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults of Config.
const (
	DefaultMaxBodyBytes   = 1 << 20
	DefaultRequestTimeout = 2 * time.Minute
	// DefaultMaxSimAccesses bounds a simulation to about 2^27 thread memory
	// accesses, a few seconds: the simulator's own default allows 2^30.
	DefaultMaxSimAccesses = 1 << 27
	// DefaultReadHeaderTimeout bounds the time to read a request's header.
	DefaultReadHeaderTimeout = 10 * time.Second
	// DefaultReadTimeout bounds the time to read a whole request, header
	// and body (at most DefaultMaxBodyBytes).
	DefaultReadTimeout = 30 * time.Second
	// DefaultWriteTimeout bounds the time to write one answer, and each line
	// of an explore stream: a client that stops reading is dropped after it.
	DefaultWriteTimeout = 30 * time.Second
	// DefaultIdleTimeout bounds the time a keep-alive connection waits for
	// its next request.
	DefaultIdleTimeout = 60 * time.Second
	// DefaultMaxConns bounds the connections served at once; more wait in
	// the listen queue of the operating system.
	DefaultMaxConns = 64
	// DefaultQueuePerSlot is the default of Config.MaxQueue per slot: at
	// most that many requests per slot wait for a slot.
	DefaultQueuePerSlot = 4
)

// TokenHeader is the request header that carries the API token.
const TokenHeader = "X-Polyvol-Token"

// Config configures a Server; zero values select the defaults.
type Config struct {
	// MaxBodyBytes bounds a request body (DefaultMaxBodyBytes).
	MaxBodyBytes int64
	// RequestTimeout bounds the time of one request, waiting for a slot
	// included (DefaultRequestTimeout).
	RequestTimeout time.Duration
	// Slots is the number of estimates that run at once (runtime.NumCPU).
	// explore and layercond run Slots estimates in parallel and take every
	// slot.
	Slots int
	// MaxQueue bounds the requests that wait for slots at once
	// (DefaultQueuePerSlot × Slots). A request that would wait while that
	// many wait already is answered 503 at once, with a Retry-After header.
	MaxQueue int
	// MaxSimAccesses bounds the thread memory accesses of a simulation
	// (DefaultMaxSimAccesses).
	MaxSimAccesses int64
	// Token is the API token that the requests running work must carry in
	// TokenHeader; empty means a random one (CheckToken says which tokens
	// are accepted).
	Token string
	// Hosts are host names or addresses accepted in the Host header besides
	// the loopback names (localhost, names under .localhost, 127.0.0.0/8,
	// ::1), which are always accepted. Every other Host is refused, which
	// keeps a web page of another origin from reaching the server through
	// DNS rebinding.
	Hosts []string
	// Connection bounds of Serve (DefaultReadHeaderTimeout and so on).
	ReadHeaderTimeout, ReadTimeout, WriteTimeout, IdleTimeout time.Duration
	// MaxConns bounds the connections Serve serves at once (DefaultMaxConns).
	MaxConns int
}

// Server is the HTTP handler of the API and the web page, and the HTTP
// server that serves them (Serve, Shutdown).
type Server struct {
	cfg   Config
	slots *slots
	mux   *http.ServeMux
	hosts map[string]bool // Config.Hosts, normalized (hostKey)
	page  []byte          // index.html with the token
	hs    *http.Server

	// cut ends every request's context when Shutdown's grace has passed.
	cut  context.Context
	stop context.CancelCauseFunc
	// answers holds the answer of each endpoint that runs work, by its
	// command's name.
	answers map[string]answer
	// commands counts the answers still running, also those whose
	// request was already answered.
	commands atomic.Int64
}

//go:embed web
var webFiles embed.FS

// tokenMeta is the element of index.html whose content the server fills
// with the API token.
const tokenMeta = `<meta name="polyvol-token" content="">`

// New returns a server with the defaults filled into cfg. It panics when
// cfg.Token is set but not a valid token (CheckToken).
func New(cfg Config) *Server {
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = DefaultRequestTimeout
	}
	if cfg.Slots <= 0 {
		cfg.Slots = runtime.NumCPU()
	}
	if cfg.MaxQueue <= 0 {
		cfg.MaxQueue = DefaultQueuePerSlot * cfg.Slots
	}
	if cfg.MaxSimAccesses <= 0 {
		cfg.MaxSimAccesses = DefaultMaxSimAccesses
	}
	if cfg.ReadHeaderTimeout <= 0 {
		cfg.ReadHeaderTimeout = DefaultReadHeaderTimeout
	}
	if cfg.ReadTimeout <= 0 {
		cfg.ReadTimeout = DefaultReadTimeout
	}
	if cfg.WriteTimeout <= 0 {
		cfg.WriteTimeout = DefaultWriteTimeout
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = DefaultIdleTimeout
	}
	if cfg.MaxConns <= 0 {
		cfg.MaxConns = DefaultMaxConns
	}
	if cfg.Token == "" {
		cfg.Token = NewToken()
	} else if err := CheckToken(cfg.Token); err != nil {
		panic("serve: " + err.Error())
	}
	s := &Server{cfg: cfg, slots: newSlots(cfg.Slots, cfg.MaxQueue, cfg.RequestTimeout), mux: http.NewServeMux(), hosts: map[string]bool{},
		answers: answersOf(cfg.Slots, cfg.MaxSimAccesses)}
	for _, h := range cfg.Hosts {
		s.hosts[hostKey(h)] = true
	}
	s.cut, s.stop = context.WithCancelCause(context.Background())
	web, _ := fs.Sub(webFiles, "web") // the embedded folder always exists
	index, _ := fs.ReadFile(web, "index.html")
	if !bytes.Contains(index, []byte(tokenMeta)) {
		panic("serve: web/index.html lacks " + tokenMeta)
	}
	s.page = bytes.Replace(index, []byte(tokenMeta), []byte(`<meta name="polyvol-token" content="`+html.EscapeString(cfg.Token)+`">`), 1)
	files := http.FileServerFS(web)
	s.mux.HandleFunc("GET /{$}", s.handlePage)
	entries, _ := fs.ReadDir(web, ".")
	for _, e := range entries {
		s.mux.Handle("GET /"+e.Name(), files) // each file on its own, so other paths get 404 or 405
	}
	s.mux.HandleFunc("GET /api/devices", s.handleDevices)
	s.mux.HandleFunc("GET /api/examples", s.handleExamples)
	s.mux.HandleFunc("POST /api/predict", s.api(s.handleAnswer(predictEndpoint)))
	s.mux.HandleFunc("POST /api/simulate", s.api(s.handleAnswer(simulateEndpoint)))
	s.mux.HandleFunc("POST /api/layercond", s.api(s.handleAnswer(layercondEndpoint)))
	s.mux.HandleFunc("POST /api/explore", s.api(s.handleExplore))
	s.hs = &http.Server{
		Handler:           s,
		ReadHeaderTimeout: cfg.ReadHeaderTimeout,
		ReadTimeout:       cfg.ReadTimeout,
		WriteTimeout:      cfg.WriteTimeout,
		IdleTimeout:       cfg.IdleTimeout,
	}
	return s
}

// slots limits the estimates that run at once, and the requests that wait
// for them. A request takes one slot, or all of them for the commands that
// estimate in parallel; those take their slots one after the other under a
// lock, so that two of them never hold part of the slots each and wait for
// each other. A request that finds a slot free takes it without waiting;
// the others wait, at most maxWaiting at once.
type slots struct {
	n          int
	tokens     chan struct{}
	many       sync.Mutex
	maxWaiting int64
	waiting    atomic.Int64
	// slotTime is a moving average of the slot time of the recent commands
	// (how long each ran times the slots it held), in nanoseconds: the
	// basis of the Retry-After estimate.
	slotTime atomic.Int64
	// maxRetry bounds the Retry-After estimate (the request time budget).
	maxRetry time.Duration
}

// initialSlotTime is the slot time assumed before any command has run.
const initialSlotTime = time.Second

// newSlots returns n free slots for at most maxWaiting waiting requests,
// whose Retry-After estimate is at most maxRetry.
func newSlots(n, maxWaiting int, maxRetry time.Duration) *slots {
	s := &slots{n: n, tokens: make(chan struct{}, n), maxWaiting: int64(maxWaiting), maxRetry: maxRetry}
	s.slotTime.Store(int64(initialSlotTime))
	for range n {
		s.tokens <- struct{}{}
	}
	return s
}

// errBusy is the error of a request that waited for slots until its time ran out.
var errBusy = errors.New("the server is busy: no estimate slot became free within the request's time budget; try again after the time in Retry-After")

// errQueueFull is the error of a request refused because the queue of
// requests waiting for slots was full.
var errQueueFull = errors.New("the server is busy: its queue of requests waiting for an estimate slot is full; try again after the time in Retry-After")

// busyError is the error of a request that got no slot, errBusy or
// errQueueFull, with the seconds after which a retry may find one.
type busyError struct {
	err        error
	retryAfter int
}

func (e *busyError) Error() string { return e.err.Error() }
func (e *busyError) Unwrap() error { return e.err }

// acquire takes n slots, or none when ctx ends first or the queue is full.
// It returns a *busyError when the queue was full or the time budget ran
// out while it waited, else why ctx ended (cause).
func (s *slots) acquire(ctx context.Context, n int) error {
	if n == 1 {
		select {
		case <-s.tokens: // a waiting request would have received it first
			return nil
		default:
		}
	}
	if s.waiting.Add(1) > s.maxWaiting {
		s.waiting.Add(-1)
		return &busyError{err: errQueueFull, retryAfter: s.retryAfter()}
	}
	err := s.wait(ctx, n)
	s.waiting.Add(-1)
	if err == errBusy {
		return &busyError{err: errBusy, retryAfter: s.retryAfter()}
	}
	return err
}

// wait waits for n slots and takes them, or none when ctx ends first; it
// then returns errBusy when the time budget ran out, else why ctx ended.
func (s *slots) wait(ctx context.Context, n int) error {
	if n > 1 {
		s.many.Lock()
		defer s.many.Unlock()
	}
	for i := range n {
		select {
		case <-s.tokens:
		case <-ctx.Done():
			s.release(i)
			if err := cause(ctx); err != errTimeout {
				return err
			}
			return errBusy
		}
	}
	return nil
}

// release returns n slots.
func (s *slots) release(n int) {
	for range n {
		s.tokens <- struct{}{}
	}
}

// ran records that a command held n slots for d.
func (s *slots) ran(n int, d time.Duration) {
	for {
		old := s.slotTime.Load()
		avg := old + (int64(d)*int64(n)-old)/8
		if s.slotTime.CompareAndSwap(old, avg) {
			return
		}
	}
}

// retryAfter estimates in whole seconds when a request refused now may
// find a slot: the time the slots take to serve the requests waiting and
// one more at the average slot time, at least 1 s and at most maxRetry.
func (s *slots) retryAfter() int {
	d := time.Duration((s.waiting.Load() + 1) * s.slotTime.Load() / int64(s.n))
	d = min(max(d, time.Second), s.maxRetry)
	return int((d + time.Second - 1) / time.Second)
}
