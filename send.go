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
//	layer                 option                           file                 type
//	call interceptors     WithInterceptors                 interceptor.go       (the client's)
//	timeout               WithTimeout                      timeout.go           (stateless)
//	cache                 WithCache                        cache.go             cacheLayer
//	retry                 WithRetry                        retry.go             retryLayer
//	hedging               WithHedging                      hedge.go             hedgeLayer
//	rate limit            WithLimits, WithLimiter          ratelimit.go         limitLayers
//	server rate limit     WithLimits, WithServerRateLimit  ratelimit_server.go  limitLayers
//	failover              WithFailover                     failover.go          failoverSet
//	auth                  WithAuth, refresh on a 401       auth.go              authLayer
//	circuit breaker       WithCircuitBreaker               circuit_breaker.go   breakerLayer
//	logging               WithLogger                       logging.go           logLayer
//	request compression   WithRequestCompression           compression.go       compressLayer
//	attempt timeout       WithAttemptTimeout               attempt_timeout.go   attemptTimeouts
//	sent check            WithCache                        cache_sent.go        (stateless)
//	attempt interceptors  WithAttemptInterceptors          interceptor.go       (the client's)
//	wire                  WithDump, Observer.MeasureTimings wire.go             wireLayer
//	in-flight limit       WithLimits (async only)          inflight.go          limitLayers
//	transport             the engine, body, *HTTPError     transport.go         (the client's)
//
// Each layer type is built once with the client from its clientConfig
// (layers, below) and holds only its own configuration and state; what
// one needs of another is given to it then (the cache gets the auth layer,
// whose credentials key its entries, and the logger), and what they all
// share is the client's secrets, for the URLs in their error text. The
// observer's hooks go to the layers that fire them (Retry to retry,
// TokenRenewal to auth, CacheHit to cache, LogAttrs to logging, Hedge to
// hedging, Circuit to the breaker). Each layer holds the client's default
// of its setting (WithHedging, WithAttemptTimeout, WithDump, ...); a
// request's own, from its policy, wins. A layer
// is immutable once built except for what its fields synchronise
// themselves (the server limits' mutex, the in-flight semaphore, the auth
// layer's last token identity), so a chain is safe for concurrent use.
//
// A layer that a client does not use (no logger, no rate limit, no auth) is
// left out of its chain. Each layer reads the call's endpoint settings from
// Request.policy; nothing is copied between layers.
//
// Every layer keeps the Sender contract (a non-nil response iff a nil
// error; a non-2xx status as an *HTTPError). kit's own layers keep it by
// construction; each interceptor's answer is checked where it leaves the
// interceptor (hop), so the layers above it never see a non-2xx *Response.

// layers are the layer types of a client's chains, built once from its
// configuration and shared by its sync and async chains; cache, auth and
// log are nil when the client does not use them.
type layers struct {
	call, attempt []Interceptor
	cache         *cacheLayer
	retry         *retryLayer
	limits        *limitLayers
	auth          *authLayer
	log           *logLayer
	breaker       *breakerLayer
	hedge         *hedgeLayer
	compress      *compressLayer
	attemptLimit  attemptTimeouts
	wire          *wireLayer
	secrets       *secrets // for the URL guard's errors
	failover      *failoverSet
}

