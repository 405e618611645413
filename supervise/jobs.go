package supervise

import (
	"context"
	"encoding/gob"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/polyvol/polyvol/procmem"
)

// memoryPoll is how often a worker compares its resident memory with its
// limit.
const memoryPoll = 5 * time.Millisecond

// IsWorker reports whether this process was started as a worker, to serve
// jobs (ServeJobs) instead of doing what its command line says.
func IsWorker() bool { return os.Getenv(workerEnv) != "" }

// ServeJobs serves jobs on standard input and output until the input ends
// (the parent is done, or gone) and returns the exit status. It first puts
// the worker under its limits: the resident memory its environment names,
// polled, and an address space of a few times that beyond what the
// process holds at the start, so that one huge allocation fails at once;
// each job sets its processor-time limit. A worker that passes a limit
// exits with a status that names it.
func ServeJobs() int {
	memory, err := strconv.ParseInt(os.Getenv(workerEnv), 10, 64)
	if err != nil || memory <= 0 {
		fmt.Fprintf(os.Stderr, "supervise: %s=%q: expected the worker's memory limit in bytes\n", workerEnv, os.Getenv(workerEnv))
		return 2
	}
	debug.SetMemoryLimit(memory / 2)
	limitAddressSpace(memory)
	go watchMemory(memory)
	overrun := make(chan os.Signal, 1)
	signal.Notify(overrun, syscall.SIGXCPU)
	go func() {
		<-overrun
		os.Exit(exitProcessor)
	}()

	// Standard output carries the frames: whatever else the jobs print
	// goes to standard error, which the parent keeps for a crash's reason.
	out := os.Stdout
	os.Stdout = os.Stderr
	var mu sync.Mutex
	enc := gob.NewEncoder(out)
	send := func(m message) {
		mu.Lock()
		defer mu.Unlock()
		if enc.Encode(m) != nil {
			os.Exit(0) // the parent is gone
		}
	}
	dec := gob.NewDecoder(os.Stdin)
	for {
		var m message
		if dec.Decode(&m) != nil {
			return 0
		}
		job, ok := lookup(m.Job)
		if !ok {
			send(message{Kind: 'E', Data: []byte(fmt.Sprintf("supervise: no job %q in the worker", m.Job))})
			continue
		}
		limitProcessor(m.Processor)
		answer, err := job(context.Background(), m.Data, func(p []byte) { send(message{Kind: 'P', Data: p}) })
		if err != nil {
			send(message{Kind: 'E', Data: []byte(err.Error())})
			continue
		}
		send(message{Kind: 'A', Data: answer})
	}
}

// watchMemory ends the worker when its resident memory passes limit.
func watchMemory(limit int64) {
	for range time.Tick(memoryPoll) {
		if rss, ok := procmem.Resident(); ok && rss > limit {
			fmt.Fprintf(os.Stderr, "supervise: resident memory %d MB passed the limit of %d MB\n", rss>>20, limit>>20)
			os.Exit(exitMemory)
		}
	}
}

// limitAddressSpace bounds the worker's address space to what it holds
// now (the Go runtime reserves much it never touches) plus a few times
// its memory limit.
func limitAddressSpace(memory int64) {
	held, ok := procmem.AddressSpace()
	if !ok {
		return
	}
	limit := uint64(held + 2*memory + 256<<20)
	_ = syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: limit, Max: limit})
}

// limitProcessor sets the worker's processor-time limit to what it has
// used so far plus d (none for 0): the kernel signals SIGXCPU past it.
func limitProcessor(d time.Duration) {
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_CPU, &lim) != nil {
		return
	}
	lim.Cur = lim.Max
	if d > 0 {
		var ru syscall.Rusage
		if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
			return
		}
		used := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		if secs := uint64((used + d + time.Second - 1) / time.Second); secs < lim.Max {
			lim.Cur = secs
		}
	}
	_ = syscall.Setrlimit(syscall.RLIMIT_CPU, &lim)
}

// MainTests is the TestMain of a test binary whose tests run jobs in
// workers: it serves jobs when the binary was started as a worker, and
// otherwise runs the tests, returning the exit status:
//
//	func TestMain(m *testing.M) { os.Exit(supervise.MainTests(m)) }
func MainTests(m interface{ Run() int }) int {
	if IsWorker() {
		return ServeJobs()
	}
	return m.Run()
}
