package kit

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"strings"
	"syscall"
)

// Failover is the setting of [WithFailover]: other base URLs that serve
// the same API (regional endpoints, mirrors), tried in order after the
// client's own when a request cannot reach one.
type Failover struct {
	// URLs are the other base URLs, tried in this order after the
	// client's base URL. Each is a base URL as NewClient takes one
	// (http or https, a host, maybe a path), without a query or a
	// fragment: the request keeps the query it was built with.
	URLs []string

	// BindCredentials binds the client's credentials to the origins of
	// URLs as well as to the base URL's: its Auth authenticates requests
	// to them (and renews after their 401), and the credential headers
	// of WithHeader go there too. false, the default: a request failed
	// over to another origin carries no credential, as a request that
	// an interceptor moves there (see [Interceptor]).
	BindCredentials bool
}

// WithFailover gives the client other base URLs (see [Failover]). When an
// attempt of a request built from the base URL cannot reach it, the same
// attempt goes to the next base URL at once, in the order given, until one
// answers or none is left:
//
//   - a connection that fails: a DNS failure, a refused or timed-out dial,
//     a TLS handshake that fails;
//   - a circuit of [WithCircuitBreaker] that is open: the base URL is
//     passed over without a request, so with a breaker the healthy base
//     URL is used first, and a dead one gets only the breaker's probes;
//   - a connection lost before any byte of a response (reset, closed), for
//     a request that is safe to send twice: GET, HEAD, PUT, DELETE (and
//     OPTIONS, TRACE), an endpoint declared [Idempotent], or a write with
//     an idempotency key. Any other write may have reached the server: it
//     is not sent again.
//
// A response (any status, 5xx included) is the server's answer, not a
// connection failure: it is returned as it is, and the retry policy
// ([WithRetry]) decides. So does it when every base URL failed: the attempt
// fails with the last connection failure (or, when every circuit was open,
// with the first [*CircuitOpenError]), and the next attempt starts again
// at the first base URL. Without a breaker every attempt starts at the
// client's base URL.
//
// What fails over: the requests kit builds from the base URL: endpoint
// calls, resource operations, streams (a stream's reconnection is a
// request of its own) and the first page of a walk, sync and async. A
// walk's later pages go to the base URL that served its first page: a
// next-page link stays on the origin that sent it, and a relative one
// resolves against the URL that served the page. A URL given at run time
// (a `kit:",url"` field), an endpoint declared on another origin and a
// request that an interceptor moved are sent as they are.
//
// Each try is an attempt of its own below the rate limit: it gets the
// credentials of its base URL's origin (see BindCredentials), goes
// through the circuit breaker of that origin, and reads its own copy of
// the body (a body is sent at most once per try; kit's bodies can all be
// read again). [Observer].Failover sees each move to the next base URL;
// the Response's Request.URL tells which one answered. A base URL that is
// not http or https, or one with a query, user info or a fragment, makes
// [NewClient] fail.
//
// Cost: nothing for requests that the first base URL answers; a request
// copy per further try.
func WithFailover(f Failover) Option { return failoverOption{f} }

// FailoverInfo describes a move to the next base URL, for
// [Observer].Failover.
type FailoverInfo struct {
	// Request is the request of the attempt that failed.
	Request *Request

	// From is the base URL that failed and To the one tried next, as
	// given (a query's secret values redacted).
	From, To string

	// Err is why From failed: a connection error, or a
	// [*CircuitOpenError] when its circuit was open and nothing was sent.
	Err error
}

// Private implementation past this point.

type failoverOption struct{ f Failover }

func (o failoverOption) applyClient(c *clientConfig) error {
	if len(o.f.URLs) == 0 {
		return fmt.Errorf("%s: no URL", o)
	}
	fs := &failoverSet{bind: o.f.BindCredentials}
	for i, raw := range o.f.URLs {
		u, err := parseBaseURL(raw)
		if err != nil {
			return fmt.Errorf("kit.WithFailover: URL %d: %w", i, err)
		}
		if u.RawQuery != "" || u.ForceQuery {
			return fmt.Errorf("kit.WithFailover: URL %d %q has a query: requests keep the query they were built with", i, redactURL(u))
		}
		fs.bases = append(fs.bases, newFailoverBase(u))
	}
	c.failover = fs
	return nil
}

func (o failoverOption) String() string {
	w := newLiteral("kit.WithFailover(kit.Failover{")
	if len(o.f.URLs) > 0 {
		// Redacted: a URL given with user info or a query (which
		// NewClient refuses) may hold a secret.
		urls := make([]string, len(o.f.URLs))
		for i, raw := range o.f.URLs {
			if u, err := url.Parse(raw); err == nil {
				urls[i] = strconv.Quote(redactURL(u))
			} else {
				urls[i] = `"(not a URL)"`
			}
		}
		w.field("URLs", "[]string{"+strings.Join(urls, ", ")+"}")
	}
	if o.f.BindCredentials {
		w.field("BindCredentials", true)
	}
	return w.close("})")
}

