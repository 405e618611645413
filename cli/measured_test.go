package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sampleDir returns a directory holding only the synthetic sample of the
// measured package.
func sampleDir(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "measured", "testdata", "sample-synthetic.csv"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "sample-synthetic.csv"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestMeasuredReport(t *testing.T) {
	dir := sampleDir(t)
	code, out, errOut := runCudaCLI("measured", dir, "--device", "H100-SXM")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"# Predicted against measured volumes on H100-SXM",
		"## sample-synthetic (4 configurations)",
		"runtime: none",
		// vec-copy streams 8 B/Lup from L2, which the sample measures exactly.
		"| L2→L1 load (B/Lup) | L2LoadV2 | reference | 4 | 0.0 | – |",
		// The fourth row lacks the wavefront counter.
		"| L1 wavefronts (per 32 Lup) | 32·L1DataPipeCycles | exact | 3 |",
		"| GLup/s | exact | 4 |",
		"| GLup/s | reference | 4 |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	// Every performance line names a configuration of the sample and its
	// measured GLup/s, rank among 4 and fraction of the best (131.072).
	measuredGLups := map[string]string{"256,1,1": "131.07 | 1 of 4 | 100.0 %", "128,1,1": "100.00 | 3 of 4 | 76.3 %",
		"1024,1,1": "120.00 | 2 of 4 | 91.6 %", "64,1,1": "90.00 | 4 of 4 | 68.7 %"}
	for _, line := range strings.Split(out, "\n") {
		if !strings.HasPrefix(line, "| GLup/s |") {
			continue
		}
		found := false
		for block, tail := range measuredGLups {
			if strings.Contains(line, "block "+block+" ") && strings.HasSuffix(line, tail+" |") {
				found = true
			}
		}
		if !found {
			t.Errorf("performance line does not match its measured configuration: %s", line)
		}
	}

	path := filepath.Join(t.TempDir(), "accuracy.md")
	code, _, errOut = runCudaCLI("measured", dir, "--methods", "exact", "-o", path)
	if code != ExitOK {
		t.Fatalf("-o: exit %d: %s", code, errOut)
	}
	data, err := os.ReadFile(path)
	if err != nil || strings.Contains(string(data), "| reference |") || !strings.Contains(string(data), "| exact |") {
		t.Errorf("-o %s with --methods exact: %v\n%s", path, err, data)
	}
}

func TestMeasuredErrors(t *testing.T) {
	empty := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"measured", empty}, "no measurements in " + empty},
		{[]string{"measured", filepath.Join(empty, "missing")}, "no measurements in " + filepath.Join(empty, "missing")},
		{[]string{"measured"}, "one DIR"},
		{[]string{"measured", sampleDir(t), "--methods", "guess"}, "--methods"},
		{[]string{"measured", sampleDir(t), "--device", "no-such-gpu"}, "no-such-gpu"},
	} {
		code, out, errOut := runCudaCLI(tc.args...)
		if code != ExitUsage || out != "" || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit %d and %q", tc.args, code, out, errOut, ExitUsage, tc.want)
		}
	}
}

// TestMeasuredRowErrorsFirst checks that a row that cannot be estimated, in
// any file of the folder, is refused with one error line naming its file
// and line before any estimate or progress is printed, and that a folder
// of good rows prints no progress on a writer that is not a terminal.
func TestMeasuredRowErrorsFirst(t *testing.T) {
	head := "kernel,block_x,block_y,block_z,fold_x,fold_y,fold_z,domain_x,domain_y,domain_z,lups,reps,time_ms,glups\n"
	good := "vec-copy,256,1,1,1,1,1,1024,1,1,1024,10,0.5,2.0\n"
	for _, tc := range []struct {
		name, a, b, want string
	}{
		{"good", good, good, ""},
		{"bad block in the second file", good, good + "vec-copy,2048,1,1,1,1,1,1024,1,1,1024,10,0.5,2.0\n", "b.csv:3: block x = 2048"},
		{"missing kernel after good rows", good + good + "no-such-kernel,256,1,1,1,1,1,1024,1,1,1024,10,0.5,2.0\n", good, `a.csv:4: spec "no-such-kernel"`},
		{"huge domain", good, "vec-copy,256,1,1,1,1,1,1000000000000000000,1,1,1000000000000000000,10,0.5,2.0\n", "b.csv:2: domain 1000000000000000000×1×1 has more than 2^50 points"},
	} {
		dir := t.TempDir()
		for name, rows := range map[string]string{"a.csv": tc.a, "b.csv": tc.b} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(head+rows), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		code, out, errOut := runCudaCLI("measured", dir, "--device", "H100-SXM")
		if tc.want == "" {
			if code != ExitOK || errOut != "" || !strings.Contains(out, "## b (1 configurations)") {
				t.Errorf("%s: exit %d, stderr %q, stdout %.200q; want exit 0, a report and nothing on stderr", tc.name, code, errOut, out)
			}
			continue
		}
		want := "polyvol: " + filepath.Join(dir, tc.want)
		if code != ExitUsage || out != "" || !strings.HasPrefix(errOut, want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 2 and one line starting %q", tc.name, code, out, errOut, want)
		}
	}
}

// TestMeasuredHardwareMissing checks that --hardware on a folder without the
// published files is a usage error naming them.
func TestMeasuredHardwareMissing(t *testing.T) {
	out, errOut, code := run(t, "measured", "--hardware", t.TempDir())
	if code != ExitUsage || out != "" || !strings.Contains(errOut, "v100_star3d_r2_600x600x512_blocks_zfold.csv") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	// With the first file only, the missing second one is the only line:
	// no progress of the first file comes before it.
	dir := t.TempDir()
	data, err := os.ReadFile(filepath.Join("..", "testdata", "measured", "v100_star3d_r2_600x600x512_blocks_zfold.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "v100_star3d_r2_600x600x512_blocks_zfold.csv"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code = run(t, "measured", "--hardware", dir)
	if code != ExitUsage || out != "" || !strings.HasPrefix(errOut, "polyvol: --hardware: ") || !strings.Contains(errOut, "v100_box2d_block32x8_range_scan.csv: no such file") || strings.Count(errOut, "\n") != 1 {
		t.Errorf("first file only: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// TestMeasuredHotspotWithCompiled checks that --hotspot,
// --compiled-convolution and --compiled-hotspot, which each write one
// section of the hardware report, are refused together with a usage error
// naming two of the flags, and that a compiled report's sample is every
// N-th configuration for N ≥ 1 only.
func TestMeasuredHotspotWithCompiled(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--hotspot", "--compiled-convolution", "8"}, "polyvol: --hotspot and --compiled-convolution each write one section"},
		{[]string{"--compiled-convolution", "8", "--compiled-hotspot", "4"}, "polyvol: --compiled-convolution and --compiled-hotspot each write one section"},
		{[]string{"--compiled-hotspot", "0"}, "polyvol: --compiled-hotspot 0: expected every N-th configuration"},
		{[]string{"--compiled-convolution", "-1"}, "polyvol: --compiled-convolution -1: expected every N-th configuration"},
	} {
		out, errOut, code := run(t, append([]string{"measured", "--hardware", filepath.Join("..", "testdata", "measured")}, tc.args...)...)
		if code != ExitUsage || out != "" || !strings.HasPrefix(errOut, tc.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", tc.args, code, out, errOut)
		}
	}
}
