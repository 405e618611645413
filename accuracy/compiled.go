package accuracy

import (
	"github.com/polyvol/polyvol/compiled"
	"github.com/polyvol/polyvol/examples"
	"github.com/polyvol/polyvol/model"
)

// compiledSource is a kernel of examples.Sources, written for polyvol with
// a measured kernel's thread mapping and Kernel Tuner's macros, that a
// report compiles for the instruction mix of its estimates.
type compiledSource struct {
	compiler *compiled.Compiler
	name     string // the file in examples.Sources
	code     string
}

// newCompiledSource reads the file name of examples.Sources for compiles
// by compiler; nil where compiler is nil, so that the mix is counted.
func newCompiledSource(compiler *compiled.Compiler, name string) (*compiledSource, error) {
	if compiler == nil {
		return nil, nil
	}
	code, err := examples.Sources.ReadFile(name)
	if err != nil {
		return nil, err
	}
	return &compiledSource{compiler: compiler, name: name, code: string(code)}, nil
}

// compilerVersion names the compiler of s, "" where s is nil (the mix is
// counted).
func (s *compiledSource) compilerVersion() string {
	if s == nil {
		return ""
	}
	return s.compiler.Version
}

// estimateOptions are the options of a report's estimates: method exact
// and the default performance model, with the instruction mix compiled
// from s with macros beside the launch's (compiled.LaunchMacros) where s
// is not nil, else counted.
func (s *compiledSource) estimateOptions(macros ...compiled.Macro) model.Options {
	opt := model.Options{Method: model.MethodExact, Model: model.DefaultModel}
	if s != nil {
		opt.Code = &compiled.Provider{Compiler: s.compiler, Source: &compiled.Source{Name: s.name, Code: s.code, Macros: macros}}
	}
	return opt
}
