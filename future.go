package kit

import (
	"context"
	"errors"
	"fmt"
)

// Future is the result of work running on its own goroutine, such as a
// request started with [Endpoint.Go]. It is to Call what
// singleflight's DoChan is to Do. A Future is safe for concurrent use:
// any number of goroutines may Await it, any number of times, and all get
// the same result. Awaiting never cancels the work; cancel the context the
// work was started with for that.
type Future[T any] struct {
	done chan struct{}
	val  T
	err  error
}

// NewFuture runs fn on a new goroutine and returns a [Future] of its result.
// Custom [AsyncEngine] implementations build their futures with it. A panic
// in fn completes the Future with a [*PanicError] (and the zero T) instead of
// ending the process.
func NewFuture[T any](fn func() (T, error)) *Future[T] {
	f := &Future[T]{done: make(chan struct{})}
	go func() {
		returned := false
		defer func() {
			if !returned {
				var zero T
				f.val, f.err = zero, fmt.Errorf("kit: NewFuture: %w", newPanicOrExit(recover()))
			}
			close(f.done)
		}()
		f.val, f.err = fn()
		returned = true
	}()
	return f
}

// Await waits for the result. If ctx ends first it returns the zero T and
// ctx.Err(), and the work goes on; a later Await can still collect the
// result. When the result is ready, Await returns it even if ctx has ended.
//
// Await on a nil [Future] returns an error; a nil ctx is treated as one that
// never ends.
func (f *Future[T]) Await(ctx context.Context) (T, error) {
	if f == nil || f.done == nil {
		var zero T
		return zero, errors.New("kit: Future.Await: nil or zero Future (make one with kit.NewFuture)")
	}
	if ctx == nil {
		ctx = context.Background()
	}
	select {
	case <-f.done:
		return f.val, f.err
	default:
	}
	select {
	case <-f.done:
		return f.val, f.err
	case <-ctx.Done():
		return zeroFor[T](ctx.Err()), ctx.Err()
	}
}

// Done returns a channel that is closed when the result is ready, for use
// in a select; Await then returns at once.
func (f *Future[T]) Done() <-chan struct{} { return f.done }

// Private implementation past this point.

// failedFuture returns a Future that is already done with err.
func failedFuture[T any](err error) *Future[T] {
	f := &Future[T]{done: make(chan struct{}), err: err}
	f.val = zeroFor[T](err)
	close(f.done)
	return f
}

// pendingFuture returns a Future that is done when complete is called.
// kit's own goroutines use it instead of NewFuture so that they can signal
// their work tracker after the result is published.
func pendingFuture[T any]() *Future[T] {
	return &Future[T]{done: make(chan struct{})}
}

// complete publishes the result. It must be called exactly once.
func (f *Future[T]) complete(v T, err error) {
	f.val, f.err = v, err
	close(f.done)
}

// wait blocks until the result is ready and returns it, without a context:
// for callers that know the work ends promptly (it honours a context that
// the caller's own ends).
func (f *Future[T]) wait() (T, error) {
	<-f.done
	return f.val, f.err
}
