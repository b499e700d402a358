package kit

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
)

// Private implementation past this point.
//
// async_engine.go is the default engine of an AsyncClient. It implements
// AsyncEngine and nothing else (no Do), so Call through a default
// AsyncClient fails with an *EngineError naming kit.Engine.

// asyncEngine sends each request on its own goroutine through an
// *http.Client, with at most cap(slots) requests in flight. A request is in
// flight from when it takes a slot until its response body is closed (or
// read to the end), or until sending fails.
type asyncEngine struct {
	hc      *http.Client
	slots   chan struct{} // one token per request in flight
	reqs    tracker       // requests from Go until their slot is given back; closed by Close
	running tracker       // goroutines started by Go; never closed
}

func newAsyncEngine(hc *http.Client, maxInFlight int) *asyncEngine {
	return &asyncEngine{hc: hc, slots: make(chan struct{}, maxInFlight)}
}

// errEngineClosed is the cancellation cause of requests that Close stopped
// waiting for.
var errEngineClosed = fmt.Errorf("%w: Close cancelled the request", ErrClosed)

// Go starts sending req and returns a Future of its response. After Close
// the Future is already done with an error matching ErrClosed, and nothing
// is sent. The caller must close the response body, which gives back the
// request's slot.
func (e *asyncEngine) Go(req *http.Request) *Future[*http.Response] {
	if req == nil {
		return failedFuture[*http.Response](errors.New("kit: async engine: nil request"))
	}
	life, ok := e.reqs.begin()
	if !ok {
		return failedFuture[*http.Response](fmt.Errorf("kit: %s %s: %w", req.Method, redactURL(req.URL), ErrClosed))
	}
	e.running.begin()
	f := pendingFuture[*http.Response]()
	go e.send(life, req, f)
	return f
}

// Close stops taking requests, waits until those in flight are over or ctx
// ends, then closes the idle connections of the *http.Client. If ctx ended
// first, it cancels the requests still in flight, waits for its goroutines
// to return and returns ctx.Err(). Later calls return nil once the first has
// finished.
func (e *asyncEngine) Close(ctx context.Context) error {
	first, finished := e.reqs.close()
	if !first {
		select {
		case <-finished:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	defer close(finished)
	err := e.reqs.wait(ctx)
	if err != nil {
		e.reqs.cancelAll(errEngineClosed)
	}
	// Every goroutine returns promptly once its request is over or
	// cancelled; a body left open does not hold one.
	_ = e.running.wait(nil)
	closeIdleOf(e.hc)
	e.reqs.cancelAll(ErrClosed) // releases the lifetime context
	return err
}

// send runs on the request's own goroutine: take a slot, send, and hand the
// response over with a body that gives the slot back when closed.
func (e *asyncEngine) send(life context.Context, req *http.Request, f *Future[*http.Response]) {
	defer e.running.end() // last: Close may return once this goroutine is done
	ctx, cancel := context.WithCancelCause(req.Context())
	stop := context.AfterFunc(life, func() { cancel(context.Cause(life)) })
	haveSlot := false
	var once sync.Once
	release := func() {
		once.Do(func() {
			stop()
			cancel(nil)
			if haveSlot {
				<-e.slots
			}
			e.reqs.end()
		})
	}
	fail := func(err error) {
		release()
		f.complete(nil, err)
	}
	// A request whose context has already ended never takes a slot (select
	// would pick at random between a free slot and a done context).
	if ctx.Err() != nil {
		fail(e.ctxError(ctx))
		return
	}
	select {
	case e.slots <- struct{}{}:
		haveSlot = true
	case <-ctx.Done():
		fail(e.ctxError(ctx))
		return
	}
	if ctx.Err() != nil {
		fail(e.ctxError(ctx))
		return
	}
	resp, err := e.hc.Do(req.WithContext(ctx))
	if err != nil {
		if ctx.Err() != nil {
			// net/http reports the cancellation cause alone; report the
			// context's error, with the cause where there is one.
			err = &url.Error{Op: urlErrorOp(req.Method), URL: redactURL(req.URL), Err: e.ctxError(ctx)}
		}
		fail(err)
		return
	}
	resp.Body = &slotBody{ReadCloser: resp.Body, release: release}
	f.complete(resp, nil)
}

// ctxError is the error of a request whose context ended: the context's
// error, wrapping also the cancellation cause when there is one (such as
// errEngineClosed when Close cancelled the request).
func (e *asyncEngine) ctxError(ctx context.Context) error {
	err := ctx.Err()
	if cause := context.Cause(ctx); cause != nil && cause != err {
		return fmt.Errorf("%w (%w)", err, cause)
	}
	return err
}

// urlErrorOp is the Op of a *url.Error for method, as net/http writes it.
func urlErrorOp(method string) string {
	if method == "" {
		return "Get"
	}
	return method[:1] + strings.ToLower(method[1:])
}

// slotBody is a response body that gives the request's slot back when it
// is closed or read to the end (or fails), whichever comes first.
type slotBody struct {
	io.ReadCloser
	release func()
}

func (b *slotBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil {
		// The connection is already handed back to the transport on EOF;
		// on other errors the request is over too.
		defer b.release()
	}
	return n, err
}

func (b *slotBody) Close() error {
	err := b.ReadCloser.Close()
	b.release()
	return err
}
