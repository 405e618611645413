package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"unicode/utf8"

	"github.com/polyvol/polyvol/explore"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/model"
	"github.com/polyvol/polyvol/request"
	ucli "github.com/urfave/cli/v2"
)

func init() {
	register(func() *ucli.Command {
		return &ucli.Command{
			Name:      "merge",
			Usage:     "combine the outputs of explore --shard K/N into the unsharded result",
			ArgsUsage: "FILE...",
			UsageText: `polyvol merge FILE... [--format table|json|csv] [--top N]

Each FILE is the JSON output of one 'polyvol explore --shard K/N' run of
this polyvol version; all N shards of the same exploration must be given, in
any order. The output is
byte-identical to the exploration run without --shard, in the format and
with the --top the shards were run with unless --format or --top is given.

Examples:
   polyvol merge shard-*.json
   polyvol merge --format csv shard-1.json shard-2.json shard-3.json`,
			Flags: []ucli.Flag{
				&choiceFlag{&ucli.StringFlag{Name: "format", Usage: "output `FORMAT`: table, json or csv", DefaultText: "the shards'"}, []string{formatTable, formatJSON, formatCSV}},
				&ucli.IntFlag{Name: "top", Usage: "`N` rows of the table, 0: all (at most " + fmt.Sprint(maxTop) + ")", DefaultText: "the shards'"},
			},
			Action: runMerge,
		}
	})
}

// runMerge is the action of the merge command.
func runMerge(c *ucli.Context) error {
	if c.NArg() == 0 {
		return usageErrorf("merge needs the shard files of one exploration")
	}
	e, err := mergeShards(c.Args().Slice())
	if err != nil {
		return err
	}
	if err := request.CheckSomeRanked(e); err != nil {
		return err
	}
	format, top := e.Shard.Format, e.Shard.Top
	if c.IsSet("format") {
		if format, err = outputFormat(c, formatTable, formatJSON, formatCSV); err != nil {
			return err
		}
	}
	if c.IsSet("top") {
		top = c.Int("top")
		if err := checkTop(top); err != nil {
			return flagErrorf("top", "--top %d: %v", top, err)
		}
	}
	e.Shard = nil
	return writeExploration(c.App.Writer, c.App.ErrWriter, e, format, top)
}

// maxTop bounds --top of explore and merge: a table of a million rows is
// more than any sweep has (block shapes of at most 1024 threads times the
// folds).
const maxTop = 1_000_000

// checkTop returns an error when top, a --top value, is outside 0 (all
// rows) to maxTop.
func checkTop(top int) error {
	if top < 0 || top > maxTop {
		return fmt.Errorf("expected 0 (all rows) to %d", maxTop)
	}
	return nil
}

// mergeShards reads the shard files and combines them into one exploration
// whose Shard holds the shards' format and top. Every shard must have been
// written by this polyvol's version (readShard), so all carry the same one,
// and the shards must prove that they are one sweep, tiled exactly once:
// every shard 1..N appears once,
// all carry the same sweep fingerprint and header, each shard's digest
// matches its rows, every row and skipped configuration belongs to its
// shard's slice of the enumeration (explore: configuration i in shard
// i mod N + 1), and each configuration appears exactly once.
func mergeShards(paths []string) (*request.Exploration, error) {
	var all *request.Exploration
	seen := map[int]string{}
	for _, path := range paths {
		e, err := readShard(path)
		if err != nil {
			return nil, err
		}
		if prev, ok := seen[e.Shard.Index]; ok {
			return nil, usageErrorf("%s: shard %d/%d was already given in %s", path, e.Shard.Index, e.Shard.Count, prev)
		}
		seen[e.Shard.Index] = path
		if all == nil {
			all = e
			continue
		}
		if !sameExploration(all, e) {
			return nil, usageErrorf("%s: shard of a different exploration than %s (kernel, device, method, model, domain, threads, folds, tilings, staging, steps, registers, shard count, format or top differ)", path, paths[0])
		}
		if e.Shard.Sweep != all.Shard.Sweep {
			return nil, usageErrorf("%s: shard of a different sweep than %s: shard.sweep %s differs from %s (the spec, device or flags differ)", path, paths[0], e.Shard.Sweep, all.Shard.Sweep)
		}
		all.Rows = append(all.Rows, e.Rows...)
		all.Skipped = append(all.Skipped, e.Skipped...)
	}
	for k := 1; k <= all.Shard.Count; k++ {
		if _, ok := seen[k]; !ok {
			return nil, usageErrorf("shard %d/%d is missing", k, all.Shard.Count)
		}
	}
	explore.Rank(all.Rows)
	return all, nil
}

// maxShardBytes bounds the size of a shard file: a row takes about 5.5 KB
// of JSON, so a shard may hold about 6,000 (a larger sweep needs more
// shards), and reading one stays near 100 MB.
const maxShardBytes = 32 << 20

