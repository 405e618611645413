package cli

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/polyvol/polyvol/request"
	"github.com/polyvol/polyvol/serve"
)

// The documents TestDocs reads: every Markdown file of the project's docs
// (python/README.md only points to docs/python.md).
var docPatterns = []string{"README.md", "docs/*.md"}

// The markers of a document (HTML comments, invisible on the rendered page):
//
//	<!-- check -->
//	    The next fenced block shows commands and their output. In a console
//	    block, each line "$ polyvol ARGS" (continued by a trailing \; piped
//	    into polyvol, head or tail, or redirected to /dev/null) is followed
//	    by the lines it prints. A ```sh block with one curl request to the
//	    API or one python3 run of a client, followed by a fenced block,
//	    shows that answer.
//	<!-- check: ARGS => "t1" "t2" -->
//	    The output of polyvol ARGS contains each quoted text: the numbers a
//	    paragraph quotes.
//	<!-- unchecked: REASON -->
//	    The next fenced block shows a polyvol command that the test does not
//	    run, for the reason given (a file the reader writes, a timing).
//
// A shown output is compared with the printed one line by line, trailing
// spaces aside. A line "…" stands for any number of lines left out, and a
// "…" within a line for any text.
var (
	checkMarker     = regexp.MustCompile(`^<!-- check(?:: (.+?) => (.+))? -->$`)
	uncheckedMarker = regexp.MustCompile(`^<!-- unchecked: .+ -->$`)
)

// elision is the text that stands for output left out.
const elision = "…"

// quoted matches one Go-quoted string.
var quoted = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)

// docToken is the API token of the server that answers the docs' requests.
const docToken = "docs-token-0123456789"

// docExample is one command of a document and the output it shows.
type docExample struct {
	doc     string // the document's path
	line    int    // 1-based line of the command in the document
	command string // the command line, continuations joined
	kind    string // "polyvol", "curl" or "python3": what runs the command
	// first and end are the 0-based document lines [first, end) that show
	// the output.
	first, end int
}

// docQuote is a marker that quotes texts of a command's output.
type docQuote struct {
	where string   // file:line of the marker
	args  []string // the command line after "polyvol"
	texts []string
}

// TestDocs runs every command that a document marks with a check comment,
// in-process (requests to the API against polyvol serve's handler, client
// scripts against that handler too), and compares the output the document
// shows or quotes with what polyvol prints now, so that a number in the
// docs cannot go stale silently. With -update it rewrites the shown
// outputs from the current ones (quoted texts in prose stay for a hand
// edit: their sentences say what the numbers mean).
func TestDocs(t *testing.T) {
	t.Chdir("..")                         // the documents' paths are relative to the repository root
	t.Setenv(request.InstructionsEnv, "") // a reader's polyvol compiles the mix (clang is installed with it)
	var docs []string
	for _, p := range docPatterns {
		m, err := filepath.Glob(p)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, m...)
	}
	r := &docRunner{t: t, outputs: map[string]string{}}
	defer r.close()
	examples, quotes := 0, 0
	for _, doc := range docs {
		data, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(data), "\n")
		ex, qs, err := readDocChecks(doc, lines)
		if err != nil {
			t.Error(err)
			continue
		}
		examples += len(ex)
		quotes += len(qs)
		if rewritten, changed := checkExamples(t, r, lines, ex); changed {
			if err := os.WriteFile(doc, []byte(strings.Join(rewritten, "\n")), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		checkQuotes(t, r, qs)
	}
	t.Logf("%d documents, %d shown examples, %d quoting markers", len(docs), examples, quotes)
	if examples < 40 || quotes < 20 {
		t.Errorf("only %d checked examples and %d quoting markers in the docs; the markers were lost", examples, quotes)
	}
}

