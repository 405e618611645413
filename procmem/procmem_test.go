package procmem

import "testing"

// TestResidentGrowsWithTouchedMemory checks that touching 64 MiB of new
// memory raises the resident size by at least 60 MiB and by at most four
// times 64 MiB: the race detector maps shadow memory beside what a test
// touches (as much again, measured), and a reading of the virtual size
// would grow by far more or not at all.
func TestResidentGrowsWithTouchedMemory(t *testing.T) {
	before, ok := Resident()
	if !ok {
		t.Fatal("no /proc/self/statm")
	}
	buf := make([]byte, 64<<20)
	for i := 0; i < len(buf); i += 4096 {
		buf[i] = 1
	}
	after, _ := Resident()
	if grew := after - before; grew < 60<<20 || grew > 4*64<<20 {
		t.Errorf("touching 64 MiB grew the resident set by %d KiB", grew>>10)
	}
	_ = buf[len(buf)-1]
}

// TestCheckFlat checks the growth rule at and around its limit.
func TestCheckFlat(t *testing.T) {
	for _, c := range []struct {
		r    Run
		flat bool
	}{
		{Run{100, 200, 220}, true},
		{Run{100, 200, 221}, false},
		{Run{100, 200, 150}, true},
		{Run{0, 0, 0}, true},
	} {
		if err := c.r.CheckFlat(0.1); (err == nil) != c.flat {
			t.Errorf("%v: %v, want flat %v", c.r, err, c.flat)
		}
	}
}
