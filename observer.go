package kit

import (
	"context"
	"errors"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Observer receives the events of a client's calls that interceptors cannot
// see: a call's beginning and end (a streamed call ends when its body is
// closed), each retry and why, a token renewal, a cache hit, a page walk's
// beginning, pages and end, and a stream's end. Metrics and tracing
// libraries build on it (kitotel is one); every field is optional, and a
// client without an observer pays nothing for the hooks.
//
// The events name the declaration a request comes from (Request.Endpoint,
// such as "GET /users/{id}", and its path template "/users/{id}"), never
// the raw URL, so metrics keyed by them have one series per declaration.
//
// The funcs are called synchronously with the call's context, on the
// goroutine making the call (for an AsyncClient, the call's own goroutine;
// for a walk's events, the goroutine ranging over it), except that the
// CallEnd of a streamed result and StreamEnd run on whichever goroutine
// ends the stream: the one closing it, or one of the context's when it
// ends. They must be safe for concurrent use and quick; a panic in one
// is a panic of the call, except on a goroutine of the context's: there
// it is recovered, and the stream's range (or the body's Read), or else
// its Close, returns it once as an error matching [*PanicError]; the
// stream is released all the same. They must not keep the Request or
// Response after they return, nor change them, with one exception:
// CallStart may set headers on the request (trace context), which every
// attempt sends.
type Observer struct {
	// CallStart is called when a call enters the client's chain: an
	// endpoint call, a resource operation, one page of a walk, or the
	// reconnection of a stream. The context it returns (nil: ctx) is
	// the call's from then on: every layer of the chain, the other
	// events of the call and CallEnd get it.
	CallStart func(ctx context.Context, c CallInfo) context.Context

	// CallEnd is called once per CallStart (and per call when CallStart
	// is nil), with the context CallStart returned, when the call has its
	// result or its error: after decoding the body (a panic while
	// decoding skips it). For an io.ReadCloser result it is called when
	// the body is closed; for a Stream, when the stream ends (Close, the
	// last record, an error or the end of its context), after StreamEnd;
	// a resumed stream's reconnections are calls of their own, each ended
	// when its connection closes.
	CallEnd func(ctx context.Context, c CallResult)

	// Retry is called when an attempt has failed and another follows,
	// before the wait.
	Retry func(ctx context.Context, r RetryInfo)

	// TokenRenewal is called when a call has renewed the client's
	// credentials, after the renewal: once per fetch of a TokenAuth's
	// token (the first, an expired one's, the refresh after a 401), by the
	// call that started the fetch (calls that wait for it report none),
	// and once per Refresh of another Refresher after a 401.
	TokenRenewal func(ctx context.Context, t TokenRenewalInfo)

	// CacheHit is called by the client's cache layer (WithCache) when it
	// answers a call from the cache: a fresh stored response, or a stale
	// one the server confirmed with a 304. The call's CallStart and
	// CallEnd still happen around it; no attempt is made for a fresh hit.
	CacheHit func(ctx context.Context, h CacheHitInfo)

	// WalkStart is called when ranging over a page walk begins (Iterate,
	// Pages, All and their async forms). The context it returns (nil:
	// ctx) is the walk's: every page's call is made with it.
	WalkStart func(ctx context.Context, w WalkInfo) context.Context

	// Page is called for each page of a walk, before it is handed to the
	// caller, with the walk's context.
	Page func(ctx context.Context, p PageInfo)

	// WalkEnd is called once per WalkStart, with the walk's context, when
	// ranging ends: after the last page, on an error, or when the caller
	// breaks out.
	WalkEnd func(ctx context.Context, w WalkResult)

	// StreamEnd is called once when a Stream ends (Close, the last record,
	// an error, or the end of its context), with the context its call's
	// CallStart returned, before its call's CallEnd.
	StreamEnd func(ctx context.Context, s StreamResult)

	// LogAttrs, when set, adds attributes to every record that WithLogger
	// logs: it is given the attempt's context and the record's attributes
	// and returns them with its own appended (the trace and span IDs of
	// the context, say).
	LogAttrs func(ctx context.Context, attrs []slog.Attr) []slog.Attr

	// Poll is called after each poll of a long-running operation by a
	// [Poller] (whose GET is also a call, with CallStart and CallEnd),
	// with the poll's outcome and the wait before the next.
	Poll func(ctx context.Context, p PollInfo)

	// MeasureTimings asks for each attempt's phases (DNS, connect, TLS,
	// first byte, body: see [Timings]), measured with net/http/httptrace
	// and reported in CallResult.Timings (the last attempt's) and
	// RetryInfo.Timings (the failed attempt's). It costs a few allocations
	// per attempt; without it nothing is measured.
	MeasureTimings bool

	// Circuit is called when a circuit of the client's breaker
	// (WithCircuitBreaker) changes state, with the context of the attempt
	// that saw the change.
	Circuit func(ctx context.Context, c CircuitInfo)

	// Hedge is called when a call sends a hedge (WithHedging): another
	// attempt while the first is still out.
	Hedge func(ctx context.Context, h HedgeInfo)

	// Failover is called when an attempt moves to the next base URL of
	// WithFailover, because the one before failed to connect or had
	// its circuit open.
	Failover func(ctx context.Context, f FailoverInfo)
}

// WithObserver installs o's hooks on the client. It may be given several
// times: every observer sees every event, in the order given (contexts
// returned by CallStart and WalkStart are passed from one to the next).
func WithObserver(o Observer) Option { return observerOption{&o} }

// CallInfo describes a call, as the chain is about to send it.
type CallInfo struct {
	// Request is the call's request: its Method, URL, Header and
	// Endpoint. CallStart may set headers on it; nothing else may change.
	Request *Request

	// Endpoint is the declaration, such as "GET /users/{id}" (see
	// Request.Endpoint); Method and Template are its two parts, "GET"
	// and "/users/{id}".
	Endpoint, Method, Template string

	// Start is when the call entered the chain.
	Start time.Time

	secrets *secrets
}

// URL returns the call's URL as text for a trace or a log, with user
// info, the values of secret-looking query parameters (and of those the
// client's Auth puts in the query), and the path segments that fill a
// secret-looking template parameter ({token}, {api_key}, ..., and every
// segment of a {token...}) replaced by "REDACTED", as in kit's errors and
// logs. Other path parameters (an id) are kept: they make the URL what it
// is, which is why metrics and span names use Template instead.
func (c CallInfo) URL() string {
	if c.Request == nil || c.Request.URL == nil {
		return ""
	}
	r := redactor{secrets: c.secrets, path: c.Request.secretPath}
	u := c.Request.URL
	if r.path == nil {
		// A Request kit did not build (a test's): its path is matched
		// against the template instead.
		if p, ok := redactPath(c.Template, u.EscapedPath()); ok {
			cu := *u
			cu.Path, cu.RawPath = "", ""
			if pu, err := url.Parse(p); err == nil {
				cu.Path, cu.RawPath = pu.Path, pu.RawPath
				u = &cu
			}
		}
	}
	return r.url(u)
}

// CallResult is how a call ended.
type CallResult struct {
	CallInfo

	// Response is the 2xx response; nil when none came (Err is then
	// set).
	Response *Response

	// Err is the call's error: an *HTTPError for a non-2xx status, a
	// *DecodeError or *ValidationError for a 2xx body that does not
	// decode into the result (endpoint calls, resource operations and
	// pages report the end of the call after decoding), or another error
	// (connection, timeout, credentials, ...).
	Err error

	// StatusCode is the response's status: Response's, or the
	// *HTTPError's; 0 when no response came.
	StatusCode int

	// Streamed is true when the result was a streamed body (an
	// io.ReadCloser or a Stream), which CallEnd reports once closed.
	Streamed bool

	// Timings are the phases of the call's last attempt, when an
	// observer of the client set MeasureTimings; zero otherwise, and for
	// a call that made no attempt (a cache hit).
	Timings Timings
}

// RetryInfo describes a retry: attempt Attempt failed with Err, and
// attempt Attempt+1 follows after Wait.
type RetryInfo struct {
	// Request is the call's request.
	Request *Request

	// Attempt is the number of the attempt that failed, from 1.
	Attempt int

	// Err is why it is retried: an *HTTPError (its status is retried
	// by the policy) or a connection error.
	Err error

	// Wait is how long the client waits before the next attempt
	// (backoff or Retry-After).
	Wait time.Duration

	// Timings are the failed attempt's phases, when an observer of the
	// client set MeasureTimings.
	Timings Timings
}

// TokenRenewalInfo describes a renewal of the client's credentials.
type TokenRenewalInfo struct {
	// Request is the request of the call that renewed them.
	Request *Request

	// After401 is true for the refresh after a 401 response, false for
	// the first fetch and for the renewal of a token about to expire.
	After401 bool

	// Duration is how long the renewal took.
	Duration time.Duration

	// Err is the renewal's error; nil when it succeeded.
	Err error
}

// CacheHitInfo describes a call answered from the cache.
type CacheHitInfo struct {
	// Request is the call's request.
	Request *Request

	// Revalidated is true when the stored response was stale and the
	// server confirmed it with a 304.
	Revalidated bool
}

// WalkInfo describes a page walk.
type WalkInfo struct {
	// Endpoint is the declaration of its pages' requests, such as
	// "GET /users"; Method and Template are its two parts.
	Endpoint, Method, Template string

	// Start is when ranging began.
	Start time.Time
}

// PageInfo describes a page of a walk.
type PageInfo struct {
	WalkInfo

	// Page is its number in the walk, from 1.
	Page int

	// Records is how many records it holds.
	Records int

	// Response is the page's response.
	Response *Response
}

// WalkResult is how a walk ended.
type WalkResult struct {
	WalkInfo

	// Pages is how many pages were fetched and checked.
	Pages int

	// Err is the error the walk yielded; nil when it ended at its last
	// page, at WithMaxPages, or because the caller stopped.
	Err error
}

// StreamResult is how a Stream ended.
type StreamResult struct {
	// Request is the request that opened the stream.
	Request *Request

	// Records is how many records were decoded.
	Records int

	// Err is the error that ended the stream: a read, decoding or
	// validation error, or the context's; nil when it reached its end
	// or was closed by the caller.
	Err error
}

// Private implementation past this point.

type observerOption struct{ o *Observer }

func (o observerOption) applyClient(c *clientConfig) error {
	if c.observer == nil {
		c.observer = o.o
		return nil
	}
	c.observer = mergeObservers(c.observer, o.o)
	return nil
}

func (o observerOption) String() string { return "kit.WithObserver(...)" }

// mergeObservers returns an Observer that calls a's hooks, then b's.
func mergeObservers(a, b *Observer) *Observer {
	m := &Observer{
		CallEnd:      both(a.CallEnd, b.CallEnd),
		Retry:        both(a.Retry, b.Retry),
		TokenRenewal: both(a.TokenRenewal, b.TokenRenewal),
		CacheHit:     both(a.CacheHit, b.CacheHit),
		Page:         both(a.Page, b.Page),
		WalkEnd:      both(a.WalkEnd, b.WalkEnd),
		StreamEnd:    both(a.StreamEnd, b.StreamEnd),
		Poll:         both(a.Poll, b.Poll),
		Circuit:      both(a.Circuit, b.Circuit),
		Hedge:        both(a.Hedge, b.Hedge),
		Failover:     both(a.Failover, b.Failover),
		CallStart:    chainCtx(a.CallStart, b.CallStart),
		WalkStart:    chainCtx(a.WalkStart, b.WalkStart),
		LogAttrs:     a.LogAttrs,

		MeasureTimings: a.MeasureTimings || b.MeasureTimings,
	}
	if f, g := a.LogAttrs, b.LogAttrs; f != nil && g != nil {
		m.LogAttrs = func(ctx context.Context, attrs []slog.Attr) []slog.Attr { return g(ctx, f(ctx, attrs)) }
	} else if g != nil {
		m.LogAttrs = g
	}
	return m
}

func both[E any](f, g func(context.Context, E)) func(context.Context, E) {
	switch {
	case f == nil:
		return g
	case g == nil:
		return f
	}
	return func(ctx context.Context, e E) { f(ctx, e); g(ctx, e) }
}

func chainCtx[E any](f, g func(context.Context, E) context.Context) func(context.Context, E) context.Context {
	switch {
	case f == nil:
		return g
	case g == nil:
		return f
	}
	return func(ctx context.Context, e E) context.Context {
		if c := f(ctx, e); c != nil {
			ctx = c
		}
		if c := g(ctx, e); c != nil {
			ctx = c
		}
		return ctx
	}
}

// observation is the client's Observer where it watches calls, walks and
// streams from outside the chain (the chain's own hooks, Retry,
// TokenRenewal, CacheHit and LogAttrs, are given to its layers): it holds
// the Observer, which of its hooks are set, and the client's secrets (for
// the URLs it reports).
type observation struct {
	o       *Observer
	secrets *secrets
	calls   bool // CallStart, CallEnd, StreamEnd or MeasureTimings: send goes through it
	walks   bool // WalkStart, Page or WalkEnd
}

// newObservation returns the observation of o for a client whose secrets
// are sec; nil for a nil o.
func newObservation(o *Observer, sec *secrets) *observation {
	if o == nil {
		return nil
	}
	return &observation{
		o:       o,
		secrets: sec,
		calls:   o.CallStart != nil || o.CallEnd != nil || o.StreamEnd != nil || o.MeasureTimings,
		walks:   o.WalkStart != nil || o.Page != nil || o.WalkEnd != nil,
	}
}

// send is the client's send with the observer's CallStart and CallEnd
// around the chain.
func (ob *observation) send(ctx context.Context, chain Sender, req *Request) (*Response, error) {
	o := ob.o
	info := CallInfo{Request: req, Endpoint: req.Endpoint, Start: time.Now(), secrets: ob.secrets}
	info.Method, info.Template = splitEndpoint(req.Endpoint, req.Method)
	octx := ctx
	if o.MeasureTimings {
		req.timings = &timingsBox{}
	}
	if o.CallStart != nil {
		if c := o.CallStart(ctx, info); c != nil {
			octx = c
		}
	}
	resp, err := chain(octx, req)
	if o.CallEnd == nil {
		if err == nil && resp.stream != nil {
			resp.observed = octx
		}
		return resp, err
	}
	res := CallResult{CallInfo: info, Response: resp, Err: err, Timings: req.timings.get()}
	if resp != nil {
		res.StatusCode = resp.StatusCode
	} else if he, ok := errors.AsType[*HTTPError](err); ok {
		res.StatusCode = he.StatusCode
	}
	if err == nil && resp.stream == nil && req.decodes {
		// CallEnd waits for the caller's decoding (see decoded).
		req.observed, req.observedStart = octx, info.Start
		return resp, nil
	}
	if err == nil && resp.stream != nil {
		res.Streamed = true
		end := &streamedEnd{fire: func() { o.CallEnd(octx, res) }}
		resp.observed, resp.observedEnd = octx, end
		resp.stream.onClose(end.bodyClosed)
		return resp, nil
	}
	o.CallEnd(octx, res)
	return resp, err
}

// streamedEnd is the CallEnd of a streamed call: fired when its body is
// closed, unless a Stream claimed it to fire it when the stream ends,
// after StreamEnd (its body may close before, when a connection drops and
// the stream resumes, or when its context ends). It fires once.
type streamedEnd struct {
	mu      sync.Mutex
	claimed bool
	done    bool
	fire    func()
}

func (e *streamedEnd) bodyClosed() {
	e.mu.Lock()
	if e.claimed || e.done {
		e.mu.Unlock()
		return
	}
	e.done = true
	e.mu.Unlock()
	e.fire()
}

// claim makes the Stream responsible for firing; false when the body has
// already closed and fired it.
func (e *streamedEnd) claim() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.done {
		return false
	}
	e.claimed = true
	return true
}