// readShard decodes one shard file of at most maxShardBytes; unknown keys
// and text after the JSON object are errors. The file is decoded as it is
// read, so that garbage such as /dev/zero fails at its first byte.
func readShard(path string) (*request.Exploration, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, asUsage(err)
	}
	defer f.Close()
	in := &countingReader{r: io.LimitReader(f, maxShardBytes+1)}
	tooLarge := func() error {
		return usageErrorf("%s: larger than %d MiB; not a shard file of polyvol explore", path, maxShardBytes>>20)
	}
	dec := json.NewDecoder(in)
	dec.DisallowUnknownFields()
	var versioned struct {
		request.JSONVersion
		request.Exploration
	}
	if err := dec.Decode(&versioned); err != nil {
		if in.n > maxShardBytes {
			return nil, tooLarge()
		}
		return nil, usageErrorf("%s: not an explore --shard output: %v", path, describeJSONError(err))
	}
	if _, err := dec.Token(); err != io.EOF {
		if in.n > maxShardBytes {
			return nil, tooLarge()
		}
		return nil, usageErrorf("%s: not an explore --shard output: more text follows its JSON object", path)
	}
	if versioned.SchemaVersion != request.JSONSchemaVersion {
		return nil, usageErrorf("%s: schemaVersion %d: this polyvol reads JSON schema %d", path, versioned.SchemaVersion, request.JSONSchemaVersion)
	}
	switch v := versioned.PolyvolVersion; {
	case v == "":
		return nil, usageErrorf("%s: polyvolVersion: missing; not an explore --shard output of polyvol", path)
	case v != request.FullVersion():
		return nil, usageErrorf("%s: polyvolVersion %q differs from this polyvol's %q; merge the shards with the polyvol that wrote them, or run explore --shard again", path, excerptText(v), request.FullVersion())
	}
	e := versioned.Exploration
	if e.Shard == nil {
		return nil, usageErrorf("%s: not an explore --shard output: no \"shard\" key", path)
	}
	if e.Shard.Count < 1 || e.Shard.Index < 1 || e.Shard.Index > e.Shard.Count {
		return nil, usageErrorf("%s: shard %d/%d: expected 1 <= K <= N", path, e.Shard.Index, e.Shard.Count)
	}
	if !slices.Contains([]string{formatTable, formatJSON, formatCSV}, e.Shard.Format) {
		return nil, usageErrorf("%s: shard.format %q: expected %s, %s or %s, the formats of explore --format", path, excerptText(e.Shard.Format), formatTable, formatJSON, formatCSV)
	}
	if err := checkTop(e.Shard.Top); err != nil {
		return nil, usageErrorf("%s: shard.top %d: %v, the range of explore --top", path, e.Shard.Top, err)
	}
	if slices.Contains(e.Rows, (*model.Report)(nil)) {
		return nil, usageErrorf("%s: rows: null entry", path)
	}
	if e.Skipped == nil {
		e.Skipped = []explore.Skipped{}
	}
	if err := checkShard(&e); err != nil {
		return nil, usageErrorf("%s: %v", path, err)
	}
	return &e, nil
}

// excerptText returns s, cut to 80 bytes at a character boundary and
// marked "…" when longer, for quoting a value of a file in an error line;
// a polyvol version, 70 bytes at most, is quoted whole.
func excerptText(s string) string {
	const n = 80
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

// Read reads from the underlying reader and counts the bytes.
func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// describeJSONError words a decoding error for a user: a value of the
// wrong type names its key and the expected type without Go type names,
// and an empty file says so.
func describeJSONError(err error) string {
	var typeErr *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.EOF):
		return "the file is empty"
	case errors.As(err, &typeErr) && typeErr.Field == "":
		return fmt.Sprintf("expected a JSON object, got JSON %s", typeErr.Value)
	case errors.As(err, &typeErr):
		return fmt.Sprintf("key %q: unexpected JSON %s", typeErr.Field, typeErr.Value)
	}
	return err.Error()
}

