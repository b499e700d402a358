package kit

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"reflect"
	"strings"

	"github.com/kithttp/kit/internal/pagescan"
	"github.com/kithttp/kit/internal/pathtmpl"
	"github.com/kithttp/kit/internal/routing"
)

// Resource is a REST collection of records of type T at a path: the five
// CRUD operations, one-page List, and lazy iteration over every page. T is
// the record's data model; with T = any records are raw JSON (objects
// decode to map[string]any).
//
// A Resource bound to a client shares the client's base URL, engine and
// auth. It is itself a [Binding], so a type embedding *Resource[T] can call
// its own endpoints:
//
//	type Users struct{ *kit.Resource[User] }
//	var userPosts = kit.Get[struct{ ID int }, []Post]("/users/{id}/posts")
//	posts, err := userPosts.Call(ctx, users, struct{ ID int }{7})
//
// A Resource is immutable and safe for concurrent use; the iterators it
// returns must each be ranged over by one goroutine at a time.
//
// Its requests follow the client's [WithRetry] policy, [WithLimits] and
// [WithLogger]: Get, List, Update, Delete and every page of an iteration are
// retried (a page is retried within the walk, so no record is yielded twice
// or skipped); Create (POST) and Patch (PATCH) are never retried, since kit
// cannot know that the API deduplicates them.
type Resource[T any] struct {
	rc *resourceCore
}

// NewResource returns a [Resource] for the collection at path, bound to b. An
// empty path is allowed for a resource that only has custom endpoints: its
// CRUD methods and iteration then fail with [ErrNoPath]. Problems with b or
// the options are reported by every call.
func NewResource[T any](b Binding, path string, opts ...ResourceOption) *Resource[T] {
	return &Resource[T]{rc: newResourceCore(b, path, opts, "Resource")}
}

// List returns the records of one page: GET path?query. query is nil, a
// map[string]any, url.Values, or a struct routed with the query rules of
// endpoint parameters. Records are found like those of a walk (the
// paginator's items key, else the default rules).
func (r *Resource[T]) List(ctx context.Context, query any, opts ...CallOption) ([]T, error) {
	rc := r.core()
	chain := rc.syncChain()
	req, err := rc.listRequest(query, chain, opts)
	if err != nil {
		return nil, err
	}
	page, _, err := getPage(ctx, rc.st, rc.layout, chain, req, pageOf[T]{})
	return listOf[T](page, err)
}

// Get returns the record with the given id: GET path/{id}. id is formatted
// and escaped like a path parameter.
func (r *Resource[T]) Get(ctx context.Context, id any, opts ...CallOption) (T, error) {
	return crud[T](ctx, r.core(), r.core().syncChain(), opGet, id, nil, opts)
}

// Create sends obj as the JSON body of POST path and returns the created
// record. obj must be a data model: with T = any, a map is refused with
// [ErrNotModel] and nothing is sent.
func (r *Resource[T]) Create(ctx context.Context, obj T, opts ...CallOption) (T, error) {
	return crud[T](ctx, r.core(), r.core().syncChain(), opCreate, nil, any(obj), opts)
}

// Update replaces the record with the given id: PUT path/{id} with obj as
// the JSON body.
func (r *Resource[T]) Update(ctx context.Context, id any, obj T, opts ...CallOption) (T, error) {
	return crud[T](ctx, r.core(), r.core().syncChain(), opUpdate, id, any(obj), opts)
}

// Patch sends patch, any data model (typically a struct of the fields to
// change with omitempty), as the JSON body of PATCH path/{id} and returns
// the updated record.
func (r *Resource[T]) Patch(ctx context.Context, id any, patch any, opts ...CallOption) (T, error) {
	return crud[T](ctx, r.core(), r.core().syncChain(), opPatch, id, patch, opts)
}

// Delete deletes the record with the given id: DELETE path/{id}. It returns
// the response (its status, headers and body, if any).
func (r *Resource[T]) Delete(ctx context.Context, id any, opts ...CallOption) (*Response, error) {
	return crud[*Response](ctx, r.core(), r.core().syncChain(), opDelete, id, nil, opts)
}

// All returns every record of the collection, lazily: a page is requested
// only when the records before it are used up, and breaking out of the loop
// stops fetching. An error is yielded once, as (zero, err), and ends the
// loop.
func (r *Resource[T]) All(ctx context.Context, opts ...CallOption) iter.Seq2[T, error] {
	return r.Iterate(ctx, nil, opts...)
}

