package model

import (
	"slices"
	"strings"
	"testing"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/kernel"
)

// TestTLBNote checks the note on a V100 for a 2D stencil over rows of
// 120,000 bytes: a 1×1024 block spans 1024 rows, 118 MiB, about 236 pages
// of 512 KiB, past the L1 TLB's 64 pages (32 MiB); a 32×8 block spans 8
// rows, at most 2 pages.
func TestTLBNote(t *testing.T) {
	dev, err := device.Lookup("V100")
	if err != nil {
		t.Fatal(err)
	}
	k, err := kernel.Parse([]byte(`name: rows
domain: [15000, 15000]
fields:
  - name: A
    element: 8
    load: [[x, y]]
  - name: B
    element: 8
    store: [[x, y]]
`), "rows.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		block [3]int64
		want  string
	}{{[3]int64{1, 1024, 1}, "more than the 64 (32 MiB)"}, {[3]int64{32, 8, 1}, ""}} {
		r, err := Estimate(k, k.NewLaunch(tc.block, kernel.NoFold), dev, Options{})
		if err != nil {
			t.Fatal(err)
		}
		note := TLBNote(r, dev)
		if tc.want == "" && note != "" || tc.want != "" && !strings.Contains(note, tc.want) {
			t.Errorf("block %v: note %q, want %q", tc.block, note, tc.want)
		}
	}
	noReach := *dev
	noReach.L1TLBReachBytes = 0
	r, err := Estimate(k, k.NewLaunch([3]int64{1, 1024, 1}, kernel.NoFold), &noReach, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if note := TLBNote(r, &noReach); note != "" {
		t.Errorf("a device without a measured reach: note %q", note)
	}
}

// TestLaunchNotes checks that LaunchNotes gathers the notes that apply, with
// their codes, and none on a plain launch: a 1×1024 block on a V100 of a
// kernel over a 2-D domain spans more pages than the L1 TLB covers, and a
// 4×1×4 block of it leaves the threads of z > 0 idle.
func TestLaunchNotes(t *testing.T) {
	dev, err := device.Lookup("V100")
	if err != nil {
		t.Fatal(err)
	}
	k := loadExample(t, "star2d-r1")
	codes := func(block [3]int64) []string {
		l := k.NewLaunch(block, kernel.NoFold)
		r, err := Estimate(k, l, dev, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, n := range LaunchNotes(k, l, r, dev, k.Registers, k.SharedBytes) {
			if n.Text == "" {
				t.Errorf("block %v: note %s without text", block, n.Code)
			}
			out = append(out, n.Code)
		}
		return out
	}
	if got := codes([3]int64{32, 8, 1}); len(got) != 0 {
		t.Errorf("block 32,8,1: notes %v, want none", got)
	}
	if got := codes([3]int64{4, 1, 4}); !slices.Contains(got, NoteIdleThreads) {
		t.Errorf("block 4,1,4: notes %v, want %s", got, NoteIdleThreads)
	}
	if got := codes([3]int64{1, 1024, 1}); !slices.Contains(got, NoteTLBReach) {
		t.Errorf("block 1,1024,1: notes %v, want %s", got, NoteTLBReach)
	}
}
