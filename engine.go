package kit

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"time"
)

// Engine is the synchronous protocol: it sends one request and returns its
// response, like http.Client.Do. *http.Client satisfies it. Implementations
// must be safe for concurrent use and must not modify the request.
type Engine interface {
	Do(req *http.Request) (*http.Response, error)
}

// AsyncEngine is the asynchronous protocol: Go starts sending a request and
// returns at once with a [Future] of its response. Close stops taking
// requests, waits for those in flight until ctx ends, then releases
// connections. Implementations must be safe for concurrent use; custom ones
// build their futures with [NewFuture].
//
// Like an http.RoundTripper, Go must not modify the request, and it must
// honour the request's context: once that ends, the [Future] completes
// promptly (kit waits for it, and [AsyncClient.Close] relies on it). Whoever
// receives a response closes its body. After Close, Go should return a
// Future that fails with an error matching [ErrClosed]. The default engine of
// [NewAsyncClient] is of this kind, with a bound on requests in flight (see
// [Limits].MaxInFlight); it implements AsyncEngine only.
type AsyncEngine interface {
	Go(req *http.Request) *Future[*http.Response]
	Close(ctx context.Context) error
}

// WithSyncEngine sets the [Engine] that sends the client's requests. When e
// also implements [AsyncEngine], it sends the async calls of the client too
// (one engine of both protocols serves both). Such an engine follows
// redirects as it likes: it is responsible for not sending credentials to
// another origin (see [Auth]); prefer [WithHTTPClient] for a customised
// *http.Client. A nil e makes [NewClient] fail.
func WithSyncEngine(e Engine) Option { return engineOption{e, "WithSyncEngine"} }

// WithAsyncEngine sets the [AsyncEngine] that sends the client's requests
// (see [NewAsyncClient]). When e also implements [Engine], it sends the sync
// calls of the client too. It is responsible for not sending credentials to
// another origin on a redirect (see [Auth]). A nil e makes the client's
// constructor fail.
func WithAsyncEngine(e AsyncEngine) Option { return engineOption{e, "WithAsyncEngine"} }

// WithEngine sets the engine that sends the client's requests: an [Engine], an
// [AsyncEngine], or a value implementing both. Whether the engine has the
// protocol a call needs is checked when the call is made (see [EngineError]).
// A value implementing neither makes the client's constructor fail.
//
// Deprecated: use [WithSyncEngine] or [WithAsyncEngine], whose argument's
// type says what the engine must be; an engine implementing both serves
// both with either.
func WithEngine(e any) Option { return engineOption{e, "WithEngine"} }

// Private implementation past this point.

// newDefaultHTTPClient is the default engine of a Client and what the
// default async engine sends through.
func newDefaultHTTPClient() *http.Client {
	dialer := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	tr := &http.Transport{
		Proxy:             http.ProxyFromEnvironment,
		DialContext:       dialer.DialContext,
		ForceAttemptHTTP2: true,
		// As many idle connections per host as it may open: a burst of
		// calls puts every connection it opened back in the pool, and the
		// next burst reuses them instead of dialling again.
		MaxConnsPerHost:       defaultMaxConnsPerHost,
		MaxIdleConnsPerHost:   defaultMaxConnsPerHost,
		MaxIdleConns:          defaultMaxConnsPerHost,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: 1 * time.Second,
		// A server's headers are read into memory: 1 MiB is far more
		// than any API sends, and a tenth of net/http's default.
		MaxResponseHeaderBytes: 1 << 20,
	}
	// newClientState wraps CheckRedirect in the client's redirect guard,
	// which takes credentials off a request redirected to another origin.
	return &http.Client{Transport: tr, CheckRedirect: checkRedirect}
}

// defaultMaxConnsPerHost bounds the connections the default engine opens to
// one host, and the idle ones it keeps (per host and in all). It is the
// common soft limit on a process's open files: a fan-out that would pass it
// waits for a connection (with its context) instead of failing with "too
// many open files".
const defaultMaxConnsPerHost = 1024

// checkRedirect follows at most 10 redirects, like net/http's default.
func checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= 10 {
		return ErrTooManyRedirects
	}
	return nil
}

// engineOption is WithSyncEngine, WithAsyncEngine and WithEngine; name is
// the one the caller used, for errors.
type engineOption struct {
	e    any
	name string
}

func (o engineOption) applyClient(c *clientConfig) error {
	if o.e == nil {
		return fmt.Errorf("kit: %s(nil): no engine", o.name)
	}
	_, isSync := o.e.(Engine)
	_, isAsync := o.e.(AsyncEngine)
	if !isSync && !isAsync {
		return fmt.Errorf("kit: %s(%T): implements neither kit.Engine nor kit.AsyncEngine", o.name, o.e)
	}
	c.engine = o.e
	return nil
}
func (o engineOption) String() string { return fmt.Sprintf("kit.%s(%T)", o.name, o.e) }
