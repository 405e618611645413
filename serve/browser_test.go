package serve_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/polyvol/polyvol/cli"
	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/examples"
	"github.com/polyvol/polyvol/serve"
)

// chromiumNames are the executable names of Chromium and Chrome; Debian's
// package chromium (scripts/deps.sh test) installs the first.
var chromiumNames = []string{"chromium", "chromium-browser", "google-chrome", "chrome"}

// screenshotDirEnv names a folder where the browser test also saves its
// screenshots, e.g. docs/ to refresh docs/serve-screenshot.png.
const screenshotDirEnv = "POLYVOL_SCREENSHOT_DIR"

// browser starts headless Chromium on a page context; the test fails when
// Chromium is missing, since the page is tested only here.
func browser(t *testing.T) context.Context {
	t.Helper()
	var path string
	for _, name := range chromiumNames {
		if p, err := exec.LookPath(name); err == nil {
			path = p
			break
		}
	}
	if path == "" {
		t.Fatalf("no Chromium found (looked for %s); install Debian's chromium, e.g. with scripts/deps.sh test", strings.Join(chromiumNames, ", "))
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox, // CI runs as root, where Chromium's sandbox refuses to start
		chromedp.WindowSize(1400, 1100),
		chromedp.Flag("disable-dev-shm-usage", true),
	)
	ctx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelBrowser := chromedp.NewContext(ctx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 2*time.Minute)
	t.Cleanup(func() {
		cancelTimeout()
		cancelBrowser()
		cancelAlloc()
	})
	return ctx
}

// saveScreenshot writes a PNG into the test's temporary folder and, when
// screenshotDirEnv is set, into that folder too.
func saveScreenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	dirs := []string{t.TempDir()}
	if d := os.Getenv(screenshotDirEnv); d != "" {
		dirs = append(dirs, d)
	}
	for _, d := range dirs {
		path := filepath.Join(d, name)
		if err := os.WriteFile(path, png, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot: %s", path)
	}
}

// cliOutput runs a polyvol command line and returns its standard output.
func cliOutput(t *testing.T, args ...string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := cli.RunWithInput(append([]string{"polyvol"}, args...), strings.NewReader(""), &stdout, &stderr); code != cli.ExitOK {
		t.Fatalf("polyvol %s: exit %d: %s", strings.Join(args, " "), code, stderr.String())
	}
	return stdout.String()
}

// requestLog records the method, path and status of every request a
// handler answers.
type requestLog struct {
	mu      sync.Mutex
	entries []string
}

// handler returns h recording into the log.
func (l *requestLog) handler(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		h.ServeHTTP(sw, r)
		l.mu.Lock()
		defer l.mu.Unlock()
		l.entries = append(l.entries, fmt.Sprintf("%s %s %d", r.Method, r.URL.Path, sw.status))
	})
}

// since returns the entries after the first n.
func (l *requestLog) since(n int) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.entries[n:])
}

// statusWriter keeps the status of an answer.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (s *statusWriter) WriteHeader(status int) {
	s.status = status
	s.ResponseWriter.WriteHeader(status)
}

