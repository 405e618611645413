package serve

// Serving on a listener and shutting down: the connection bounds of
// Config, and a shutdown that lets running requests finish, then cuts them.

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sync"
	"time"
)

// errShutdown is the error of a request cut by Shutdown.
var errShutdown = errors.New("the server is shutting down and stopped this request before it finished; try again once it runs again")

// shutdownCutWait bounds how long Shutdown waits, after cutting the running
// requests, for their last answers and their commands.
const shutdownCutWait = 5 * time.Second

// Serve serves s on the connections that ln accepts, at most
// Config.MaxConns at once (idle ones, and slow ones without the API token,
// give way to new ones: limitListener), under the timeouts of Config,
// until Shutdown. Like http.Server.Serve it returns http.ErrServerClosed after Shutdown.
func (s *Server) Serve(ln net.Listener) error {
	return s.hs.Serve(newLimitListener(ln, s.cfg.MaxConns))
}

// Shutdown stops the server gracefully. Serve stops accepting connections
// and idle ones are closed; the running requests may finish until ctx
// ends. Then Shutdown cuts those still running: their commands are
// cancelled, an explore stream ends with an error line and the other
// requests are answered 503, and after at most shutdownCutWait the
// remaining connections are closed. Shutdown returns once the commands of
// all requests have returned, or shutdownCutWait after the cut; its error
// is that of closing the listener, if any.
func (s *Server) Shutdown(ctx context.Context) error {
	err := s.hs.Shutdown(ctx)
	if err == nil || ctx.Err() == nil {
		s.waitCommands(time.Now().Add(shutdownCutWait))
		return err
	}
	s.stop(errShutdown)
	deadline := time.Now().Add(shutdownCutWait)
	cutCtx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	if err := s.hs.Shutdown(cutCtx); err != nil {
		_ = s.hs.Close() // the answers had their time; close what is left
	}
	s.waitCommands(deadline)
	return nil
}

// waitCommands waits until no command runs or deadline passes.
func (s *Server) waitCommands(deadline time.Time) {
	for s.commands.Load() > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
}

// limitListener accepts at most max connections at once. A new connection
// that finds max open closes one that gives way (victim, in the order of
// limitConn.before): one that has waited for a request (idle keep-alive,
// new and silent, or still sending its header), or one that has not
// presented the API token (trust) and has been busy with a request (a slow
// body, a slow reader of a page), for long enough (limitConn.giveWay); one
// with the token only while no connection lacks it. It waits only while none gives
// way. So clients that hold connections cannot lock out a client with the
// token, idle connections give way to new ones, and a burst of new
// connections waits its turn rather than cutting each other. Closing the
// listener ends a waiting Accept with net.ErrClosed.
type limitListener struct {
	net.Listener
	max int

	mu      sync.Mutex
	changed *sync.Cond // signalled when a connection closes or starts waiting, and on Close
	conns   map[*limitConn]struct{}
	closed  bool
}

// How long a connection must have waited for a request, or without the
// API token been busy with one, before it gives way to a new one at the
// limit: giveWayIdle for a keep-alive one waiting for its next request
// (its client retries a request that finds it closed), giveWaySlow for a
// new one and for a busy one, longer than a client on the same machine
// takes to send a request or read a page even on a loaded machine, which
// may leave a header unread or an answer unwritten for a moment.
const (
	giveWayIdle = time.Second
	giveWaySlow = 5 * time.Second
)

// newLimitListener returns ln accepting at most n connections at once.
func newLimitListener(ln net.Listener, n int) *limitListener {
	l := &limitListener{Listener: ln, max: n, conns: map[*limitConn]struct{}{}}
	l.changed = sync.NewCond(&l.mu)
	return l
}

// Accept waits until a place is free or a connection gives way, accepts a
// connection and closes the one that gives way to it, if needed.
func (l *limitListener) Accept() (net.Conn, error) {
	l.mu.Lock()
	for !l.closed && len(l.conns) >= l.max && l.victim(nil) == nil {
		l.wait()
	}
	closed := l.closed
	l.mu.Unlock()
	if closed {
		return nil, net.ErrClosed
	}
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	lc := &limitConn{Conn: c, l: l, waiting: true, since: time.Now(), fresh: true}
	var evict []*limitConn
	l.mu.Lock()
	l.conns[lc] = struct{}{}
	for !l.closed && len(l.conns) > l.max {
		if v := l.victim(lc); v != nil {
			delete(l.conns, v) // its place is free before it is closed
			evict = append(evict, v)
		} else { // the one that would have given way started a request meanwhile
			l.wait()
		}
	}
	closed = l.closed
	l.mu.Unlock()
	for _, v := range evict {
		_ = v.Close()
	}
	if closed {
		_ = lc.Close()
		return nil, net.ErrClosed
	}
	return lc, nil
}

