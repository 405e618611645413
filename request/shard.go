package request

// Shards of an exploration: what explore --shard K/N writes (the slice's
// rows with the sweep's fingerprint and the rows' digest), how a shard's
// JSON is read back, and the merge that proves a set of shards is one
// sweep, tiled exactly once, and combines them into the unsharded
// exploration.

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/explore"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/model"
)

// maxShardBytes bounds the size of a shard's JSON: a row takes about
// 5.5 KB, so a shard may hold about 6,000 (a larger sweep needs more
// shards), and reading one stays near 100 MB.
const maxShardBytes = 32 << 20

// exploreFormats are the output formats of explore (table, JSON and CSV),
// which a shard names as the format its merge renders by default.
var exploreFormats = []string{"table", "json", "csv"}

// MaxTop bounds the table rows of explore and merge (--top): a table of a
// million rows is more than any sweep has (block shapes of at most 1024
// threads times the folds).
const MaxTop = 1_000_000

// CheckTop returns an error when top, the table rows of explore or merge,
// is outside 0 (all rows) to MaxTop.
func CheckTop(top int) error {
	if top < 0 || top > MaxTop {
		return fmt.Errorf("expected 0 (all rows) to %d", MaxTop)
	}
	return nil
}

// ParseShard parses the shard of an explore request, K/N with integers
// 1 <= K <= N (--shard), into its Index and Count.
func ParseShard(s string) (explore.Shard, error) {
	ks, ns, ok := strings.Cut(s, "/")
	k, errK := strconv.Atoi(ks)
	n, errN := strconv.Atoi(ns)
	if !ok || errK != nil || errN != nil || n < 1 || k < 1 || k > n {
		return explore.Shard{}, fieldErrorf("shard", "--shard %q: expected K/N with integers 1 <= K <= N, e.g. 3/8", s)
	}
	return explore.Shard{Index: k, Count: n}, nil
}

// sealShard sets e's Shard to shard with the fingerprint of the sweep of
// kernel k on dev under opt (sweepFingerprint) and the digest of e's rows
// and skipped configurations (shardDigest).
func sealShard(e *Exploration, shard explore.Shard, k *kernel.Kernel, dev *device.Device, opt model.Options) error {
	e.Shard = &shard
	shard.Sweep = sweepFingerprint(k, dev, e, FullVersion(), opt)
	digest, err := shardDigest(e)
	shard.Digest = digest
	return err
}

// sweepFingerprint hashes what an exploration's rows depend on: the polyvol
// version that computes them, the kernel as loaded (domain, flops,
// resources, state, fields and their accesses), the device's parameters,
// the method, model, threads, folds, tilings, staging choices, time steps,
// registers (with the registers table), shard count and the estimation
// bounds. The shards of one sweep share it; Merge refuses shards whose
// fingerprints differ.
func sweepFingerprint(k *kernel.Kernel, dev *device.Device, e *Exploration, version string, opt model.Options) string {
	h := sha256.New()
	fmt.Fprintf(h, "polyvol %q\n", version)
	fmt.Fprintf(h, "kernel %q %v %v %d %d %d\n", k.Name, k.Domain, k.Flops, k.Registers, k.SharedBytes, k.FPType)
	for _, f := range k.Fields {
		fmt.Fprintf(h, "field %q %d %v %d %d %v\n", f.Name, f.Element, f.Extent, f.Offset, f.Multiplicity, f.Scalar)
		if f.Stage != nil {
			fmt.Fprintf(h, "stage %v %d\n", f.Stage.Copy, f.Stage.Pad)
		}
		for _, a := range append(slices.Clone(f.Loads), f.Stores...) {
			fmt.Fprintf(h, "access %q\n", a.Text)
		}
	}
	devJSON, _ := json.Marshal(dev) // a device has no values JSON cannot encode
	fmt.Fprintf(h, "device %s\n", devJSON)
	fmt.Fprintf(h, "sweep %q %q %v %d %v %d %d %d\n", e.Method, e.Model, e.Domain, e.Threads, e.Folds, e.Shard.Count, opt.WorkBound, opt.MemoryBound)
	fmt.Fprintf(h, "tilings %v registers %d\n", e.Tilings, e.Registers)
	if e.Unstaged != nil {
		fmt.Fprintf(h, "staging %v\n", e.Unstaged)
	}
	if e.Steps != nil {
		fmt.Fprintf(h, "state %q steps %v\n", k.State, e.Steps)
	}
	for _, r := range e.RegistersTable {
		fmt.Fprintf(h, "registers %v %d\n", r.Configuration, r.Registers)
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// shardDigest hashes the JSON of e's rows and skipped configurations in
// their order in the shard's JSON.
func shardDigest(e *Exploration) (string, error) {
	data, err := json.Marshal(struct {
		Rows    []*model.Report
		Skipped []explore.Skipped
	}{e.Rows, e.Skipped})
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:16]), nil
}

