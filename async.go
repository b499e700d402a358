package kit

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sync"
)

// AsyncClient is an asynchronous API client: the same base URL, auth,
// headers and validator as a Client, with an engine that implements
// AsyncEngine. Endpoints are started through it with Endpoint.Go, which
// returns at once with a Future, and resources are bound to it with
// NewAsyncResource. Call through an AsyncClient whose engine lacks Engine
// (the default engine does) returns an *EngineError.
//
// An AsyncClient is safe for concurrent use by multiple goroutines and
// should be made once and reused. Close it when done: Close waits for the
// calls in flight, and calls made after it fail with ErrClosed. Embed the
// pointer in your own API type, as with Client.
type AsyncClient struct {
	st *clientState
}

// DefaultMaxInFlight is how many requests the default async engine has in
// flight at once when WithMaxInFlight is not given. Further requests wait
// for a slot, in no particular order, until their context ends.
const DefaultMaxInFlight = 64

// NewAsyncClient returns an AsyncClient for the API at baseURL, which must
// be an absolute http or https URL (see NewClient for how paths are joined).
//
// The default engine implements AsyncEngine only. It sends each request on
// its own goroutine through an *http.Client (the one given with
// WithHTTPClient, else one tuned like NewClient's default, keeping up to
// max-in-flight idle connections per host), with at most DefaultMaxInFlight
// requests in flight (see WithMaxInFlight). A request holds its slot from
// when it is sent until its response body is closed, which kit does once
// the body is read. Each request's context is honoured, including while it
// waits for a slot. WithMaxInFlight has no effect on an engine given with
// WithEngine.
func NewAsyncClient(baseURL string, opts ...Option) (*AsyncClient, error) {
	st, err := newClientState("kit.NewAsyncClient", baseURL, opts)
	if err != nil {
		return nil, err
	}
	if st.engine == nil {
		n := st.maxFlight
		if n == 0 {
			n = DefaultMaxInFlight
		}
		if !hasHTTPClientOption(opts) {
			// kit made this client: keep as many idle connections as
			// requests may be in flight, so a burst does not redial.
			if tr, ok := st.httpClient.Transport.(*http.Transport); ok {
				tr.MaxIdleConnsPerHost = max(tr.MaxIdleConnsPerHost, n)
				tr.MaxIdleConns = max(tr.MaxIdleConns, n)
			}
		}
		st.engine = newAsyncEngine(st.httpClient, n)
	}
	st.setEngine()
	return &AsyncClient{st: st}, nil
}

// BaseURL returns a copy of the client's base URL.
func (ac *AsyncClient) BaseURL() *url.URL {
	u := *ac.st.base
	return &u
}

// Close shuts the client down, like httptest.Server.Close or
// errgroup.Group.Wait:
//
//  1. It stops taking calls: from now on every async call through the
//     client or a resource bound to it fails with an error matching
//     ErrClosed, and sends nothing.
//  2. It waits for the calls in flight (requests, reading and decoding
//     their responses, page prefetches) until ctx ends. If ctx ends first,
//     it cancels what is still running (those calls fail with errors
//     matching both context.Canceled and ErrClosed), waits for kit's
//     goroutines to return, which they do promptly, and will return
//     ctx.Err().
//  3. It closes the engine (AsyncEngine.Close, also for an engine given
//     with WithEngine) and the idle connections of the client's
//     *http.Client.
//
// No goroutine of kit's outlives Close. A second Close returns nil once the
// first has finished (or ctx.Err() if ctx ends before that). Close is safe
// to call concurrently with calls and with itself.
func (ac *AsyncClient) Close(ctx context.Context) error {
	return ac.st.closeAsync(ctx)
}

func (ac *AsyncClient) binding() *clientState {
	if ac == nil {
		return nil
	}
	return ac.st
}

