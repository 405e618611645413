package jscop

import (
	"os"
	"strings"
	"testing"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/importer"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/lattice"
	"github.com/polyvol/polyvol/model"
)

// importFile imports a JSCoP of examples/polyhedral ("examples/NAME") or
// of testdata with N bound to n.
func importFile(t *testing.T, name string, n int64, m map[string]int) *importer.Result {
	t.Helper()
	var data []byte
	if ex, ok := strings.CutPrefix(name, "examples/"); ok {
		data = readExample(t, ex)
	} else {
		var err error
		if data, err = os.ReadFile("testdata/" + name); err != nil {
			t.Fatal(err)
		}
	}
	res, err := Import(data, name, importer.Options{Params: map[string]int64{"N": n}, Map: m})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// pointsOf returns the lattice points on which an access happens.
func pointsOf(t *testing.T, k *kernel.Kernel, a kernel.Access) int64 {
	t.Helper()
	box, _, err := a.Partial(k.Domain)
	if err != nil {
		t.Fatal(err)
	}
	return box.Intersect(lattice.Box{Hi: k.Domain}).Size()
}

// TestMatmulReduction imports the N×N×N matmul C[i][j] += A[i][k]*B[k][j]:
// the store to C (and the load of C) once per output, so N² of the N³
// lattice points, 1/N per lattice update; j on x, i on y and the
// reduction k on z, as a fold of N with a block of 1 along z.
func TestMatmulReduction(t *testing.T) {
	const n = 64
	res := importFile(t, "examples/matmul.jscop", n, nil)
	k := res.Kernel
	if k.Domain != [3]int64{n, n, n} {
		t.Fatalf("domain %v", k.Domain)
	}
	c, b := k.Field("C"), k.Field("B")
	if len(c.Stores) != 1 || len(c.Loads) != 1 {
		t.Fatalf("C: %d loads, %d stores", len(c.Loads), len(c.Stores))
	}
	if got := pointsOf(t, k, c.Stores[0]); got != n*n {
		t.Errorf("the store to C happens on %d lattice points, want %d (once per output)", got, n*n)
	}
	if got := pointsOf(t, k, c.Loads[0]); got != n*n {
		t.Errorf("the load of C happens on %d lattice points, want %d", got, n*n)
	}
	if got, want := res.Spec.Fields[0].StoreISL[0], "{ [x, y, z = 63] -> C[x, y] }"; got != want {
		t.Errorf("C store %q, want %q", got, want)
	}
	// B[k][j]: j, the index of consecutive elements, on x; k on z.
	if got, want := res.Spec.Fields[2].LoadISL[0], "{ [x, y, z] -> B[x, z] }"; got != want || b == nil {
		t.Errorf("B load %q, want %q", got, want)
	}
	l := res.Launch
	if l == nil || l.Block != [3]int64{32, 8, 1} || l.Fold != [3]int64{1, 1, n} || l.Tiling != kernel.TileConsecutive {
		t.Fatalf("launch %+v, want block 32,8,1 fold 1,1,%d", l, n)
	}
	if !strings.Contains(string(res.YAML()), "# launch: --block 32,8,1 --fold 1,1,64 ") {
		t.Errorf("no launch comment in\n%s", res.YAML())
	}
	if len(res.Notes) != 1 || !strings.Contains(res.Notes[0], "do not depend on loop i2") || !strings.Contains(res.Notes[0], "i2 on z") || !strings.Contains(res.Notes[0], "--map") {
		t.Errorf("notes %q", res.Notes)
	}
	dev, err := device.Lookup("A100-40GB")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := model.Estimate(k, *l, dev, model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := rep.Derived.L2Store, 8.0/n; got != want {
		t.Errorf("L2 store %g B/Lup, want %g (8 bytes per output, 1/N per lattice update)", got, want)
	}
	// --map overrides the mapping; the store still happens once per output.
	res = importFile(t, "examples/matmul.jscop", n, map[string]int{"i2": 0})
	if got, want := res.Spec.Fields[0].StoreISL[0], "{ [x = 63, y, z] -> C[y, z] }"; got != want {
		t.Errorf("--map i2=x: C store %q, want %q", got, want)
	}
	if l := res.Launch; l == nil || l.Fold != [3]int64{n, 1, 1} || l.Block[0] != 1 {
		t.Errorf("--map i2=x: launch %+v, want the fold of %d along x with a block of 1", l, n)
	}
}

// TestReductionShapes checks a sum into one element and a matrix-vector
// product: the output (none, or i) on x, the reduction outward, the fold
// capped at 1024 points per thread.
func TestReductionShapes(t *testing.T) {
	res := importFile(t, "sum.jscop", 4096, nil)
	k := res.Kernel
	s := k.Field("s")
	if got := pointsOf(t, k, s.Stores[0]); got != 1 {
		t.Errorf("sum: the store to s happens on %d points, want 1", got)
	}
	if l := res.Launch; l == nil || l.Block != [3]int64{1, 1, 1} || l.Fold != [3]int64{1024, 1, 1} {
		t.Errorf("sum: launch %+v, want block 1, fold 1024 (the most points per thread)", l)
	}
	res = importFile(t, "matvec.jscop", 1000, nil)
	k = res.Kernel
	if got, want := res.Spec.Fields[1].LoadISL[0], "{ [x, y] -> A[y, x] }"; got != want {
		t.Errorf("matvec: A load %q, want %q (i, the output, on x)", got, want)
	}
	if got := pointsOf(t, k, k.Field("y").Stores[0]); got != 1000 {
		t.Errorf("matvec: the store to y happens on %d points, want 1000", got)
	}
	if l := res.Launch; l == nil || l.Block != [3]int64{256, 1, 1} || l.Fold != [3]int64{1, 1000, 1} {
		t.Errorf("matvec: launch %+v, want block 256,1 fold 1,1000", l)
	}
}

// TestScheduleInterchange checks that the schedule's innermost loop goes
// to x: i0 for a stencil scheduled [i1, i0], and among the outputs of a
// matmul scheduled [j, i, k]; --map overrides the schedule.
func TestScheduleInterchange(t *testing.T) {
	res := importFile(t, "star2d-interchanged.jscop", 64, nil)
	if got, want := res.Spec.Fields[1].StoreISL[0], "{ [x, y] -> B[1 + y, 1 + x] }"; got != want {
		t.Errorf("store %q, want %q (i0 on x)", got, want)
	}
	if len(res.Notes) != 1 || !strings.Contains(res.Notes[0], "runs loop i0 innermost") || res.Launch != nil {
		t.Errorf("notes %q, launch %+v", res.Notes, res.Launch)
	}
	res = importFile(t, "star2d-interchanged.jscop", 64, map[string]int{"i1": 0})
	if got, want := res.Spec.Fields[1].StoreISL[0], "{ [x, y] -> B[1 + x, 1 + y] }"; got != want {
		t.Errorf("--map i1=x: store %q, want %q", got, want)
	}
	res = importFile(t, "matmul-jik.jscop", 64, nil)
	if got, want := res.Spec.Fields[0].StoreISL[0], "{ [x, y, z = 63] -> C[y, x] }"; got != want {
		t.Errorf("matmul [j, i, k]: C store %q, want %q (i on x, j on y, k on z)", got, want)
	}
}

// TestScheduleTiles checks the tile sizes read from tiled schedules, in
// floor form and in Polly's form with existential tile loops, and the
// block suggested for one tile: 32×32 threads for matmul, and a 64×32 tile
// (2048 points) as 64×16 threads that compute two points each, one block
// size apart.
func TestScheduleTiles(t *testing.T) {
	res := importFile(t, "examples/matmul-tiled.jscop", 128, nil)
	if l := res.Launch; l == nil || l.Block != [3]int64{32, 32, 1} || l.Fold != [3]int64{1, 1, 128} {
		t.Errorf("matmul-tiled: launch %+v, want block 32,32,1 fold 1,1,128", l)
	}
	if len(res.Notes) != 1 || !strings.Contains(res.Notes[0], "tiles i0 by 32, i1 by 32, i2 by 32") {
		t.Errorf("matmul-tiled: notes %q", res.Notes)
	}
	res = importFile(t, "star2d-tiled.jscop", 4096, nil)
	if l := res.Launch; l == nil || l.Block != [3]int64{64, 16, 1} || l.Fold != [3]int64{1, 2, 1} || l.Tiling != kernel.TileStrided {
		t.Errorf("star2d-tiled: launch %+v, want block 64,16 fold 1,2 strided", l)
	}
	if len(res.Notes) != 1 || !strings.Contains(res.Notes[0], "tiles i0 by 32, i1 by 64") || !strings.Contains(res.Notes[0], "--block 64,16 --fold 1,2 --tile strided") {
		t.Errorf("star2d-tiled: notes %q", res.Notes)
	}
	// A first tile cut short by an offset: the size is the second's.
	doc := strings.Replace(string(readTestdata(t, "star2d-interchanged.jscop")), "[0, i1, 0, i0, 0]", "[floor((i0 + 5)/16), i0, i1]", 1)
	res, err := Import([]byte(doc), "offset.jscop", importer.Options{Params: map[string]int64{"N": 102}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Notes) != 1 || !strings.Contains(res.Notes[0], "tiles i0 by 16;") || res.Launch != nil {
		t.Errorf("offset tiles: notes %q, launch %+v (a tile of 16 along y makes no block)", res.Notes, res.Launch)
	}
}

// readTestdata reads a file of testdata.
func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestBadSchedule checks that a schedule that does not map the domain is
// ignored with a note: the loops keep the nest's order.
func TestBadSchedule(t *testing.T) {
	doc := strings.Replace(string(readTestdata(t, "star2d-interchanged.jscop")), "Stmt_for_body4[i0, i1] -> [0, i1", "Other[i0, i1] -> [0, i1", 1)
	res, err := Import([]byte(doc), "bad.jscop", importer.Options{Params: map[string]int64{"N": 64}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := res.Spec.Fields[1].StoreISL[0], "{ [x, y] -> B[1 + x, 1 + y] }"; got != want {
		t.Errorf("store %q, want %q (i1 on x)", got, want)
	}
	if len(res.Notes) != 1 || !strings.Contains(res.Notes[0], "the schedule is ignored") {
		t.Errorf("notes %q", res.Notes)
	}
}
