package device

import (
	"cmp"
	"embed"
	"fmt"
	"github.com/polyvol/polyvol/similar"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
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
			if other, dup := db.byName[similar.Normalize(n)]; dup && other != d {
				panic(fmt.Sprintf("embedded device database: name %q of %s is also a name of %s", n, d.Name, other.Name))
			}
			db.byName[similar.Normalize(n)] = d
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
	if d, ok := db.byName[similar.Normalize(name)]; ok {
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

// closest returns the canonical names of the n devices whose names
// (canonical, display or alias) are nearest to query (similar.Closest).
func (db *database) closest(query string, n int) []string {
	cands := make([]similar.Candidate, len(db.devices))
	for i, d := range db.devices {
		cands[i] = similar.Candidate{Name: d.Name, Names: d.names()}
	}
	return similar.Closest(query, cands, n)
}
