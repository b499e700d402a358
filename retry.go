package kit

import (
	"cmp"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// RetryPolicy says when and how often a failed request is sent again. It is
// given to [WithRetry]; zero fields take the documented defaults, so
// RetryPolicy{} is a sensible policy.
//
// Retrying is off by default: kit cannot know whether a PUT or DELETE is
// truly idempotent on a given API, and retries that nobody asked for
// multiply the load on a server that is already failing. One option,
// WithRetry, turns it on for a client or an endpoint.
//
// With a policy in force, a request is retried when
//
//   - its method is idempotent (GET, HEAD, PUT, DELETE, OPTIONS, TRACE), or
//     it is any other method (POST, PATCH) of an endpoint declared with
//     Idempotent() or of a call that carries an idempotency key (see
//     WithIdempotencyHeader and IdempotencyKey); and
//   - RetryIf (by default Retryable) says the failed attempt's error is
//     worth another: Retryable says yes to a connection error (refused,
//     reset, closed early, including a 2xx body cut short) and to a
//     response with one of Statuses.
//
// One failure is retried whatever the method: a 429 Too Many Requests is a
// refusal made before the request was processed (RFC 6585), so a POST that
// got one is sent again (after its Retry-After) when RetryIf agrees.
//
// It is not retried when the call's context is cancelled or past its
// deadline (the caller's own, or the endpoint's [WithTimeout]), on a body
// over the size limit ([ErrBodyTooLarge]), on TLS and certificate errors, on
// errors about the URL itself (such as an unsupported scheme), nor on
// decoding or validation errors.
//
// The wait before retry n (n = 1 for the first retry) is chosen with full
// jitter: uniformly in [0, min(MaxDelay, BaseDelay*2^(n-1))]. A response
// with a Retry-After header (seconds or an HTTP date) is retried after that
// long instead; a Retry-After over MaxRetryAfter ends retrying at once and
// the response is returned (as an [*HTTPError]). Waits use the call's
// context: a context that ends during a wait ends the call with an error
// matching the context's error. A wait that would end after the context's
// deadline is not taken: the last error is returned at once.
//
// A [Stream] of server-sent events that drops after events with an id is
// resumed under the same policy, with Last-Event-ID (see Stream): the
// server's retry field, capped by MaxDelay, or the backoff, is the wait
// before reconnecting, and MaxAttempts bounds the drops in a row without
// a new event; MaxElapsed applies to each reconnection's own retries, not
// to the stream, which may last for hours.
//
// Every attempt replays the same request: same URL, headers and body bytes.
// The refresh-and-resend on a 401 (see [Refresher]) is separate: it happens
// at most once per call and does not count as an attempt. When a call
// fails after more than one attempt, its error says how many were made
// ("kit: GET https://h/x: giving up after 4 attempts: ...") and wraps the
// last error, so errors.As(err, &httpErr) and errors.Is still work. The
// body of a response that is retried is drained and closed.
//
// A RetryPolicy is a plain value: WithRetry copies it (Statuses included),
// so changing it afterwards has no effect on clients or endpoints. The
// option WithRetry returns is immutable and may be shared; clients and
// endpoints configured with it stay safe for concurrent use, each call
// keeping its own attempt count and timing.
type RetryPolicy struct {
	// MaxAttempts is the number of attempts in all, the first included.
	// 0 means DefaultRetryMaxAttempts (4); 1 means never retry.
	MaxAttempts int

	// MaxElapsed bounds the time from the start of the call to the start
	// of the last attempt, waits included: a retry whose wait would end
	// after MaxElapsed is not made and the last error is returned. It does
	// not cut an attempt in flight (bound that with the call's context or
	// WithTimeout). 0 means DefaultRetryMaxElapsed (30 s).
	MaxElapsed time.Duration

	// BaseDelay is the bound of the first backoff wait; each retry doubles
	// it, up to MaxDelay (exponential backoff, full jitter).
	// 0 means DefaultRetryBaseDelay (100 ms).
	BaseDelay time.Duration

	// MaxDelay caps one backoff wait. 0 means DefaultRetryMaxDelay (5 s).
	MaxDelay time.Duration

	// MaxRetryAfter is the longest Retry-After kit waits for. A longer one
	// ends retrying and the response is returned.
	// 0 means DefaultRetryMaxRetryAfter (60 s).
	MaxRetryAfter time.Duration

	// Statuses are the response statuses that are retried, each in
	// 400..599. nil means 429, 502, 503 and 504 (DefaultRetryStatuses);
	// an empty non-nil slice retries connection errors only. They are
	// Retryable's rule: a RetryIf of one's own decides without them.
	Statuses []int

	// RetryIf decides whether a failed attempt is retried, from its
	// error: an *HTTPError (status, headers, body, error model; a body
	// that WithBodyCheck refused is one too, with its 2xx status) or a
	// connection error. It sees only the failures that the method rule
	// leaves open (see above), and never a cancelled call, nor an error
	// that no attempt can cure (credentials that cannot be added, a body
	// that cannot be opened). A server's hints decide this way: a
	// "Stripe-Should-Retry: false" or "x-should-retry" header, an error
	// code in the body. Call Retryable for the default rule. nil means
	// Retryable. It must be safe for concurrent use.
	RetryIf func(err error) bool
}

// Retryable is the default rule of RetryPolicy.RetryIf: it reports whether
// err is worth another attempt. It is true for a connection error (refused,
// reset, closed early, a 2xx body cut short, an attempt that
// [WithAttemptTimeout] cut short, a body silent past [WithIdleTimeout]; not a TLS or certificate
// error, not an error about the URL, not ErrBodyTooLarge, not a cancelled
// or expired context) and for an *HTTPError whose status is one of the
// Statuses of the RetryPolicy in force for the call that returned it (kit's
// HTTPErrors carry it; DefaultRetryStatuses when none was in force). It is
// false for nil, decoding and validation errors, and the errors of
// requests that were never sent.
func Retryable(err error) bool {
	if err == nil {
		return false
	}
	var final finalError
	if errors.As(err, &final) {
		return false
	}
	var he *HTTPError
	if errors.As(err, &he) {
		if he.retry != nil {
			return he.retry.retryStatus(he.StatusCode)
		}
		return slices.Contains(DefaultRetryStatuses(), he.StatusCode)
	}
	var de *DecodeError
	var ve *ValidationError
	if errors.As(err, &de) || errors.As(err, &ve) {
		return false
	}
	return retryableError(context.Background(), err)
}

// Defaults of the zero fields of a RetryPolicy.
const (
	DefaultRetryMaxAttempts   = 4
	DefaultRetryMaxElapsed    = 30 * time.Second
	DefaultRetryBaseDelay     = 100 * time.Millisecond
	DefaultRetryMaxDelay      = 5 * time.Second
	DefaultRetryMaxRetryAfter = 60 * time.Second
)

// DefaultRetryStatuses returns the statuses retried when
// RetryPolicy.Statuses is nil: 429 Too Many Requests, 502 Bad Gateway, 503
// Service Unavailable and 504 Gateway Timeout.
func DefaultRetryStatuses() []int {
	return []int{http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout}
}

// WithRetry turns retrying on with policy p (see [RetryPolicy]), a
// [RequestOption]. On a client it is the policy of every request of the
// client: endpoints, resource operations and every page of a walk. On a
// declaration it is that endpoint's, or that resource's operations', policy
// and wins over the client's. On a call it is the policy of that one call
// and wins over both. A negative field, or a status outside 400..599,
// makes [NewClient] (or the declaration, or the call) fail.
//
// [Resource] operations follow the method rule of RetryPolicy: Get, List,
// Update, Delete and the pages of an iteration are retried; Create (POST)
// and Patch (PATCH) are retried only after a 429, or when they carry an
// idempotency key ([WithIdempotencyHeader], [IdempotencyKey]), since kit
// cannot know otherwise that the API deduplicates them. Declare your own
// endpoint with Idempotent() for a POST that is safe to resend.
func WithRetry(p RetryPolicy) RequestOption {
	p.Statuses = slices.Clone(p.Statuses)
	return requestOption[retryOption]{retryOption{&p, newRetrier(&p)}}
}

// NoRetry is the off switch of [WithRetry], a [RequestOption]: on a
// declaration, an endpoint (or a resource's operations) that is never
// retried, whatever the client's policy; on a call, that one call is sent
// once, whatever the declaration's and the client's policies; on a client,
// no policy (the default). Of WithRetry and NoRetry given at one level, the
// last wins.
func NoRetry() RequestOption { return requestOption[noRetryOption]{} }

// Private implementation past this point.

// retryOption holds the policy as given (for String and its checks) and
// the retrier made from it once, which every call under it shares.
type retryOption struct {
	p    *RetryPolicy
	plan *retrier
}

func (o retryOption) applyRequest(c *requestConfig, _ level) error {
	if err := checkRetryPolicy(o.p); err != nil {
		return fmt.Errorf("%s: %w", o.call(), err)
	}
	c.retry, c.noRetry, c.setRetry = o.plan, false, true
	return nil
}

func (o retryOption) String() string { return "kit." + o.call() }

// call is the option as its call, the policy's zero fields left out:
// WithRetry(kit.RetryPolicy{MaxAttempts: 3}).
func (o retryOption) call() string {
	p := o.p
	w := newLiteral("WithRetry(kit.RetryPolicy{")
	if p.MaxAttempts != 0 {
		w.field("MaxAttempts", p.MaxAttempts)
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"MaxElapsed", p.MaxElapsed}, {"BaseDelay", p.BaseDelay}, {"MaxDelay", p.MaxDelay}, {"MaxRetryAfter", p.MaxRetryAfter}} {
		if d.v != 0 {
			w.field(d.name, d.v)
		}
	}
	if p.Statuses != nil {
		w.field("Statuses", fmt.Sprintf("%#v", p.Statuses))
	}
	if p.RetryIf != nil {
		w.field("RetryIf", "func(error) bool {...}")
	}
	return w.close("})")
}