func (s *statusWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// crossSitePage is a page of another site that tries to make the browser
// run a simulation on the server at API (a command of the Runner, which
// counts it): a form of text/plain that the
// browser submits by itself, a no-cors fetch, and a fetch with JSON and a
// guessed token, which the browser sends only after a CORS preflight.
// The page sets body[data-done] to the fetches' outcomes.
const crossSitePage = `<!doctype html><html><body>
<iframe name="sink"></iframe>
<form id="f" method="POST" action="API/api/simulate" enctype="text/plain" target="sink">
<input name='{"example": "star3d-r1", "x": "' value='"}'></form>
<script>
(async () => {
  document.getElementById("f").submit();
  const results = [];
  for (const init of [
    {method: "POST", mode: "no-cors", headers: {"Content-Type": "text/plain"}, body: '{"example": "star3d-r1"}'},
    {method: "POST", headers: {"Content-Type": "application/json", "X-Polyvol-Token": "guessed-token-0123"}, body: '{"example": "star3d-r1"}'},
  ]) {
    try { const r = await fetch("API/api/simulate", init); results.push(r.type + " " + r.status); } catch (e) { results.push("refused"); }
  }
  document.body.dataset.done = results.join(", ");
})();
</script></body></html>`

// TestBrowser drives the page in headless Chromium: a prediction of
// star3d-r4 shows the GLup/s and limiter of polyvol predict's table, a
// syntax error is marked at its line, the ranking fills its progress bar
// and ranks the best block of polyvol explore first, and the layer-condition
// plot marks the transitions of polyvol layercond, and errors (a bad flag
// value, a block too large, a 1-D kernel's layer conditions) are shown in
// the result pane as polyvol says them. At 1400×1000 and 1024×700 the
// results stand right of the form, within the first screen. Then pages of another site (localhost on
// another port) and of the same site (127.0.0.1 on another port) try to
// make the browser post predictions: the server refuses each request the
// browser sends and runs nothing.
func TestBrowser(t *testing.T) {
	skipBrowserInShortMode(t)
	runner := &countingAnswers{}
	var log requestLog
	srv := httptest.NewServer(log.handler(wrapAnswers(serve.New(serve.Config{}), runner.wrap)))
	defer srv.Close()
	ctx := browser(t)

	// Predict star3d-r4 with block 256,1,4 and compare with the CLI's table.
	table := cliOutput(t, "predict", "star3d-r4", "--device", "H100-SXM", "--block", "256,1,4")
	m := regexp.MustCompile(`prediction: ([0-9.]+) GLup/s, limited by (\S+)`).FindStringSubmatch(table)
	if m == nil {
		t.Fatalf("no prediction line in polyvol predict's table:\n%s", table)
	}
	do(t, ctx,
		chromedp.Navigate(srv.URL),
		chromedp.WaitVisible(`body[data-ready="true"]`),
		chromedp.SetValue("#example", "star3d-r4"),
		dispatch("example", "change"),
		chromedp.SetValue("#device", "H100-SXM"),
		chromedp.SendKeys("#block", "256,1,4"),
		chromedp.Click("#predict"),
		chromedp.WaitVisible("#glups"),
	)
	glups, limiter := text(t, ctx, "#glups"), text(t, ctx, "#limiter")
	if glups != m[1] || limiter != m[2] {
		t.Errorf("page shows %s GLup/s limited by %s, polyvol predict %s limited by %s", glups, limiter, m[1], m[2])
	}
	if limiterRow := text(t, ctx, "#levels tr.limiter td"); !strings.HasPrefix(limiterRow, m[2]) {
		t.Errorf("the marked row of the level table is %q, want the limiter %s", limiterRow, m[2])
	}
	// Every bound of the overlap model is a row, the issue and latency
	// bounds included, as in the CLI's bounds table.
	bounds := evaluate[[]string](t, ctx, `[...document.querySelectorAll("#levels tbody tr")].map(tr => tr.dataset.level)`)
	if !slices.Contains(bounds, "issue") || !slices.Contains(bounds, "latency") || !slices.Contains(bounds, "DRAM") {
		t.Errorf("bound rows %q, want flops, issue, L1, L2, DRAM and latency", bounds)
	}
	saveScreenshot(t, ctx, "serve-screenshot.png")

	// A syntax error on a known line and column: "flops: : 25" instead of
	// "flops: 25", whose second colon is at column 8.
	spec, err := examples.Read("star3d-r4")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(spec), "\n")
	badLine := 0
	for i, l := range lines {
		if strings.HasPrefix(l, "flops:") {
			lines[i], badLine = "flops: : 25", i+1
		}
	}
	if badLine == 0 {
		t.Fatal("star3d-r4.yaml has no flops line to break")
	}
	do(t, ctx,
		chromedp.SetValue("#spec", strings.Join(lines, "\n")),
		dispatch("spec", "input"),
		chromedp.Click("#predict"),
		chromedp.WaitVisible("#spec-error"),
	)
	message, marked := text(t, ctx, "#spec-error"), text(t, ctx, "#gutter .bad")
	if want := "line " + strconv.Itoa(badLine) + ", column 8:"; !strings.HasPrefix(message, want) || !strings.Contains(message, "syntax error") {
		t.Errorf("error message %q, want a syntax error starting %q", message, want)
	}
	if inPane := text(t, ctx, "#output #result-error"); inPane != "The spec, "+message {
		t.Errorf("the result pane says %q, want the spec's error %q", inPane, message)
	}
	// The pasted spec is the user's own, no longer the example.
	if chosen := evaluate[string](t, ctx, `(() => { const s = document.getElementById("example"); return s.value + "|" + s.selectedOptions[0].textContent; })()`); chosen != "|(your own spec)" {
		t.Errorf("after an edit of the spec the example list says %q, want the user's own spec", chosen)
	}
	if marked != strconv.Itoa(badLine) {
		t.Errorf("the editor marks line %q, want %d", marked, badLine)
	}

	// Rank the block sizes of star3d-r4 and compare the best with the CLI.
	best := regexp.MustCompile(`(?m)^\s*1\s+(\S+)\s+(\S+)\s+(\S+)\s+([0-9.]+)`).FindStringSubmatch(cliOutput(t, "explore", "star3d-r4", "--device", "H100-SXM"))
	if best == nil {
		t.Fatal("no first row in polyvol explore's table")
	}
	do(t, ctx,
		chromedp.SetValue("#example", "star3d-r4"),
		dispatch("example", "change"),
		chromedp.Click("#explore"),
		chromedp.WaitVisible("#ranks tbody tr"),
	)
	firstRow := evaluate[[]string](t, ctx, `[...document.querySelectorAll("#ranks tbody tr:first-child td")].map(td => td.textContent)`)
	progress := evaluate[float64](t, ctx, `document.getElementById("progress").value`)
	progressMax := evaluate[float64](t, ctx, `document.getElementById("progress").max`)
	if len(firstRow) < 5 || firstRow[1] != best[1] || firstRow[2] != best[2] || firstRow[3] != best[3] || firstRow[4] != best[4] {
		t.Errorf("first ranked row %q, polyvol explore ranks block %s fold %s tiling %s with %s GLup/s first", firstRow, best[1], best[2], best[3], best[4])
	}
	if progress == 0 || progress != progressMax {
		t.Errorf("progress bar at %v of %v after the ranking arrived", progress, progressMax)
	}
	// Sorting by GLup/s ascending puts the slowest first.
	do(t, ctx, chromedp.Click(`#ranks th[data-column="4"]`))
	sortedFirst := text(t, ctx, `#ranks tbody tr:first-child td:nth-child(5)`)
	if v, _ := strconv.ParseFloat(sortedFirst, 64); v > mustFloat(t, best[4]) || sortedFirst == "" {
		t.Errorf("after sorting by GLup/s ascending the first row has %s GLup/s, not at most the best %s", sortedFirst, best[4])
	}
	saveScreenshot(t, ctx, "serve-ranking.png")

	// The layer-condition plot marks the transitions polyvol layercond finds.
	lc := cliOutput(t, "layercond", "star3d-r4", "--device", "H100-SXM", "--block", "256,1,4") // the block field still holds 256,1,4
	transitions := regexp.MustCompile(`(?m)^\s+([yz]) layer: s = (\d+)`).FindAllStringSubmatch(lc, -1)
	do(t, ctx, chromedp.Click("#layercond"), chromedp.WaitVisible("#layer-plot svg"))
	marks := evaluate[[]string](t, ctx, `[...document.querySelectorAll("#layer-plot svg line.transition title")].map(e => e.textContent)`)
	var want []string
	for _, tr := range transitions {
		want = append(want, tr[1]+" layer: reuse fits up to s = "+tr[2])
	}
	if strings.Join(marks, "; ") != strings.Join(want, "; ") {
		t.Errorf("plot marks %q, polyvol layercond's transitions are %q", marks, want)
	}
	saveScreenshot(t, ctx, "serve-layercond.png")

	// A bad flag value, a block of more threads than the device runs and a
	// 1-D kernel's layer conditions are shown in the result pane, as
	// polyvol says them, a bad field marked.
	for _, c := range []struct {
		block, example, button string
		args                   []string
	}{
		{"0,1,1", "star3d-r4", "#predict", []string{"predict", "star3d-r4", "--device", "H100-SXM", "--block", "0,1,1"}},
		{"2048,1,1", "star3d-r4", "#predict", []string{"predict", "star3d-r4", "--device", "H100-SXM", "--block", "2048,1,1"}},
		{"256,1,1", "vec-copy", "#layercond", []string{"layercond", "vec-copy", "--device", "H100-SXM", "--block", "256,1,1"}},
	} {
		do(t, ctx,
			chromedp.SetValue("#example", c.example),
			dispatch("example", "change"),
			chromedp.SetValue("#block", c.block),
			chromedp.Click(c.button),
			chromedp.WaitVisible("#output #result-error"),
		)
		var stderr bytes.Buffer
		cli.RunWithInput(append([]string{"polyvol"}, c.args...), strings.NewReader(""), io.Discard, &stderr)
		if msg := text(t, ctx, "#result-error"); stderr.Len() == 0 || "polyvol: "+msg+"\n" != stderr.String() {
			t.Errorf("%s: the result pane shows %q, polyvol says %q", c.args, msg, stderr.String())
		}
		if view := evaluate[[]float64](t, ctx, `(() => { const r = document.getElementById("result-error").getBoundingClientRect(); return [r.top, r.bottom, window.innerHeight]; })()`); view[0] < -1 || view[1] > view[2]+1 { // scrollIntoView may leave a fraction of a pixel
			t.Errorf("%s: the error spans %v to %v of a window %v pixels high", c.args, view[0], view[1], view[2])
		}
	}
	// The ranking on screen answers the previous request: marked stale.
	if !evaluate[bool](t, ctx, `!document.getElementById("stale").hidden && document.querySelector("section:not([hidden])").classList.contains("stale")`) {
		t.Error("after the error the results on screen are not marked stale")
	}

	// Notes reach the page: a block of 1024 threads in x over 640 points
	// leaves threads idle, which polyvol predict notes.
	do(t, ctx,
		chromedp.SetValue("#example", "star3d-r4"),
		dispatch("example", "change"),
		chromedp.SetValue("#block", "1024,1,1"),
		chromedp.Click("#predict"),
		chromedp.WaitVisible("#notes li"),
	)
	if code := text(t, ctx, `#notes li[data-code="idle-threads"]`); !strings.Contains(code, "idle") {
		t.Errorf("idle-thread note %q", code)
	}
	if evaluate[bool](t, ctx, `document.getElementById("prediction").classList.contains("stale")`) {
		t.Error("a new prediction is still marked stale")
	}

	// The controls stay in view with the longest example, at both window
	// sizes: the editor scrolls instead of growing.
	for _, size := range [][2]int64{{1400, 1000}, {1024, 700}} {
		do(t, ctx,
			chromedp.EmulateViewport(size[0], size[1]),
			chromedp.SetValue("#example", "lbm-d3q19-pull"),
			dispatch("example", "change"),
		)
		if !evaluate[bool](t, ctx, `(() => { const b = document.getElementById("predict").getBoundingClientRect(); return b.bottom <= window.innerHeight && b.top >= 0; })()`) {
			t.Errorf("%dx%d: the Predict button is out of view with lbm-d3q19-pull", size[0], size[1])
		}
		// Two columns: the results right of the form, from the top of the
		// page, so that they start within the first screen.
		layout := evaluate[[]float64](t, ctx, `(() => { const f = document.getElementById("input").getBoundingClientRect(), o = document.getElementById("output").getBoundingClientRect(); return [f.right, f.top + scrollY, o.left, o.top + scrollY]; })()`)
		if formRight, formTop, outLeft, outTop := layout[0], layout[1], layout[2], layout[3]; outLeft < formRight || outTop != formTop || outTop >= float64(size[1]) {
			t.Errorf("%dx%d: form right edge %v, top %v; results left edge %v, top %v: want the results right of the form, at its top, within the first %d pixels", size[0], size[1], formRight, formTop, outLeft, outTop, size[1])
		}
		saveScreenshot(t, ctx, fmt.Sprintf("serve-%dx%d.png", size[0], size[1]))
	}

	page := strings.ReplaceAll(crossSitePage, "API", srv.URL)
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = io.WriteString(w, page)
	}))
	defer other.Close()
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(other.URL, "http://"))
	for _, origin := range []string{"http://localhost:" + port, other.URL} {
		ran, logged := runner.n.Load(), len(log.since(0))
		do(t, ctx, chromedp.Navigate(origin+"/"), chromedp.WaitVisible(`body[data-done]`))
		fetches := evaluate[string](t, ctx, `document.body.dataset.done`)
		var posts []string
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			posts = slices.DeleteFunc(log.since(logged), func(e string) bool { return !strings.Contains(e, "/api/") })
			if len(posts) >= 3 {
				break
			}
		}
		t.Logf("page of %s: fetches %s; the server saw %q", origin, fetches, posts)
		if len(posts) < 3 {
			t.Errorf("page of %s: the server saw %q, want the form, the no-cors fetch and a preflight", origin, posts)
		}
		for _, p := range posts {
			if !strings.HasSuffix(p, " 403") {
				t.Errorf("page of %s: %s, want 403", origin, p)
			}
		}
		if fetches != "opaque 0, refused" {
			t.Errorf("page of %s: fetches %s, want an opaque answer and a refusal", origin, fetches)
		}
		if n := runner.n.Load(); n != ran {
			t.Errorf("page of %s: the server ran %d commands", origin, n-ran)
		}
	}
}

