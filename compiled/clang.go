package compiled

import (
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed" // the prelude
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
)

//go:embed prelude.h
var prelude string

// cacheVersion changes whenever what a compile yields for the same input
// changes (the parsers, the flags, the prelude is hashed itself).
const cacheVersion = "compiled-3"

// CompileTimeout bounds one compile.
const CompileTimeout = 2 * time.Minute

// CompileAddressSpaceMB bounds the address space of each process of a
// compile, clang, llc and opt (ulimit -v), so that a kernel whose compile
// would take the machine's memory fails instead: clang 19 maps about 300
// MB to compile the smallest kernel, and a few hundred more for the
// example kernels.
const CompileAddressSpaceMB = 2048

// ErrUnavailable is matched (errors.Is) by the errors of compiles that are
// not to be had, as opposed to compiles that failed: no clang installed
// (ErrNoCompiler), or a generated kernel that cannot be written for the
// launch. The model then counts the mix from the spec and says why.
var ErrUnavailable = errors.New("no compiled instruction mix")

// ErrNoCompiler is matched (errors.Is) by Find's error where no clang of
// at least MinClangMajor is installed with LLVM's llc and opt of its
// release; it wraps ErrUnavailable.
var ErrNoCompiler = fmt.Errorf("%w: no clang of version 19 or later found with its llc and opt (Debian: apt-get install clang-19 llvm-19)", ErrUnavailable)

// MinClangMajor is the oldest clang whose CUDA and HIP device-only
// compiles polyvol reads.
const MinClangMajor = 19

// Source is a CUDA or HIP translation unit to compile for a GPU.
type Source struct {
	Name string // the file name that clang's messages name
	Code string
	// Macros are defined before the code (-D NAME=VALUE), as Kernel
	// Tuner passes tunable parameters.
	Macros []Macro
	// Entry is the kernel to count: its name as written (or its mangled
	// symbol); empty for the code's only kernel.
	Entry string
}

// Macro is one preprocessor definition.
type Macro struct{ Name, Value string }

// CompileError is a source that clang refused, or whose compiled code
// lacks the kernel asked for: an error of the source, not of polyvol.
// Message quotes clang's diagnostics, which name the source's file, line
// and column.
type CompileError struct {
	Source, Arch, Message string
}

// Error returns the refusal on one line.
func (e *CompileError) Error() string {
	return fmt.Sprintf("%s for %s: %s", e.Source, e.Arch, e.Message)
}

// Compiler compiles kernels with one clang and remembers what it read, in
// memory and, where Dir is set, on disk. clang optimizes the kernel to
// LLVM IR, llc compiles that IR to the target's code, and opt reads the
// trip counts of the loops left from the same IR (ParseTripCounts), whose
// header blocks the code's comments name. It is safe for concurrent use;
// a compile that several goroutines ask for at once runs once.
type Compiler struct {
	Path    string // the clang executable
	LLC     string // LLVM's llc of clang's release
	Opt     string // LLVM's opt of clang's release
	Version string // e.g. "clang 19.1.7"
	// Dir holds the disk cache, one JSON file per compile; "" for none.
	Dir string

	mu      sync.Mutex
	entries map[string]*cacheEntry
	// compiles counts the compiles that ran clang (not answered from a
	// cache), for progress and tests.
	compiles int
}

// cacheEntry is one compile, done once its channel is closed.
type cacheEntry struct {
	done chan struct{}
	code *Code
	err  error
}

var clangVersion = regexp.MustCompile(`clang version ([0-9]+)\.([0-9]+)\.([0-9]+)`)

// Find returns the compiler polyvol uses: $POLYVOL_CLANG where set, else
// clang-19, clang-20 or clang on PATH, whichever is first of version 19 or
// later with llc and opt beside it (llvmTool), with its disk cache in the
// user's cache directory (polyvol/compiled), or none where there is none.
func Find() (*Compiler, error) {
	candidates := []string{"clang-19", "clang-20", "clang-21", "clang"}
	if env := os.Getenv("POLYVOL_CLANG"); env != "" {
		candidates = []string{env}
	}
	for _, name := range candidates {
		path, err := exec.LookPath(name)
		if err != nil {
			continue
		}
		out, err := exec.Command(path, "--version").Output()
		if err != nil {
			continue
		}
		m := clangVersion.FindStringSubmatch(string(out))
		if m == nil || parseInt(m[1]) < MinClangMajor {
			continue
		}
		llc, okLLC := llvmTool(path, "llc")
		opt, okOpt := llvmTool(path, "opt")
		if !okLLC || !okOpt {
			continue
		}
		c := &Compiler{Path: path, LLC: llc, Opt: opt, Version: fmt.Sprintf("clang %s.%s.%s", m[1], m[2], m[3])}
		if dir, err := os.UserCacheDir(); err == nil {
			c.Dir = filepath.Join(dir, "polyvol", "compiled")
		}
		return c, nil
	}
	return nil, ErrNoCompiler
}

