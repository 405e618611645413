package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/polyvol/polyvol/isl"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/request"
	"github.com/polyvol/polyvol/supervise"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// hostileChildEnv, set to 1, makes the test binary run the polyvol command
// line of its arguments instead of the tests (TestMain), so that
// TestHostileInputs runs every case in a process of its own and measures
// its memory.
const hostileChildEnv = "POLYVOL_HOSTILE_CHILD"

// TestMain runs the tests, or, in a child of TestHostileInputs, one
// polyvol command line, with its untrusted work in workers as the polyvol
// command runs it, or, in a worker, the worker's jobs.
func TestMain(m *testing.M) {
	if supervise.IsWorker() {
		os.Exit(supervise.ServeJobs())
	}
	if os.Getenv(hostileChildEnv) == "1" {
		supervise.EnableWorkers()
		os.Exit(RunWithInput(append([]string{"polyvol"}, os.Args[1:]...), os.Stdin, os.Stdout, os.Stderr))
	}
	isl.PanicOnLeak() // a forgotten ISL object crashes the tests with its allocation site
	// The tests count the instruction mix unless they choose one (a
	// compile per distinct kernel would take minutes); those of the
	// default, and TestDocs, unset this.
	os.Setenv(request.InstructionsEnv, request.InstructionsCounted)
	os.Exit(m.Run())
}

// hostileDir holds the committed corpus of hostile inputs.
const hostileDir = "../testdata/hostile"

// Limits every hostile case must keep.
const (
	hostileMaxRSSBytes = 200 << 20
	// hostileHang is far beyond any case's work bound (the slowest takes
	// a few seconds); a case still running then hangs.
	hostileHang = 90 * time.Second
	// raceMemoryFactor is the race detector's largest memory overhead.
	raceMemoryFactor = 10
)

// Outcomes of a hostile case.
const (
	wantOK    = "ok"    // exit 0 with output
	wantUsage = "usage" // exit 2 with one line naming the wants
	wantAny   = "any"   // either of the two, for generated variants
)

// hostileCase is one command line of the corpus. In args, {h} stands for
// the corpus directory and {t} for a scratch directory of generated inputs.
// A usage error's line must contain every string of wants, which name the
// file and, where there is one, the line, column or key.
type hostileCase struct {
	name  string
	args  []string
	want  string
	wants []string
	stdin string // a file the command reads as standard input; default /dev/null
}

