package kerncraft

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/polyvol/polyvol/importer"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/relation"
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
		k, err := kernel.Parse(res.YAML(), "fuzz.yaml", relation.Option())
		if err != nil {
			t.Fatalf("the imported spec does not load: %v\n%s", err, res.YAML())
		}
		if k.Domain != res.Kernel.Domain || len(k.Fields) != len(res.Kernel.Fields) {
			t.Fatalf("the spec loads as another kernel")
		}
	})
}

// FuzzReadC checks that the reader of kernel code never panics nor hangs,
// that it reports every failure as a one-line *importer.Error that names
// the file, and that what it reads builds into a spec that loads again as
// the kernel it returned, or fails as an *importer.Error too.
func FuzzReadC(f *testing.F) {
	for _, name := range []string{"jacobi2d-5pt.c", "matvec.c"} {
		if data, err := os.ReadFile("../../examples/polyhedral/" + name); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("float a[N*N], b[N][N];\nfor (long j = 0; j <= N-1; j++)\n    for (int i = 1; i < N - 1; i += 2)\n        b[j][i] = -a[j*N + i - 1];\n"))
	f.Add([]byte("double a[M][N], s;\n#pragma omp parallel for\nfor (int i = 0; i < M; ++i) {\n    a[i][0] *= s * (a[i][1] - 2.0) / a[(i)][0x1];\n    ;\n}\n"))
	f.Add([]byte("double a[N]; for (int i = 0; i < N; ++i) a[i] = 1.0; }"))
	f.Add([]byte("#define P(x) (x + 1)\ndouble a[P(N)]; for (int i = 0; i < N; ++i) a[P(i)] = a[i] + a[i*i];"))
	f.Fuzz(func(t *testing.T, data []byte) {
		opt := importer.Options{Params: map[string]int64{"N": 64, "M": 100}}
		s, err := ReadCode(data, "fuzz.c", opt)
		var res *importer.Result
		if err == nil {
			res, err = importer.Build(s, opt)
		}
		if err == nil {
			k, err := kernel.Parse(res.YAML(), "fuzz.yaml", relation.Option())
			if err != nil {
				t.Fatalf("the imported spec does not load: %v\n%s", err, res.YAML())
			}
			if k.Domain != res.Kernel.Domain || len(k.Fields) != len(res.Kernel.Fields) {
				t.Fatalf("the spec loads as another kernel")
			}
			return
		}
		var ie *importer.Error
		if !errors.As(err, &ie) {
			t.Fatalf("error %T is not an *importer.Error: %v", err, err)
		}
		if msg := err.Error(); strings.Contains(msg, "\n") || !strings.HasPrefix(msg, "fuzz.c") {
			t.Fatalf("not one line naming the file: %q", msg)
		}
	})
}
