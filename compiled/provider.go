package compiled

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/polyvol/polyvol/cudagen"
	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/kernel"
)

// Provider compiles the kernel of each estimate (model.Options.Code): the
// kernel that polyvol cuda writes for the spec and launch, or, where
// Source is set, the user's own CUDA or HIP source with the launch's
// tunable parameters as macros (LaunchMacros).
type Provider struct {
	Compiler *Compiler // nil: every compile is unavailable (ErrNoCompiler)
	// Source is the user's kernel source; nil compiles the spec's
	// generated kernel (cudagen).
	Source *Source
	// Context stops compiles when it ends; nil means none.
	Context context.Context
}

// Code compiles the kernel of k under launch l for dev's architecture and
// returns what it read. Its error wraps ErrUnavailable where no kernel can
// be compiled for the launch (no compiler, no architecture, a launch that
// polyvol cuda cannot write), so that the model counts the mix instead.
func (p *Provider) Code(k *kernel.Kernel, l kernel.Launch, dev *device.Device) (*Code, error) {
	ctx := p.Context
	if ctx == nil {
		ctx = context.Background()
	}
	if p.Compiler == nil {
		return nil, ErrNoCompiler
	}
	if dev.Arch == "" {
		return nil, fmt.Errorf("%w: device %s states no architecture (arch) to compile for", ErrUnavailable, dev.Name)
	}
	if p.Source != nil {
		src := *p.Source
		src.Macros = nil
		for _, m := range LaunchMacros(l) {
			if !slices.ContainsFunc(p.Source.Macros, func(u Macro) bool { return u.Name == m.Name }) {
				src.Macros = append(src.Macros, m)
			}
		}
		src.Macros = append(src.Macros, p.Source.Macros...)
		return p.Compiler.Compile(ctx, src, dev.Arch)
	}
	prog, err := cudagen.Generate(k, CanonicalLaunch(k, l), cudagen.Residency{Device: dev.Name, Arch: dev.Arch, BlocksPerSM: 1})
	if err != nil {
		prog, err = cudagen.Generate(k, l, cudagen.Residency{Device: dev.Name, Arch: dev.Arch, BlocksPerSM: 1})
	}
	if err != nil {
		return nil, fmt.Errorf("%w: polyvol cuda cannot write the kernel of %s for this launch: %v", ErrUnavailable, k.Name, err)
	}
	code, err := p.Compiler.Compile(ctx, Source{Name: k.Name + ".cu", Code: prog.DeviceSource, Entry: prog.Function}, dev.Arch)
	if ce := (*CompileError)(nil); errors.As(err, &ce) {
		// polyvol's own kernel, not the user's: a shortfall of the
		// generator, which the model works around by counting.
		return nil, fmt.Errorf("%w: the kernel polyvol cuda writes did not compile: %v", ErrUnavailable, ce.Message)
	}
	return code, err
}

// CanonicalLaunch returns the launch whose generated kernel stands for
// l's: l itself where a field is staged (the tile copy depends on the
// block's shape) or the points of a thread lie a block apart (strided
// tiling, whose indices do), else l with its threads in one row, block
// (T, 1, 1) for T threads per block. The block's shape enters an unstaged kernel only
// as the constants of its coordinates (blockIdx·B + threadIdx), whose
// multiplies cost alike, while the threads per block bound the registers
// the compiler may give (__launch_bounds__): a sweep over block shapes of
// one size compiles once per fold, tiling and architecture.
func CanonicalLaunch(k *kernel.Kernel, l kernel.Launch) kernel.Launch {
	if l.StagedFields(k) || l.Tiling != kernel.TileConsecutive {
		return l
	}
	c := l
	c.Block = [3]int64{l.ThreadsPerBlock(), 1, 1}
	return c
}

// LaunchMacros are the macros that state launch l the way Kernel Tuner
// names its tunable parameters: block_size_x, block_size_y, block_size_z
// (the block), tile_size_x, tile_size_y, tile_size_z (the fold: the
// lattice points of a thread) and, for a launch of a kernel with a state
// (Steps set), temporal_tiling_factor (the time steps of one launch, as
// Kernel Tuner's temporally blocked hotspot names them). A macro of the
// same name in the Source replaces the launch's.
func LaunchMacros(l kernel.Launch) []Macro {
	var m []Macro
	for i, axis := range []string{"x", "y", "z"} {
		m = append(m, Macro{"block_size_" + axis, strconv.FormatInt(l.Block[i], 10)})
	}
	for i, axis := range []string{"x", "y", "z"} {
		m = append(m, Macro{"tile_size_" + axis, strconv.FormatInt(l.Fold[i], 10)})
	}
	if l.Steps > 0 {
		m = append(m, Macro{"temporal_tiling_factor", strconv.FormatInt(l.StepCount(), 10)})
	}
	return m
}
