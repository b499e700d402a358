package kit

import (
	"context"
	"iter"
	"net/url"
	"reflect"
	"strings"
)

// PagedEndpoint is a paginated collection whose path may have placeholders,
// such as /users/{user}/repos: a GET endpoint whose parameters P are routed
// like any endpoint's (path, query and headers), walked page by page like a
// [Resource]. T is the record type; with T = any records are raw JSON.
//
// A walk of a paged endpoint is a walk of a resource: the same paginators
// ([WithPaginator], default [PageNumber]), records location, guards against
// pages that do not advance, [WithMaxPages], errors and laziness. The query
// parameters routed from P are sent on every page, next to the paginator's
// own, and so are its header parameters.
//
// Declare paged endpoints once, as package-level variables:
//
//	var repos = kit.Paged[struct{ User string }, Repo]("/users/{user}/repos",
//		kit.WithPaginator(kit.LinkHeader{}))
//
//	for repo, err := range repos.Iterate(ctx, c, struct{ User string }{"ada"}) { ... }
//
// A PagedEndpoint is immutable and safe for concurrent use; the iterators
// it returns must each be ranged over by one goroutine at a time.
type PagedEndpoint[P, T any] struct {
	d *endpointDecl
}

// Paged declares a paged endpoint: GET path, walked page by page. It panics
// with a [*DeclarationError] on a bad declaration, as [Get] does; see [NewPaged].
func Paged[P, T any](path string, opts ...EndpointOption) *PagedEndpoint[P, T] {
	e, err := NewPaged[P, T](path, opts...)
	if err != nil {
		panic(err)
	}
	return e
}

// NewPaged declares a paged endpoint, returning a [*DeclarationError] on a
// bad declaration: the mistakes [NewEndpoint] reports, a P field that would
// be a JSON body (a paged endpoint sends GET requests without one), T =
// *Response, or a bad pagination option (a negative [WithMaxPages] or
// [WithPrefetch]). Every [EndpointOption] applies to each page's request
// ([NoAuth], [WithMaxBodySize], ...), and [WithPaginator], WithMaxPages and
// WithPrefetch to the walks.
func NewPaged[P, T any](path string, opts ...EndpointOption) (*PagedEndpoint[P, T], error) {
	d, err := declare("GET", path, reflect.TypeFor[P](), reflect.TypeFor[T](), opts, true)
	if err != nil {
		return nil, err
	}
	return &PagedEndpoint[P, T]{d: d}, nil
}

// Iterate walks the collection through b's engine, which must implement
// [Engine], and yields every record, lazily: a page is requested only when
// the records before it are used up, and breaking out of the loop stops
// fetching. An error is yielded once, as (zero, err), and ends the loop;
// one that prevents the walk (b's engine lacks Engine: an [*EngineError];
// params do not route) is yielded before anything is sent. params are
// routed when the loop starts.
func (e *PagedEndpoint[P, T]) Iterate(ctx context.Context, b Binding, params P) iter.Seq2[T, error] {
	return records(e.Pages(ctx, b, params))
}

// Pages walks the same pages as Iterate, yielding each page (records and
// response) for callers that need totals or other page metadata. Every page
// fetched is yielded, an empty last one included.
func (e *PagedEndpoint[P, T]) Pages(ctx context.Context, b Binding, params P) iter.Seq2[*Page[T], error] {
	return e.walk(ctx, b, &params, false, "Pages")
}

// GoIterate is Iterate through b's engine's async protocol: b's engine must
// implement [AsyncEngine] (an [*EngineError] otherwise), and every page's
// request counts against the client's [WithMaxInFlight]. Without
// [WithPrefetch] it is as lazy as Iterate; with WithPrefetch(n) it keeps
// pages in flight ahead of the caller (see WithPrefetch). After the client
// is closed it yields an error matching [ErrClosed].
func (e *PagedEndpoint[P, T]) GoIterate(ctx context.Context, b Binding, params P) iter.Seq2[T, error] {
	return records(e.GoPages(ctx, b, params))
}

// GoPages is Pages through b's engine's async protocol, like GoIterate.
func (e *PagedEndpoint[P, T]) GoPages(ctx context.Context, b Binding, params P) iter.Seq2[*Page[T], error] {
	return e.walk(ctx, b, &params, true, "GoPages")
}

// String returns the declaration, e.g. "GET /users/{user}/repos".
func (e *PagedEndpoint[P, T]) String() string {
	if e == nil || e.d == nil {
		return "<undeclared kit.PagedEndpoint>"
	}
	return e.d.name
}

// Private implementation past this point.

// walk returns the page walk of one call (params is a *P); method names the
// PagedEndpoint method, for errors.
func (e *PagedEndpoint[P, T]) walk(ctx context.Context, b Binding, params *P, async bool, method string) iter.Seq2[*Page[T], error] {
	d := e.decl()
	return walkPages[T](ctx, async, func() (*walk, error) {
		if d == nil {
			return nil, errorf("PagedEndpoint."+method, "the endpoint was not declared (use kit.Paged or kit.NewPaged)")
		}
		return d.newWalk(b, params, async)
	})
}

func (e *PagedEndpoint[P, T]) decl() *endpointDecl {
	if e == nil {
		return nil
	}
	return e.d
}

// newWalk routes a paged endpoint's parameters (params is a *P) and starts
// a walk of the collection they address, through b's sync or async chain.
func (d *endpointDecl) newWalk(b Binding, params any, async bool) (*walk, error) {
	st, err := d.state(b)
	if err != nil {
		return nil, err
	}
	chain, err := st.chainFor(async, d.name)
	if err != nil {
		return nil, err
	}
	r, err := d.route(params)
	if err != nil {
		return nil, err
	}
	if r.body.IsValid() {
		return nil, errorf(d.name, "a paged endpoint sends no body, but a parameter holds a %s", r.body.Type())
	}
	var base strings.Builder
	if err := st.writePath(&base, d, &r); err != nil {
		return nil, err
	}
	q := r.query
	if q == nil {
		q = url.Values{}
	}
	return newWalk(st, d, &d.paging, chain, base.String(), r.header, q), nil
}