// checkExamples compares the shown output of each example of the
// document with the given lines with the current one. With -update it
// returns the lines rewritten and whether it changed any; without, it
// reports each difference.
func checkExamples(t *testing.T, r *docRunner, lines []string, examples []docExample) (rewrittenDoc []string, changed bool) {
	// Last first, so that a rewrite that changes the number of lines
	// leaves the positions of the examples above it valid.
	for i := len(examples) - 1; i >= 0; i-- {
		e := examples[i]
		where := fmt.Sprintf("%s:%d", e.doc, e.line)
		out := strings.Split(strings.TrimSuffix(r.output(e.kind, e.command), "\n"), "\n")
		shown := lines[e.first:e.end]
		diffs, rewritten, err := compareShown(shown, out)
		if err != nil {
			t.Errorf("%s: %s: %v; it prints now:\n%s", where, e.command, err, strings.Join(out, "\n"))
			continue
		}
		if *update {
			if len(diffs) > 0 {
				lines = append(append(append([]string(nil), lines[:e.first]...), rewritten...), lines[e.end:]...)
				changed = true
			}
			continue
		}
		for _, d := range diffs {
			t.Errorf("%s:%d: %s\n  shows %q\n  now   %q\n(go test ./cli -run TestDocs -update rewrites the shown outputs)", e.doc, e.first+d.index+1, e.command, d.shown, d.printed)
		}
	}
	return lines, changed
}

// checkQuotes checks that the output of each quoting marker's command
// contains its texts.
func checkQuotes(t *testing.T, r *docRunner, quotes []docQuote) {
	for _, q := range quotes {
		command := strings.Join(q.args, " ")
		out := r.output("polyvol", "polyvol "+command)
		for _, text := range q.texts {
			if !strings.Contains(out, text) {
				t.Errorf("%s: the output of polyvol %s no longer contains %q (edit the sentence and the marker by hand); it prints now:\n%s", q.where, command, text, out)
			}
		}
	}
}

// readDocChecks returns the shown examples and the quoting markers of the
// document doc with the given lines. A console block whose first line
// runs polyvol needs one of the markers, so that a new example cannot
// escape the test.
func readDocChecks(doc string, lines []string) ([]docExample, []docQuote, error) {
	var examples []docExample
	var quotes []docQuote
	marked := false // a marker precedes the next fenced block
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		where := fmt.Sprintf("%s:%d", doc, i+1)
		switch m := checkMarker.FindStringSubmatch(line); {
		case m != nil && m[1] != "":
			q := docQuote{where: where, args: strings.Fields(m[1])}
			for _, s := range quoted.FindAllString(m[2], -1) {
				text, err := strconv.Unquote(s)
				if err != nil {
					return nil, nil, fmt.Errorf("%s: %v", where, err)
				}
				q.texts = append(q.texts, text)
			}
			quotes = append(quotes, q)
		case m != nil:
			end := fenceEnd(lines, i+1)
			if end < 0 {
				return nil, nil, fmt.Errorf("%s: a check marker must precede a fenced block", where)
			}
			ex, next, err := readBlock(doc, lines, nextNonBlank(lines, i+1), end)
			if err != nil {
				return nil, nil, err
			}
			examples = append(examples, ex...)
			i = next - 1
		case uncheckedMarker.MatchString(line):
			marked = true
		case strings.HasPrefix(line, "```"):
			end := fenceEnd(lines, i)
			if end < 0 {
				return nil, nil, fmt.Errorf("%s: the fenced block does not end", where)
			}
			if !marked && i+1 < len(lines) && strings.HasPrefix(lines[i+1], "$ polyvol ") {
				return nil, nil, fmt.Errorf("%s: the example needs <!-- check --> or <!-- unchecked: REASON --> before it", where)
			}
			marked = false
			i = end
		}
	}
	return examples, quotes, nil
}

// nextNonBlank returns the index of the first line from i on that is not
// blank, or len(lines).
func nextNonBlank(lines []string, i int) int {
	for i < len(lines) && strings.TrimSpace(lines[i]) == "" {
		i++
	}
	return i
}

// fenceEnd returns the index of the line that closes the fenced block
// opening at the first non-blank line from i on, or -1.
func fenceEnd(lines []string, i int) int {
	i = nextNonBlank(lines, i)
	if i >= len(lines) || !strings.HasPrefix(lines[i], "```") {
		return -1
	}
	for j := i + 1; j < len(lines); j++ {
		if strings.HasPrefix(lines[j], "```") {
			return j
		}
	}
	return -1
}

