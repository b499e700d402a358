package kit

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"sync"
	"time"

	"github.com/kithttp/kit/internal/breaker"
)

// CircuitBreaker is the setting of [WithCircuitBreaker]: when a server's
// origin (scheme, host and port) has failed enough, its circuit opens and
// every request to it fails at once for CoolDown; then Probes requests go
// through (half-open): their success closes the circuit, a failure opens
// it again for CoolDown. A failure is a 5xx response or a request that got
// no response (a refused or dropped connection, a timeout of the
// engine's); any other response is a success; a request the caller
// cancelled, or that never left (a bad body), counts as neither.
type CircuitBreaker struct {
	// ConsecutiveFailures opens the circuit after that many failures in
	// a row. 0: this trip is off (5 when FailureRatio is 0 too).
	ConsecutiveFailures int

	// FailureRatio opens the circuit when at least that share of the
	// outcomes of the last Window are failures (0.5: half), once there
	// are MinRequests of them. 0: this trip is off.
	FailureRatio float64

	// MinRequests is how many outcomes the window needs before
	// FailureRatio applies. Default 10.
	MinRequests int

	// Window is how far back FailureRatio looks. Default 10 s.
	Window time.Duration

	// CoolDown is how long the circuit stays open. Default 30 s.
	CoolDown time.Duration

	// Probes is how many requests go through a half-open circuit, and
	// must succeed to close it. Default 1.
	Probes int

	// Store, when set, shares open circuits with every client (every
	// process of a fleet) using the same store: a circuit one opens is
	// open for all until its cool-down ends. Each process still counts
	// its own failures. kitredis.NewBreakerStore is one. nil: the
	// client's circuits are its own.
	Store BreakerStore
}

// BreakerStore shares open circuits between the clients of a fleet (see
// [CircuitBreaker].Store). origin is the circuit's, such as
// "https://api.example.com:443". Implementations must be safe for
// concurrent use. A store that fails (an error) is not trusted either way:
// the request is decided by the client's own circuit.
type BreakerStore interface {
	// Trip records that origin's circuit is open until until.
	Trip(ctx context.Context, origin string, until time.Time) error

	// OpenUntil returns until when origin's circuit is open, or the zero
	// Time when it is not.
	OpenUntil(ctx context.Context, origin string) (time.Time, error)
}

// WithCircuitBreaker gives the client a circuit breaker per origin (see
// [CircuitBreaker]). Every attempt goes through it (each attempt of a
// retried call, each hedge, each page of a walk, each reconnection of a
// stream), after the rate limit and the auth: a request that meets an open
// circuit fails at once with a [*CircuitOpenError], matching
// [ErrCircuitOpen], and is not retried. The [Observer]'s Circuit hook sees
// each change of state. The breaker is safe for concurrent use. A
// FailureRatio outside [0, 1] or a negative count or duration makes
// [NewClient] fail.
//
// Cost: a lock and a few counters per attempt; with a Store, one
// OpenUntil per attempt while the circuit is closed (a Redis GET for
// kitredis's).
func WithCircuitBreaker(b CircuitBreaker) Option { return breakerOption{b} }

// ErrCircuitOpen matches the error of a request that an open circuit
// refused (see [WithCircuitBreaker]).
var ErrCircuitOpen = errors.New("the circuit breaker is open")

// CircuitOpenError is the error of a request that an open circuit refused:
// nothing was sent. It matches [ErrCircuitOpen].
type CircuitOpenError struct {
	Origin string    // the circuit's origin, such as "https://api.example.com:443"
	Until  time.Time // when a probe may go again
}

func (e *CircuitOpenError) Error() string {
	return fmt.Sprintf("%v for %s until %s", ErrCircuitOpen, e.Origin, e.Until.UTC().Format(time.RFC3339))
}

// Is reports whether target is [ErrCircuitOpen].
func (e *CircuitOpenError) Is(target error) bool { return target == ErrCircuitOpen }

// CircuitState is a circuit's state.
type CircuitState uint8

// A circuit's states.
const (
	CircuitClosed   CircuitState = iota // requests go through
	CircuitOpen                         // requests fail at once
	CircuitHalfOpen                     // probes go through, the rest fail at once
)

func (s CircuitState) String() string { return breaker.State(s).String() }

// CircuitInfo is a change of a circuit's state, for [Observer].Circuit.
type CircuitInfo struct {
	Origin   string       // such as "https://api.example.com:443"
	From, To CircuitState // the states before and after
	Until    time.Time    // To is CircuitOpen: when a probe may go
	Shared   bool         // the change came from the Store: another client opened it
}

// Private implementation past this point.

type breakerOption struct{ b CircuitBreaker }

func (o breakerOption) applyClient(c *clientConfig) error {
	b := o.b
	if b.ConsecutiveFailures < 0 || b.MinRequests < 0 || b.Probes < 0 || b.Window < 0 || b.CoolDown < 0 ||
		!(b.FailureRatio >= 0 && b.FailureRatio <= 1) {
		return fmt.Errorf("kit: %s: a negative count or duration, or a FailureRatio outside [0, 1]", o)
	}
	if b.ConsecutiveFailures == 0 && b.FailureRatio == 0 {
		b.ConsecutiveFailures = 5
	}
	cfg := breaker.Config{
		Consecutive: b.ConsecutiveFailures,
		Ratio:       b.FailureRatio,
		MinRequests: cmpOr(b.MinRequests, 10),
		Window:      int64(cmpOr(b.Window, 10*time.Second)),
		CoolDown:    int64(cmpOr(b.CoolDown, 30*time.Second)),
		Probes:      cmpOr(b.Probes, 1),
	}
	c.breaker = &breakerSet{cfg: cfg, store: b.Store, epoch: time.Now(), now: time.Now}
	return nil
}

