package main

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// layers is the intended picture of polyvol's packages, bottom up: a
// package may import packages of lower layers only, never one of its own
// layer or above. The folder of a file tells its layer.
var layers = [][]string{
	{"intmath", "lattice", "isl", "yamldoc", "examples", "printable", "procmem", "similar", "pool"}, // leaves: arithmetic, boxes, the ISL binding, YAML positions, embedded data, printable names and lines, process memory, name suggestions, the one worker pool
	{"kernel", "device", "measured", "supervise"},                                                   // what is estimated, on what, and what hardware measured; the supervisor of the command and of the workers that run untrusted work
	{"geometry", "sim", "relation", "kernel/kerneltest", "cudagen"},                                 // the launch's threads and points; the independent simulator; the reader of ISL maps into accesses; random kernels for the tests; CUDA programs of a spec
	{"sets", "footprint", "compiled", "importer", "importer/jscop", "importer/kerncraft"},           // ISL sets of threads and addresses, the tests' oracle; counting in plain Go; the instruction mix of the code clang compiles; the readers of Polly's and Kerncraft's kernels
	{"waves"},                            // wave shapes and wave-level counts
	{"model"},                            // orchestration of one estimate and the performance models
	{"explore", "layercond", "accuracy"}, // applications of estimates
	{"request"},                          // requests of the front ends: specs, devices, launches, predict, kinds of errors, JSON
	{"chart"},                            // the images of the reports: rooflines, heat maps, layer-condition curves
	{"serve", "cli"},                     // front ends
	{"."},                                // the polyvol command
}

// exceptions are imports within a layer that the picture allows.
var exceptions = map[string][]string{
	"importer/jscop":     {"importer"},
	"importer/kerncraft": {"importer"},
	"cli":                {"serve"},   // the serve command; serve itself never imports cli
	"accuracy":           {"explore"}, // the best time steps on every device are an exploration; explore never imports accuracy
}

// TestImportLayers parses every non-test Go file of the module and checks
// that its polyvol imports point to lower layers (layers), so that one
// estimate reads top-down through the packages. A package missing from
// the picture fails too, so that the picture keeps up with the code.
func TestImportLayers(t *testing.T) {
	const module = "github.com/polyvol/polyvol"
	rank := map[string]int{}
	for i, layer := range layers {
		for _, p := range layer {
			rank[p] = i
		}
	}
	fset := token.NewFileSet()
	files := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), "bazel-") || d.Name() == "vendor" || d.Name() == "testdata" || d.Name() == "third_party" || (d.Name() != "." && strings.HasPrefix(d.Name(), "."))) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		files++
		pkg := filepath.ToSlash(filepath.Dir(path))
		from, ok := rank[pkg]
		if !ok {
			t.Errorf("%s: package %s is not in the layer picture of layers_test.go", path, pkg)
			return nil
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			dep, ok := strings.CutPrefix(p, module+"/")
			if !ok {
				continue
			}
			to, known := rank[dep]
			allowed := to < from
			for _, e := range exceptions[pkg] {
				allowed = allowed || e == dep
			}
			if !known || !allowed {
				t.Errorf("%s: package %s (layer %d) imports %s (layer %d); imports must point to lower layers", path, pkg, from, dep, to)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 50 {
		t.Fatalf("parsed only %d files; run the test from the repository root", files)
	}
}

// estimators are the packages a library user imports to estimate kernels.
var estimators = []string{"geometry", "footprint", "waves", "model", "explore", "layercond", "pool"}

// TestEstimatorsNeedNoISL checks that no estimator imports the ISL binding
// (package isl, which needs cgo and libisl), directly or through other
// polyvol packages: estimates are plain Go, and ISL reads raw maps when a
// spec is loaded (package relation) and checks the counters in tests
// (package sets).
func TestEstimatorsNeedNoISL(t *testing.T) {
	const module = "github.com/polyvol/polyvol"
	imports := map[string][]string{} // polyvol imports of each package's non-test files
	fset := token.NewFileSet()
	for _, pkg := range append(slices.Concat(layers...), "isl") {
		files, err := filepath.Glob(filepath.Join(pkg, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range files {
			if strings.HasSuffix(path, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range f.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				if p == "C" {
					imports[pkg] = append(imports[pkg], "C")
				}
				if dep, ok := strings.CutPrefix(p, module+"/"); ok {
					imports[pkg] = append(imports[pkg], dep)
				}
			}
		}
	}
	if !slices.Contains(imports["isl"], "C") {
		t.Fatal("package isl imports no C; run the test from the repository root")
	}
	for _, root := range estimators {
		// A breadth-first walk that remembers how it reached each package.
		via := map[string]string{root: ""}
		queue := []string{root}
		for len(queue) > 0 {
			pkg := queue[0]
			queue = queue[1:]
			for _, dep := range imports[pkg] {
				if _, seen := via[dep]; seen {
					continue
				}
				via[dep] = pkg
				queue = append(queue, dep)
			}
		}
		for _, banned := range []string{"isl", "C"} {
			if _, ok := via[banned]; !ok {
				continue
			}
			chain := []string{banned}
			for p := via[banned]; p != ""; p = via[p] {
				chain = append([]string{p}, chain...)
			}
			t.Errorf("package %s depends on %s: %s", root, banned, strings.Join(chain, " → "))
		}
	}
}

// TestReadmeLayers checks that the README's package table (its rows of the
// form "| N | `pkg`, ... | ... |") names the packages of each layer of the
// picture above, N counted from 1, every package once; the command (".")
// has no row.
func TestReadmeLayers(t *testing.T) {
	text, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile(`^\| ([0-9]+) \| ([^|]*) \|`)
	name := regexp.MustCompile("`([^`]+)`")
	named := map[string]int{} // layer (0-based) of each package the table names
	for _, line := range strings.Split(string(text), "\n") {
		m := row.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		layer, _ := strconv.Atoi(m[1])
		for _, n := range name.FindAllStringSubmatch(m[2], -1) {
			if at, dup := named[n[1]]; dup {
				t.Errorf("README: package %s named in layers %d and %d", n[1], at+1, layer)
			}
			named[n[1]] = layer - 1
		}
	}
	if len(named) == 0 {
		t.Fatal("README: no package table rows found")
	}
	for i, layer := range layers {
		for _, p := range layer {
			at, ok := named[p]
			switch {
			case p == ".":
			case !ok:
				t.Errorf("README: package %s (layer %d of layers_test.go) has no row", p, i+1)
			case at != i:
				t.Errorf("README: package %s is in layer %d, layers_test.go has it in layer %d", p, at+1, i+1)
			}
			delete(named, p)
		}
	}
	for p, at := range named {
		t.Errorf("README: layer %d names %s, which layers_test.go does not have", at+1, p)
	}
}