// Go starts the call on b's engine, which must implement AsyncEngine, and
// returns at once with a Future of what Call would return: the same
// decoded, validated result, or the same *HTTPError, *DecodeError or
// *ValidationError, with the same refresh-and-resend once on a 401. params
// are read before Go returns; the caller may reuse them.
//
// The returned Future is already done, and nothing is sent, when b is nil,
// when b's engine lacks AsyncEngine (an *EngineError naming kit.AsyncEngine
// and the endpoint), when the client was closed (an error matching
// ErrClosed), or when params do not make a valid request (a path value, a
// body that does not validate, ...).
//
// ctx bounds the call (Await takes its own context for the waiting):
// cancelling it stops the request, and the Future then holds an error
// matching context.Canceled. A call that Close cancels holds one matching
// both context.Canceled and ErrClosed. Go is safe for concurrent use; each
// call is independent.
func (e *Endpoint[P, R]) Go(ctx context.Context, b Binding, params P) *Future[R] {
	st, err := e.d.state(b)
	if err != nil {
		return failedFuture[R](err)
	}
	if st.asyncEng == nil {
		return failedFuture[R](e.d.engineError(st, "kit.AsyncEngine"))
	}
	task, err := st.beginAsync(ctx)
	if err != nil {
		return failedFuture[R](fmt.Errorf("kit: %s: %w", e.d.name, err))
	}
	or, err := e.d.request(st, &params)
	if err != nil {
		task.end()
		return failedFuture[R](err)
	}
	f := pendingFuture[R]()
	go func() {
		defer task.end() // after complete: Close returns only once f is done
		resp, err := st.do(task.ctx, st.sendAsync, or)
		if err != nil {
			var zero R
			f.complete(zero, task.wrap(err))
			return
		}
		v, err := decodeResult[R](e.d.result, st, resp)
		f.complete(v, err)
	}()
	return f
}

// Private implementation past this point.
//
// Async work is tracked on the clientState that every binding of a client
// shares, so Close covers endpoints and resources alike. The helpers for
// code built on top (AsyncResource) are, in order of preference:
//
//   - goFuture(st, ctx, what, fn): runs fn on a new tracked goroutine and
//     returns its Future; after Close the Future is done with ErrClosed
//     and fn does not run.
//   - st.beginAsync(ctx) / task.end(): track work that runs elsewhere (a
//     prefetching goroutine of one's own). Call end exactly once, after the
//     work's results are published, and use task.ctx for the work: it is
//     cancelled when ctx ends or when Close gives up waiting.
//   - st.sendAsync / st.asyncSend(): the sendFunc for clientState.do that
//     goes through the AsyncEngine.
//
// All of them are safe for concurrent use.

func hasHTTPClientOption(opts []Option) bool {
	for _, o := range opts {
		if _, ok := o.(httpClientOption); ok {
			return true
		}
	}
	return false
}

// errCloseCancelled is the cancellation cause of work that Close stopped
// waiting for.
var errCloseCancelled = fmt.Errorf("%w: Close cancelled the call", ErrClosed)

// asyncTask is one unit of tracked async work (see beginAsync).
type asyncTask struct {
	ctx    context.Context // cancelled when the caller's ctx ends or Close gives up
	cancel context.CancelCauseFunc
	stop   func() bool // unregisters the Close hook
	w      *tracker
	once   sync.Once
}

// beginAsync registers one unit of async work on the client, so that Close
// waits for it. It fails with ErrClosed after Close has started, and with
// an error for a nil ctx. The task's ctx is derived from ctx and is also
// cancelled (with a cause matching ErrClosed) when Close gives up waiting.
// The caller must call task.end exactly once when the work is over.
func (st *clientState) beginAsync(ctx context.Context) (*asyncTask, error) {
	if ctx == nil {
		return nil, errors.New("nil Context")
	}
	life, ok := st.work.begin()
	if !ok {
		return nil, ErrClosed
	}
	t := &asyncTask{w: &st.work}
	t.ctx, t.cancel = context.WithCancelCause(ctx)
	t.stop = context.AfterFunc(life, func() { t.cancel(context.Cause(life)) })
	return t, nil
}

// end releases the task's context and tells Close the work is over.
// Further calls do nothing.
func (t *asyncTask) end() {
	t.once.Do(func() {
		t.stop()
		t.cancel(nil)
		t.w.end()
	})
}