// do runs browser steps and fails the test at the first error.
func do(t *testing.T, ctx context.Context, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatal(err)
	}
}

// text returns the visible text of the first element sel selects.
func text(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Text(sel))
	if err != nil {
		t.Fatalf("text of %s: %v", sel, err)
	}
	return s
}

// evaluate returns the value of a JavaScript expression in the page.
func evaluate[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return v
}

// dispatch fires an event at the element of the given id, as a user's
// change of a select or edit of a text area does.
func dispatch(id, event string) chromedp.Action[chromedp.Void] {
	return chromedp.Evaluate[chromedp.Void](`(document.getElementById("` + id + `").dispatchEvent(new Event("` + event + `")), {})`)
}

func mustFloat(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// setField sets the value of the form field of the given id, empty values
// included.
func setField(id, value string) chromedp.Action[chromedp.Void] {
	return chromedp.Evaluate[chromedp.Void](`(document.getElementById(` + strconv.Quote(id) + `).value = ` + strconv.Quote(value) + `, {})`)
}

// bodyLog records the bodies of the POST requests a handler answers.
type bodyLog struct {
	mu     sync.Mutex
	bodies map[string][]string // path -> bodies, in order
}

// handler returns h recording into the log.
func (b *bodyLog) handler(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			data, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(data))
			b.mu.Lock()
			if b.bodies == nil {
				b.bodies = map[string][]string{}
			}
			b.bodies[r.URL.Path] = append(b.bodies[r.URL.Path], string(data))
			b.mu.Unlock()
		}
		h.ServeHTTP(w, r)
	})
}

