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
// by a limit at which connections waiting for a request, and slow ones
// that have not presented the API token, give way to new ones.
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
	"html"
	"io/fs"
	"net"
	"net/http"
	"runtime"
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
	// DefaultMaxConns bounds the connections served at once. A new one
	// that finds them all open closes one that has waited for its next
	// request for a second, a new one that has sent no whole header for
	// 5 s, or one without the API token busy with a request for 5 s, those
	// without the token first; it waits in the listen queue
	// of the operating system only while there is none.
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
	// explore and layercond run Slots-1 estimates in parallel (1 where
	// Slots is 1), one of them at a time, so that a slot always stays for
	// the single estimates of predict and simulate.
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
	slots := newSlots(cfg.Slots, cfg.MaxQueue, cfg.RequestTimeout)
	s := &Server{cfg: cfg, slots: slots, mux: http.NewServeMux(), hosts: map[string]bool{},
		answers: answersOf(slots.parallel, cfg.MaxSimAccesses)}
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
	s.mux.HandleFunc("POST /api/merge", s.api(s.handleMerge))
	s.hs = &http.Server{
		Handler:           s,
		ReadHeaderTimeout: cfg.ReadHeaderTimeout,
		ReadTimeout:       cfg.ReadTimeout,
		WriteTimeout:      cfg.WriteTimeout,
		IdleTimeout:       cfg.IdleTimeout,
		ConnState: func(c net.Conn, state http.ConnState) {
			if lc, ok := c.(*limitConn); ok {
				lc.setState(state)
			}
		},
		ConnContext: func(ctx context.Context, c net.Conn) context.Context {
			return context.WithValue(ctx, connKey{}, c)
		},
	}
	return s
}
