package kit

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/url"
	"sync"
	"sync/atomic"
)

// AsyncClient is an asynchronous API client: the same base URL, auth,
// headers and validator as a [Client], with an engine that implements
// [AsyncEngine]. Endpoints are started through it with [Endpoint.Go], which
// returns at once with a [Future], and resources are bound to it with
// [NewAsyncResource]. Call through an AsyncClient whose engine lacks [Engine]
// (the default engine does) returns an [*EngineError].
//
// An AsyncClient is safe for concurrent use by multiple goroutines and
// should be made once and reused. Close it when done: Close waits for the
// calls in flight, and calls made after it fail with [ErrClosed]. Embed the
// pointer in your own API type, as with Client.
type AsyncClient struct {
	st *clientState
}

// NewAsyncClient returns an [AsyncClient] for the API at baseURL, which must
// be an absolute http or https URL (see [NewClient] for how paths are joined).
//
// The default engine implements [AsyncEngine] only. It sends through an
// *http.Client: the one given with [WithHTTPClient], else one tuned like
// NewClient's default, which keeps as many idle connections per host as it
// may open (1,024), so a burst of calls does not dial again. Every async
// call through the client, whatever its engine, counts against the
// in-flight limit ([DefaultMaxInFlight]; see [Limits].MaxInFlight).
func NewAsyncClient(baseURL string, opts ...Option) (*AsyncClient, error) {
	st, err := newClientState("NewAsyncClient", baseURL, opts, func(c *clientConfig) any {
		c.maxFlight = cmp.Or(c.maxFlight, DefaultMaxInFlight)
		return newAsyncEngine(c.httpClient)
	})
	if err != nil {
		return nil, err
	}
	return &AsyncClient{st: st}, nil
}

// BaseURL returns a copy of the client's base URL; nil for an [AsyncClient]
// that [NewAsyncClient] did not make (a nil or zero AsyncClient).
func (ac *AsyncClient) BaseURL() *url.URL {
	if ac == nil || ac.st == nil {
		return nil
	}
	u := *ac.st.base
	return &u
}

// Close shuts the client down, like httptest.Server.Close or
// errgroup.Group.Wait:
//
//  1. It stops taking calls: from now on every async call through the
//     client or a resource bound to it fails with an error matching
//     [ErrClosed], and sends nothing.
//  2. It cancels the requests in flight of async walks ([AsyncResource],
//     [PagedEndpoint.GoIterate] and GoPages), pages fetched ahead
//     included: their callers may be busy in their loop bodies and never
//     ask for those pages. Each such walk ends with an error matching
//     ErrClosed when its caller next asks for a page it does not hold.
//  3. It waits for the calls in flight (requests, reading and decoding
//     their responses, the walks' cancelled requests) until ctx ends. If ctx ends first,
//     it cancels what is still running (those calls fail with errors
//     matching both context.Canceled and ErrClosed), waits for kit's
//     goroutines to return, which they do promptly, and will return
//     ctx.Err().
//  4. It closes the engine (AsyncEngine.Close, also for an engine given
//     with [WithAsyncEngine]) and the idle connections of the client's
//     *http.Client.
//
// No goroutine of kit's outlives Close. A second Close returns nil once the
// first has finished (or ctx.Err() if ctx ends before that). Close is safe
// to call concurrently with calls and with itself.
//
// Close of an [AsyncClient] that [NewAsyncClient] did not make (a nil or zero
// AsyncClient) returns an error matching [ErrNilBinding]; a nil ctx is an
// error too.
func (ac *AsyncClient) Close(ctx context.Context) error {
	if ac == nil || ac.st == nil {
		return errorf("AsyncClient.Close", "%w: the AsyncClient was not made by NewAsyncClient", ErrNilBinding)
	}
	if ctx == nil {
		return errorf("AsyncClient.Close", "nil Context")
	}
	return ac.st.closeAsync(ctx)
}

func (ac *AsyncClient) binding() *clientState {
	if ac == nil {
		return nil
	}
	return ac.st
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
//   - st.asyncChain: the send chain through the AsyncEngine, for work that
//     runs on a tracked goroutine.
//
// All of them are safe for concurrent use.

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

	mu    sync.Mutex
	holds int  // streamed bodies still open (see hold)
	ended bool // end was called
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
	t.ctx = context.WithValue(t.ctx, asyncTaskKey{}, t)
	t.stop = context.AfterFunc(life, func() { t.cancel(context.Cause(life)) })
	return t, nil
}

// end releases the task's context and tells Close the work is over, once
// the streamed bodies that hold the task (see hold) are closed too.
// Further calls do nothing.
func (t *asyncTask) end() {
	t.mu.Lock()
	t.ended = true
	done := t.holds == 0
	t.mu.Unlock()
	if done {
		t.finish()
	}
}