// last returns the last body posted to path, "" for none.
func (b *bodyLog) last(path string) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if n := len(b.bodies[path]); n > 0 {
		return b.bodies[path][n-1]
	}
	return ""
}

// saveElementScreenshot writes a PNG of the element sel selects, as
// saveScreenshot does the page's.
func saveElementScreenshot(t *testing.T, ctx context.Context, sel, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS(sel)))
	if err != nil {
		t.Fatalf("screenshot %s of %s: %v", name, sel, err)
	}
	dirs := []string{t.TempDir()}
	if d := os.Getenv(screenshotDirEnv); d != "" {
		dirs = append(dirs, d)
	}
	for _, d := range dirs {
		path := filepath.Join(d, name)
		if err := os.WriteFile(path, png, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot: %s", path)
	}
}

// waitForPage polls a JavaScript condition until it holds, failing the test
// after a minute.
func waitForPage(t *testing.T, ctx context.Context, what, expr string) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
		if evaluate[bool](t, ctx, expr) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s (%s)", what, expr)
		}
	}
}

// chartReport is what the chart test reads of polyvol predict's JSON.
type chartReport struct {
	Launch struct {
		ThreadsPerBlock  int    `json:"threadsPerBlock"`
		BlocksPerSM      int    `json:"blocksPerSM"`
		OccupancyLimiter string `json:"occupancyLimiter"`
	} `json:"launch"`
	Derived struct {
		L1Load     float64 `json:"L1Load"`
		L2totalV2  float64 `json:"L2totalV2"`
		MemLoadV3  float64 `json:"memLoadV3"`
		MemStoreV2 float64 `json:"memStoreV2"`
	} `json:"derived"`
	Prediction struct {
		Limiter string `json:"limiter"`
	} `json:"prediction"`
}