// newLayers builds the layers of c for st, the client being made.
func newLayers(c *clientConfig, st *clientState) *layers {
	sec := &st.secrets
	o := c.observer
	if o == nil {
		o = &Observer{}
	}
	ly := &layers{
		call:    c.callInterceptors,
		attempt: c.attemptInterceptors,
		retry:   &retryLayer{plan: c.retry, secrets: sec, onRetry: o.Retry},
		limits:  newLimitLayers(c, sec, st.asyncEng != nil),
		auth:    newAuthLayer(c.auth, st.home, sec, o.TokenRenewal),

		hedge:        &hedgeLayer{set: c.hedge, onHedge: o.Hedge},
		compress:     &compressLayer{enc: c.compress},
		attemptLimit: attemptTimeouts{d: c.attemptTimeout, secrets: sec},
		wire:         &wireLayer{dump: c.dump, secrets: sec},
		secrets:      sec,
	}
	if c.breaker != nil {
		ly.breaker = &breakerLayer{set: c.breaker, onCircuit: o.Circuit, secrets: sec}
	}
	if c.failover != nil {
		ly.failover = c.failover
		ly.failover.onFailover = o.Failover
	}
	if c.logger != nil {
		ly.log = &logLayer{logger: c.logger, logAttrs: o.LogAttrs, secrets: sec}
	}
	if c.cache != nil {
		ly.cache = &cacheLayer{cache: c.cache, auth: ly.auth, logger: c.logger, secrets: sec, onHit: o.CacheHit}
		if len(c.attemptInterceptors) > 0 {
			ly.cache.clientID = rand.Text() // see cacheIdentityOf
		}
	}
	return ly
}

// buildChains builds the layers of c and makes the client's sync chain
// (when its engine implements Engine) and async chain (when it implements
// AsyncEngine).
func (st *clientState) buildChains(c *clientConfig) error {
	ly := newLayers(c, st)
	st.limits = ly.limits
	st.breaker = ly.breaker
	st.failover = ly.failover
	st.observe = newObservation(c.observer, &st.secrets)
	if st.syncEng != nil {
		c, err := st.chain(ly, st.syncTransport, jarOf(st.syncEng))
		if err != nil {
			return err
		}
		st.syncChain = c
	}
	if st.asyncEng != nil {
		c, err := st.chain(ly, ly.limits.inflightLayer(st.asyncTransport), jarOf(st.asyncEng))
		if err != nil {
			return err
		}
		st.asyncChain = c
	}
	return nil
}

// chain stacks the layers ly on top of transport. jar is the cookie jar
// of the engine transport sends through (nil when it has none, or kit
// cannot tell), for the cache.
func (st *clientState) chain(ly *layers, transport Sender, jar http.CookieJar) (Sender, error) {
	s, err := st.wrapChecked(ly.wire.wrap(transport), ly.attempt, "WithAttemptInterceptors")
	if err != nil {
		return nil, err
	}
	if ly.cache != nil {
		s = sentCheckLayer(s, jar)
	}
	s = ly.attemptLimit.wrap(s)
	s = ly.compress.wrap(s)
	if ly.log != nil {
		s = ly.log.wrap(s)
	}
	if ly.breaker != nil {
		s = ly.breaker.wrap(s)
	}
	if ly.auth != nil {
		s = ly.auth.wrap(s)
	}
	if ly.failover != nil {
		s = ly.failover.wrap(s)
	}
	if ly.limits.serverWait > 0 {
		s = ly.limits.serverLayer(s)
	}
	if ly.limits.limiter != nil {
		s = ly.limits.rateLayer(s)
	}
	s = ly.hedge.wrap(s)
	s = ly.retry.wrap(s)
	if ly.cache != nil {
		s = ly.cache.wrap(s, jar)
	}
	s = timeoutLayer(s)
	s = urlGuardLayer(s, ly.secrets)
	return st.wrapChecked(s, ly.call, "WithInterceptors")
}

// urlGuardLayer is the first layer under the call interceptors: a request
// that one of them left without a URL ends with an error, before any layer
// looks at the URL (the cache's key, the server's rate limit, the auth's
// origin check). The transport checks again, after the attempt
// interceptors.
func urlGuardLayer(next Sender, sec *secrets) Sender {
	return func(ctx context.Context, req *Request) (*Response, error) {
		if req.URL == nil {
			return nil, errorf(sec.opOf(req), "%w", errNilURL)
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
	if ob := st.observe; ob != nil && ob.calls {
		return ob.send(ctx, chain, req)
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
