package kit

import (
	"context"
	"fmt"
	"iter"
	"net/http"
	"reflect"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/kithttp/kit/internal/pagescan"
	"github.com/kithttp/kit/internal/routing"
)

// PagedEndpoint is a paginated collection whose path may have placeholders,
// such as /users/{user}/repos: a GET endpoint (or, declared with
// [PagedPost], a POST search) whose parameters P are routed like any
// endpoint's (path, query and headers), walked page by page like a
// [Resource]. T is the record type; with T = any records are raw JSON.
//
// A walk of a paged endpoint is a walk of a resource: the same paginators
// ([PagedBy], default [PageNumber]), records location, guards against
// pages that do not advance, [WithMaxPages], errors and laziness. The query
// parameters routed from P are sent on every page, next to the paginator's
// own, and so are its header parameters.
//
// A paged endpoint declared with an absolute URL on another origin than
// the client's base URL is walked on that origin: its pages get neither the
// base URL's query (an API key given as ?key=...) nor the client's
// credentials, and a next-page link to any other origin, the base URL's
// included, ends the walk with an error matching [ErrCrossOrigin].
//
// Declare paged endpoints once, as package-level variables:
//
//	var repos = kit.Paged[struct{ User string }, Repo]("/users/{user}/repos",
//		kit.PagedBy(kit.LinkHeader{}))
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
// be a body (a data model or a [File]: a paged endpoint sends GET requests
// without one), a `kit:",url"` field (a walk starts at the endpoint's path,
// on the origin it names), T = *Response, or a bad pagination option (a
// negative [WithMaxPages] or [WithPrefetch]). Every [EndpointOption] applies
// to each page's request ([NoAuth], [WithMaxBodySize], ...), and
// [PagedBy], WithMaxPages and
// WithPrefetch to the walks.
func NewPaged[P, T any](path string, opts ...EndpointOption) (*PagedEndpoint[P, T], error) {
	d, err := declare("GET", path, reflect.TypeFor[P](), reflect.TypeFor[T](), opts, true)
	if err != nil {
		return nil, err
	}
	return &PagedEndpoint[P, T]{d: d}, nil
}

// PagedPost declares a paged endpoint walked with POST requests, as
// search and query endpoints are (Notion's databases/{id}/query, a
// GraphQL-over-REST search): P is routed as for Post, and its body model
// (a struct, sent as a JSON object; {} when P has none) is sent with every
// page. A paginator that sends its cursor in the body (Cursor with InBody)
// sets a top-level field of that object on each page after the first:
//
//	var query = kit.PagedPost[QueryParams, Page]("/databases/{id}/query",
//		kit.PagedBy(kit.Cursor{CursorParam: "start_cursor", NextKey: "next_cursor",
//			HasMoreKey: "has_more", InBody: true}))
//
// The walk is a walk like any other: the cycle guard compares URLs and
// bodies, and WithMaxPages, WithPrefetch and the origin guard hold. A POST
// is retried only when declared Idempotent(), as for any endpoint: declare
// a read-only search Idempotent() to have its pages retried under
// WithRetry. It panics with a *DeclarationError on a bad declaration; see
// NewPagedPost.
func PagedPost[P, T any](path string, opts ...EndpointOption) *PagedEndpoint[P, T] {
	e, err := NewPagedPost[P, T](path, opts...)
	if err != nil {
		panic(err)
	}
	return e
}

// NewPagedPost declares a paged endpoint walked with POST requests (see
// PagedPost), returning a *DeclarationError on a bad declaration: the
// mistakes NewPaged reports (a body field excepted), a body field that is
// not one struct (a JSON object), FormBody or Multipart (a POST walk sends
// JSON).
func NewPagedPost[P, T any](path string, opts ...EndpointOption) (*PagedEndpoint[P, T], error) {
	d, err := declarePaged(http.MethodPost, path, reflect.TypeFor[P](), reflect.TypeFor[T](), opts)
	if err != nil {
		return nil, err
	}
	return &PagedEndpoint[P, T]{d: d}, nil
}