// chartLaunch is a configuration of an exploration, as the chart test reads
// it: rows' launch and skipped entries alike.
type chartLaunch struct {
	Block    [3]int `json:"block"`
	Fold     [3]int `json:"fold"`
	Tiling   string `json:"tiling"`
	Unstaged bool   `json:"unstaged"`
}

// variant is the fold and tiling of the heat map's panels that hold l.
func (l chartLaunch) variant() string {
	tiling := l.Tiling
	if tiling == "" {
		tiling = "consecutive"
	}
	if l.Unstaged {
		tiling += " unstaged"
	}
	return fmt.Sprintf("fold %d,%d,%d %s", l.Fold[0], l.Fold[1], l.Fold[2], tiling)
}

// chartExploration is what the chart test reads of polyvol explore's JSON.
type chartExploration struct {
	Threads []int `json:"threads"`
	Rows    []struct {
		Launch chartLaunch `json:"launch"`
	} `json:"rows"`
	Skipped []chartLaunch `json:"skipped"`
}

// pageRoofline is what the page's roofline shows: its level points (in
// drawing order, with their x positions), the bounds of its highlighted
// ceilings, and whether the chart is labelled for assistive technology.
type pageRoofline struct {
	Levels   []string  `json:"levels"`
	X        []float64 `json:"x"`
	Y        []float64 `json:"y"`
	Limiters []string  `json:"limiters"`
	Flat     []string  `json:"flat"`
	Labelled bool      `json:"labelled"`
}

const rooflineJS = `(() => {
  const svg = document.querySelector("#roofline svg");
  const pts = [...svg.querySelectorAll("g.point")];
  return {
    levels: pts.map(g => g.dataset.level),
    x: pts.map(g => Number(g.querySelector("circle").getAttribute("cx"))),
    y: pts.map(g => Number(g.querySelector("circle").getAttribute("cy"))),
    limiters: [...svg.querySelectorAll("g.ceiling.limiter")].map(g => g.dataset.bound),
    flat: [...svg.querySelectorAll("text.ceiling-label")].map(t => t.textContent),
    labelled: svg.getAttribute("role") === "img" && svg.getAttribute("aria-labelledby").split(" ").every(id => document.getElementById(id) && document.getElementById(id).textContent !== ""),
  };
})()`

// pageOccupancy is what the page's occupancy view shows: its resources and
// the highlighted ones with the blocks they admit.
type pageOccupancy struct {
	Resources []string `json:"resources"`
	Limiters  []string `json:"limiters"`
	Blocks    []string `json:"blocks"`
	Labelled  bool     `json:"labelled"`
}

const occupancyJS = `(() => {
  const svg = document.querySelector("#occupancy svg");
  const lims = [...svg.querySelectorAll("g.resource.limiter")];
  return {
    resources: [...svg.querySelectorAll("g.resource")].map(g => g.dataset.resource),
    limiters: lims.map(g => g.dataset.resource),
    blocks: lims.map(g => g.dataset.blocks),
    labelled: svg.getAttribute("role") === "img" && svg.getAttribute("aria-labelledby") !== null,
  };
})()`

