package kit

import (
	"context"
	"crypto/rand"
	"net/http"
)

// Private implementation past this point.
//
// send.go assembles the send chain that every request takes, sync or async:
// endpoint calls, resource operations and every page of a walk. It is built
// once, when the client is made, from these layers, outside in:
//
//	call interceptors   WithInterceptors                 interceptor.go
//	timeout             WithTimeout                      timeout.go
//	cache               WithCache                        cache.go
//	retry               WithRetry                        retry.go
//	hedging             WithHedging                      hedge.go
//	rate limit          WithLimiter, WithRateLimit       ratelimit.go
//	server rate limit   WithServerRateLimit              ratelimit_server.go
//	auth                WithAuth, refresh on a 401       auth.go
//	circuit breaker     WithCircuitBreaker               circuit_breaker.go
//	logging             WithLogger                       logging.go
//	request compression WithRequestCompression           compression.go
//	sent check          WithCache                        cache_sent.go
//	attempt interceptors WithAttemptInterceptors         interceptor.go
//	in-flight limit     WithMaxInFlight (async only)     inflight.go
//	transport           the engine, body, *HTTPError     transport.go
//
// A layer that a client does not use (no logger, no rate limit, no auth) is
// left out of its chain. Each layer reads the call's endpoint settings from
// Request.policy; nothing is copied between layers.
//
// Every layer keeps the Sender contract (a non-nil response iff a nil
// error; a non-2xx status as an *HTTPError). kit's own layers keep it by
// construction; each interceptor's answer is checked where it leaves the
// interceptor (hop), so the layers above it never see a non-2xx *Response.

// buildChains makes the client's sync chain (when its engine implements
// Engine) and async chain (when it implements AsyncEngine).
func (st *clientState) buildChains() error {
	if st.cache != nil && len(st.attemptInterceptors) > 0 {
		st.cacheClient = rand.Text() // see cacheIdentityOf
	}
	if st.syncEng != nil {
		c, err := st.chain(st.syncTransport, jarOf(st.syncEng))
		if err != nil {
			return err
		}
		st.syncChain = c
	}
	if st.asyncEng != nil {
		st.slots = newSemaphore(st.maxFlight)
		c, err := st.chain(st.inflightLayer(st.asyncTransport), jarOf(st.asyncEng))
		if err != nil {
			return err
		}
		st.asyncChain = c
	}
	return nil
}

// chain stacks the layers on top of transport. jar is the cookie jar of
// the engine transport sends through (nil when it has none, or kit cannot
// tell), for the cache.
func (st *clientState) chain(transport Sender, jar http.CookieJar) (Sender, error) {
	s, err := st.wrapChecked(transport, st.attemptInterceptors, "WithAttemptInterceptors")
	if err != nil {
		return nil, err
	}
	if st.cache != nil {
		s = sentCheckLayer(s, jar)
	}
	s = st.requestCompressLayer(s)
	if st.logger != nil {
		s = st.loggingLayer(s)
	}
	if st.breaker != nil {
		s = st.breakerLayer(s)
	}
	if st.auth != nil {
		s = st.authLayer(s)
	}
	if st.serverRate > 0 {
		s = st.serverRateLayer(s)
	}
	if st.limiter != nil {
		s = st.rateLimitLayer(s)
	}
	s = st.hedgeLayer(s)
	s = st.retryLayer(s)
	if st.cache != nil {
		s = st.cacheLayer(s, jar)
	}
	s = timeoutLayer(s)
	s = st.urlGuardLayer(s)
	return st.wrapChecked(s, st.callInterceptors, "WithInterceptors")
}

// urlGuardLayer is the first layer under the call interceptors: a request
// that one of them left without a URL ends with an error, before any layer
// looks at the URL (the cache's key, the server's rate limit, the auth's
// origin check). The transport checks again, after the attempt
// interceptors.
func (st *clientState) urlGuardLayer(next Sender) Sender {
	return func(ctx context.Context, req *Request) (*Response, error) {
		if req.URL == nil {
			return nil, errorf(st.opOf(req), "%w", errNilURL)
		}
		return next(ctx, req)
	}
}

// send runs req through chain (the client's sync or async chain). What
// comes back already keeps the Sender contract: the transport and kit's
// own layers keep it, and every interceptor's answer is checked where it
// leaves the interceptor (see hop).
func (st *clientState) send(ctx context.Context, chain Sender, req *Request) (*Response, error) {
	if ctx == nil {
		return nil, errorf(st.opOf(req), "nil Context")
	}
	if o := st.observer; o != nil && (o.CallStart != nil || o.CallEnd != nil || o.StreamEnd != nil) {
		return st.observeSend(ctx, chain, req)
	}
	return chain(ctx, req)
}

