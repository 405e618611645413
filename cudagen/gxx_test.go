//go:build gxx

package cudagen

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
)

// launchSyntax matches a kernel launch configuration, which g++ cannot parse.
var launchSyntax = regexp.MustCompile(`<<<[^>]*>>>`)

// TestGxxSyntax compiles every golden program with g++ -fsyntax-only against
// the stub header testdata/cudastub/cuda_runtime.h, after removing the
// <<<grid, block>>> launch configurations. It checks the C++ of the host and
// device code without the CUDA toolkit: go test -tags gxx ./cudagen
func TestGxxSyntax(t *testing.T) {
	gxx, err := exec.LookPath("g++")
	if err != nil {
		t.Fatal("g++ not found: install it (scripts/deps.sh test does) or run without -tags gxx")
	}
	files, err := filepath.Glob(filepath.Join("testdata", "golden", "*.cu"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	dir := t.TempDir()
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		cpp := filepath.Join(dir, filepath.Base(f)+".cpp")
		if err := os.WriteFile(cpp, launchSyntax.ReplaceAll(src, nil), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(gxx, "-std=c++17", "-fsyntax-only", "-Wall", "-Wextra", "-Werror",
			"-Itestdata/cudastub", cpp).CombinedOutput()
		if err != nil {
			t.Errorf("%s: g++ %v\n%s", f, err, out)
		}
	}
}
