package cudagen

import (
	"bytes"
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/polyvol/polyvol/examples"
	"github.com/polyvol/polyvol/kernel"
)

// stepsSpec is a synthetic 3-D kernel with a state: A (doubles, a star
// reaching 2 below in x and 1 elsewhere) advanced into D, B (floats)
// staged with A and copied row by row, and C (doubles) read from global
// memory at every step, one of its loads partial. The arrays hold 8
// elements beyond the domain on each side, so that the grown tiles'
// elements outside the domain alias none inside.
const stepsSpec = `name: steps mix
domain: [13, 6, 5]
flops: 1
state: A
fields:
  - name: A
    extent: [29, 22, 21]
    offset: 5344
    element: 8
    stage: {copy: block}
    load: [[x, y, z], [x - 2, y, z], [x + 1, y, z], [x, y - 1, z], [x, y + 1, z], [x, y, z - 1], [x, y, z + 1]]
  - name: B
    extent: [29, 22, 21]
    offset: 5344
    element: 4
    stage: {copy: rows}
    load: [[x + 1, y, z], [x, y - 1, z]]
  - name: C
    extent: [29, 22, 21]
    offset: 5344
    element: 8
    load:
      - [x + 1, y, z]
      - {at: [x, y - 1, z], if: "x >= 3"}
  - name: D
    element: 8
    store: [[x, y, z]]
`

// hotspotShPower returns the hotspot example with power staged with the
// state (sh_power=1) where staged, as it is (sh_power=0) otherwise.
func hotspotShPower(t *testing.T, staged bool) *kernel.Kernel {
	t.Helper()
	src, err := examples.Read("hotspot.yaml")
	if err != nil {
		t.Fatal(err)
	}
	text := string(src)
	if staged {
		text = strings.Replace(text, "load: [[x, y]]\n", "stage: {copy: block}\n    load: [[x, y]]\n", 1)
	}
	k, err := kernel.Parse([]byte(text), "hotspot.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if staged != (k.Fields[1].Stage != nil) {
		t.Fatalf("power staged %v, want %v", k.Fields[1].Stage != nil, staged)
	}
	return k
}

// unblockedSteps edits src, the program of one step per launch of k
// under l, so that its launches advance steps time steps once: the first
// launches the kernel steps times, writing before each launch after the
// first the store's values into the state's elements at the domain's
// points (the state's next value), and the launches after it do nothing.
func unblockedSteps(t *testing.T, k *kernel.Kernel, src string, steps int64) string {
	t.Helper()
	state := k.StateField()
	var store *kernel.Field
	for _, f := range k.Fields {
		if len(f.Stores) > 0 {
			store = f
		}
	}
	at := store.Stores[0] // the lattice point: its index is the state's element too
	index := func(f *kernel.Field) string {
		e, err := f.ElementIndexExpr(at)
		if err == nil {
			e, err = e.Sub(kernel.Const(f.Offset))
		}
		if err != nil {
			t.Fatal(err)
		}
		return cExprOver(e, [3]string{"px", "py", "pz"})
	}
	call := fmt.Sprintf("        polyvol_%s<<<grid, block>>>(", identifier(k.Name))
	i := strings.Index(src, call)
	if i < 0 {
		t.Fatalf("no launch %q in the program", call)
	}
	end := i + strings.Index(src[i:], "\n") + 1
	loop := fmt.Sprintf(`        static bool done = false;
        if (done) {
            return;
        }
        done = true;
        for (int step = 0; step < %d; ++step) {
            if (step > 0) {
                for (long long pz = 0; pz < D2; ++pz) {
                    for (long long py = 0; py < D1; ++py) {
                        for (long long px = 0; px < D0; ++px) {
                            b_%s[off_%s + %s] = b_%s[off_%s + %s];
                        }
                    }
                }
            }
    %s        }
`, steps, identifier(state.Name), identifier(state.Name), index(state), identifier(store.Name), identifier(store.Name), index(store), src[i:end])
	return src[:i] + loop + src[end:]
}