// chainFor returns the client's send chain for the engine protocol a caller
// needs: the async chain (AsyncEngine) for Go, async walks and
// AsyncResource, else the sync one (Engine). When the client's engine lacks
// it, nothing can be sent, and the error is an *EngineError naming
// endpoint. The protocols themselves are resolved once, in
// newClientState.
func (st *clientState) chainFor(async bool, endpoint string) (Sender, error) {
	chain := st.syncChain
	if async {
		chain = st.asyncChain
	}
	if chain == nil {
		return nil, st.engineError(async, endpoint)
	}
	return chain, nil
}

// engineError is the *EngineError of a call of endpoint that needs the
// async protocol (async) or the sync one, which the client's engine lacks.
func (st *clientState) engineError(async bool, endpoint string) *EngineError {
	lacks := "kit.Engine"
	if async {
		lacks = "kit.AsyncEngine"
	}
	return &EngineError{Engine: st.engineName, Lacks: lacks, Endpoint: endpoint}
}

// wrapChecked applies interceptors to next, the first one outermost, and
// reports an interceptor that returns a nil Sender. The Sender each
// interceptor returns is wrapped by hop, so the layer above it (another
// interceptor, or kit's retry, auth and logging layers) sees an answer that
// keeps the Sender contract.
func (st *clientState) wrapChecked(next Sender, list []Interceptor, option string) (Sender, error) {
	for i := len(list) - 1; i >= 0; i-- {
		s := list[i](next)
		if s == nil {
			return nil, errorf("NewClient", "%s: interceptor %d returned a nil Sender", option, i)
		}
		next = st.hop(s, option, i)
	}
	return next, nil
}

// hop wraps s, the Sender that interceptor i of option returned, so that
// its answer keeps the Sender contract for the layer above: a non-nil
// response iff a nil error, and a non-2xx status as an *HTTPError, never a
// *Response. Without the check, a NewResponse(503, ...) from an attempt
// interceptor would reach the retry layer as a success and never be
// retried. The check costs a few comparisons on a 2xx answer, and no
// allocation.
func (st *clientState) hop(s Sender, option string, i int) Sender {
	return func(ctx context.Context, req *Request) (*Response, error) {
		resp, err := s(ctx, req)
		if err == nil && resp != nil && resp.Request != nil && is2xx(resp.StatusCode) {
			return resp, nil
		}
		return st.checkAnswer(req, resp, err, option, i)
	}
}

// checkAnswer is hop's slow path: it makes what interceptor i of option
// answered to req keep the Sender contract.
//
//   - An error wins over a response given with it; the response is dropped,
//     and a streamed one closed, which releases its connection and what the
//     layers below held for it.
//   - Neither a response nor an error is an error naming the interceptor.
//   - A response made with NewResponse gets a Request (req's), on a copy,
//     since an interceptor may hand one Response to several calls.
//   - A non-2xx response becomes an *HTTPError, as the transport's would
//     (a streamed response whose status an interceptor changed is closed
//     unread, so that error has no Body).
func (st *clientState) checkAnswer(req *Request, resp *Response, err error, option string, i int) (*Response, error) {
	if err != nil {
		if resp != nil && resp.stream != nil {
			resp.stream.Close()
		}
		return nil, err
	}
	if resp == nil {
		return nil, errorf(st.opOf(req), "%s: interceptor %d returned neither a response nor an error", option, i)
	}
	if resp.Request == nil {
		c := *resp
		c.Request = &http.Request{Method: req.Method, URL: req.URL, Header: req.Header}
		if req.URL != nil {
			c.Request.Host = req.URL.Host
		}
		c.redact = st.redactorOf(req)
		resp = &c
	} else if resp.redact.secrets == nil {
		// Made with NewResponse for a Request of the interceptor's: its
		// URL is reported as req's would be.
		c := *resp
		c.redact = st.redactorOf(req)
		resp = &c
	}
	if is2xx(resp.StatusCode) {
		return resp, nil
	}
	if resp.stream != nil {
		// A streamed 2xx response whose status an interceptor changed. Its
		// body is not read (a stream of events may never end): it is
		// closed, and the *HTTPError has no Body.
		resp.stream.Close()
	}
	body := resp.body
	if len(body) > MaxErrorBodySize {
		body = body[:MaxErrorBodySize] // as the transport keeps of a server's
	}
	return nil, st.httpError(req.policy, resp.redact, resp.Request, resp.Request, resp.StatusCode, resp.Header, body)
}

func is2xx(code int) bool { return code >= 200 && code <= 299 }
