package serve

// Serving on a listener and shutting down: the connection bounds of
// Config, and a shutdown that lets running requests finish, then cuts them.

import (
	"context"
	"errors"
	"net"
	"sync"
	"time"
)

// errShutdown is the error of a request cut by Shutdown.
var errShutdown = errors.New("the server is shutting down and stopped this request before it finished; try again once it runs again")

// shutdownCutWait bounds how long Shutdown waits, after cutting the running
// requests, for their last answers and their commands.
const shutdownCutWait = 5 * time.Second

// Serve serves s on the connections that ln accepts, at most
// Config.MaxConns at once, under the timeouts of Config, until Shutdown.
// Like http.Server.Serve it returns http.ErrServerClosed after Shutdown.
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

// limitListener accepts at most a number of connections at once: Accept
// waits while that many are open. Closing the listener ends a waiting
// Accept with net.ErrClosed.
type limitListener struct {
	net.Listener
	sem       chan struct{} // one element per open connection
	done      chan struct{} // closed by Close
	closeOnce sync.Once
}

// newLimitListener returns ln accepting at most n connections at once.
func newLimitListener(ln net.Listener, n int) *limitListener {
	return &limitListener{Listener: ln, sem: make(chan struct{}, n), done: make(chan struct{})}
}

// Accept waits for a free place, then accepts a connection.
func (l *limitListener) Accept() (net.Conn, error) {
	select {
	case l.sem <- struct{}{}:
	case <-l.done:
		return nil, net.ErrClosed
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.sem
		return nil, err
	}
	return &limitConn{Conn: c, release: func() { <-l.sem }}, nil
}

// Close closes the listener and ends waiting Accepts; closing it again
// does nothing.
func (l *limitListener) Close() error {
	var err error
	l.closeOnce.Do(func() {
		close(l.done)
		err = l.Listener.Close()
	})
	return err
}

// limitConn is a connection of a limitListener; closing it frees its place.
type limitConn struct {
	net.Conn
	release   func()
	closeOnce sync.Once
}

// Close closes the connection and frees its place, once.
func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.closeOnce.Do(c.release)
	return err
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