// declarePaged declares a paged endpoint walked with GET or POST requests.
func declarePaged(method, path string, pType, rType reflect.Type, opts []EndpointOption) (*endpointDecl, error) {
	d, err := declare(method, path, pType, rType, opts, true)
	if err != nil || method != http.MethodPost {
		return d, err
	}
	declErr := func(format string, args ...any) error {
		return &DeclarationError{Method: http.MethodPost, Path: path, Reason: fmt.Sprintf(format, args...)}
	}
	if d.bodyEnc != encJSON {
		return nil, declErr("%s: a paged POST sends its body as JSON, so that a page can set a field of it", d.bodyEnc.String())
	}
	if bf := d.plan.bodyField(); bf != nil && bf.class.Kind != routing.Model {
		return nil, declErr("field %s: the body of a paged POST is one data model (a struct, sent as a JSON object), not %s", bf.goName, d.plan.fieldType(bf))
	}
	return d, nil
}

// Iterate walks the collection through b's engine, which must implement
// [Engine], and yields every record, lazily: a page is requested only when
// the records before it are used up, and breaking out of the loop stops
// fetching. An error is yielded once, as (zero, err), and ends the loop;
// one that prevents the walk (b's engine lacks Engine: an [*EngineError];
// params do not route) is yielded before anything is sent. params are
// routed when the loop starts.
func (e *PagedEndpoint[P, T]) Iterate(ctx context.Context, b Binding, params P, opts ...CallOption) iter.Seq2[T, error] {
	return records(e.Pages(ctx, b, params, opts...))
}

// Pages walks the same pages as Iterate, yielding each page (records and
// response) for callers that need totals or other page metadata. Every page
// fetched is yielded, an empty last one included.
func (e *PagedEndpoint[P, T]) Pages(ctx context.Context, b Binding, params P, opts ...CallOption) iter.Seq2[*Page[T], error] {
	return e.walk(ctx, b, &params, false, "Pages", opts)
}

// GoIterate is Iterate through b's engine's async protocol: b's engine must
// implement [AsyncEngine] (an [*EngineError] otherwise), and every page's
// request counts against the client's [Limits].MaxInFlight. Without
// [WithPrefetch] it is as lazy as Iterate; with WithPrefetch(n) it keeps
// pages in flight ahead of the caller (see WithPrefetch). After the client
// is closed it yields an error matching [ErrClosed].
func (e *PagedEndpoint[P, T]) GoIterate(ctx context.Context, b Binding, params P, opts ...CallOption) iter.Seq2[T, error] {
	return records(e.GoPages(ctx, b, params, opts...))
}

// GoPages is Pages through b's engine's async protocol, like GoIterate.
func (e *PagedEndpoint[P, T]) GoPages(ctx context.Context, b Binding, params P, opts ...CallOption) iter.Seq2[*Page[T], error] {
	return e.walk(ctx, b, &params, true, "GoPages", opts)
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
func (e *PagedEndpoint[P, T]) walk(ctx context.Context, b Binding, params *P, async bool, method string, opts []CallOption) iter.Seq2[*Page[T], error] {
	d := e.decl()
	return walkPages[T](ctx, async, func() (*walk, error) {
		if d == nil {
			return nil, errorf("PagedEndpoint."+method, "the endpoint was not declared (use kit.Paged or kit.NewPaged)")
		}
		return d.newWalk(b, params, async, opts)
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
func (d *endpointDecl) newWalk(b Binding, params any, async bool, opts []CallOption) (*walk, error) {
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
	post := d.method == http.MethodPost
	if r.file != nil || (r.body.IsValid() && !post) {
		return nil, errorf(d.name, "a paged GET endpoint sends no body, but a parameter holds one")
	}
	if r.target != nil {
		return nil, errorf(d.name, "a paged endpoint takes no `kit:\",url\"` value: its walk starts at its path")
	}
	var body []byte
	if r.body.IsValid() {
		if err := validateValue(st.validator, r.body); err != nil {
			return nil, errorf(d.name, "request body: %w", err)
		}
		if body, err = marshalJSON(r.body.Interface()); err != nil {
			return nil, errorf(d.name, "encoding the request body: %w", err)
		}
		if jsontext.Value(body).Kind() != '{' {
			return nil, errorf(d.name, "the body of a paged POST is a JSON object, and this one is %s", pagescan.KindName(jsontext.Value(body).Kind()))
		}
	}
	var base strings.Builder
	secretPath, err := st.builder.writePath(&base, d, &r)
	if err != nil {
		return nil, err
	}
	q := r.queryValues()
	cs, err := d.walkSettings(st, opts)
	if err != nil {
		return nil, err
	}
	w := newWalk(st, d, &d.paging, cs, chain, base.String(), r.header, q)
	w.secretPath = secretPath
	w.post, w.body = post, body
	return w, nil
}