// Iterate is All with query parameters sent on every page request. query
// is nil, a map[string]any, url.Values or a struct; it is never modified.
func (r *Resource[T]) Iterate(ctx context.Context, query any, opts ...CallOption) iter.Seq2[T, error] {
	return records(r.Pages(ctx, query, opts...))
}

// Pages walks the same pages as Iterate, yielding each page (records and
// response) for callers that need totals or other page metadata. Every page
// fetched is yielded, an empty last one included.
func (r *Resource[T]) Pages(ctx context.Context, query any, opts ...CallOption) iter.Seq2[*Page[T], error] {
	rc := r.core()
	return walkPages[T](ctx, false, func() (*walk, error) {
		return rc.newWalk(query, rc.syncChain(), opts)
	})
}

// core returns the resource's state; nil for a nil or zero Resource, which
// every method then reports as ErrNilBinding.
func (r *Resource[T]) core() *resourceCore {
	if r == nil {
		return nil
	}
	return r.rc
}

func (r *Resource[T]) binding() *clientState {
	if r == nil || r.rc == nil {
		return nil
	}
	return r.rc.st
}

// Private implementation past this point.

// resourceConfig collects what the resource options set.
type resourceConfig struct {
	pagingConfig         // PagedBy
	requestConfig        // the request options: every operation's and walk's
	problem       string // a bad option, reported by every call
}

// pagingConfig is what the pagination options set, on a resource or a
// paged endpoint, and what is derived from them once, at construction.
type pagingConfig struct {
	paginator Paginator
	layout    *pagescan.Layout // where a page's records are: from the paginator
	ahead     Lookahead        // the paginator, when it can name pages ahead
	option    string           // the first pagination option given, for a declaration error
}

// complete fills the defaults in and checks the options; the error says
// what is wrong.
func (pg *pagingConfig) complete(method string) error {
	if pg.paginator == nil {
		pg.paginator = PageNumber{}
	}
	if b, ok := pg.paginator.(interface{ inBody() bool }); ok && b.inBody() && method != http.MethodPost {
		return fmt.Errorf("paginator %T sends its cursor in the body (InBody), and a %s walk has no body: declare the endpoint with kit.PagedPost", pg.paginator, method)
	}
	l, err := newPageLayout(pg.paginator)
	if err != nil {
		return fmt.Errorf("paginator %T: %w", pg.paginator, err)
	}
	pg.layout = l
	pg.ahead, _ = pg.paginator.(Lookahead)
	return nil
}

// used records that a pagination option was given to an endpoint.
func (pg *pagingConfig) used(option string) {
	if pg.option == "" {
		pg.option = option
	}
}

// The operations of a resource, each an endpoint declaration of its own
// (made once, with the resource): their requests are built by the same code
// as every endpoint's.
const (
	opList = iota
	opGet
	opCreate
	opUpdate
	opPatch
	opDelete
	numOps
)

var opNames = [numOps]string{"List", "Get", "Create", "Update", "Patch", "Delete"}

// resourceCore is the non-generic part of a resource, shared by Resource
// and AsyncResource.
type resourceCore struct {
	st   *clientState
	kind string // "Resource" or "AsyncResource", for messages
	path string // as given
	err  error  // a problem found at construction, reported by every call
	ops  [numOps]*endpointDecl
	resourceConfig
}

func newResourceCore(b Binding, path string, opts []ResourceOption, kind string) *resourceCore {
	rc := &resourceCore{kind: kind, path: path}
	fail := func(format string, args ...any) *resourceCore {
		rc.err = errorf(fmt.Sprintf("%s %q", kind, path), format, args...)
		return rc
	}
	for _, o := range opts {
		if o != nil {
			o.applyResource(&rc.resourceConfig)
		}
	}
	if b != nil {
		rc.st = b.binding()
	}
	if rc.st == nil {
		return fail("%w", ErrNilBinding)
	}
	if rc.problem != "" {
		return fail("%s", rc.problem)
	}
	if err := rc.pagingConfig.complete(http.MethodGet); err != nil {
		return fail("%w", err)
	}
	if path != "" {
		if strings.ContainsAny(path, "{}?#") {
			return fail("a collection path has no placeholders, query or fragment")
		}
		coll := "/" + strings.Trim(path, "/")
		item := strings.TrimSuffix(coll, "/") + "/{id}"
		for op, spec := range [numOps]struct{ method, path string }{
			opList:   {http.MethodGet, coll},
			opGet:    {http.MethodGet, item},
			opCreate: {http.MethodPost, coll},
			opUpdate: {http.MethodPut, item},
			opPatch:  {http.MethodPatch, item},
			opDelete: {http.MethodDelete, item},
		} {
			tmpl, err := pathtmpl.Parse(spec.path)
			if err != nil {
				return fail("%w", err)
			}
			rc.ops[op] = &endpointDecl{method: spec.method, name: spec.method + " " + spec.path, tmpl: tmpl, secretPath: hasSecretPlaceholder(tmpl),
				endpointConfig: endpointConfig{requestConfig: rc.requestConfig}}
		}
	}
	return rc
}

