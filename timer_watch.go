package kit

import (
	"sync"
	"time"
)

// Private implementation past this point.
//
// timerWatch is the one-shot watch that both WithAttemptTimeout (an
// attempt's context) and WithIdleTimeout (a read of a streamed body) run:
// a timer, armed for a span of work, whose expiry runs f unless the span
// has ended. f runs under the watch's lock, so once disarm has returned a
// timer that fires late can no longer run it: what the span produced
// stands.
type timerWatch struct {
	mu    sync.Mutex
	t     *time.Timer
	f     func()
	armed bool // between arm and disarm
	fired bool // f ran during the span
}

// newTimerWatch returns a disarmed watch that runs f on expiry.
func newTimerWatch(f func()) *timerWatch {
	w := &timerWatch{f: f}
	w.t = time.AfterFunc(time.Hour, w.expire)
	w.t.Stop()
	return w
}

// arm starts a span of at most d.
func (w *timerWatch) arm(d time.Duration) {
	w.mu.Lock()
	w.armed, w.fired = true, false
	w.t.Reset(d)
	w.mu.Unlock()
}

// disarm ends the span and reports whether f ran during it.
func (w *timerWatch) disarm() (fired bool) {
	w.mu.Lock()
	w.armed = false
	w.t.Stop()
	fired = w.fired
	w.mu.Unlock()
	return fired
}

func (w *timerWatch) expire() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.armed {
		w.armed, w.fired = false, true
		w.f()
	}
}