// hostileCases lists the corpus: one case per file of testdata/hostile, and
// the flag and path cases.
func hostileCases() []hostileCase {
	usage := func(name string, wants []string, args ...string) hostileCase {
		return hostileCase{name: name, args: args, want: wantUsage, wants: wants}
	}
	ok := func(name string, args ...string) hostileCase {
		return hostileCase{name: name, args: args, want: wantOK}
	}
	w := func(s ...string) []string { return s }
	predictSpec := func(file string, wants ...string) hostileCase {
		return usage(file, append([]string{file}, wants...), "predict", "{h}/"+file)
	}
	device := func(file string, wants ...string) hostileCase {
		return usage(file, append([]string{file}, wants...), "predict", "vec-copy", "--device-file", "{h}/"+file)
	}
	profile := func(file string, wants ...string) hostileCase {
		return usage(file, append([]string{file}, wants...), "project", "--profile", "{h}/"+file, "--from", "A100-40GB", "--to", "H100-SXM")
	}
	shard := func(file string, wants ...string) hostileCase {
		return usage(file, append([]string{file}, wants...), "merge", "{h}/"+file)
	}
	csvDir := func(dir string, wants ...string) hostileCase {
		return usage(dir, append([]string{dir + "/sweep.csv"}, wants...), "measured", "{h}/"+dir)
	}
	return []hostileCase{
		// Specs that were found hanging or crashing, and that must
		// finish within the work bound.
		ok("spec-mods8.yaml", "predict", "{h}/spec-mods8.yaml"),
		ok("spec-floors200.yaml", "predict", "{h}/spec-floors200.yaml"),
		ok("spec-floors-nested60.yaml", "predict", "{h}/spec-floors-nested60.yaml"),
		ok("spec-mod-floor.yaml", "predict", "{h}/spec-mod-floor.yaml"),
		ok("spec-stride.yaml", "predict", "{h}/spec-stride.yaml", "--fold", "8,1,1"),
		ok("spec-stride.yaml y-fold", "predict", "{h}/spec-stride.yaml", "--fold", "1,8,1"),
		ok("spec-stride3d.yaml layercond fold", "layercond", "{h}/spec-stride3d.yaml", "--fold", "1,2,1", "--block", "256,1,1"),
		ok("spec-3d-huge-range.yaml", "predict", "{h}/spec-3d-huge-range.yaml"),
		ok("spec-extent-small.yaml", "predict", "{h}/spec-extent-small.yaml"),
		ok("spec-past-extent.yaml", "predict", "{h}/spec-past-extent.yaml"),
		ok("spec-offset-negative.yaml", "predict", "{h}/spec-offset-negative.yaml"),
		ok("spec-long-name.yaml", "predict", "{h}/spec-long-name.yaml", "--format", "csv"),
		ok("spec-unicode.yaml", "predict", "{h}/spec-unicode.yaml"),
		ok("spec-many-fields.yaml", "predict", "{h}/spec-many-fields.yaml", "--format", "csv"),
		ok("spec-many-loads.yaml", "predict", "{h}/spec-many-loads.yaml"),
		// Specs that are usage errors, located in the file.
		predictSpec("spec-minus65.yaml", ":9:10:", "nested deeper than 64"),
		predictSpec("spec-parens100000.yaml", ":9:10:", "nested deeper than 64"),
		predictSpec("spec-deep.json", ":1:10055:", "max depth"),
		predictSpec("spec-yaml-indent.yaml", ":6:4:", "syntax error", "block collection that starts at line 5, column 3"),
		predictSpec("spec-tab-indent.yaml", ":5:1:", "syntax error"),
		predictSpec("spec-raw-arity.yaml", ":10:9:", "load_isl[0]", "input tuple has 4 coordinates, the domain 2"),
		predictSpec("spec-raw-out-arity.yaml", ":10:9:", "load_isl[0]", "output tuple has 4 entries"),
		predictSpec("spec-raw-params.yaml", ":9:9:", "load_isl[0]", "parameters"),
		predictSpec("spec-raw-garbage.yaml", ":9:9:", "load_isl[0]"),
		// Its counting needs 180 MB, beyond the default memory bound; the case's process
		// must stay under hostileMaxRSSBytes.
		usage("spec-coupled-wrap-12800.yaml", w("block 256,1,2 fold 1,1,1", "--max-memory"), "predict", "{h}/spec-coupled-wrap-12800.yaml"),
		predictSpec("spec-raw-divide-by-zero.yaml", ":10:9:", "load_isl[0]", "column 35: division by zero"),
		predictSpec("jscop-domain-divide-by-zero.jscop", ":6:16:", `statement "Stmt"`, "column 25: division by zero"),
		// Raw maps that crashed libisl or ran it without bound behind its
		// reader's comments and continuation lines, nesting and long
		// lists: refused with a position, or stopped by the limits of the
		// worker process that reads them.
		predictSpec("spec-isl-comment-divide-by-zero.yaml", ":9:9:", "load_isl[0]", "line 1, column 35: division by zero"),
		predictSpec("spec-isl-continuation-divide-by-zero.yaml", ":9:9:", "load_isl[0]", "line 1, column 35: division by zero"),
		predictSpec("spec-isl-comment-power.yaml", ":9:9:", "load_isl[0]", "line 1, column 33: the power 2 ^ 100000000000000 is out of the 64-bit range"),
		predictSpec("spec-isl-continuation-power.yaml", ":9:9:", "load_isl[0]", "line 1, column 33: the power 3 ^4000000000"),
		predictSpec("spec-isl-comment-existentials.yaml", ":9:9:", "load_isl[0]", "line 2, column 310: more than 64 entries in one list"),
		predictSpec("spec-isl-parens60000.yaml", ":9:9:", "load_isl[0]", "column 96: brackets nested more than 64 deep"),
		predictSpec("spec-isl-pieces4096.yaml", ":9:9:", "load_isl[0]", "column 35755: more than 1024 pieces"),
		predictSpec("spec-isl-nested-mods.yaml", ":9:9:", "load_isl[0]", "reading the map with libisl: the work passed its"),
		predictSpec("spec-isl-comment-params6000.yaml", ":9:9:", "load_isl[0]", "line 2, column 310: more than 64 entries in one list"),
		ok("spec-matvec-guarded.yaml", "predict", "{h}/spec-matvec-guarded.yaml", "--block", "256", "--fold", "1,256"),
		ok("spec-isl-existentials2000.yaml", "predict", "{h}/spec-isl-existentials2000.yaml"),
		usage("jscop-nested-mods.jscop", w("jscop-nested-mods.jscop: importing the file with libisl: the work passed its"), "predict", "{h}/jscop-nested-mods.jscop"),
		predictSpec("jscop-comment-divide-by-zero.jscop", ":6:16:", `statement "Stmt"`, "line 1, column 25: division by zero"),
		usage("spec-shared-huge.yaml", w("shared memory", "200000 bytes"), "predict", "{h}/spec-shared-huge.yaml"),
		predictSpec("spec-flops-huge.yaml", ":4:8:", "flops"),
		predictSpec("spec-flops-negative.yaml", ":4:8:", "flops"),
		predictSpec("spec-flops-nan.yaml", ":4:8:", "flops"),
		predictSpec("spec-flops-string.yaml", ":4:8:", "flops"),
		predictSpec("spec-domain-overflow.yaml", ":3:10:", "domain"),
		predictSpec("spec-domain-beyond-int64.yaml", ":3:10:", "domain[0]"),
		predictSpec("spec-domain-zero.yaml", ":3:10:", "domain[0]"),
		predictSpec("spec-domain-negative.yaml", ":3:10:", "domain[0]"),
		predictSpec("spec-domain-4d.yaml", ":3:9:", "domain"),
		predictSpec("spec-domain-empty.yaml", ":3:9:", "domain"),
		predictSpec("spec-domain-string.yaml", ":3:9:", "domain[0]"),
		predictSpec("spec-k06-huge.yaml", ":3:", "domain"),
		predictSpec("spec-multidoc.yaml", ":10:1:", "one YAML or JSON document"),
		predictSpec("spec-json-garbage.json", ":1:112:", "syntax error"),
		predictSpec("spec-json-two.json", ":2:1:", "syntax error"),
		predictSpec("spec-empty.yaml", ":1:1:", "empty spec"),
		predictSpec("spec-comments-only.yaml", ":1:1:", "empty spec"),
		predictSpec("spec-nul-bytes.yaml", ":1:10:", "control characters"),
		predictSpec("spec-utf16.yaml", ":2:"),
		predictSpec("spec-list-root.yaml", ":1:1:", "mapping"),
		predictSpec("spec-scalar-root.yaml", ":1:1:", "mapping"),
		predictSpec("spec-unknown-key.yaml", ":5:1:", `"colour"`),
		predictSpec("spec-no-fields.yaml", ":5:8:", "fields"),
		predictSpec("spec-fields-empty.yaml", ":6:3:", "fields"),
		predictSpec("spec-element-zero.yaml", ":7:14:", "element"),
		predictSpec("spec-element-huge.yaml", ":7:14:", "element"),
		predictSpec("spec-element-odd.yaml", ":7:14:", "element"),
		predictSpec("spec-extent-huge.yaml", ":8:14:", "extent"),
		predictSpec("spec-coeff-overflow.yaml", ":8:14:", "extent"),
		predictSpec("spec-offset-huge.yaml", ":8:13:", "offset"),
		predictSpec("spec-multiplicity-huge.yaml", ":8:19:", "multiplicity"),
		predictSpec("spec-registers-huge.yaml", ":5:12:", "registers"),
		predictSpec("spec-registers-negative.yaml", ":5:12:", "registers"),
		predictSpec("spec-fp-type-3.yaml", ":5:10:", "fp_type"),
		predictSpec("spec-name-nul.yaml", ":2:7:", "name: control character U+0000 at byte offset 3"),
		predictSpec("spec-field-name-control.json", ":2:22:", "fields[0] name: control character U+001B at byte offset 1"),
		predictSpec("spec-duplicate-field.yaml", ":10:11:", `field "A"`),
		predictSpec("spec-div-zero.yaml", ":9:10:", "column 9", "divisor"),
		predictSpec("spec-mod-zero.yaml", ":9:10:", "modulus"),
		predictSpec("spec-mod-negative.yaml", ":9:10:", "modulus"),
		predictSpec("spec-nonlinear.yaml", ":9:10:", "not affine"),
		predictSpec("spec-const-overflow.yaml", ":9:10:", "64 bits"),
		predictSpec("spec-float-index.yaml", ":9:10:", "floating-point"),
		predictSpec("spec-unknown-var.yaml", ":9:10:", `"w"`),
		predictSpec("spec-z-in-2d.yaml", ":9:9:", "extent"),
		predictSpec("spec-empty-index.yaml", ":9:9:", "load[0]"),
		predictSpec("spec-four-indices.yaml", ":9:9:", "load[0]"),
		predictSpec("spec-unbalanced.yaml", ":9:10:", "')'"),
		predictSpec("spec-trailing-op.yaml", ":9:10:", "column 4"),
		predictSpec("spec-index-string-list.yaml", ":9:9:", "load[0]"),
		predictSpec("spec-yaml-alias-bomb.yaml", ":7:11:", "load[0]"),
		// Device files.
		device("device-sms-huge.yaml", `"sms"`, "at most 4096"),
		usage("device-sms-huge.yaml layercond", w("device-sms-huge.yaml", `"sms"`), "layercond", "star3d-r4", "--device-file", "{h}/device-sms-huge.yaml"),
		device("device-sms-zero.yaml", ":46:", `"sms"`),
		device("device-sms-negative.yaml", ":46:", `"sms"`),
		device("device-sms-string.yaml", ":46:", `"sms"`),
		device("device-clock-nan.yaml", ":8:", `"clock_ghz"`),
		device("device-clock-inf.yaml", ":8:", `"clock_ghz"`),
		device("device-warp-odd.yaml", ":74:", `"warp_size"`),
		device("device-vendor.yaml", ":73:", `"vendor"`),
		device("device-unknown-key.yaml", ":9:", `"colour"`),
		device("device-missing-keys.yaml", `"vendor"`, "missing"),
		device("device-no-source.yaml", ":47:", `"sources"`),
		device("device-multidoc.yaml", ":2:1:", "one YAML or JSON document"),
		device("device-empty.yaml", ":1:", "mapping"),
		device("device-list.yaml", ":1:", "mapping"),
		device("device-garbage.yaml", ":1:1:", "control characters"),
		device("device-syntax.yaml", ":3:1:", "flow sequence that starts at line 2, column 6"),
		usage("device-warp-huge.yaml", w("no block of 256 threads fits"), "predict", "vec-copy", "--device-file", "{h}/device-warp-huge.yaml"),
		ok("device-l2-huge.yaml", "predict", "vec-copy", "--device-file", "{h}/device-l2-huge.yaml"),
		ok("device-l2-tiny.yaml", "predict", "vec-copy", "--device-file", "{h}/device-l2-tiny.yaml"),
		ok("device-latency-huge.yaml", "predict", "vec-copy", "--device-file", "{h}/device-latency-huge.yaml"),
		ok("device-threads-huge.yaml", "predict", "vec-copy", "--device-file", "{h}/device-threads-huge.yaml"),
		ok("device-l2-huge.yaml layercond", "layercond", "star3d-r4", "--device-file", "{h}/device-l2-huge.yaml"),
		usage("device-l2-huge.yaml simulate", w("L2 capacity"), "simulate", "vec-copy", "--domain", "4096", "--device-file", "{h}/device-l2-huge.yaml"),
		// Profiles.
		profile("profile-empty.json"),
		profile("profile-garbage.json"),
		profile("profile-array.json"),
		profile("profile-deep.json", "depth"),
		profile("profile-negative-time.json", "timeS"),
		profile("profile-zero-time.json", "timeS"),
		profile("profile-huge.json", ":1:28:", `key "flops"`, "out of range"),
		profile("profile-bytes-1e308.json", ":5:11:", `key "bytes.L1"`, "out of range"),
		usage("profile-bytes-1e308.json json", w("profile-bytes-1e308.json:5:11:", `key "bytes.L1"`), "project", "--profile", "{h}/profile-bytes-1e308.json", "--from", "A100-40GB", "--to", "H100-SXM", "--format", "json"),
		profile("profile-flops-1e309.json", ":3:12:", `key "flops"`, "1e309"),
		profile("profile-time-tiny.json", ":2:12:", `key "timeS"`, "out of range"),
		usage("device-dram-tiny.yaml project", w("star3d-r4-a100-illustrative.json", "projection out of range", "bandwidth ceiling"), "project", "--profile", "../examples/profiles/star3d-r4-a100-illustrative.json", "--device-file", "{h}/device-dram-tiny.yaml", "--from", "device-dram-tiny", "--to", "H100-SXM", "--format", "json"),
		profile("profile-string.json", `"flops"`),
		profile("profile-unknown-key.json", `"colour"`),
		profile("profile-negative-bytes.json", "bytes"),
		profile("profile-trailing.json"),
		profile("profile-missing.json"),
		// Shard files.
		shard("shard-garbage.json"),
		shard("shard-empty.json"),
		shard("shard-array.json"),
		shard("shard-no-shard-key.json", `no "shard" key`),
		shard("shard-zero-count.json", "0/0"),
		shard("shard-index-beyond.json", "9/2"),
		shard("shard-huge-count.json"),
		shard("shard-no-sweep.json", "shard.sweep"),
		shard("shard-null-row.json", "rows"),
		shard("shard-deep.json", "depth"),
		shard("shard-wrong-schema.json", "schemaVersion 99"),
		shard("shard-unknown-key.json", `"colour"`),
		shard("shard-other-version.json", `polyvolVersion "0.0.9 (commit 0123456789abcdef0123456789abcdef01234567)" differs`),
		shard("shard-no-version.json", "polyvolVersion: missing"),
		shard("shard-top-negative.json", "shard.top -5: expected 0 (all rows) to 1000000"),
		shard("shard-top-huge.json", "shard.top 1000000000000: expected 0 (all rows) to 1000000"),
		shard("shard-format-empty.json", `shard.format "": expected table, json or csv`),
		// Measurement files.
		csvDir("csv-no-header", "no header"),
		csvDir("csv-missing-column", ":1:", `"block_y"`),
		csvDir("csv-bad-number", ":2:", "time_ms"),
		csvDir("csv-nan", ":2:", "time_ms"),
		csvDir("csv-negative-time", ":2:", "time_ms"),
		csvDir("csv-lups-mismatch", ":2:", "lups"),
		csvDir("csv-comment-after-header", ":2:", "comment"),
		csvDir("csv-duplicate-column", ":1:", `"time_ms"`),
		csvDir("csv-quote", ":2:"),
		csvDir("csv-binary", ":1:"),
		// Rows that read well but cannot be estimated: refused before
		// any estimate, with the row's line.
		csvDir("csv-domain-overflow", ":2:", "4294967297×4294967297×1", "int64"),
		csvDir("csv-kernel-missing", ":2:", `"no-such-kernel"`, "no such file"),
		csvDir("csv-domain-huge", ":2:", "1000000000000000000×1×1", "2^50"),
		csvDir("csv-block-huge", ":2:", "block x = 2048"),
		csvDir("csv-kernel-dev-zero", ":2:", "/dev/zero", "larger than 2 MiB"),
		// The row's kernel is the spec beside sweep.csv, by its path from
		// cli/, where the test runs.
		csvDir("csv-kernel-malformed", ":2:", "csv-kernel-malformed/spec.yaml:9:12:", "syntax error"),
		// Kerncraft descriptions.
		usage("kerncraft-syntax.yml", w("kerncraft-syntax.yml:9:6:", "YAML syntax error", "block collection that starts at line 7, column 5"), "import", "kerncraft", "{h}/kerncraft-syntax.yml", "-D", "N=64"),
		// Flags and paths.
		usage("block zero", w("--block", "x"), "predict", "vec-copy", "--block", "0,1"),
		usage("block too large", w("block x = 2048"), "predict", "vec-copy", "--block", "2048"),
		usage("block not a number", w("--block"), "predict", "vec-copy", "--block", "a,b"),
		usage("block four entries", w("--block"), "predict", "vec-copy", "--block", "1,1,1,1"),
		usage("block beyond int64", w("--block"), "predict", "vec-copy", "--block", "99999999999999999999"),
		ok("block with x separators", "predict", "star3d-r4", "--block", "16x2x32"),
		usage("fold zero", w("--fold"), "predict", "vec-copy", "--fold", "0"),
		ok("fold 64", "predict", "star3d-r4", "--fold", "64"),
		usage("domain zero", w("--domain"), "predict", "vec-copy", "--domain", "0,1,1"),
		usage("domain beyond int64", w("--domain"), "predict", "vec-copy", "--domain", "99999999999999999999"),
		usage("domain overflow", w("domain"), "predict", "vec-copy", "--domain", "1125899906842624,1125899906842624"),
		usage("missing kernel", w(`"no-such-kernel"`, "no such file"), "predict", "no-such-kernel"),
		usage("two specs", w("predict"), "predict", "vec-copy", "star3d-r4"),
		usage("unknown device", w("no-such-gpu"), "predict", "vec-copy", "--device", "no-such-gpu"),
		usage("device control character", w("--device: device name", "control character U+0001 at byte offset 4"), "predict", "vec-copy", "--device", "A100\x01"),
		usage("device DEL", w("--device: device name", "control character U+007F at byte offset 4"), "simulate", "vec-copy", "--device", "A100\x7f"),
		usage("device invalid UTF-8", w("--device: device name", "invalid UTF-8 at byte offset 4"), "explore", "vec-copy", "--device", "A100\xff"),
		usage("device name of 100000 bytes", w("--device: device name", "of 100000 bytes: longer than the 256 bytes"), "layercond", "star3d-r4", "--device", strings.Repeat("n", 100000)),
		usage("devices NAME control character", w("devices NAME: device name", "U+001B"), "devices", "A100\x1b"),
		usage("project --to control character", w("--to: device name", "U+0009"), "project", "--profile", "../examples/profiles/star3d-r4-a100-illustrative.json", "--from", "A100-40GB", "--to", "H100\tSXM"),
		usage("import --name control character", w("--name: control character U+0007 at byte offset 1"), "import", "jscop", "../examples/polyhedral/star2d-5pt.jscop", "-D", "N=64", "--name", "a\a"),
		usage("unknown method", w("--method"), "predict", "vec-copy", "--method", "magic"),
		usage("unknown model", w("--model"), "predict", "vec-copy", "--model", "magic"),
		usage("max-work zero", w("--max-work"), "predict", "vec-copy", "--max-work", "0"),
		usage("max-work tiny", w("work bound"), "predict", "star3d-r4", "--max-work", "1"),
		usage("unknown format", w("--format"), "predict", "vec-copy", "--format", "xml"),
		usage("unknown flag", w("-o"), "predict", "vec-copy", "-o", "x"),
		usage("missing device file", w("{h}/none.yaml"), "predict", "vec-copy", "--device-file", "{h}/none.yaml"),
		usage("explore threads 3", w("--threads"), "explore", "vec-copy", "--threads", "3"),
		usage("explore top negative", w("--top"), "explore", "vec-copy", "--top", "-1"),
		usage("explore top huge", w("--top 1000000000000: expected 0 (all rows) to 1000000"), "explore", "vec-copy", "--top", "1000000000000"),
		usage("explore workers zero", w("--workers"), "explore", "vec-copy", "--workers", "0"),
		usage("explore shard 0/0", w("--shard"), "explore", "vec-copy", "--shard", "0/0"),
		usage("explore shard slurm outside slurm", w("--shard slurm", "SLURM_ARRAY_TASK_ID"), "explore", "vec-copy", "--shard", "slurm"),
		usage("explore repeated fold", w("--folds", "twice"), "explore", "vec-copy", "--folds", "1,1,1:1,1,1"),
		usage("explore fold zero", w("--folds"), "explore", "vec-copy", "--folds", "0"),
		ok("explore folds 64", "explore", "star3d-r4", "--folds", "64", "--threads", "16"),
		ok("explore folds 1,1,64", "explore", "star3d-r4", "--folds", "1,1,64", "--threads", "16"),
		ok("explore AoS x-folds", "explore", "lbm-d3q19-aos", "--folds", "2,1,1:4,1,1", "--threads", "32"),
		usage("explore nothing fits", w("every configuration was skipped", "fits on an SM", "shared memory"), "explore", "{h}/spec-shared-huge.yaml", "--threads", "64", "--folds", "1,1,1"),
		usage("layercond sweep x1e-7", w("--sweep", "x1e-7"), "layercond", "star3d-r4", "--sweep", "100:200:x1e-7"),
		usage("layercond sweep +1", w("--sweep", "more than"), "layercond", "star3d-r4", "--sweep", "1:1000000000:+1"),
		usage("layercond sweep reversed", w("--sweep"), "layercond", "star3d-r4", "--sweep", "100:10:x2"),
		usage("layercond sweep tiny factor", w("--sweep", "55451778 sizes", "--max-points"), "layercond", "star3d-r4", "--sweep", "64:16384:x1.0000001"),
		usage("layercond max-points zero", w("--max-points"), "layercond", "star3d-r4", "--max-points", "0"),
		usage("explore over max-configurations", w("--max-configurations 100", "262 configurations"), "explore", "star3d-r4", "--max-configurations", "100"),
		usage("max-memory zero", w("--max-memory"), "predict", "vec-copy", "--max-memory", "0"),
		usage("max-memory tiny", w("--max-memory"), "predict", "{h}/spec-floors200.yaml", "--max-memory", "1"),
		usage("layercond plot missing directory", w("--plot", "{t}/none/a.svg"), "layercond", "star3d-r4", "--plot", "{t}/none/a.svg"),
		usage("layercond plot onto a directory", w("--plot", "{t}/dir.svg", "directory"), "layercond", "star3d-r4", "--plot", "{t}/dir.svg"),
		usage("layercond plot pdf", w("--plot", ".svg or .png"), "layercond", "star3d-r4", "--plot", "{t}/a.pdf"),
		usage("layercond 1-D spec", w("vec-copy.yaml: domain:", "1-D"), "layercond", "vec-copy"),
		usage("layercond warp-huge device", w("no block of 512 threads fits"), "layercond", "star3d-r4", "--device-file", "{h}/device-warp-huge.yaml"),
		usage("simulate too large", w("--domain"), "simulate", "star3d-r4"),
		usage("simulate addresses beyond 2^43", w("2^43"), "simulate", "star3d-r4", "--domain", "100000,100000,100000"),
		usage("cuda output into a missing directory", w("--output", "{t}/none/k.cu"), "cuda", "vec-copy", "--block", "256", "-o", "{t}/none/k.cu"),
		usage("cuda output onto a directory", w("--output", "directory"), "cuda", "vec-copy", "--block", "256", "-o", "{t}"),
		usage("accuracy output into a missing directory", w("--output", "{t}/none/r.md"), "accuracy", "-o", "{t}/none/r.md"),
		usage("measured output into a missing directory", w("--output", "{t}/none/r.md"), "measured", "{h}/csv-nan", "-o", "{t}/none/r.md"),
		usage("measured missing directory", w("{t}/none"), "measured", "{t}/none"),
		usage("merge nothing", w("merge"), "merge"),
		usage("merge a directory", w("{h}"), "merge", "{h}"),
		usage("project without flags", w("--profile"), "project"),
		usage("project unknown device", w("no-such-gpu"), "project", "--profile", "../examples/profiles/star3d-r4-a100-illustrative.json", "--from", "no-such-gpu", "--to", "H100-SXM"),
		usage("project profile directory", w("{h}", "not a regular file"), "project", "--profile", "{h}", "--from", "A100-40GB", "--to", "H100-SXM"),
		usage("devices unknown", w("no-such-gpu"), "devices", "no-such-gpu"),
		usage("completion unknown shell", w("completion", "bash or zsh"), "completion", "fish"),
		// Endless and oversized inputs (the generated files of
		// writeHostileInputs).
		usage("spec /dev/zero", w("/dev/zero", "larger than 2 MiB"), "predict", "/dev/zero"),
		usage("spec /dev/urandom", w("/dev/urandom", "larger than 2 MiB"), "predict", "/dev/urandom"),
		usage("spec oversized", w("{t}/big.yaml", "larger than 2 MiB"), "predict", "{t}/big.yaml"),
		{name: "spec stdin /dev/zero", args: []string{"predict", "-"}, want: wantUsage, wants: w("<stdin>", "larger than 2 MiB"), stdin: "/dev/zero"},
		{name: "spec stdin empty", args: []string{"predict", "-"}, want: wantUsage, wants: w("<stdin>")},
		usage("device /dev/zero", w("/dev/zero", "larger than 1 MiB"), "predict", "vec-copy", "--device-file", "/dev/zero"),
		usage("device /dev/urandom", w("/dev/urandom", "larger than 1 MiB"), "predict", "vec-copy", "--device-file", "/dev/urandom"),
		usage("device oversized", w("{t}/big-device.yaml", "larger than 1 MiB"), "predict", "vec-copy", "--device-file", "{t}/big-device.yaml"),
		usage("profile /dev/zero", w("/dev/zero", "not a regular file"), "project", "--profile", "/dev/zero", "--from", "A100-40GB", "--to", "H100-SXM"),
		usage("profile /dev/urandom", w("/dev/urandom", "not a regular file"), "project", "--profile", "/dev/urandom", "--from", "A100-40GB", "--to", "H100-SXM"),
		usage("profile oversized", w("{t}/big-profile.json", "larger than 1 MiB"), "project", "--profile", "{t}/big-profile.json", "--from", "A100-40GB", "--to", "H100-SXM"),
		usage("shard /dev/zero", w("/dev/zero", "not an explore --shard output"), "merge", "/dev/zero"),
		usage("shard /dev/urandom", w("/dev/urandom", "not an explore --shard output"), "merge", "/dev/urandom"),
		usage("shard oversized", w("{t}/big-shard.json", "larger than 32 MiB"), "merge", "{t}/big-shard.json"),
		usage("csv oversized", w("{t}/big-csv/sweep.csv", "larger than 16 MiB"), "measured", "{t}/big-csv"),
		usage("csv /dev/zero", w("{t}/zero-csv/sweep.csv", "larger than 16 MiB"), "measured", "{t}/zero-csv"),
	}
}

