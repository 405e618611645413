// Package supervise runs the polyvol command in a child process and turns
// a crash of the child into one line of error, and runs untrusted work in
// worker processes under operating-system limits (Run). A Go program cannot recover
// from everything in-process: an unrecovered panic in another goroutine, a
// fatal error of the runtime (out of memory, a deadlock), and a fatal
// signal in C code (libisl) all end the process with a dump of every
// goroutine. The parent relays the child's standard error until such a dump
// begins, then prints "<prefix>internal error: <the dump's first line>"
// instead and exits with ExitInternal. Standard input and output are the
// child's own, so output streams and terminals behave as without the
// parent.
package supervise

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"golang.org/x/term"
)

// ExitInternal is the exit status of a crash: the program's fault, never
// the user's (whose errors exit with 2, as Go's crashes also do).
const ExitInternal = 1

// childEnv marks the child's environment: its value "1" runs the command
// itself; terminalEnv, "1" when the parent's standard error is a terminal,
// tells the child so (its own is a pipe to the parent).
const (
	childEnv    = "POLYVOL_SUPERVISED"
	terminalEnv = "POLYVOL_STDERR_TERMINAL"
)

// Main runs command in a supervised child process and returns the exit
// status to exit with. In the child, or where no child can be started, it
// runs command directly, with workers enabled (EnableWorkers); in a worker
// it serves jobs (ServeJobs). The child dies with the parent. prefix
// starts the line of a crash, e.g. "polyvol: ".
func Main(prefix string, command func() int) int {
	if IsWorker() {
		return ServeJobs()
	}
	if os.Getenv(childEnv) == "1" {
		EnableWorkers()
		return command()
	}
	exe, err := os.Executable()
	if err != nil {
		EnableWorkers()
		return command()
	}
	status, err := runChild(exe, os.Args, prefix)
	if err != nil {
		EnableWorkers()
		return command()
	}
	return status
}

// IsTerminal reports whether f is a terminal, counting the standard error
// of a supervised child as one where the parent's is.
func IsTerminal(f *os.File) bool {
	if f == os.Stderr && os.Getenv(childEnv) == "1" {
		return os.Getenv(terminalEnv) == "1"
	}
	return term.IsTerminal(int(f.Fd()))
}

// runChild runs exe with args (args[0] included) as the child and returns
// its exit status; an error means the child could not be started.
func runChild(exe string, args []string, prefix string) (int, error) {
	cmd := exec.Command(exe)
	cmd.Args = args
	cmd.Env = append(os.Environ(), childEnv+"=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if term.IsTerminal(int(os.Stderr.Fd())) {
		cmd.Env = append(cmd.Env, terminalEnv+"=1")
	}
	cmd.Stdin, cmd.Stdout = os.Stdin, os.Stdout
	filter := newCrashFilter(os.Stderr)
	cmd.Stderr = filter

	// A terminal sends SIGINT, SIGQUIT and SIGHUP to its whole foreground
	// process group, the child included: the parent only keeps them from
	// ending itself. SIGTERM, which a terminal never sends, is meant for
	// the command and goes to the child.
	terminal := make(chan os.Signal, 1)
	signal.Notify(terminal, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGHUP)
	terminate := make(chan os.Signal, 1)
	signal.Notify(terminate, syscall.SIGTERM)
	defer signal.Stop(terminal)
	defer signal.Stop(terminate)

	if err := cmd.Start(); err != nil {
		return 0, err
	}
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-terminal:
			case s := <-terminate:
				_ = cmd.Process.Signal(s)
			case <-done:
				return
			}
		}
	}()
	err := cmd.Wait()
	close(done)
	return outcome(err, filter, prefix), nil
}

