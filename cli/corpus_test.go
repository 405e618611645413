package cli

import (
	"fmt"
	"github.com/polyvol/polyvol/request"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
)

// pollyCorpus is the folder of Polly's own test JSCoPs
// (testdata/polly/README.md says where they come from).
const pollyCorpus = "../testdata/polly"

// corpusPredictedFloor is the number of corpus files that import and
// predict today: a ratchet, which TestPollyCorpus fails below. Raise it
// when polyvol models more of them; the goal is at least 90 % of the files
// that describe loop nests polyvol can model (a box-shaped domain of 1 to
// 3 loops and affine accesses, which leaves out Polly's tests of malformed
// files and of statements with no loop).
const corpusPredictedFloor = 121

// The outcomes of a corpus file.
const (
	corpusPredicted = "imported and predicted"
	corpusImported  = "imported, predict refused"
	corpusRefused   = "import refused"
	corpusCrashed   = "crashed"
)

// corpusDefault is the value the corpus run gives every parameter that a
// file leaves unbound, as a user reading the error would.
const corpusDefault = 1024

// corpusResult is what became of one corpus file.
type corpusResult struct {
	file    string
	flags   []string // the import flags the file needed
	outcome string
	reason  string // the first words of the refusal
	errLine string // the refusal as polyvol printed it
	problem string // what is wrong with polyvol's answer, "" when nothing
}

// raceStride thins the corpus under the race detector, which makes each
// command several times slower: every raceStride-th file runs, enough to
// check the commands for races in a few seconds.
const raceStride = 12

var (
	corpusOnce    sync.Once
	corpusResults []corpusResult
	corpusErr     error
)

// pollyCorpusResults runs the corpus once per test binary (the run takes
// most of the time of the tests that use it, more under -race).
func pollyCorpusResults(t *testing.T) []corpusResult {
	t.Helper()
	corpusOnce.Do(func() {
		var files []string
		entries, err := os.ReadDir(pollyCorpus)
		if err != nil {
			corpusErr = err
			return
		}
		for i, e := range entries {
			if !e.IsDir() && request.IsJSCoPName(e.Name()) && (!raceDetector || i%raceStride == 0) {
				files = append(files, filepath.Join(pollyCorpus, e.Name()))
			}
		}
		corpusResults = make([]corpusResult, len(files))
		var wg sync.WaitGroup
		next := make(chan int)
		for range 2 {
			wg.Go(func() {
				for i := range next {
					corpusResults[i] = runCorpusFile(files[i])
				}
			})
		}
		for i := range files {
			next <- i
		}
		close(next)
		wg.Wait()
	})
	if corpusErr != nil {
		t.Fatal(corpusErr)
	}
	return corpusResults
}

// Hints in refusals that say which flag a user adds next.
var (
	unboundHint   = regexp.MustCompile(`-D ([A-Za-z_][A-Za-z0-9_.]*)=VALUE`)
	contextFailed = regexp.MustCompile(`does not hold for (.+)$`)
	defineValue   = regexp.MustCompile(`([A-Za-z_][A-Za-z0-9_.]*)=(-?\d+)`)
	launchHeader  = regexp.MustCompile(`(?m)^# launch: (--block \S+ --fold \S+) `)
)

// maxCorpusTries bounds the imports run for one file: the flags added one
// refusal at a time, and the values of contextValues.
const maxCorpusTries = 100

// contextValues are the values a parameter takes in turn while the context
// rules its value out: corpusDefault first, then the values just below it
// (for a context such as p % 127 = 0), the powers of two below it (for an
// upper bound) and above it (for a lower bound).
var contextValues = func() []int64 {
	var vs []int64
	for v := int64(corpusDefault); v > corpusDefault-16; v-- {
		vs = append(vs, v)
	}
	for v := int64(corpusDefault / 2); v >= 1; v /= 2 {
		vs = append(vs, v)
	}
	for v := int64(corpusDefault * 2); v <= 1<<20; v *= 2 {
		vs = append(vs, v)
	}
	return vs
}()

