package kit

import (
	"fmt"
	"math"
	"time"
)

// Limits bounds how fast and how much a client sends. Every field is
// optional; its zero value leaves that limit as it is.
type Limits struct {
	// Rate limits the client to Rate requests per second on average, with
	// bursts of up to Burst: a token bucket of kit's own, full at first,
	// refilled at Rate tokens a second (kept to the nanosecond). It is
	// shared by everything bound to the client: endpoint calls, resources
	// and their walks, each attempt of a retried call taking one token. A
	// request waits for its token with the call's context: a context that
	// ends first ends the call with the context's error, and a call whose
	// deadline would pass before its token comes fails at once with an
	// error matching context.DeadlineExceeded; nothing is sent in either
	// case. Each client gets a bucket of its own (passing the same Limits to
	// two clients does not make them share one), which takes no lock: while
	// tokens are plentiful, concurrent calls do not wait on each other. It
	// must be positive and finite. Default: no limit.
	Rate float64
	// Burst is the bucket's size: how many requests may go at once after a
	// quiet spell. It goes with Rate; 0 means 1.
	Burst int
	// Limiter paces the client's requests with a limiter of the caller's:
	// every attempt waits for it first, with the call's context, in the
	// rate-limit layer of the send chain; an error from Wait fails the call,
	// wrapped, with nothing sent. Give the same one to several clients (or
	// kitredis.NewLimiter to a fleet) and they share it. It replaces Rate:
	// give one or the other.
	Limiter Limiter
	// ServerMaxWait makes the client heed the rate limits its servers
	// announce (the IETF draft's RateLimit and RateLimit-Policy, GitHub's
	// X-RateLimit-*), per origin, the origin that answered: when none is
	// left before the reset, later requests to that origin wait for the
	// reset when it is at most ServerMaxWait away, and otherwise fail at
	// once with a [*RateLimitError] (nothing is sent). Headers that lie
	// (negative, unparsable, a reset in the past or a year away) are
	// ignored. It must be positive. Default: off.
	ServerMaxWait time.Duration
	// MaxInFlight bounds how many requests of an [AsyncClient] are in
	// flight at once: endpoint calls started with Go, resource operations
	// and the pages of walks (prefetched ones included), each from when it
	// is handed to the engine until its body has been read (for a streamed
	// body, until it is closed); the others wait, first come first served,
	// until their context ends. Retries and the resend after a 401 take a
	// slot again for each attempt. A [Client] ignores it. It must be
	// positive. Default: [DefaultMaxInFlight].
	MaxInFlight int
}

// WithLimits sets the client's limits: the fields of l that are not zero
// replace what an earlier WithLimits (or one of the v0.3.0 options it
// replaces) set, and the zero fields leave it, so that
//
//	kit.NewClient(base, kit.WithLimits(kit.Limits{Rate: 10, Burst: 5, ServerMaxWait: time.Minute}))
//
// paces the client to 10 requests a second and follows the server's own
// limits. A Rate that is not positive and finite, a negative field, a Burst
// without a Rate, or both a Rate and a Limiter, make [NewClient] (or
// [NewAsyncClient]) fail. It is an [Option]: limits are the client's, shared
// by everything bound to it. A response served by the cache waits for no
// limit.
func WithLimits(l Limits) Option { return limitsOption{l} }

// Private implementation past this point.

// limitsOption is WithLimits.
type limitsOption struct{ l Limits }

func (o limitsOption) applyClient(c *clientConfig) error {
	l := o.l
	fail := func(why string) error { return fmt.Errorf("kit: %s: %s", o, why) }
	switch {
	case l.Rate != 0 && (!(l.Rate > 0) || math.IsInf(l.Rate, 0)):
		return fail("Rate must be positive and finite")
	case l.Burst < 0:
		return fail("Burst must not be negative")
	case l.Burst > 0 && l.Rate == 0:
		return fail("Burst goes with Rate, and Rate is not set")
	case l.Rate != 0 && l.Limiter != nil:
		return fail("give Rate or Limiter, not both")
	case l.ServerMaxWait < 0:
		return fail("ServerMaxWait must not be negative")
	case l.MaxInFlight < 0:
		return fail("MaxInFlight must not be negative")
	}
	if l.Rate != 0 {
		c.limiter = newLimiter(l.Rate, max(l.Burst, 1))
	}
	if l.Limiter != nil {
		c.limiter = l.Limiter
	}
	if l.ServerMaxWait > 0 {
		c.serverRate = l.ServerMaxWait
	}
	if l.MaxInFlight > 0 {
		c.maxFlight = l.MaxInFlight
	}
	return nil
}

// String is the option as its call, its zero fields left out.
func (o limitsOption) String() string {
	l := o.l
	w := newLiteral("kit.WithLimits(kit.Limits{")
	if l.Rate != 0 {
		w.field("Rate", l.Rate)
	}
	if l.Burst != 0 {
		w.field("Burst", l.Burst)
	}
	if l.Limiter != nil {
		w.field("Limiter", fmt.Sprintf("%T", l.Limiter))
	}
	if l.ServerMaxWait != 0 {
		w.field("ServerMaxWait", l.ServerMaxWait)
	}
	if l.MaxInFlight != 0 {
		w.field("MaxInFlight", l.MaxInFlight)
	}
	return w.close("})")
}

// limitLayers is the chain's three limit layers, one concern: the
// client's limiter (rateLayer, ratelimit.go), the limits servers announce
// (serverLayer, ratelimit_server.go) and the async chain's in-flight slots
// (inflightLayer, inflight.go). It holds their configuration and state,
// and the client's secrets for error text. A walk asks it how many pages
// may be in flight (window) and reserves their tokens in page order
// (ticket).
type limitLayers struct {
	limiter    Limiter       // nil: no limit
	serverWait time.Duration // WithServerRateLimit's maxWait; 0: off
	server     serverLimits  // what servers said of their rate limits
	slots      *semaphore    // the async chain's; nil for a client without one
	secrets    *secrets
}

// newLimitLayers returns the limit layers of c, for a client whose secrets are sec.
// async makes the in-flight slots (only an AsyncEngine's chain has them).
func newLimitLayers(c *clientConfig, sec *secrets, async bool) *limitLayers {
	l := &limitLayers{limiter: c.limiter, serverWait: c.serverRate, secrets: sec}
	if async {
		l.slots = newSemaphore(c.maxFlight)
	}
	return l
}

// window bounds n, the pages a walk would have in flight at once, by the
// in-flight slots.
func (l *limitLayers) window(n int) int {
	if l.slots != nil {
		n = min(n, l.slots.max)
	}
	return n
}

// ticket reserves the next token of the client's limiter for a request
// that is sent later (nil: there is no limiter of kit's own to reserve
// from).
func (l *limitLayers) ticket() *rateTicket { return reserveTicket(l.limiter) }
