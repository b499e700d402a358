package kit

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Client is a synchronous API client: it owns a base URL, an engine (by
// default a tuned *http.Client), an optional auth strategy, headers sent on
// every request and a validator. Endpoints are called through it with
// [Endpoint.Call], and resources are bound to it with [NewResource].
//
// A Client is safe for concurrent use by multiple goroutines and should be
// made once and reused. Embed the pointer in your own API type:
//
//	type GitHub struct {
//		*kit.Client
//		Repos *kit.Resource[Repo]
//	}
type Client struct {
	st *clientState
}

// NewClient returns a [Client] for the API at baseURL. baseURL must be an
// absolute http or https URL; its path is a prefix of every endpoint path.
// An endpoint path is appended to the base URL's path with exactly one "/"
// between them: "https://h/api/v1" and "https://h/api/v1/" both give
// "https://h/api/v1/users" for "/users" (and for "users"). Query parameters
// in baseURL are sent with every request.
//
// The default engine is an *http.Client with keep-alive, HTTP/2 where the
// server offers it, a 10 s dial timeout and a 10 s TLS handshake timeout.
// It opens up to 1,024 connections per host and keeps as many idle (closing
// them after 90 s unused), so that a burst of concurrent calls reuses the
// connections of the one before instead of dialling again; a call past the
// limit waits for a connection, with its context. It has no overall
// timeout: bound calls with their context. It does not forward credentials
// across origins on a redirect.
func NewClient(baseURL string, opts ...Option) (*Client, error) {
	st, err := newClientState("NewClient", baseURL, opts, func(c *clientConfig) any { return c.httpClient })
	if err != nil {
		return nil, err
	}
	return &Client{st: st}, nil
}

// BaseURL returns a copy of the client's base URL; nil for a [Client] that
// [NewClient] did not make (a nil or zero Client).
func (c *Client) BaseURL() *url.URL {
	if c == nil || c.st == nil {
		return nil
	}
	u := *c.st.base
	return &u
}

// Close closes the idle connections of the client's engine, when the engine
// has a CloseIdleConnections method (as *http.Client does). The client stays
// usable; new calls open new connections.
//
// Close of a [Client] that [NewClient] did not make (a nil or zero Client)
// returns an error matching [ErrNilBinding].
func (c *Client) Close() error {
	if c == nil || c.st == nil {
		return errorf("Client.Close", "%w: the Client was not made by NewClient", ErrNilBinding)
	}
	c.st.closeIdle()
	return nil
}

func (c *Client) binding() *clientState {
	if c == nil {
		return nil
	}
	return c.st
}

// Private implementation past this point.

// clientConfig collects what the options set. newClientState keeps its
// requestConfig and validator; newLayers builds the send chain's layers
// from the rest, each taking only its own part.
type clientConfig struct {
	// requestConfig is what the request options set for every request of
	// the client: its header (never nil), maxBody (DefaultMaxBodySize
	// unless set), retry (nil: no retries), errorModel, bodyCheck,
	// idemHeader ("": no keys), timeout, resultAt, maxPages and prefetch.
	requestConfig

	engine     any
	httpClient *http.Client
	auth       Auth
	validator  Validator
	maxFlight  int
	limiter    Limiter                    // WithLimits, WithLimiter, WithRateLimit; nil: no limit
	serverRate time.Duration              // WithLimits, WithServerRateLimit's maxWait; 0: off
	cache      CacheStore                 // WithCache; nil: no cache
	logger     *slog.Logger               // WithLogger; nil: no logging
	observer   *Observer                  // WithObserver; nil: none
	decode     func(*http.Response) error // WithResponseCompression: decodeResponse; nil: Go's transport decodes gzip
	breaker    *breakerSet                // WithCircuitBreaker; nil: none
	failover   *failoverSet               // WithFailover; nil: none

	callInterceptors    []Interceptor // WithInterceptors
	attemptInterceptors []Interceptor // WithAttemptInterceptors
}

// clientState is what every binding of one client shares: the base URL,
// the request builder (request.go), the engines, the send chains built over
// them, the async work tracker, and what the layers of the chains share (the
// redactor's secrets, the origin rule). Each layer holds its own
// configuration and state (see send.go); the client keeps a layer only
// where a call outside the chain needs it (the limits, for a walk's window;
// the observation, around a call). It is immutable after construction
// except for what its fields synchronise themselves.
type clientState struct {
	// requestConfig is the client's level of the request options (see
	// clientConfig): the defaults of every request the client builds.
	requestConfig
	validator Validator

	base    *url.URL
	home    homeOrigin      // base's origin, the only one credentials go to
	builder *requestBuilder // builds the requests of every call (request.go)

	engine     any          // WithEngine's, or the constructor's default
	httpClient *http.Client // WithHTTPClient's or a tuned one, guarded (see guardHTTPClient)
	syncEng    Engine       // nil when the engine lacks the protocol
	asyncEng   AsyncEngine  // nil when the engine lacks the protocol
	// engineName names the engine in errors: its Go type, or what users
	// know kit's own async engine as.
	engineName string

	syncChain  Sender // the send chain through syncEng; nil without it
	asyncChain Sender // the send chain through asyncEng; nil without it

	decode   func(*http.Response) error // WithResponseCompression: decodes zstd, br and gzip; nil: off
	breaker  *breakerLayer              // WithCircuitBreaker's layer, for tests' fake clock; nil: none
	failover *failoverSet               // WithFailover's base URLs, for a walk's pages; nil: none
	secrets  secrets                    // query parameter names this client redacts
	work     tracker                    // async work in flight, for AsyncClient.Close (see async.go)

	limits  *limitLayers // the chains' limits, for a walk's window and its tokens
	observe *observation // nil: no Observer
}

// newClientState applies opts and builds the client's send chains.
// defaultEngine makes the engine when no engine option gave one.
func newClientState(ctor, baseURL string, opts []Option, defaultEngine func(*clientConfig) any) (*clientState, error) {
	base, err := parseBaseURL(baseURL)
	if err != nil {
		return nil, errorf(ctor, "%w", err)
	}
	cfg := &clientConfig{
		requestConfig: requestConfig{
			header:     make(http.Header),
			callPolicy: callPolicy{maxBody: DefaultMaxBodySize},
		},
		validator: defaultValidator,
	}
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o.applyClient(cfg); err != nil {
			return nil, errorf(ctor, "%w", err)
		}
	}
	st := &clientState{
		requestConfig: cfg.requestConfig,
		validator:     cfg.validator,
		base:          base,
		home:          homeOrigin{base: base, key: originOf(base), bound: cfg.failover.boundOrigins()},
	}
	if cfg.httpClient == nil {
		cfg.httpClient = newDefaultHTTPClient()
	}
	switch a := cfg.auth.(type) {
	case *apiKeyAuth:
		st.secrets.apiKeyHeader = a.header
	case *apiKeyQueryAuth:
		st.secrets.add(a.param)
	}
	// A copy whose CheckRedirect strips credentials on a redirect to another
	// origin; a caller's client is left as it is.
	cfg.httpClient = st.guardHTTPClient(cfg.httpClient)
	st.httpClient = cfg.httpClient
	st.builder = newRequestBuilder(base, &st.requestConfig, st.validator, &st.home, &st.secrets)
	if cfg.failover != nil {
		if err := cfg.failover.init(st); err != nil {
			return nil, errorf(ctor, "%w", err)
		}
	}
	st.engine = cfg.engine
	if st.engine == nil {
		st.engine = defaultEngine(cfg)
	}
	st.syncEng, _ = st.engine.(Engine)
	st.asyncEng, _ = st.engine.(AsyncEngine)
	st.engineName = fmt.Sprintf("%T", st.engine)
	if _, ok := st.engine.(*asyncEngine); ok {
		st.engineName = "NewAsyncClient's default engine"
	}
	st.decode = cfg.decode
	setAcceptEncoding(st.header, st.decode != nil)
	if err := st.buildChains(cfg); err != nil {
		return nil, err
	}
	return st, nil
}

func parseBaseURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		// url.Error's text repeats the whole URL, which may hold a secret.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, fmt.Errorf("bad base URL: %w", err)
	}
	if u.User != nil {
		return nil, fmt.Errorf("bad base URL %q: has user info; use kit.WithAuth(kit.Basic(user, password)) instead", redactURL(u))
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
	case "":
		return nil, fmt.Errorf("bad base URL %q: no scheme (want http:// or https://)", redactURL(u))
	default:
		return nil, fmt.Errorf("bad base URL %q: scheme %q is not http or https", redactURL(u), u.Scheme)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("bad base URL %q: no host", redactURL(u))
	}
	if u.Fragment != "" {
		return nil, fmt.Errorf("bad base URL %q: has a fragment", redactURL(u))
	}
	u.Scheme = strings.ToLower(u.Scheme)
	return u, nil
}

func (st *clientState) closeIdle() {
	type idleCloser interface{ CloseIdleConnections() }
	if hc, ok := st.engine.(*http.Client); ok {
		closeIdleOf(hc)
	} else if ic, ok := st.engine.(idleCloser); ok {
		ic.CloseIdleConnections()
	}
	if st.httpClient != nil && any(st.httpClient) != st.engine {
		closeIdleOf(st.httpClient)
	}
}

// closeIdleOf closes hc's idle connections unless hc sends through the
// process-wide http.DefaultTransport (a nil Transport), which other code
// shares: closing it would break their requests in flight.
func closeIdleOf(hc *http.Client) {
	if hc.Transport == nil || hc.Transport == http.DefaultTransport {
		return
	}
	hc.CloseIdleConnections()
}
