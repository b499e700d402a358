// Package breaker is the state machine of kit's circuit breaker: closed,
// open and half-open, tripped by consecutive failures or by the share of
// failures in a sliding window, with a cool-down. It takes the time as an
// argument (nanoseconds on any monotonic clock), so that tests and fuzzing
// drive it without sleeping. A Breaker is safe for concurrent use.
package breaker

import "sync"

// State is a circuit's state.
type State uint8

const (
	Closed   State = iota // requests go through; outcomes are counted
	Open                  // requests fail fast until the cool-down ends
	HalfOpen              // a few probes go through; the rest fail fast
)

func (s State) String() string {
	switch s {
	case Closed:
		return "closed"
	case Open:
		return "open"
	case HalfOpen:
		return "half-open"
	}
	return "invalid"
}

// Outcome is what became of a request let through.
type Outcome uint8

const (
	Success Outcome = iota // the server answered
	Failure                // the server failed (a 5xx, a connection error)
	Ignored                // neither: the caller gave up, or the request never left
)

// Config is a breaker's thresholds. A zero Consecutive or Ratio turns that
// trip off.
type Config struct {
	Consecutive int     // failures in a row that open the circuit
	Ratio       float64 // the share of failures in Window that opens it
	MinRequests int     // the outcomes Window needs before Ratio applies
	Window      int64   // the sliding window, in nanoseconds (> 0)
	CoolDown    int64   // how long it stays open, in nanoseconds (> 0)
	Probes      int     // requests let through half-open; successes that close it (>= 1)
}

// Buckets is how many slices the window is counted in.
const Buckets = 10

// Breaker is one circuit.
type Breaker struct {
	cfg Config

	mu          sync.Mutex
	state       State
	until       int64  // Open: when it turns half-open
	consecutive int    // failures in a row, while closed
	probes      int    // half-open: probes out
	passed      int    // half-open: probes that succeeded
	gen         uint64 // counts the times the circuit opened: a probe's period
	win         [Buckets]bucket
}

type bucket struct {
	slot         int64 // which slice of time the counts are of
	ok, failures int
}

// New returns a closed breaker with cfg, its bounds made sane.
func New(cfg Config) *Breaker {
	cfg.Window = max(cfg.Window, Buckets)
	cfg.CoolDown = max(cfg.CoolDown, 1)
	cfg.Probes = max(cfg.Probes, 1)
	cfg.MinRequests = max(cfg.MinRequests, 1)
	return &Breaker{cfg: cfg}
}

// Change is a state transition; From == To when there was none.
type Change struct {
	From, To State
	Until    int64 // To is Open: when it turns half-open
}

// Changed reports whether the state changed.
func (c Change) Changed() bool { return c.From != c.To }

// Ticket is what Allow gives a request let through, for Done.
type Ticket struct {
	probe bool
	gen   uint64 // the half-open period the probe is of
}

// Allow reports whether a request may go at now. When it may not, until is
// when the circuit turns half-open. An open circuit whose cool-down has
// ended turns half-open here (see the Change).
func (b *Breaker) Allow(now int64) (t Ticket, ok bool, until int64, c Change) {
	b.mu.Lock()
	defer b.mu.Unlock()
	c.From = b.state
	if b.state == Open && now >= b.until {
		b.state, b.probes, b.passed = HalfOpen, 0, 0
	}
	c.To = b.state
	switch b.state {
	case Closed:
		return Ticket{}, true, 0, c
	case HalfOpen:
		if b.probes+b.passed < b.cfg.Probes {
			b.probes++
			return Ticket{probe: true, gen: b.gen}, true, 0, c
		}
		return Ticket{}, false, now, c
	}
	return Ticket{}, false, b.until, c
}

// Done records the outcome of a request that Allow let through with t.
func (b *Breaker) Done(now int64, t Ticket, o Outcome) Change {
	b.mu.Lock()
	defer b.mu.Unlock()
	c := Change{From: b.state, To: b.state}
	if t.probe {
		if b.state != HalfOpen || t.gen != b.gen {
			return c // the circuit moved on (a trip from the store, another probe)
		}
		b.probes--
		switch o {
		case Success:
			b.passed++
			if b.passed >= b.cfg.Probes {
				b.close()
			}
		case Failure:
			b.open(now + b.cfg.CoolDown)
		}
		c.To, c.Until = b.state, b.until
		return c
	}
	if b.state != Closed || o == Ignored {
		return c
	}
	bk := b.bucket(now)
	if o == Success {
		bk.ok++
		b.consecutive = 0
		return c
	}
	bk.failures++
	b.consecutive++
	if b.cfg.Consecutive > 0 && b.consecutive >= b.cfg.Consecutive || b.ratioTripped(now) {
		b.open(now + b.cfg.CoolDown)
	}
	c.To, c.Until = b.state, b.until
	return c
}

// Trip opens the circuit until until, unless it is open longer already:
// another process's breaker opened it (a shared store said so).
func (b *Breaker) Trip(until int64) Change {
	b.mu.Lock()
	defer b.mu.Unlock()
	c := Change{From: b.state}
	if b.state != Open || until > b.until {
		b.open(until)
	}
	c.To, c.Until = b.state, b.until
	return c
}

// State returns the state at now (an open circuit past its cool-down is
// reported half-open, without changing it).
func (b *Breaker) State(now int64) State {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.state == Open && now >= b.until {
		return HalfOpen
	}
	return b.state
}

// Counts returns the window's outcomes at now, and the failures in a row.
func (b *Breaker) Counts(now int64) (ok, failures, consecutive int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	ok, failures = b.sums(now)
	return ok, failures, b.consecutive
}

// Probes returns the probes out and those that succeeded (half-open).
func (b *Breaker) Probes() (out, passed int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.probes, b.passed
}

func (b *Breaker) open(until int64) {
	b.gen++
	b.state, b.until, b.probes, b.passed = Open, until, 0, 0
}

func (b *Breaker) close() {
	b.state, b.until, b.probes, b.passed, b.consecutive = Closed, 0, 0, 0, 0
	b.win = [Buckets]bucket{}
}

// width is one bucket's span.
func (b *Breaker) width() int64 { return b.cfg.Window / Buckets }

// bucket returns now's bucket, emptied when it held an older slice.
func (b *Breaker) bucket(now int64) *bucket {
	slot := floorDiv(now, b.width())
	bk := &b.win[mod(slot, Buckets)]
	if bk.slot != slot {
		*bk = bucket{slot: slot}
	}
	return bk
}

// sums adds up the buckets still in the window at now.
func (b *Breaker) sums(now int64) (ok, failures int) {
	slot := floorDiv(now, b.width())
	for _, bk := range b.win {
		if bk.slot <= slot && bk.slot > slot-Buckets {
			ok += bk.ok
			failures += bk.failures
		}
	}
	return ok, failures
}

func (b *Breaker) ratioTripped(now int64) bool {
	if b.cfg.Ratio <= 0 {
		return false
	}
	ok, failures := b.sums(now)
	n := ok + failures
	return n >= b.cfg.MinRequests && float64(failures) >= b.cfg.Ratio*float64(n)
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

func mod(a, b int64) int64 {
	m := a % b
	if m < 0 {
		m += b
	}
	return m
}
