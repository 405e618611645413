package serve

// The estimate slots: how many estimates run at once, which requests wait
// for them, and when a refused request may find them (Retry-After).

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"
)

// claim is what a request's work holds while it runs.
type claim int

const (
	// single is one slot: predict and simulate.
	single claim = iota
	// parallel is slots.parallel slots: explore and layercond, which
	// estimate that many configurations at once.
	parallel
)

// slots limits the estimates that run at once, and the requests that wait
// for them. A single claim takes one slot. A parallel claim takes every slot
// but one (the only one where there is one), and one parallel claim at a
// time takes or holds slots: so a single estimate never waits behind
// parallel work, however long that runs, and two parallel claims never
// hold part of the slots each and wait for each other. A single claim that
// finds a slot free takes it without waiting; the other requests wait, at
// most maxWaiting at once.
type slots struct {
	n, parallel int
	tokens      chan struct{} // one per free slot
	heavy       chan struct{} // full while a parallel claim takes or holds slots
	maxWaiting  int
	// maxRetry bounds the Retry-After estimate: it is the request time
	// budget, which bounds both a request's wait and its work.
	maxRetry time.Duration

	mu      sync.Mutex
	queue   []*queued          // the waiting requests, first come first
	running map[*hold]struct{} // the claims holding their slots
	// avg is a moving average of how long the recent work of each claim
	// ran, initialRun before any has run.
	avg [2]time.Duration
	ran [2]bool
}

// queued is a request waiting for the slots of its claim.
type queued struct{ c claim }

// hold is a claim holding its slots, taken at start.
type hold struct {
	s     *slots
	c     claim
	start time.Time
}

// initialRun is the run time assumed for a claim before any work of it has
// run.
const initialRun = time.Second

// newSlots returns n free slots for at most maxWaiting waiting requests,
// whose Retry-After estimate is at most maxRetry.
func newSlots(n, maxWaiting int, maxRetry time.Duration) *slots {
	s := &slots{n: n, parallel: max(1, n-1), tokens: make(chan struct{}, n), heavy: make(chan struct{}, 1),
		maxWaiting: maxWaiting, maxRetry: maxRetry, running: map[*hold]struct{}{}, avg: [2]time.Duration{initialRun, initialRun}}
	s.give(n)
	return s
}

// count returns the slots of claim c.
func (s *slots) count(c claim) int {
	if c == parallel {
		return s.parallel
	}
	return 1
}

// errBusy is the error of a request that waited for slots until its time ran out.
var errBusy = errors.New("the server is busy: no estimate slot became free within the request's time budget; try again after the time in Retry-After")

// errQueueFull is the error of a request refused because the queue of
// requests waiting for slots was full.
var errQueueFull = errors.New("the server is busy: its queue of requests waiting for an estimate slot is full; try again after the time in Retry-After")

// busyError is the error of a request that got no slot, errBusy or
// errQueueFull, with the seconds after which a retry may find one.
type busyError struct {
	err        error
	retryAfter int
}

func (e *busyError) Error() string { return e.err.Error() }
func (e *busyError) Unwrap() error { return e.err }

// acquire takes the slots of claim c, or none when ctx ends first or the
// queue is full. It returns a *busyError when the queue was full or the
// time budget ran out while it waited, else why ctx ended (cause).
func (s *slots) acquire(ctx context.Context, c claim) (*hold, error) {
	if c == single {
		select {
		case <-s.tokens: // a waiting request would have received it first
			return s.held(c), nil
		default:
		}
	}
	q := &queued{c}
	s.mu.Lock()
	if len(s.queue) >= s.maxWaiting {
		defer s.mu.Unlock()
		return nil, &busyError{err: errQueueFull, retryAfter: s.retryAfter(c)}
	}
	s.queue = append(s.queue, q)
	s.mu.Unlock()
	err := s.wait(ctx, c)
	s.mu.Lock()
	s.queue = slices.DeleteFunc(s.queue, func(e *queued) bool { return e == q })
	retry := s.retryAfter(c)
	s.mu.Unlock()
	switch {
	case err == errBusy:
		return nil, &busyError{err: errBusy, retryAfter: retry}
	case err != nil:
		return nil, err
	}
	return s.held(c), nil
}

