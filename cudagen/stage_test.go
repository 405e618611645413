package cudagen

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/polyvol/polyvol/kernel"
)

// TestSharedOffsetMatchesTile checks the shared-memory offset of every
// staged load of every thread of every block against kernel.Tile.Shared of
// the load's array index in the block's tile, and that the index lies in the
// block's clipped tile (kernel.Tile.Box), for both tilings and with folds.
func TestSharedOffsetMatchesTile(t *testing.T) {
	for _, tc := range []struct {
		name          string
		domain        [3]int64
		block, fold   [3]int64
		tiling        kernel.Tiling
		stage         kernel.Staging
		wantSomeClips bool
	}{
		{"star3d-r1-staged", [3]int64{13, 7, 5}, [3]int64{4, 2, 2}, [3]int64{1, 1, 1}, kernel.TileConsecutive, kernel.Staging{Copy: kernel.CopyRows}, true},
		{"star3d-r1-staged", [3]int64{13, 7, 5}, [3]int64{4, 2, 2}, [3]int64{2, 1, 2}, kernel.TileStrided, kernel.Staging{Copy: kernel.CopyBlock, Pad: kernel.PadBanks}, true},
		{"convolution-15x15-staged", [3]int64{21, 11, 1}, [3]int64{4, 2, 1}, [3]int64{2, 2, 1}, kernel.TileStrided, kernel.Staging{Copy: kernel.CopyBlock, Pad: 3}, true},
		{"convolution-15x15-staged", [3]int64{16, 8, 1}, [3]int64{4, 2, 1}, [3]int64{2, 2, 1}, kernel.TileConsecutive, kernel.Staging{Copy: kernel.CopyRows}, false},
	} {
		k := withStaging(loadExample(t, tc.name).WithDomain(tc.domain), tc.stage)
		l := kernel.Launch{Block: tc.block, Fold: tc.fold, Domain: tc.domain, Tiling: tc.tiling}
		f := k.Fields[0]
		tile, err := kernel.TileOf(f, l)
		if err != nil {
			t.Fatal(err)
		}
		grid := l.Grid()
		clips := false
		for _, j := range kernel.FoldOffsets(l.Fold) {
			for _, a := range f.Loads {
				fa, err := l.ThreadAccess(a, j)
				if err != nil {
					t.Fatal(err)
				}
				off, err := sharedOffset(tile, fa, l.Block)
				if err != nil {
					t.Fatal(err)
				}
				if _, _, divs := off.Terms(); len(divs) > 0 {
					t.Errorf("%s %v: offset %s keeps floor or modulo terms", tc.name, l, off)
				}
				forEach(grid, func(bi kernel.Point) {
					var origin kernel.Point
					for i := range 3 {
						origin[i] = bi[i] * tile.Extent[i]
					}
					lo, full := tile.Box(origin, l.Domain, false)
					_, hi := tile.Box(origin, l.Domain, true)
					clips = clips || hi != full
					forEach(l.Block, func(ti kernel.Point) {
						var thread, p kernel.Point
						in := true
						for i := range 3 {
							thread[i] = bi[i]*l.Block[i] + ti[i]
							p[i] = l.PointCoord(i, thread[i], j[i])
							in = in && p[i] < l.Domain[i]
						}
						if !in {
							return
						}
						var e kernel.Point
						for d := range 3 {
							e[d] = a.Index[d].Eval(p)
							if e[d] < lo[d] || e[d] >= hi[d] {
								t.Fatalf("%s %v: point %v reads %v outside its block's clipped tile [%v, %v)", tc.name, l, p, e, lo, hi)
							}
						}
						if got, want := evalC(off, ti), tile.Shared(e, lo); got != want {
							t.Fatalf("%s %v: point %v (block %v thread %v) access %s: shared offset %d, Tile.Shared gives %d", tc.name, l, p, bi, ti, a.Text, got, want)
						}
					})
				})
			}
		}
		if clips != tc.wantSomeClips {
			t.Errorf("%s %v: some block clipped = %v, want %v", tc.name, l, clips, tc.wantSomeClips)
		}
	}
}

// forEach calls fn at every point of the box 0 ≤ p < n, x fastest.
func forEach(n [3]int64, fn func(kernel.Point)) {
	for z := range n[2] {
		for y := range n[1] {
			for x := range n[0] {
				fn(kernel.Point{x, y, z})
			}
		}
	}
}

