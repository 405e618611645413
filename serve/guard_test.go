package serve_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/polyvol/polyvol/serve"
)

// countingAnswers count the answers that start.
type countingAnswers struct{ n atomic.Int64 }

func (c *countingAnswers) wrap(_ string, a serve.Answer) serve.Answer {
	return func(ctx context.Context, values map[string]string, progress func(int, int)) ([]byte, []string, error) {
		c.n.Add(1)
		return a(ctx, values, progress)
	}
}

// browserRequest returns a request to srv's path with the headers a browser
// sends for a request that site (an origin, or "" for the server's own
// page) makes with the given fetch mode and destination: Origin (left out
// for GET navigations, as browsers do) and the Sec-Fetch headers.
func browserRequest(t *testing.T, srv *testServer, method, path, site, mode, dest string, body io.Reader, contentType string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, body)
	if err != nil {
		t.Fatal(err)
	}
	fetchSite := "same-origin"
	if site == "" {
		site = srv.URL
	} else {
		fetchSite = "cross-site"
	}
	if method != http.MethodGet {
		req.Header.Set("Origin", site)
	}
	req.Header.Set("Sec-Fetch-Site", fetchSite)
	req.Header.Set("Sec-Fetch-Mode", mode)
	req.Header.Set("Sec-Fetch-Dest", dest)
	req.Header.Set("User-Agent", "Mozilla/5.0 (X11; Linux x86_64) Chrome/140.0")
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	return req
}

// checkRefused sends req and checks that the answer has the status and a
// JSON error whose message contains what.
func checkRefused(t *testing.T, name string, req *http.Request, status int, what string) {
	t.Helper()
	got, body := send(t, req)
	var e errorAnswer
	if err := json.Unmarshal(body, &e); err != nil || got != status || !strings.Contains(e.Error, what) {
		t.Errorf("%s: status %d, %s; want %d with a JSON error about %q", name, got, body, status, what)
	}
}

// TestCrossSiteRefused sends the requests that a page of another site can
// make a browser send, with the headers the browser adds: forms of each
// encoding, fetches, and requests of browsers that send only Origin. Each
// is refused with 403 and runs nothing; the same requests from the
// server's own page succeed.
func TestCrossSiteRefused(t *testing.T) {
	runner := &countingAnswers{}
	srv := newServer(t, serve.Config{}, runner.wrap)
	const evil = "http://evil.com"
	spec := `{"example": "star3d-r1"}`
	var multi bytes.Buffer
	mw := multipart.NewWriter(&multi)
	_ = mw.WriteField("example", "star3d-r1")
	mw.Close()
	forms := []struct{ name, contentType, body string }{
		{"text/plain form", "text/plain", spec + "="},
		{"urlencoded form", "application/x-www-form-urlencoded", url.Values{"example": {"star3d-r1"}}.Encode()},
		{"multipart form", mw.FormDataContentType(), multi.String()},
	}
	for _, f := range forms {
		req := browserRequest(t, srv, http.MethodPost, "/api/simulate", evil, "navigate", "document", strings.NewReader(f.body), f.contentType)
		checkRefused(t, "cross-site "+f.name, req, http.StatusForbidden, "another site")
		// A browser that sends Origin but not Sec-Fetch-Site.
		req = browserRequest(t, srv, http.MethodPost, "/api/simulate", evil, "navigate", "document", strings.NewReader(f.body), f.contentType)
		req.Header.Del("Sec-Fetch-Site")
		checkRefused(t, "Origin-only "+f.name, req, http.StatusForbidden, "another origin")
	}
	// A cross-site fetch that even knows the token and sends JSON.
	req := browserRequest(t, srv, http.MethodPost, "/api/explore", evil, "cors", "empty", strings.NewReader(spec), "application/json")
	req.Header.Set(serve.TokenHeader, testToken)
	checkRefused(t, "cross-site fetch", req, http.StatusForbidden, "another site")
	// The same with Sec-Fetch-Site: same-site (a sibling subdomain).
	req = browserRequest(t, srv, http.MethodPost, "/api/simulate", evil, "cors", "empty", strings.NewReader(spec), "application/json")
	req.Header.Set(serve.TokenHeader, testToken)
	req.Header.Set("Sec-Fetch-Site", "same-site")
	checkRefused(t, "same-site fetch", req, http.StatusForbidden, "another site")
	// Origins that are not the server's: another host, port or scheme, or
	// "null" (sandboxed frames, file: pages), each as a browser without
	// Sec-Fetch-Site sends it.
	u, _ := url.Parse(srv.URL)
	for _, origin := range []string{evil, "http://127.0.0.1:1", "https://" + u.Host, "http://localhost:" + u.Port(), "null"} {
		req := apiRequest(t, srv.URL+"/api/simulate", spec)
		req.Header.Set("Origin", origin)
		checkRefused(t, "Origin "+origin, req, http.StatusForbidden, "another origin")
	}
	// Cross-site GETs, e.g. <img src> or <script src>, of the API and files.
	for _, path := range []string{"/api/devices", "/api/examples", "/app.js"} {
		req := browserRequest(t, srv, http.MethodGet, path, evil, "no-cors", "image", nil, "")
		checkRefused(t, "cross-site GET "+path, req, http.StatusForbidden, "another site")
	}
	if n := runner.n.Load(); n != 0 {
		t.Errorf("the refused requests ran %d commands", n)
	}

	// The page's own requests, as the browser sends them, succeed.
	req = browserRequest(t, srv, http.MethodPost, "/api/predict", "", "cors", "empty", strings.NewReader(spec), "application/json")
	req.Header.Set(serve.TokenHeader, testToken)
	if status, body := send(t, req); status != http.StatusOK || !bytes.Contains(body, []byte(`"prediction"`)) {
		t.Errorf("same-origin POST: status %d, %.200s", status, body)
	}
	for _, path := range []string{"/api/devices", "/app.js"} {
		if status, body := send(t, browserRequest(t, srv, http.MethodGet, path, "", "cors", "empty", nil, "")); status != http.StatusOK {
			t.Errorf("same-origin GET %s: status %d, %.200s", path, status, body)
		}
	}
	// What the user types or bookmarks (Sec-Fetch-Site: none), and a link
	// from another site to the page itself, open the page.
	req = browserRequest(t, srv, http.MethodGet, "/", "", "navigate", "document", nil, "")
	req.Header.Set("Sec-Fetch-Site", "none")
	if status, body := send(t, req); status != http.StatusOK || !bytes.Contains(body, []byte(testToken)) {
		t.Errorf("typed URL: status %d, page without the token", status)
	}
	if status, _ := send(t, browserRequest(t, srv, http.MethodGet, "/", evil, "navigate", "document", nil, "")); status != http.StatusOK {
		t.Errorf("link from another site to the page: status %d, want 200", status)
	}
	if status, _ := send(t, browserRequest(t, srv, http.MethodGet, "/", evil, "navigate", "iframe", nil, "")); status != http.StatusForbidden {
		t.Errorf("page framed by another site: status %d, want 403", status)
	}
}

