package compiled

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/polyvol/polyvol/cudagen"
	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/footprint"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/kernel/kerneltest"
)

// testCompiler returns the installed clang with a disk cache of the
// test's own, failing the test where there is none: make test installs
// clang-19 (scripts/deps.sh).
func testCompiler(t *testing.T) *Compiler {
	t.Helper()
	c, err := Find()
	if err != nil {
		t.Fatalf("%v: the tests of compiled need it", err)
	}
	c.Dir = t.TempDir()
	return c
}

// TestCompileByHand compiles small kernels whose instructions are known:
// two global loads, an add and a store; the same in double precision; a
// copy through shared memory with a barrier; a loop with a trip count
// known at run time only, which clang cannot unroll.
func TestCompileByHand(t *testing.T) {
	c := testCompiler(t)
	cases := []struct {
		name, code string
		check      func(Counts) bool
		loops      int
	}{
		{"sum", `__global__ void k(const float* __restrict__ a, float* __restrict__ b) {
	int i = blockIdx.x * block_size_x + threadIdx.x;
	b[i] = a[i] + a[i + 64];
}`, func(c Counts) bool {
			return c.GlobalLoads == 2 && c.GlobalStores == 1 && c.FP32 == 1 && c.FP64 == 0 && c.Shared == 0
		}, 0},
		{"double", `__global__ void k(const double* __restrict__ a, double* __restrict__ b) {
	int i = blockIdx.x * block_size_x + threadIdx.x;
	b[i] = a[i] * a[i + 64];
}`, func(c Counts) bool { return c.GlobalLoads == 2 && c.GlobalStores == 1 && c.FP64 == 1 && c.FP32 == 0 }, 0},
		{"shared", `__global__ void k(const float* __restrict__ a, float* __restrict__ b) {
	__shared__ float s[block_size_x];
	int i = blockIdx.x * block_size_x + threadIdx.x;
	s[threadIdx.x] = a[i];
	__syncthreads();
	b[i] = s[(threadIdx.x + 1) % block_size_x];
}`, func(c Counts) bool {
			return c.GlobalLoads == 1 && c.GlobalStores == 1 && c.Shared == 2 && c.Barriers == 1
		}, 0},
		{"loop", `__global__ void k(const float* __restrict__ a, float* __restrict__ b, int n) {
	float sum = 0;
	for (int j = threadIdx.x; j < n; j += block_size_x) sum += a[j];
	b[blockIdx.x * block_size_x + threadIdx.x] = sum;
}`, func(c Counts) bool { return c.GlobalLoads >= 1 && c.GlobalStores == 1 }, 1},
	}
	for _, arch := range []string{"sm_80", "gfx90a", "gfx1100"} {
		for _, tc := range cases {
			src := Source{Name: tc.name + ".cu", Code: tc.code, Macros: []Macro{{"block_size_x", "128"}}}
			code, err := c.Compile(context.Background(), src, arch)
			if err != nil {
				t.Fatalf("%s for %s: %v", tc.name, arch, err)
			}
			if !tc.check(code.Counts) {
				t.Errorf("%s for %s: counts %+v", tc.name, arch, code.Counts)
			}
			outer := 0
			for _, l := range code.Loops {
				if l.Depth == 1 {
					outer++
				}
			}
			if outer != tc.loops {
				t.Errorf("%s for %s: loops %+v, want %d outermost", tc.name, arch, code.Loops, tc.loops)
			}
			if code.Target != arch || code.Compiler != c.Version || code.Registers < 1 {
				t.Errorf("%s for %s: target %s, compiler %s, registers %d", tc.name, arch, code.Target, code.Compiler, code.Registers)
			}
			if wantWave := map[string]int{"sm_80": 0, "gfx90a": 64, "gfx1100": 32}[arch]; code.WaveSize != wantWave {
				t.Errorf("%s for %s: wave size %d, want %d", tc.name, arch, code.WaveSize, wantWave)
			}
		}
	}
}