type noRetryOption struct{}

func (noRetryOption) applyRequest(c *requestConfig, _ level) error {
	c.retry, c.noRetry, c.setRetry = nil, true, true
	return nil
}
func (noRetryOption) String() string { return "kit.NoRetry()" }

func checkRetryPolicy(p *RetryPolicy) error {
	switch {
	case p.MaxAttempts < 0:
		return fmt.Errorf("MaxAttempts %d is negative", p.MaxAttempts)
	case p.MaxElapsed < 0:
		return fmt.Errorf("MaxElapsed %v is negative", p.MaxElapsed)
	case p.BaseDelay < 0:
		return fmt.Errorf("BaseDelay %v is negative", p.BaseDelay)
	case p.MaxDelay < 0:
		return fmt.Errorf("MaxDelay %v is negative", p.MaxDelay)
	case p.MaxRetryAfter < 0:
		return fmt.Errorf("MaxRetryAfter %v is negative", p.MaxRetryAfter)
	}
	for _, s := range p.Statuses {
		if s < 400 || s > 599 {
			return fmt.Errorf("status %d is not in 400..599", s)
		}
	}
	return nil
}

// retrier is a RetryPolicy with its defaults filled in. WithRetry makes it
// once; it is never changed after, and every call under the policy shares
// it (what is a call's own, its start and attempt count, the retry layer
// keeps on its stack).
type retrier struct {
	maxAttempts   int
	maxElapsed    time.Duration
	baseDelay     time.Duration
	maxDelay      time.Duration
	maxRetryAfter time.Duration
	statuses      []int
	retryIf       func(error) bool // RetryIf, or Retryable
}

