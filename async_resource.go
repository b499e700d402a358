package kit

import (
	"context"
	"fmt"
	"iter"
	"reflect"
)

// AsyncResource is Resource for an AsyncClient: the CRUD methods start the
// request at once and return a Future, and walks fetch their pages through
// the async engine. A walk is strictly lazy by default, like Resource's;
// with WithPrefetch(n) it fetches up to n pages ahead while the caller works
// through the current one.
//
// An AsyncResource is immutable and safe for concurrent use; each iterator
// it returns must be ranged over by one goroutine at a time. After the
// client is closed every call fails with ErrClosed and sends nothing.
type AsyncResource[T any] struct {
	rc *resourceCore
}

// NewAsyncResource returns an AsyncResource for the collection at path,
// bound to b, whose engine must implement AsyncEngine. See NewResource.
func NewAsyncResource[T any](b Binding, path string, opts ...ResourceOption) *AsyncResource[T] {
	return &AsyncResource[T]{rc: newResourceCore(b, path, opts, "AsyncResource")}
}

// WithPrefetch makes walks of an AsyncResource fetch up to n pages ahead of
// the caller (at most 64 pages are held: a larger n acts as 64). Default 0:
// a page is requested only when the records before it are used up.
// Breaking out of the loop cancels what is in flight; AsyncClient.Close
// stops the walk (its loop ends with an error matching ErrClosed).
func WithPrefetch(n int) ResourceOption { return prefetchOption{n} }

// List starts GET path?query and returns a Future of the page's records.
func (r *AsyncResource[T]) List(ctx context.Context, query any) *Future[[]T] {
	rc := r.core()
	chain := rc.asyncChain()
	if rc != nil && rc.st != nil {
		if err := rc.st.closedError(rc.kind + ".List"); err != nil {
			return failedFuture[[]T](err)
		}
	}
	req, err := rc.listRequest(query, chain)
	if err != nil {
		return failedFuture[[]T](err)
	}
	return goFuture(rc.st, ctx, req.Endpoint, func(ctx context.Context) ([]T, error) {
		page, err := getPage[T](ctx, rc, chain, req)
		if err != nil {
			return nil, err
		}
		return page.Records, nil
	})
}

// Get starts GET path/{id} and returns a Future of the record.
func (r *AsyncResource[T]) Get(ctx context.Context, id any) *Future[T] {
	return asyncCRUD[T](ctx, r.core(), opGet, id, nil)
}

// Create starts POST path with obj as the JSON body and returns a Future of
// the created record. See Resource.Create.
func (r *AsyncResource[T]) Create(ctx context.Context, obj T) *Future[T] {
	return asyncCRUD[T](ctx, r.core(), opCreate, nil, any(obj))
}

// Update starts PUT path/{id} with obj as the JSON body.
func (r *AsyncResource[T]) Update(ctx context.Context, id any, obj T) *Future[T] {
	return asyncCRUD[T](ctx, r.core(), opUpdate, id, any(obj))
}

// Patch starts PATCH path/{id} with patch, a data model, as the JSON body.
func (r *AsyncResource[T]) Patch(ctx context.Context, id any, patch any) *Future[T] {
	return asyncCRUD[T](ctx, r.core(), opPatch, id, patch)
}

// Delete starts DELETE path/{id} and returns a Future of the response.
func (r *AsyncResource[T]) Delete(ctx context.Context, id any) *Future[*Response] {
	return asyncCRUD[*Response](ctx, r.core(), opDelete, id, nil)
}

// All returns every record of the collection, fetched through the async
// engine. See Resource.All.
func (r *AsyncResource[T]) All(ctx context.Context) iter.Seq2[T, error] {
	return r.Iterate(ctx, nil)
}

// Iterate is All with query parameters sent on every page request.
func (r *AsyncResource[T]) Iterate(ctx context.Context, query any) iter.Seq2[T, error] {
	return records(r.Pages(ctx, query))
}

// Pages walks the pages, yielding each with its response. See
// Resource.Pages.
func (r *AsyncResource[T]) Pages(ctx context.Context, query any) iter.Seq2[*Page[T], error] {
	rc := r.core()
	chain := rc.asyncChain()
	fetch := func(ctx context.Context, req *Request) (*Page[T], error) {
		task, err := rc.st.beginAsync(ctx)
		if err != nil {
			return nil, errorf(rc.walkOp(), "%w", err)
		}
		defer task.end()
		page, err := getPage[T](task.ctx, rc, chain, req)
		return page, task.wrap(err)
	}
	if rc != nil && rc.prefetch > 0 {
		return prefetchPages(ctx, rc, chain, query, fetch)
	}
	return walkPages(ctx, rc, chain, query, fetch)
}

// core returns the resource's state; nil for a nil or zero AsyncResource,
// which every method then reports as ErrNilBinding.
func (r *AsyncResource[T]) core() *resourceCore {
	if r == nil {
		return nil
	}
	return r.rc
}

