package kit

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kithttp/kit/internal/httpcache"
)

// WithServerRateLimit makes the client heed the rate limits its servers
// announce in their responses:
//
//   - RateLimit and RateLimit-Policy, the IETF httpapi draft's fields in
//     their current syntax: RateLimit: "default";r=0;t=30 (r requests
//     remaining, t seconds to the reset) and RateLimit-Policy:
//     "default";q=100;w=60 (the quota). With several policies the tightest
//     one counts.
//   - X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset, as
//     GitHub and many others send them: a reset larger than a year of
//     seconds is a Unix time (read against the response's Date, so that the
//     two clocks need not agree), a smaller one is seconds from now.
//
// Every response updates what the client knows of its origin (scheme, host
// and port), error statuses included (a 429, a 403 with these headers): the
// origin that answered, which after a redirect is where it led, not where
// the request was first sent.
// Between responses each request sent counts against the remaining number.
// When none are left before the reset, the origin's later requests wait
// for the reset, with the call's context, when it is at most maxWait away,
// and otherwise fail at once with a *RateLimitError (nothing is sent; it is
// not retried). A context whose deadline comes before the reset fails at
// once too, with a *RateLimitError whose Err is context.DeadlineExceeded.
//
// Headers that lie are not believed: a negative or unparsable number, a
// reset in the past or more than a year away, are ignored (the client then
// knows nothing until the next response); numbers past 2^31 are clamped.
// No wait is longer than maxWait. maxWait must be positive; NewClient fails
// otherwise. Default: off.
//
// The limit sits in the send chain with WithLimiter, once per attempt; a
// response served by the cache (WithCache) counts for nothing.
//
// Deprecated: use [WithLimits] with [Limits].ServerMaxWait, which has the
// same meaning.
func WithServerRateLimit(maxWait time.Duration) Option { return serverRateOption{maxWait} }

// RateLimitError is returned, wrapped, for a request that was not sent
// because the server said no request was left before Reset (see
// WithServerRateLimit): the reset was further away than the client waits,
// or the call's context ended (or would have) before it. Limit is the
// quota the server announced (0 when it did not), Remaining what it said is
// left (0). Err is the context's error when the context ended or its
// deadline came before the reset, and nil otherwise; Unwrap returns it.
type RateLimitError struct {
	Reset     time.Time
	Limit     int
	Remaining int
	Err       error
}

// Error describes the limit and when it resets.
func (e *RateLimitError) Error() string {
	var b strings.Builder
	b.WriteString("server rate limit exhausted: ")
	if e.Limit > 0 {
		fmt.Fprintf(&b, "%d of %d left", e.Remaining, e.Limit)
	} else {
		fmt.Fprintf(&b, "%d left", e.Remaining)
	}
	fmt.Fprintf(&b, " until %s (in %v)", e.Reset.UTC().Format(time.RFC3339), time.Until(e.Reset).Round(time.Second))
	if e.Err != nil {
		fmt.Fprintf(&b, ": %v", e.Err)
	} else {
		b.WriteString(", longer than WithServerRateLimit waits")
	}
	return b.String()
}

// Unwrap returns Err.
func (e *RateLimitError) Unwrap() error { return e.Err }

// Private implementation past this point.

type serverRateOption struct{ maxWait time.Duration }

func (o serverRateOption) applyClient(c *clientConfig) error {
	if o.maxWait <= 0 {
		return fmt.Errorf("kit: WithServerRateLimit(%v): the longest wait must be positive", o.maxWait)
	}
	c.serverRate = o.maxWait
	return nil
}

func (o serverRateOption) String() string {
	return fmt.Sprintf("kit.WithServerRateLimit(%v)", o.maxWait)
}

// serverLimits is what each origin last said of its limit.
type serverLimits struct {
	mu sync.Mutex
	m  map[originKey]*serverLimit // by origin: scheme, host, port
}

// serverLimit is one origin's announced state.
type serverLimit struct {
	reset     time.Time
	limit     int // 0: not announced
	remaining int
}

// maxAnnounced clamps the numbers a server announces.
const maxAnnounced = math.MaxInt32

// maxReset is the furthest reset believed.
const maxReset = 365 * 24 * time.Hour

// take counts one request to origin: it returns the state when none is
// left before its reset.
func (s *serverLimits) take(origin originKey, now time.Time) (serverLimit, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.m[origin]
	if l == nil {
		return serverLimit{}, false
	}
	if !now.Before(l.reset) {
		delete(s.m, origin) // reset: nothing known
		return serverLimit{}, false
	}
	if l.remaining == 0 {
		return *l, true
	}
	l.remaining--
	return serverLimit{}, false
}

func (s *serverLimits) update(origin originKey, l serverLimit) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = make(map[originKey]*serverLimit)
	}
	s.m[origin] = &l
}