// wait waits for the slots of claim c and takes them, or none when ctx
// ends first; it then returns errBusy when the time budget ran out, else
// why ctx ended.
func (s *slots) wait(ctx context.Context, c claim) error {
	if c == parallel {
		select {
		case s.heavy <- struct{}{}:
		case <-ctx.Done():
			return waitEnded(ctx)
		}
	}
	for i := range s.count(c) {
		select {
		case <-s.tokens:
		case <-ctx.Done():
			s.give(i)
			if c == parallel {
				<-s.heavy
			}
			return waitEnded(ctx)
		}
	}
	return nil
}

// waitEnded returns why a wait for slots under ctx ended: errBusy when the
// time budget ran out, else cause(ctx).
func waitEnded(ctx context.Context) error {
	if err := cause(ctx); err != errTimeout {
		return err
	}
	return errBusy
}

// give returns n slots.
func (s *slots) give(n int) {
	for range n {
		s.tokens <- struct{}{}
	}
}

// held records that claim c holds its slots from now on.
func (s *slots) held(c claim) *hold {
	h := &hold{s: s, c: c, start: time.Now()}
	s.mu.Lock()
	s.running[h] = struct{}{}
	s.mu.Unlock()
	return h
}

// release returns h's slots without counting its time: its work did not
// run.
func (h *hold) release() {
	s := h.s
	s.mu.Lock()
	delete(s.running, h)
	s.mu.Unlock()
	s.give(s.count(h.c))
	if h.c == parallel {
		<-s.heavy
	}
}

// finish records how long h's work ran and returns its slots.
func (h *hold) finish() {
	h.s.mu.Lock()
	h.s.record(h.c, time.Since(h.start))
	h.s.mu.Unlock()
	h.release()
}

// record adds a run of d of claim c to its moving average, which the first
// run replaces; s.mu is held.
func (s *slots) record(c claim, d time.Duration) {
	if !s.ran[c] {
		s.avg[c], s.ran[c] = d, true
		return
	}
	s.avg[c] += (d - s.avg[c]) / 8
}

// remaining estimates how long h's work runs on after now: the rest of
// its claim's average run, or, for work already past half of it, as long
// again as it ran (work that overruns the average is likely long), but
// never past the time budget, which ends it; s.mu is held.
func (s *slots) remaining(h *hold, now time.Time) time.Duration {
	ran := now.Sub(h.start)
	return max(0, min(max(s.avg[h.c]-ran, ran), s.maxRetry-ran))
}

// retryAfter estimates in whole seconds when a request of claim c refused
// now may find its slots. It plays the queue forward: each running claim
// holds its slots for the rest of its run (remaining), then each waiting
// request, in order, takes its slots once they are free for the average
// run of its claim; the estimate is when c's slots would be free after
// them, at least 1 s and at most maxRetry. s.mu is held.
func (s *slots) retryAfter(c claim) int {
	now := time.Now()
	var p playback
	p.free = make([]time.Duration, 0, s.n)
	for h := range s.running {
		r := s.remaining(h, now)
		for range s.count(h.c) {
			p.free = append(p.free, r)
		}
		if h.c == parallel {
			p.heavyFree = r
		}
	}
	for len(p.free) < s.n {
		p.free = append(p.free, 0)
	}
	for _, q := range s.queue {
		p.take(q.c, s.count(q.c), s.avg[q.c])
	}
	d := p.take(c, s.count(c), 0)
	d = min(max(d, time.Second), s.maxRetry)
	return int((d + time.Second - 1) / time.Second)
}

// playback is the future of the slots that retryAfter plays: when each
// slot becomes free, and when the parallel claim holding or taking slots
// lets the next one take them, from now.
type playback struct {
	free      []time.Duration
	heavyFree time.Duration
}

// take lets a request of claim c take its k slots for d once they are
// free, and returns when that is.
func (p *playback) take(c claim, k int, d time.Duration) time.Duration {
	slices.Sort(p.free)
	start := p.free[k-1]
	if c == parallel {
		start = max(start, p.heavyFree)
		p.heavyFree = start + d
	}
	for i := range k {
		p.free[i] = start + d
	}
	return start
}
