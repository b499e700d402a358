package kit

import "context"

// Future is the result of work running on its own goroutine, such as a
// request started with Endpoint.Go. It is to Call what
// singleflight's DoChan is to Do. A Future is safe for concurrent use:
// any number of goroutines may Await it and all get the same result.
type Future[T any] struct {
	done chan struct{}
	val  T
	err  error
}

// NewFuture runs fn on a new goroutine and returns a Future of its result. A
// panic in fn is not recovered.
func NewFuture[T any](fn func() (T, error)) *Future[T] {
	f := &Future[T]{done: make(chan struct{})}
	go func() {
		defer close(f.done)
		f.val, f.err = fn()
	}()
	return f
}

// Await waits for the result. If ctx ends first it returns ctx.Err() and the
// work goes on; a later Await can still collect the result.
func (f *Future[T]) Await(ctx context.Context) (T, error) {
	select {
	case <-f.done:
		return f.val, f.err
	default:
	}
	select {
	case <-f.done:
		return f.val, f.err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}

// Done returns a channel that is closed when the result is ready.
func (f *Future[T]) Done() <-chan struct{} { return f.done }

// Private implementation past this point.

// failedFuture returns a Future that is already done with err.
func failedFuture[T any](err error) *Future[T] {
	f := &Future[T]{done: make(chan struct{}), err: err}
	close(f.done)
	return f
}
