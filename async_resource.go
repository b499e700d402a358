package kit

import (
	"context"
	"iter"
	"reflect"

	"github.com/kithttp/kit/internal/routing"
)

// AsyncResource is [Resource] for an [AsyncClient]: the CRUD methods start the
// request at once and return a [Future], and walks fetch their pages through
// the async engine. A walk is strictly lazy by default, like Resource's;
// with WithPrefetch(n) it keeps pages in flight ahead of the caller, up to
// n at once with [PageNumber], [Offset] or another [Lookahead] paginator.
//
// On an async walk a panic in user code that the walk calls (a paginator,
// a validator, an interceptor) ends the walk with an error carrying the
// panic and its stack, as it does for a Future.
//
// An AsyncResource is immutable and safe for concurrent use; each iterator
// it returns must be ranged over by one goroutine at a time. After the
// client is closed every call fails with [ErrClosed] and sends nothing.
type AsyncResource[T any] struct {
	rc *resourceCore
}

// NewAsyncResource returns an [AsyncResource] for the collection at path,
// bound to b, whose engine must implement [AsyncEngine]. See [NewResource].
func NewAsyncResource[T any](b Binding, path string, opts ...ResourceOption) *AsyncResource[T] {
	return &AsyncResource[T]{rc: newResourceCore(b, path, opts, "AsyncResource")}
}

// List starts GET path?query and returns a [Future] of the page's records.
func (r *AsyncResource[T]) List(ctx context.Context, query any, opts ...CallOption) *Future[[]T] {
	rc := r.core()
	chain := rc.asyncChain()
	if rc != nil && rc.st != nil {
		if err := rc.st.closedError(rc.kind + ".List"); err != nil {
			return failedFuture[[]T](err)
		}
	}
	req, err := rc.listRequest(query, chain, opts)
	if err != nil {
		return failedFuture[[]T](err)
	}
	return goFuture(rc.st, ctx, req.Endpoint, func(ctx context.Context) ([]T, error) {
		page, _, err := getPage(ctx, rc.st, rc.layout, chain, req, pageOf[T]{})
		return listOf[T](page, err)
	})
}

// Get starts GET path/{id} and returns a [Future] of the record.
func (r *AsyncResource[T]) Get(ctx context.Context, id any, opts ...CallOption) *Future[T] {
	return asyncCRUD[T](ctx, r.core(), opGet, id, nil, opts)
}

// Create starts POST path with obj as the JSON body and returns a [Future] of
// the created record. See [Resource.Create].
func (r *AsyncResource[T]) Create(ctx context.Context, obj T, opts ...CallOption) *Future[T] {
	return asyncCRUD[T](ctx, r.core(), opCreate, nil, any(obj), opts)
}

// Update starts PUT path/{id} with obj as the JSON body.
func (r *AsyncResource[T]) Update(ctx context.Context, id any, obj T, opts ...CallOption) *Future[T] {
	return asyncCRUD[T](ctx, r.core(), opUpdate, id, any(obj), opts)
}

// Patch starts PATCH path/{id} with patch, a data model, as the JSON body.
func (r *AsyncResource[T]) Patch(ctx context.Context, id any, patch any, opts ...CallOption) *Future[T] {
	return asyncCRUD[T](ctx, r.core(), opPatch, id, patch, opts)
}

// Delete starts DELETE path/{id} and returns a [Future] of the response.
func (r *AsyncResource[T]) Delete(ctx context.Context, id any, opts ...CallOption) *Future[*Response] {
	return asyncCRUD[*Response](ctx, r.core(), opDelete, id, nil, opts)
}

// All returns every record of the collection, fetched through the async
// engine. See [Resource.All].
func (r *AsyncResource[T]) All(ctx context.Context, opts ...CallOption) iter.Seq2[T, error] {
	return r.Iterate(ctx, nil, opts...)
}

// Iterate is All with query parameters sent on every page request.
func (r *AsyncResource[T]) Iterate(ctx context.Context, query any, opts ...CallOption) iter.Seq2[T, error] {
	return records(r.Pages(ctx, query, opts...))
}

// Pages walks the pages, yielding each with its response. See
// [Resource.Pages], and [WithPrefetch] for fetching pages ahead of the caller.
func (r *AsyncResource[T]) Pages(ctx context.Context, query any, opts ...CallOption) iter.Seq2[*Page[T], error] {
	rc := r.core()
	return walkPages[T](ctx, true, func() (*walk, error) {
		return rc.newWalk(query, rc.asyncChain(), opts)
	})
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

// asyncCRUD checks and builds the request now (nothing is sent on error)
// and sends it on a tracked goroutine.
func asyncCRUD[R any](ctx context.Context, rc *resourceCore, op int, id any, body any, opts []CallOption) *Future[R] {
	f := pendingFuture[R]()
	rc.goCRUD(ctx, op, id, body, opts, resultKindOf(reflect.TypeFor[R]()), &f.fc, &f.val)
	return f
}

// goCRUD is asyncCRUD's non-generic core: out, a *R made as kind says, is
// the value beside fc.
func (rc *resourceCore) goCRUD(ctx context.Context, op int, id any, body any, opts []CallOption, kind routing.ResultKind, fc *futureCore, out any) {
	chain := rc.asyncChain()
	if rc != nil && rc.st != nil {
		if err := rc.st.closedError(rc.kind + "." + opNames[op]); err != nil {
			fc.fail(out, err)
			return
		}
	}
	req, err := rc.crudRequest(op, id, body, chain, opts, kind)
	if err != nil {
		fc.fail(out, err)
		return
	}
	rc.st.goInto(ctx, req.Endpoint, fc, out, func(ctx context.Context) error {
		req.decodes = true
		resp, err := rc.st.send(ctx, chain, req)
		if err != nil {
			return failInto(out, err, nil)
		}
		err = decodeResultInto(kind, 0, rc.st, resp, nil, req.resultPath(), out)
		return rc.st.decoded(req, resp, err)
	})
}
