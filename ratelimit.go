package kit

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// WithRateLimit limits the client to perSecond requests per second on
// average, with bursts of up to burst requests (a token bucket,
// golang.org/x/time/rate). The limit is shared by everything bound to the
// client: endpoint calls (Call and Go), resources and their iterations, and
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
// concurrent use by every goroutine calling through the client. It is
// WithLimiter(rate.NewLimiter(rate.Limit(perSecond), burst)), checked.
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
// matches the context's error, and when it has a deadline that l says it
// would pass (as *rate.Limiter does) it matches context.DeadlineExceeded.
//
// Unlike WithRateLimit, the limiter is the caller's: give the same one to
// several clients and they share it. A nil l is an error from NewClient.
// The last of WithLimiter and WithRateLimit given wins.
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
	c.limiter = rate.NewLimiter(rate.Limit(o.perSecond), o.burst)
	return nil
}

type limiterOption struct{ l Limiter }

func (o limiterOption) applyClient(c *clientConfig) error {
	if o.l == nil {
		return errors.New("kit: WithLimiter(nil)")
	}
	c.limiter = o.l
	return nil
}

func (o limiterOption) String() string { return fmt.Sprintf("kit.WithLimiter(%T)", o.l) }

func (o rateLimitOption) String() string {
	return fmt.Sprintf("kit.WithRateLimit(%v, %d)", o.perSecond, o.burst)
}

// rateLimitLayer is the chain's rate-limit layer: every attempt takes one
// token of the client's limiter, waiting with the call's context. Nothing
// is sent when the wait fails.
func (st *clientState) rateLimitLayer(next Sender) Sender {
	return func(ctx context.Context, req *Request) (*Response, error) {
		wait := st.limiter.Wait
		if res := req.token.take(); res != nil {
			wait = func(ctx context.Context) error { return waitReservation(ctx, res) }
		}
		if err := wait(ctx); err != nil {
			if ctxErr := ctx.Err(); ctxErr != nil {
				err = ctxErr
			} else if _, ok := ctx.Deadline(); ok && isRateLimiter(st.limiter) {
				// rate.Limiter fails at once when the token would come
				// after the deadline; report it as the deadline it would
				// pass.
				err = fmt.Errorf("%w: the next token would come after the deadline", context.DeadlineExceeded)
			}
			return nil, errorf(st.opOf(req.Method, req.URL), "waiting for the rate limit: %w", err)
		}
		return next(ctx, req)
	}
}

// isRateLimiter reports whether l is a *rate.Limiter, whose Wait fails at
// once, with an error of its own, when the token would come after the
// context's deadline.
func isRateLimiter(l Limiter) bool {
	_, ok := l.(*rate.Limiter)
	return ok
}

// A rateTicket is a token of the client's limiter reserved ahead for one
// request. A pipelined walk reserves the tokens of its pages when it names
// them, in page order, so the page the caller needs first gets the first
// token however the goroutines sending them are scheduled. The first
// attempt of the request waits for its reservation instead of taking a
// token then; a retry takes a token as any attempt does.
type rateTicket struct {
	mu   sync.Mutex
	res  *rate.Reservation
	used bool
}

// reserveTicket reserves the next token of l when it is a *rate.Limiter
// (WithRateLimit's, or one given to WithLimiter); nil otherwise: another
// Limiter has no reservations, and its tokens go in the order the pages
// reach it.
func reserveTicket(l Limiter) *rateTicket {
	lim, ok := l.(*rate.Limiter)
	if !ok || lim == nil {
		return nil
	}
	res := lim.Reserve()
	if !res.OK() {
		return nil
	}
	return &rateTicket{res: res}
}

// take returns the reservation the first time it is called, nil after (and
// on a nil ticket).
func (t *rateTicket) take() *rate.Reservation {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.used {
		return nil
	}
	t.used = true
	return t.res
}

// release gives the token back when no attempt took it (the page was
// cancelled, or an interceptor answered it).
func (t *rateTicket) release() {
	if res := t.take(); res != nil {
		res.Cancel()
	}
}

// waitReservation waits until res's token is available, as
// rate.Limiter.Wait waits for one: it fails at once when ctx has ended, or
// when its deadline would pass first, and gives the token back when it
// fails.
func waitReservation(ctx context.Context, res *rate.Reservation) error {
	if err := ctx.Err(); err != nil {
		res.Cancel()
		return err
	}
	delay := res.Delay()
	if delay <= 0 {
		return nil
	}
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < delay {
		res.Cancel()
		return fmt.Errorf("rate: Wait(n=1) would exceed context deadline")
	}
	t := time.NewTimer(delay)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		res.Cancel()
		return ctx.Err()
	}
}
