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
	fc  futureCore
	val T
}

// NewFuture runs fn on a new goroutine and returns a [Future] of its result.
// Custom [AsyncEngine] implementations build their futures with it. A panic
// in fn completes the Future with a [*PanicError] (and the zero T) instead of
// ending the process.
func NewFuture[T any](fn func() (T, error)) *Future[T] {
	f := pendingFuture[T]()
	f.fc.run(&f.val, func() (err error) {
		f.val, err = fn()
		return err
	})
	return f
}

// Await waits for the result. If ctx ends first it returns the zero T and
// ctx.Err(), and the work goes on; a later Await can still collect the
// result. When the result is ready, Await returns it even if ctx has ended.
//
// Await on a nil [Future] returns an error; a nil ctx is treated as one that
// never ends.
func (f *Future[T]) Await(ctx context.Context) (T, error) {
	if f == nil {
		var zero T
		return zero, errZeroFuture
	}
	if err := f.fc.await(ctx); err != nil {
		return zeroFor[T](err), err
	}
	return f.val, f.fc.err
}

// Done returns a channel that is closed when the result is ready, for use
// in a select; Await then returns at once.
func (f *Future[T]) Done() <-chan struct{} { return f.fc.done }

// Private implementation past this point.

// failedFuture returns a Future that is already done with err.
func failedFuture[T any](err error) *Future[T] {
	f := pendingFuture[T]()
	f.fc.fail(&f.val, err)
	return f
}

// pendingFuture returns a Future that is done when complete is called.
// kit's own goroutines use it instead of NewFuture so that they can signal
// their work tracker after the result is published.
func pendingFuture[T any]() *Future[T] {
	return &Future[T]{fc: futureCore{done: make(chan struct{})}}
}

// wait blocks until the result is ready and returns it, without a context:
// for callers that know the work ends promptly (it honours a context that
// the caller's own ends).
func (f *Future[T]) wait() (T, error) {
	<-f.fc.done
	return f.val, f.fc.err
}

// futureCore is the part of a Future that does not depend on T: its
// completion and error. The value is beside it, reached through a pointer
// (out, a *T) by the non-generic code that fills it.
type futureCore struct {
	done chan struct{}
	err  error
}

var errZeroFuture = errors.New("kit: Future.Await: nil or zero Future (make one with kit.NewFuture)")

// await waits until the result is ready or ctx ends; it returns ctx's
// error only when ctx ended first, and errZeroFuture for a zero Future.
func (fc *futureCore) await(ctx context.Context) error {
	if fc.done == nil {
		return errZeroFuture
	}
	select {
	case <-fc.done:
		return nil
	default:
	}
	if ctx == nil {
		<-fc.done
		return nil
	}
	select {
	case <-fc.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// fail completes the future at once with err, *out being what failInto
// leaves.
func (fc *futureCore) fail(out any, err error) {
	fc.err = failInto(out, err, nil)
	close(fc.done)
}

// complete publishes err (the value is already in place). It must be
// called exactly once.
func (fc *futureCore) complete(err error) {
	fc.err = err
	close(fc.done)
}

// run runs fn on a new goroutine, which fills *out, and completes the
// future with its error. A panic in fn completes it with a [*PanicError]
// and the zero value instead of ending the process.
func (fc *futureCore) run(out any, fn func() error) {
	go func() {
		returned := false
		var err error
		defer func() {
			if !returned {
				err = fmt.Errorf("kit: NewFuture: %w", newPanicOrExit(recover()))
				failInto(out, err, nil)
			}
			fc.complete(err)
		}()
		err = fn()
		returned = true
	}()
}
