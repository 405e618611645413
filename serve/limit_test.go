package serve

import (
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"testing"
	"time"
)

// TestLimitListenerBusy fills a limitListener of 2 places with connections
// busy with a request, one with the token and one without: a third
// connection waits until the one without the token has been busy for
// giveWaySlow and takes its place, and a fourth takes the place of the
// third once that, new, has waited for a request as long. The one with the
// token stays.
func TestLimitListenerBusy(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := newLimitListener(ln, 2)
	defer l.Close()
	accept := func() *limitConn {
		t.Helper()
		c, err := l.Accept()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c.(*limitConn)
	}
	dial := func() net.Conn {
		t.Helper()
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	// closed reports whether the server closed the connection c dialed,
	// waiting up to a minute for it.
	closed := func(c net.Conn, wait time.Duration) bool {
		_ = c.SetReadDeadline(time.Now().Add(wait))
		_, err := io.Copy(io.Discard, c)
		return !errors.Is(err, os.ErrDeadlineExceeded)
	}

	untrusted, trusted := dial(), dial()
	u, tr := accept(), accept()
	u.setState(http.StateActive)
	busy := time.Now()
	tr.setState(http.StateActive)
	tr.trust()

	third := dial()
	c3 := accept()
	if waited := time.Since(busy); waited < giveWaySlow {
		t.Errorf("the third connection took a place after %v, before the one without the token was busy for %v", waited, giveWaySlow)
	}
	if !closed(untrusted, time.Minute) {
		t.Error("the busy connection without the token is still open")
	}
	c3.setState(http.StateNew)
	waiting := time.Now()

	dial()
	accept()
	if waited := time.Since(waiting); waited < giveWaySlow {
		t.Errorf("the fourth connection took a place after %v, before the third, new, waited for %v", waited, giveWaySlow)
	}
	if !closed(third, time.Minute) {
		t.Error("the third connection, waiting for a request, is still open after the fourth came")
	}
	if closed(trusted, 100*time.Millisecond) {
		t.Error("the busy connection with the token was closed")
	}
}