// newRetrier fills in the defaults of p.
func newRetrier(p *RetryPolicy) *retrier {
	r := &retrier{
		maxAttempts:   cmp.Or(p.MaxAttempts, DefaultRetryMaxAttempts),
		maxElapsed:    cmp.Or(p.MaxElapsed, DefaultRetryMaxElapsed),
		baseDelay:     cmp.Or(p.BaseDelay, DefaultRetryBaseDelay),
		maxDelay:      cmp.Or(p.MaxDelay, DefaultRetryMaxDelay),
		maxRetryAfter: cmp.Or(p.MaxRetryAfter, DefaultRetryMaxRetryAfter),
		statuses:      p.Statuses,
		retryIf:       p.RetryIf,
	}
	if r.statuses == nil {
		r.statuses = DefaultRetryStatuses()
	}
	if r.retryIf == nil {
		r.retryIf = Retryable
	}
	return r
}

// retryLayer is the chain's retry layer: it sends each attempt of a call
// that may be retried as a fresh copy of the request, and decides after a
// failed one whether another follows (see RetryPolicy). It holds the
// client's retry plan, its secrets (for error text) and the observer's
// Retry hook, no more.
type retryLayer struct {
	plan    *retrier                         // the client's WithRetry; nil: none
	secrets *secrets                         // the client's, for error text
	onRetry func(context.Context, RetryInfo) // Observer.Retry; nil: none
}

