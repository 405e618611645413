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

// TestAddressSpaceHoldsResident checks that the address space read from
// /proc/self/statm is at least the resident memory, which lies in it, and
// grows by a mapping the size of a large allocation.
func TestAddressSpaceHoldsResident(t *testing.T) {
	before, ok := AddressSpace()
	rss, ok2 := Resident()
	if !ok || !ok2 || before < rss || rss <= 0 {
		t.Fatalf("address space %d (%v), resident %d (%v): want readable, at least the resident memory", before, ok, rss, ok2)
	}
	buf := make([]byte, 256<<20)
	after, _ := AddressSpace()
	if after-before < 200<<20 {
		t.Errorf("address space grew by %d bytes for an allocation of %d", after-before, len(buf))
	}
	buf[len(buf)-1] = 1
}
