package kit

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
)

// Private implementation past this point.
//
// async_engine.go is the default engine of an AsyncClient. It implements
// AsyncEngine and nothing else (no Do), so Call through a default
// AsyncClient fails with an *EngineError naming kit.Engine. kit's own calls
// do not go through Go: each call already runs on a goroutine of its own
// (see Endpoint.Go), so the chain's transport sends with roundTrip there.
// The bound on requests in flight is a layer of the chain (inflight.go), and
// the waiting for calls in flight is AsyncClient.Close's.

// asyncEngine sends requests through an *http.Client.
type asyncEngine struct {
	hc     *http.Client
	closed atomic.Bool
}

func newAsyncEngine(hc *http.Client) *asyncEngine {
	return &asyncEngine{hc: hc}
}

// Go starts sending req on a new goroutine and returns a [Future] of its
// response. After Close the Future is already done with an error matching
// [ErrClosed], and nothing is sent.
func (e *asyncEngine) Go(req *http.Request) *Future[*http.Response] {
	if req == nil {
		return failedFuture[*http.Response](errors.New("kit: async engine: nil request"))
	}
	if e.closed.Load() {
		return failedFuture[*http.Response](errorf(req.Method+" "+redactURL(req.URL), "%w", ErrClosed))
	}
	return NewFuture(func() (*http.Response, error) { return e.roundTrip(req) })
}

// roundTrip sends req on the calling goroutine.
func (e *asyncEngine) roundTrip(req *http.Request) (*http.Response, error) {
	if e.closed.Load() {
		return nil, ErrClosed
	}
	return e.hc.Do(req)
}

// Close stops taking requests and closes the idle connections of the
// *http.Client. The client's Close has already waited for (or cancelled)
// every call in flight before it closes the engine.
func (e *asyncEngine) Close(ctx context.Context) error {
	e.closed.Store(true)
	closeIdleOf(e.hc)
	return nil
}