// victim returns the connection other than except that gives way to a new
// one first (limitConn.before), or nil when none does; l.mu is held.
func (l *limitListener) victim(except *limitConn) *limitConn {
	now := time.Now()
	untrusted := false
	for c := range l.conns {
		untrusted = untrusted || c != except && !c.trusted
	}
	var best *limitConn
	for c := range l.conns {
		if c == except || now.Sub(c.since) < c.giveWay() || c.trusted && (!c.waiting || untrusted) {
			continue
		}
		if best == nil || c.before(best) {
			best = c
		}
	}
	return best
}

// wait waits until a connection closes or starts waiting, the listener
// closes, or giveWayIdle passes, after which a connection may give way;
// l.mu is held.
func (l *limitListener) wait() {
	t := time.AfterFunc(giveWayIdle, func() {
		l.mu.Lock()
		l.changed.Broadcast()
		l.mu.Unlock()
	})
	l.changed.Wait()
	t.Stop()
}

// Close closes the listener and ends waiting Accepts.
func (l *limitListener) Close() error {
	l.mu.Lock()
	l.closed = true
	l.changed.Broadcast()
	l.mu.Unlock()
	return l.Listener.Close()
}

// limitConn is a connection of a limitListener; closing it frees its place.
type limitConn struct {
	net.Conn
	l *limitListener
	// Guarded by l.mu: whether the connection waits for a request (new or
	// idle) or is busy with one, since when, and whether it presented the
	// API token.
	waiting bool
	since   time.Time
	trusted bool
	fresh   bool // no request has begun on it
}

// before reports whether c gives way before d: first those without the
// token that wait for a request, then those without the token that are
// busy, then those with the token that wait, each the one waiting or busy
// longest first; l.mu is held.
func (c *limitConn) before(d *limitConn) bool {
	if c.rank() != d.rank() {
		return c.rank() < d.rank()
	}
	return c.since.Before(d.since)
}

// giveWay returns how long c must have waited or been busy before it
// gives way; l.mu is held.
func (c *limitConn) giveWay() time.Duration {
	if c.waiting && !c.fresh {
		return giveWayIdle
	}
	return giveWaySlow
}

// rank returns the rank of c in the order of before; l.mu is held.
func (c *limitConn) rank() int {
	switch {
	case !c.trusted && c.waiting:
		return 0
	case !c.trusted:
		return 1
	}
	return 2
}

// Close closes the connection and frees its place.
func (c *limitConn) Close() error {
	err := c.Conn.Close()
	l := c.l
	l.mu.Lock()
	delete(l.conns, c)
	l.changed.Broadcast()
	l.mu.Unlock()
	return err
}

// setState records the state net/http reports for c: waiting for a
// request while new or idle, else busy.
func (c *limitConn) setState(state http.ConnState) {
	l := c.l
	l.mu.Lock()
	defer l.mu.Unlock()
	c.waiting = state == http.StateNew || state == http.StateIdle
	c.fresh = c.fresh && state == http.StateNew
	c.since = time.Now()
	if c.waiting {
		l.changed.Broadcast()
	}
}

// trust records that c presented the API token.
func (c *limitConn) trust() {
	c.l.mu.Lock()
	c.trusted = true
	c.l.mu.Unlock()
}

// connKey is the context key under which a request's context holds its
// connection (http.Server.ConnContext).
type connKey struct{}

// trustConn records that r's connection presented the API token, where r
// came through Serve.
func trustConn(r *http.Request) {
	if c, ok := r.Context().Value(connKey{}).(*limitConn); ok {
		c.trust()
	}
}

// CloseWrite shuts down the writing side of a TCP connection, which
// net/http does before closing one whose request it did not read to the
// end, so that the client still receives the answer.
func (c *limitConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}
