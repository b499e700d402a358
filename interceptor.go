package kit

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/kithttp/kit/internal/jsonpath"
)

// Request is one request on its way through a client's send chain: what an
// [Interceptor] sees and may change. kit builds it from an endpoint's
// declaration and the call's parameters (or from a resource operation, or a
// page of a walk); the chain's last layer turns it into an *http.Request.
//
// Each attempt of a call gets its own copy: an attempt interceptor may change
// Header and URL freely without the change leaking into the next attempt.
// A call interceptor that changes the request changes it for every attempt.
// Interceptors must not keep a Request after they return.
type Request struct {
	Method string
	URL    *url.URL
	Header http.Header

	// Endpoint is the declaration the request comes from, such as
	// "GET /users/{id}"; the pages of a walk have "GET /users". Resource
	// operations have their method and collection path ("PUT /users/{id}").
	Endpoint string

	// GetBody returns a new reader of the request body, or is nil when the
	// request has none. Every attempt, and every interceptor that wants to
	// read the body (to sign it, say), calls it to get a reader of its own;
	// the reader is closed by whoever called GetBody. An interceptor that
	// replaces the body sets GetBody, ContentLength and the Content-Type
	// header together.
	GetBody func() (io.ReadCloser, error)

	// ContentLength is the body's length in bytes, or -1 when unknown.
	ContentLength int64

	policy  *callPolicy // the endpoint's per-call settings; never nil
	built   *url.URL    // scheme and host of the URL kit built, before any interceptor; nil: unknown
	token   *rateTicket // a rate-limit token reserved for the first attempt (a pipelined page); nil: none
	attempt int         // 1 for the first attempt, set by the retry layer
	call    *callState  // shared by the attempts of a retried call; else nil
	keyed   bool        // carries an idempotency key: a write safe to retry

	// secretPath holds the runs of path segments that secret path
	// parameters filled in URL as kit built it, for redaction (see
	// redactor); nil when none did.
	secretPath []string

	// resultAt is where the call's result is in the body (WithResultAt in
	// force, where the option's level keeps it); nil: the whole body.
	resultAt *jsonpath.Path

	// own is set on the copy the retry layer makes for one attempt: that
	// copy is the attempt's alone, and the auth layer adds its header to it
	// in place rather than copying it again. Nil on every other Request.
	own *requestCopy

	// decodes says that the caller decodes the response after send: an
	// observer's CallEnd then waits for decoded (see observer.go), in
	// observed and observedStart.
	decodes       bool
	observed      context.Context
	observedStart time.Time

	secrets *secrets    // the secrets of the client that built it, for Curl's redaction; nil: none
	timings *timingsBox // where the attempts' Timings go (Observer.MeasureTimings); nil: not measured
}

// callState is what the attempts of one call share (they run one after
// another, never at once).
type callState struct {
	refreshed bool // the auth layer renewed credentials after a 401
}

// Sender sends a request and returns its response, with the body read. It is
// what an [Interceptor] wraps: the rest of the chain below it. A Sender returns
// a non-nil [*Response] or a non-nil error, never both and never neither, and
// it returns a non-2xx status as an [*HTTPError], never as a *Response.
//
// kit holds every interceptor to this contract where its answer leaves it,
// so the layer above (another interceptor, or retry, auth and logging) can
// rely on it: a non-2xx response becomes an [*HTTPError] (so a
// NewResponse(503, ...) from an attempt interceptor is retried under
// [WithRetry] like the server's 503), a response returned with an error is
// dropped (the error wins), and neither a response nor an error is an
// error naming the interceptor.
//
// The 2xx response of an endpoint whose result is io.ReadCloser, a [Stream]
// (or a [Result] of either) is streamed: its body is not read, so its Bytes are
// nil and JSON fails, and the caller of the endpoint reads and closes it. An
// interceptor must hand such a response on (or answer with one of its own,
// made with [NewResponse], whose bytes the caller then reads); one that drops
// it leaves the connection open until the call's context ends.
type Sender func(ctx context.Context, req *Request) (*Response, error)

// Interceptor wraps the rest of a client's send chain. It may change the
// request before calling next (set a header, rewrite the URL), look at or
// replace the response or error that next returns, or answer without calling
// next at all (a cache hit, with [NewResponse]). Interceptors are composed once,
// when the client is made, and must be safe for concurrent use.
//
// Credentials go only to the base URL's origin, whoever set them, and this
// is checked where the request finally goes, after every interceptor: a
// request that an interceptor moves to another origin (a mirror, a
// failover) is sent without the Authorization, Proxy-Authorization and
// Cookie headers and the [APIKey] header, even ones the interceptor set,
// and without what the client's [Auth] added (its header or query
// parameter), as on a redirect to another origin. Headers that an endpoint
// declared on another origin sets for it (its [WithHeader], a call's header
// parameter) still go to that origin. An interceptor that sets URL to nil
// gets an error; nothing is sent.
//
// The chain runs, from outside in: call interceptors ([WithInterceptors]), the
// endpoint's timeout ([WithTimeout]), the cache ([WithCache]), retries
// ([WithRetry]), hedging ([WithHedging]), the rate limit and the server's
// ([WithLimits], [WithLimiter]), failover across base URLs ([WithFailover]),
// credentials and the one refresh-and-resend on a 401 ([WithAuth]), the
// circuit breaker ([WithCircuitBreaker]), logging ([WithLogger]), request
// compression ([WithRequestCompression]), the attempt timeout
// ([WithAttemptTimeout]), attempt interceptors ([WithAttemptInterceptors]),
// dumps and timings ([WithDump], [Observer].MeasureTimings), the in-flight
// limit of an [AsyncClient] ([Limits].MaxInFlight), and the transport: the
// engine, the body read within the limit ([WithMaxBodySize]), and non-2xx
// statuses turned into [*HTTPError].
type Interceptor func(next Sender) Sender