// check reports why op cannot run: a construction problem, no path, or an
// engine without the protocol (chain is nil).
func (rc *resourceCore) check(op int, chain Sender) error {
	return rc.checkAs(opNames[op], op, chain)
}

// checkAs is check for the method named name (Iterate, Pages, All walk
// with the List declaration).
func (rc *resourceCore) checkAs(name string, op int, chain Sender) error {
	if rc == nil {
		return errorf("Resource."+name, "%w", ErrNilBinding)
	}
	if rc.err != nil {
		return rc.err
	}
	if rc.path == "" {
		return errorf(rc.kind+"."+name, "%w", ErrNoPath)
	}
	if chain == nil {
		return rc.st.engineError(rc.kind == "AsyncResource", fmt.Sprintf("%s.%s (%s)", rc.kind, name, rc.ops[op].name))
	}
	return nil
}

// syncChain returns the client's sync chain (nil when the engine lacks
// kit.Engine).
func (rc *resourceCore) syncChain() Sender {
	if rc == nil || rc.st == nil {
		return nil
	}
	return rc.st.syncChain
}

// asyncChain returns the client's async chain (nil when the engine lacks
// kit.AsyncEngine).
func (rc *resourceCore) asyncChain() Sender {
	if rc == nil || rc.st == nil {
		return nil
	}
	return rc.st.asyncChain
}

// newWalk checks a walk of the collection (Iterate, All and Pages) and
// starts it, with query sent on every page.
func (rc *resourceCore) newWalk(query any, chain Sender, opts []CallOption) (*walk, error) {
	if err := rc.checkAs("Iterate", opList, chain); err != nil {
		return nil, err
	}
	d := rc.ops[opList]
	q, err := queryFrom(query)
	if err != nil {
		return nil, errorf(d.name, "%w", err)
	}
	cs, err := d.walkSettings(rc.st, opts)
	if err != nil {
		return nil, err
	}
	return newWalk(rc.st, d, &rc.pagingConfig, cs, chain, rc.st.builder.prefix+d.tmpl.Parts[0].Literal, nil, q), nil
}

// crud runs one CRUD operation and decodes its result into R.
func crud[R any](ctx context.Context, rc *resourceCore, chain Sender, op int, id any, body any, opts []CallOption) (R, error) {
	var out R
	err := rc.crudInto(ctx, chain, op, id, body, opts, resultKindOf(reflect.TypeFor[R]()), &out)
	return out, err
}

// crudInto is crud's non-generic core: out is a *R, made as kind says.
func (rc *resourceCore) crudInto(ctx context.Context, chain Sender, op int, id any, body any, opts []CallOption, kind routing.ResultKind, out any) error {
	req, err := rc.crudRequest(op, id, body, chain, opts, kind)
	if err != nil {
		return err
	}
	req.decodes = true
	resp, err := rc.st.send(ctx, chain, req)
	if err != nil {
		return err
	}
	err = decodeResultInto(kind, 0, rc.st, resp, nil, req.resultPath(), out)
	return rc.st.decoded(req, resp, err)
}