// nestingVariants are generated specs around the parser's nesting bound:
// unary minuses, parentheses, floors and mods nested or repeated 1 to 200
// times. Each must end within its bound, with a result or a located error.
func nestingVariants(dir string) ([]hostileCase, error) {
	var cases []hostileCase
	for _, n := range []int{1, 8, 32, 63, 64, 65, 66, 100, 200} {
		exprs := map[string]string{
			"minus":  strings.Repeat("-", n) + "x",
			"parens": strings.Repeat("(", n) + "x" + strings.Repeat(")", n),
			"floors": strings.Repeat("floor(", n) + "x" + strings.Repeat(" / 2)", n),
			"mods":   "x" + strings.Repeat(" mod 7", n),
			"sum":    strings.TrimSuffix(strings.Repeat("floor(x / 3) + (x mod 5) + ", n), " + "),
		}
		for _, kind := range slices.Sorted(maps.Keys(exprs)) {
			name := fmt.Sprintf("nest-%s-%d.yaml", kind, n)
			spec := fmt.Sprintf("name: nest\ndomain: [256, 64]\nflops: 1\nfields:\n  - name: A\n    element: 8\n    extent: [100000, 64]\n    load:\n      - [%s, y]\n", exprs[kind])
			if err := os.WriteFile(filepath.Join(dir, name), []byte(spec), 0o644); err != nil {
				return nil, err
			}
			cases = append(cases, hostileCase{name: name, args: []string{"predict", "{t}/" + name}, want: wantAny, wants: []string{name + ":9:10:"}})
		}
	}
	return cases, nil
}