// failoverSet is a client's base URLs: bases[0] is the client's own, the
// others WithFailover's, in order.
type failoverSet struct {
	bases []failoverBase
	bind  bool // BindCredentials

	// What the layer reads of the client, set by init: its request
	// builder (the authority and prefix kit builds URLs from), its secrets
	// (for error text) and its base URL.
	builder    *requestBuilder
	secrets    *secrets
	base       *url.URL
	onFailover func(context.Context, FailoverInfo) // Observer.Failover; nil: none
}

// failoverBase is one base URL, worked out once.
type failoverBase struct {
	url          *url.URL
	scheme, host string
	path         string // the escaped path, without a trailing slash
	text         string // the URL for events and errors, redacted
}

func newFailoverBase(u *url.URL) failoverBase {
	return failoverBase{
		url:    u,
		scheme: u.Scheme,
		host:   u.Host,
		path:   strings.TrimRight(u.EscapedPath(), "/"),
		text:   redactURL(u),
	}
}

// init completes the set for st, the client being made: its base URL goes
// first. It fails when a fallback repeats the base URL, or when the base
// URL's scheme and host do not parse alone (kit then cannot tell the URLs
// it builds from it).
func (f *failoverSet) init(st *clientState) error {
	if st.builder.authority == nil {
		return fmt.Errorf("kit.WithFailover: the base URL %q cannot be failed over: its host does not parse alone", redactURL(st.base))
	}
	own := newFailoverBase(st.base)
	own.text = st.redactorOf(nil).url(st.base)
	for i, b := range f.bases {
		if b.scheme == own.scheme && strings.EqualFold(b.host, own.host) && b.path == own.path {
			return fmt.Errorf("kit.WithFailover: URL %d %q is the base URL", i, b.text)
		}
	}
	f.bases = append([]failoverBase{own}, f.bases...)
	f.builder, f.secrets, f.base = st.builder, &st.secrets, st.base
	return nil
}

// boundOrigins are the origins the client's credentials are bound to
// besides the base URL's: the fallbacks', with BindCredentials; nil
// otherwise.
func (f *failoverSet) boundOrigins() []originKey {
	if f == nil || !f.bind {
		return nil
	}
	var keys []originKey
	for _, b := range f.bases {
		keys = append(keys, originOf(b.url))
	}
	return keys
}

// holds reports whether u is under b: b's scheme and host, and a path
// that is b's or below it.
func (b *failoverBase) holds(u *url.URL) bool {
	if u.Scheme != b.scheme || u.Host != b.host {
		return false
	}
	return underPath(u.EscapedPath(), b.path)
}

// underPath reports whether the escaped path p is base or below it.
func underPath(p, base string) bool {
	return strings.HasPrefix(p, base) && (len(p) == len(base) || p[len(base)] == '/')
}

// wrap returns the failover layer on top of next. It sits under the rate
// limit and above the auth layer, so that each try gets its origin's
// credentials and circuit.
func (f *failoverSet) wrap(next Sender) Sender {
	return func(ctx context.Context, req *Request) (*Response, error) {
		if !f.eligible(req) {
			return next(ctx, req)
		}
		resp, err := next(ctx, req)
		if err == nil || !f.leaves(ctx, req, err) {
			return resp, err
		}
		return f.failOver(ctx, req, err, next)
	}
}

// eligible reports whether req fails over: kit built its URL from the base
// URL (req.built is then the client's authority itself; see parseBuilt
// and markPage), and no interceptor moved it off the base URL.
func (f *failoverSet) eligible(req *Request) bool {
	return req.built != nil && req.built == f.builder.authority && req.URL != nil && f.bases[0].holds(req.URL)
}

// failOver tries the other base URLs after the first failed with err.
func (f *failoverSet) failOver(ctx context.Context, req *Request, err error, next Sender) (*Response, error) {
	var buf [4]error
	errs := append(buf[:0], err) // each base URL's error, in order
	prev := req                  // the attempt that failed
	for i := 1; i < len(f.bases); i++ {
		if f.onFailover != nil {
			f.onFailover(ctx, FailoverInfo{Request: prev, From: f.bases[i-1].text, To: f.bases[i].text, Err: err})
		}
		a, ok := f.move(req, i)
		if !ok {
			break
		}
		prev = a
		var resp *Response
		resp, err = next(ctx, a)
		if err == nil || !f.leaves(ctx, a, err) {
			return resp, err
		}
		errs = append(errs, err)
	}
	return nil, f.triesError(req, errs)
}

// triesError is the error of an attempt of req that every base URL failed
// with errs: the last connection failure, with each base URL's in its
// text; or, when every circuit was open, the first *CircuitOpenError, as
// one breaker refuses.
func (f *failoverSet) triesError(req *Request, errs []error) error {
	var last error
	for _, err := range errs {
		if !errors.Is(err, ErrCircuitOpen) {
			last = err
		}
	}
	if last == nil {
		return errs[0]
	}
	op := f.secrets.opOf(req)
	text := make([]string, len(errs))
	for i, err := range errs {
		text[i] = f.bases[i].text + ": " + detail(op, err)
	}
	return errorf(op, "no base URL answered: %w", triesError{strings.Join(text, "; "), last})
}