// crudRequest checks and builds the request of a CRUD operation; nothing is
// sent when it fails.
// kind is how the operation's result is made, for WithResultAt.
func (rc *resourceCore) crudRequest(op int, id any, body any, chain Sender, opts []CallOption, kind routing.ResultKind) (*Request, error) {
	if err := rc.check(op, chain); err != nil {
		return nil, err
	}
	d := rc.ops[op]
	r := routed{names: d.tmpl.Placeholders}
	if len(r.names) > 0 {
		s, err := formatID(id)
		if err != nil {
			return nil, errorf(d.name, "%w", err)
		}
		r.vals, r.filled = []string{s}, []bool{true}
	}
	if op == opCreate || op == opUpdate || op == opPatch {
		v := reflect.ValueOf(body)
		if !v.IsValid() || isNilValue(v) {
			return nil, errorf(d.name, "%w: the body is nil", ErrNotModel)
		}
		if k := classify(v.Type()).Kind; k != routing.Model && k != routing.ModelSlice {
			return nil, errorf(d.name, "%w: %T cannot be a request body", ErrNotModel, body)
		}
		r.body = v
	}
	var err error
	if r.call, err = d.settings(rc.st, opts); err != nil {
		return nil, err
	}
	at, err := d.resultPath(rc.st, r.call, kind == routing.ResultTyped || kind == routing.ResultRaw)
	if err != nil {
		return nil, err
	}
	req, err := rc.st.builder.build(d, &r, "")
	if err != nil {
		return nil, err
	}
	req.resultAt = at
	return req, nil
}

// formatID formats a record id like a path parameter.
func formatID(id any) (string, error) {
	if id == nil {
		return "", errors.New("id is nil")
	}
	v := reflect.ValueOf(id)
	c := classify(v.Type())
	if c.Kind != routing.Scalar {
		return "", fmt.Errorf("id of type %T has no single text form", id)
	}
	s, ok, err := c.format(v)
	if err != nil {
		return "", fmt.Errorf("id: %w", err)
	}
	if !ok {
		return "", errors.New("id is nil")
	}
	return s, nil
}

func resultKindOf(t reflect.Type) routing.ResultKind {
	switch {
	case t == responseType:
		return routing.ResultResponse
	case t.Kind() == reflect.Interface && t.NumMethod() == 0:
		return routing.ResultRaw
	}
	return routing.ResultTyped
}

// listRequest checks a List call and builds the request of its page.
func (rc *resourceCore) listRequest(query any, chain Sender, opts []CallOption) (*Request, error) {
	if err := rc.check(opList, chain); err != nil {
		return nil, err
	}
	d := rc.ops[opList]
	q, err := queryFrom(query)
	if err != nil {
		return nil, errorf(d.name, "%w", err)
	}
	cs, err := d.settings(rc.st, opts)
	if err != nil {
		return nil, err
	}
	if cs != nil && cs.resultAt != nil {
		return nil, errorf(d.name, "WithResultAt(%q) applies to a call whose result is decoded from JSON; List's records are where the paginator says (its ItemsKey)", cs.resultText)
	}
	return rc.st.builder.build(d, &routed{query: q, call: cs}, "")
}

// getPage sends the request of a page and decodes its records into a
// page that pm makes.
func getPage(ctx context.Context, st *clientState, layout *pagescan.Layout, chain Sender, req *Request, pm pageMaker) (any, *Response, error) {
	req.decodes = true
	resp, err := st.send(ctx, chain, req)
	if err != nil {
		return nil, nil, err
	}
	page, recs := pm.newPage(resp)
	if err := decodePage(layout, resp, recs); err != nil {
		return nil, nil, st.decoded(req, resp, err)
	}
	if pm.typed() {
		if err := validateValue(st.validator, reflect.ValueOf(recs).Elem()); err != nil {
			return nil, nil, st.decoded(req, resp, errorf(st.opOf(req), "page records: %w", err))
		}
	}
	pm.decoded(page, recs)
	return page, resp, st.decoded(req, resp, nil)
}

// pageMaker makes the pages of a walk or a List: the generic layers give
// pageOf[T], an Operation its own.
type pageMaker interface {
	// newPage returns an empty page for resp and where its records are
	// decoded (a pointer to a slice).
	newPage(resp *Response) (page any, recs any)
	// typed reports whether the records are data models to validate.
	typed() bool
	// decoded is called once recs holds the page's records.
	decoded(page, recs any)
}

// pageOf makes *Page[T] pages.
type pageOf[T any] struct{}

func (pageOf[T]) newPage(resp *Response) (any, any) {
	p := &Page[T]{Response: resp}
	return p, &p.Records
}
func (pageOf[T]) typed() bool      { return resultKindOf(reflect.TypeFor[T]()) == routing.ResultTyped }
func (pageOf[T]) decoded(_, _ any) {}

// listOf returns the records of the page List fetched.
func listOf[T any](page any, err error) ([]T, error) {
	if err != nil {
		return nil, err
	}
	return page.(*Page[T]).Records, nil
}
