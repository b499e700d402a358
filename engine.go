package kit

import (
	"context"
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
// [WithMaxInFlight]); it implements AsyncEngine only.
type AsyncEngine interface {
	Go(req *http.Request) *Future[*http.Response]
	Close(ctx context.Context) error
}

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