func (o breakerOption) String() string {
	w := newLiteral("kit.WithCircuitBreaker(kit.CircuitBreaker{")
	b := o.b
	if b.ConsecutiveFailures != 0 {
		w.field("ConsecutiveFailures", b.ConsecutiveFailures)
	}
	if b.FailureRatio != 0 {
		w.field("FailureRatio", b.FailureRatio)
	}
	if b.MinRequests != 0 {
		w.field("MinRequests", b.MinRequests)
	}
	if b.Window != 0 {
		w.field("Window", b.Window)
	}
	if b.CoolDown != 0 {
		w.field("CoolDown", b.CoolDown)
	}
	if b.Probes != 0 {
		w.field("Probes", b.Probes)
	}
	if b.Store != nil {
		w.field("Store", fmt.Sprintf("%T", b.Store))
	}
	return w.close("})")
}

func cmpOr[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// breakerSet is a client's circuits, one per origin, made on first use.
type breakerSet struct {
	cfg   breaker.Config
	store BreakerStore
	epoch time.Time
	now   func() time.Time // time.Now; a fake clock in tests

	circuits sync.Map // originKey -> *circuit
}

// circuit is one origin's breaker and its name.
type circuit struct {
	*breaker.Breaker
	origin string // such as "https://api.example.com:443"
}

// at is t on the breakers' clock: nanoseconds since epoch.
func (s *breakerSet) at(t time.Time) int64 { return t.Sub(s.epoch).Nanoseconds() }

// time is the wall time of a breaker's clock reading, without a monotonic
// reading: it is compared with other clients' times (a shared store's),
// which only the wall clock relates.
func (s *breakerSet) time(n int64) time.Time { return s.epoch.Add(time.Duration(n)).Round(0) }

// circuit returns the circuit of u's origin (scheme, host and port),
// made on first use.
func (s *breakerSet) circuit(u *url.URL) *circuit {
	k := originOf(u)
	if c, ok := s.circuits.Load(k); ok {
		return c.(*circuit)
	}
	c, _ := s.circuits.LoadOrStore(k, &circuit{breaker.New(s.cfg), k.scheme + "://" + net.JoinHostPort(k.host, k.port)})
	return c.(*circuit)
}

// breakerLayer is the chain's circuit breaker: an attempt to an origin
// whose circuit is open fails at once; the others go, and their outcome is
// counted.
type breakerLayer struct {
	set       *breakerSet
	onCircuit func(context.Context, CircuitInfo) // Observer.Circuit; nil: none
	secrets   *secrets
}

func (l *breakerLayer) wrap(next Sender) Sender {
	s := l.set
	return func(ctx context.Context, req *Request) (*Response, error) {
		b := s.circuit(req.URL)
		origin := b.origin
		now := s.at(s.now())
		tk, ok, until, change := b.Allow(now)
		l.circuitChanged(ctx, origin, change, false)
		if ok && s.store != nil && b.State(now) == breaker.Closed {
			if u, err := s.store.OpenUntil(ctx, origin); err == nil && !u.IsZero() {
				if at := s.at(u); at > now {
					b.Done(now, tk, breaker.Ignored)
					l.circuitChanged(ctx, origin, b.Trip(at), true)
					ok, until = false, at
				}
			}
		}
		if !ok {
			err := &CircuitOpenError{Origin: origin, Until: s.time(until)}
			return nil, finalError{errorf(l.secrets.opOf(req), "%w", err)}
		}
		resp, err := next(ctx, req)
		change = b.Done(s.at(s.now()), tk, outcomeOf(ctx, err))
		if change.Changed() && change.To == breaker.Open && s.store != nil {
			// Shared with the fleet; a store that fails leaves the
			// circuit this client's own.
			_ = s.store.Trip(context.WithoutCancel(ctx), origin, s.time(change.Until))
		}
		l.circuitChanged(ctx, origin, change, false)
		return resp, err
	}
}

// outcomeOf classifies an attempt's error for the breaker.
func outcomeOf(ctx context.Context, err error) breaker.Outcome {
	if err == nil {
		return breaker.Success
	}
	var he *HTTPError
	if errors.As(err, &he) {
		if he.StatusCode >= 500 {
			return breaker.Failure
		}
		return breaker.Success
	}
	var final finalError
	if ctx.Err() != nil || errors.As(err, &final) || errors.Is(err, ErrBodyTooLarge) {
		return breaker.Ignored
	}
	return breaker.Failure
}

// circuitChanged reports a change of state to the observer.
func (l *breakerLayer) circuitChanged(ctx context.Context, origin string, c breaker.Change, shared bool) {
	if !c.Changed() || l.onCircuit == nil {
		return
	}
	info := CircuitInfo{Origin: origin, From: CircuitState(c.From), To: CircuitState(c.To), Shared: shared}
	if c.To == breaker.Open {
		info.Until = l.set.time(c.Until)
	}
	l.onCircuit(ctx, info)
}
