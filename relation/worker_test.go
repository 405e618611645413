package relation

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/supervise"
)

// inWorkers runs the test's reads in worker processes, under limits.
func inWorkers(t *testing.T, limits supervise.Limits) {
	t.Helper()
	if !supervise.EnableWorkers() {
		t.Fatal("workers could not be enabled")
	}
	saved := readLimits
	readLimits = limits
	t.Cleanup(func() {
		supervise.DisableWorkers()
		readLimits = saved
	})
}

// readResult renders what a read returns: the accesses with their guards
// and the parameters the map names, or the error and its type.
func readResult(src string, site kernel.MapSite) string {
	site.Named = map[string]bool{}
	accs, err := Read(src, site)
	var um *kernel.UnmodelledMapError
	switch {
	case errors.As(err, &um):
		return "unmodelled: " + um.Reason
	case err != nil:
		return "error: " + err.Error()
	}
	var b strings.Builder
	for _, a := range accs {
		fmt.Fprintf(&b, "%s if %v (%s); ", a, a.Guards, a.Text)
	}
	var named []string
	for n := range site.Named {
		named = append(named, n)
	}
	slices.Sort(named)
	fmt.Fprintf(&b, "named %v", named)
	return b.String()
}

// TestReadInWorkerEqualsRead reads random maps, the maps of the other
// tests and invalid ones both in this process and in a worker: the
// accesses, guards, named parameters and errors agree exactly.
func TestReadInWorkerEqualsRead(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 17))
	site := kernel.MapSite{Dims: 3, Domain: [3]int64{41, 8, 5}, Params: map[string]int64{"N": 7, "M": 3}}
	srcs := []string{
		"[N] -> { [x, y, z] -> A[x + N, y] : x < N - 1 }",
		"[N, M] -> { [x, y, z] -> A[i, y, z] : x <= i < x + M }",
		"{ [x, y, z] -> A[i] : x <= i < 2x }",
		"{ [x, y, z] -> A[x] ",
		"[K] -> { [x, y, z] -> A[x + K] }",
		"{ [x, y, z] -> A[12*floor(x/4) + x mod 4 + 8, y] }",
	}
	for range 60 {
		srcs = append(srcs, randomISLMap(r))
	}
	var want []string
	for _, src := range srcs {
		want = append(want, readResult(src, site))
	}
	inWorkers(t, readLimits)
	for i, src := range srcs {
		if got := readResult(src, site); got != want[i] {
			t.Errorf("%s:\n in a worker %s\n in process  %s", src, got, want[i])
		}
	}
}

// TestHostileMapsInWorker reads maps that exhaust ISL beyond its bound on
// operations, in workers under small limits: each is one error that names
// the limit, and the next map reads as usual.
func TestHostileMapsInWorker(t *testing.T) {
	inWorkers(t, supervise.Limits{Memory: 192 << 20, Processor: time.Second, Wall: 3 * time.Second})
	for _, src := range []string{
		// Four nested moduli: isl_map_is_equal runs for minutes.
		"{ [x] -> A[((((x mod 3) mod 5 + x) mod 7 + 2x) mod 11 + x) mod 13] : x mod 17 = (x mod 19) mod 23 }",
	} {
		_, err := Read(src, site1)
		var le *supervise.LimitError
		if !errors.As(err, &le) || !strings.HasPrefix(err.Error(), "reading the map with libisl: the work passed its ") {
			t.Errorf("%.60s: error %v (%T), want a limit", src, err, err)
		}
		if got := readResult("{ [x] -> A[x + 1] }", site1); got != "(x + 1, 0, 0) if [] ({ [x] -> A[x + 1] }); named []" {
			t.Errorf("after %.40s: %s", src, got)
		}
	}
}