// withStaging returns k with every staged field staged by s instead.
func withStaging(k *kernel.Kernel, s kernel.Staging) *kernel.Kernel {
	out := *k
	out.Fields = make([]*kernel.Field, len(k.Fields))
	for i, f := range k.Fields {
		nf := *f
		if f.Stage != nil {
			nf.Stage = &s
		}
		out.Fields[i] = &nf
	}
	return &out
}

// emuLaunch matches a kernel launch kernel<<<grid, block>>>(, and
// emuShared a __shared__ array declaration of a generated kernel, which the
// run tests rewrite for the host emulation testdata/cudaemu/cuda_runtime.h.
var (
	emuLaunch = regexp.MustCompile(`(\w+)<<<([^>]*)>>>\(`)
	emuShared = regexp.MustCompile(`__shared__ [\w ]+ (s_\w+)\[\d+\];`)
)

// runOnHost builds program src with g++ against the host emulation of the
// CUDA runtime, with AddressSanitizer (which checks that no access leaves
// the allocated arrays), runs it with one timed launch and returns the
// arrays it frees, in order, or the error and output of a failed run.
func runOnHost(t *testing.T, gxx, dir, name, src string) ([][]byte, error) {
	t.Helper()
	src = emuLaunch.ReplaceAllString(src, "cudaemu::launch($1, $2, ")
	src = emuShared.ReplaceAllString(src, "$0 cudaemu::shared($1, sizeof $1);")
	cpp := filepath.Join(dir, name+".cpp")
	bin := filepath.Join(dir, name)
	dump := filepath.Join(dir, name+".dump")
	if err := os.WriteFile(cpp, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(gxx, "-std=c++17", "-O0", "-fsanitize=address",
		"-Wall", "-Wextra", "-Werror", "-Itestdata/cudaemu", "-o", bin, cpp).CombinedOutput(); err != nil {
		t.Fatalf("%s: g++ %v\n%s", name, err, out)
	}
	cmd := exec.Command(bin, "1")
	cmd.Env = append(os.Environ(), "CUDAEMU_DUMP="+dump, "ASAN_OPTIONS=detect_leaks=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("%s: %v\n%s", name, err, out)
	}
	data, err := os.ReadFile(dump)
	if err != nil {
		t.Fatal(err)
	}
	var arrays [][]byte
	for len(data) > 0 {
		if len(data) < 8 {
			t.Fatalf("%s: truncated dump", name)
		}
		n := binary.NativeEndian.Uint64(data)
		if uint64(len(data)-8) < n {
			t.Fatalf("%s: truncated dump", name)
		}
		arrays = append(arrays, data[8:8+n])
		data = data[8+n:]
	}
	return arrays, nil
}

// compareArrays returns "" when got and want, the arrays of k's fields
// (each instance, in order, then the sink of a kernel without stores),
// are equal element by element, or else where they first differ.
func compareArrays(k *kernel.Kernel, got, want [][]byte) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d arrays, want %d", len(got), len(want))
	}
	var names []string
	var sizes []int
	for _, f := range k.Fields {
		for i := range f.Multiplicity {
			names = append(names, fmt.Sprintf("%s[%d]", f.Name, i))
			sizes = append(sizes, int(f.Element))
		}
	}
	var diffs []string
	for a := range got {
		name, size := "sink", 1
		if a < len(names) {
			name, size = names[a], sizes[a]
		}
		if len(got[a]) != len(want[a]) {
			return fmt.Sprintf("array %s: %d bytes, want %d", name, len(got[a]), len(want[a]))
		}
		first, n := -1, 0
		for e := 0; e < len(got[a]); e += size {
			if !bytes.Equal(got[a][e:e+size], want[a][e:e+size]) {
				if first < 0 {
					first = e / size
				}
				n++
			}
		}
		if n > 0 {
			diffs = append(diffs, fmt.Sprintf("array %s: %d of %d elements differ, the first at allocation index %d", name, n, len(got[a])/size, first))
		}
	}
	return strings.Join(diffs, "; ")
}