// triesError is the error of an attempt that every base URL failed: its
// text lists each base URL's failure, and it unwraps to the last
// connection failure, which the retry policy judges.
type triesError struct {
	text string
	last error
}

func (e triesError) Error() string { return e.text }
func (e triesError) Unwrap() error { return e.last }

// move returns a copy of req for base URL i: its URL's scheme, host and
// base path are base i's, the rest (path below the base, query) as built.
// The copy keeps req.built (the base URL's authority), so that
// confineCredentials counts it as moved: unless the client's credentials
// are bound to base i's origin, it carries none.
func (f *failoverSet) move(req *Request, i int) (*Request, bool) {
	from, to := &f.bases[0], &f.bases[i]
	esc := req.URL.EscapedPath()
	path := to.path + esc[len(from.path):]
	p, err := url.PathUnescape(path)
	if err != nil {
		return nil, false
	}
	a := req.attemptCopy(req.call)
	a.attempt = req.attempt
	a.URL.Scheme, a.URL.Host = to.scheme, to.host
	a.URL.Path, a.URL.RawPath = p, path
	return a, true
}

// leaves reports whether err, the error of an attempt of req, sends the
// attempt to the next base URL: nothing of a response came, and either
// nothing was sent or req is safe to send twice.
func (f *failoverSet) leaves(ctx context.Context, req *Request, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	if errors.Is(err, ErrCircuitOpen) {
		return true // refused by the breaker: nothing was sent
	}
	var ns noResponse
	if !errors.As(err, &ns) {
		return false // a response came (or the error is not the engine's)
	}
	if neverSent(ns.err) {
		return true
	}
	return !refusalsOnly(req) && connectionLost(ns.err)
}

// neverSent reports whether err, an engine's error, means that no byte of
// the request reached a server: a DNS failure, a failed dial, a failed
// TLS handshake.
func neverSent(err error) bool {
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return true
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return true
	}
	var (
		recordErr   tls.RecordHeaderError
		verifyErr   *tls.CertificateVerificationError
		unknownAuth x509.UnknownAuthorityError
		hostErr     x509.HostnameError
		certErr     x509.CertificateInvalidError
		alertErr    tls.AlertError
	)
	return errors.As(err, &recordErr) || errors.As(err, &verifyErr) || errors.As(err, &unknownAuth) ||
		errors.As(err, &hostErr) || errors.As(err, &certErr) || errors.As(err, &alertErr)
}

// connectionLost reports whether err, an engine's error, is a connection
// that ended before a response: the request may have reached the server.
func connectionLost(err error) bool {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNABORTED) || errors.Is(err, syscall.EPIPE) {
		return true
	}
	var h2 h2StreamError
	if errors.As(err, &h2) {
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, "http2: server sent GOAWAY") || strings.Contains(msg, "http2: client connection lost") ||
		strings.Contains(msg, "transport connection broken")
}

// noResponse marks an engine's error in the transport's: no response
// came, as opposed to an error reading a response's body. Its text is the
// engine error's, and it unwraps to it.
type noResponse struct{ err error }

func (e noResponse) Error() string { return e.err.Error() }
func (e noResponse) Unwrap() error { return e.err }

// markPage makes req, a page request of a walk on the base URL's origin,
// fail over like an endpoint call: a walk's pages before the first one
// served (see pinWalk).
func (f *failoverSet) markPage(req *Request) {
	if req.URL != nil && f.bases[0].holds(req.URL) {
		req.built = f.builder.authority
	}
}

// servedBy returns the index of the fallback base URL that served resp,
// or 0 when the client's own did (or none of them).
func (f *failoverSet) servedBy(resp *Response) int {
	if resp == nil || resp.Request == nil || resp.Request.URL == nil {
		return 0
	}
	for i := 1; i < len(f.bases); i++ {
		if f.bases[i].holds(resp.Request.URL) {
			return i
		}
	}
	return 0
}

// pinWalk keeps a walk on the base URL that served its page resp: when a
// fallback did, the collection's URL moves there and the walk's origin
// becomes the fallback's, so that its next pages, links included, stay on
// it. A walk of another origin's paged endpoint is left as it is.
func (f *failoverSet) pinWalk(w *walk, resp *Response) {
	if w.origin != f.base {
		return
	}
	i := f.servedBy(resp)
	if i == 0 {
		return
	}
	b := &f.bases[i]
	prefix := f.builder.prefix
	if !strings.HasPrefix(w.base, prefix) {
		return
	}
	w.base = b.scheme + "://" + b.host + b.path + w.base[len(prefix):]
	w.origin = b.url
}
