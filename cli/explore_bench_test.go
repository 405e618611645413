package cli

import (
	"bytes"
	"testing"
)

// BenchmarkExplore runs the paper's reference sweep through the command
// line: all 168 configurations of star3d-r4 (640×512×512, 1024 threads, 3
// folds, thread folding only) on A100-40GB with 2 workers, for each method. One iteration is one
// whole exploration; compare ns/op between the methods of one run.
func BenchmarkExplore(b *testing.B) {
	for _, method := range []string{"exact", "reference"} {
		b.Run(method, func(b *testing.B) {
			args := []string{"polyvol", "explore", "star3d-r4", "--device", "A100-40GB", "--method", method, "--workers", "2", "--tiles", "consecutive", "--format", "csv"}
			for b.Loop() {
				var out, errOut bytes.Buffer
				if code := Run(args, &out, &errOut); code != ExitOK {
					b.Fatalf("exit %d: %s", code, errOut.String())
				}
			}
		})
	}
}
