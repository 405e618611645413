package supervise

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// testMemory is the memory limit of the test workers.
const testMemory = 128 << 20

// The jobs of the tests: each ends a worker in one way, or answers.
func init() {
	Register("echo", func(_ context.Context, req []byte, progress func([]byte)) ([]byte, error) {
		for i := range 3 {
			progress([]byte(strconv.Itoa(i)))
		}
		if string(req) == "fail" {
			return nil, errors.New("the job failed")
		}
		return append([]byte("echo "), req...), nil
	})
	Register("pid", func(_ context.Context, _ []byte, progress func([]byte)) ([]byte, error) {
		progress([]byte(strconv.Itoa(os.Getpid())))
		if os.Getenv(modeEnv) != "" {
			time.Sleep(time.Minute)
		}
		return []byte(strconv.Itoa(os.Getpid())), nil
	})
	Register("fault", func(context.Context, []byte, func([]byte)) ([]byte, error) {
		_ = syscall.Kill(os.Getpid(), syscall.SIGFPE)
		time.Sleep(time.Minute)
		return nil, nil
	})
	Register("allocate", func(context.Context, []byte, func([]byte)) ([]byte, error) {
		var keep [][]byte
		for {
			b := make([]byte, 8<<20)
			for i := range b {
				b[i] = 1
			}
			keep = append(keep, b)
			if len(keep) > 1<<20 {
				return keep[0], nil
			}
		}
	})
	Register("spin", func(context.Context, []byte, func([]byte)) ([]byte, error) {
		for x := 0; ; x++ {
			if x < 0 {
				return nil, nil
			}
		}
	})
	Register("sleep", func(_ context.Context, _ []byte, progress func([]byte)) ([]byte, error) {
		progress([]byte(strconv.Itoa(os.Getpid())))
		time.Sleep(time.Minute)
		return nil, nil
	})
}

// enableWorkers runs the test's jobs in workers of the test binary.
func enableWorkers(t *testing.T) {
	t.Helper()
	if !EnableWorkers() {
		t.Fatal("workers could not be enabled")
	}
	t.Cleanup(DisableWorkers)
}

// TestJobAnswers runs a job in a worker: its progress in order and its
// answer arrive, its error comes back as a JobError, and the next job
// reuses the same worker process.
func TestJobAnswers(t *testing.T) {
	enableWorkers(t)
	var progress []string
	answer, err := Run(context.Background(), "echo", Limits{Memory: testMemory}, []byte("hello"), func(p []byte) { progress = append(progress, string(p)) })
	if err != nil || string(answer) != "echo hello" || strings.Join(progress, ",") != "0,1,2" {
		t.Fatalf("answer %q, progress %q, error %v; want \"echo hello\", 0,1,2", answer, progress, err)
	}
	_, err = Run(context.Background(), "echo", Limits{Memory: testMemory}, []byte("fail"), nil)
	var je *JobError
	if !errors.As(err, &je) || je.Msg != "the job failed" {
		t.Fatalf("error %v (%T), want the job's error as a JobError", err, err)
	}
	first, err := Run(context.Background(), "pid", Limits{Memory: testMemory}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	second, err := Run(context.Background(), "pid", Limits{Memory: testMemory}, nil, nil)
	if err != nil || string(first) != string(second) || string(first) == strconv.Itoa(os.Getpid()) {
		t.Fatalf("workers %s and %s (error %v), test process %d: want one reused worker process", first, second, err, os.Getpid())
	}
}

// TestWorkerEnds ends a worker in every way a job can and checks the one
// error each gives, and that the next job is answered by a new worker.
func TestWorkerEnds(t *testing.T) {
	enableWorkers(t)
	for _, tc := range []struct {
		job    string
		limits Limits
		want   string
	}{
		{"fault", Limits{Memory: testMemory}, "the worker process crashed: SIGFPE: floating-point exception"},
		{"allocate", Limits{Memory: testMemory}, "the work passed its memory limit of 128 MB"},
		{"spin", Limits{Memory: testMemory, Processor: time.Second}, "the work passed its processor time limit of 1s"},
		{"sleep", Limits{Memory: testMemory, Wall: 200 * time.Millisecond}, "the work passed its time limit of 200ms"},
	} {
		_, err := Run(context.Background(), tc.job, tc.limits, nil, nil)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: error %v, want %q", tc.job, err, tc.want)
		}
		var le *LimitError
		var ce *CrashError
		if errors.As(err, &le) == (tc.job == "fault") || errors.As(err, &ce) != (tc.job == "fault") {
			t.Errorf("%s: error of type %T", tc.job, err)
		}
		if answer, err := Run(context.Background(), "echo", Limits{Memory: testMemory}, []byte("next"), nil); err != nil || string(answer) != "echo next" {
			t.Errorf("after %s: answer %q, error %v", tc.job, answer, err)
		}
	}
}

// TestCancelKillsTheWorker cancels a job mid-run: Run returns the cause at
// once and the worker process is gone.
func TestCancelKillsTheWorker(t *testing.T) {
	enableWorkers(t)
	ctx, cancel := context.WithCancelCause(context.Background())
	pids := make(chan int, 1)
	done := make(chan error, 1)
	go func() {
		_, err := Run(ctx, "sleep", Limits{Memory: testMemory}, nil, func(p []byte) {
			pid, _ := strconv.Atoi(string(p))
			pids <- pid
		})
		done <- err
	}()
	pid := <-pids
	cause := errors.New("the client left")
	cancel(cause)
	if err := <-done; !errors.Is(err, cause) {
		t.Fatalf("error %v, want the context's cause", err)
	}
	if processExists(pid) {
		t.Errorf("worker %d still runs after its job was cancelled", pid)
	}
}

// TestWorkersDieWithTheirParent kills a program that runs a job in a
// worker, and the supervised child of a program, with SIGKILL, which
// leaves them no time to clean up: the worker and the child end too.
func TestWorkersDieWithTheirParent(t *testing.T) {
	for _, mode := range []string{"start a worker and wait", "print pid and wait"} {
		cmd, _, _ := supervised(t, mode)
		cmd.Stdout = nil
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := bufio.NewScanner(out)
		if !lines.Scan() {
			t.Fatalf("%s: no pid printed", mode)
		}
		pid, err := strconv.Atoi(lines.Text())
		if err != nil || pid == cmd.Process.Pid {
			t.Fatalf("%s: printed %q, want the pid of a process below %d", mode, lines.Text(), cmd.Process.Pid)
		}
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if processExists(pid) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Errorf("%s: process %d outlived its parent", mode, pid)
		}
	}
}

// processExists reports whether pid runs (or is a zombie not yet reaped)
// within a few seconds of being killed: it waits for the process to go.
func processExists(pid int) bool {
	for range 300 {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return false
		}
		f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(f) > 0 && f[0] == "Z" {
			return false // dead; its parent has not reaped it yet
		}
		time.Sleep(10 * time.Millisecond)
	}
	return true
}