func (r *AsyncResource[T]) binding() *clientState {
	if r == nil || r.rc == nil {
		return nil
	}
	return r.rc.st
}

// Private implementation past this point.

type prefetchOption struct{ n int }

func (o prefetchOption) applyResource(c *resourceConfig) { c.prefetch = o.n }
func (o prefetchOption) String() string                  { return fmt.Sprintf("kit.WithPrefetch(%d)", o.n) }

// asyncCRUD checks and builds the request now (nothing is sent on error)
// and sends it on a tracked goroutine.
func asyncCRUD[R any](ctx context.Context, rc *resourceCore, op int, id any, body any) *Future[R] {
	chain := rc.asyncChain()
	if rc != nil && rc.st != nil {
		if err := rc.st.closedError(rc.kind + "." + opNames[op]); err != nil {
			return failedFuture[R](err)
		}
	}
	req, err := rc.crudRequest(op, id, body, chain)
	if err != nil {
		return failedFuture[R](err)
	}
	return goFuture(rc.st, ctx, req.Endpoint, func(ctx context.Context) (R, error) {
		resp, err := rc.st.send(ctx, chain, req)
		if err != nil {
			var zero R
			return zero, err
		}
		return decodeResult[R](resultKindOf(reflect.TypeFor[R]()), 0, rc.st, resp, nil)
	})
}

// maxPrefetchBuffer bounds the pages a prefetching walk holds ahead of its
// consumer, whatever WithPrefetch says: memory follows what is fetched,
// never the option's value.
const maxPrefetchBuffer = 64

// safeStep is step, with a panic in user code (a validator, an
// interceptor) turned into the walk's error: it runs on kit's goroutine.
func safeStep[T any](ctx context.Context, w *walk, fetch pageFetcher[T]) (page *Page[T], err error) {
	returned := false
	defer func() {
		if !returned {
			page, err = nil, errorf(w.rc.walkOp(), "%w", newPanicOrExit(recover()))
		}
	}()
	page, err = step(ctx, w, fetch)
	returned = true
	return page, err
}

// safeAdvance is advance, with a panic in the paginator turned into the
// walk's error.
func (w *walk) safeAdvance(resp *Response) (err error) {
	returned := false
	defer func() {
		if !returned {
			err = errorf(w.rc.walkOp(), "paginator %T: %w", w.rc.paginator, newPanicOrExit(recover()))
		}
	}()
	err = w.advance(resp)
	returned = true
	return err
}

// prefetched is one page (or the error that ends the walk) handed from the
// prefetching goroutine to the caller.
type prefetched[T any] struct {
	page *Page[T]
	err  error
}

// prefetchPages runs the walk on its own goroutine, up to rc.prefetch pages
// ahead of the caller: one being fetched and the rest buffered. Leaving the
// loop cancels the goroutine and waits for it, so nothing outlives the
// range statement.
func prefetchPages[T any](ctx context.Context, rc *resourceCore, chain Sender, query any, fetch pageFetcher[T]) iter.Seq2[*Page[T], error] {
	return func(yield func(*Page[T], error) bool) {
		w, err := rc.newWalk(query, chain)
		if err != nil {
			yield(nil, err)
			return
		}
		if ctx == nil {
			yield(nil, errorf(rc.walkOp(), "nil Context"))
			return
		}
		// The producer is tracked async work: Close waits for it, cancels
		// it, and stops it at once (closing) so that a consumer that calls
		// Close from its loop body does not wait for itself.
		task, err := rc.st.beginAsync(ctx)
		if err != nil {
			yield(nil, errorf(rc.walkOp(), "%w", err))
			return
		}
		parent := ctx
		ctx, cancel := context.WithCancel(task.ctx)
		closing := rc.st.work.closingChan()
		pages := make(chan prefetched[T], min(rc.prefetch, maxPrefetchBuffer)-1)
		done := make(chan struct{})
		complete := false // set by the producer when the walk ended normally
		go func() {
			defer task.end()
			defer close(done)
			defer close(pages)
			hand := func(p prefetched[T]) bool {
				select {
				case pages <- p:
					return true
				case <-ctx.Done():
				case <-closing:
				}
				return false
			}
			for {
				page, err := safeStep(ctx, w, fetch)
				if err == nil && page == nil {
					complete = true
					return
				}
				if !hand(prefetched[T]{page, err}) || err != nil {
					return
				}
				if err := w.safeAdvance(page.Response); err != nil {
					hand(prefetched[T]{nil, err})
					return
				}
			}
		}()
		defer func() {
			cancel()
			<-done
		}()
		for p := range pages {
			if !yield(p.page, p.err) || p.err != nil {
				return
			}
		}
		<-done
		if !complete {
			// The producer stopped early because ctx ended, possibly
			// without handing over its error (select picks at random):
			// the walk must not look finished.
			err := parent.Err()
			if err == nil {
				err = context.Cause(task.ctx)
			}
			if err == nil {
				err = ErrClosed
			}
			yield(nil, errorf(rc.walkOp(), "%w", err))
		}
	}
}