// pageHeat is what the page's heat map shows: the variant chosen, the block
// z of each panel, its ranked and skipped cells (block, fold, tiling) and
// the best cells.
type pageHeat struct {
	Variant  string     `json:"variant"`
	Options  []string   `json:"options"`
	Panels   []string   `json:"panels"`
	Cells    [][]string `json:"cells"`
	Skipped  int        `json:"skipped"`
	Best     [][]string `json:"best"`
	FirstRow []string   `json:"firstRow"`
	Labelled bool       `json:"labelled"`
}

const heatJS = `(() => {
  const cell = c => [c.dataset.block, c.dataset.fold, c.dataset.tiling];
  const panels = [...document.querySelectorAll("#heatmap svg.heat-panel")];
  return {
    variant: document.getElementById("heat-variant").value,
    options: [...document.getElementById("heat-variant").options].map(o => o.value),
    panels: panels.map(p => p.dataset.z),
    cells: [...document.querySelectorAll("#heatmap rect.cell:not(.skipped)")].map(cell),
    skipped: document.querySelectorAll("#heatmap rect.cell.skipped").length,
    best: [...document.querySelectorAll("#heatmap rect.cell.best")].map(cell),
    firstRow: [...document.querySelectorAll("#ranks tbody tr:first-child td")].slice(1, 4).map(td => td.textContent),
    labelled: panels.every(p => p.getAttribute("role") === "img" && p.getAttribute("aria-label") !== "") &&
      document.querySelector("#heat-legend svg").getAttribute("role") === "img",
  };
})()`

// noOverflowJS holds when the page needs no horizontal scrolling.
const noOverflowJS = `document.documentElement.scrollWidth <= window.innerWidth`