// ReadShard decodes one shard, the JSON output of explore --shard of this
// polyvol's version, of at most maxShardBytes from r, and checks that it
// is internally consistent (its digest matches its rows, which are
// exactly the configurations of its slice of the sweep); name names it in
// the input errors. Unknown keys and text after the JSON object are
// errors. The JSON is decoded as it is read, so that garbage such as
// /dev/zero fails at its first byte.
func ReadShard(r io.Reader, name string) (*Exploration, error) {
	in := &countingReader{r: io.LimitReader(r, maxShardBytes+1)}
	tooLarge := func() error {
		return inputErrorf("%s: larger than %d MiB; not a shard of polyvol explore", name, maxShardBytes>>20)
	}
	dec := json.NewDecoder(in)
	dec.DisallowUnknownFields()
	var versioned struct {
		JSONVersion
		Exploration
	}
	if err := dec.Decode(&versioned); err != nil {
		if in.n > maxShardBytes {
			return nil, tooLarge()
		}
		return nil, inputErrorf("%s: not an explore --shard output: %v", name, describeJSONError(err))
	}
	if _, err := dec.Token(); err != io.EOF {
		if in.n > maxShardBytes {
			return nil, tooLarge()
		}
		return nil, inputErrorf("%s: not an explore --shard output: more text follows its JSON object", name)
	}
	if versioned.SchemaVersion != JSONSchemaVersion {
		return nil, inputErrorf("%s: schemaVersion %d: this polyvol reads JSON schema %d", name, versioned.SchemaVersion, JSONSchemaVersion)
	}
	switch v := versioned.PolyvolVersion; {
	case v == "":
		return nil, inputErrorf("%s: polyvolVersion: missing; not an explore --shard output of polyvol", name)
	case v != FullVersion():
		return nil, inputErrorf("%s: polyvolVersion %q differs from this polyvol's %q; merge the shards with the polyvol that wrote them, or run explore --shard again", name, Excerpt(v), FullVersion())
	}
	e := versioned.Exploration
	if e.Shard == nil {
		return nil, inputErrorf("%s: not an explore --shard output: no \"shard\" key", name)
	}
	if e.Shard.Count < 1 || e.Shard.Index < 1 || e.Shard.Index > e.Shard.Count {
		return nil, inputErrorf("%s: shard %d/%d: expected 1 <= K <= N", name, e.Shard.Index, e.Shard.Count)
	}
	if !slices.Contains(exploreFormats, e.Shard.Format) {
		return nil, inputErrorf("%s: shard.format %q: expected %s, %s or %s, the formats of explore --format", name, Excerpt(e.Shard.Format), exploreFormats[0], exploreFormats[1], exploreFormats[2])
	}
	if err := CheckTop(e.Shard.Top); err != nil {
		return nil, inputErrorf("%s: shard.top %d: %v, the range of explore --top", name, e.Shard.Top, err)
	}
	if slices.Contains(e.Rows, (*model.Report)(nil)) {
		return nil, inputErrorf("%s: rows: null entry", name)
	}
	if e.Skipped == nil {
		e.Skipped = []explore.Skipped{}
	}
	if err := checkShard(&e); err != nil {
		return nil, inputErrorf("%s: %v", name, err)
	}
	return &e, nil
}

// Merge combines shards read by ReadShard, names[i] naming shards[i] in
// the input errors, into the exploration of their whole sweep, ranked,
// whose Shard is the first shard's (its format and top). The shards must
// prove that they are one sweep, tiled exactly once: every shard 1..N
// appears once, and all carry the same sweep fingerprint and header. As
// the unsharded sweep does (Explore.Run), Merge fails when every
// configuration was skipped (checkSomeRanked).
func Merge(shards []*Exploration, names []string) (*Exploration, error) {
	if len(shards) == 0 {
		return nil, inputErrorf("no shards to merge; give the shards of one exploration")
	}
	var all *Exploration
	seen := map[int]string{}
	for i, e := range shards {
		name := names[i]
		if prev, ok := seen[e.Shard.Index]; ok {
			return nil, inputErrorf("%s: shard %d/%d was already given in %s", name, e.Shard.Index, e.Shard.Count, prev)
		}
		seen[e.Shard.Index] = name
		if all == nil {
			all = &Exploration{}
			*all = *e
			all.Rows, all.Skipped = slices.Clone(e.Rows), slices.Clone(e.Skipped)
			continue
		}
		if !sameExploration(all, e) {
			return nil, inputErrorf("%s: shard of a different exploration than %s (kernel, device, method, model, domain, threads, folds, tilings, staging, steps, registers, shard count, format or top differ)", name, names[0])
		}
		if e.Shard.Sweep != all.Shard.Sweep {
			return nil, inputErrorf("%s: shard of a different sweep than %s: shard.sweep %s differs from %s (the spec, device or flags differ)", name, names[0], e.Shard.Sweep, all.Shard.Sweep)
		}
		all.Rows = append(all.Rows, e.Rows...)
		all.Skipped = append(all.Skipped, e.Skipped...)
	}
	for k := 1; k <= all.Shard.Count; k++ {
		if _, ok := seen[k]; !ok {
			return nil, inputErrorf("shard %d/%d is missing", k, all.Shard.Count)
		}
	}
	explore.Rank(all.Rows)
	explore.SortSkipped(all.Skipped)
	if err := checkSomeRanked(all); err != nil {
		return nil, err
	}
	return all, nil
}