// serverLayer is the chain's server-rate-limit layer: a request to an
// origin that said it has no requests left before its reset waits for the
// reset (up to the client's WithServerRateLimit), or fails with a
// *RateLimitError; what each response says of its limit is kept.
func (l *limitLayers) serverLayer(next Sender) Sender {
	return func(ctx context.Context, req *Request) (*Response, error) {
		origin := originOf(req.URL)
		now := time.Now()
		if said, exhausted := l.server.take(origin, now); exhausted {
			wait := said.reset.Sub(now)
			rle := &RateLimitError{Reset: said.reset, Limit: said.limit, Remaining: 0}
			if wait > l.serverWait {
				return nil, finalError{errorf(l.secrets.opOf(req), "%w", rle)}
			}
			if dl, ok := ctx.Deadline(); ok && dl.Before(said.reset) {
				rle.Err = context.DeadlineExceeded
				return nil, finalError{errorf(l.secrets.opOf(req), "%w", rle)}
			}
			if err := sleepCtx(ctx, wait); err != nil {
				rle.Err = err
				return nil, errorf(l.secrets.opOf(req), "%w", rle)
			}
		}
		resp, err := next(ctx, req)
		// What a response says of its limit is the origin's that sent
		// it: where a redirect led, which may not be req's.
		var h http.Header
		var he *HTTPError
		switch {
		case resp != nil:
			h, origin = resp.Header, resp.originOr(req.URL)
		case errors.As(err, &he):
			h = he.Header
			if he.finalURL != nil {
				origin = originOf(he.finalURL)
			}
		}
		if said, ok := parseRateLimit(h, time.Now()); ok {
			l.server.update(origin, said)
		}
		return resp, err
	}
}

// parseRateLimit reads what a response says of its rate limit at now:
// the IETF fields when present, else the X-RateLimit ones. ok is false
// when it says nothing believable (no remaining count with a reset in
// (now, now+maxReset]).
func parseRateLimit(h http.Header, now time.Time) (serverLimit, bool) {
	if len(h) == 0 {
		return serverLimit{}, false
	}
	if v := h["Ratelimit"]; len(v) > 0 {
		if l, ok := parseIETFRateLimit(v, h["Ratelimit-Policy"], now); ok {
			return l, true
		}
	}
	rem, ok := parseCount(h.Get("X-Ratelimit-Remaining"))
	if !ok {
		return serverLimit{}, false
	}
	raw := strings.TrimSpace(h.Get("X-Ratelimit-Reset"))
	secs, err := strconv.ParseFloat(raw, 64)
	if err != nil || math.IsNaN(secs) || secs < 0 || secs > 4e9 { // 4e9: 2096, and no Duration overflow
		return serverLimit{}, false
	}
	var reset time.Time
	if secs > maxReset.Seconds() {
		// A Unix time, on the server's clock: read it against the
		// server's Date when there is one.
		at := time.Unix(0, 0).Add(time.Duration(secs * float64(time.Second)))
		if date, err := http.ParseTime(h.Get("Date")); err == nil {
			reset = now.Add(at.Sub(date))
		} else {
			reset = at
		}
	} else {
		reset = now.Add(time.Duration(secs * float64(time.Second)))
	}
	if !reset.After(now) || reset.Sub(now) > maxReset {
		return serverLimit{}, false
	}
	limit, _ := parseCount(h.Get("X-Ratelimit-Limit"))
	return serverLimit{reset: reset, limit: limit, remaining: rem}, true
}

// parseCount reads a non-negative count, clamped to maxAnnounced.
func parseCount(s string) (int, bool) {
	s = strings.TrimSpace(s)
	if s == "" || strings.Trim(s, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n > maxAnnounced {
		return maxAnnounced, true // all digits, too large
	}
	return int(n), true
}

// parseIETFRateLimit reads RateLimit and RateLimit-Policy (structured
// field lists): the item with the fewest remaining requests (the latest
// reset among equals) is the limit; its quota comes from the policy of the
// same name.
func parseIETFRateLimit(lines, policies []string, now time.Time) (serverLimit, bool) {
	best, found := serverLimit{}, false
	bestName := ""
	for _, it := range sfItems(lines) {
		r, rok := parseCount(it.params["r"])
		t, tok := parseCount(it.params["t"])
		if !rok || !tok || t == 0 || time.Duration(t)*time.Second > maxReset {
			continue
		}
		reset := now.Add(time.Duration(t) * time.Second)
		if !found || r < best.remaining || (r == best.remaining && reset.After(best.reset)) {
			best, bestName, found = serverLimit{reset: reset, remaining: r}, it.name, true
		}
	}
	if !found {
		return serverLimit{}, false
	}
	for _, it := range sfItems(policies) {
		if it.name == bestName {
			best.limit, _ = parseCount(it.params["q"])
			break
		}
	}
	return best, true
}

// sfItem is one member of a structured field list (RFC 9651): a string or
// token and its parameters.
type sfItem struct {
	name   string
	params map[string]string
}

// sfItems splits structured field lists leniently: members by commas
// outside quoted strings, parameters by semicolons. A member that does not
// parse is skipped.
func sfItems(lines []string) []sfItem {
	var items []sfItem
	for _, line := range lines {
		for line != "" {
			var member string
			member, line = httpcache.NextDirective(line)
			parts := strings.Split(member, ";")
			name := strings.TrimSpace(parts[0])
			if unq, err := strconv.Unquote(name); err == nil {
				name = unq
			}
			it := sfItem{name: name, params: make(map[string]string, len(parts)-1)}
			for _, p := range parts[1:] {
				k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
				it.params[strings.TrimSpace(k)] = strings.TrimSpace(v)
			}
			items = append(items, it)
		}
	}
	return items
}