// writeHostileInputs writes the oversized inputs of the corpus into dir:
// files just beyond each size limit, sparse where the loader reads them
// whole before parsing, so that nothing large is committed.
func writeHostileInputs(dir string) error {
	sparse := func(name string, size int64) error {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		if _, err := f.WriteString("name: x\n"); err != nil {
			return err
		}
		if err := f.Truncate(size); err != nil {
			return err
		}
		return f.Close()
	}
	for _, d := range []string{"dir.svg", "big-csv", "zero-csv"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			return err
		}
	}
	for name, size := range map[string]int64{
		"big.yaml":          kernel.MaxSpecBytes + 1,
		"big-device.yaml":   1<<20 + 1,
		"big-profile.json":  1<<20 + 1,
		"big-csv/sweep.csv": 16<<20 + 1,
	} {
		if err := sparse(name, size); err != nil {
			return err
		}
	}
	// A shard must be JSON up to its size limit, or it fails earlier.
	shard := append([]byte(`{"rows": [`), bytes.Repeat([]byte(" "), 32<<20)...)
	if err := os.WriteFile(filepath.Join(dir, "big-shard.json"), shard, 0o644); err != nil {
		return err
	}
	return os.Symlink("/dev/zero", filepath.Join(dir, "zero-csv", "sweep.csv"))
}