// Excerpt returns s, cut to 80 bytes at a character boundary and marked
// "…" when longer, for quoting a value of a file in an error line; a
// polyvol version, 70 bytes at most, is quoted whole.
func Excerpt(s string) string {
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
// and empty input says so.
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
// they are exactly the configurations of its slice of the enumeration
// (explore.Shard.Holds), each once, with the shard's kernel, device,
// method and domain.
func checkShard(e *Exploration) error {
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
	all, err := e.SweepConfigurations()
	if err != nil {
		return err
	}
	if e.Configurations != len(all) {
		return fmt.Errorf("configurations %d: %s threads per block, %s and %s give %d",
			e.Configurations, ThreadsText(e.Threads), CountNoun(len(e.Folds), "fold"), CountNoun(len(e.Tilings), "tiling"), len(all))
	}
	if err := checkRegisters(e); err != nil {
		return err
	}
	// index numbers the configurations as explore enumerates them.
	index := map[explore.Configuration]int{}
	for i, c := range all {
		if _, dup := index[c]; dup {
			return fmt.Errorf("folds: fold %s appears twice", Triple(c.Fold))
		}
		index[c] = i
	}
	shard := *e.Shard
	place := func(what string, c explore.Configuration) error {
		i, ok := index[c]
		switch {
		case !ok:
			return fmt.Errorf("%s: %v is not a configuration of this sweep", what, c)
		case i < 0:
			return fmt.Errorf("%s: %v appears twice", what, c)
		case !shard.Holds(i):
			return fmt.Errorf("%s: %v is configuration %d, which belongs to shard %d/%d, not %d/%d",
				what, c, i, i%shard.Count+1, shard.Count, shard.Index, shard.Count)
		}
		index[c] = -1
		return nil
	}
	for i, r := range e.Rows {
		what := fmt.Sprintf("rows[%d]", i)
		if r.Kernel != e.Kernel || r.Device != e.Device || r.Method != e.Method || r.Launch.Domain != e.Domain {
			return fmt.Errorf("%s: kernel %q, device %q, method %q or domain %s differ from the shard's", what, r.Kernel, r.Device, r.Method, Triple(r.Launch.Domain))
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
	if got, want := len(e.Rows)+len(e.Skipped), shard.Size(e.Configurations); got != want {
		return fmt.Errorf("%d rows and %d skipped configurations, but shard %d/%d of %d configurations holds %d", len(e.Rows), len(e.Skipped), shard.Index, shard.Count, e.Configurations, want)
	}
	return nil
}

// checkRegisters checks the registers of a shard: every registers per
// thread from 1 to explore.MaxRegisters, and the registers table ordered
// by configuration, each canonical and listed once.
func checkRegisters(e *Exploration) error {
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
func sameExploration(a, b *Exploration) bool {
	return a.Kernel == b.Kernel && a.Device == b.Device && a.Method == b.Method && a.Model == b.Model &&
		a.Domain == b.Domain && slices.Equal(a.Threads, b.Threads) && slices.Equal(a.Folds, b.Folds) &&
		slices.Equal(a.Tilings, b.Tilings) && slices.Equal(a.Unstaged, b.Unstaged) && slices.Equal(a.Steps, b.Steps) && a.Registers == b.Registers && slices.Equal(a.RegistersTable, b.RegistersTable) &&
		a.Configurations == b.Configurations &&
		a.Shard.Count == b.Shard.Count && a.Shard.Format == b.Shard.Format && a.Shard.Top == b.Shard.Top
}

// SweepConfigurations returns the configurations of e's sweep in the
// order explore enumerates them (explore.Configurations, each staging
// choice of e.Unstaged where it has them, each of the time steps e.Steps
// where it has them).
func (e *Exploration) SweepConfigurations() ([]explore.Configuration, error) {
	threads := make([]int, len(e.Threads))
	for i, n := range e.Threads {
		threads[i] = int(min(max(n, math.MinInt32), math.MaxInt32))
	}
	all, err := explore.Configurations(threads, e.Folds, e.Tilings, e.Domain, e.AllShapes)
	if err != nil {
		return nil, err
	}
	if e.Unstaged != nil {
		if all, err = explore.WithStaging(all, e.Unstaged); err != nil {
			return nil, err
		}
	}
	if e.Steps != nil {
		all = explore.WithSteps(all, e.Steps)
	}
	return all, nil
}
