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

// progress counts the finished items of a sweep and shows a progress bar on
// w once the sweep has run for progressDelay, only when w is a terminal.
// Its methods are safe for concurrent use.
type progress struct {
	mu    sync.Mutex
	w     io.Writer
	total int
	done  int
	bar   *progressbar.ProgressBar
	timer *time.Timer
	// label, where set, describes the bar anew at each finished item.
	label func() string
}

// newProgress starts counting a sweep of total items described by desc.
// It shows nothing when w is not a terminal.
func newProgress(w io.Writer, total int, desc string) *progress {
	p := &progress{w: w, total: total}
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
	if p.bar != nil {
		if p.label != nil {
			p.bar.Describe(p.label())
		}
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