// TestTokenAndContentType checks that the requests that run work need
// Content-Type application/json (415 otherwise) and the API token (403
// otherwise), and run nothing without them.
func TestTokenAndContentType(t *testing.T) {
	runner := &countingAnswers{}
	srv := newServer(t, serve.Config{}, runner.wrap)
	body := `{"example": "star3d-r1"}`
	for _, path := range []string{"/api/predict", "/api/explore", "/api/layercond", "/api/simulate"} {
		for _, ct := range []string{"", "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/jsonp", "text/json", "application/json;;"} {
			req := apiRequest(t, srv.URL+path, body)
			req.Header.Set("Content-Type", ct)
			checkRefused(t, path+" Content-Type "+ct, req, http.StatusUnsupportedMediaType, "Content-Type")
		}
		req := apiRequest(t, srv.URL+path, body)
		req.Header.Del(serve.TokenHeader)
		checkRefused(t, path+" without a token", req, http.StatusForbidden, "missing "+serve.TokenHeader)
		for _, token := range []string{"", "wrong", testToken[:len(testToken)-1], testToken + "0", strings.ToUpper(testToken)} {
			req := apiRequest(t, srv.URL+path, body)
			req.Header.Set(serve.TokenHeader, token)
			checkRefused(t, path+" token "+token, req, http.StatusForbidden, "wrong "+serve.TokenHeader)
		}
		req = apiRequest(t, srv.URL+path, body)
		req.Header.Add(serve.TokenHeader, "wrong")
		checkRefused(t, path+" with a second token", req, http.StatusForbidden, "wrong "+serve.TokenHeader)
	}
	if n := runner.n.Load(); n != 0 {
		t.Errorf("the refused requests ran %d commands", n)
	}
	for _, ct := range []string{"application/json", "application/json; charset=utf-8", "Application/JSON;charset=UTF-8"} {
		req := apiRequest(t, srv.URL+"/api/predict", body)
		req.Header.Set("Content-Type", ct)
		if status, answer := send(t, req); status != http.StatusOK {
			t.Errorf("Content-Type %q: status %d, %.200s", ct, status, answer)
		}
	}
}

// TestPageToken checks that the page carries the server's token for its
// script, is not cached, and that servers without Config.Token make
// random tokens of 32 hexadecimal digits, different each time.
func TestPageToken(t *testing.T) {
	tokenMeta := regexp.MustCompile(`<meta name="polyvol-token" content="([^"]*)">`)
	seen := map[string]bool{}
	for range 3 {
		s := serve.New(serve.Config{})
		token := s.Token()
		if !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(token) || seen[token] {
			t.Errorf("token %q: want 32 hexadecimal digits, new each time", token)
		}
		seen[token] = true
	}
	srv := newServer(t, serve.Config{})
	resp, err := http.Get(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := tokenMeta.FindSubmatch(page)
	if m == nil || string(m[1]) != testToken || srv.Token() != testToken {
		t.Errorf("the page carries the token %q, the server's is %q", m, testToken)
	}
	if cc := resp.Header.Get("Cache-Control"); cc != "no-store" {
		t.Errorf("the page has Cache-Control %q, want no-store", cc)
	}
	for _, bad := range []string{"short", strings.Repeat("x", 129), "0123456789abcdef\"", "0123456789abcdef 0", "0123456789abcdéf0"} {
		if serve.CheckToken(bad) == nil {
			t.Errorf("CheckToken(%q) accepts it", bad)
		}
	}
	for _, good := range []string{"0123456789abcdef", strings.Repeat("x", 128), "A-b.c_d~e-0123456789"} {
		if err := serve.CheckToken(good); err != nil {
			t.Errorf("CheckToken(%q): %v", good, err)
		}
	}
}