// TestHostileInputs runs every case of the corpus in a child process and
// checks the contract of bad input: exit 0 with output, or exit 2 with
// nothing on stdout and exactly one line on stderr of at most 300
// characters that starts with "polyvol: " and names the file and position;
// never a panic or another exit code, never past the hang bound, never more
// than 200 MB of memory.
func TestHostileInputs(t *testing.T) {
	tmp := t.TempDir()
	if err := writeHostileInputs(tmp); err != nil {
		t.Fatal(err)
	}
	variants, err := nestingVariants(tmp)
	if err != nil {
		t.Fatal(err)
	}
	cases := append(hostileCases(), variants...)
	checkCorpusCovered(t, cases)
	expand := func(s string) string {
		return strings.NewReplacer("{h}", hostileDir, "{t}", tmp).Replace(s)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	env := []string{hostileChildEnv + "=1"}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "SLURM_") && !strings.HasPrefix(kv, hostileChildEnv+"=") {
			env = append(env, kv)
		}
	}
	t.Run("case", func(t *testing.T) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				args := make([]string, len(tc.args))
				for i, a := range tc.args {
					args[i] = expand(a)
				}
				ctx, cancel := context.WithTimeout(context.Background(), hostileHang)
				defer cancel()
				cmd := exec.CommandContext(ctx, exe, args...)
				cmd.Env = env
				var stdout, stderr bytes.Buffer
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				if tc.stdin != "" {
					f, err := os.Open(tc.stdin)
					if err != nil {
						t.Fatal(err)
					}
					defer f.Close()
					cmd.Stdin = f
				}
				err := cmd.Run()
				if ctx.Err() != nil {
					t.Fatalf("polyvol %s: still running after %v", strings.Join(args, " "), hostileHang)
				}
				code := cmd.ProcessState.ExitCode()
				if err != nil && code < 0 {
					t.Fatalf("polyvol %s: %v", strings.Join(args, " "), err)
				}
				limit := int64(hostileMaxRSSBytes)
				if raceDetector {
					limit *= raceMemoryFactor
				}
				if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok && ru.Maxrss*1024 > limit {
					t.Errorf("polyvol %s: %d MB of memory, more than %d MB", strings.Join(args, " "), ru.Maxrss>>10, limit>>20)
				}
				wants := make([]string, len(tc.wants))
				for i, s := range tc.wants {
					wants[i] = expand(s)
				}
				errOut := stderr.String()
				if code == ExitUsage && asksJSON(append([]string{"polyvol"}, args...)) {
					errOut = plainErrorLine(t, errOut)
				}
				checkHostileOutcome(t, strings.Join(args, " "), tc.want, wants, code, stdout.String(), errOut)
			})
		}
	})
}