// checkShard checks that a shard is internally consistent: it has a sweep
// fingerprint, its digest matches its rows and skipped configurations, and
// they are exactly the configurations of its slice of the enumeration, each
// once, with the shard's kernel, device, method and domain.
func checkShard(e *request.Exploration) error {
	if e.Shard.Sweep == "" {
		return errors.New("shard.sweep: missing; the shard was written by an older polyvol, run explore --shard again")
	}
	digest, err := shardDigest(e)
	if err != nil {
		return err
	}
	if digest != e.Shard.Digest {
		return fmt.Errorf("shard.digest %q does not match the shard's rows and skipped configurations (%s): the file was edited after explore wrote it", e.Shard.Digest, digest)
	}
	if len(e.Tilings) == 0 {
		return errors.New("tilings: missing; expected the tilings of explore --tiles")
	}
	if len(e.Folds) == 0 {
		return errors.New("folds: missing; expected the folds of explore --folds")
	}
	for i, t := range e.Steps {
		if t < 1 || t > kernel.MaxSteps || slices.Contains(e.Steps[:i], t) {
			return fmt.Errorf("steps %v: expected distinct time steps per launch from 1 to %d", e.Steps, kernel.MaxSteps)
		}
	}
	all, err := sweepConfigurations(e)
	if err != nil {
		return err
	}
	if e.Configurations != len(all) {
		return fmt.Errorf("configurations %d: %s threads per block, %s and %s give %d",
			e.Configurations, request.ThreadsText(e.Threads), request.CountNoun(len(e.Folds), "fold"), request.CountNoun(len(e.Tilings), "tiling"), len(all))
	}
	if err := checkRegisters(e); err != nil {
		return err
	}
	// index numbers the configurations as explore enumerates them
	// (explore.Configurations).
	index := map[explore.Configuration]int{}
	for i, c := range all {
		if _, dup := index[c]; dup {
			return fmt.Errorf("folds: fold %s appears twice", request.Triple(c.Fold))
		}
		index[c] = i
	}
	place := func(what string, c explore.Configuration) error {
		i, ok := index[c]
		switch {
		case !ok:
			return fmt.Errorf("%s: %v is not a configuration of this sweep", what, c)
		case i < 0:
			return fmt.Errorf("%s: %v appears twice", what, c)
		case i%e.Shard.Count != e.Shard.Index-1:
			return fmt.Errorf("%s: %v is configuration %d, which belongs to shard %d/%d, not %d/%d",
				what, c, i, i%e.Shard.Count+1, e.Shard.Count, e.Shard.Index, e.Shard.Count)
		}
		index[c] = -1
		return nil
	}
	for i, r := range e.Rows {
		what := fmt.Sprintf("rows[%d]", i)
		if r.Kernel != e.Kernel || r.Device != e.Device || r.Method != e.Method || r.Launch.Domain != e.Domain {
			return fmt.Errorf("%s: kernel %q, device %q, method %q or domain %s differ from the shard's", what, r.Kernel, r.Device, r.Method, request.Triple(r.Launch.Domain))
		}
		if err := place(what, explore.ReportConfiguration(r)); err != nil {
			return err
		}
	}
	for i, s := range e.Skipped {
		if err := place(fmt.Sprintf("skipped[%d]", i), s.Configuration()); err != nil {
			return err
		}
	}
	// Configuration i belongs to shard i mod N + 1: shard K of N holds the
	// C configurations with i = K-1, K-1+N, ... below C.
	want := 0
	if e.Shard.Index <= e.Configurations {
		want = (e.Configurations-e.Shard.Index)/e.Shard.Count + 1
	}
	if got := len(e.Rows) + len(e.Skipped); got != want {
		return fmt.Errorf("%d rows and %d skipped configurations, but shard %d/%d of %d configurations holds %d", len(e.Rows), len(e.Skipped), e.Shard.Index, e.Shard.Count, e.Configurations, want)
	}
	return nil
}

// checkRegisters checks the registers of a shard: every registers per
// thread from 1 to explore.MaxRegisters, and the registers table ordered
// by configuration, each canonical and listed once.
func checkRegisters(e *request.Exploration) error {
	if e.Registers < 1 || e.Registers > explore.MaxRegisters {
		return fmt.Errorf("registers %d: expected 1 to %d", e.Registers, explore.MaxRegisters)
	}
	for i, r := range e.RegistersTable {
		switch {
		case r.Registers < 1 || r.Registers > explore.MaxRegisters:
			return fmt.Errorf("registersTable[%d]: registers %d: expected 1 to %d", i, r.Registers, explore.MaxRegisters)
		case r.Configuration != r.Configuration.Canonical():
			return fmt.Errorf("registersTable[%d]: %v is the same launch as %v, which the table lists instead", i, r.Configuration, r.Configuration.Canonical())
		case i > 0 && explore.CompareConfigurations(e.RegistersTable[i-1].Configuration, r.Configuration) >= 0:
			return fmt.Errorf("registersTable[%d]: %v is out of order or given twice", i, r.Configuration)
		}
	}
	return nil
}

// sameExploration reports whether a and b are shards of the same exploration.
func sameExploration(a, b *request.Exploration) bool {
	return a.Kernel == b.Kernel && a.Device == b.Device && a.Method == b.Method && a.Model == b.Model &&
		a.Domain == b.Domain && slices.Equal(a.Threads, b.Threads) && slices.Equal(a.Folds, b.Folds) &&
		slices.Equal(a.Tilings, b.Tilings) && slices.Equal(a.Unstaged, b.Unstaged) && slices.Equal(a.Steps, b.Steps) && a.Registers == b.Registers && slices.Equal(a.RegistersTable, b.RegistersTable) &&
		a.Configurations == b.Configurations &&
		a.Shard.Count == b.Shard.Count && a.Shard.Format == b.Shard.Format && a.Shard.Top == b.Shard.Top
}
