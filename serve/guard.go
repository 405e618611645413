package serve

// The guards every request passes before it is dispatched: the Host
// header, the origin of browsers' requests, and for the requests that run
// work the content type and the API token.

import (
	"bytes"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// NewToken returns a random API token: 32 hexadecimal digits from
// crypto/rand.
func NewToken() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // never fails (crypto/rand crashes the program instead)
	return hex.EncodeToString(b)
}

// Bounds of a token that CheckToken accepts.
const (
	minTokenLen = 16
	maxTokenLen = 128
)

// CheckToken reports whether token can be an API token: 16 to 128
// characters from A-Z, a-z, 0-9 and "-._~", which travel unchanged in a
// header, a URL and an HTML attribute.
func CheckToken(token string) error {
	if len(token) < minTokenLen || len(token) > maxTokenLen {
		return fmt.Errorf("API token of %d characters: expected %d to %d", len(token), minTokenLen, maxTokenLen)
	}
	for _, r := range token {
		if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune("-._~", r)) {
			return fmt.Errorf("API token holds %q: expected only letters, digits and -._~", r)
		}
	}
	return nil
}

// Token returns the API token that the requests running work must carry in
// TokenHeader.
func (s *Server) Token() string { return s.cfg.Token }

// ServeHTTP checks the Host header and the origin of the request, bounds
// its body and the time of each write of the answer, sets the security
// headers and dispatches the request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// MaxBytesReader tells net/http's own writer that the body was too
	// large, so that it closes the connection instead of reading on.
	r.Body = http.MaxBytesReader(w, r.Body, s.cfg.MaxBodyBytes)
	w = &deadlineWriter{ResponseWriter: w, rc: http.NewResponseController(w), timeout: s.cfg.WriteTimeout}
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	if !s.hostAllowed(r.Host) {
		writeError(w, http.StatusForbidden, errorBody{Error: "host " + strconv.Quote(r.Host) + " refused: this server answers loopback names (localhost, 127.0.0.1, [::1]) and the names its --allow-host flags give"})
		return
	}
	if msg := crossOrigin(r); msg != "" {
		writeError(w, http.StatusForbidden, errorBody{Error: msg})
		return
	}
	s.mux.ServeHTTP(w, r)
}

// api guards a handler that runs work: the request must be JSON and carry
// the API token, which makes its connection trusted (trustConn).
func (s *Server) api(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ct := r.Header.Get("Content-Type")
		if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
			writeError(w, http.StatusUnsupportedMediaType, errorBody{Error: "Content-Type " + strconv.Quote(ct) + " refused: the API takes a JSON object; send Content-Type: application/json"})
			return
		}
		got := r.Header.Values(TokenHeader)
		switch {
		case len(got) == 0:
			writeError(w, http.StatusForbidden, errorBody{Error: "missing " + TokenHeader + " header: send the API token that polyvol serve prints at start-up (docs/api.md)"})
			return
		case len(got) > 1 || subtle.ConstantTimeCompare([]byte(got[0]), []byte(s.cfg.Token)) != 1:
			writeError(w, http.StatusForbidden, errorBody{Error: "wrong " + TokenHeader + " header: send the API token that polyvol serve prints at start-up (docs/api.md)"})
			return
		}
		trustConn(r)
		h(w, r)
	}
}

// handlePage answers / with index.html, which holds the API token; it is
// not to be cached, since the token changes with every start.
func (s *Server) handlePage(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	http.ServeContent(w, r, "index.html", time.Time{}, bytes.NewReader(s.page))
}

// crossOrigin returns why a browser's request from another origin is
// refused, or "" for a request of the server's own page or of a client that
// is not a browser. A browser says where a request comes from in
// Sec-Fetch-Site (same-origin, same-site, cross-site, or none for what the
// user typed or bookmarked), and for most requests in Origin; requests
// without either come from clients that are not browsers (curl, scripts).
// A cross-site top-level navigation to the page itself is let through, so
// that a link to the calculator opens it: it runs nothing, and the page
// cannot be framed.
func crossOrigin(r *http.Request) string {
	site := r.Header.Get("Sec-Fetch-Site")
	navigation := (r.Method == http.MethodGet || r.Method == http.MethodHead) && r.URL.Path == "/" &&
		r.Header.Get("Sec-Fetch-Mode") == "navigate" && r.Header.Get("Sec-Fetch-Dest") == "document"
	if site != "" && site != "same-origin" && site != "none" && !navigation {
		return "request from another site refused (Sec-Fetch-Site: " + site + "): the API answers its own page and clients that are not browsers"
	}
	origins := r.Header.Values("Origin")
	if len(origins) > 1 {
		return "request with several Origin headers refused"
	}
	if len(origins) == 1 && !sameOrigin(origins[0], r.Host) {
		return "request from another origin refused (Origin: " + origins[0] + ", this server is http://" + r.Host + "): the API answers its own page and clients that are not browsers"
	}
	return ""
}

// sameOrigin reports whether origin (an Origin header) is the origin
// http://HOST of a request to host (a Host header): the same scheme, host
// and port, 80 where none is given.
func sameOrigin(origin, host string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Scheme != "http" || u.Host == "" || u.User != nil || u.Path != "" || u.RawQuery != "" || u.Fragment != "" {
		return false
	}
	return originHostPort(u.Host) == originHostPort(host)
}

// originHostPort normalizes HOST[:PORT] for comparison: lower case, port
// 80 when none is given.
func originHostPort(hostport string) string {
	hostport = strings.ToLower(hostport)
	if _, _, err := net.SplitHostPort(hostport); err != nil {
		hostport = net.JoinHostPort(strings.Trim(hostport, "[]"), "80")
	}
	return hostport
}

// hostAllowed reports whether the Host header names a loopback name or a
// host of Config.Hosts, with or without a port.
func (s *Server) hostAllowed(hostport string) bool {
	host := hostKey(hostport)
	return isLoopbackName(host) || s.hosts[host]
}

// hostKey returns the host of a Host header (with or without a port) in
// the form Config.Hosts are compared in: lower case, without brackets or a
// final dot, an IP address in its canonical form.
func hostKey(hostport string) string {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	if ip, err := netip.ParseAddr(host); err == nil && ip.Zone() == "" {
		return ip.Unmap().String()
	}
	return host
}

// isLoopbackName reports whether a host (hostKey's form) is a loopback
// name: localhost, a name under .localhost, an address of 127.0.0.0/8 or
// ::1.
func isLoopbackName(host string) bool {
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// deadlineWriter gives every write of an answer a deadline of timeout from
// the moment it starts, so that a client that stops reading is dropped
// once a write has waited that long, while a client that reads a long
// stream keeps it. Its Unwrap lets http.ResponseController reach the
// connection.
type deadlineWriter struct {
	http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
}

// Write sets the write deadline and writes p.
func (d *deadlineWriter) Write(p []byte) (int, error) {
	_ = d.rc.SetWriteDeadline(time.Now().Add(d.timeout)) // unsupported only by test recorders; a closed connection fails the write
	return d.ResponseWriter.Write(p)
}

// Unwrap returns the wrapped ResponseWriter.
func (d *deadlineWriter) Unwrap() http.ResponseWriter { return d.ResponseWriter }
