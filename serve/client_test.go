package serve_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/polyvol/polyvol/serve"
)

// pythonClient is the example client the test runs against a live server.
const pythonClient = "../examples/clients/python/rank_blocks.py"

// TestPythonClient runs the urllib client against a live server: it must
// list every block shape of 256 threads with x >= 32 (enumerated by hand
// below) ranked by GLup/s, each with the GLup/s and limiter of polyvol
// predict, report a spec error with its line, and refuse to run without
// the API token.
func TestPythonClient(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Fatalf("python3 is needed to run %s: %v", pythonClient, err)
	}
	srv := newServer(t, serve.Config{})
	out, err := exec.Command(python, pythonClient, "--url", srv.URL, "--token", testToken, "--example", "star3d-r4", "--device", "A100-40GB", "--threads", "256").CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", pythonClient, err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) == 0 || !strings.HasPrefix(strings.TrimSpace(lines[0]), "rank") {
		t.Fatalf("no header line:\n%s", out)
	}
	var blocks []string
	previous := -1.0
	for i, line := range lines[1:] {
		f := strings.Fields(line)
		if len(f) != 4 || f[0] != strconv.Itoa(i+1) {
			t.Fatalf("line %q: want rank, block, GLup/s, limiter", line)
		}
		glups, err := strconv.ParseFloat(f[2], 64)
		if err != nil {
			t.Fatal(err)
		}
		if previous >= 0 && glups > previous {
			t.Errorf("rank %s has %s GLup/s, more than the rank above", f[0], f[2])
		}
		previous = glups
		var report struct {
			Prediction struct {
				GLups   float64
				Limiter string
			}
		}
		if err := json.Unmarshal(cliJSON(t, "", "predict", "star3d-r4", "--device", "A100-40GB", "--block", f[1], "--format", "json"), &report); err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("%.2f", report.Prediction.GLups); f[2] != want || f[3] != report.Prediction.Limiter {
			t.Errorf("block %s: client prints %s GLup/s limited by %s, polyvol predict %s limited by %s", f[1], f[2], f[3], want, report.Prediction.Limiter)
		}
		blocks = append(blocks, f[1])
	}
	want := []string{"32,1,8", "32,2,4", "32,4,2", "32,8,1", "64,1,4", "64,2,2", "64,4,1", "128,1,2", "128,2,1", "256,1,1"}
	slices.Sort(blocks)
	slices.Sort(want)
	if !slices.Equal(blocks, want) {
		t.Errorf("client ranked blocks %v, want %v", blocks, want)
	}

	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte(badElementSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(python, pythonClient, "--url", srv.URL, "--spec", bad, "--threads", "32")
	cmd.Env = append(os.Environ(), "POLYVOL_API_TOKEN="+testToken) // the token from the environment
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err == nil || cmd.ProcessState.ExitCode() != 2 {
		t.Errorf("client with a bad spec: %v, want exit status 2", err)
	}
	if msg := stderr.String(); !strings.Contains(msg, "(spec line 5, column 14)") || !strings.Contains(msg, "element = 3") || strings.Contains(msg, "<stdin>") {
		t.Errorf("client error %q does not locate the bad element at line 5, column 14", msg)
	}

	for _, token := range []string{"", "wrong-token-0123456789"} {
		cmd := exec.Command(python, pythonClient, "--url", srv.URL, "--threads", "32", "--token", token)
		cmd.Env = append(os.Environ(), "POLYVOL_API_TOKEN=")
		stderr.Reset()
		cmd.Stderr = &stderr
		if err := cmd.Run(); err == nil || cmd.ProcessState.ExitCode() != 2 || !strings.Contains(stderr.String(), "token") {
			t.Errorf("client with token %q: %v, %q; want exit status 2 naming the token", token, err, stderr.String())
		}
	}
}
