package isl

import (
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestLeakNamesItsAllocationSite forgets an object on purpose and checks
// that the leak report names the line of this file that made it, and that
// the safety net freed it.
func TestLeakNamesItsAllocationSite(t *testing.T) {
	sites := make(chan string, 4)
	OnLeak(func(site string) { sites <- site })
	defer PanicOnLeak()
	ctx, err := NewCtx()
	if err != nil {
		t.Fatal(err)
	}
	defer ctx.Close()
	leak := func() {
		if _, err := ctx.ReadSet("{ [i] : 0 <= i < 10 }"); err != nil { // the leaked object
			t.Fatal(err)
		}
	}
	leak()
	var site string
	for i := 0; i < 200 && site == ""; i++ {
		runtime.GC()
		select {
		case site = <-sites:
		case <-time.After(10 * time.Millisecond): // give the cleanup goroutine a turn, then collect again
		}
	}
	if !strings.HasPrefix(site, "leak_test.go:") || !strings.Contains(site, "TestLeakNamesItsAllocationSite") {
		t.Fatalf("leak reported at %q, want this file's ReadSet line", site)
	}
	ctx.freeOrphans()
	if n := ctx.LiveObjects(); n != 0 {
		t.Errorf("%d objects live after the safety net freed the leak", n)
	}
}
