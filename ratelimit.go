package kit

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"
)

// WithRateLimit limits the client to perSecond requests per second on
// average, with bursts of up to burst requests: a token bucket, full at
// first, refilled at perSecond tokens a second (kept to the nanosecond).
// The limit is shared by everything bound to the client: endpoint calls (Call and Go), resources and their iterations, and
// every attempt of a retried call, each attempt taking one token.
//
// A request waits for its token with the call's context: a context that
// ends first ends the call with an error matching the context's error, and
// a call whose deadline would pass before its token is available fails at
// once with an error matching context.DeadlineExceeded. Nothing is sent in
// either case. perSecond must be positive and finite and burst at least 1;
// [NewClient] fails otherwise. Default: no limit.
//
// Each client made with the option gets its own limiter (passing the same
// option to two clients does not make them share one); it is safe for
// concurrent use by every goroutine calling through the client, and takes
// no lock: while tokens are plentiful, concurrent calls do not wait on
// each other. It is [Limits].Limiter with a limiter of kit's own.
//
// Deprecated: use [WithLimits] with [Limits].Rate and Limits.Burst, which
// has the same meaning.
func WithRateLimit(perSecond float64, burst int) Option {
	return rateLimitOption{perSecond, burst}
}

// Limiter paces requests: Wait returns when one may be sent, or an error
// (its context ended, the limit cannot be reached) and then nothing is
// sent. *rate.Limiter (golang.org/x/time/rate) is one; kitredis.NewLimiter
// is one that every process of a fleet shares. Implementations must be safe
// for concurrent use.
type Limiter interface {
	Wait(ctx context.Context) error
}

// WithLimiter paces the client's requests with l: every attempt (each
// attempt of a retried call, every page of a walk) waits for l first, with
// the call's context, in the rate-limit layer of the send chain. A response
// served by the cache (WithCache) waits for nothing. An error from Wait
// fails the call, wrapped, with nothing sent; when the context has ended it
// matches the context's error; any other error of l's is wrapped as it is.
//
// Unlike WithRateLimit, the limiter is the caller's: give the same one to
// several clients and they share it. A nil l is an error from NewClient.
// The last of WithLimiter and WithRateLimit given wins.
//
// Deprecated: use [WithLimits] with [Limits].Limiter, which has the same
// meaning.
func WithLimiter(l Limiter) Option { return limiterOption{l} }

// Private implementation past this point.

type rateLimitOption struct {
	perSecond float64
	burst     int
}

func (o rateLimitOption) applyClient(c *clientConfig) error {
	if !(o.perSecond > 0) || math.IsInf(o.perSecond, 0) {
		return fmt.Errorf("kit: WithRateLimit(%v, %d): the rate must be positive and finite", o.perSecond, o.burst)
	}
	if o.burst < 1 {
		return fmt.Errorf("kit: WithRateLimit(%v, %d): the burst must be at least 1", o.perSecond, o.burst)
	}
	c.limiter = newLimiter(o.perSecond, o.burst)
	return nil
}

type limiterOption struct{ l Limiter }

func (o limiterOption) applyClient(c *clientConfig) error {
	if o.l == nil {
		return errors.New("kit: WithLimiter(nil): no limiter")
	}
	c.limiter = o.l
	return nil
}

func (o limiterOption) String() string { return fmt.Sprintf("kit.WithLimiter(%T)", o.l) }

func (o rateLimitOption) String() string {
	return fmt.Sprintf("kit.WithRateLimit(%v, %d)", o.perSecond, o.burst)
}

// rateLayer is the chain's rate-limit layer: every attempt takes one
// token of the client's limiter, waiting with the call's context. Nothing
// is sent when the wait fails.
func (l *limitLayers) rateLayer(next Sender) Sender {
	return func(ctx context.Context, req *Request) (*Response, error) {
		wait := l.limiter.Wait
		if t := req.token.take(); t != nil {
			wait = t.wait
		}
		if err := wait(ctx); err != nil {
			if ctxErr := ctx.Err(); ctxErr != nil && !errors.Is(err, ctxErr) {
				err = ctxErr
			}
			return nil, errorf(l.secrets.opOf(req), "waiting for the rate limit: %w", err)
		}
		return next(ctx, req)
	}
}

// limiter is the token bucket of WithRateLimit, kept as one number (GCRA,
// the generic cell rate algorithm): full, the time at which the bucket is
// full again, in nanoseconds since the limiter was made (monotonic clock).
// A token costs interval; the bucket holds tolerance worth of them (burst
// tokens). Taking one moves full on by interval, from now if the bucket is
// full; the token may be used once full is at most tolerance ahead of now.
//
// Taking a token is a load and a compare-and-swap on full: callers never
// park on a lock, so 64 goroutines that find tokens plentiful go through
// side by side (x/time/rate's Limiter, which kit used before, serialises
// them on one mutex). A caller that must wait reserves its token first,
// then sleeps; if its context ends during the sleep, it gives the token
// back.
type limiter struct {
	epoch     time.Time // the zero of full, with a monotonic reading
	interval  int64     // nanoseconds per token, at least 1
	tolerance int64     // burst * interval, at most 292 years' worth
	full      atomic.Int64
}