// readBlock reads the checked fenced block that opens at line open and
// closes at line end, and returns its examples and the index of the line
// after the last one it read.
func readBlock(doc string, lines []string, open, end int) ([]docExample, int, error) {
	where := fmt.Sprintf("%s:%d", doc, open+1)
	if lines[open] == "```sh" {
		return readRequest(doc, lines, open, end)
	}
	var examples []docExample
	for j := open + 1; j < end; {
		if !strings.HasPrefix(lines[j], "$ polyvol ") {
			return nil, 0, fmt.Errorf("%s: a checked console block starts with $ polyvol", where)
		}
		e := docExample{doc: doc, line: j + 1, kind: "polyvol"}
		e.command, j = joinContinued(lines, j)
		e.command = strings.TrimPrefix(e.command, "$ ")
		e.first = j
		for j < end && !strings.HasPrefix(lines[j], "$ ") {
			j++
		}
		e.end = j
		examples = append(examples, e)
	}
	return examples, end + 1, nil
}

// readRequest reads a ```sh block that opens at line open and closes at
// line end, with one curl or python3 command, and the fenced block after
// it that shows the answer.
func readRequest(doc string, lines []string, open, end int) ([]docExample, int, error) {
	e := docExample{doc: doc}
	for j := open + 1; j < end; {
		var command string
		start := j
		command, j = joinContinued(lines, j)
		for _, kind := range []string{"curl", "python3"} {
			if strings.HasPrefix(command, kind+" ") {
				if e.command != "" {
					return nil, 0, fmt.Errorf("%s:%d: a checked sh block has one request", doc, start+1)
				}
				e.command, e.kind, e.line = command, kind, start+1
			}
		}
	}
	answerEnd := fenceEnd(lines, end+1)
	if e.command == "" || answerEnd < 0 || nextNonBlank(lines, end+1) != end+1 {
		return nil, 0, fmt.Errorf("%s:%d: a checked sh block has a curl or python3 command and the answer's block right after it", doc, open+1)
	}
	e.first, e.end = end+2, answerEnd
	return []docExample{e}, answerEnd + 1, nil
}