// plainErrorLine returns the error line "polyvol: FILE:LINE:COLUMN:
// message" of the JSON error a command run with --format json wrote on
// stderr, which must be one line of an error of the user's.
func plainErrorLine(t *testing.T, stderr string) string {
	t.Helper()
	var d request.Description
	if strings.Count(stderr, "\n") != 1 || json.Unmarshal([]byte(stderr), &d) != nil || d.Kind == request.KindInternal.String() || d.Message == "" {
		t.Errorf("the error is not one line of JSON of an error of the user's:\n%.1000s", stderr)
		return stderr
	}
	position := ""
	switch {
	case d.Column != 0:
		position = fmt.Sprintf("%s:%d:%d: ", d.File, d.Line, d.Column)
	case d.Line != 0:
		position = fmt.Sprintf("%s:%d: ", d.File, d.Line)
	}
	return "polyvol: " + position + d.Message + "\n"
}

// checkHostileOutcome checks one case's exit code and output.
func checkHostileOutcome(t *testing.T, cmdline, want string, wants []string, code int, stdout, stderr string) {
	t.Helper()
	if strings.Contains(stderr, "panic") || strings.Contains(stderr, "goroutine ") {
		t.Fatalf("polyvol %s: exit %d with a panic or stack trace:\n%.2000s", cmdline, code, stderr)
	}
	switch {
	case code == ExitOK && want != wantUsage:
		if stdout == "" {
			t.Errorf("polyvol %s: exit 0 without output", cmdline)
		}
		for _, line := range strings.SplitAfter(stderr, "\n") {
			if line != "" && !strings.HasPrefix(line, "polyvol: ") {
				t.Errorf("polyvol %s: stderr line without the polyvol: prefix: %q", cmdline, line)
			}
		}
	case code == ExitUsage && want != wantOK:
		line := strings.TrimSuffix(stderr, "\n")
		if stdout != "" {
			t.Errorf("polyvol %s: exit 2 after %d bytes of output", cmdline, len(stdout))
		}
		if strings.Contains(line, "\n") || !strings.HasSuffix(stderr, "\n") || !strings.HasPrefix(line, "polyvol: ") || len(stderr) > request.MaxLine+1 {
			t.Errorf("polyvol %s: the error is not one line of at most %d characters starting polyvol: (%d bytes):\n%.1000s", cmdline, request.MaxLine, len(stderr), stderr)
		}
		if want == wantUsage {
			for _, s := range wants {
				if !strings.Contains(line, s) {
					t.Errorf("polyvol %s: the error %q does not name %q", cmdline, line, s)
				}
			}
		} else if !strings.Contains(line, "2^") && !strings.Contains(line, wants[0]) && !strings.Contains(line, "work bound") {
			t.Errorf("polyvol %s: the error %q is neither located (%q) nor a bound", cmdline, line, wants[0])
		}
	default:
		t.Errorf("polyvol %s: exit %d, want %s; stdout %.300q, stderr %.1000q", cmdline, code, want, stdout, stderr)
	}
}