// runCorpusFile imports a corpus file and predicts it as a user would:
// after each refusal it adds the flag the message asks for (-D NAME=1024
// for an unbound parameter, --element 8 for a JSCoP without "arrays",
// --statement all for a region of several statements, a value one smaller
// for a parameter that the context rules out, contextValues) and tries again, until the
// import succeeds or the refusal asks for nothing it can give. A predict
// refused for its launch is tried once more with the launch that the
// import's header suggests (a reduction's fold).
func runCorpusFile(path string) corpusResult {
	res := corpusResult{file: filepath.Base(path)}
	params := map[string]int64{}
	var order []string // the parameters, in the order they were asked for
	var extra []string
	tried := map[string]int{} // per parameter, its index in contextValues
	flags := func() []string {
		out := slices.Clone(extra)
		for _, p := range order {
			out = append(out, "-D", fmt.Sprintf("%s=%d", p, params[p]))
		}
		return out
	}
	spec := ""
	for range maxCorpusTries {
		stdout, stderr, code, crash := runCaught(append([]string{"import", "jscop", path}, flags()...)...)
		if crash != "" || (code != ExitOK && code != ExitUsage) {
			res.outcome, res.problem = corpusCrashed, fmt.Sprintf("import: exit %d %s%s", code, crash, stderr)
			return res
		}
		if code == ExitOK {
			spec = stdout
			break
		}
		line := strings.TrimSuffix(stderr, "\n")
		changed := false
		switch {
		case unboundHint.MatchString(line):
			for _, m := range unboundHint.FindAllStringSubmatch(line, -1) {
				if _, ok := params[m[1]]; !ok {
					params[m[1]] = corpusDefault
					order = append(order, m[1])
					changed = true
				}
			}
		case strings.Contains(line, "--element") && !slices.Contains(extra, "--element"):
			extra, changed = append(extra, "--element", "8"), true
		case strings.Contains(line, "choose one with --statement") && !slices.Contains(extra, "--statement"):
			extra, changed = append(extra, "--statement", "all"), true
		case contextFailed.MatchString(line):
			for _, m := range defineValue.FindAllStringSubmatch(contextFailed.FindStringSubmatch(line)[1], -1) {
				if _, ok := params[m[1]]; ok && tried[m[1]]+1 < len(contextValues) {
					tried[m[1]]++
					params[m[1]] = contextValues[tried[m[1]]]
					changed = true
				}
			}
		}
		if !changed {
			res.flags = flags()
			res.outcome, res.errLine, res.reason = corpusRefused, line, refusalReason(line)
			res.problem = checkRefusal(stderr)
			return res
		}
	}
	res.flags = flags()
	if spec == "" {
		res.outcome, res.reason = corpusRefused, "no flags found that import it"
		return res
	}
	_, stderr, code, crash := runCaught(append([]string{"predict", path, "--quiet"}, res.flags...)...)
	if m := launchHeader.FindStringSubmatch(spec); code == ExitUsage && m != nil && strings.Contains(stderr, "the import's note") {
		// The launch that the import suggests for a reduction.
		res.flags = append(res.flags, strings.Fields(m[1])...)
		_, stderr, code, crash = runCaught(append([]string{"predict", path, "--quiet"}, res.flags...)...)
	}
	switch {
	case crash != "" || (code != ExitOK && code != ExitUsage):
		res.outcome, res.problem = corpusCrashed, fmt.Sprintf("predict: exit %d %s%s", code, crash, stderr)
	case code == ExitUsage:
		line := strings.TrimSuffix(stderr, "\n")
		res.outcome, res.errLine, res.reason = corpusImported, line, refusalReason(line)
		res.problem = checkRefusal(stderr)
	default:
		res.outcome = corpusPredicted
	}
	return res
}

// runCaught runs a command line in-process and turns a panic into crash,
// so that one file's crash names the file.
func runCaught(args ...string) (stdout, stderr string, code int, crash string) {
	defer func() {
		if r := recover(); r != nil {
			crash = fmt.Sprintf("panic: %v", r)
		}
	}()
	var out, errOut strings.Builder
	code = Run(append([]string{"polyvol"}, args...), &out, &errOut)
	return out.String(), errOut.String(), code, ""
}

// checkRefusal returns what is wrong with a refusal's stderr, "" when it
// is one line that starts with "polyvol:".
func checkRefusal(stderr string) string {
	if !strings.HasPrefix(stderr, "polyvol: ") || !strings.HasSuffix(stderr, "\n") || strings.Count(stderr, "\n") != 1 {
		return fmt.Sprintf("the refusal is not one line starting \"polyvol: \": %q", stderr)
	}
	return ""
}