// llvmTool returns the LLVM tool named tool (llc, opt) of the release of
// the clang at clangPath: beside the executable clangPath resolves to
// (Debian's /usr/bin/clang-19 is /usr/lib/llvm-19/bin/clang, beside
// /usr/lib/llvm-19/bin/llc), else beside clangPath with its name's
// version suffix (/usr/bin/llc-19 beside /usr/bin/clang-19).
func llvmTool(clangPath, tool string) (string, bool) {
	var candidates []string
	if real, err := filepath.EvalSymlinks(clangPath); err == nil {
		candidates = append(candidates, filepath.Join(filepath.Dir(real), tool))
	}
	if suffix, ok := strings.CutPrefix(filepath.Base(clangPath), "clang"); ok {
		candidates = append(candidates, filepath.Join(filepath.Dir(clangPath), tool+suffix))
	}
	for _, path := range candidates {
		if found, err := exec.LookPath(path); err == nil {
			return found, true
		}
	}
	return "", false
}

// Compiles returns how many compiles ran clang so far.
func (c *Compiler) Compiles() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.compiles
}

// Compile compiles src for arch (sm_NN: CUDA to PTX; gfxNNNN: HIP to
// AMDGPU machine code) and counts its kernel, or answers from the cache
// when the same source, macros, architecture and compiler were compiled
// before.
func (c *Compiler) Compile(ctx context.Context, src Source, arch string) (*Code, error) {
	t, err := targetOf(arch)
	if err != nil {
		return nil, err
	}
	key := c.key(src, arch, t)
	c.mu.Lock()
	if c.entries == nil {
		c.entries = map[string]*cacheEntry{}
	}
	if e, ok := c.entries[key]; ok {
		c.mu.Unlock()
		select {
		case <-e.done:
			return e.code, e.err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	e := &cacheEntry{done: make(chan struct{})}
	c.entries[key] = e
	c.mu.Unlock()

	e.code = c.load(key)
	if e.code == nil {
		e.code, e.err = c.run(ctx, src, arch, t)
		if e.err == nil {
			c.store(key, e.code)
		}
	}
	if e.err != nil && ctx.Err() != nil {
		// A compile cut short is not an answer: forget it.
		c.mu.Lock()
		delete(c.entries, key)
		c.mu.Unlock()
	}
	close(e.done)
	return e.code, e.err
}

// target is how to compile for one architecture: clang's arguments for a
// device-only compile, llc's for the code that clang's own backend would
// emit (the architecture, the floating-point contraction that CUDA and
// HIP default to, AMDGPU's position-independent code), and the format of
// that code.
type target struct {
	clang, llc []string
	format     string
}

// targetOf returns how to compile for arch.
func targetOf(arch string) (target, error) {
	llc := []string{"-O3", "-mcpu=" + arch, "--fp-contract=fast"}
	switch {
	case nvidiaArch.MatchString(arch):
		return target{clang: []string{"-x", "cuda", "--cuda-gpu-arch=" + arch, "-nocudainc", "-nocudalib"}, llc: llc, format: FormatPTX}, nil
	case amdArch.MatchString(arch):
		return target{clang: []string{"-x", "hip", "--offload-arch=" + arch, "-nogpuinc", "-nogpulib"}, llc: append(llc, "-relocation-model=pic"), format: FormatAMDGPU}, nil
	}
	return target{}, fmt.Errorf("architecture %q: want sm_NN (NVIDIA) or gfxNNNN (AMD)", arch)
}

var (
	nvidiaArch = regexp.MustCompile(`^sm_[0-9]{2,3}[a-z]?$`)
	amdArch    = regexp.MustCompile(`^gfx[0-9a-f]{3,4}$`)
)

// key identifies a compile: everything that changes what it yields.
func (c *Compiler) key(src Source, arch string, t target) string {
	h := sha256.New()
	macros := slices.Clone(src.Macros)
	slices.SortFunc(macros, func(a, b Macro) int { return strings.Compare(a.Name, b.Name) })
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%q\x00%q\x00%s\x00", cacheVersion, c.Version, arch, t.clang, t.llc, src.Entry)
	for _, m := range macros {
		fmt.Fprintf(h, "%s=%s\x00", m.Name, m.Value)
	}
	h.Write([]byte(prelude))
	h.Write([]byte{0})
	h.Write([]byte(src.Code))
	return hex.EncodeToString(h.Sum(nil))
}

// run compiles src with clang to optimized LLVM IR and that IR with llc
// to the target's code, reads the trip counts of its loops from the IR
// with opt, and parses the code.
func (c *Compiler) run(ctx context.Context, src Source, arch string, t target) (*Code, error) {
	ctx, cancel := context.WithTimeout(ctx, CompileTimeout)
	defer cancel()
	name := src.Name
	if name == "" {
		name = "kernel.cu"
	}
	// Named IR blocks, so that the code's labels name the loops' headers.
	args := append([]string{"--cuda-device-only", "-O3", "-S", "-emit-llvm", "-fno-discard-value-names", "-o", "-", "-Wno-unknown-cuda-version"}, t.clang...)
	for _, m := range src.Macros {
		args = append(args, "-D"+m.Name+"="+m.Value)
	}
	args = append(args, "-")
	c.mu.Lock()
	c.compiles++
	c.mu.Unlock()
	ir, _, err := step(ctx, name, arch, "clang could not compile it", c.Path, args, prelude+fmt.Sprintf("#line 1 %q\n", name)+src.Code)
	if err != nil {
		return nil, err
	}
	asm, _, err := step(ctx, name, arch, "llc could not compile clang's IR of it", c.LLC, slices.Concat(t.llc, []string{"-o", "-", "-"}), ir)
	if err != nil {
		return nil, err
	}
	// opt prints its analysis to the standard error.
	_, scev, err := step(ctx, name, arch, "opt could not analyse clang's IR of it", c.Opt,
		[]string{"-passes=print<scalar-evolution>", "-scalar-evolution-classify-expressions=0", "-disable-output", "-"}, ir)
	if err != nil {
		return nil, err
	}
	trips := ParseTripCounts(scev)
	var code *Code
	if t.format == FormatPTX {
		code, err = ParsePTX(asm, src.Entry, trips)
	} else {
		code, err = ParseAMDGPU(asm, src.Entry, trips)
	}
	if err != nil {
		return nil, &CompileError{Source: name, Arch: arch, Message: err.Error()}
	}
	code.Compiler, code.Target = c.Version, arch
	return code, nil
}

// step runs one process of a compile of source name for arch (clang, llc
// or opt: the executable path with args) under the address-space limit,
// with stdin as its standard input, and returns its standard output and
// error. Where the process fails, the error is a CompileError saying what
// failed (failed) with the process's first errors.
func step(ctx context.Context, name, arch, failed, path string, args []string, stdin string) (string, string, error) {
	// The shell sets the limit and replaces itself with the process.
	cmd := exec.CommandContext(ctx, "/bin/sh", append([]string{"-c", fmt.Sprintf(`ulimit -v %d && exec "$0" "$@"`, CompileAddressSpaceMB<<10), path}, args...)...)
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return "", "", fmt.Errorf("%s: compile for %s stopped: %w", name, arch, ctx.Err())
		}
		return "", "", &CompileError{Source: name, Arch: arch, Message: failed + ": " + firstErrors(stderr.String())}
	}
	return stdout.String(), stderr.String(), nil
}