// TestCompileCache compiles once per distinct source, macros and
// architecture: again from memory, and in a new process (a new Compiler)
// from disk; a damaged cache file is compiled anew.
func TestCompileCache(t *testing.T) {
	c := testCompiler(t)
	src := Source{Code: "__global__ void k(float* a) { a[threadIdx.x] = N; }", Macros: []Macro{{"N", "1"}}}
	ctx := context.Background()
	first, err := c.Compile(ctx, src, "sm_80")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Compile(ctx, src, "sm_80"); err != nil || c.Compiles() != 1 {
		t.Fatalf("the same compile again ran clang: %d compiles, %v", c.Compiles(), err)
	}
	for _, other := range []struct {
		src  Source
		arch string
	}{
		{Source{Code: src.Code, Macros: []Macro{{"N", "2"}}}, "sm_80"},
		{src, "sm_90"},
	} {
		before := c.Compiles()
		if _, err := c.Compile(ctx, other.src, other.arch); err != nil || c.Compiles() != before+1 {
			t.Errorf("other macros or architecture: %d compiles after %d, %v", c.Compiles(), before, err)
		}
	}
	fresh := &Compiler{Path: c.Path, LLC: c.LLC, Opt: c.Opt, Version: c.Version, Dir: c.Dir}
	again, err := fresh.Compile(ctx, src, "sm_80")
	if err != nil || fresh.Compiles() != 0 || again.Counts != first.Counts {
		t.Errorf("from disk: %d compiles, %v, counts %+v want %+v", fresh.Compiles(), err, again.Counts, first.Counts)
	}
	files, _ := filepath.Glob(filepath.Join(c.Dir, "*.json"))
	for _, f := range files {
		if err := os.WriteFile(f, []byte("{not json"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	damaged := &Compiler{Path: c.Path, LLC: c.LLC, Opt: c.Opt, Version: c.Version, Dir: c.Dir}
	if code, err := damaged.Compile(ctx, src, "sm_80"); err != nil || damaged.Compiles() != 1 || code.Counts != first.Counts {
		t.Errorf("damaged cache: %d compiles, %v", damaged.Compiles(), err)
	}
}

// TestCompileErrors: clang's refusal names the source's file and line;
// an unknown architecture and a missing kernel are errors too.
func TestCompileErrors(t *testing.T) {
	c := testCompiler(t)
	ctx := context.Background()
	_, err := c.Compile(ctx, Source{Name: "mine.cu", Code: "__global__ void k(float* a) {\n  a[0] = undefined_name;\n}\n"}, "sm_80")
	var ce *CompileError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "mine.cu:2:") || errors.Is(err, ErrUnavailable) {
		t.Errorf("a compile error: got %v, want a CompileError at mine.cu:2", err)
	}
	if _, err := c.Compile(ctx, Source{Code: "__global__ void k() {}"}, "sm_xx"); err == nil {
		t.Error("architecture sm_xx: no error")
	}
	if _, err := c.Compile(ctx, Source{Code: "__global__ void k() {}", Entry: "other"}, "gfx90a"); err == nil || !strings.Contains(err.Error(), "other") {
		t.Errorf("a kernel the source lacks: got %v", err)
	}
	p := &Provider{}
	dev, _ := device.Lookup("A100-40GB")
	if _, err := p.Code(nil, kernel.Launch{}, dev); !errors.Is(err, ErrNoCompiler) || !errors.Is(err, ErrUnavailable) {
		t.Errorf("no compiler: got %v, want ErrNoCompiler", err)
	}
}

// TestProviderMacros: a user's source sees the launch as Kernel Tuner's
// macros (block and tile sizes), and a macro of its own replaces the
// launch's of the same name.
func TestProviderMacros(t *testing.T) {
	c := testCompiler(t)
	k, err := kernel.Parse([]byte("name: t\ndomain: [1024, 64]\nfields:\n  - name: a\n    element: 4\n    extent: [1024, 64]\n    load: [[x, y]]\n"), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	// One store per tile point: tile_size_x × tile_size_y of them.
	src := &Source{Name: "tile.cu", Code: `__global__ void k(float* a) {
	for (int i = 0; i < tile_size_x * tile_size_y; i++) a[(blockIdx.x * block_size_x + threadIdx.x) * 64 + i * block_size_y] = i;
}`}
	dev, _ := device.Lookup("A100-40GB")
	p := &Provider{Compiler: c, Source: src}
	l := k.NewLaunch([3]int64{32, 2, 1}, [3]int64{2, 3, 1})
	code, err := p.Code(k, l, dev)
	if err != nil {
		t.Fatal(err)
	}
	if code.Counts.GlobalStores != 6 || len(code.Loops) != 0 {
		t.Errorf("tile 2×3: %v stores, loops %+v; want 6, unrolled", code.Counts.GlobalStores, code.Loops)
	}
	src.Macros = []Macro{{"tile_size_y", "1"}}
	if code, err = p.Code(k, l, dev); err != nil || code.Counts.GlobalStores != 2 {
		t.Errorf("tile_size_y 1 of the source: %v stores, %v; want 2", code.Counts.GlobalStores, err)
	}
}

// TestCompiledLoadsMatchCounted: the kernel polyvol cuda writes loads
// every distinct folded access of a thread once, and the model counts one
// load instruction per distinct address: on random kernels the global
// loads clang compiles for an NVIDIA target equal footprint's count
// exactly. (Partial accesses are left out: clang drops the load of one
// whose guard no point of the domain meets, which the model counts.)
func TestCompiledLoadsMatchCounted(t *testing.T) {
	c := testCompiler(t)
	dev, err := device.Lookup("A100-40GB")
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(7, 39))
	p := &Provider{Compiler: c}
	for i := range 12 {
		k := kerneltest.Kernel(t, r, kerneltest.Options{Domain: [3]int64{64, 16, 4}, Fields: 3, Loads: 4, Stores: 1, Flops: 4,
			Lead: []kerneltest.Term{kerneltest.Offset, kerneltest.Offset, kerneltest.Stride}, Multiplicity: true})
		fold := [3]int64{1 + r.Int64N(2), 1 + r.Int64N(2), 1}
		l := k.NewLaunch([3]int64{32, 2, 1}, fold)
		lists, err := footprint.Instructions(k, l, dev.Memory(), footprint.FuseInAddressOrder)
		if err != nil {
			t.Fatal(err)
		}
		var counted float64
		for _, fi := range lists {
			if !fi.Store {
				counted += float64(max(fi.Field.Multiplicity, 1) * int64(len(fi.Instructions)))
			}
		}
		code, err := p.Code(k, l, dev)
		if err != nil {
			prog, _ := cudagen.Generate(k, l, cudagen.Residency{Device: dev.Name, Arch: dev.Arch, BlocksPerSM: 1})
			t.Fatalf("kernel %d: %v\n%s", i, err, prog.DeviceSource)
		}
		if code.Counts.GlobalLoads != counted {
			prog, _ := cudagen.Generate(k, l, cudagen.Residency{Device: dev.Name, Arch: dev.Arch, BlocksPerSM: 1})
			t.Errorf("kernel %d, fold %v: %v global loads compiled, %v counted\n%s", i, fold, code.Counts.GlobalLoads, counted, prog.DeviceSource)
		}
	}
}

// TestCompileAddressSpace: clang, llc and opt run with their address
// space bounded by CompileAddressSpaceMB; a stand-in tool that reports its
// limit and fails shows it in the CompileError, which names the tool that
// failed: clang itself, or llc or opt after a clang that succeeds.
func TestCompileAddressSpace(t *testing.T) {
	dir := t.TempDir()
	tool := func(name, script string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte("#!/bin/sh\n"+script), 0o755); err != nil {
			t.Fatal(err)
		}
		return path
	}
	fails := "echo \"error: limit $(ulimit -v)\" >&2\nexit 1\n"
	succeeds := "cat >/dev/null\necho '; IR'\n"
	want := fmt.Sprintf("limit %d", CompileAddressSpaceMB<<10)
	for _, tc := range []struct {
		c      *Compiler
		failed string
	}{
		{&Compiler{Path: tool("clang", fails), Version: "clang 19.0.0"}, "clang could not compile it"},
		{&Compiler{Path: tool("clang-ok", succeeds), LLC: tool("llc", fails), Version: "clang 19.0.0"}, "llc could not compile"},
		{&Compiler{Path: tool("clang-ok", succeeds), LLC: tool("llc-ok", succeeds), Opt: tool("opt", fails), Version: "clang 19.0.0"}, "opt could not analyse"},
	} {
		_, err := tc.c.Compile(context.Background(), Source{Code: "__global__ void k() {}"}, "sm_80")
		if ce := (*CompileError)(nil); !errors.As(err, &ce) || !strings.Contains(ce.Message, want) || !strings.HasPrefix(ce.Message, tc.failed) {
			t.Errorf("got %v, want a CompileError %q… with %q", err, tc.failed, want)
		}
	}
}

// TestLLVMTool finds llc beside the executable that a clang link resolves
// to, else beside the link with the link's version suffix, else nowhere.
func TestLLVMTool(t *testing.T) {
	dir := t.TempDir()
	mkdir := func(path string) string {
		if err := os.MkdirAll(path, 0o755); err != nil {
			t.Fatal(err)
		}
		return path
	}
	executable := func(path string) string {
		if err := os.WriteFile(path, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return path
	}
	link := func(target, path string) string {
		if err := os.Symlink(target, path); err != nil {
			t.Fatal(err)
		}
		return path
	}
	llvm, bin := mkdir(filepath.Join(dir, "llvm-19", "bin")), mkdir(filepath.Join(dir, "bin"))
	clang := link(executable(filepath.Join(llvm, "clang")), filepath.Join(bin, "clang-19"))
	beside := executable(filepath.Join(llvm, "llc"))
	if got, ok := llvmTool(clang, "llc"); !ok || got != beside {
		t.Errorf("llc beside the resolved clang: got %q, %v; want %s", got, ok, beside)
	}
	suffixed := executable(filepath.Join(bin, "opt-19"))
	if got, ok := llvmTool(clang, "opt"); !ok || got != suffixed {
		t.Errorf("opt-19 beside clang-19: got %q, %v; want %s", got, ok, suffixed)
	}
	if got, ok := llvmTool(clang, "llvm-as"); ok {
		t.Errorf("a tool that is nowhere: got %q", got)
	}
}
