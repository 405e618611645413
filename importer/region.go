package importer

// A whole region: every statement of a Polly region imported as a
// sequence of kernels (--statement all), with the statements that are no
// kernel skipped and the reason.

import (
	"errors"
	"fmt"

	"github.com/polyvol/polyvol/isl"
)

// AllStatements is the Options.Statement value (--statement all) that
// imports every statement of a region, one kernel per statement, in the
// order of the file (jscop.ImportRegion), instead of one statement.
const AllStatements = "all"

// DefaultMaxStatements is the most statements of a region that
// --statement all imports when Options.MaxStatements is 0: each costs
// about 30 ms to import with ISL and as much again to predict (more under
// its own bound on ISL operations and the estimate's on counting work),
// so the default keeps a whole region within seconds. Compiler regions
// hold a few dozen.
const DefaultMaxStatements = 128

// ErrTooManyStatements is the cause (errors.Is) of the error of a region
// with more statements than Options.MaxStatements allows, which is
// refused before any statement is read.
var ErrTooManyStatements = errors.New("more statements than --max-statements allows")

// MaxStatementsOrDefault returns the most statements of a region that opt allows
// --statement all to import: opt.MaxStatements, or DefaultMaxStatements.
func (opt Options) MaxStatementsOrDefault() int {
	if opt.MaxStatements > 0 {
		return opt.MaxStatements
	}
	return DefaultMaxStatements
}

// Region is every statement of a region, imported one by one.
type Region struct {
	File       string // the imported file, for messages
	Name       string // the region's name in the file ("%for---%end"), or ""
	Statements []RegionStatement
	// Notes are the notes of the file as a whole, once for the region; each
	// statement's Result holds its own.
	Notes []string
}

// RegionStatement is one statement of a Region: its spec, or why it is
// no kernel.
type RegionStatement struct {
	Name   string
	Result *Result // the imported spec; nil when skipped
	Skip   string  // why the statement is skipped; "" when imported
}

// Kernels returns the statements of r that were imported, in order.
func (r *Region) Kernels() []RegionStatement {
	var out []RegionStatement
	for _, s := range r.Statements {
		if s.Result != nil {
			out = append(out, s)
		}
	}
	return out
}

// SkipReason returns why the statement of s is no kernel that polyvol
// models, or "" when it is one: it has no loop (a zero-dimensional domain,
// which runs once), or it touches no array in memory (no access, or only
// scalars that Polly keeps in registers: zero-dimensional relations to
// arrays that s does not declare). Texts that ISL cannot read are left
// to Build, which reports them; SkipReason returns "" for them.
func SkipReason(s *Scop) string {
	st := s.Statement
	if st == nil {
		return ""
	}
	ctx, err := isl.NewCtx(isl.WithMaxOperations(maxOperations))
	if err != nil {
		return ""
	}
	defer ctx.Close()
	sc := ctx.NewScope()
	defer sc.Free()
	d, err := sc.ReadSet(st.Domain)
	if err != nil {
		return ""
	}
	if n, err := d.Dim(isl.DimSet); err != nil {
		return ""
	} else if n == 0 {
		return "no loop: its domain is a single point, which runs once"
	}
	declared := map[string]bool{}
	for _, a := range s.Arrays {
		declared[a.Name] = true
	}
	var scalars []string
	for _, acc := range st.Accesses {
		m, err := sc.ReadMap(acc.Relation)
		if err != nil {
			return ""
		}
		n, err := m.Dim(isl.DimOut)
		if err != nil {
			return ""
		}
		_, target := mapTuples(m)
		if n > 0 || declared[target] {
			return ""
		}
		scalars = append(scalars, target)
	}
	if len(scalars) == 0 {
		return "no accesses: it touches no array"
	}
	return fmt.Sprintf("only scalars: it touches no array in memory, only %s, which Polly keeps in registers", excerpt(joinNames(scalars)))
}

// joinNames lists names once each, in order, separated by commas.
func joinNames(names []string) string {
	seen := map[string]bool{}
	out := ""
	for _, n := range names {
		if seen[n] {
			continue
		}
		seen[n] = true
		if out != "" {
			out += ", "
		}
		out += n
	}
	return out
}
