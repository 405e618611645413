package model

import (
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
