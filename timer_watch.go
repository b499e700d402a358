package kit

import (
	"sync"
	"time"
)

// Private implementation past this point.
//
// timerWatch is the one-shot watch that both WithAttemptTimeout (an
// attempt's context) and WithIdleTimeout (a read of a streamed body) run:
// a timer, armed for a span of work, whose expiry acts unless the span has
// ended. The action runs under the watch's lock, so once disarm has
// returned a timer that fires late can no longer act: what the span
// produced stands. An owner embeds it and starts it with its own method
// as the timer's func (one allocation fewer than a closure over both), which
// calls expire with the action.
type timerWatch struct {
	mu    sync.Mutex
	t     *time.Timer
	armed bool // between arm and disarm
	fired bool // the action ran during the span
}

// start makes the watch's timer, disarmed, running fire on expiry.
func (w *timerWatch) start(fire func()) {
	w.t = time.AfterFunc(time.Hour, fire)
	w.t.Stop()
}

// arm starts a span of at most d.
func (w *timerWatch) arm(d time.Duration) {
	w.mu.Lock()
	w.armed, w.fired = true, false
	w.t.Reset(d)
	w.mu.Unlock()
}

// disarm ends the span and reports whether the action ran during it.
func (w *timerWatch) disarm() (fired bool) {
	w.mu.Lock()
	w.armed = false
	w.t.Stop()
	fired = w.fired
	w.mu.Unlock()
	return fired
}

// expire runs act, under the lock, when a span is armed: the owner's
// fire calls it.
func (w *timerWatch) expire(act func()) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.armed {
		w.armed, w.fired = false, true
		act()
	}
}