// outcome turns the child's end (the error of Wait) into the parent's exit
// status, printing the line of a crash.
func outcome(waitErr error, filter *crashFilter, prefix string) int {
	var exit *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &exit) {
		fmt.Fprintf(os.Stderr, "%sinternal error: %v\n", prefix, waitErr)
		return ExitInternal
	}
	if crash := filter.crash(); crash != "" {
		fmt.Fprintf(os.Stderr, "%sinternal error: %s\n", prefix, crash)
		return ExitInternal
	}
	if exit == nil {
		return 0
	}
	ws, ok := exit.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		return exit.ExitCode()
	}
	switch sig := ws.Signal(); sig {
	case syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGPIPE:
		// The child ended as asked, or as a closed pipe ends a writer:
		// end the same way, so that the shell sees the signal.
		signal.Reset(sig)
		_ = syscall.Kill(os.Getpid(), sig)
		return 128 + int(sig)
	default:
		fmt.Fprintf(os.Stderr, "%sinternal error: killed by signal %d (%v)\n", prefix, int(sig), sig)
		return ExitInternal
	}
}

// crashHeads start the first line of a Go crash dump: an unrecovered panic,
// a fatal error of the runtime (which may follow a line of the runtime's
// own, as "runtime: out of memory" does), or a fatal signal, which the
// runtime names as in "SIGFPE: floating-point exception".
var crashHeads = [][]byte{[]byte("panic: "), []byte("fatal error: "), []byte("runtime: "),
	[]byte("SIGABRT: "), []byte("SIGBUS: "), []byte("SIGEMT: "), []byte("SIGFPE: "), []byte("SIGILL: "),
	[]byte("SIGQUIT: "), []byte("SIGSEGV: "), []byte("SIGSTKFLT: "), []byte("SIGSYS: "), []byte("SIGTRAP: ")}

// crashFilter relays what the child writes to standard error to dst, line
// by line, until a line starts a crash dump; it keeps that line and drops
// the rest. A line ends at "\n" or "\r" (progress bars redraw with "\r");
// an unfinished line is relayed at once unless it may become a crash's
// first line.
type crashFilter struct {
	dst     io.Writer
	pending []byte // the unfinished line held back
	midLine bool   // part of the current line was relayed: it starts no crash
	first   []byte // the crash's first line, once one started
}

func newCrashFilter(dst io.Writer) *crashFilter { return &crashFilter{dst: dst} }

// Write relays p, holding back what may start a crash dump.
func (f *crashFilter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 && f.first == nil {
		end := bytes.IndexAny(p, "\n\r")
		if end < 0 {
			f.pending = append(f.pending, p...)
			if f.midLine || !mayStartCrash(f.pending) {
				f.flush()
				f.midLine = true
			}
			return n, nil
		}
		line := append(f.pending, p[:end+1]...)
		p = p[end+1:]
		if !f.midLine && startsCrash(line) {
			f.first = bytes.TrimRight(line, "\r\n")
			f.pending = nil
			break
		}
		f.pending = line
		f.flush()
		f.midLine = false
	}
	return n, nil
}

// flush relays the held-back text.
func (f *crashFilter) flush() {
	if len(f.pending) > 0 {
		_, _ = f.dst.Write(f.pending)
		f.pending = f.pending[:0]
	}
}

// crash returns the first line of the crash dump the child wrote, or "".
// A line held back that turned out to be none is relayed now.
func (f *crashFilter) crash() string {
	if f.first == nil && !f.midLine && startsCrash(f.pending) {
		f.first = f.pending
	}
	if f.first == nil {
		f.flush()
		return ""
	}
	return string(f.first)
}

// startsCrash reports whether line is the first line of a crash dump.
func startsCrash(line []byte) bool {
	for _, h := range crashHeads {
		if bytes.HasPrefix(line, h) {
			return true
		}
	}
	return false
}

// mayStartCrash reports whether the unfinished line b could still become a
// crash's first line.
func mayStartCrash(b []byte) bool {
	for _, h := range crashHeads {
		if bytes.HasPrefix(b, h) || bytes.HasPrefix(h, b) {
			return true
		}
	}
	return false
}