// finish fires it, once.
func (e *streamedEnd) finish() {
	e.mu.Lock()
	if e.done {
		e.mu.Unlock()
		return
	}
	e.done = true
	e.mu.Unlock()
	e.fire()
}

// decoded ends the observed call of req, whose response resp the caller
// has decoded, with err the decoding's error, and returns err. It does
// nothing when send did not leave the end to it.
func (st *clientState) decoded(req *Request, resp *Response, err error) error {
	if req.observed == nil {
		return err
	}
	return st.observe.decoded(req, resp, err)
}

// decoded is the client's decoded of a call whose end send left to it.
func (ob *observation) decoded(req *Request, resp *Response, err error) error {
	octx := req.observed
	req.observed = nil
	info := CallInfo{Request: req, Endpoint: req.Endpoint, Start: req.observedStart, secrets: ob.secrets}
	info.Method, info.Template = splitEndpoint(req.Endpoint, req.Method)
	ob.o.CallEnd(octx, CallResult{CallInfo: info, Response: resp, Err: err, StatusCode: resp.StatusCode, Timings: req.timings.get()})
	return err
}

// streams reports whether the observer watches the end of streams
// (StreamEnd); false for a nil ob.
func (ob *observation) streams() bool { return ob != nil && ob.o.StreamEnd != nil }