// wrap returns the layer on top of next.
func (l *retryLayer) wrap(next Sender) Sender {
	return func(ctx context.Context, req *Request) (*Response, error) {
		rt := l.plan.inForce(req)
		if rt == nil {
			return next(ctx, req)
		}
		start := time.Now()
		refusals := refusalsOnly(req) // a write without a key: only a 429 is retried
		var call *callState           // the first attempt's
		for attempt := 1; ; attempt++ {
			a := req.attemptCopy(call)
			call = a.call
			a.attempt = attempt
			resp, err := next(ctx, a)
			if err == nil {
				return resp, nil
			}
			op := l.secrets.opOf(req)
			var header http.Header
			var he *HTTPError
			var final finalError
			switch {
			case errors.As(err, &final):
				return nil, attemptsError(op, attempt, false, "", err)
			case errors.As(err, &he):
				if refusals && he.StatusCode != http.StatusTooManyRequests {
					return nil, attemptsError(op, attempt, false, "", err)
				}
				header = he.Header
			case refusals, ctx.Err() != nil:
				return nil, attemptsError(op, attempt, false, "", err)
			}
			if !rt.retryIf(err) {
				return nil, attemptsError(op, attempt, false, "", err)
			}
			wait, reason, ok := rt.next(ctx, start, attempt, header)
			if !ok {
				return nil, attemptsError(op, attempt, true, reason, err)
			}
			if l.onRetry != nil {
				l.onRetry(ctx, RetryInfo{Request: req, Attempt: attempt, Err: err, Wait: wait, Timings: req.timings.get()})
			}
			if werr := sleepCtx(ctx, wait); werr != nil {
				return nil, errorf(op, "waiting to retry after %s (last: %v): %w", attemptsText(attempt), err, werr)
			}
		}
	}
}

// forPolicy returns the retry plan in force for a request with policy pol
// of a client whose plan is r (nil: none): the call's or the endpoint's,
// else the client's unless NoRetry; nil when none is.
func (r *retrier) forPolicy(pol *callPolicy) *retrier {
	if pol == nil {
		return r
	}
	if pol.retry != nil || pol.noRetry {
		return pol.retry
	}
	return r
}

// inForce returns the retry plan of req, a request of a client whose plan
// is r (nil: none), or nil when req is not retried: no policy applies, the
// endpoint or the call said NoRetry, or MaxAttempts is 1. (A write that is
// neither declared Idempotent nor keyed is retried only after a 429: see
// refusalsOnly.)
func (r *retrier) inForce(req *Request) *retrier {
	p := r.forPolicy(req.policy)
	if p == nil || p.maxAttempts <= 1 {
		return nil
	}
	return p
}

// refusalsOnly reports whether the method rule leaves only a 429 (a
// refusal before processing) to retry for req: a write that is neither
// declared Idempotent nor carries an idempotency key.
func refusalsOnly(req *Request) bool {
	return !req.policy.idempotent && !req.keyed && !idempotentMethod(req.Method)
}

func idempotentMethod(m string) bool {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPut, http.MethodDelete, http.MethodOptions, http.MethodTrace:
		return true
	}
	return false
}

// retryStatus reports whether a response with this status is retried.
func (r *retrier) retryStatus(code int) bool {
	return r != nil && slices.Contains(r.statuses, code)
}

// backoff is the jittered wait before the retry that follows attempt n
// (1-based).
func (r *retrier) backoff(n int) time.Duration {
	bound := r.maxDelay
	if shift := n - 1; shift < 62 {
		if d := r.baseDelay << shift; d > 0 && d>>shift == r.baseDelay && d < bound {
			bound = d
		}
	}
	if bound <= 0 {
		return 0
	}
	return time.Duration(rand.Int64N(int64(min(bound, math.MaxInt64-1)) + 1))
}