// firstErrors returns clang's first error lines, at most three, on one
// line.
func firstErrors(diagnostics string) string {
	var errs []string
	for _, line := range strings.Split(diagnostics, "\n") {
		if strings.Contains(line, "error:") && len(errs) < 3 {
			errs = append(errs, strings.TrimSpace(line))
		}
	}
	if len(errs) == 0 {
		return strings.Join(strings.Fields(diagnostics), " ")
	}
	return strings.Join(errs, "; ")
}

// load reads the compile of key from the disk cache: nil where it is
// absent or unreadable (then it is compiled anew).
func (c *Compiler) load(key string) *Code {
	if c.Dir == "" {
		return nil
	}
	data, err := os.ReadFile(filepath.Join(c.Dir, key+".json"))
	if err != nil {
		return nil
	}
	var code Code
	if json.Unmarshal(data, &code) != nil || code.Format == "" {
		return nil
	}
	return &code
}

// store writes the compile of key to the disk cache, atomically; a cache
// that cannot be written is skipped.
func (c *Compiler) store(key string, code *Code) {
	if c.Dir == "" {
		return
	}
	data, err := json.Marshal(code)
	if err != nil || os.MkdirAll(c.Dir, 0o755) != nil {
		return
	}
	tmp, err := os.CreateTemp(c.Dir, key+".*.tmp")
	if err != nil {
		return
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if werr != nil || cerr != nil || os.Rename(tmp.Name(), filepath.Join(c.Dir, key+".json")) != nil {
		os.Remove(tmp.Name())
	}
}
