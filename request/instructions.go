package request

import (
	"context"
	"os"
	"strings"
	"sync"

	"github.com/polyvol/polyvol/compiled"
	"github.com/polyvol/polyvol/explore"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/model"
)

// The --instructions choices: where the instruction mix comes from.
const (
	InstructionsCompiled = model.SourceCompiled // compile the kernel with clang, counted (with a note) where none is installed; the default
	InstructionsCounted  = model.SourceCounted  // count the mix from the spec
)

// InstructionsEnv names the environment variable that sets the mix of the
// estimates that choose none: compiled or counted (a batch of quick
// explorations that a compile per launch would slow, or results that must
// not depend on the compiler). A source file is always compiled.
const InstructionsEnv = "POLYVOL_INSTRUCTIONS"

// defaultInstructions returns the mix of an estimate that chooses none:
// $POLYVOL_INSTRUCTIONS where set, else compiled.
func defaultInstructions() (string, error) {
	mode := os.Getenv(InstructionsEnv)
	switch mode {
	case "":
		return InstructionsCompiled, nil
	case InstructionsCompiled, InstructionsCounted:
		return mode, nil
	}
	return "", fieldErrorf("instructions", "%s=%q: expected %s or %s", InstructionsEnv, mode, InstructionsCompiled, InstructionsCounted)
}

// Instructions selects the instruction mix of the estimates: compiled or
// counted, and the user's own kernel source to compile instead of the
// kernel polyvol cuda writes for the spec.
type Instructions struct {
	// Mode is InstructionsCompiled or InstructionsCounted; "" compiles
	// where a SourceFile is given, else takes defaultInstructions.
	Mode string
	// SourceFile is the user's CUDA or HIP file; "" compiles the spec's
	// generated kernel.
	SourceFile string
	// Defines (--macro) are the source's further macros, NAME=VALUE or NAME (1),
	// beside those of the launch (compiled.LaunchMacros).
	Defines []string
	// Entry is the kernel of the source to count; "" for its only one.
	Entry string
}

// Explore returns cfg with the instruction mix of an exploration: where in
// chooses no mix (no mode, no source file, no $POLYVOL_INSTRUCTIONS), the
// mix is counted, since a compile per distinct kernel tried (a second or
// more each, cached after) would make a cold sweep of hundreds of launches
// take minutes; a prediction of one configuration compiles its kernel. A
// chosen mix applies to every configuration.
func (in Instructions) Explore(cfg explore.Config) explore.Config {
	if in.Mode == "" && in.SourceFile == "" && os.Getenv(InstructionsEnv) == "" {
		cfg.Estimate.Code = nil
	}
	return cfg
}

var (
	compilerOnce sync.Once
	compiler     *compiled.Compiler
)

// Compiler returns the process's one clang compiler, which every estimate
// shares with its caches, or nil where none is installed.
func Compiler() *compiled.Compiler {
	compilerOnce.Do(func() {
		compiler, _ = compiled.Find()
	})
	return compiler
}

// Provider returns the code provider of the estimates (model.Options.Code)
// under ctx: nil for the counted mix. It reads the source file, and fails
// where a source is given but no clang is installed.
func (in Instructions) Provider(ctx context.Context) (model.CodeProvider, error) {
	if in.SourceFile == "" && (len(in.Defines) > 0 || in.Entry != "") {
		return nil, fieldErrorf("macro", "--macro and --kernel-name apply to a --source file")
	}
	mode := in.Mode
	if mode == "" && in.SourceFile != "" {
		mode = InstructionsCompiled
	}
	if mode == "" {
		var err error
		if mode, err = defaultInstructions(); err != nil {
			return nil, err
		}
	}
	switch mode {
	case InstructionsCounted:
		if in.SourceFile != "" {
			return nil, fieldErrorf("source", "--source %s: its instructions are compiled; --instructions counted counts them from the spec instead", in.SourceFile)
		}
		return nil, nil
	case InstructionsCompiled:
	default:
		return nil, fieldErrorf("instructions", "--instructions %q: expected %s or %s", in.Mode, InstructionsCompiled, InstructionsCounted)
	}
	p := &compiled.Provider{Compiler: Compiler(), Context: ctx}
	if in.SourceFile == "" {
		return p, nil
	}
	if p.Compiler == nil {
		return nil, inputErrorf("--source %s: %v", in.SourceFile, compiled.ErrNoCompiler)
	}
	code, err := os.ReadFile(in.SourceFile)
	if err != nil {
		return nil, inputErrorf("--source: %v", err)
	}
	src := &compiled.Source{Name: in.SourceFile, Code: string(code), Entry: in.Entry}
	for _, d := range in.Defines {
		name, value, ok := strings.Cut(d, "=")
		if !ok {
			value = "1"
		}
		if !kernel.IsIdentifier(name) {
			return nil, fieldErrorf("macro", "--macro %q: expected NAME=VALUE with NAME a C identifier", d)
		}
		src.Macros = append(src.Macros, compiled.Macro{Name: name, Value: value})
	}
	p.Source = src
	return p, nil
}