// WithInterceptors adds interceptors that run once per call, outermost
// first, around everything else in the chain: retries, auth and every
// attempt happen inside them. Caching, metrics and tracing belong here. It
// may be given several times; interceptors accumulate in order. Nil
// interceptors are skipped.
//
// They apply to every request of the client: endpoint calls (Call and Go),
// resource operations and every page of a walk.
func WithInterceptors(i ...Interceptor) Option {
	return &interceptorOption{list: i, attempt: false}
}

// WithAttemptInterceptors adds interceptors that run once per attempt, after
// credentials have been added: retries and the resend after a 401 go through
// them again, and they see the Authorization header. Request signing belongs
// here. Order and accumulation are as for [WithInterceptors].
func WithAttemptInterceptors(i ...Interceptor) Option {
	return &interceptorOption{list: i, attempt: true}
}

// NewResponse returns a response made without sending anything, for an
// interceptor that answers a request itself (from a cache, say). header may
// be nil. The chain fills in Request when the interceptor leaves it nil.
func NewResponse(statusCode int, header http.Header, body []byte) *Response {
	if header == nil {
		header = make(http.Header)
	}
	return &Response{StatusCode: statusCode, Header: header, body: body}
}

// Private implementation past this point.

// interceptorOption is WithInterceptors and WithAttemptInterceptors. It is
// used through a pointer, so that the option stays comparable although it
// holds a slice.
type interceptorOption struct {
	list    []Interceptor
	attempt bool
}

func (o *interceptorOption) applyClient(c *clientConfig) error {
	for _, i := range o.list {
		if i == nil {
			continue
		}
		if o.attempt {
			c.attemptInterceptors = append(c.attemptInterceptors, i)
		} else {
			c.callInterceptors = append(c.callInterceptors, i)
		}
	}
	return nil
}

func (o *interceptorOption) String() string {
	if o.attempt {
		return fmt.Sprintf("kit.WithAttemptInterceptors(%d)", len(o.list))
	}
	return fmt.Sprintf("kit.WithInterceptors(%d)", len(o.list))
}

// clone returns a copy of r whose Header and URL may be changed without
// changing r's.
func (r *Request) clone() *Request { return &r.copyOf().req }

// requestCopy is a copy of a Request with what a layer may change made its
// own, in one allocation: the URL, the header values (when they are few),
// the state of a retried call (used by the first attempt's copy), and the
// auth layer's header value and context.
type requestCopy struct {
	req     Request
	url     url.URL
	vals    [4]string
	call    callState
	authVal [1]string
	authCtx authContext
}

// copyOf returns a copy of r whose Header and URL may be changed without
// changing r's. The Header has room for one more key (the auth layer's).
func (r *Request) copyOf() *requestCopy {
	c := &requestCopy{req: *r}
	c.req.own = nil
	c.req.Header = cloneHeader(r.Header, 1, c.vals[:0])
	if r.URL != nil {
		c.url = *r.URL
		if r.URL.User != nil {
			uu := *r.URL.User
			c.url.User = &uu
		}
		c.req.URL = &c.url
	}
	return c
}

// attemptCopy is the copy of r for one attempt of a retried call: its own
// (see Request.own), sharing call, the state of the call's first attempt
// (nil for the first attempt, whose copy holds it).
func (r *Request) attemptCopy(call *callState) *Request {
	c := r.copyOf()
	if call == nil {
		call = &c.call
	}
	c.req.call, c.req.own = call, c
	return &c.req
}

// cloneHeader is http.Header.Clone with room for extra more keys, and never
// nil: the values are copied into one shared array, buf's when they fit.
func cloneHeader(h http.Header, extra int, buf []string) http.Header {
	n := 0
	for _, vs := range h {
		n += len(vs)
	}
	c := make(http.Header, len(h)+extra)
	all := buf[:cap(buf)]
	if n > len(all) {
		all = make([]string, n)
	}
	for k, vs := range h {
		if vs == nil {
			c[k] = nil
			continue
		}
		m := copy(all, vs)
		c[k] = all[:m:m]
		all = all[m:]
	}
	return c
}