// streamEnd reports the end of a stream.
func (ob *observation) streamEnd(ctx context.Context, r StreamResult) { ob.o.StreamEnd(ctx, r) }

// splitEndpoint returns the method and path template of a declaration
// "GET /users/{id}"; method is used when it has no method.
func splitEndpoint(endpoint, method string) (string, string) {
	if m, t, ok := strings.Cut(endpoint, " "); ok {
		return m, t
	}
	return method, endpoint
}

// walkObserver is what a walk with an observer keeps to report its
// pages and its end.
type walkObserver struct {
	o    *Observer
	ctx  context.Context
	info WalkInfo
	err  error
}

// walk reports the start of a walk of d and returns the walk's context
// and its observer; nil when the client has no walk hooks (or no observer:
// a nil ob).
func (ob *observation) walk(ctx context.Context, d *endpointDecl) (context.Context, *walkObserver) {
	if ob == nil || !ob.walks {
		return ctx, nil
	}
	o := ob.o
	wo := &walkObserver{o: o, info: WalkInfo{Endpoint: d.name, Start: time.Now()}}
	wo.info.Method, wo.info.Template = splitEndpoint(d.name, d.method)
	if o.WalkStart != nil {
		if c := o.WalkStart(ctx, wo.info); c != nil {
			ctx = c
		}
	}
	wo.ctx = ctx
	return ctx, wo
}

// page reports page n.
func (wo *walkObserver) page(n, records int, resp *Response) {
	if wo.o.Page != nil {
		wo.o.Page(wo.ctx, PageInfo{WalkInfo: wo.info, Page: n, Records: records, Response: resp})
	}
}

// end reports the end of the walk after pages pages.
func (wo *walkObserver) end(pages int) {
	if wo.o.WalkEnd != nil {
		wo.o.WalkEnd(wo.ctx, WalkResult{WalkInfo: wo.info, Pages: pages, Err: wo.err})
	}
}