// joinContinued returns the command line at lines[j] joined with the lines
// that a trailing \ continues, and the index of the line after it.
func joinContinued(lines []string, j int) (string, int) {
	command := lines[j]
	for strings.HasSuffix(command, `\`) && j+1 < len(lines) {
		j++
		command = strings.TrimRight(strings.TrimSuffix(command, `\`), " ") + " " + strings.TrimSpace(lines[j])
	}
	return command, j + 1
}

// docRunner runs the docs' commands, each once, and serves the API
// requests they make.
type docRunner struct {
	t       *testing.T
	outputs map[string]string // by kind and command line
	server  *httptest.Server  // started by the first request
}

// output returns what the command of the given kind prints.
func (r *docRunner) output(kind, command string) string {
	key := kind + "\x00" + command
	if out, ok := r.outputs[key]; ok {
		return out
	}
	words, err := shellWords(command)
	if err != nil {
		r.t.Fatalf("%s: %v", command, err)
	}
	var out string
	switch kind {
	case "polyvol":
		out = runPipeline(r.t, words)
	case "curl":
		out = r.request(words)
	case "python3":
		out = r.client(words)
	}
	r.outputs[key] = out
	return out
}

// url returns the URL of the server that answers the docs' requests.
func (r *docRunner) url() string {
	if r.server == nil {
		r.server = httptest.NewServer(serve.New(serve.Config{Token: docToken}))
	}
	return r.server.URL
}

// close stops the server if a request started it.
func (r *docRunner) close() {
	if r.server != nil {
		r.server.Close()
	}
}

// request sends the curl command line's request (its URL, -H headers and
// -d body; POST with a body, else GET) with the API token, and returns the
// answer's body.
func (r *docRunner) request(words []string) string {
	var path, body string
	header := http.Header{}
	for i := 1; i < len(words); i++ {
		switch w := words[i]; {
		case w == "-H" && i+1 < len(words):
			i++
			name, value, _ := strings.Cut(words[i], ": ")
			header.Set(name, value)
		case w == "-d" && i+1 < len(words):
			i++
			body = words[i]
		case strings.Contains(w, "/api/"):
			path = w[strings.Index(w, "/api/"):]
		}
	}
	method := http.MethodGet
	if body != "" {
		method = http.MethodPost
	}
	req, err := http.NewRequest(method, r.url()+path, strings.NewReader(body))
	if err != nil {
		r.t.Fatal(err)
	}
	req.Header = header
	req.Header.Set(serve.TokenHeader, docToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		r.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		r.t.Fatal(err)
	}
	return string(data)
}

// client runs the python3 command line against the server, its --url
// replaced by the server's, with the token in POLYVOL_API_TOKEN, and
// returns what it prints.
func (r *docRunner) client(words []string) string {
	for i := range words[:len(words)-1] {
		if words[i] == "--url" {
			words[i+1] = r.url()
		}
	}
	cmd := exec.Command(words[0], words[1:]...)
	cmd.Env = append(os.Environ(), "POLYVOL_API_TOKEN="+docToken)
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("%s: %v\n%s", strings.Join(words, " "), err, out)
	}
	return string(out)
}

// runPipeline runs a console command line, split into words, as a shell
// would print it: polyvol commands in-process, each reading the output of
// the stage before on its standard input, head and tail (-n N or -N) on
// the lines, and a final "> /dev/null". The standard error of the stages
// comes first, then the last stage's output; a last polyvol stage prints
// both into the same stream, in its own order.
func runPipeline(t *testing.T, words []string) string {
	devNull := len(words) >= 2 && words[len(words)-2] == ">" && words[len(words)-1] == "/dev/null"
	if devNull {
		words = words[:len(words)-2]
	}
	var stages [][]string
	for start, i := 0, 0; i <= len(words); i++ {
		if i == len(words) || words[i] == "|" {
			stages = append(stages, words[start:i])
			start = i + 1
		}
	}
	var terminal strings.Builder
	data := ""
	for i, stage := range stages {
		switch stage[0] {
		case "polyvol":
			var out, errOut bytes.Buffer
			stderr := &errOut
			if i == len(stages)-1 && !devNull {
				stderr = &out
			}
			RunWithInput(stage, strings.NewReader(data), &out, stderr)
			terminal.WriteString(errOut.String())
			data = out.String()
		case "head", "tail":
			data = headTail(t, stage, data)
		default:
			t.Fatalf("%s: the docs' test runs polyvol, head and tail, not %s", strings.Join(words, " "), stage[0])
		}
	}
	if devNull {
		data = ""
	}
	return terminal.String() + data
}

// headTail returns the first (head) or last (tail) lines of data that the
// command words ask for: -n N or -N.
func headTail(t *testing.T, words []string, data string) string {
	count := strings.TrimPrefix(strings.Join(words[1:], ""), "-n")
	n, err := strconv.Atoi(strings.TrimPrefix(count, "-"))
	if err != nil {
		t.Fatalf("%s: %v", strings.Join(words, " "), err)
	}
	lines := strings.SplitAfter(data, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	n = min(n, len(lines))
	if words[0] == "head" {
		return strings.Join(lines[:n], "")
	}
	return strings.Join(lines[len(lines)-n:], "")
}

// shellWords splits a command line into words as a POSIX shell does for
// the quoting the docs use: '…' verbatim, "…" with \" and \\, and a |
// or > standing alone.
func shellWords(s string) ([]string, error) {
	var words []string
	var word strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case ' ', '\t':
			if inWord {
				words = append(words, word.String())
				word.Reset()
				inWord = false
			}
		case '\'', '"':
			j := i + 1
			for j < len(s) && s[j] != c {
				if c == '"' && s[j] == '\\' && j+1 < len(s) {
					j++
				}
				word.WriteByte(s[j])
				j++
			}
			if j == len(s) {
				return nil, fmt.Errorf("unterminated %c quote", c)
			}
			i, inWord = j, true
		default:
			word.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, word.String())
	}
	return words, nil
}

// shownDiff is one shown line that differs from the printed one.
type shownDiff struct {
	index          int // index of the line among the shown ones
	shown, printed string
}

// number matches a decimal number of an output.
var number = regexp.MustCompile(`-?[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?`)

// shape is a line with its numbers masked and its runs of spaces made
// one, which finds where an excerpt lies in an output whose numbers
// changed.
func shape(line string) string {
	return strings.Join(strings.Fields(number.ReplaceAllString(line, "#")), " ")
}

// lineMatches reports whether the printed line is the shown one, a "…" in
// the shown one standing for any text, trailing spaces aside.
func lineMatches(shown, printed string) bool {
	parts := strings.Split(strings.TrimRight(shown, " "), elision)
	printed = strings.TrimRight(printed, " ")
	if len(parts) == 1 {
		return parts[0] == printed
	}
	if !strings.HasPrefix(printed, parts[0]) {
		return false
	}
	rest := printed[len(parts[0]):]
	for _, p := range parts[1 : len(parts)-1] {
		k := strings.Index(rest, p)
		if k < 0 {
			return false
		}
		rest = rest[k+len(p):]
	}
	return strings.HasSuffix(rest, parts[len(parts)-1])
}

// compareShown compares the shown lines of an example with the printed
// ones. Lines "…" split the shown ones into runs of consecutive output
// lines; a run lies where its lines match the printed ones, else where
// they have the printed lines' shape (shape), the most of them matching.
// It returns the shown lines that differ and the shown lines rewritten
// from the printed ones, or an error when a run lies nowhere.
func compareShown(shown, printed []string) ([]shownDiff, []string, error) {
	runs := splitRuns(shown)
	open := len(shown) > 0 && strings.TrimSpace(shown[0]) == elision
	openEnd := len(shown) > 0 && strings.TrimSpace(shown[len(shown)-1]) == elision
	if len(runs) == 1 && !open && !openEnd && len(runs[0].lines) != len(printed) {
		// The whole output, which gained or lost lines.
		var d shownDiff
		for ; d.index < min(len(shown), len(printed)) && lineMatches(shown[d.index], printed[d.index]); d.index++ {
		}
		if d.index < len(shown) {
			d.shown = shown[d.index]
		}
		if d.index < len(printed) {
			d.printed = printed[d.index]
		}
		return []shownDiff{d}, trimmed(printed), nil
	}
	var diffs []shownDiff
	rewritten := append([]string(nil), shown...)
	cursor := 0
	for k, run := range runs {
		lo, hi := cursor, len(printed)-len(run.lines)
		if k == 0 && !open {
			hi = min(hi, lo)
		}
		if k == len(runs)-1 && !openEnd {
			lo = max(lo, hi)
		}
		at := placeRun(run.lines, printed, lo, hi)
		if at < 0 {
			return nil, nil, fmt.Errorf("no lines like %q follow in the output", run.lines[0])
		}
		for j, s := range run.lines {
			p := printed[at+j]
			if !lineMatches(s, p) {
				diffs = append(diffs, shownDiff{index: run.index + j, shown: s, printed: p})
				rewritten[run.index+j] = rewriteLine(s, p)
			}
		}
		cursor = at + len(run.lines)
	}
	return diffs, rewritten, nil
}

// shownRun is a run of consecutive shown lines.
type shownRun struct {
	index int // index of the first line among the shown ones
	lines []string
}

// splitRuns splits shown lines at the lines "…".
func splitRuns(shown []string) []shownRun {
	var runs []shownRun
	for i := 0; i < len(shown); i++ {
		if strings.TrimSpace(shown[i]) == elision {
			continue
		}
		r := shownRun{index: i}
		for ; i < len(shown) && strings.TrimSpace(shown[i]) != elision; i++ {
			r.lines = append(r.lines, shown[i])
		}
		runs = append(runs, r)
	}
	return runs
}

// placeRun returns the first position in [lo, hi] where the run's lines
// all match the printed ones; else, when only one position is allowed,
// that one; else the position where they all have the printed lines' shape
// and the most match; else -1.
func placeRun(run, printed []string, lo, hi int) int {
	if lo == hi && lo >= 0 {
		return lo
	}
	best, bestScore := -1, -1
	for at := max(lo, 0); at <= hi; at++ {
		score := 0
		for j, s := range run {
			switch {
			case lineMatches(s, printed[at+j]):
				score++
			case !lineMatches(shape(s), shape(printed[at+j])):
				score = -1
			}
			if score < 0 {
				break
			}
		}
		if score == len(run) {
			return at
		}
		if score > bestScore {
			best, bestScore = at, score
		}
	}
	return best
}

// rewriteLine returns the printed line in the form of the shown one: a
// shown line "prefix…suffix" keeps its form, with the printed line's text
// of the same lengths.
func rewriteLine(shown, printed string) string {
	printed = strings.TrimRight(printed, " ")
	parts := strings.Split(shown, elision)
	if len(parts) != 2 || len(parts[0])+len(parts[1]) > len(printed) {
		return printed
	}
	return printed[:len(parts[0])] + elision + printed[len(printed)-len(parts[1]):]
}

// trimmed returns the lines without their trailing spaces.
func trimmed(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.TrimRight(l, " ")
	}
	return out
}

// TestCompareShown checks the comparison of a shown excerpt with an output
// on hand-made cases.
func TestCompareShown(t *testing.T) {
	printed := []string{"head 1", "a 2  ", "b 3.5", "c 4", "end"}
	for _, tc := range []struct {
		shown     []string
		diffs     []int // indexes of the differing shown lines
		rewritten []string
		fails     bool
	}{
		{shown: []string{"head 1", "a 2", "b 3.5", "c 4", "end"}}, // trailing spaces do not count
		{shown: []string{"head 1", "…", "c 4", "end"}},
		{shown: []string{"…", "b 3.5", "…"}},
		{shown: []string{"head …", "…"}},
		{shown: []string{"…", "b 3.4", "…"}, diffs: []int{1}, rewritten: []string{"…", "b 3.5", "…"}},
		{shown: []string{"head 1", "…", "b 9.9", "c 4", "…"}, diffs: []int{2}, rewritten: []string{"head 1", "…", "b 3.5", "c 4", "…"}},
		{shown: []string{"…", "c 4", "b 3.5", "…"}, fails: true}, // out of order
		{shown: []string{"…", "x 1", "…"}, fails: true},
		{shown: []string{"head 1", "end"}, diffs: []int{1}, rewritten: []string{"head 1", "a 2", "b 3.5", "c 4", "end"}},
		{shown: []string{"…", "c 5", "end"}, diffs: []int{1}, rewritten: []string{"…", "c 4", "end"}},
		{shown: []string{"hx…", "…"}, diffs: []int{0}, rewritten: []string{"he…", "…"}},
	} {
		diffs, rewritten, err := compareShown(tc.shown, printed)
		if (err != nil) != tc.fails {
			t.Errorf("compareShown(%q): error %v, want failure %v", tc.shown, err, tc.fails)
			continue
		}
		var at []int
		for _, d := range diffs {
			at = append(at, d.index)
		}
		if fmt.Sprint(at) != fmt.Sprint(tc.diffs) {
			t.Errorf("compareShown(%q): differing lines %v, want %v", tc.shown, at, tc.diffs)
		}
		if tc.rewritten != nil && fmt.Sprint(rewritten) != fmt.Sprint(tc.rewritten) {
			t.Errorf("compareShown(%q): rewritten %q, want %q", tc.shown, rewritten, tc.rewritten)
		}
	}
}

// TestReadmeTourSimulate runs the README tour's simulate commands and
// checks that each shows the simulator at its best: it succeeds with no
// note, so none of its launched threads is idle.
func TestReadmeTourSimulate(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, line := range strings.Split(string(data), "\n") {
		command, ok := strings.CutPrefix(line, "go run . simulate ")
		if !ok {
			continue
		}
		command, _, _ = strings.Cut(command, "#")
		found++
		args := append([]string{"simulate"}, strings.Fields(command)...)
		stdout, stderr, code := run(t, args...)
		if code != ExitOK || stderr != "" || !strings.Contains(stdout, "simulated") {
			t.Errorf("README: polyvol %s: exit %d, stderr %q; want a simulation without notes", strings.Join(args, " "), code, stderr)
		}
	}
	if found == 0 {
		t.Error("no simulate command in the README tour")
	}
}