// next decides whether attempt n (1-based) of a call that started at
// start, which failed, is followed by another: it returns the wait and
// true, or a reason to stop. header is the failed response's header (nil
// after a connection error).
func (r *retrier) next(ctx context.Context, start time.Time, n int, header http.Header) (time.Duration, string, bool) {
	if n >= r.maxAttempts {
		return 0, "", false
	}
	wait := r.backoff(n)
	if ra, ok := retryAfter(header, time.Now()); ok {
		if ra > r.maxRetryAfter {
			return 0, fmt.Sprintf("Retry-After %v exceeds %v", ra, r.maxRetryAfter), false
		}
		wait = ra
	}
	end := time.Now().Add(wait)
	if end.Sub(start) > r.maxElapsed {
		return 0, fmt.Sprintf("the next retry would pass MaxElapsed %v", r.maxElapsed), false
	}
	if dl, ok := ctx.Deadline(); ok && end.After(dl) {
		return 0, "the next retry would pass the context's deadline", false
	}
	return wait, "", true
}

// retryAfter parses a Retry-After header: delay-seconds or an HTTP date.
func retryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if allDigits(v) {
		// delay-seconds (RFC 9110 section 10.2.3): digits only. A value
		// too large for int64, or for a Duration, is as long as can be.
		secs, err := strconv.ParseInt(v, 10, 64)
		if err != nil || secs > int64(math.MaxInt64/time.Second) {
			return time.Duration(math.MaxInt64), true
		}
		return time.Duration(secs) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// sleepCtx waits d or until ctx ends, returning ctx's error in that case.
func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// retryableError reports whether err, from sending a request or reading
// its body, is a connection error worth another attempt. ctx is the call's
// context: once it has ended nothing is retried.
func retryableError(ctx context.Context, err error) bool {
	if err == nil || ctx.Err() != nil {
		return false
	}
	if errors.Is(err, ErrAttemptTimeout) || errors.Is(err, ErrIdleTimeout) {
		return true
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrBodyTooLarge) {
		return false
	}
	// *url.Error wraps whatever net/http's client returns and is itself a
	// net.Error: judge what it wraps. One that wraps nothing of the kinds
	// below is about the URL itself (an unsupported scheme, a bad host).
	for {
		var ue *url.Error
		if !errors.As(err, &ue) || ue.Err == nil {
			break
		}
		err = ue.Err
	}
	var (
		recordErr   tls.RecordHeaderError
		verifyErr   *tls.CertificateVerificationError
		unknownAuth x509.UnknownAuthorityError
		hostErr     x509.HostnameError
		certErr     x509.CertificateInvalidError
		alertErr    tls.AlertError
	)
	if errors.As(err, &recordErr) || errors.As(err, &verifyErr) || errors.As(err, &unknownAuth) ||
		errors.As(err, &hostErr) || errors.As(err, &certErr) || errors.As(err, &alertErr) {
		return false
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return dnsErr.IsTemporary || dnsErr.IsTimeout
	}
	// An HTTP/2 stream reset, before the headers or in the middle of the
	// body, is the same abort as a reset connection over HTTP/1.1.
	// net/http's stream error fills any struct of its shape through its
	// As method, so kit need not import x/net.
	var h2 h2StreamError
	if errors.As(err, &h2) {
		return true
	}
	if msg := err.Error(); strings.Contains(msg, "http2: server sent GOAWAY") || strings.Contains(msg, "http2: client connection lost") {
		return true
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.ECONNABORTED) || errors.Is(err, syscall.EPIPE) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne)
}

// h2StreamError has the shape of net/http's HTTP/2 stream error (a
// RST_STREAM from the peer), which errors.As fills field by field.
type h2StreamError struct {
	StreamID uint32
	Code     uint32
	Cause    error
}

func (e h2StreamError) Error() string {
	return fmt.Sprintf("HTTP/2 stream %d reset (code %d)", e.StreamID, e.Code)
}

func attemptsText(n int) string {
	if n == 1 {
		return "1 attempt"
	}
	return strconv.Itoa(n) + " attempts"
}

// attemptsError is the error of a call that failed after attempt n: err
// itself after one attempt, else err with how many attempts were made.
// reason, when set, says why retrying stopped before MaxAttempts.
func attemptsError(op string, n int, exhausted bool, reason string, err error) error {
	if n <= 1 {
		return err
	}
	verb := "failed after"
	if exhausted {
		verb = "giving up after"
	}
	if reason != "" {
		return errorf(op, "%s %d attempts (%s): %w", verb, n, reason, err)
	}
	return errorf(op, "%s %d attempts: %w", verb, n, err)
}