// TestStagedRunsLikeUnstaged builds the programs of the staged examples with
// g++ against the host emulation of CUDA (testdata/cudaemu), runs them on
// small domains whose edge blocks the domain clips (and one it does not),
// and checks that every array after the run, the outputs above all, equals
// element by element that of the same launch without staging, for both copy
// mappings, with and without row padding, and for a synthetic spec with two
// staged fields of their own copy mappings, one of two instances. A program with its __syncthreads
// removed must differ: the emulation runs a block's threads in order, so
// its threads read shared elements that later threads have not copied. A
// program whose threads outside the domain return before the barrier must
// fail to run.
func TestStagedRunsLikeUnstaged(t *testing.T) {
	gxx, err := exec.LookPath("g++")
	if err != nil {
		t.Fatal("g++ not found: the staged programs cannot run (scripts/deps.sh test installs it)")
	}
	// Each staging replaces the spec's; nil keeps the spec's own.
	all := []*kernel.Staging{
		{Copy: kernel.CopyRows},
		{Copy: kernel.CopyRows, Pad: kernel.PadBanks},
		{Copy: kernel.CopyBlock},
		{Copy: kernel.CopyBlock, Pad: kernel.PadBanks},
		{Copy: kernel.CopyBlock, Pad: 3},
	}
	star, conv, mix := loadExample(t, "star3d-r1-staged"), loadExample(t, "convolution-15x15-staged"), loadSynthetic(t, "staged")
	dir := t.TempDir()
	sem := make(chan struct{}, 2) // g++ with AddressSanitizer is slow; run a few at once
	for ci, tc := range []struct {
		k           *kernel.Kernel
		domain      [3]int64
		block, fold [3]int64
		tiling      kernel.Tiling
		stagings    []*kernel.Staging
	}{
		{star, [3]int64{37, 11, 6}, [3]int64{16, 4, 2}, [3]int64{1, 1, 1}, kernel.TileConsecutive, all},
		{star, [3]int64{37, 11, 6}, [3]int64{8, 2, 2}, [3]int64{2, 1, 2}, kernel.TileStrided, all},
		{conv, [3]int64{45, 29, 1}, [3]int64{16, 8, 1}, [3]int64{2, 2, 1}, kernel.TileStrided, all},
		{conv, [3]int64{64, 32, 1}, [3]int64{16, 8, 1}, [3]int64{2, 2, 1}, kernel.TileStrided, all},
		{conv, [3]int64{45, 29, 1}, [3]int64{8, 4, 1}, [3]int64{1, 2, 1}, kernel.TileConsecutive, all},
		{mix, mix.Domain, [3]int64{16, 4, 2}, [3]int64{1, 1, 1}, kernel.TileConsecutive, []*kernel.Staging{nil}},
		{mix, mix.Domain, [3]int64{8, 2, 2}, [3]int64{2, 2, 1}, kernel.TileStrided, []*kernel.Staging{nil}},
	} {
		k := tc.k.WithDomain(tc.domain)
		l := kernel.Launch{Block: tc.block, Fold: tc.fold, Domain: tc.domain, Tiling: tc.tiling}
		t.Run(fmt.Sprintf("%s/block=%s/fold=%s/%s/domain=%s", k.Name, triple(l.Block), triple(l.Fold), l.Tiling, triple(l.Domain)), func(t *testing.T) {
			t.Parallel()
			build := func(k *kernel.Kernel, l kernel.Launch, name string, edit func(string) string) ([][]byte, error) {
				sem <- struct{}{}
				defer func() { <-sem }()
				prog, err := Generate(k, l, testResidency)
				if err != nil {
					t.Fatal(err)
				}
				src := prog.Source
				if edit != nil {
					src = edit(src)
				}
				return runOnHost(t, gxx, dir, fmt.Sprintf("c%d-%s", ci, name), src)
			}
			unstaged := l
			unstaged.Unstaged = true
			want, err := build(k, unstaged, "unstaged", nil)
			if err != nil {
				t.Fatal(err)
			}
			for si, s := range tc.stagings {
				ks, what := k, "the spec's staging"
				if s != nil {
					ks, what = withStaging(k, *s), fmt.Sprintf("copy %s pad %d", s.Copy, s.Pad)
				}
				got, err := build(ks, l, fmt.Sprintf("s%d", si), nil)
				if err != nil {
					t.Fatal(err)
				}
				if d := compareArrays(ks, got, want); d != "" {
					t.Errorf("%s: %s", what, d)
				}
				if ci != 0 || si != 0 {
					continue
				}
				bad, err := build(ks, l, "nosync", func(src string) string {
					return strings.Replace(src, "    __syncthreads();", "    // __syncthreads();", 1)
				})
				if err != nil {
					t.Fatal(err)
				}
				if compareArrays(ks, bad, want) == "" {
					t.Error("the program without __syncthreads gives the same arrays; the test cannot see a missing barrier")
				}
				if _, err := build(ks, l, "return", func(src string) string {
					return strings.Replace(src, "    __shared__", "    if (x >= D0) {\n        return;\n    }\n    __shared__", 1)
				}); err == nil || !strings.Contains(err.Error(), "returned while others wait at __syncthreads") {
					t.Errorf("the program whose threads outside the domain return early ran: %v", err)
				}
			}
		})
	}
}
