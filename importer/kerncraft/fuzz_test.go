package kerncraft

import (
	"errors"
	"os"
	"testing"

	"github.com/polyvol/polyvol/importer"
	"github.com/polyvol/polyvol/kernel"
)

// FuzzImportKerncraft checks that the Kerncraft importer never panics,
// reports every failure as a one-line *importer.Error, and that every spec
// it writes loads again as the kernel it returned.
func FuzzImportKerncraft(f *testing.F) {
	if data, err := os.ReadFile("../../examples/polyhedral/star3d-7pt.yml"); err == nil {
		f.Add(data)
	}
	f.Add([]byte("arrays:\n    a: {type: float, dimension: [N*N]}\n    b: {type: float, dimension: [N, N]}\nloops:\n    - {index: j, start: 0, stop: N, step: 1}\n    - {index: i, start: 1, stop: N-1, step: 2}\ndata sources:\n    a: [[j*N + i - 1]]\ndata destinations:\n    b: [[j, i]]\nflops: {\"*\": 1.5}\n"))
	f.Add([]byte("arrays:\n    a: {type: double, dimension: [M, 19]}\nloops:\n    - {index: i, start: 0, stop: M}\ndata sources:\n    a: [[i, 0], [i-1, 18], [i, j]]\ndata destinations:\n    a: [[i, 2**3]]\n"))
	f.Add([]byte("arrays: {}\nloops: []\ndata sources: {}\ndata destinations: {}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := Import(data, "fuzz.yml", importer.Options{Params: map[string]int64{"N": 64, "M": 100}})
		if err != nil {
			var ie *importer.Error
			if !errors.As(err, &ie) {
				t.Fatalf("error %T is not an *importer.Error: %v", err, err)
			}
			return
		}
		k, err := kernel.Parse(res.YAML(), "fuzz.yaml")
		if err != nil {
			t.Fatalf("the imported spec does not load: %v\n%s", err, res.YAML())
		}
		if k.Domain != res.Kernel.Domain || len(k.Fields) != len(res.Kernel.Fields) {
			t.Fatalf("the spec loads as another kernel")
		}
	})
}
