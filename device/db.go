package device

import (
	"cmp"
	"embed"
	"fmt"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/polyvol/polyvol/printable"
)

//go:embed db/*.yaml
var dbFiles embed.FS

// database is the parsed embedded device database, keyed by the normalised
// form of every canonical name, display name and alias.
type database struct {
	devices []*Device // sorted by canonical name
	byName  map[string]*Device
}

// loadDatabase parses the embedded files. They are part of the program, and
// the tests load every one of them, so a broken file is a programming error.
var loadDatabase = sync.OnceValue(func() *database {
	entries, err := dbFiles.ReadDir("db")
	if err != nil {
		panic(err)
	}
	db := &database{byName: map[string]*Device{}}
	for _, e := range entries {
		name := path.Join("db", e.Name())
		data, err := dbFiles.ReadFile(name)
		if err != nil {
			panic(err)
		}
		d, err := parse(data, "device/"+name, nil)
		if err != nil {
			panic(fmt.Sprintf("embedded device database: %v", err))
		}
		for _, n := range d.names() {
			if other, dup := db.byName[normalize(n)]; dup && other != d {
				panic(fmt.Sprintf("embedded device database: name %q of %s is also a name of %s", n, d.Name, other.Name))
			}
			db.byName[normalize(n)] = d
		}
		db.devices = append(db.devices, d)
	}
	slices.SortFunc(db.devices, func(a, b *Device) int { return cmp.Compare(a.Name, b.Name) })
	return db
})

// names lists every name a device answers to.
func (d *Device) names() []string {
	return append([]string{d.Name, d.DisplayName}, d.Aliases...)
}

// normalize folds a device name for matching: lower case, letters and digits
// only, so "NVIDIA A100-SXM4-40GB" and "nvidia a100 sxm4 40gb" are equal.
// It drops ASCII punctuation and Unicode spaces and punctuation; any other
// character (a symbol, a zero-width or replacement character) stays, so that
// it cannot vanish from a name that then matches a device.
func normalize(name string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			return unicode.ToLower(r)
		case r < utf8.RuneSelf || unicode.IsSpace(r) || unicode.IsPunct(r):
			return -1
		}
		return r
	}, name)
}

// MaxNameBytes bounds the length of a device name (the database's longest
// has 23 bytes), so that matching and suggesting names stays cheap.
const MaxNameBytes = 256

// CheckName returns an error when name cannot be a device name: it is
// longer than MaxNameBytes, is not valid UTF-8 or holds a control character
// (below U+0020, U+007F to U+009F). The error quotes the start of the name
// and gives the byte offset of the first bad character.
func CheckName(name string) error {
	if len(name) > MaxNameBytes {
		return fmt.Errorf("device name %s of %d bytes: longer than the %d bytes a device name may have", quoteStart(name), len(name), MaxNameBytes)
	}
	if err := printable.Check(name); err != nil {
		return fmt.Errorf("device name %s: %v", quoteStart(name), err)
	}
	return nil
}

// quoteStart quotes the first 32 bytes of a long name, cut at a character
// boundary and marked "…", so that an error about it stays one short line.
func quoteStart(name string) string {
	const n = 32
	if len(name) <= n {
		return strconv.Quote(name)
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(name[cut]) {
		cut--
	}
	return strconv.Quote(name[:cut]) + "…"
}

// Clone returns a deep copy of d, so that changing it leaves d untouched.
func (d *Device) Clone() *Device {
	c := *d
	c.Aliases = slices.Clone(d.Aliases)
	c.Sources = maps.Clone(d.Sources)
	return &c
}

// All returns a copy of every device of the embedded database, sorted by
// canonical name.
func All() []*Device {
	db := loadDatabase()
	out := make([]*Device, len(db.devices))
	for i, d := range db.devices {
		out[i] = d.Clone()
	}
	return out
}

// Lookup finds a device of the embedded database by canonical name, display
// (marketing) name or alias, ignoring case, spaces and punctuation. It returns
// a copy; an unknown name gives an error listing the closest known names,
// and a name CheckName refuses gives CheckName's error.
func Lookup(name string) (*Device, error) {
	if err := CheckName(name); err != nil {
		return nil, err
	}
	db := loadDatabase()
	if d, ok := db.byName[normalize(name)]; ok {
		return d.Clone(), nil
	}
	return nil, fmt.Errorf("unknown device %q; closest known devices: %s (all: %s)",
		name, strings.Join(db.closest(name, 3), ", "), strings.Join(db.canonicalNames(), ", "))
}

func (db *database) canonicalNames() []string {
	names := make([]string, len(db.devices))
	for i, d := range db.devices {
		names[i] = d.Name
	}
	return names
}

// closest returns the canonical names of the n devices whose names are
// nearest to query, compared after normalisation (case, spaces and
// punctuation do not count). A device's distance is that of its nearest
// name (canonical, display or alias); devices are ranked by
//
//  1. the edits the query needs to appear inside the name (infixDistance):
//     0 when the query is part of the name, so "mi250" finds "MI250X" and
//     "a100" every A100 before anything else;
//  2. then the whole names' edit distance divided by the longer length,
//     so that among equally good matches the closest in length comes
//     first ("RTX4080" is one edit from "RTX4090" but two from "RTXA4000");
//  3. then the canonical name.
//
// A short name inside the query does not count as a match: "A100X" ranks
// both A100s above the H100 although "H100" is one edit from "A100".
func (db *database) closest(query string, n int) []string {
	q := normalize(query)
	type scored struct {
		name  string
		infix int
		full  float64
	}
	all := make([]scored, 0, len(db.devices))
	for _, d := range db.devices {
		best := scored{name: d.Name, infix: -1}
		for _, name := range d.names() {
			m := normalize(name)
			s := scored{name: d.Name, infix: infixDistance(q, m),
				full: float64(editDistance(q, m)) / float64(max(len(q), len(m), 1))}
			if best.infix < 0 || s.infix < best.infix || s.infix == best.infix && s.full < best.full {
				best = s
			}
		}
		all = append(all, best)
	}
	slices.SortFunc(all, func(a, b scored) int {
		return cmp.Or(cmp.Compare(a.infix, b.infix), cmp.Compare(a.full, b.full), cmp.Compare(a.name, b.name))
	})
	out := make([]string, 0, n)
	for _, s := range all[:min(n, len(all))] {
		out = append(out, s.name)
	}
	return out
}

// infixDistance is the least Levenshtein distance in bytes between q and a
// substring of m: the edits q needs to occur in m, 0 when it does.
func infixDistance(q, m string) int { return slices.Min(lastEditRow(q, m, true)) }

// editDistance is the Levenshtein distance between a and b in bytes.
func editDistance(a, b string) int { return lastEditRow(a, b, false)[len(b)] }

// lastEditRow returns the last row of the Levenshtein table of a against
// b: entry j is the edits that turn a into b[:j], or, with anyStart, into a
// substring of b ending at j (a match may start anywhere in b for free).
func lastEditRow(a, b string, anyStart bool) []int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		if !anyStart {
			prev[j] = j
		}
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			sub := prev[j-1]
			if a[i-1] != b[j-1] {
				sub++
			}
			cur[j] = min(sub, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev
}