// wrap returns err, marked to match ErrClosed too when the task failed
// because Close cancelled it. Call it before end.
func (t *asyncTask) wrap(err error) error {
	if err != nil && errors.Is(context.Cause(t.ctx), errCloseCancelled) && !errors.Is(err, ErrClosed) {
		return fmt.Errorf("%w (%w)", err, errCloseCancelled)
	}
	return err
}

// goFuture runs fn as tracked async work of st on a new goroutine and
// returns its Future. fn gets the task's context. After Close (or for a nil
// ctx) the Future is already done with "kit: <what>: <reason>" and fn is
// not run.
func goFuture[T any](st *clientState, ctx context.Context, what string, fn func(ctx context.Context) (T, error)) *Future[T] {
	task, err := st.beginAsync(ctx)
	if err != nil {
		return failedFuture[T](fmt.Errorf("kit: %s: %w", what, err))
	}
	f := pendingFuture[T]()
	go func() {
		defer task.end()
		v, err := fn(task.ctx)
		f.complete(v, task.wrap(err))
	}()
	return f
}

// sendAsync is the sendFunc of the async path: it hands req to the
// AsyncEngine and waits for the response. It waits without a context of
// its own: an AsyncEngine must end promptly once req's context ends, and
// req's context is the task's, which Close cancels.
func (st *clientState) sendAsync(req *http.Request) (*http.Response, error) {
	return st.asyncEng.Go(req).wait()
}

// asyncSend returns st.sendAsync, or nil when the engine lacks AsyncEngine
// (like resourceCore.syncSend).
func (st *clientState) asyncSend() sendFunc {
	if st == nil || st.asyncEng == nil {
		return nil
	}
	return st.sendAsync
}

// closeAsync is AsyncClient.Close.
func (st *clientState) closeAsync(ctx context.Context) error {
	w := &st.work
	first, finished := w.close()
	if !first {
		select {
		case <-finished:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	defer close(finished)
	err := w.wait(ctx)
	if err != nil {
		w.cancelAll(errCloseCancelled)
		_ = w.wait(nil) // kit's goroutines end promptly once cancelled
	}
	if st.asyncEng != nil {
		if cerr := st.asyncEng.Close(ctx); err == nil {
			err = cerr
		}
	}
	st.closeIdle()
	w.cancelAll(ErrClosed) // releases the lifetime context; nothing is left to cancel
	return err
}

// tracker counts work in progress, lets one wait for it to end, and can be
// closed to new work. Its zero value is ready to use.
type tracker struct {
	mu       sync.Mutex
	closed   bool
	n        int
	idle     chan struct{}           // closed when n drops to 0; nil while n == 0
	life     context.Context         // made on first begin; cancelled by cancelAll
	cancel   context.CancelCauseFunc // cancels life
	finished chan struct{}           // made by the first close; closed by its caller when done
}

// begin counts one more piece of work and returns the tracker's lifetime
// context. ok is false, and nothing is counted, once the tracker is closed.
func (t *tracker) begin() (life context.Context, ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return nil, false
	}
	if t.life == nil {
		t.life, t.cancel = context.WithCancelCause(context.Background())
	}
	if t.n == 0 {
		t.idle = make(chan struct{})
	}
	t.n++
	return t.life, true
}

// end counts one piece of work as over.
func (t *tracker) end() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.n--
	if t.n == 0 {
		close(t.idle)
		t.idle = nil
	}
}

// close stops begin from taking work. The first call returns first=true and
// a channel that its caller closes when it has finished shutting down;
// later calls return that same channel to wait on.
func (t *tracker) close() (first bool, finished chan struct{}) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return false, t.finished
	}
	t.closed = true
	t.finished = make(chan struct{})
	return true, t.finished
}

// wait waits until no work is counted, or ctx ends (ctx.Err()). A nil ctx
// waits for as long as it takes.
func (t *tracker) wait(ctx context.Context) error {
	t.mu.Lock()
	idle := t.idle
	t.mu.Unlock()
	if idle == nil {
		return nil
	}
	if ctx == nil {
		<-idle
		return nil
	}
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// cancelAll cancels the lifetime context, and with it the work begun with
// it, with cause.
func (t *tracker) cancelAll(cause error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.cancel != nil {
		t.cancel(cause)
	}
}
