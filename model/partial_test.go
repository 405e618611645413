package model

import (
	"strings"
	"testing"

	"github.com/polyvol/polyvol/kernel"
)

// TestPartialNoteShares checks the shares of the domain that the note
// gives, counted by hand.
func TestPartialNoteShares(t *testing.T) {
	k, err := kernel.Parse([]byte("name: p\ndomain: [100, 50]\nfields:\n  - name: A\n    element: 8\n    load:\n      - [x, y]\n      - {at: [x + 1, y], if: \"x + 1 < 100\"}\n      - {at: [x, 0], if: \"y = 0\"}\n"), "p.yaml")
	if err != nil {
		t.Fatal(err)
	}
	note := PartialNote(k)
	if want := "A load [x, 0] if y = 0 on 2 % of the domain"; !strings.Contains(note, want) {
		t.Errorf("note %q lacks %q", note, want)
	}
	if strings.Contains(note, "x + 1 < 100") {
		t.Errorf("note %q names a halo check on 99 %% of the domain", note)
	}
	plain := loadExample(t, "star2d-r1")
	if n := PartialNote(plain); n != "" {
		t.Errorf("star2d-r1: note %q", n)
	}
}