func newLimiter(perSecond float64, burst int) *limiter {
	iv := math.Round(1e9 / perSecond)
	interval := int64(math.MaxInt64)
	if iv < math.MaxInt64 {
		interval = max(int64(iv), 1)
	}
	tolerance := int64(math.MaxInt64)
	if int64(burst) <= math.MaxInt64/interval {
		tolerance = int64(burst) * interval
	}
	return &limiter{epoch: time.Now(), interval: interval, tolerance: tolerance}
}

// Wait takes a token, waiting for it with ctx. It fails at once, taking
// none, when ctx has ended or the token would come after ctx's deadline
// (with an error matching context.DeadlineExceeded), and gives the token
// back when ctx ends during the wait (with ctx's error).
func (l *limiter) Wait(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	now := l.now()
	var at int64 // when the token may be used
	for {
		cur := l.full.Load()
		full := max(cur, now)
		at = full - (l.tolerance - l.interval) // tolerance >= interval: no overflow
		next := int64(math.MaxInt64)           // centuries away: as good as never
		if full <= math.MaxInt64-l.interval {
			next = full + l.interval
		}
		if at > now {
			if dl, ok := ctx.Deadline(); ok && at > dl.Sub(l.epoch).Nanoseconds() {
				return fmt.Errorf("%w: the next token would come after the deadline", context.DeadlineExceeded)
			}
		}
		if l.full.CompareAndSwap(cur, next) {
			break
		}
	}
	if at <= now {
		return nil
	}
	t := time.NewTimer(time.Duration(at - now))
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		l.full.Add(-l.interval) // unused: back in the bucket
		return ctx.Err()
	}
}

// now is the time since l was made, in nanoseconds.
func (l *limiter) now() int64 { return time.Since(l.epoch).Nanoseconds() }

// reserve takes the next token now, whatever it costs to wait for it, and
// returns when it may be used (as now's). A pipelined walk reserves its
// pages' tokens in page order this way; see rateTicket.
func (l *limiter) reserve() int64 {
	now := l.now()
	for {
		cur := l.full.Load()
		full := max(cur, now)
		next := int64(math.MaxInt64)
		if full <= math.MaxInt64-l.interval {
			next = full + l.interval
		}
		if l.full.CompareAndSwap(cur, next) {
			return full - (l.tolerance - l.interval)
		}
	}
}

// giveBack returns a reserved token that will not be used.
func (l *limiter) giveBack() { l.full.Add(-l.interval) }

// A rateTicket is a token of the client's limiter reserved ahead for one
// request. A pipelined walk reserves the tokens of its pages when it names
// them, in page order, so the page the caller needs first gets the first
// token however the goroutines sending them are scheduled. The first
// attempt of the request waits for its reservation instead of taking a
// token then; a retry takes a token as any attempt does.
type rateTicket struct {
	l    *limiter
	at   int64 // when the token may be used, on l's clock
	mu   sync.Mutex
	used bool
}

// reserveTicket reserves the next token of l when it is WithRateLimit's
// limiter; nil otherwise: a Limiter given to WithLimiter (one a fleet
// shares) has no reservations, and its tokens go in the order the pages
// reach it.
func reserveTicket(l Limiter) *rateTicket {
	lim, ok := l.(*limiter)
	if !ok || lim == nil {
		return nil
	}
	return &rateTicket{l: lim, at: lim.reserve()}
}

// take returns t the first time it is called, nil after (and on a nil
// ticket).
func (t *rateTicket) take() *rateTicket {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.used {
		return nil
	}
	t.used = true
	return t
}

// release gives the token back when no attempt took it (the page was
// cancelled before the rate-limit layer, or an interceptor or the cache
// answered it).
func (t *rateTicket) release() {
	if t.take() != nil {
		t.l.giveBack()
	}
}

// wait waits until the reserved token may be used, as limiter.Wait waits
// for one: it fails at once when ctx has ended, or when its deadline would
// pass first, and gives the token back when it fails.
func (t *rateTicket) wait(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		t.l.giveBack()
		return err
	}
	now := t.l.now()
	if t.at <= now {
		return nil
	}
	if dl, ok := ctx.Deadline(); ok && t.at > dl.Sub(t.l.epoch).Nanoseconds() {
		t.l.giveBack()
		return fmt.Errorf("%w: the next token would come after the deadline", context.DeadlineExceeded)
	}
	timer := time.NewTimer(time.Duration(t.at - now))
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		t.l.giveBack()
		return ctx.Err()
	}
}