// TestBrowserCharts checks the pictures of the page at 1024×700 and
// 1400×1000: after a prediction, the hierarchical roofline has the points
// of L1, L2 and DRAM ordered by their intensity, at the same performance,
// and highlights the ceiling of polyvol predict's limiter; the occupancy
// view highlights the report's occupancy limiter with its blocks per SM
// (warps, registers with --registers 64, shared memory with a staged
// tile). After a ranking, the heat map's first view holds the best-ranked
// configuration of each block x and y of polyvol explore's ranking, its
// view of the best's fold and tiling one cell per ranked configuration of
// that variant, in both the best cell marked is the first row of the
// ranking table, and the threads and folds fields reach the explore
// request and its rows. At 1400×1000 it saves the screenshots
// docs/serve-roofline.png and docs/serve-heatmap.png (screenshotDirEnv).
func TestBrowserCharts(t *testing.T) {
	skipBrowserInShortMode(t)
	runner := &countingAnswers{}
	var bodies bodyLog
	srv := httptest.NewServer(bodies.handler(wrapAnswers(serve.New(serve.Config{}), runner.wrap)))
	defer srv.Close()
	ctx := browser(t)

	unmarshal := func(out string, v any) {
		t.Helper()
		if err := json.Unmarshal([]byte(out), v); err != nil {
			t.Fatal(err)
		}
	}
	var exploration chartExploration
	unmarshal(cliOutput(t, "explore", "star3d-r4", "--device", "H100-SXM", "--format", "json"), &exploration)
	dev, err := device.Lookup("H100-SXM")
	if err != nil {
		t.Fatal(err)
	}

	// predict runs a prediction on the page and returns polyvol predict's
	// report for the same flags.
	predict := func(example, block, fold, registers string) chartReport {
		t.Helper()
		args := []string{"predict", example, "--device", "H100-SXM", "--block", block, "--format", "json"}
		if fold != "" {
			args = append(args, "--fold", fold)
		}
		if registers != "" {
			args = append(args, "--registers", registers)
		}
		var r chartReport
		unmarshal(cliOutput(t, args...), &r)
		do(t, ctx,
			chromedp.SetValue("#example", example),
			dispatch("example", "change"),
			chromedp.SetValue("#device", "H100-SXM"),
			setField("block", block),
			setField("fold", fold),
			setField("registers", registers),
			chromedp.Evaluate[chromedp.Void](`(document.getElementById("occupancy").replaceChildren(), {})`),
			chromedp.Click("#predict"),
			chromedp.WaitVisible("#occupancy svg"),
		)
		return r
	}
	// checkOccupancy compares the occupancy view with the report.
	checkOccupancy := func(what string, r chartReport) {
		t.Helper()
		occ := evaluate[pageOccupancy](t, ctx, occupancyJS)
		want := []string{"warps", "threads", "blocks", "registers", "shared memory"}
		if !slices.Equal(occ.Resources, want) || !occ.Labelled {
			t.Errorf("%s: occupancy resources %q (labelled %v), want %q with role and label", what, occ.Resources, occ.Labelled, want)
		}
		if len(occ.Limiters) != 1 || occ.Limiters[0] != r.Launch.OccupancyLimiter || occ.Blocks[0] != strconv.Itoa(r.Launch.BlocksPerSM) {
			t.Errorf("%s: occupancy view highlights %q with %q blocks, polyvol predict's limiter is %s with %d blocks per SM",
				what, occ.Limiters, occ.Blocks, r.Launch.OccupancyLimiter, r.Launch.BlocksPerSM)
		}
	}

	for _, size := range [][2]int64{{1024, 700}, {1400, 1000}} {
		name := fmt.Sprintf("%dx%d", size[0], size[1])
		do(t, ctx,
			chromedp.EmulateViewport(size[0], size[1]),
			chromedp.Navigate(srv.URL),
			chromedp.WaitVisible(`body[data-ready="true"]`),
		)

		// The roofline and the occupancy of star3d-r4, block 256,1,4.
		r := predict("star3d-r4", "256,1,4", "", "")
		roof := evaluate[pageRoofline](t, ctx, rooflineJS)
		if !slices.Equal(roof.Levels, []string{"L1", "L2", "DRAM"}) || !roof.Labelled {
			t.Errorf("%s: roofline points %q (labelled %v), want L1, L2 and DRAM with role and label", name, roof.Levels, roof.Labelled)
		} else {
			// Intensity is flops per byte: the level that moves the most
			// bytes lies leftmost. All points have the predicted performance.
			volumes := []float64{r.Derived.L1Load, r.Derived.L2totalV2, r.Derived.MemLoadV3 + r.Derived.MemStoreV2}
			for i := 1; i < 3; i++ {
				if (volumes[i] < volumes[i-1]) != (roof.X[i] > roof.X[i-1]) || roof.Y[i] != roof.Y[0] {
					t.Errorf("%s: roofline points at x %v, y %v for volumes %v B/Lup: want x ordered inversely to the volumes, one y", name, roof.X, roof.Y, volumes)
					break
				}
			}
		}
		if len(roof.Limiters) != 1 || roof.Limiters[0] != r.Prediction.Limiter {
			t.Errorf("%s: roofline highlights the ceilings %q, polyvol predict's limiter is %s", name, roof.Limiters, r.Prediction.Limiter)
		}
		// The device's peak, 2 flops per FP64 lane, cycle and SM of the
		// device data, stands apart from the kernel's flops bound.
		if want := "device peak FP64 " + strconv.FormatFloat(2*dev.FP64PerCycleSM*dev.ClockGHz*float64(dev.SMs)/1000, 'g', 3, 64) + " TFlop/s"; !slices.Contains(roof.Flat, want) || !slices.ContainsFunc(roof.Flat, func(s string) bool { return strings.HasPrefix(s, "flops of the kernel's FP mix ") }) {
			t.Errorf("%s: flat ceilings %q, want %q and the kernel's flops", name, roof.Flat, want)
		}
		checkOccupancy(name+" star3d-r4 256,1,4", r)
		if !evaluate[bool](t, ctx, noOverflowJS) {
			t.Errorf("%s: the page scrolls sideways after a prediction", name)
		}
		if size[0] == 1400 {
			saveElementScreenshot(t, ctx, "#prediction .charts", "serve-roofline.png")
			// Occupancy limited by registers, then by shared memory.
			checkOccupancy(name+" --registers 64", predict("star3d-r4", "256,1,4", "", "64"))
			checkOccupancy(name+" staged tile", predict("convolution-15x15-staged", "32,4", "4,8", ""))
			do(t, ctx, setField("registers", ""), setField("fold", ""))
		}

		// The heat map of the ranking of star3d-r4 (1024 threads, the
		// default folds).
		do(t, ctx,
			chromedp.SetValue("#example", "star3d-r4"),
			dispatch("example", "change"),
			chromedp.Click("#explore"),
			chromedp.WaitVisible("#heatmap svg"),
		)
		// First the best view: one panel, each block x and y the first row of
		// polyvol explore's ranking with that x and y.
		heat := evaluate[pageHeat](t, ctx, heatJS)
		if len(exploration.Rows) == 0 || heat.Variant != "best" || !slices.Equal(heat.Panels, []string{"best"}) {
			t.Fatalf("%s: the heat map shows %q in panels %q, want the best view in one panel", name, heat.Variant, heat.Panels)
		}
		var want, got []string
		seen := map[[2]int]bool{}
		for _, row := range exploration.Rows {
			if l := row.Launch; !seen[[2]int{l.Block[0], l.Block[1]}] {
				seen[[2]int{l.Block[0], l.Block[1]}] = true
				want = append(want, fmt.Sprintf("%d,%d,%d %s", l.Block[0], l.Block[1], l.Block[2], l.variant()))
			}
		}
		for _, c := range heat.Cells {
			if len(c) == 3 {
				got = append(got, c[0]+" fold "+c[1]+" "+c[2])
			}
		}
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%s: the best view holds %q, the best-ranked configuration of each block x and y of polyvol explore is %q", name, got, want)
		}
		if len(heat.Best) != 1 || !slices.Equal(heat.Best[0], heat.FirstRow) {
			t.Errorf("%s: the best view marks %q as best, the ranking's first row is %q", name, heat.Best, heat.FirstRow)
		}
		if size[0] == 1400 {
			saveElementScreenshot(t, ctx, "#heat", "serve-heatmap.png")
		}
		// Then the best's fold and tiling: a panel per block z.
		do(t, ctx, chromedp.SetValue("#heat-variant", exploration.Rows[0].Launch.variant()), dispatch("heat-variant", "change"))
		heat = evaluate[pageHeat](t, ctx, heatJS)
		want, got = nil, nil
		zs := map[int]bool{}
		for _, z := range heat.Panels {
			n, err := strconv.Atoi(z)
			if err != nil {
				t.Fatalf("%s: panel of block z %q", name, z)
			}
			zs[n] = true
		}
		for _, row := range exploration.Rows {
			if l := row.Launch; l.variant() == heat.Variant && zs[l.Block[2]] {
				want = append(want, fmt.Sprintf("%d,%d,%d", l.Block[0], l.Block[1], l.Block[2]))
			}
		}
		for _, c := range heat.Cells {
			if len(c) != 3 || "fold "+c[1]+" "+c[2] != heat.Variant {
				t.Errorf("%s: heat map cell %q is not of the variant %q shown", name, c, heat.Variant)
			}
			got = append(got, c[0])
		}
		slices.Sort(want)
		slices.Sort(got)
		if len(heat.Panels) == 0 || !slices.Equal(got, want) {
			t.Errorf("%s: heat map panels z = %v hold the cells %q, polyvol explore ranks %q there", name, heat.Panels, got, want)
		}
		if len(heat.Best) != 1 || !slices.Equal(heat.Best[0], heat.FirstRow) {
			t.Errorf("%s: heat map marks %q as best, the ranking's first row is %q", name, heat.Best, heat.FirstRow)
		}
		if !heat.Labelled {
			t.Errorf("%s: heat map panels or legend lack role and label", name)
		}
		if !evaluate[bool](t, ctx, noOverflowJS) {
			t.Errorf("%s: the page scrolls sideways after a ranking", name)
		}
	}

	// The threads and folds fields feed the explore request: every row
	// ranked has 256 threads, and the folds give the heat map's choices.
	var small chartExploration
	unmarshal(cliOutput(t, "explore", "star3d-r4", "--device", "H100-SXM", "--threads", "256", "--folds", "1,1,1:2,1,1", "--format", "json"), &small)
	do(t, ctx,
		chromedp.SetValue("#threads", "256"),
		chromedp.SetValue("#folds", "1,1,1:2,1,1"),
		chromedp.Click("#explore"),
	)
	waitForPage(t, ctx, "the ranking of 256 threads", `/ of 256 threads ranked/.test(document.getElementById("progress-text").textContent)`)
	var sent map[string]any
	unmarshal(bodies.last("/api/explore"), &sent)
	if sent["threads"] != "256" || sent["folds"] != "1,1,1:2,1,1" {
		t.Errorf("explore request %v, want threads 256 and folds 1,1,1:2,1,1", sent)
	}
	blocks := evaluate[[]string](t, ctx, `[...document.querySelectorAll("#ranks tbody tr")].map(tr => tr.cells[1].textContent)`)
	if len(blocks) != len(small.Rows) || !slices.Equal(small.Threads, []int{256}) {
		t.Errorf("the page ranks %d configurations, polyvol explore --threads 256 --folds 1,1,1:2,1,1 %d of %v threads", len(blocks), len(small.Rows), small.Threads)
	}
	for _, b := range blocks {
		n := 1
		for _, s := range strings.Split(b, ",") {
			n *= int(mustFloat(t, s))
		}
		if n != 256 {
			t.Errorf("ranked block %s has %d threads, want 256", b, n)
		}
	}
	heat := evaluate[pageHeat](t, ctx, heatJS)
	if !slices.Equal(heat.Options, []string{"best", "fold 1,1,1 consecutive", "fold 2,1,1 consecutive", "fold 2,1,1 strided"}) {
		t.Errorf("heat map choices %q, want the best view and the folds 1,1,1 and 2,1,1 (consecutive and strided)", heat.Options)
	}
	if len(heat.Best) != 1 || !slices.Equal(heat.Best[0], heat.FirstRow) || heat.Variant != "best" {
		t.Errorf("heat map shows %q and marks %q as best, the ranking's first row is %q", heat.Variant, heat.Best, heat.FirstRow)
	}
}

// skipBrowserInShortMode skips a test that drives Chromium in -short mode:
// make test runs serve's tests once in full, then again under the race
// detector in -short mode for the server's own concurrency, which the
// browser's page does not add to.
func skipBrowserInShortMode(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("drives Chromium; run without -short")
	}
}