// Parts of a refusal that vary from file to file: the file and position,
// what it concerns, quoted texts and numbers.
var (
	refusalFile   = regexp.MustCompile(`^polyvol: [^ ]*?(:\d+)*: `)
	refusalWhere  = regexp.MustCompile(`^(statement "[^"]*"( access \d+ \([^)]*\))?|statement [A-Za-z0-9_.]+|array "[^"]*"|arrays\[\d+\]|statements(\[\d+\])?|context|JSCoP|block [0-9,]+ fold [0-9,]+( \(strided\))?): `)
	refusalQuoted = regexp.MustCompile(`"[^"]*"`)
	refusalNumber = regexp.MustCompile(`-?\b\d+\b`)
)

// refusalReason returns the first words of a refusal, without the file,
// what it concerns, quoted texts and numbers, so that refusals for the
// same reason count together.
func refusalReason(line string) string {
	msg := refusalFile.ReplaceAllString(line, "")
	msg = strings.TrimPrefix(msg, "polyvol: ")
	for refusalWhere.MatchString(msg) {
		msg = refusalWhere.ReplaceAllString(msg, "")
	}
	msg = refusalQuoted.ReplaceAllString(msg, `"…"`)
	msg = refusalNumber.ReplaceAllString(msg, "N")
	words := strings.Fields(msg)
	return strings.Join(words[:min(len(words), 7)], " ")
}

// TestPollyCorpus imports and predicts every JSCoP of Polly's test suite
// as a user would (runCorpusFile): no file may crash polyvol, every
// refusal is one line, and the number of files that import and predict
// may not drop below corpusPredictedFloor. It logs the counts by outcome
// and reason, the table of docs/corpus.md.
func TestPollyCorpus(t *testing.T) {
	results := pollyCorpusResults(t)
	least := 100
	if raceDetector {
		least /= raceStride
	}
	if len(results) < least {
		t.Fatalf("%d corpus files in %s; the corpus was lost", len(results), pollyCorpus)
	}
	counts := map[string]int{}
	byReason := map[string]int{}
	for _, r := range results {
		counts[r.outcome]++
		if r.reason != "" {
			byReason[r.outcome+": "+r.reason]++
		}
		if r.problem != "" {
			t.Errorf("%s (flags %q): %s", r.file, r.flags, r.problem)
		}
		if testing.Verbose() {
			t.Logf("%-28s %-100s %s %s", r.outcome, r.file, strings.Join(r.flags, " "), r.errLine)
		}
	}
	t.Log(corpusTable(len(results), counts, byReason))
	if counts[corpusCrashed] > 0 {
		t.Errorf("%d files crashed polyvol", counts[corpusCrashed])
	}
	if raceDetector {
		t.Logf("the race detector thins the corpus to every %dth file: no floor", raceStride)
		return
	}
	if n := counts[corpusPredicted]; n < corpusPredictedFloor {
		t.Errorf("%d of %d corpus files import and predict, fewer than the floor of %d", n, len(results), corpusPredictedFloor)
	} else if n > corpusPredictedFloor {
		t.Logf("%d files import and predict, more than the floor of %d: raise corpusPredictedFloor", n, corpusPredictedFloor)
	}
}

// corpusTable renders the counts of the corpus run as a Markdown table.
func corpusTable(total int, counts, byReason map[string]int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n| outcome | files |\n|---|---:|\n")
	for _, o := range []string{corpusPredicted, corpusImported, corpusRefused, corpusCrashed} {
		fmt.Fprintf(&b, "| %s | %d |\n", o, counts[o])
	}
	fmt.Fprintf(&b, "| total | %d |\n", total)
	reasons := make([]string, 0, len(byReason))
	for r := range byReason {
		reasons = append(reasons, r)
	}
	slices.SortFunc(reasons, func(a, b string) int {
		if byReason[a] != byReason[b] {
			return byReason[b] - byReason[a]
		}
		return strings.Compare(a, b)
	})
	fmt.Fprintf(&b, "\n| refused: reason (first words) | files |\n|---|---:|\n")
	for _, r := range reasons {
		fmt.Fprintf(&b, "| %s | %d |\n", strings.ReplaceAll(r, "|", `\|`), byReason[r])
	}
	return b.String()
}
