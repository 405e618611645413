package compiled

import (
	"os"
	"testing"
)

// FuzzParse feeds arbitrary text to both readers of compiled code, with
// the trip counts read from the same text: they return Code or an error,
// never panic, and count no negative instructions nor trip counts. The
// seeds are the hand-counted files of testdata.
func FuzzParse(f *testing.F) {
	for _, name := range []string{"testdata/hand.ptx", "testdata/hand.s"} {
		text, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(text), "")
	}
	f.Add(".visible .entry k(\n{\n$L__BB0_1: // =>This Loop Header: Depth=1\n// Parent Loop BB0_1 Depth=1\nbra $L__BB0_1;\n}\n", "k")
	f.Add("Determining loop execution counts for: @k\nLoop %b: backedge-taken count is i32 -1\n.visible .entry k(\n{\n$L__BB0_1: // %b\n// =>This Loop Header: Depth=1\nbra $L__BB0_1;\n}\n", "k")
	f.Fuzz(func(t *testing.T, text, entry string) {
		for _, parse := range []func(string, string, TripCounts) (*Code, error){ParsePTX, ParseAMDGPU} {
			code, err := parse(text, entry, ParseTripCounts(text))
			if err != nil {
				continue
			}
			if code.Counts.Vector() < 0 || code.Counts.Scalar < 0 || code.Registers < 0 {
				t.Errorf("negative counts: %+v", code)
			}
			for _, l := range code.Loops {
				if l.Depth < 1 || l.Instructions < 0 || l.TripCount < 0 || l.MaxTripCount < 0 {
					t.Errorf("loop %+v", l)
				}
			}
		}
	})
}
