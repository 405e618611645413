package cli

import (
	"io"
	"os"
	"sync"
	"time"

	"github.com/polyvol/polyvol/supervise"
	"github.com/schollz/progressbar/v3"
)

// progressDelay is how long a sweep runs before its progress bar appears:
// sweeps that finish sooner print nothing.
const progressDelay = time.Second

// ProgressReporter is implemented by a standard-error writer that takes the
// progress of a sweep as counts instead of a bar: Progress is called with
// done = 0 when the sweep starts and after each finished item, one call at a
// time. polyvol serve streams these counts to the web page.
type ProgressReporter interface {
	Progress(done, total int)
}

// progress counts the finished items of a sweep and shows a progress bar on
// w once the sweep has run for progressDelay, only when w is a terminal, or
// reports the counts to w when it is a ProgressReporter.
// Its methods are safe for concurrent use.
type progress struct {
	mu       sync.Mutex
	w        io.Writer
	total    int
	done     int
	bar      *progressbar.ProgressBar
	timer    *time.Timer
	reporter ProgressReporter
}

// newProgress starts counting a sweep of total items described by desc.
// It shows nothing when w is neither a terminal nor a ProgressReporter.
func newProgress(w io.Writer, total int, desc string) *progress {
	p := &progress{w: w, total: total}
	if r, ok := w.(ProgressReporter); ok {
		p.reporter = r
		r.Progress(0, total)
		return p
	}
	if f, ok := w.(*os.File); !ok || !supervise.IsTerminal(f) {
		return p
	}
	p.timer = time.AfterFunc(progressDelay, func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.done >= p.total {
			return
		}
		p.bar = progressbar.NewOptions(p.total,
			progressbar.OptionSetWriter(p.w),
			progressbar.OptionSetDescription(desc),
			progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionClearOnFinish(),
			progressbar.OptionThrottle(100*time.Millisecond))
		_ = p.bar.Set(p.done)
	})
	return p
}

// add records one finished item.
func (p *progress) add() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	if p.reporter != nil {
		p.reporter.Progress(p.done, p.total)
	}
	if p.bar != nil {
		_ = p.bar.Add(1)
	}
}

// finish stops the timer and clears the bar, if one is shown.
func (p *progress) finish() {
	if p.timer != nil {
		p.timer.Stop()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		_ = p.bar.Finish()
	}
}
