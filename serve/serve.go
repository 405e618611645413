// Package serve is polyvol's local web calculator and JSON HTTP API: it
// answers the questions of the command-line tool (predict, explore,
// layercond, simulate, devices) over HTTP with the same JSON, byte for byte,
// and serves an embedded web page that calls that API.
//
// The server does not import the command-line package: it is handed a Runner
// that executes one polyvol command line in-process, and turns each request
// into such a command line from a whitelist of flags per endpoint, so that
// no request can name a file of the server (specs travel as text on standard
// input). Every request is bounded: the body size, the time, the work of
// each estimate (the commands' own bounds), and the number of estimates
// running at once (the CPU count).
package serve

import (
	"context"
	"embed"
	"errors"
	"io"
	"io/fs"
	"net"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Runner runs one polyvol command line in-process: args are the command and
// its arguments without the program name, stdin is what a SPEC of "-" reads.
// It returns nil on success, a *UserError when the command line (and so the
// request) is at fault, or another error for a failure of the server.
type Runner func(args []string, stdin io.Reader, stdout, stderr io.Writer) error

// UserError marks an error of a request: the server answers it with status
// 400 and its message.
type UserError struct{ Err error }

func (e *UserError) Error() string { return e.Err.Error() }
func (e *UserError) Unwrap() error { return e.Err }

// Defaults of Config.
const (
	DefaultMaxBodyBytes   = 1 << 20
	DefaultRequestTimeout = 2 * time.Minute
	// DefaultMaxSimAccesses bounds a simulation to about 2^27 thread memory
	// accesses, a few seconds: the simulator's own default allows 2^30.
	DefaultMaxSimAccesses = 1 << 27
)

// Config configures a Server. Run is required; zero values of the other
// fields select the defaults.
type Config struct {
	Run Runner
	// MaxBodyBytes bounds a request body (DefaultMaxBodyBytes).
	MaxBodyBytes int64
	// RequestTimeout bounds the time of one request, waiting for a slot
	// included (DefaultRequestTimeout).
	RequestTimeout time.Duration
	// Slots is the number of estimates that run at once (runtime.NumCPU).
	// explore and layercond run Slots estimates in parallel and take every
	// slot.
	Slots int
	// MaxSimAccesses is simulate's --max-accesses (DefaultMaxSimAccesses).
	MaxSimAccesses int64
	// AnyHost accepts every Host header. Without it only loopback names
	// (localhost, 127.0.0.0/8, ::1) are accepted, which keeps a web page of
	// another origin from reaching the server through DNS rebinding; set it
	// only when the server listens on a non-loopback address on purpose.
	AnyHost bool
}

// Server is the HTTP handler of the API and the web page.
type Server struct {
	cfg   Config
	slots *slots
	mux   *http.ServeMux
}

//go:embed web
var webFiles embed.FS

// New returns a server with the defaults filled into cfg.
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
	if cfg.MaxSimAccesses <= 0 {
		cfg.MaxSimAccesses = DefaultMaxSimAccesses
	}
	s := &Server{cfg: cfg, slots: newSlots(cfg.Slots), mux: http.NewServeMux()}
	web, _ := fs.Sub(webFiles, "web") // the embedded folder always exists
	files := http.FileServerFS(web)
	s.mux.Handle("GET /{$}", files)
	entries, _ := fs.ReadDir(web, ".")
	for _, e := range entries {
		s.mux.Handle("GET /"+e.Name(), files) // each file on its own, so other paths get 404 or 405
	}
	s.mux.HandleFunc("GET /api/devices", s.handleDevices)
	s.mux.HandleFunc("GET /api/examples", s.handleExamples)
	s.mux.HandleFunc("POST /api/predict", s.handleCommand(predictEndpoint))
	s.mux.HandleFunc("POST /api/simulate", s.handleCommand(simulateEndpoint, "--max-accesses="+strconv.FormatInt(cfg.MaxSimAccesses, 10)))
	s.mux.HandleFunc("POST /api/layercond", s.handleLayercond)
	s.mux.HandleFunc("POST /api/explore", s.handleExplore)
	return s
}

// ServeHTTP checks the Host header and the body size, sets the security
// headers and dispatches the request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !s.cfg.AnyHost && !isLoopbackHost(r.Host) {
		writeError(w, http.StatusForbidden, errorBody{Error: "host " + strconv.Quote(r.Host) + " refused: this server answers loopback names only (localhost, 127.0.0.1, [::1]); start it with a non-loopback --listen address to serve other names"})
		return
	}
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	r.Body = http.MaxBytesReader(w, r.Body, s.cfg.MaxBodyBytes)
	s.mux.ServeHTTP(w, r)
}

// isLoopbackHost reports whether the host of a Host header (with or without
// a port) is a loopback name: localhost, a name under .localhost, an address
// of 127.0.0.0/8 or ::1.
func isLoopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// slots limits the estimates that run at once. A request takes one slot, or
// all of them for the commands that estimate in parallel; those take their
// slots one after the other under a lock, so that two of them never hold
// part of the slots each and wait for each other.
type slots struct {
	tokens chan struct{}
	many   sync.Mutex
}

func newSlots(n int) *slots {
	s := &slots{tokens: make(chan struct{}, n)}
	for range n {
		s.tokens <- struct{}{}
	}
	return s
}

// errBusy is the error of a request that waited for slots until its time ran out.
var errBusy = errors.New("the server is busy: no estimate slot became free within the request's time budget; try again later")

// acquire takes n slots, or none when ctx ends first.
func (s *slots) acquire(ctx context.Context, n int) error {
	if n > 1 {
		s.many.Lock()
		defer s.many.Unlock()
	}
	for i := range n {
		select {
		case <-s.tokens:
		case <-ctx.Done():
			s.release(i)
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
