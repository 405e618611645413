package supervise

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/signal"
	"sync"
	"syscall"
	"testing"
	"time"
)

// modeEnv, set, makes the test binary a supervised program (TestMain) that
// behaves as its value says, as the parent and again as the child.
const modeEnv = "SUPERVISE_TEST_MODE"

func TestMain(m *testing.M) {
	if mode := os.Getenv(modeEnv); mode != "" {
		os.Exit(Main("polyvol: ", func() int { return behave(mode) }))
	}
	os.Exit(MainTests(m))
}

// behave is the supervised command of each mode.
func behave(mode string) int {
	switch mode {
	case "ok":
		fmt.Println("result")
		fmt.Fprint(os.Stderr, "\rprogress 1/2\rprogress 2/2\rpolyvol: a note\nSIGNAL is no crash\n")
		return 0
	case "usage":
		fmt.Fprintln(os.Stderr, "polyvol: spec.yaml:3:9: bad")
		return 2
	case "panic in a goroutine":
		fmt.Println("partial")
		go func() { panic("boom") }()
		time.Sleep(time.Minute)
	case "fatal signal":
		_ = syscall.Kill(os.Getpid(), syscall.SIGFPE)
		time.Sleep(time.Minute)
	case "runtime fatal error":
		var mu sync.Mutex
		mu.Unlock()
	case "print pid and wait":
		fmt.Println(os.Getpid())
		time.Sleep(time.Minute)
	case "start a worker and wait":
		EnableWorkers()
		_, _ = Run(context.Background(), "pid", Limits{Memory: testMemory}, nil, func(pid []byte) { fmt.Println(string(pid)) })
	case "killed":
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		time.Sleep(time.Minute)
	case "terminated":
		got := make(chan os.Signal, 1)
		signal.Notify(got, syscall.SIGTERM)
		fmt.Println("ready")
		fmt.Println("got", <-got)
		return 0
	}
	return 3
}

// supervised starts the test binary as a supervised program of mode.
func supervised(t *testing.T, mode string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), modeEnv+"="+mode)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	return cmd, &stdout, &stderr
}

// TestCrashesBecomeOneLine runs a supervised program that ends in each way
// and checks its exit status and its whole standard error: one line for a
// crash, no dump; the child's own output untouched otherwise.
func TestCrashesBecomeOneLine(t *testing.T) {
	for _, tc := range []struct {
		mode, stdout, stderr string
		status               int
	}{
		{"ok", "result\n", "\rprogress 1/2\rprogress 2/2\rpolyvol: a note\nSIGNAL is no crash\n", 0},
		{"usage", "", "polyvol: spec.yaml:3:9: bad\n", 2},
		{"panic in a goroutine", "partial\n", "polyvol: internal error: panic: boom\n", 1},
		{"fatal signal", "", "polyvol: internal error: SIGFPE: floating-point exception\n", 1},
		{"runtime fatal error", "", "polyvol: internal error: fatal error: sync: unlock of unlocked mutex\n", 1},
		{"killed", "", "polyvol: internal error: killed by signal 9 (killed)\n", 1},
	} {
		cmd, stdout, stderr := supervised(t, tc.mode)
		err := cmd.Run()
		status := 0
		if exit, ok := err.(*exec.ExitError); ok {
			status = exit.ExitCode()
		} else if err != nil {
			t.Fatalf("%s: %v", tc.mode, err)
		}
		if status != tc.status || stdout.String() != tc.stdout || stderr.String() != tc.stderr {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want %d, %q, %q", tc.mode, status, stdout, stderr, tc.status, tc.stdout, tc.stderr)
		}
	}
}

// TestTerminateReachesTheChild sends SIGTERM to the parent, as a service
// manager does, and checks that the command receives it and ends normally.
func TestTerminateReachesTheChild(t *testing.T) {
	cmd, _, stderr := supervised(t, "terminated")
	cmd.Stdout = nil
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(out)
	if !lines.Scan() || lines.Text() != "ready" {
		t.Fatalf("first line %q, want ready", lines.Text())
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	rest := ""
	for lines.Scan() {
		rest += lines.Text() + "\n"
	}
	if err := cmd.Wait(); err != nil || rest != "got terminated\n" || stderr.Len() != 0 {
		t.Errorf("after SIGTERM: %v, stdout %q, stderr %q; want exit 0 and \"got terminated\"", err, rest, stderr)
	}
}

// TestFilterChunking writes standard error texts to the filter in random
// pieces: without a crash every byte comes through, in order; with one,
// what precedes the crash's first line does, and crash returns that line.
func TestFilterChunking(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct{ text, relayed, crash string }{
		{"polyvol: note\n\rbar 1\rbar 2\rdone\n", "polyvol: note\n\rbar 1\rbar 2\rdone\n", ""},
		{"SIGNAL: no\nSIG\nrun\npanic\nfatal error\nruntime\n", "SIGNAL: no\nSIG\nrun\npanic\nfatal error\nruntime\n", ""},
		{"polyvol: note\npanic: boom\n\ngoroutine 1 [running]:\nmain.main()\n", "polyvol: note\n", "panic: boom"},
		{"\rbar 3\rSIGSEGV: segmentation violation\nPC=0x0 m=0\n", "\rbar 3\r", "SIGSEGV: segmentation violation"},
		{"runtime: out of memory: cannot allocate\nfatal error: out of memory\n", "", "runtime: out of memory: cannot allocate"},
		{"partial line then fatal error: no\n", "partial line then fatal error: no\n", ""},
		{"unterminated", "unterminated", ""},
		{"panic: unterminated", "", "panic: unterminated"},
	} {
		for range 50 {
			var out bytes.Buffer
			f := newCrashFilter(&out)
			for rest := tc.text; rest != ""; {
				k := 1 + rng.IntN(len(rest))
				if _, err := f.Write([]byte(rest[:k])); err != nil {
					t.Fatal(err)
				}
				rest = rest[k:]
			}
			if crash := f.crash(); crash != tc.crash || out.String() != tc.relayed {
				t.Fatalf("%q: relayed %q, crash %q; want %q, %q", tc.text, out.String(), crash, tc.relayed, tc.crash)
			}
		}
	}
}
