package kit

import (
	"context"
	"fmt"
	"math"

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
// concurrent use by every goroutine calling through the client.
func WithRateLimit(perSecond float64, burst int) Option {
	return rateLimitOption{perSecond, burst}
}

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

func (o rateLimitOption) String() string {
	return fmt.Sprintf("kit.WithRateLimit(%v, %d)", o.perSecond, o.burst)
}

// rateLimitLayer is the chain's rate-limit layer: every attempt takes one
// token of the client's limiter, waiting with the call's context. Nothing
// is sent when the wait fails.
func (st *clientState) rateLimitLayer(next Sender) Sender {
	return func(ctx context.Context, req *Request) (*Response, error) {
		if err := st.limiter.Wait(ctx); err != nil {
			if ctxErr := ctx.Err(); ctxErr != nil {
				err = ctxErr
			} else if _, ok := ctx.Deadline(); ok {
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