// TestStepsRunLikeUnblockedLaunches builds the programs of launches of
// several time steps with g++ against the host emulation of CUDA
// (testdata/cudaemu), runs them on small domains whose edge blocks the
// domain clips (and one it does not), and checks that the store's array
// after the run equals element by element that of the program of one step
// per launch, without staging, launched as many times with the store's
// values written into the state between launches: for the hotspot example
// with power read from global memory at every step (sh_power=0) and staged
// (sh_power=1), for both tilings and folds, and for a synthetic 3-D kernel
// with a second staged field and a partial load. The reference must
// differ from one launch of one step, and a program whose barrier after
// each step is removed from it.
func TestStepsRunLikeUnblockedLaunches(t *testing.T) {
	gxx, err := exec.LookPath("g++")
	if err != nil {
		t.Fatal("g++ not found: the programs cannot run (scripts/deps.sh test installs it)")
	}
	mix, err := kernel.Parse([]byte(stepsSpec), "steps.yaml")
	if err != nil {
		t.Fatal(err)
	}
	hot0, hot1 := hotspotShPower(t, false), hotspotShPower(t, true)
	dir := t.TempDir()
	sem := make(chan struct{}, 2) // g++ with AddressSanitizer is slow; run a few at once
	for ci, tc := range []struct {
		k           *kernel.Kernel
		domain      [3]int64
		block, fold [3]int64
		tiling      kernel.Tiling
		steps       int64
	}{
		{hot0, [3]int64{45, 29, 1}, [3]int64{16, 4, 1}, [3]int64{2, 2, 1}, kernel.TileStrided, 3},
		{hot1, [3]int64{45, 29, 1}, [3]int64{16, 4, 1}, [3]int64{2, 2, 1}, kernel.TileStrided, 3},
		{hot0, [3]int64{37, 21, 1}, [3]int64{8, 8, 1}, [3]int64{1, 2, 1}, kernel.TileConsecutive, 2},
		{hot1, [3]int64{37, 21, 1}, [3]int64{8, 8, 1}, [3]int64{1, 2, 1}, kernel.TileConsecutive, 4},
		{hot0, [3]int64{64, 32, 1}, [3]int64{32, 4, 1}, [3]int64{1, 2, 1}, kernel.TileStrided, 2},
		{mix, mix.Domain, [3]int64{8, 2, 2}, [3]int64{1, 1, 2}, kernel.TileConsecutive, 3},
		{mix, mix.Domain, [3]int64{4, 4, 1}, [3]int64{2, 1, 1}, kernel.TileStrided, 2},
	} {
		k := tc.k.WithDomain(tc.domain)
		l := kernel.Launch{Block: tc.block, Fold: tc.fold, Domain: tc.domain, Tiling: tc.tiling, Steps: tc.steps}
		staged := "power global"
		if k.Fields[1].Stage != nil {
			staged = "second field staged"
		}
		t.Run(fmt.Sprintf("%s/%s/block=%s/fold=%s/%s/domain=%s/steps=%d", k.Name, staged, triple(l.Block), triple(l.Fold), l.Tiling, triple(l.Domain), l.Steps), func(t *testing.T) {
			t.Parallel()
			build := func(l kernel.Launch, name string, edit func(string) string) [][]byte {
				sem <- struct{}{}
				defer func() { <-sem }()
				prog, err := Generate(k, l, testResidency)
				if err != nil {
					t.Fatal(err)
				}
				got, err := runOnHost(t, gxx, dir, fmt.Sprintf("t%d-%s", ci, name), edit(prog.Source))
				if err != nil {
					t.Fatal(err)
				}
				return got
			}
			one := l
			one.Steps, one.Unstaged = 1, true
			want := build(one, "unblocked", func(src string) string { return unblockedSteps(t, k, src, l.Steps) })
			keep := func(src string) string { return src }
			store := len(k.Fields) - 1 // the store's array: the last field's, one instance
			got := build(l, "blocked", keep)
			if d := differences(got[store], want[store], k.Fields[store].Element); d != "" {
				t.Errorf("store %s: %s", k.Fields[store].Name, d)
			}
			if ci != 0 {
				return
			}
			if single := build(one, "single", keep); differences(single[store], want[store], k.Fields[store].Element) == "" {
				t.Error("one launch of one step gives the values of the launches of several; the reference does not advance the state")
			}
			nosync := build(l, "nosync", func(src string) string {
				return strings.Replace(src, "        __syncthreads(); // the step's values are complete", "        // no barrier", 1)
			})
			if differences(nosync[store], want[store], k.Fields[store].Element) == "" {
				t.Error("the program without the barrier after each step gives the same values; the test cannot see a missing barrier")
			}
		})
	}
}

// differences returns "" when arrays got and want of elements of size
// bytes are equal, or else how many elements differ and the first.
func differences(got, want []byte, size int64) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d bytes, want %d", len(got), len(want))
	}
	first, n := -1, 0
	for e := 0; e < len(got); e += int(size) {
		if !bytes.Equal(got[e:e+int(size)], want[e:e+int(size)]) {
			if first < 0 {
				first = e / int(size)
			}
			n++
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%d of %d elements differ, the first at allocation index %d", n, len(got)/int(size), first)
}