// checkCorpusCovered checks that every file of the corpus directory is the
// input of some case, so that no committed input goes untested.
func checkCorpusCovered(t *testing.T, cases []hostileCase) {
	t.Helper()
	entries, err := os.ReadDir(hostileDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) < 100 {
		t.Errorf("%d hostile cases, want at least 100", len(cases))
	}
	used := map[string]bool{}
	for _, tc := range cases {
		for _, a := range tc.args {
			if rest, ok := strings.CutPrefix(a, "{h}/"); ok {
				used[rest] = true
			}
		}
	}
	for _, e := range entries {
		if e.Name() != "BUILD.bazel" && e.Name() != "README.md" && !used[e.Name()] {
			t.Errorf("%s/%s is in no hostile case", hostileDir, e.Name())
		}
	}
}

// TestErrorLine checks that request.Line puts a message on one line and cuts
// one longer than the line allows after its last whole part or word, or
// inside the first word at a character boundary.
func TestErrorLine(t *testing.T) {
	room := request.MaxLine - len("polyvol: ") // 291 bytes, 288 before the "…"
	part := `key "x": missing; `               // 18 bytes: 16 parts fill 288
	word := "abcdefghij "                      // 11 bytes: 26 words fill 286, the 27th does not fit
	for _, tc := range []struct {
		msg, want string
	}{
		{"short\nmessage", "short; message"},
		{strings.Repeat(part, 40), strings.Repeat(part, 16) + "…"},
		{strings.Repeat(word, 40), strings.Repeat(word, 26) + "…"},
		{"x " + strings.Repeat("y", 400), "x …"},
		{strings.Repeat("é", 400), strings.Repeat("é", 144) + "…"},
	} {
		got := request.Line(fmt.Errorf("%s", tc.msg))
		if got != tc.want || len(got) > room {
			t.Errorf("request.Line(%.40q…) = %q (%d bytes), want %q", tc.msg, got, len(got), tc.want)
		}
	}
}