// hold keeps the task going after end until unhold: a streamed response
// body is still being read with the task's context, and Close waits for it
// (or, giving up, cancels the context, which closes the body).
func (t *asyncTask) hold() {
	t.mu.Lock()
	t.holds++
	t.mu.Unlock()
}

// unhold undoes one hold, and ends the task if end was called.
func (t *asyncTask) unhold() {
	t.mu.Lock()
	t.holds--
	done := t.holds == 0 && t.ended
	t.mu.Unlock()
	if done {
		t.finish()
	}
}

func (t *asyncTask) finish() {
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
// not run. A panic in fn (in a user's validator, interceptor, auth or
// decoder) completes the Future with an error carrying the panic and its
// stack, instead of ending the process.
func goFuture[T any](st *clientState, ctx context.Context, what string, fn func(ctx context.Context) (T, error)) *Future[T] {
	f := pendingFuture[T]()
	st.goInto(ctx, what, &f.fc, &f.val, func(ctx context.Context) (err error) {
		f.val, err = fn(ctx)
		return err
	})
	return f
}

// goInto is goFuture's non-generic core: fn fills *out (out is a *T, the
// value beside fc) on the new goroutine and returns the error, and fc is
// completed once fn has returned (or panicked: *out is then what failInto
// leaves).
func (st *clientState) goInto(ctx context.Context, what string, fc *futureCore, out any, fn func(ctx context.Context) error) {
	task, err := st.beginAsync(ctx)
	if err != nil {
		fc.fail(out, errorf(what, "%w", err))
		return
	}
	go func() {
		defer task.end() // after complete: Close returns only once f is done
		var (
			err      error
			returned bool
		)
		defer func() {
			if !returned {
				err = failInto(out, recovered(what, recover()), nil)
			}
			fc.complete(task.wrap(err))
		}()
		err = fn(task.ctx)
		returned = true
	}()
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
		w.cancelAll(errCloseCancelled)   // marks the tracker cancelling first
		_ = w.wait(context.Background()) // kit's goroutines end promptly once cancelled
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
	mu         sync.Mutex
	closed     bool
	cancelling atomic.Bool // set by cancelAll before it cancels anything
	n          int
	idle       chan struct{}           // closed when n drops to 0; nil while n == 0
	life       context.Context         // made on first begin; cancelled by cancelAll
	cancel     context.CancelCauseFunc // cancels life
	walks      context.Context         // made on first walkLife; cancelled by close
	stopWalks  context.CancelCauseFunc // cancels walks
	finished   chan struct{}           // made by the first close; closed by its caller when done
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
	if t.stopWalks != nil {
		t.stopWalks(errCloseCancelled)
	}
	return true, t.finished
}

// walkLife returns a context that close cancels, with errCloseCancelled as
// the cause. Async walks cancel their page requests when it ends: Close
// does not wait for pages that a caller busy in its loop body may never
// ask for.
func (t *tracker) walkLife() context.Context {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.walks == nil {
		t.walks, t.stopWalks = context.WithCancelCause(context.Background())
		if t.closed {
			t.stopWalks(errCloseCancelled)
		}
	}
	return t.walks
}

// wait waits until no work is counted, or ctx ends (ctx.Err()); with
// context.Background it waits for as long as it takes.
func (t *tracker) wait(ctx context.Context) error {
	t.mu.Lock()
	idle := t.idle
	t.mu.Unlock()
	if idle == nil {
		return nil
	}
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// closedError is the error of an async call made after Close (checked
// before its parameters, so that a closed client says so first), or nil.
// beginAsync checks again, under the tracker's lock.
func (st *clientState) closedError(what string) error {
	st.work.mu.Lock()
	closed := st.work.closed
	st.work.mu.Unlock()
	if closed {
		return errorf(what, "%w", ErrClosed)
	}
	return nil
}

// isCancelling reports whether Close has given up waiting and cancels the
// work in flight. The work's contexts learn it a moment later (their
// cancellation runs on goroutines of its own); the transport asks this
// first, so that such work is never sent.
func (t *tracker) isCancelling() bool { return t.cancelling.Load() }

// cancelAll cancels the lifetime context, and with it the work begun with
// it, with cause.
func (t *tracker) cancelAll(cause error) {
	t.cancelling.Store(true)
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.cancel != nil {
		t.cancel(cause)
	}
}

// recovered turns a panic value from user code run on one of kit's
// goroutines into a *PanicError carrying the value and the stack, for the
// caller who awaits the work. Call it from the deferred function that
// recovered r.
func recovered(what string, r any) error {
	return errorf(what, "%w", newPanicOrExit(r))
}
